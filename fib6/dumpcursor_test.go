package fib6

import (
	"fmt"
	"testing"

	"github.com/netsimlab/netsim/rt"
	"github.com/stretchr/testify/require"
)

// A dump in parts gives every route once, in the order of a dump in one
// part, whatever the routes deleted around its walker between parts; its
// walker stays registered between parts and leaves the FIB at the end, or
// at Close when the dump is abandoned (fib6_dump_done).
//
// Kernel: fib6_dump_table, fib6_dump_done, fib6_del_route's walker
// adjustment (net/ipv6/ip6_fib.c).
func TestDumpInParts(t *testing.T) {
	e := newTreeEnv(t)
	for i := range 200 {
		require.NoError(t, e.add(routeSpec{dst: fmt.Sprintf("2001:db8:%x::/48", i), dev: "d0", gw: "fe80::1"}, rt.ModeAdd))
	}
	var whole []string
	d := e.f.NewDump()
	require.True(t, d.Next(e.t, 0, func(r Route) bool { whole = append(whole, r.Dst.String()); return true }))
	require.Empty(t, e.f.tree.walkers)

	// Parts of 7 routes; each part deletes the route the walker stands
	// at and the last one it gave.
	var parts []string
	d = e.f.NewDump()
	deleted := map[string]bool{}
	for part := 0; ; part++ {
		n := 0
		done := d.Next(e.t, 0, func(r Route) bool {
			if n == 7 {
				return false
			}
			n++
			parts = append(parts, r.Dst.String())
			return true
		})
		if done {
			break
		}
		require.Len(t, e.f.tree.walkers, 1, "the walker stays registered between parts")
		last := parts[len(parts)-1]
		if last != "::/0" && !deleted[last] {
			require.True(t, e.del(routeSpec{dst: last, dev: "d0", gw: "fe80::1"}))
			deleted[last] = true
		}
	}
	require.Empty(t, e.f.tree.walkers)
	require.Equal(t, whole, parts, "deleting behind the cursor neither repeats nor misses a route")

	// An abandoned dump's walker leaves at Close.
	d = e.f.NewDump()
	require.False(t, d.Next(e.t, 0, func(Route) bool { return false }))
	require.Len(t, e.f.tree.walkers, 1)
	d.Close()
	require.Empty(t, e.f.tree.walkers)
	d.Close()
}
