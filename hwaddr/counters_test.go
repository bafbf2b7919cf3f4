package hwaddr_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/stretchr/testify/require"
)

// spread returns the i-th of 2²⁴ distinct solicited-node multicast addresses
// (33:33:ff:xx:xx:xx), in an order that is not sorted: multiplying by an odd
// constant permutes the integers modulo 2²⁴.
func spread(i int) hwaddr.Addr {
	v := uint32(i) * 0x9e3779b1 & 0xffffff
	return hwaddr.Addr{0x33, 0x33, 0xff, byte(v >> 16), byte(v >> 8), byte(v)}
}

// absent returns addresses that spread never yields for i < 2²⁴: their
// fourth octet has no 33:33:ff prefix.
func absent(i int) hwaddr.Addr {
	return hwaddr.Addr{0x33, 0x33, 0xfe, byte(i >> 16), byte(i >> 8), byte(i)}
}

// build returns a list of n spread multicast entries, refcount 1 each, with
// its counters at zero.
func build(tb testing.TB, p hwaddr.Policy, n int) *hwaddr.List {
	tb.Helper()
	l := hwaddr.NewList(p)
	addrs := make([]hwaddr.Addr, n)
	for i := range addrs {
		addrs[i] = spread(i)
	}
	hwaddr.AddDistinct(l, mc, addrs...)
	return l
}

// compares runs f and returns how many compares it cost l.
func compares(l *hwaddr.List, f func()) int64 {
	c := l.Compares()
	f()
	return l.Compares() - c
}

// TestListOnlyComparesAreLinear: a ListOnly search walks from the head, so
// finding the i-th entry costs exactly i+1 compares and a miss costs Len.
func TestListOnlyComparesAreLinear(t *testing.T) {
	perOp := map[int]int64{}
	for _, n := range []int{100, 1000, 10000} {
		l := build(t, hwaddr.ListOnly, n)
		for _, i := range []int{0, 1, n / 2, n - 1} {
			got := compares(l, func() { l.Lookup(nil, spread(i), mc) })
			require.Equal(t, int64(i+1), got, "n=%d lookup of entry %d", n, i)
		}
		require.Equal(t, int64(n), compares(l, func() { l.Lookup(nil, absent(1), mc) }), "n=%d miss", n)

		// A new address: the add walks all n, the delete finds it at the tail.
		perOp[n] = compares(l, func() {
			require.NoError(t, l.Add(nil, absent(1), mc))
			require.NoError(t, l.Del(nil, absent(1), mc))
		})
		require.Equal(t, int64(2*n+1), perOp[n], "n=%d add+del", n)
	}
	require.Equal(t, 100*perOp[100]-99, perOp[10000], "×100 entries, ×100 compares")
}

// TestTreeIndexedComparesAreLogarithmic: a TreeIndexed search is one descent
// of a red-black tree, at most 2·log2(n+1) compares, and about log2(n) on average.
func TestTreeIndexedComparesAreLogarithmic(t *testing.T) {
	perOp := map[int]int64{}
	for _, n := range []int{100, 1000, 10000, 100000} {
		l := build(t, hwaddr.TreeIndexed, n)
		bound := int64(2 * math.Log2(float64(n+1)))
		var total int64
		for i := range n {
			c := compares(l, func() { l.Lookup(nil, spread(i), mc) })
			require.LessOrEqual(t, c, bound, "n=%d lookup of entry %d", n, i)
			total += c
		}
		avg := float64(total) / float64(n)
		require.Less(t, avg, math.Log2(float64(n))+1, "n=%d average lookup", n)

		perOp[n] = compares(l, func() {
			require.NoError(t, l.Add(nil, absent(1), mc))
			require.NoError(t, l.Del(nil, absent(1), mc))
		})
		require.LessOrEqual(t, perOp[n], 2*int64(2*math.Log2(float64(n+2))), "n=%d add+del", n)
	}
	require.Less(t, perOp[100000], 4*perOp[100], "×1000 entries, under ×4 compares")
}

// TestSyncMultipleCost is SEED001's expensive primitive: a bond resyncing its
// M-entry list to a slave that already mirrors it. Every entry ends in EEXIST,
// found at the same position in the slave as in the bond, so ListOnly pays
// exactly M(M+1)/2 compares (1,130,256 at the seed's M = 1503); TreeIndexed
// pays at most M·2·log2(M+1). Both visit the M bond entries once.
func TestSyncMultipleCost(t *testing.T) {
	for _, m := range []int{10, 100, 1503} {
		for _, p := range policies {
			t.Run(fmt.Sprintf("%s/m=%d", p, m), func(t *testing.T) {
				bond, slave := build(t, p, m), hwaddr.NewList(p)

				it := bond.Iterated()
				first := compares(slave, func() { require.NoError(t, hwaddr.SyncMultiple(nil, slave, bond)) })
				require.Equal(t, int64(m), bond.Iterated()-it)
				require.Equal(t, m, slave.Len())

				it = bond.Iterated()
				resync := compares(slave, func() { require.NoError(t, hwaddr.SyncMultiple(nil, slave, bond)) })
				require.Equal(t, int64(m), bond.Iterated()-it)

				if p == hwaddr.ListOnly {
					require.Equal(t, int64(m*(m-1)/2), first, "first sync: entry j walks the j already pushed")
					require.Equal(t, int64(m*(m+1)/2), resync, "resync: entry j found at position j")
					return
				}
				bound := int64(float64(m) * 2 * math.Log2(float64(m+1)))
				require.LessOrEqual(t, first, bound)
				require.LessOrEqual(t, resync, bound)
			})
		}
	}
}

// TestSyncChargesTheLower: a sync's searches are in the lower list and its
// walk in the upper list.
func TestSyncChargesTheLower(t *testing.T) {
	for _, p := range policies {
		upper, lower := build(t, p, 50), hwaddr.NewList(p)
		c, it, upIt := upper.Compares(), lower.Iterated(), upper.Iterated()
		require.NoError(t, hwaddr.Sync(nil, lower, upper))
		require.Equal(t, c, upper.Compares(), "%s: upper searched", p)
		require.Equal(t, it, lower.Iterated(), "%s: lower walked", p)
		require.Equal(t, int64(50), upper.Iterated()-upIt, "%s: the walk visits each upper entry once", p)
		require.Positive(t, lower.Compares())
	}
}
