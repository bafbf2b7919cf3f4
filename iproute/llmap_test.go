package iproute_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// requests runs script as one `ip -force -batch` process after setup (another
// process) and returns the requests the batch made, its stderr and status.
func requests(t *testing.T, setup, script string) (int64, string, int) {
	t.Helper()
	k := rtnl.MustNewKernel(rtnl.After)
	var stderr strings.Builder
	if setup != "" {
		ip := iproute.New(k, k.World().NewTask("setup"))
		ip.Stdout, ip.Stderr = io.Discard, &stderr
		if st := ip.Batch(strings.NewReader(setup), "setup", false); st != 0 {
			t.Fatalf("setup: exit %d: %s", st, stderr.String())
		}
	}
	task := k.World().NewTask("ip")
	ip := iproute.New(k, task)
	stderr.Reset()
	ip.Stdout, ip.Stderr = io.Discard, &stderr
	st := ip.Batch(strings.NewReader(script), "F", true)
	return task.Counters().Get(sim.Syscall), stderr.String(), st
}

// TestLLMapOneLookupPerName: a batch of 100 `route add ... dev v0` asks the
// kernel for v0's index once, as ip's ll_map does (strace -c on Linux 6.18
// and iproute2 6.1: 101 sendmsg), not once a line.
func TestLLMapOneLookupPerName(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&b, "route add 10.0.0.%d/32 via 198.51.100.2 dev v0\n", i)
	}
	n, stderr, st := requests(t, "link add v0 type veth peer name v1\nlink set v0 up\nlink set v1 up\naddr add 198.51.100.1/24 dev v0\n", b.String())
	if st != 0 {
		t.Fatalf("exit %d: %s", st, stderr)
	}
	if n != 101 {
		t.Errorf("%d requests, want 101 (one RTM_GETLINK, 100 RTM_NEWROUTE)", n)
	}
}
