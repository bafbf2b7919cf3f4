package fib6

import (
	"testing"
	"unsafe"

	"github.com/netsimlab/netsim/rt"
	"github.com/stretchr/testify/require"
)

// A node fills one cache line and Go's 64-byte size class: a node of 65
// bytes or more takes 80 (a quarter more memory per route, and lookups
// that straddle cache lines).
func TestNodeSize(t *testing.T) {
	require.Equal(t, uintptr(64), unsafe.Sizeof(node{}))
}

// The source subtrees live in the FIB's map, behind rtnSubtree, for as
// long as their node has source-specific routes, the table root's
// included; lookups and walks reach them there.
func TestSubtreeMap(t *testing.T) {
	e := newTreeEnv(t)
	f := e.f
	routes := []routeSpec{
		{dst: "::/0", src: "2001:db8:1::/48"},
		{dst: "2001:db8::/32", src: "2001:db8:2::/48"},
		{dst: "2001:db8::/32", src: "2001:db8:3::/48"},
		{dst: "2001:db8::/32"},
	}
	for _, r := range routes {
		require.NoError(t, e.add(r, rt.ModeAdd))
		require.NoError(t, f.checkTree())
	}
	require.Len(t, f.tree.subtrees, 2)
	require.NotZero(t, f.main.root.flags&rtnSubtree)

	lookup := func(dst, src string) *node {
		return f.main.nodeLookup(mustKey(dst).addr, mustKey(src).addr)
	}
	require.Equal(t, f.main.locate(mustKey("::/0"), mustKey("2001:db8:1::/48"), true), lookup("3000::1/128", "2001:db8:1::5/128"))
	require.Equal(t, f.main.locate(mustKey("2001:db8::/32"), mustKey("2001:db8:3::/48"), true), lookup("2001:db8::1/128", "2001:db8:3::5/128"))
	require.Equal(t, &f.main.root, lookup("3000::1/128", "2001:db8:2::5/128"))

	n := 0
	f.main.eachRoute(func(rt *Info) { n++ })
	require.Equal(t, len(routes)+1, n, "the walk reaches the routes in subtrees (and the null entry)")

	for _, r := range routes {
		require.True(t, e.del(r), "%+v", r)
		require.NoError(t, f.checkTree())
	}
	require.Empty(t, f.tree.subtrees)
	require.Zero(t, f.main.root.flags&rtnSubtree)
}
