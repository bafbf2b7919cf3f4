package fib

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/netsimlab/netsim/nexthop"
)

// TestResizeThresholds inserts and then deletes 20,000 random prefixes one
// by one, checking the trie every 50 operations: besides the structural
// invariants, no tnode may be left that resize would still inflate or halve
// (the kernel's resize only visits the path of the change and stops after
// MAX_WORK steps, so this is observed, not promised).
func TestResizeThresholds(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 3000
	}
	r := rand.New(rand.NewPCG(5, 6))
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	ps := randomPrefixes(r, n)
	check := func(what string, i int) {
		if i%50 != 0 {
			return
		}
		if err := e.f.check(); err != nil {
			t.Fatalf("after %d %s: %v", i+1, what, err)
		}
	}
	for i, p := range ps {
		e.mustIP(routeLine("add", p, 100))
		check("additions", i)
	}
	r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	for i, p := range ps {
		e.mustIP(routeLine("del", p, 100))
		check("deletions", i)
	}
	if tb := e.f.Table(100); tb.Len() != 0 || tb.t.nLeaves != 0 || tb.t.nTnodes != 0 {
		t.Fatalf("emptied table keeps %d routes, %d leaves, %d tnodes", tb.Len(), tb.t.nLeaves, tb.t.nTnodes)
	}
}

// TestAscendingParents adds /32 routes in ascending order, as a batch of
// `route add` lines does, with some shorter prefixes among them and some
// deleted again, checking the trie (every leaf's parent included) every 25
// operations and around every power of two, where chains of doublings move
// the same leaves from tnode to tnode again and again.
func TestAscendingParents(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 5000
	}
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	addr := func(i int) netip.Addr {
		return netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
	}
	ops := 0
	check := func(i int) {
		ops++
		if ops%25 != 0 && i&(i-1) != 0 && (i+1)&i != 0 {
			return
		}
		if err := e.f.check(); err != nil {
			t.Fatalf("after %d routes: %v", i+1, err)
		}
	}
	for i := range n {
		e.mustIP(routeLine("add", netip.PrefixFrom(addr(i), 32), 100))
		check(i)
		if i%97 == 0 {
			e.mustIP(routeLine("add", netip.PrefixFrom(addr(i), 24+i%7).Masked(), 100))
			check(i)
		}
		if i%13 == 5 {
			e.mustIP(routeLine("del", netip.PrefixFrom(addr(i-3), 32), 100))
			check(i)
		}
	}
	if err := e.f.check(); err != nil {
		t.Fatal(err)
	}
}
