package fib

import (
	"math/rand/v2"
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
