package fib

import (
	"fmt"
	"testing"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// Every IPv4 address added to a device that is up runs fib_sync_up, which
// walks the device's whole fib_info_devhash chain, and every address puts
// its own local route's fib_info on that chain: N addresses visit
// N(N+1)/2 fib_infos in the kernel. netsim counts every visit and charges
// it, but walks the chain itself only while something on it is flagged.
//
// Kernel: fib_inetaddr_event → fib_add_ifaddr, fib_sync_up
// (net/ipv4/fib_frontend.c, fib_semantics.c).
func TestSyncUpWalkCountedNotDone(t *testing.T) {
	for _, n := range []int64{100, 1000, 3000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			e := newEnv(t, nexthop.FlushDeferred)
			e.mustIP("link add v0 type veth peer name v1", "link set v0 up")
			before, walked := e.t.Counters(), e.f.devWalked
			for i := range n {
				e.mustIP(fmt.Sprintf("addr add 10.%d.%d.%d/32 dev v0", i>>16, i>>8&255, i&255))
			}
			got := e.t.Counters().Sub(before).Get(sim.FibDevhashVisit)
			if want := n * (n + 1) / 2; got != want {
				t.Errorf("fib_devhash_visits = %d, want N(N+1)/2 = %d", got, want)
			}
			// The first add walks its one fib_info and finds it clean;
			// the others are counted.
			if w := e.f.devWalked - walked; w > 1 {
				t.Errorf("netsim walked %d fib_infos for %d adds, want at most 1", w, n)
			}
			if err := e.f.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
