package golden

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseFormatRoundTrip(t *testing.T) {
	for _, data := range []string{
		"",
		"a comment\n",
		"# c\n-- cmd --\nip link\n-- want --\n$ ip link\n1: lo\n",
		"-- a --\n-- b --\nx",
		"-- x --\n--  --\n-- -- --\n", // "--  --" and "-- -- --" are too short or empty names
	} {
		f := Parse(data)
		require.Equal(t, data, f.Format(), "%q", data)
	}
}

func TestParseSections(t *testing.T) {
	f := Parse("top\n-- cmd --\nip a\n-- out --\nx\ny\n")
	require.Equal(t, "top\n", f.Comment)
	require.Equal(t, []string{"cmd", "out"}, f.Names())
	out, ok := f.Get("out")
	require.True(t, ok)
	require.Equal(t, "x\ny\n", out)
	_, ok = f.Get("nope")
	require.False(t, ok)
	f.Set("out", "z\n")
	f.Set("new", "n\n")
	require.Equal(t, "top\n-- cmd --\nip a\n-- out --\nz\n-- new --\nn\n", f.Format())
}

func TestMark(t *testing.T) {
	for _, s := range []string{"", "a\n", "a", "a\nb", "\\ no newline"} {
		m := Mark(s)
		require.True(t, m == "" || m[len(m)-1] == '\n', "%q", m)
		require.Equal(t, s, Unmark(m), "%q", s)
	}
	require.Equal(t, "a\n\\ no newline\n", Mark("a"))
}
