// docker.ip run unchanged on netsim, and on the running kernel as root,
// against the state it leaves on Linux 6.18 (testdata/state.golden).

package main

import (
	"flag"
	"testing"

	"github.com/netsimlab/netsim/examples/internal/nsstate"
)

var rewrite = flag.Bool("rewrite", false, "record testdata/state.golden on the real kernel (needs root)")

var example = nsstate.Example{Script: "docker.ip", Golden: "testdata/state.golden", Namespaces: []string{"c1", "c2"}}

// TestScript: `ip -batch docker.ip` on netsim leaves, in the host
// namespace and in each container's, the links, addresses and routes it
// leaves on Linux 6.18.
func TestScript(t *testing.T) { example.RunScript(t) }

// TestScriptRealKernel: the running kernel still leaves the recorded
// state (as root; -rewrite records it).
func TestScriptRealKernel(t *testing.T) { example.RunScriptRealKernel(t, *rewrite) }
