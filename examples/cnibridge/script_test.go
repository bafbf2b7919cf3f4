// cni.ip run unchanged on netsim, and on the running kernel as root,
// against the state it leaves on Linux 6.18 (testdata/state.golden).

package main

import (
	"bytes"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/examples/internal/nsstate"
	"github.com/netsimlab/netsim/internal/golden"
	"github.com/netsimlab/netsim/internal/linediff"
	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
)

var rewrite = flag.Bool("rewrite", false, "record testdata/state.golden on the real kernel (needs root)")

const (
	script     = "cni.ip"
	goldenFile = "testdata/state.golden"
)

// namespaces are the containers' namespaces, whose state is compared
// with the host's.
var namespaces = []string{"cni-3e2f9a1c", "cni-b71d5e04"}

// wantState returns the state recorded on the real kernel and the
// golden's comment.
func wantState(t *testing.T) (want, comment string) {
	data, err := os.ReadFile(goldenFile)
	require.NoError(t, err)
	return string(data), golden.Parse(string(data)).Comment
}

// TestScript: `ip -batch cni.ip` on netsim leaves, in the host
// namespace and in each container's, the links, addresses and routes it
// leaves on Linux 6.18.
func TestScript(t *testing.T) {
	want, comment := wantState(t)
	k := rtnl.MustNewKernel(rtnl.After)
	ip := iproute.New(k, k.World().NewTask("ip"))
	var stdout, stderr bytes.Buffer
	ip.Stdout, ip.Stderr = &stdout, &stderr
	f, err := os.Open(script)
	require.NoError(t, err)
	defer f.Close()
	require.Equal(t, 0, ip.Batch(f, script, false), stderr.String())
	require.Empty(t, stdout.String()+stderr.String())
	got, err := nsstate.Netsim(k, namespaces)
	require.NoError(t, err)
	if d := linediff.Unified(want, nsstate.Render(comment, namespaces, got)); d != "" {
		t.Errorf("netsim's state differs from Linux's (- Linux, + netsim):\n%s", d)
	}
}

// TestScriptRealKernel: the running kernel still leaves the recorded
// state (as root; -rewrite records it).
func TestScriptRealKernel(t *testing.T) {
	if err := nsstate.Available(); err != nil {
		t.Skip("the real kernel cannot be used: ", err)
	}
	want, comment := wantState(t)
	got, err := nsstate.Real(script, namespaces, 2*time.Second)
	require.NoError(t, err)
	text := nsstate.Render(comment, namespaces, got)
	if *rewrite {
		require.NoError(t, os.WriteFile(goldenFile, []byte(text), 0o644))
		return
	}
	if d := linediff.Unified(want, text); d != "" {
		t.Errorf("the running kernel's state differs from the recorded one (- recorded, + now):\n%s", d)
	}
}
