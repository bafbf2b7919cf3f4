package linediff

import "testing"

func TestUnified(t *testing.T) {
	for _, c := range []struct {
		name, a, b, want string
	}{
		// Equal texts have no diff.
		{"equal", "x\n", "x\n", ""},
		// A changed line among context.
		{"change", "a\nb\nc\n", "a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		// An added line at the end.
		{"append", "a\n", "a\nb\n", "@@ -1,1 +1,2 @@\n a\n+b\n"},
		// Far apart changes make two hunks.
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "x\n2\n3\n4\n5\n6\n7\n8\n9\ny\n",
			"@@ -1,4 +1,4 @@\n-1\n+x\n 2\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+y\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Unified(c.a, c.b); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
