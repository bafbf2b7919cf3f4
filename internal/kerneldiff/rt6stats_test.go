package kerneldiff

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netsimlab/netsim/internal/linediff"
)

// rt6Sets are the route sets whose rt6_stats are compared with the real
// kernel's transcripts in testdata/rt6stats: name, seed, route requests.
var rt6Sets = []struct {
	name string
	seed uint64
	n    int
}{
	{"small1", 1, 100},
	{"small2", 2, 100},
	{"medium1", 11, 1000},
	{"medium2", 12, 1000},
	{"large1", 21, 10000},
}

// rt6Header is a transcript's first line: the set and a digest of its
// batch lines, so that a changed generator shows as a stale transcript.
func rt6Header(name string, seed uint64, n int, set RT6Set) string {
	h := sha256.New()
	for _, p := range set.Parts {
		fmt.Fprintf(h, "%s\n--\n", strings.Join(p, "\n"))
	}
	return fmt.Sprintf("# %s: GenRT6Set(%d, %d), batch sha256 %x; the real kernel's errors and rt6_stats after each part of `ip -6 -force -batch`\n", name, seed, n, h.Sum(nil)[:8])
}

// TestRT6Stats runs the route sets through netsim's ip and compares the
// errors and /proc/net/rt6_stats after each part with the real kernel's
// transcripts (taken with -rewrite; the routes allocated and the dst
// entries hidden, see the package comment).
func TestRT6Stats(t *testing.T) {
	for _, c := range rt6Sets {
		t.Run(c.name, func(t *testing.T) {
			set := GenRT6Set(c.seed, c.n)
			header := rt6Header(c.name, c.seed, c.n, set)
			golden := filepath.Join("testdata", "rt6stats", c.name+".golden")
			if *rewrite {
				if err := Available(); err != nil {
					t.Skipf("-rewrite needs the real kernel: %v", err)
				}
				real, err := RunRT6SetReal(set)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(real.Render(header)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(want), header) {
				t.Fatalf("%s is not of this set (the generator changed?): rerun with -rewrite", golden)
			}
			start := time.Now()
			var got string
			within(t, time.Minute, func() { got = RunRT6SetNetsim(set).Render(header) })
			t.Logf("%d requests in %v", c.n, time.Since(start).Round(time.Millisecond))
			if got != string(want) {
				t.Errorf("netsim differs from the real kernel (- real kernel, + netsim):\n%s", firstLines(linediff.Unified(string(want), got), 40))
			}
		})
	}
}

// within runs fn and fails the test if it does not return within d (a
// request that never returns, such as a device whose references are
// never dropped, then fails its test instead of the package's run).
func within(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("netsim did not finish within %v", d)
	}
}

// firstLines returns s's first n lines.
func firstLines(s string, n int) string {
	l := strings.SplitAfter(s, "\n")
	if len(l) > n {
		l = append(l[:n], "...\n")
	}
	return strings.Join(l, "")
}

// TestGenRT6Set: a set is a deterministic function of its seed, of about
// the size asked, with every kind of request.
func TestGenRT6Set(t *testing.T) {
	a, b := GenRT6Set(5, 400), GenRT6Set(5, 400)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("GenRT6Set(5) differs between runs")
	}
	n := 0
	all := ""
	for _, p := range a.Parts[1:5] {
		n += len(p)
		all += strings.Join(p, "\n") + "\n"
	}
	if n != 400 {
		t.Fatalf("%d requests, want 400", n)
	}
	for _, w := range []string{"route add blackhole", "route add unreachable", " from ", "nexthop via", "route append", "route del", "metric 1 ", "/128 "} {
		if !strings.Contains(all, w) {
			t.Errorf("no request has %q", w)
		}
	}
}
