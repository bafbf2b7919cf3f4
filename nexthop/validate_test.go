package nexthop_test

import (
	"errors"
	"net/netip"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// rejectGW is a GatewayChecker that refuses gateways in 10.99.0.0/16 and
// 2001:db8:99::/48, the way fib_check_nh refuses a gateway no connected
// route reaches.
func rejectGW(_ *sim.Task, _ rt.Family, gw netip.Addr, _ *netdev.Device, onlink bool) error {
	if onlink {
		return nil
	}
	if netip.MustParsePrefix("10.99.0.0/16").Contains(gw) || netip.MustParsePrefix("2001:db8:99::/48").Contains(gw) {
		return errno.New(syscall.EINVAL, "Nexthop has invalid gateway")
	}
	return nil
}

// baseTable holds: 1 via 192.0.2.2 dev d0, 2 via 192.0.2.3 dev d0,
// 3 blackhole, 4 via 2001:db8::2 dev d1, group 10 = 1/2, group 11 = 3.
func baseTable(tb testing.TB, e *env) *nexthop.Table {
	tbl := nexthop.NewTable(nexthop.FlushDeferred)
	tbl.SetGatewayChecker(rejectGW)
	mustAdd(tb, tbl, e.t,
		e.single(1, "192.0.2.2", "d0"),
		e.single(2, "192.0.2.3", "d0"),
		blackhole(3),
		e.single(4, "2001:db8::2", "d1"),
		group(10, 1, 2),
		group(11, 3),
	)
	return tbl
}

// Every check of rtm_to_nh_config_rtnl, nh_check_attr_group_rtnl,
// nexthop_add, nexthop_create and insert_nexthop refuses with the kernel's errno and
// message, and leaves the table unchanged.
func TestAddValidation(t *testing.T) {
	e := newEnv(t)
	gone := e.newDummy(t, "gone", 0)
	e.rtnl.Lock(e.t)
	require.NoError(t, e.devs.DelLink(e.t, gone))
	e.rtnl.Unlock(e.t)

	cases := []struct {
		name  string
		cfg   nexthop.Config
		errno syscall.Errno
		msg   string
	}{
		// A new resilient group needs its bucket count (insert_nexthop).
		{"resilient group without buckets", nexthop.Config{ID: 20, Group: []nexthop.GroupMember{{ID: 1}}, GroupType: nexthop.GroupResilient}, syscall.EINVAL, "Number of buckets not specified for nexthop group insertion"},
		{"missing member", group(20, 1, 99), syscall.EINVAL, "Invalid nexthop id"},
		{"member id 0", group(20, 0), syscall.EINVAL, "Invalid nexthop id"},
		{"nested group", group(20, 1, 10), syscall.EINVAL, "Hash-threshold group can not be a nexthop within a group"},
		{"blackhole in multipath group", group(20, 3, 4), syscall.EINVAL, "Blackhole nexthop can not be used in a group with more than 1 path"},
		{"unregistered device", e.single(20, "192.0.2.9", "gone"), syscall.EINVAL, "Invalid device index"},
		{"device down", e.single(20, "192.0.2.9", "down0"), syscall.ENETDOWN, "Nexthop device is not up"},
		{"no carrier", e.single(20, "", "va"), syscall.ENETDOWN, "Carrier for nexthop device is down"},
		// 0.0.0.0 passes the attribute check but is no gateway: fib_check_nh_nongw refuses onlink.
		{"onlink with 0.0.0.0", nexthop.Config{ID: 20, Gateway: gw4("0.0.0.0"), Dev: e.d["d0"], OnLink: true}, syscall.EINVAL, "Invalid flags for nexthop - PERVASIVE and ONLINK can not be set"},
		{"IPv4 blackhole onlink", nexthop.Config{ID: 20, Blackhole: true, OnLink: true}, syscall.EINVAL, "Invalid flags for nexthop - PERVASIVE and ONLINK can not be set"},
		// The FIB's check (fib_check_nh) runs last, before the id lookup.
		{"gateway checker", e.single(20, "10.99.0.1", "d0"), syscall.EINVAL, "Nexthop has invalid gateway"},
		{"gateway checker before EEXIST", e.single(1, "10.99.0.1", "d0"), syscall.EINVAL, "Nexthop has invalid gateway"},
		{"IPv6 gateway checker", e.single(20, "2001:db8:99::1", "d0"), syscall.EINVAL, "Nexthop has invalid gateway"},
		// insert_nexthop: an existing id without NLM_F_REPLACE, no message.
		{"existing id", e.single(1, "192.0.2.9", "d1"), syscall.EEXIST, ""},
		{"existing group id", group(10, 1), syscall.EEXIST, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tbl := baseTable(t, e)
			before := snapshot(tbl)
			nh, err := tbl.Add(e.t, tc.cfg)
			require.Nil(t, nh)
			requireErr(t, err, tc.errno, tc.msg)
			require.Equal(t, before, snapshot(tbl))
		})
	}
}

func TestDelValidation(t *testing.T) {
	e := newEnv(t)
	tbl := baseTable(t, e)
	before := snapshot(tbl)
	requireErr(t, tbl.Del(e.t, 0, nil), syscall.EINVAL, "Invalid nexthop id")
	// rtm_del_nexthop returns a bare -ENOENT.
	err := tbl.Del(e.t, 99, nil)
	requireErr(t, err, syscall.ENOENT, "")
	require.Equal(t, "no such file or directory", err.Error())
	require.Equal(t, before, snapshot(tbl))
}

func TestReplaceRequiresID(t *testing.T) {
	e := newEnv(t)
	tbl := baseTable(t, e)
	before := snapshot(tbl)
	_, err := tbl.Replace(e.t, e.single(0, "192.0.2.9", "d0"), nil)
	requireErr(t, err, syscall.EINVAL, "Replace requires nexthop id")
	require.Equal(t, before, snapshot(tbl))
}

// What the accepted forms look like, as a dump reports them.
func TestAddForms(t *testing.T) {
	e := newEnv(t)
	tbl := nexthop.NewTable(nexthop.FlushDeferred)
	cases := []struct {
		cfg  nexthop.Config
		show view
	}{
		{e.single(1, "198.51.100.2", "d0"), via(1, "198.51.100.2", "d0")},
		// fib_check_nh_nongw makes an IPv4 device-only nexthop host scope.
		{e.single(2, "", "d0"), onDev(2, "d0", scopeHost)},
		// Family 0 with a device: AF_INET, as ip's "dev" sets it.
		{nexthop.Config{ID: 12, Dev: e.d["d2"]}, onDev(12, "d2", scopeHost)},
		{nexthop.Config{ID: 3, Family: syscall.AF_INET6, Dev: e.d["d1"]}, onDev(3, "d1", scopeLink)},
		{e.single(4, "2001:db8:91::2", "d1"), via(4, "2001:db8:91::2", "d1")},
		{nexthop.Config{ID: 5, Gateway: gw4("172.16.3.2"), Dev: e.d["d0"], OnLink: true}, via(5, "172.16.3.2", "d0").onlink()},
		{blackhole(6), bh(6)},
		{nexthop.Config{ID: 7, Family: syscall.AF_INET6, Blackhole: true, Protocol: 100}, bh(7).proto(100)},
		{nexthop.Config{ID: 8, Gateway: gw4("198.51.100.3"), Dev: e.d["d0"], Protocol: 4}, via(8, "198.51.100.3", "d0").proto(4)},
		{nexthop.Config{ID: 9, Group: []nexthop.GroupMember{{ID: 1}, {ID: 2, Weight: 2}, {ID: 4, Weight: 255}}}, grp(9, m(1), mw(2, 2), mw(4, 255))},
		// 0.0.0.0 is no gateway.
		{nexthop.Config{ID: 10, Gateway: gw4("0.0.0.0"), Dev: e.d["d2"]}, onDev(10, "d2", scopeHost)},
		// A zone is not part of the gateway attribute.
		{nexthop.Config{ID: 11, Gateway: gw4("fe80::1%d1"), Dev: e.d["d1"]}, via(11, "fe80::1", "d1")},
	}
	for _, c := range cases {
		nh, err := tbl.Add(e.t, c.cfg)
		require.NoError(t, err, "id %d", c.cfg.ID)
		require.Equal(t, c.show, viewOf(nh))
		require.Same(t, nh, tbl.Get(c.cfg.ID))
	}
	require.Equal(t, 12, tbl.Len())

	nh := tbl.Get(9)
	require.True(t, nh.IsGroup())
	require.Equal(t, rt.FamilyUnspec, nh.Family())
	require.Equal(t, []nexthop.GroupMember{{ID: 1, Weight: 1}, {ID: 2, Weight: 2}, {ID: 4, Weight: 255}}, nh.Members())
	require.Same(t, tbl.Get(4), nh.Member(2))
	require.Nil(t, nh.Member(3))
	require.Nil(t, nh.Member(-1))
	require.True(t, nh.HasV4())
	require.Nil(t, nh.Dev())
	require.False(t, nh.Gateway().IsValid())

	one := tbl.Get(1)
	require.Equal(t, rt.FamilyInet, one.Family())
	require.Same(t, e.d["d0"], one.Dev())
	require.Equal(t, uint8(253), one.Scope())
	require.Nil(t, one.Members())
	require.Nil(t, one.Member(0))
	require.Equal(t, rt.FamilyInet, tbl.Get(6).Family())
	require.True(t, tbl.Get(6).Blackhole())
	require.Nil(t, tbl.Get(6).Dev())
	require.Equal(t, rt.FamilyInet6, tbl.Get(7).Family())
	require.Equal(t, uint8(254), tbl.Get(2).Scope())
}

// nh_find_unused_id: the id after the last allocated, skipping used ids;
// explicit ids do not move it; a failing create still consumes the id.
func TestAutoID(t *testing.T) {
	e := newEnv(t)
	tbl := nexthop.NewTable(nexthop.FlushDeferred)
	tbl.SetGatewayChecker(rejectGW)
	mustAdd(t, tbl, e.t, e.single(2, "192.0.2.2", "d0"))
	ids := func(n int) (out []nexthop.ID) {
		for range n {
			nh, err := tbl.Add(e.t, e.single(0, "192.0.2.9", "d0"))
			require.NoError(t, err)
			out = append(out, nh.ID())
		}
		return out
	}
	require.Equal(t, []nexthop.ID{1, 3}, ids(2))
	// A refused gateway consumes id 4, as nh_find_unused_id ran before nexthop_create.
	_, err := tbl.Add(e.t, e.single(0, "10.99.0.1", "d0"))
	requireErr(t, err, syscall.EINVAL, "Nexthop has invalid gateway")
	require.Equal(t, []nexthop.ID{5}, ids(1))
	// A request refused by rtm_to_nh_config does not.
	_, err = tbl.Add(e.t, e.single(0, "192.0.2.9", "down0"))
	require.ErrorIs(t, err, syscall.ENETDOWN)
	require.NoError(t, tbl.Del(e.t, 1, nil))
	require.Equal(t, []nexthop.ID{6}, ids(1))
}

// Gateways are checked by the FIB's checker only for single nexthops with
// a gateway, or IPv6 ones with a device, and it gets the family, device
// and onlink flag.
func TestGatewayCheckerArguments(t *testing.T) {
	e := newEnv(t)
	tbl := nexthop.NewTable(nexthop.FlushDeferred)
	var calls []string
	tbl.SetGatewayChecker(func(_ *sim.Task, family rt.Family, gw netip.Addr, dev *netdev.Device, onlink bool) error {
		calls = append(calls, rt.FamilyName(family)+" "+gw.String()+" "+dev.Name()+map[bool]string{true: " onlink", false: ""}[onlink])
		return nil
	})
	mustAdd(t, tbl, e.t,
		e.single(1, "192.0.2.2", "d0"),
		e.single(2, "", "d0"),
		nexthop.Config{ID: 3, Gateway: gw4("2001:db8::1"), Dev: e.d["d1"], OnLink: true},
		blackhole(4),
		group(5, 1, 2),
		nexthop.Config{ID: 6, Family: syscall.AF_INET6, Dev: e.d["d1"]},
	)
	require.Equal(t, []string{"inet 192.0.2.2 d0", "inet6 2001:db8::1 d1 onlink", "inet6 invalid IP d1"}, calls)
}

// A checker's error comes back as it is, whatever its type.
func TestGatewayCheckerForeignError(t *testing.T) {
	e := newEnv(t)
	tbl := nexthop.NewTable(nexthop.FlushDeferred)
	boom := errors.New("boom")
	tbl.SetGatewayChecker(func(*sim.Task, rt.Family, netip.Addr, *netdev.Device, bool) error { return boom })
	_, err := tbl.Add(e.t, e.single(1, "192.0.2.2", "d0"))
	require.Same(t, boom, err)
	require.Equal(t, 0, tbl.Len())
}

// Bad input of every kind is refused or ignored, never a panic.
func TestNoPanics(t *testing.T) {
	e := newEnv(t)
	tbl := nexthop.NewTable(nexthop.Policy(9))
	require.NotPanics(t, func() {
		_, _ = tbl.Add(nil, nexthop.Config{})
		_, _ = tbl.Replace(nil, nexthop.Config{}, nil)
		_, _ = tbl.Add(nil, nexthop.Config{Group: []nexthop.GroupMember{{ID: 0xffffffff, Weight: 0xffff}}})
		_ = tbl.Del(nil, 0xffffffff, nil)
		tbl.FlushDev(nil, nil, netdev.EventDown, nil)
		tbl.FlushDev(nil, e.d["d0"], netdev.Event(200), nil)
		tbl.FlushAll(nil, nil)
		nh, err := tbl.Add(nil, e.single(1, "192.0.2.1", "d0"))
		require.NoError(t, err)
		nh.AddFIBUser(nil)
		nh.RemoveFIBUser(nil)
		nh.RemoveFIBUser(&user{})
		tbl.FlushDev(nil, e.d["d0"], netdev.EventUnregister, nil)
		require.True(t, nh.Dead())
		require.NoError(t, nh.CheckScope(0))
	})
}

// nh_find_unused_id wraps from 0xffffffff to 0, which it returns as "no
// id" once: the next automatic id after 0xffffffff is refused, the one
// after that is 1.
func TestAutoIDWraps(t *testing.T) {
	e := newEnv(t)
	tbl := nexthop.NewTable(nexthop.FlushDeferred)
	tbl.SetLastIDAllocated(0xfffffffe)
	nh, err := tbl.Add(e.t, blackhole(0))
	require.NoError(t, err)
	require.Equal(t, nexthop.ID(0xffffffff), nh.ID())
	_, err = tbl.Add(e.t, blackhole(0))
	requireErr(t, err, syscall.EINVAL, "No unused id")
	nh, err = tbl.Add(e.t, blackhole(0))
	require.NoError(t, err)
	require.Equal(t, nexthop.ID(1), nh.ID())
}

// The kernel puts a blackhole on loopback, which must be up.
func TestBlackholeNeedsLoopbackUp(t *testing.T) {
	e := newEnv(t)
	tbl := nexthop.NewTable(nexthop.FlushDeferred)
	tbl.SetLoopback(e.d["lo"])
	require.False(t, e.d["lo"].IsUp())
	_, err := tbl.Add(e.t, blackhole(1))
	requireErr(t, err, syscall.ENETDOWN, "Device for nexthop is not up")
	_, err = tbl.Add(e.t, nexthop.Config{ID: 1, Family: syscall.AF_INET6, Blackhole: true})
	requireErr(t, err, syscall.ENETDOWN, "Nexthop device is not up")
	// The onlink check comes first for IPv4.
	_, err = tbl.Add(e.t, nexthop.Config{ID: 1, Blackhole: true, OnLink: true})
	requireErr(t, err, syscall.EINVAL, "Invalid flags for nexthop - PERVASIVE and ONLINK can not be set")
	require.Equal(t, 0, tbl.Len())
	e.setUp(t, "lo", true)
	mustAdd(t, tbl, e.t, blackhole(1), nexthop.Config{ID: 2, Family: syscall.AF_INET6, Blackhole: true})
	require.Equal(t, []view{bh(1), bh(2)}, show(tbl))
}
