package hwaddr_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/stretchr/testify/require"
)

// buildCounted is build for a ListOnly list with counted walks, turned on
// after the entries are in so that the index is built from the list.
func buildCounted(tb testing.TB, n int) *hwaddr.List {
	tb.Helper()
	l := build(tb, hwaddr.ListOnly, n)
	l.SetCountedWalk(true)
	require.NoError(tb, hwaddr.CheckList(l))
	return l
}

// TestCountedWalkPositions checks, one search at a time, that a counted walk
// counts what the real walk compares: the 1-based position of the entry found,
// Len() for a miss, and for type 0 the position of the address's first entry
// in list order, whatever its type.
func TestCountedWalkPositions(t *testing.T) {
	other := hwaddr.MustParseAddr("02:00:00:00:00:0b")
	type search struct {
		addr  hwaddr.Addr
		typ   hwaddr.Type
		found bool
		want  int64 // compares
	}
	cases := []struct {
		name     string
		setup    func(l *hwaddr.List)
		searches []search
	}{
		{
			// station is at positions 2 (SAN), 4 (LAN) and 5 (slave).
			name: "one address under three types",
			setup: func(l *hwaddr.List) {
				for _, e := range []struct {
					a hwaddr.Addr
					t hwaddr.Type
				}{{other, hwaddr.TypeLAN}, {station, hwaddr.TypeSAN}, {allNodes, mc}, {station, hwaddr.TypeLAN}, {station, hwaddr.TypeSlave}} {
					require.NoError(t, l.Add(nil, e.a, e.t))
				}
			},
			searches: []search{
				{station, 0, true, 2},                // the oldest, SAN
				{station, hwaddr.TypeLAN, true, 4},   // exact type
				{station, hwaddr.TypeSlave, true, 5}, // exact type, at the tail
				{station, uc, false, 5},              // no such type: the whole list
				{other, 0, true, 1},
				{allHosts, 0, false, 5},
			},
		},
		{
			// Deleting the SAN entry makes the LAN one station's oldest, now
			// at position 3; deleting the head moves everything up.
			name: "after deletes",
			setup: func(l *hwaddr.List) {
				for _, a := range []hwaddr.Addr{other, station, allNodes} {
					require.NoError(t, l.Add(nil, a, hwaddr.TypeSAN))
				}
				require.NoError(t, l.Add(nil, station, hwaddr.TypeLAN))
				require.NoError(t, l.Del(nil, station, hwaddr.TypeSAN))
				require.NoError(t, l.Del(nil, other, 0))
			},
			searches: []search{
				{station, 0, true, 2},
				{allNodes, 0, true, 1},
				{other, 0, false, 2},
			},
		},
		{
			// An entry stored with type 0 (no kernel caller adds one) is
			// found by an exact type-0 add only as itself, but by a type-0
			// lookup as the address's first entry.
			name: "type 0 entry",
			setup: func(l *hwaddr.List) {
				require.NoError(t, l.Add(nil, station, mc))
				require.NoError(t, l.Add(nil, station, 0))
			},
			searches: []search{
				{station, 0, true, 1},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			walked, counted := hwaddr.NewList(hwaddr.ListOnly), hwaddr.NewList(hwaddr.ListOnly)
			counted.SetCountedWalk(true)
			tc.setup(walked)
			tc.setup(counted)
			require.Equal(t, walked.Compares(), counted.Compares(), "setup")
			require.NoError(t, hwaddr.CheckList(counted))
			for _, s := range tc.searches {
				for _, l := range []*hwaddr.List{walked, counted} {
					c := l.Compares()
					e, found := l.Lookup(nil, s.addr, s.typ)
					require.Equal(t, s.found, found, "%s %s counted=%v", s.addr, s.typ, l.CountedWalk())
					require.Equal(t, s.want, l.Compares()-c, "%s %s counted=%v", s.addr, s.typ, l.CountedWalk())
					if found && s.typ != 0 {
						require.Equal(t, s.typ, e.Type)
					}
				}
			}
			require.Equal(t, walked.Entries(), counted.Entries())
		})
	}
}

// TestCountedWalkComparesAreLinear is TestListOnlyComparesAreLinear for
// counted walks, up to 10⁵ entries: the counts are the walk's, to the unit.
func TestCountedWalkComparesAreLinear(t *testing.T) {
	for _, n := range []int{100, 1000, 100_000} {
		l := buildCounted(t, n)
		for _, i := range []int{0, 1, n / 2, n - 1} {
			got := compares(l, func() { l.Lookup(nil, spread(i), mc) })
			require.Equal(t, int64(i+1), got, "n=%d lookup of entry %d", n, i)
		}
		require.Equal(t, int64(n), compares(l, func() { l.Lookup(nil, absent(1), mc) }), "n=%d miss", n)
		for i := range 1000 {
			got := compares(l, func() {
				require.NoError(t, l.Add(nil, absent(i), mc))
				require.NoError(t, l.Del(nil, absent(i), mc))
			})
			require.Equal(t, int64(2*n+1), got, "n=%d add+del %d", n, i)
		}
		require.NoError(t, hwaddr.CheckList(l))
	}
}

// TestCountedWalkChurn deletes entries from all over a 2000-entry list and
// appends new ones, many times the list's length, so that the sequence space
// is renumbered over and over, and checks every search against a real walk of
// the same list.
func TestCountedWalkChurn(t *testing.T) {
	const n = 2000
	rng := rand.New(rand.NewPCG(406, 42))
	walked, counted := build(t, hwaddr.ListOnly, n), buildCounted(t, n)
	live := make([]int, n) // spread indexes in the lists
	for i := range live {
		live[i] = i
	}
	renumbered := 0
	_, last := hwaddr.SeqState(counted)
	for next := n; next < 12*n; next++ {
		j := rng.IntN(len(live))
		victim := spread(live[j])
		for _, l := range []*hwaddr.List{walked, counted} {
			require.NoError(t, l.Del(nil, victim, 0))
			require.NoError(t, l.Add(nil, spread(next), mc))
		}
		live[j] = next
		if next%97 == 0 { // a lookup anywhere, and a miss
			probe := spread(live[rng.IntN(len(live))])
			for _, l := range []*hwaddr.List{walked, counted} {
				_, found := l.Lookup(nil, probe, 0)
				require.True(t, found)
				l.Lookup(nil, absent(next), mc)
			}
		}
		if walked.Compares() != counted.Compares() {
			t.Fatalf("after %d appends: counted %d compares, walked %d", next, counted.Compares(), walked.Compares())
		}
		space, next := hwaddr.SeqState(counted)
		require.Equal(t, 2*n, space, "renumbered for 2n entries")
		if next < last {
			renumbered++
		}
		last = next
	}
	require.Equal(t, walked.Entries(), counted.Entries())
	require.NoError(t, hwaddr.CheckList(counted))
	// The space of 2n holds n more appends after each renumbering: of the
	// 11n appends, the n+1st, 2n+1st, ..., 10n+1st renumber.
	require.Equal(t, 10, renumbered)
}

// TestCountedWalkOnlyForListOnly: TreeIndexed lists ignore SetCountedWalk,
// and turning it off goes back to walking with the same counts.
func TestCountedWalkOnlyForListOnly(t *testing.T) {
	tree := hwaddr.NewList(hwaddr.TreeIndexed)
	tree.SetCountedWalk(true)
	require.False(t, tree.CountedWalk())
	require.NoError(t, tree.Add(nil, allNodes, mc))
	require.NoError(t, hwaddr.CheckList(tree))

	var l hwaddr.List // the zero List is ListOnly
	require.False(t, l.CountedWalk())
	l.SetCountedWalk(true)
	require.True(t, l.CountedWalk())
	for _, a := range []hwaddr.Addr{allHosts, allNodes, solicited} {
		require.NoError(t, l.Add(nil, a, mc))
	}
	require.Equal(t, int64(0+1+2), l.Compares())
	require.Equal(t, int64(3), compares(&l, func() { l.Lookup(nil, solicited, mc) }))
	l.SetCountedWalk(false)
	require.False(t, l.CountedWalk())
	require.NoError(t, hwaddr.CheckList(&l))
	require.Equal(t, int64(3), compares(&l, func() { l.Lookup(nil, solicited, mc) }))

	// A flush keeps counted walks on, for an empty index.
	l.SetCountedWalk(true)
	l.Flush(nil)
	require.True(t, l.CountedWalk())
	require.NoError(t, hwaddr.CheckList(&l))
	require.NoError(t, l.Add(nil, solicited, mc))
	require.Equal(t, int64(1), compares(&l, func() { l.Lookup(nil, solicited, 0) }))
	require.NoError(t, hwaddr.CheckList(&l))
}

// TestCountedResync is SEED001's primitive with counted walks: the same
// M(M+1)/2 compares as TestSyncMultipleCost's real walk.
func TestCountedResync(t *testing.T) {
	for _, m := range []int{10, 1503} {
		t.Run(fmt.Sprint("m=", m), func(t *testing.T) {
			bond, slave := buildCounted(t, m), hwaddr.NewList(hwaddr.ListOnly)
			slave.SetCountedWalk(true)
			first := compares(slave, func() { require.NoError(t, hwaddr.SyncMultiple(nil, slave, bond)) })
			require.Equal(t, int64(m*(m-1)/2), first)
			resync := compares(slave, func() { require.NoError(t, hwaddr.SyncMultiple(nil, slave, bond)) })
			require.Equal(t, int64(m*(m+1)/2), resync)
			require.NoError(t, hwaddr.CheckList(slave))
		})
	}
}
