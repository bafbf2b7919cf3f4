package hwaddr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// TestTreeShuffled inserts and deletes keys in shuffled orders, checking the
// red-black invariants, the list/tree agreement and the height bound after
// every step.
func TestTreeShuffled(t *testing.T) {
	seed := uint64(20210819)
	rng := rand.New(rand.NewPCG(seed, seed))
	t.Logf("seed %d", seed)
	for round := range 20 {
		l := NewList(TreeIndexed)
		n := 1 + rng.IntN(300)
		perm := rng.Perm(n)
		for i, p := range perm {
			require.NoError(t, l.Add(nil, Addr{0x33, 0x33, 0xff, 0, byte(p >> 8), byte(p)}, TypeMulticast))
			require.NoError(t, CheckList(l), "round %d insert %d", round, i)
			require.LessOrEqual(t, float64(TreeHeight(l)), 2*math.Log2(float64(l.Len()+1)))
		}
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for i, p := range perm {
			require.NoError(t, l.Del(nil, Addr{0x33, 0x33, 0xff, 0, byte(p >> 8), byte(p)}, TypeMulticast))
			require.NoError(t, CheckList(l), "round %d delete %d", round, i)
		}
		require.Zero(t, l.Len())
		require.Nil(t, l.tree.root)
	}
}

// TestSuccessorReplacesErased pins the erase rule of lib/rbtree.c: a node with
// two children is replaced by its successor, not its predecessor.
func TestSuccessorReplacesErased(t *testing.T) {
	l := NewList(TreeIndexed)
	for _, b := range []byte{2, 1, 3} {
		require.NoError(t, l.Add(nil, Addr{5: b}, TypeUnicast))
	}
	require.Equal(t, byte(2), l.tree.root.addr()[5])
	require.NoError(t, l.Del(nil, Addr{5: 2}, TypeUnicast))
	require.Equal(t, byte(3), l.tree.root.addr()[5], "successor 3 takes the root, not predecessor 1")
	require.NoError(t, CheckList(l))
}

type chargeRecord struct {
	t *sim.Task
	k sim.Kind
	n int64
}

// watchCharges replaces chargeFn for the test and returns the charges made.
// They are recorded, not forwarded: the tasks passed are only identities.
func watchCharges(t *testing.T) *[]chargeRecord {
	var got []chargeRecord
	old := chargeFn
	chargeFn = func(task *sim.Task, k sim.Kind, n int64, _ sim.Footprint) {
		got = append(got, chargeRecord{task, k, n})
	}
	t.Cleanup(func() { chargeFn = old })
	return &got
}

// TestChargeOncePerOperation checks that every operation charges its task at
// most once per kind, with totals equal to the lists' own counters.
func TestChargeOncePerOperation(t *testing.T) {
	got := watchCharges(t)
	for _, counted := range []bool{false, true} {
		for _, p := range []Policy{ListOnly, TreeIndexed} {
			runChargeOncePerOperation(t, got, p, counted)
		}
	}
}

// runChargeOncePerOperation runs TestChargeOncePerOperation's operations on
// two lists of policy p.
func runChargeOncePerOperation(t *testing.T, got *[]chargeRecord, p Policy, counted bool) {
	task := new(sim.Task) // an identity only: see watchCharges
	mc := func(i int) Addr { return Addr{0x33, 0x33, 0, 0, 0, byte(i)} }
	type op struct {
		name string
		run  func()
	}
	upper, lower := NewList(p), NewList(p)
	upper.SetCountedWalk(counted)
	lower.SetCountedWalk(counted)
	var ops []op
	for i := range 10 {
		ops = append(ops, op{"add", func() { _ = upper.Add(task, mc(i), TypeMulticast) }})
	}
	ops = append(ops,
		op{"sync_multiple", func() { _ = SyncMultiple(task, lower, upper) }},
		op{"resync", func() { _ = SyncMultiple(task, lower, upper) }},
		op{"del", func() { _ = upper.Del(task, mc(3), TypeMulticast) }},
		op{"del missing", func() { _ = upper.Del(task, mc(98), TypeMulticast) }},
		op{"sync", func() { _ = Sync(task, lower, upper) }},
		op{"unsync", func() { Unsync(task, lower, upper) }},
		op{"lookup miss", func() { upper.Lookup(task, mc(99), 0) }},
		op{"sync_dev", func() { _ = upper.SyncDev(task, func(Addr) error { return nil }, nil) }},
		op{"unsync_dev", func() { upper.UnsyncDev(task, nil) }},
		op{"flush", func() { upper.Flush(task) }},
	)
	for _, op := range ops {
		*got = (*got)[:0]
		c0 := upper.Compares() + lower.Compares()
		i0 := upper.Iterated() + lower.Iterated()
		op.run()
		perKind := map[sim.Kind]int64{}
		for _, c := range *got {
			require.Same(t, task, c.t, "%s counted=%v/%s", p, counted, op.name)
			_, dup := perKind[c.k]
			require.False(t, dup, "%s counted=%v/%s charged %s twice", p, counted, op.name, c.k)
			perKind[c.k] = c.n
		}
		require.Equal(t, upper.Compares()+lower.Compares()-c0, perKind[sim.HWAddrCompare], "%s counted=%v/%s compares", p, counted, op.name)
		require.Equal(t, upper.Iterated()+lower.Iterated()-i0, perKind[sim.HWAddrIterate], "%s counted=%v/%s iterated", p, counted, op.name)
	}
}
