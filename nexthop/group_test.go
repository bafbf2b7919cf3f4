package nexthop_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

func parentIDs(nh *nexthop.Nexthop) []nexthop.ID {
	var ids []nexthop.ID
	for _, p := range nh.Parents() {
		ids = append(ids, p.ID())
	}
	return ids
}

// Members know their groups (nh->grp_list), newest group first.
func TestGroupParents(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred,
		e.single(1, "192.0.2.1", "d0"),
		e.single(2, "192.0.2.2", "d0"),
		e.single(3, "192.0.2.3", "d1"),
		group(10, 1, 2, 3),
		group(11, 3),
		group(12, 1, 3),
	)
	require.Equal(t, []nexthop.ID{12, 10}, parentIDs(tbl.Get(1)))
	require.Equal(t, []nexthop.ID{10}, parentIDs(tbl.Get(2)))
	require.Equal(t, []nexthop.ID{12, 11, 10}, parentIDs(tbl.Get(3)))
	require.Empty(t, parentIDs(tbl.Get(10)))

	// Removing 2 from group 10 rebuilds its array: remove_nh_grp_entry
	// relinks the other entries at the head of their members' lists.
	require.NoError(t, tbl.Del(e.t, 2, nil))
	require.Equal(t, grp(10, m(1), m(3)), viewOf(tbl.Get(10)))
	require.Equal(t, []nexthop.ID{10, 12}, parentIDs(tbl.Get(1)))
	require.Equal(t, []nexthop.ID{10, 12, 11}, parentIDs(tbl.Get(3)))

	// Deleting a group unlinks it from its members and leaves them alone.
	require.NoError(t, tbl.Del(e.t, 10, nil))
	require.Equal(t, []nexthop.ID{12}, parentIDs(tbl.Get(1)))
	require.Equal(t, []nexthop.ID{12, 11}, parentIDs(tbl.Get(3)))
	require.Equal(t, []view{
		via(1, "192.0.2.1", "d0"),
		via(3, "192.0.2.3", "d1"),
		grp(11, m(3)),
		grp(12, m(1), m(3)),
	}, show(tbl))
}

// The selftest's "Weighted nexthop group updated when entry is deleted".
func TestGroupWeightsKeptOnRemoval(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred,
		e.single(12, "172.16.1.2", "d0"),
		e.single(13, "172.16.1.3", "d0"),
		e.single(14, "172.16.1.4", "d0"),
		e.single(15, "172.16.1.5", "d0"),
		nexthop.Config{ID: 103, Group: []nexthop.GroupMember{{ID: 12}, {ID: 13, Weight: 2}, {ID: 14, Weight: 3}, {ID: 15, Weight: 4}}},
	)
	require.Equal(t, grp(103, m(12), mw(13, 2), mw(14, 3), mw(15, 4)), viewOf(tbl.Get(103)))
	require.NoError(t, tbl.Del(e.t, 13, nil))
	require.Equal(t, grp(103, m(12), mw(14, 3), mw(15, 4)), viewOf(tbl.Get(103)))
	require.Equal(t, 3, tbl.Get(103).NumMembers())
}

// A group that loses its last member is removed, and its FIB users are
// marked dead; a group that keeps members keeps its routes.
func TestGroupLastMemberRemovesGroup(t *testing.T) {
	for _, p := range []nexthop.Policy{nexthop.FlushPerNexthop, nexthop.FlushDeferred} {
		t.Run(p.String(), func(t *testing.T) {
			e := newEnv(t)
			tbl := e.newTable(t, p,
				e.single(1, "192.0.2.1", "d0"),
				e.single(2, "192.0.2.2", "d1"),
				group(10, 1),
				group(11, 1, 2),
			)
			f := &fib{}
			f.attach(tbl.Get(1), "r1")
			f.attach(tbl.Get(10), "r10")
			f.attach(tbl.Get(11), "r11")
			g10 := tbl.Get(10)

			require.NoError(t, tbl.Del(e.t, 1, f))
			require.Equal(t, []string{"r1", "r10"}, f.marks)
			require.True(t, g10.Dead())
			require.Nil(t, tbl.Get(10))
			require.Equal(t, grp(11, m(2)), viewOf(tbl.Get(11)))
			require.False(t, tbl.Get(11).Dead())
			// Before the patch: one flush for nh 1, one for group 10.
			// After: one for the whole deletion.
			want := map[nexthop.Policy]int{nexthop.FlushPerNexthop: 2, nexthop.FlushDeferred: 1}[p]
			require.Equal(t, want, f.flushes)
			require.EqualValues(t, want, e.counter(sim.NexthopFIBFlush))
			require.EqualValues(t, 2, e.counter(sim.NexthopRemove))
			require.EqualValues(t, 2, e.counter(sim.NexthopFIBMark))
			// The flush freed the dead entries.
			require.Equal(t, 0, g10.FIBUsers())
			require.Equal(t, 1, tbl.Get(11).FIBUsers())
			// A removal from a group waits for an expedited grace period.
			require.EqualValues(t, 1, e.counter(sim.SyncExpedited))

			// Removing the last member of 11 removes it too.
			require.NoError(t, tbl.Del(e.t, 2, f))
			require.Equal(t, 0, tbl.Len())
			require.Equal(t, []string{"r1", "r10", "r11"}, f.marks)
		})
	}
}

// A device going down empties groups of its nexthops; groups left empty go.
func TestGroupFlushDev(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred,
		e.single(12, "172.16.1.2", "d0"),
		e.single(13, "172.16.1.3", "d0"),
		e.single(14, "172.16.1.4", "d0"),
		e.single(22, "172.16.2.2", "d1"),
		e.single(23, "172.16.2.3", "d1"),
		group(105, 12, 13, 22, 23, 14),
		group(106, 12, 13),
	)
	e.setUp(t, "d0", false)
	tbl.FlushDev(e.t, e.d["d0"], netdev.EventDown, nil)
	require.Equal(t, []view{
		via(22, "172.16.2.2", "d1"),
		via(23, "172.16.2.3", "d1"),
		grp(105, m(22), m(23)),
	}, show(tbl))
}

// A blackhole may be the only path of a group (for an atomic replace with
// real nexthops later); has_v4 follows the members.
func TestGroupBlackholeAndFamilies(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred,
		blackhole(31),
		group(107, 31),
		e.single(1, "192.0.2.1", "d0"),
		e.single(2, "2001:db8::2", "d0"),
		group(108, 1, 2),
		group(109, 2),
	)
	require.Equal(t, grp(107, m(31)), viewOf(tbl.Get(107)))
	require.True(t, tbl.Get(107).HasV4()) // the blackhole is AF_INET
	require.True(t, tbl.Get(108).HasV4())
	require.False(t, tbl.Get(109).HasV4())
	require.NoError(t, tbl.Del(e.t, 1, nil))
	require.False(t, tbl.Get(108).HasV4())
}

// Weights are 16-bit since Linux 6.12 (nexthop_grp's weight_high): 256,
// which iproute2 6.1 sends as the byte 255, and the largest, 65535, are
// members' weights like any other, and hash-threshold selection splits the
// hash space by them.
func TestGroupWeightsAboveAByte(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred,
		e.single(1, "172.16.1.2", "d0"),
		e.single(2, "172.16.1.3", "d0"),
		nexthop.Config{ID: 10, Group: []nexthop.GroupMember{{ID: 1, Weight: 256}, {ID: 2}}},
		nexthop.Config{ID: 11, Group: []nexthop.GroupMember{{ID: 1, Weight: nexthop.MaxWeight}, {ID: 2, Weight: 255}}},
	)
	require.Equal(t, grp(10, mw(1, 256), m(2)), viewOf(tbl.Get(10)))
	require.Equal(t, grp(11, mw(1, nexthop.MaxWeight), mw(2, 255)), viewOf(tbl.Get(11)))

	// Member 1 owns [0, 256/257 of 2³¹): the bound is that share, rounded, less one.
	bound := nexthop.UpperBound(256, 257)
	require.Equal(t, int64((uint64(256)<<31+128)/257-1), bound)
	i, _ := tbl.Get(10).SelectPath(uint32(bound))
	require.Equal(t, 0, i)
	i, _ = tbl.Get(10).SelectPath(uint32(bound + 1))
	require.Equal(t, 1, i)
}
