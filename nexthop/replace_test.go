package nexthop_test

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// A replace changes the object in place: the FIB entries keep it, are not
// marked dead and no flush runs; users that asked are told, for the
// nexthop and for the groups it is in (nexthop_replace_notify).
func TestReplaceSingleInPlace(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushPerNexthop,
		e.single(21, "172.16.1.2", "d0"),
		e.single(22, "172.16.1.3", "d0"),
		group(122, 21, 22),
	)
	f := &fib{}
	nh := tbl.Get(21)
	f.attachNotified(nh, "r21")
	f.attachNotified(tbl.Get(122), "r122")
	f.attach(tbl.Get(122), "plain")

	got, err := tbl.Replace(e.t, nexthop.Config{ID: 21, Gateway: gw4("172.16.2.2"), Dev: e.d["d1"], Protocol: 4}, f)
	require.NoError(t, err)
	require.Same(t, nh, got)
	require.Same(t, nh, tbl.Get(21))
	require.Equal(t, via(21, "172.16.2.2", "d1").proto(4), viewOf(nh))
	require.Same(t, e.d["d1"], nh.Dev())
	require.Empty(t, f.marks)
	require.Zero(t, f.flushes)
	require.Equal(t, []string{"r21<-21", "r122<-122"}, f.updates)
	require.Equal(t, 1, nh.FIBUsers())
	require.Equal(t, []nexthop.ID{122}, parentIDs(nh))
	require.EqualValues(t, 4, e.counter(sim.NexthopAdd))

	// The nexthop now hangs off d1: d0 going down leaves it alone.
	tbl.FlushDev(e.t, e.d["d0"], netdev.EventDown, f)
	require.Same(t, nh, tbl.Get(21))
	require.Nil(t, tbl.Get(22))
	require.Equal(t, grp(122, m(21)), viewOf(tbl.Get(122)))
	tbl.FlushDev(e.t, e.d["d1"], netdev.EventDown, f)
	require.Equal(t, 0, tbl.Len())
	// Per nexthop: 21's routes, then group 122's.
	require.Equal(t, 2, f.flushes)
}

// The replaced definition enters the device hash at the head: the next
// flush of the device meets it first.
func TestReplaceMovesToHashHead(t *testing.T) {
	e := newEnv(t)
	tbl := nexthop.NewTable(nexthop.FlushDeferred)
	f := &fib{}
	for id := nexthop.ID(1); id <= 3; id++ {
		mustAdd(t, tbl, e.t, e.single(id, "192.0.2.1", "d0"))
		f.attach(tbl.Get(id), "r"+string(rune('0'+id)))
	}
	_, err := tbl.Replace(e.t, e.single(1, "192.0.2.9", "d0"), f)
	require.NoError(t, err)
	tbl.FlushDev(e.t, e.d["d0"], netdev.EventDown, f)
	require.Equal(t, []string{"r1", "r3", "r2"}, f.marks)
}

func TestReplaceTransitions(t *testing.T) {
	e := newEnv(t)
	setup := func(t *testing.T) *nexthop.Table {
		tbl := e.newTable(t, nexthop.FlushDeferred,
			e.single(1, "192.0.2.1", "d0"),
			e.single(2, "", "d1"),
			blackhole(3),
			e.single(4, "192.0.2.4", "d0"),
			group(101, 1),
			group(102, 1, 4),
			group(103, 3),
		)
		return tbl
	}
	cases := []struct {
		name string
		cfg  nexthop.Config
		// either an error
		errno syscall.Errno
		msg   string
		// or what `ip nexthop show` shows afterwards
		show []view
	}{
		{name: "single with group", cfg: group(2, 1),
			errno: syscall.EINVAL, msg: "Can not replace a nexthop with a nexthop group."},
		{name: "group with single", cfg: e.single(101, "", "d0"),
			errno: syscall.EINVAL, msg: "Can not replace a nexthop group with a nexthop."},
		{name: "group with blackhole", cfg: blackhole(101),
			errno: syscall.EINVAL, msg: "Can not replace a nexthop group with a nexthop."},
		// 1 is in group 102, which has two paths.
		{name: "multipath member with blackhole", cfg: blackhole(1),
			errno: syscall.EINVAL, msg: "Blackhole nexthop can not be a member of a group with more than one path"},
		{name: "group with itself", cfg: group(102, 102),
			errno: syscall.EINVAL, msg: "Hash-threshold group can not be a nexthop within a group"},
		{name: "single-path member with blackhole", cfg: blackhole(2), show: []view{
			via(1, "192.0.2.1", "d0"),
			bh(2),
			bh(3),
			via(4, "192.0.2.4", "d0"),
			grp(101, m(1)),
			grp(102, m(1), m(4)),
			grp(103, m(3)),
		}},
		{name: "blackhole with gateway", cfg: e.single(3, "2001:db8::3", "d2"), show: []view{
			via(1, "192.0.2.1", "d0"),
			onDev(2, "d1", scopeHost),
			via(3, "2001:db8::3", "d2"),
			via(4, "192.0.2.4", "d0"),
			grp(101, m(1)),
			grp(102, m(1), m(4)),
			grp(103, m(3)),
		}},
		{name: "group members", cfg: nexthop.Config{ID: 102, Group: []nexthop.GroupMember{{ID: 4, Weight: 3}, {ID: 2}}}, show: []view{
			via(1, "192.0.2.1", "d0"),
			onDev(2, "d1", scopeHost),
			bh(3),
			via(4, "192.0.2.4", "d0"),
			grp(101, m(1)),
			grp(102, mw(4, 3), m(2)),
			grp(103, m(3)),
		}},
		// NLM_F_CREATE: a replace of a missing id adds it.
		{name: "create", cfg: e.single(7, "192.0.2.7", "d2"), show: []view{
			via(1, "192.0.2.1", "d0"),
			onDev(2, "d1", scopeHost),
			bh(3),
			via(4, "192.0.2.4", "d0"),
			via(7, "192.0.2.7", "d2"),
			grp(101, m(1)),
			grp(102, m(1), m(4)),
			grp(103, m(3)),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tbl := setup(t)
			before := snapshot(tbl)
			nh, err := tbl.Replace(e.t, tc.cfg, nil)
			if tc.errno != 0 {
				require.Nil(t, nh)
				requireErr(t, err, tc.errno, tc.msg)
				require.Equal(t, before, snapshot(tbl))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.show, show(tbl))
		})
	}
}

// Replacing a group's members moves the back references and keeps the
// group's protocol (replace_nexthop_grp does not copy it).
func TestReplaceGroupMembers(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred,
		e.single(1, "192.0.2.1", "d0"),
		e.single(2, "192.0.2.2", "d0"),
		e.single(3, "192.0.2.3", "d0"),
		nexthop.Config{ID: 10, Group: []nexthop.GroupMember{{ID: 1}, {ID: 2}}, Protocol: 99},
		group(11, 2),
	)
	g := tbl.Get(10)
	f := &fib{}
	f.attach(g, "r10")
	got, err := tbl.Replace(e.t, nexthop.Config{ID: 10, Group: []nexthop.GroupMember{{ID: 2}, {ID: 3}}, Protocol: 4}, f)
	require.NoError(t, err)
	require.Same(t, g, got)
	require.Equal(t, grp(10, m(2), m(3)).proto(99), viewOf(g))
	require.Empty(t, parentIDs(tbl.Get(1)))
	require.Equal(t, []nexthop.ID{10, 11}, parentIDs(tbl.Get(2)))
	require.Equal(t, []nexthop.ID{10}, parentIDs(tbl.Get(3)))
	require.Empty(t, f.marks)
	// nh_rt_cache_flush waits for readers of the old group.
	require.EqualValues(t, 1, e.counter(sim.SyncExpedited))

	// 1 is no longer a member: deleting it leaves the group alone.
	require.NoError(t, tbl.Del(e.t, 1, f))
	require.Equal(t, grp(10, m(2), m(3)).proto(99), viewOf(g))
	require.Zero(t, f.flushes)
}

// fib_check_nh_list: the routes using the nexthop, or a group it is in,
// must accept the new definition's scope.
func TestReplaceChecksRouteScope(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred,
		e.single(22, "", "d1"),
		e.single(23, "192.0.2.3", "d0"),
		group(122, 23),
	)
	f := &fib{}
	// The selftest's "Nexthop replace with invalid scope for existing route".
	f.attachScoped(tbl.Get(22), "host route", 254)
	before := snapshot(tbl)
	_, err := tbl.Replace(e.t, e.single(22, "172.16.2.2", "d1"), f)
	requireErr(t, err, syscall.EINVAL, "Route with host scope can not have a gateway")
	require.Equal(t, before, snapshot(tbl))

	// A link-scope route through group 122 cannot get an onlink member.
	f.attachScoped(tbl.Get(122), "link route", 253)
	before = snapshot(tbl)
	_, err = tbl.Replace(e.t, nexthop.Config{ID: 23, Gateway: gw4("198.51.100.1"), Dev: e.d["d0"], OnLink: true}, f)
	requireErr(t, err, syscall.EINVAL, "Scope mismatch with nexthop")
	require.Equal(t, before, snapshot(tbl))

	// A universe-scope route accepts it.
	f.attachScoped(tbl.Get(23), "global route", 0)
	_, err = tbl.Replace(e.t, nexthop.Config{ID: 23, Gateway: gw4("198.51.100.1"), Dev: e.d["d0"], OnLink: false}, f)
	require.NoError(t, err)

	// CheckScope is fib_check_nexthop, for the FIB's route insertion.
	requireErr(t, tbl.Get(122).CheckScope(254), syscall.EINVAL, "Route with host scope can not have multiple nexthops")
	require.NoError(t, tbl.Get(122).CheckScope(0))
	require.NoError(t, tbl.Get(22).CheckScope(254))
}

// replace_nexthop_single recomputes has_v4 of the groups only when an IPv4
// member becomes IPv6, not the other way round.
func TestReplaceHasV4(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred,
		e.single(86, "2001:db8:92::2", "d1"),
		e.single(87, "172.16.1.1", "d0"),
		group(124, 86, 87),
	)
	require.True(t, tbl.Get(124).HasV4())
	_, err := tbl.Replace(e.t, e.single(87, "2001:db8:92::3", "d1"), nil)
	require.NoError(t, err)
	require.False(t, tbl.Get(124).HasV4())
	_, err = tbl.Replace(e.t, e.single(87, "172.16.1.1", "d0"), nil)
	require.NoError(t, err)
	require.False(t, tbl.Get(124).HasV4(), "the kernel does not set has_v4 again")
}
