package fib

import (
	"fmt"
	"testing"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// TestSeed000Counts reproduces seed 000 at a small N and checks its tells on
// the counters: before the patch, one fib_flush per removed nexthop, each
// walking main and local (the same trie) and visiting every remaining leaf;
// after it, one flush in all. Counters, not clocks.
func TestSeed000Counts(t *testing.T) {
	const n = 512
	for _, c := range []struct {
		policy  nexthop.Policy
		flushes int64
		leaves  int64
	}{
		// Flush k walks main, visiting the N-k+1 routes left plus the 3
		// address leaves and removing one, then local, the same trie one
		// leaf smaller. The FIB's own flush on NETDEV_DOWN then walks main
		// (3 leaves, removing the subnet route) and local (2, removing the
		// broadcast route; the local route survives a link down).
		{nexthop.FlushPerNexthop, n + 1, 2*(n*(n+1)/2+3*n) - n + 3 + 2},
		// One flush: main visits all N+3 leaves and removes N, local
		// visits the 3 left.
		{nexthop.FlushDeferred, 1 + 1, (n + 3) + 3 + 3 + 2},
	} {
		t.Run(c.policy.String(), func(t *testing.T) {
			e := newEnv(t, c.policy)
			e.mustIP(seed000Lines(n, true)...)
			if got := e.f.Len(); got != n+3 {
				t.Fatalf("%d routes before, want %d", got, n+3)
			}
			before := e.t.Counters()
			e.mustIP("link set vethA down")
			w := e.t.Counters().Sub(before)
			if got := w.Get(sim.FIBFlush); got != c.flushes {
				t.Errorf("%d fib_flush calls, want %d", got, c.flushes)
			}
			if got := w.Get(sim.TrieLeafVisit); got != c.leaves {
				t.Errorf("%d leaf visits, want %d", got, c.leaves)
			}
			if got := w.Get(sim.FibAliasRemove); got != n+2 {
				t.Errorf("%d routes removed, want %d (the routes, the subnet and broadcast routes)", got, n+2)
			}
			if got := e.show(); got != "local 198.51.100.1 dev vethA table local proto kernel scope host src 198.51.100.1 \n" {
				t.Errorf("routes left:\n%s", got)
			}
			if e.f.InfoCount() != 1 || e.nh.Len() != 0 {
				t.Errorf("%d fib_infos and %d nexthops left, want 1 and 0", e.f.InfoCount(), e.nh.Len())
			}
			if err := e.f.check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSeed000RemovalOrder checks that before the patch the routes go from
// the highest key down, one per flush (nexthop_flush_dev meets the newest
// nexthop first), by looking at the trie after each of the first flushes.
func TestSeed000RemovalOrder(t *testing.T) {
	const n = 64
	e := newEnv(t, nexthop.FlushPerNexthop)
	e.mustIP(seed000Lines(n, true)...)
	var flushes int
	var gone []string
	f := flushRecorder{f: e.f, after: func() {
		flushes++
		// The route of the nexthop just removed is gone.
		for i := n; i >= 1; i-- {
			p := fmt.Sprintf("10.%d.%d.0", (i-1)/256, (i-1)%256)
			found := false
			for _, r := range e.f.Routes(TableMain) {
				if r.Dst.Addr().String() == p {
					found = true
				}
			}
			if !found && len(gone) < n-i+1 {
				gone = append(gone, p)
			}
		}
	}}
	e.rtnl.Lock(e.t)
	e.nh.FlushDev(e.t, e.dev("vethA"), 2 /* NETDEV_DOWN */, f)
	e.rtnl.Unlock(e.t)
	if flushes != n {
		t.Fatalf("%d flushes, want %d", flushes, n)
	}
	for k, p := range gone[:4] {
		want := fmt.Sprintf("10.0.%d.0", n-1-k)
		if p != want {
			t.Errorf("route %d removed: %s, want %s", k+1, p, want)
		}
	}
}

// flushRecorder is a nexthop.Flusher that flushes the FIB and then reports.
type flushRecorder struct {
	f     *FIB
	after func()
}

func (r flushRecorder) FlushFIB(t *sim.Task) {
	r.f.FlushFIB(t)
	r.after()
}
