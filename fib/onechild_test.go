package fib

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nexthop"
)

// TestInflateMayLeaveOneChild: resize returns as soon as it has inflated a
// node, before looking for a single child to collapse, so the kernel's trie
// can keep a tnode with one child. Here an inflate of the root splits a full
// child into two halves, one of which inflates in turn and leaves a node
// whose other half emptied. The real kernel (6.18, with veths for the
// dummies) shows the same local table in /proc/net/fib_triestat: 6 leaves,
// 5 internal nodes (1 of 1 bit, 3 of 2, 1 of 3), 22 pointers, 12 null.
func TestInflateMayLeaveOneChild(t *testing.T) {
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP("link add d0 type dummy", "link add d1 type dummy", "link set d0 up",
		"addr add 192.0.2.1/24 dev d0", "rule add pref 20 lookup 100",
		"route replace table local 203.0.113.0/24 via 192.0.2.1",
		"addr add 198.51.100.1/24 dev d1", "link set d0 down", "link set lo up",
		"addr add 224.0.0.5/24 dev d1")
	tb := e.f.Table(TableLocal)
	require.NoError(t, tb.t.checkShape())
	s := tb.Stats()
	require.Equal(t, 6, s.Leaves)
	require.Equal(t, 6, s.Prefixes)
	require.Equal(t, 5, s.Tnodes)
	require.Equal(t, [3]int{1, 3, 1}, [3]int{s.NodeSizes[1], s.NodeSizes[2], s.NodeSizes[3]})
	require.Equal(t, 12, s.NullPointers)
	require.Equal(t, 3, s.MaxDepth)
	require.Equal(t, 15, s.TotDepth) // average depth 2.50
}
