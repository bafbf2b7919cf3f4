package fib

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// A dump in parts resumes by key: between parts, a route deleted behind
// the cursor is not given again, one added behind it is not given, one
// added ahead of it is; no route is given twice and the order is the
// trie's. Several routes on one leaf (aliases) may be split across parts.
// A part that resumes is charged its descent from the root.
//
// Kernel: fib_table_dump, fn_trie_dump_leaf (net/ipv4/fib_trie.c).
func TestDumpInParts(t *testing.T) {
	e := newEnv(t, nexthop.FlushDeferred)
	dst := func(i int) netip.Prefix { return netip.MustParsePrefix(fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)) }
	add := func(i int, prio uint32) {
		r := Route{Dst: dst(i), Type: TypeBlackhole, Priority: prio}
		require.NoError(t, e.do(func() error { return e.f.Add(e.t, r, rt.ModeAdd) }))
	}
	for i := range 300 {
		add(2*i, 0)
		add(2*i, 1) // a second alias on the leaf
	}
	var c DumpCursor
	var got []string
	seen := map[string]bool{}
	before := e.t.Counters().Get(sim.TrieNodeVisit)
	for part := 0; ; part++ {
		n := 0
		var done bool
		require.NoError(t, e.do(func() error {
			done = e.f.Dump(e.t, TableMain, &c, func(r Route) bool {
				if n == 7 {
					return false
				}
				n++
				k := fmt.Sprintf("%v/%d", r.Dst, r.Priority)
				require.False(t, seen[k], "%s given twice", k)
				seen[k] = true
				got = append(got, k)
				return true
			})
			return nil
		}))
		if done {
			break
		}
		if part == 10 {
			// Behind the cursor: deleted and added; ahead: added.
			require.NoError(t, e.do(func() error { return e.f.Del(e.t, Route{Dst: dst(0), Type: TypeBlackhole}) }))
			add(1, 0)
			add(501, 0)
		}
	}
	require.Contains(t, got, dst(501).String()+"/0", "a route added ahead of the cursor is given")
	require.NotContains(t, got, dst(1).String()+"/0", "a route added behind it is not")
	require.Len(t, got, 601)
	require.True(t, slices.IsSortedFunc(got, func(a, b string) int {
		pa, pb := netip.MustParsePrefix(a[:len(a)-2]), netip.MustParsePrefix(b[:len(b)-2])
		return pa.Addr().Compare(pb.Addr())
	}))
	require.Greater(t, e.t.Counters().Get(sim.TrieNodeVisit)-before, int64(85), "each of the 86 resumed parts descends")
}
