package fib

import (
	"fmt"
	"testing"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// TestInfoAlloc checks the fib_info sizes the working set counts: the
// head alone (128 bytes) for a route on a nexthop object, the head and its
// fib_nh array rounded up to the kmalloc class otherwise.
func TestInfoAlloc(t *testing.T) {
	for nhs, want := range map[int]int64{0: 128, 1: 256, 2: 512, 4: 1024, 8: 1024, 9: 2048} {
		if got := infoAlloc(nhs); got != want {
			t.Errorf("infoAlloc(%d) = %d, want %d", nhs, got, want)
		}
	}
	const n = 300
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(seed000Lines(n, true)...)
	ws := e.f.workingSet()
	// The set-up's own three routes (prefix, local, broadcast) have a
	// fib_info each with a classic path; every nhid route has its own
	// head.
	if want := int64(n*128 + 3*256); ws.infoBytes != want {
		t.Errorf("fib_info bytes %d, want %d", ws.infoBytes, want)
	}
	if ws.infos != n+3 {
		t.Errorf("%d fib_infos, want %d", ws.infos, n+3)
	}
}

// TestFlushStallsInItsStartingSet checks that a flush that empties the
// trie charges its loads' stall in the working set it began in, not in
// the empty trie left when its work is charged: two loads a leaf (leaf,
// alias) and up to one more for the fib_info of each alias examined, every
// one in the trie's bytes before the link down. (The objects average under
// 128 bytes, so every load costs the in-order chase's 128-byte latency.)
func TestFlushStallsInItsStartingSet(t *testing.T) {
	// Routes that share one fib_info: its devhash chain is one long, so
	// the trie's walks are the only loads that stall.
	const n = 40000 // leaves and aliases: 4 MB, past L2
	e := newEnv(t, nexthop.FlushDeferred)
	lines := setupLines()
	for i := 1; i <= n; i++ {
		lines = append(lines, fmt.Sprintf("route add 10.%d.%d.0/32 via 198.51.100.2", (i-1)/256, (i-1)%256))
	}
	e.mustIP(lines...)
	ws := e.f.workingSet()
	if ws.bytes < 4*sim.DefaultCosts.Memory.L2 {
		t.Fatalf("working set %d bytes: too small for the test", ws.bytes)
	}
	before := e.t.Counters()
	e.mustIP("link set vethA down")
	w := e.t.Counters().Sub(before)
	leaves := w.Get(sim.TrieLeafVisit)
	if leaves < n {
		t.Fatalf("%d leaf visits, want at least %d", leaves, n)
	}
	m := sim.DefaultCosts.Memory
	per := m.SeqStallNS(ws.bytes, 128)
	lo, hi := float64(leaves)*2*per, float64(leaves)*3*per
	if got := float64(w.Get(sim.MemStallNS)); got < lo || got > hi {
		t.Errorf("memory stall %.0f ns, want %.0f to %.0f (%d leaves, %.2f ns a load in %d bytes)", got, lo, hi, leaves, per, ws.bytes)
	}
	if e.f.workingSet().bytes >= m.L2 {
		t.Errorf("the flush left %d bytes: the test needs an emptied trie", e.f.workingSet().bytes)
	}
}
