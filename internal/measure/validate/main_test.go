package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/internal/validate"
)

func row(t *testing.T, id string) *validate.Row {
	t.Helper()
	rows, err := validate.Select(validate.Rows(), "^"+id+"$", 0)
	if err != nil || len(rows) != 1 {
		t.Fatalf("row %s: %d rows, %v", id, len(rows), err)
	}
	return rows[0]
}

// TestScripts: each step kind becomes the shell it stands for.
func TestScripts(t *testing.T) {
	for _, c := range []struct {
		id    string
		files []string
		timed []string
		inner []string
	}{
		{"004/group del@1000", []string{"setup1.ip", "setup2.ip", "timed.ip"},
			[]string{`ip -batch "$D/timed.ip"`}, []string{"ip -o link show group 7 | wc -l"}},
		{"004/one-by-one/10@1000", []string{"job1.ip", "job10.ip"},
			[]string{`for j in $(seq 1 10); do ip -batch "$D/job$j.ip" & pids+=" $!"; done`, "wait $p || rc=1"}, nil},
		{"003/rules ipv6@4", []string{"timed.ip"},
			[]string{`for i in $(seq 1 4); do ip -n ns-$i -6 -batch "$D/timed.ip" & pids+=" $!"; done`},
			[]string{"mount -t tmpfs netsim-validate /run/netns"}},
		{"002/delete@100", []string{"setup2.ip", "timed.ip"},
			[]string{`while read -r l; do ip $l; done <"$D/timed.ip"`}, nil},
	} {
		d := t.TempDir()
		r := row(t, c.id)
		if err := writeScripts(d, r); err != nil {
			t.Fatal(err)
		}
		for _, f := range c.files {
			if _, err := os.Stat(filepath.Join(d, f)); err != nil {
				t.Errorf("%s: %v", c.id, err)
			}
		}
		for file, want := range map[string][]string{"timed.sh": c.timed, "inner.sh": c.inner} {
			b, err := os.ReadFile(filepath.Join(d, file))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range want {
				if !strings.Contains(string(b), w) {
					t.Errorf("%s: %s lacks %q:\n%s", c.id, file, w, b)
				}
			}
		}
	}
	setup, err := os.ReadFile(filepath.Join(func() string {
		d := t.TempDir()
		if err := writeScripts(d, row(t, "002/delete@100")); err != nil {
			t.Fatal(err)
		}
		return d
	}(), "setup.sh"))
	if err != nil || !strings.Contains(string(setup), "sysctl -q -w net.ipv6.conf.default.forwarding=1\n") {
		t.Errorf("002's set-up: %q, %v", setup, err)
	}
	if got := shellQuote([]string{"-rows", "^004/(a|b)$", "-reps", "1", "it's"}); got != `-rows '^004/(a|b)$' -reps 1 'it'\''s'` {
		t.Errorf("shellQuote: %s", got)
	}
}

// TestRealKernel runs two small rows on this machine's kernel, one with
// named namespaces: the harness measures and checks them. It skips
// without root, unshare or ip, and with -short.
func TestRealKernel(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	for _, c := range []string{"unshare", "ip", "mount", "sysctl"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s not found", c)
		}
	}
	host, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Skip(err)
	}
	if out, err := exec.Command("unshare", "-n", "readlink", "/proc/self/ns/net").Output(); err != nil || strings.TrimSpace(string(out)) == host {
		t.Skip("unshare -n gives no private network namespace")
	}
	for _, id := range []string{"003/rules ipv4@2", "004/group del@1000"} {
		d := t.TempDir()
		r := row(t, id)
		if err := writeScripts(d, r); err != nil {
			t.Fatal(err)
		}
		x, err := measure(d, r, host)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if x.Wall <= 0 || x.Sys <= 0 || x.Setup <= 0 {
			t.Errorf("%s: %+v", id, x)
		}
		t.Logf("%s: %+v", id, x)
	}
}
