package nexthop_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// nexthop_devhash_add links at the head: a device's nexthops leave newest
// first, so routes are marked dead from the newest nexthop down.
func TestFlushDevNewestFirst(t *testing.T) {
	e := newEnv(t)
	tbl := nexthop.NewTable(nexthop.FlushPerNexthop)
	f := &fib{}
	for id := nexthop.ID(1); id <= 5; id++ {
		mustAdd(t, tbl, e.t, e.single(id, fmt.Sprintf("192.0.2.%d", id), "d0"))
		f.attach(tbl.Get(id), fmt.Sprint("r", id))
	}
	mustAdd(t, tbl, e.t, e.single(6, "192.0.2.6", "d1"))
	f.attach(tbl.Get(6), "r6")
	tbl.FlushDev(e.t, e.d["d0"], netdev.EventDown, f)
	require.Equal(t, []string{"r5", "r4", "r3", "r2", "r1"}, f.marks)
	require.Equal(t, []view{via(6, "192.0.2.6", "d1")}, show(tbl))
	require.Equal(t, 5, f.flushes)
	require.EqualValues(t, 5, e.counter(sim.NexthopDevhashVisit))
}

// seed000 builds the seed's shape at a small scale plus groups: n nexthops
// on d0 with one route each, some nexthops on d1, groups mixing both with
// routes of their own, and nexthops without routes.
func seed000(t *testing.T, e *env, p nexthop.Policy, n int) (*nexthop.Table, *fib) {
	tbl := nexthop.NewTable(p)
	f := &fib{}
	id := nexthop.ID(1)
	for i := range n {
		mustAdd(t, tbl, e.t, e.single(id, "198.51.100.2", "d0"))
		if i%5 != 4 { // every fifth nexthop has no route
			f.attach(tbl.Get(id), fmt.Sprint("r", id))
		}
		id++
	}
	mustAdd(t, tbl, e.t, e.single(1001, "203.0.113.1", "d1"), e.single(1002, "203.0.113.2", "d1"))
	f.attach(tbl.Get(1001), "r1001")
	mustAdd(t, tbl, e.t,
		group(2001, 1, 2),    // removed with d0
		group(2002, 3, 1001), // keeps 1001
		group(2003, 4),       // removed with d0, no route
		group(2004, 1002),    // untouched
	)
	f.attach(tbl.Get(2001), "r2001")
	f.attach(tbl.Get(2002), "r2002")
	f.attach(tbl.Get(2004), "r2004")
	return tbl, f
}

// The two policies leave the same table and mark the same routes dead, in
// the same order; only the number of FIB flushes differs: one per removed
// nexthop with routes before the patch, one after.
func TestFlushPoliciesSameStateDifferentFlushes(t *testing.T) {
	const n = 50
	type result struct {
		show    []view
		marks   []string
		dead    map[string]bool
		flushes int
		counted int64
	}
	run := func(p nexthop.Policy) result {
		e := newEnv(t)
		tbl, f := seed000(t, e, p, n)
		e.setUp(t, "d0", false)
		tbl.FlushDev(e.t, e.d["d0"], netdev.EventDown, f)
		return result{show(tbl), f.marks, f.dead(), f.flushes, e.counter(sim.NexthopFIBFlush)}
	}
	before, after := run(nexthop.FlushPerNexthop), run(nexthop.FlushDeferred)
	require.Equal(t, before.show, after.show)
	require.Equal(t, before.marks, after.marks)
	require.Equal(t, before.dead, after.dead)
	require.Equal(t, []view{
		via(1001, "203.0.113.1", "d1"),
		via(1002, "203.0.113.2", "d1"),
		grp(2002, m(1001)),
		grp(2004, m(1002)),
	}, after.show)

	// 40 of the 50 nexthops have routes, and group 2001 does.
	require.Equal(t, 41, before.flushes)
	require.EqualValues(t, 41, before.counted)
	require.Equal(t, 1, after.flushes)
	require.EqualValues(t, 1, after.counted)
	require.Len(t, after.marks, 41)
	require.False(t, after.dead["r2002"])
	require.True(t, after.dead["r2001"])
}

// Nexthops without FIB users need no flush under either policy.
func TestFlushDevWithoutUsers(t *testing.T) {
	for _, p := range []nexthop.Policy{nexthop.FlushPerNexthop, nexthop.FlushDeferred} {
		e := newEnv(t)
		tbl := e.newTable(t, p, e.single(1, "192.0.2.1", "d0"), e.single(2, "192.0.2.2", "d0"))
		f := &fib{}
		tbl.FlushDev(e.t, e.d["d0"], netdev.EventUnregister, f)
		require.Equal(t, 0, tbl.Len())
		require.Zero(t, f.flushes)
		require.EqualValues(t, 2, e.counter(sim.NexthopRemove))
	}
}

// nh_netdev_event: NETDEV_CHANGE flushes only a device that is neither
// running nor has carrier; other events do nothing.
func TestFlushDevEvents(t *testing.T) {
	e := newEnv(t)
	e.rtnl.Lock(e.t)
	v, err := e.devs.NewLink(e.t, netdev.Veth{Name: "vx", Peer: "vy"})
	require.NoError(t, err)
	require.NoError(t, v[0].SetUp(e.t, true))
	require.NoError(t, v[1].SetUp(e.t, true))
	e.rtnl.Unlock(e.t)
	e.d["vx"], e.d["vy"] = v[0], v[1]

	tbl := e.newTable(t, nexthop.FlushDeferred, e.single(1, "192.0.2.1", "vx"), e.single(2, "192.0.2.2", "d0"))
	for _, ev := range []netdev.Event{netdev.EventChange, netdev.EventUp, netdev.EventChangeMTU, netdev.EventGoingDown, netdev.EventRegister} {
		tbl.FlushDev(e.t, e.d["vx"], ev, nil)
		tbl.FlushDev(e.t, e.d["d0"], ev, nil)
	}
	require.Equal(t, 2, tbl.Len())

	// The peer going down takes vx's carrier: NETDEV_CHANGE now flushes.
	e.setUp(t, "vy", false)
	require.False(t, e.d["vx"].Carrier())
	tbl.FlushDev(e.t, e.d["vx"], netdev.EventChange, nil)
	require.Nil(t, tbl.Get(1))
	require.NotNil(t, tbl.Get(2))
}

// Blackholes sit on loopback: they survive its going down and leave when
// it is unregistered (netns exit).
func TestFlushDevBlackholes(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred, blackhole(1), blackhole(2), e.single(3, "192.0.2.3", "d0"))
	f := &fib{}
	f.attach(tbl.Get(1), "r1")
	tbl.FlushDev(e.t, e.d["lo"], netdev.EventDown, f)
	tbl.FlushDev(e.t, e.d["lo"], netdev.EventChange, f)
	tbl.FlushDev(e.t, e.d["d0"], netdev.EventUnregister, f)
	require.Equal(t, []view{bh(1), bh(2)}, show(tbl))
	require.Zero(t, f.flushes)
	tbl.FlushDev(e.t, e.d["lo"], netdev.EventUnregister, f)
	require.Equal(t, 0, tbl.Len())
	require.Equal(t, []string{"r1"}, f.marks)
	require.Equal(t, 1, f.flushes)
}

// Devices whose ifindexes share a bucket of the device hash: the flush
// walks past the other device's nexthops and leaves them.
func TestFlushDevSharedBucket(t *testing.T) {
	e := newEnv(t)
	i0 := e.d["d0"].Index()
	require.Less(t, int(i0), 256)
	// nh_dev_hashfn(768 + (i0^3)) = (i0^3) ^ 3 = i0.
	other := e.newDummy(t, "far", netdev.IfIndex(768+int(i0^3)))
	tbl := e.newTable(t, nexthop.FlushDeferred,
		e.single(1, "192.0.2.1", "d0"),
		e.single(2, "192.0.2.2", "far"),
		e.single(3, "192.0.2.3", "d0"),
		e.single(4, "192.0.2.4", "far"),
	)
	tbl.FlushDev(e.t, e.d["d0"], netdev.EventDown, nil)
	require.Equal(t, []view{via(2, "192.0.2.2", "far"), via(4, "192.0.2.4", "far")}, show(tbl))
	require.EqualValues(t, 4, e.counter(sim.NexthopDevhashVisit))
	tbl.FlushDev(e.t, other, netdev.EventDown, nil)
	require.Equal(t, 0, tbl.Len())
}

// flush_all_nexthops removes in id order; the FIB is flushed per policy.
func TestFlushAll(t *testing.T) {
	for _, p := range []nexthop.Policy{nexthop.FlushPerNexthop, nexthop.FlushDeferred} {
		t.Run(p.String(), func(t *testing.T) {
			e := newEnv(t)
			tbl := e.newTable(t, p,
				e.single(3, "192.0.2.3", "d0"),
				e.single(1, "192.0.2.1", "d1"),
				blackhole(2),
				group(9, 1, 3),
				group(8, 1),
			)
			f := &fib{}
			for _, id := range []nexthop.ID{1, 2, 3, 8, 9} {
				f.attach(tbl.Get(id), fmt.Sprint("r", id))
			}
			tbl.FlushAll(e.t, f)
			require.Equal(t, 0, tbl.Len())
			// Removing 1 empties group 8 (9 keeps 3), then 2, then 3 empties 9.
			require.Equal(t, []string{"r1", "r8", "r2", "r3", "r9"}, f.marks)
			want := map[nexthop.Policy]int{nexthop.FlushPerNexthop: 5, nexthop.FlushDeferred: 1}[p]
			require.Equal(t, want, f.flushes)
			tbl.FlushAll(e.t, f)
			require.Equal(t, want, f.flushes)
		})
	}
}

// A Flusher that deletes nexthops from inside the flush (nothing in the
// kernel does) does not derail the device flush.
func TestFlushDevReentrantFlusher(t *testing.T) {
	e := newEnv(t)
	tbl := nexthop.NewTable(nexthop.FlushPerNexthop)
	f := &fib{}
	for id := nexthop.ID(1); id <= 6; id++ {
		mustAdd(t, tbl, e.t, e.single(id, "192.0.2.1", "d0"))
		f.attach(tbl.Get(id), fmt.Sprint("r", id))
	}
	mustAdd(t, tbl, e.t, e.single(7, "192.0.2.7", "d1"))
	f.onFlush = func(t2 *sim.Task) {
		// Delete the next nexthop the walk would meet.
		for id := nexthop.ID(6); id >= 1; id-- {
			if nh := tbl.Get(id); nh != nil {
				_ = tbl.Del(t2, id, nil)
				return
			}
		}
	}
	tbl.FlushDev(e.t, e.d["d0"], netdev.EventDown, f)
	require.Equal(t, []view{via(7, "192.0.2.7", "d1")}, show(tbl))
}

// FIB users: duplicates ignored, O(1) removal on long lists, removal works
// after the nexthop is gone, MarkDead reaches every user.
func TestFIBUsers(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred, e.single(1, "192.0.2.1", "d0"))
	nh := tbl.Get(1)
	f := &fib{}
	var us []*user
	for i := range 20 {
		us = append(us, f.attach(nh, fmt.Sprint("u", i)))
	}
	nh.AddFIBUser(us[3])
	require.Equal(t, 20, nh.FIBUsers())
	for i := 0; i < 20; i += 2 {
		nh.RemoveFIBUser(us[i])
		nh.RemoveFIBUser(us[i])
	}
	require.Equal(t, 10, nh.FIBUsers())
	require.NoError(t, tbl.Del(e.t, 1, nil))
	require.True(t, nh.Dead())
	var want []string
	for i := 19; i >= 1; i -= 2 {
		want = append(want, fmt.Sprint("u", i))
	}
	require.Equal(t, want, f.marks, "newest user first")
	require.EqualValues(t, 10, e.counter(sim.NexthopFIBMark))
	for _, u := range us {
		nh.RemoveFIBUser(u)
	}
	require.Equal(t, 0, nh.FIBUsers())
	require.True(t, slices.Equal(f.marks, want))
}

// A non-comparable FIBUser is a programming error, reported at once.
func TestFIBUserNotComparable(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred, e.single(1, "192.0.2.1", "d0"))
	require.PanicsWithValue(t, "nexthop: FIBUser of non-comparable type nexthop_test.funcUser", func() {
		tbl.Get(1).AddFIBUser(funcUser(func() {}))
	})
	require.NotPanics(t, func() { tbl.Get(1).RemoveFIBUser(funcUser(func() {})) })
}

type funcUser func()

func (f funcUser) MarkDead() { f() }

// The device hash keeps hlist order through removals, replaces (which move
// a nexthop to the head of its bucket) and the compaction of its slots.
func TestFlushDevOrderAfterHoles(t *testing.T) {
	e := newEnv(t)
	tbl := nexthop.NewTable(nexthop.FlushDeferred)
	f := &fib{}
	for id := nexthop.ID(1); id <= 8; id++ {
		mustAdd(t, tbl, e.t, e.single(id, fmt.Sprintf("192.0.2.%d", id), "d0"))
	}
	for _, id := range []nexthop.ID{1, 3, 5, 7} {
		require.NoError(t, tbl.Del(e.t, id, f))
		require.NoError(t, tbl.CheckInvariants())
	}
	_, err := tbl.Replace(e.t, e.single(2, "192.0.2.22", "d0"), f)
	require.NoError(t, err)
	require.NoError(t, tbl.CheckInvariants())
	for id := nexthop.ID(9); id <= 10; id++ {
		mustAdd(t, tbl, e.t, e.single(id, fmt.Sprintf("192.0.2.%d", id), "d0"))
		require.NoError(t, tbl.CheckInvariants())
	}
	for _, nh := range tbl.List() {
		f.attach(nh, fmt.Sprint("r", nh.ID()))
	}
	before := e.counter(sim.NexthopDevhashVisit)
	tbl.FlushDev(e.t, e.d["d0"], netdev.EventDown, f)
	require.Equal(t, []string{"r10", "r9", "r2", "r8", "r6", "r4"}, f.marks)
	require.EqualValues(t, 6, e.counter(sim.NexthopDevhashVisit)-before)
	require.Zero(t, tbl.Len())
	require.NoError(t, tbl.CheckInvariants())
}

// The user list's inline node is reused whenever free, wherever the list
// then has it; the order stays newest first and the list stays whole.
func TestFIBUsersInlineReuse(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred, e.single(1, "192.0.2.1", "d0"))
	nh := tbl.Get(1)
	us := make([]*user, 12)
	for i := range us {
		us[i] = &user{name: fmt.Sprint("u", i)}
	}
	names := func() []string {
		var l []string
		for _, u := range nh.FIBUserList() {
			l = append(l, u.(*user).name)
		}
		return l
	}
	check := func(want ...string) {
		t.Helper()
		require.Equal(t, want, names())
		require.Equal(t, len(want), nh.FIBUsers())
		require.NoError(t, tbl.CheckInvariants())
	}
	nh.AddFIBUser(us[0]) // the inline node, first
	check("u0")
	nh.AddFIBUser(us[1])
	check("u1", "u0")
	nh.RemoveFIBUser(us[0]) // the inline node leaves from the end
	check("u1")
	nh.AddFIBUser(us[2]) // and is reused, first again
	check("u2", "u1")
	nh.RemoveFIBUser(us[2])
	nh.RemoveFIBUser(us[1])
	check()
	for i := range 11 { // past the map index's threshold
		nh.AddFIBUser(us[i])
	}
	nh.RemoveFIBUser(us[0]) // the inline node, from the end of a long list
	nh.RemoveFIBUser(us[5])
	nh.AddFIBUser(us[11]) // reuses it at the head
	check("u11", "u10", "u9", "u8", "u7", "u6", "u4", "u3", "u2", "u1")
	for i := 1; i <= 11; i++ {
		nh.RemoveFIBUser(us[i])
	}
	check()
}
