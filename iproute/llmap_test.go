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

// TestLLMapStale: ip's cache outlives a device that a request deleted
// without naming it (a group, a veth's peer) and then serves the old
// index, which the kernel refuses; a device ip itself deleted, renamed or
// changed leaves the cache. The errors and the requests (sendmsg calls:
// strace -f -e trace=sendmsg ip -force -batch F, inside unshare -n) are
// those of iproute2 6.1 on Linux 6.18.
func TestLLMapStale(t *testing.T) {
	for _, c := range []struct {
		name, script, stderr string
		requests             int64
	}{
		{"deleted by name", `link add d1 type ifb
link set d1 up
route add 10.9.0.0/24 dev d1
link del d1
link add d1 type ifb
link set d1 up
route add 10.9.1.0/24 dev d1
`, "", 11},
		{"deleted by group", `link add d1 type ifb
link set d1 group 7
link set d1 up
route add 10.9.0.0/24 dev d1
link del group 7
link add d1 type ifb
link set d1 up
route add 10.9.1.0/24 dev d1
addr add 10.8.0.1/24 dev d1
`, `RTNETLINK answers: No such device
Command failed F:7
RTNETLINK answers: No such device
Command failed F:8
Error: ipv4: Device not found.
Command failed F:9
`, 12},
		{"renamed", `link add d1 type ifb
link set d1 up
route add 10.9.0.0/24 dev d1
link set d1 down
link set d1 name d2
link set d2 up
route add 10.9.1.0/24 dev d2
route add 10.9.2.0/24 dev d1
`, `Cannot find device "d1"
Command failed F:8
`, 13},
		{"deleted as a veth's peer", `link add va type veth peer name vb
link set vb up
route add 10.9.0.0/24 dev vb
link del va
link add vb type ifb
link set vb up
route add 10.9.1.0/24 dev vb
`, `RTNETLINK answers: No such device
Command failed F:6
RTNETLINK answers: No such device
Command failed F:7
`, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, stderr, _ := requests(t, "", c.script)
			if stderr != c.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, c.stderr)
			}
			if n != c.requests {
				t.Errorf("%d requests, want %d", n, c.requests)
			}
		})
	}
}

// TestLLMapFilledByDumps: the links `ip link show` dumps and ip neigh's
// ll_init_map fill the cache, so the lines after them ask nothing (Linux
// 6.18, iproute2 6.1, strace -f -e trace=sendmsg,sendto: a link dump and
// two RTM_NEWROUTE, and for ip neigh its neighbour dump, one request).
func TestLLMapFilledByDumps(t *testing.T) {
	const setup = "link add v0 type veth peer name v1\nlink set v0 up\nlink set v1 up\n"
	const routes = "route add 10.9.0.0/24 dev v0\nroute add 10.9.1.0/24 dev v1\n"
	for _, c := range []struct {
		first string
		want  int64
	}{{"link show", 3}, {"neigh show dev v0", 4}, {"neigh show", 4}} {
		n, stderr, st := requests(t, setup, c.first+"\n"+routes)
		if st != 0 {
			t.Fatalf("%s: exit %d: %s", c.first, st, stderr)
		}
		if n != c.want {
			t.Errorf("%s, then two routes: %d requests, want %d (a link dump, its own dump if any, two RTM_NEWROUTE)", c.first, n, c.want)
		}
	}
}
