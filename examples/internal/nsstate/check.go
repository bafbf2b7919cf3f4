// The checks the container examples' tests make with the state: a
// simulated kernel's against the golden recorded on Linux, and the
// running kernel's against it (or recording it).

package nsstate

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/netsimlab/netsim/internal/golden"
	"github.com/netsimlab/netsim/internal/linediff"
	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
)

// Example is one container example: its ip script, the golden holding
// the state the script leaves on Linux, and the containers' namespaces.
type Example struct {
	Script     string   // e.g. "docker.ip"
	Golden     string   // e.g. "testdata/state.golden"
	Namespaces []string // the containers' namespaces, in the golden's order
}

// want returns the recorded state and the golden's comment.
func (e Example) want(t testing.TB) (text, comment string) {
	t.Helper()
	data, err := os.ReadFile(e.Golden)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), golden.Parse(string(data)).Comment
}

// Check compares the state of k (what who left there) with the state the
// script leaves on Linux.
func (e Example) Check(t testing.TB, k *rtnl.Kernel, who string) {
	t.Helper()
	want, comment := e.want(t)
	got, err := Netsim(k, e.Namespaces)
	if err != nil {
		t.Fatal(err)
	}
	if d := linediff.Unified(want, Render(comment, e.Namespaces, got)); d != "" {
		t.Errorf("%s leaves on netsim another state than %s on Linux (- Linux, + netsim):\n%s", who, e.Script, d)
	}
}

// RunScript runs `ip -batch SCRIPT` on a new simulated kernel and checks
// the state it leaves.
func (e Example) RunScript(t testing.TB) {
	t.Helper()
	k := rtnl.MustNewKernel(rtnl.After)
	ip := iproute.New(k, k.World().NewTask("ip"))
	var stdout, stderr bytes.Buffer
	ip.Stdout, ip.Stderr = &stdout, &stderr
	f, err := os.Open(e.Script)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if st := ip.Batch(f, e.Script, false); st != 0 || stdout.Len()+stderr.Len() > 0 {
		t.Fatalf("ip -batch %s: exit status %d: %s%s", e.Script, st, stdout.String(), stderr.String())
	}
	e.Check(t, k, "ip -batch "+e.Script)
}

// RunScriptRealKernel runs the script on the running kernel (skipping
// without root) and checks that it still leaves the recorded state, or
// with rewrite records it.
func (e Example) RunScriptRealKernel(t testing.TB, rewrite bool) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skip("the real kernel cannot be used: ", err)
	}
	want, comment := e.want(t)
	got, err := Real(e.Script, e.Namespaces, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	text := Render(comment, e.Namespaces, got)
	if rewrite {
		if err := os.WriteFile(e.Golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d := linediff.Unified(want, text); d != "" {
		t.Errorf("the running kernel's state differs from the recorded one (- recorded, + now):\n%s", d)
	}
}
