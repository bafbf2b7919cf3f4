// cni.ip run unchanged on netsim, and on the running kernel as root,
// against the state it leaves on Linux 6.18 (testdata/state.golden).

package main

import (
	"flag"
	"testing"

	"github.com/netsimlab/netsim/examples/internal/nsstate"
)

var rewrite = flag.Bool("rewrite", false, "record testdata/state.golden on the real kernel (needs root)")

var example = nsstate.Example{Script: "cni.ip", Golden: "testdata/state.golden", Namespaces: []string{"cni-3e2f9a1c", "cni-b71d5e04"}}

// TestScript: `ip -batch cni.ip` on netsim leaves, in the host
// namespace and in each pod's, the links, addresses and routes it
// leaves on Linux 6.18.
func TestScript(t *testing.T) { example.RunScript(t) }

// TestScriptRealKernel: the running kernel still leaves the recorded
// state (as root; -rewrite records it).
func TestScriptRealKernel(t *testing.T) { example.RunScriptRealKernel(t, *rewrite) }
