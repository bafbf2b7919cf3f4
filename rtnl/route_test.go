package rtnl_test

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// routeRig is a namespace with a veth up and 198.51.100.1/24 on it.
func routeRig(t *testing.T, cfg rtnl.Config) *rig {
	r := newRig(t, cfg)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "eth0", Peer: "eth0p"}))
	r.up("eth0p", "eth0")
	r.ok(r.h.AddrAdd("eth0", pfx("198.51.100.1/24")))
	return r
}

func (r *rig) routes() []string { return r.routesOf(rt.FamilyInet) }

// routes6 lists the IPv6 routes of every table.
func (r *rig) routes6() []string { return r.routesOf(rt.FamilyInet6) }

func (r *rig) routesOf(family rt.Family) []string {
	r.tb.Helper()
	l, err := r.h.RouteList(family, 0)
	require.NoError(r.tb, err)
	var out []string
	for _, ri := range l {
		out = append(out, routeLine(ri))
	}
	return out
}

func (r *rig) nexthops() []rtnl.NexthopInfo {
	r.tb.Helper()
	l, err := r.h.NexthopList()
	require.NoError(r.tb, err)
	return l
}

func TestRoutesFollowAddressesAndDevices(t *testing.T) {
	r := routeRig(t, rtnl.After)
	require.Equal(t, []string{
		"198.51.100.0/24 dev eth0 proto kernel scope link src 198.51.100.1",
		"local 198.51.100.1 dev eth0 table local proto kernel scope host src 198.51.100.1",
		"broadcast 198.51.100.255 dev eth0 table local proto kernel scope link src 198.51.100.1",
	}, r.routes())
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 7, Gateway: netip.MustParseAddr("198.51.100.2"), Dev: "eth0"}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.0.0/8"), NexthopID: 7}))
	got, err := r.h.RouteGet(netip.MustParseAddr("10.1.2.3"))
	require.NoError(t, err)
	require.Equal(t, rtnl.RouteResult{Prefix: pfx("10.0.0.0/8"), Type: fib.TypeUnicast, Table: fib.TableMain,
		Gateway: netip.MustParseAddr("198.51.100.2"), Dev: "eth0", DevIndex: r.h.LinkIndex("eth0"), NexthopID: 7,
		Src: netip.MustParseAddr("198.51.100.1")}, got)

	// Down: the nexthop goes, and with it the route; the connected route
	// goes, the local one stays.
	r.ok(r.h.LinkSetDown("eth0"))
	require.Empty(t, r.nexthops())
	require.Equal(t, []string{
		"local 198.51.100.1 dev eth0 table local proto kernel scope host src 198.51.100.1",
	}, r.routes())
	_, err = r.h.RouteGet(netip.MustParseAddr("10.1.2.3"))
	require.ErrorIs(t, err, syscall.ENETUNREACH)
}

func TestRouteAndNexthopBadInputChangesNothing(t *testing.T) {
	r := routeRig(t, rtnl.After)
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 1, Gateway: netip.MustParseAddr("198.51.100.2"), Dev: "eth0"}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.0.0/24"), NexthopID: 1}))
	gw := netip.MustParseAddr("198.51.100.2")
	for _, tc := range []struct {
		name string
		call func() error
		err  syscall.Errno
		msg  string
	}{
		{"host bits", func() error {
			return r.h.RouteAdd(rtnl.Route{Dst: netip.PrefixFrom(netip.MustParseAddr("10.0.1.1"), 24)})
		}, syscall.EINVAL, "Invalid prefix for given prefix length"},
		{"ipv6 tos", func() error { return r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:db8::/64"), Dev: "eth0", TOS: 4}) }, syscall.EINVAL, "Invalid dsfield (tos): option not available for IPv6."},
		{"gateway off-link", func() error {
			return r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.2.0/24"), Gateway: netip.MustParseAddr("192.0.2.1"), Dev: "eth0"})
		}, syscall.ENETUNREACH, "Nexthop has invalid gateway"},
		{"unknown nhid", func() error { return r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.3.0/24"), NexthopID: 99}) }, syscall.EINVAL, "Nexthop id does not exist"},
		{"duplicate route", func() error { return r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.0.0/24"), NexthopID: 1}) }, syscall.EEXIST, ""},
		{"unknown dev", func() error { return r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.4.0/24"), Dev: "nope"}) }, syscall.ENODEV, "Cannot find device"},
		{"del missing", func() error { return r.h.RouteDel(rtnl.Route{Dst: pfx("10.9.0.0/16")}) }, syscall.ESRCH, ""},
		{"nexthop exists", func() error { return r.h.NexthopAdd(rtnl.NexthopRequest{ID: 1, Gateway: gw, Dev: "eth0"}) }, syscall.EEXIST, ""},
		{"nexthop off-link gateway", func() error {
			return r.h.NexthopAdd(rtnl.NexthopRequest{ID: 2, Gateway: netip.MustParseAddr("192.0.2.1"), Dev: "eth0"})
		}, syscall.ENETUNREACH, "Nexthop has invalid gateway"},
		{"group unknown member", func() error {
			return r.h.NexthopAdd(rtnl.NexthopRequest{ID: 3, Group: []nexthop.GroupEntry{{ID: 1}, {ID: 42}}})
		}, syscall.EINVAL, ""},
		{"group duplicate member", func() error {
			return r.h.NexthopAdd(rtnl.NexthopRequest{ID: 3, Group: []nexthop.GroupEntry{{ID: 1}, {ID: 1}}})
		}, syscall.EINVAL, "Nexthop id can not be used twice in a group"},
		{"nexthop del missing", func() error { return r.h.NexthopDel(77) }, syscall.ENOENT, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			routes, routes6, nhs, c := r.routes(), r.routes6(), r.nexthops(), r.counters()
			err := tc.call()
			require.ErrorIs(t, err, tc.err)
			if tc.msg != "" {
				require.ErrorContains(t, err, tc.msg)
			}
			require.Equal(t, routes, r.routes())
			require.Equal(t, routes6, r.routes6())
			require.Equal(t, nhs, r.nexthops())
			require.Equal(t, c.Get(sim.RCUCallback), r.counters().Get(sim.RCUCallback))
		})
	}
}

func TestSeed000Policies(t *testing.T) {
	// The same routes go either way; only the number of FIB flushes and the
	// leaves they visit differ: Before N·(N+1) leaf visits over two walks per
	// flush, After one flush.
	const n = 64
	left := map[string][]string{}
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		r := routeRig(t, cfg)
		for i := 1; i <= n; i++ {
			r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: nexthop.ID(i), Gateway: netip.MustParseAddr("198.51.100.2"), Dev: "eth0"}))
			r.ok(r.h.RouteAdd(rtnl.Route{Dst: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i), 0}), 32), NexthopID: nexthop.ID(i)}))
		}
		before := r.counters()
		r.ok(r.h.LinkSetDown("eth0"))
		d := r.counters().Sub(before)
		left[cfg.String()] = r.routes()
		if cfg == rtnl.Before {
			require.EqualValues(t, n, d.Get(sim.NexthopFIBFlush))
		} else {
			require.EqualValues(t, 1, d.Get(sim.NexthopFIBFlush))
		}
	}
	require.Equal(t, left["before"], left["after"])
}

// GetRoute: rules see the flow's source and mark, the source is
// checked and chosen, an output device without a route is taken to be on
// link, and the special destinations get their route types and flags.
func TestGetRoute(t *testing.T) {
	r := routeRig(t, rtnl.After)
	r.ok(r.h.LinkSetUp("lo"))
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "eth1", Peer: "eth1p"}))
	r.up("eth1", "eth1p")
	r.ok(r.h.AddrAdd("eth1", pfx("192.0.2.1/24")))
	gw := netip.MustParseAddr("198.51.100.2")
	r.ok(r.h.RouteAdd(rtnl.Route{Table: 10, Dst: pfx("10.0.0.0/8"), Gateway: gw, Dev: "eth0"}))
	r.ok(r.h.RuleAdd(rt.FamilyInet, fibrules.Rule{Pref: 100, Table: 10, Action: fibrules.ActToTable,
		Src: pfx("192.0.2.1/32"), Attrs: fibrules.AttrPriority}))
	r.ok(r.h.RuleAdd(rt.FamilyInet, fibrules.Rule{Pref: 101, Table: 10, Action: fibrules.ActToTable,
		FwMark: 7, FwMask: 0xffffffff, Attrs: fibrules.AttrPriority}))
	dst := netip.MustParseAddr("10.1.1.1")
	get := func(q rtnl.RouteGetRequest) (rtnl.RouteResult, error) { q.Dst = dst; return r.h.GetRoute(q) }

	_, err := get(rtnl.RouteGetRequest{})
	require.ErrorIs(t, err, syscall.ENETUNREACH)
	eth0, eth1 := r.h.LinkIndex("eth0"), r.h.LinkIndex("eth1")
	want := rtnl.RouteResult{Type: fib.TypeUnicast, Dev: "eth0", DevIndex: eth0, Gateway: gw, Table: 10, Prefix: pfx("10.0.0.0/8")}
	got, err := get(rtnl.RouteGetRequest{Src: netip.MustParseAddr("192.0.2.1")})
	require.NoError(t, err)
	want.Src = netip.MustParseAddr("192.0.2.1") // the query's
	require.Equal(t, want, got)
	got, err = get(rtnl.RouteGetRequest{Mark: 7})
	require.NoError(t, err)
	want.Src = netip.MustParseAddr("198.51.100.1") // inet_select_addr: eth0's, in the gateway's subnet
	require.Equal(t, want, got)

	for _, c := range []struct {
		src  string
		want syscall.Errno
	}{{"224.0.0.1", syscall.EINVAL}, {"255.255.255.255", syscall.EINVAL}, {"203.0.113.1", syscall.ENETUNREACH}, {"127.0.0.1", syscall.EINVAL}} {
		_, err := get(rtnl.RouteGetRequest{Src: netip.MustParseAddr(c.src), Mark: 7})
		require.ErrorIs(t, err, c.want, c.src)
	}
	_, err = get(rtnl.RouteGetRequest{OIF: "nosuch"})
	require.ErrorIs(t, err, syscall.ENODEV)
	_, err = get(rtnl.RouteGetRequest{IPProto: 47})
	require.ErrorIs(t, err, syscall.EOPNOTSUPP)

	// No route, but an output device: on its link, with its address.
	got, err = get(rtnl.RouteGetRequest{OIF: "eth1"})
	require.NoError(t, err)
	require.Equal(t, rtnl.RouteResult{Type: fib.TypeUnicast, Dev: "eth1", DevIndex: eth1, Src: netip.MustParseAddr("192.0.2.1")}, got)
	r.ok(r.h.LinkSetDown("eth1"))
	_, err = get(rtnl.RouteGetRequest{OIF: "eth1"})
	require.ErrorIs(t, err, syscall.ENETUNREACH)

	// 0.0.0.0 is local through lo; 224.0.0.1 is joined by an up device.
	got, err = r.h.GetRoute(rtnl.RouteGetRequest{Dst: netip.IPv4Unspecified()})
	require.NoError(t, err)
	require.Equal(t, rtnl.RouteResult{Type: fib.TypeLocal, Dev: "lo", DevIndex: netdev.LoopbackIfIndex, Src: netip.MustParseAddr("127.0.0.1"), Flags: rtnl.RouteLocal}, got)
	got, err = r.h.GetRoute(rtnl.RouteGetRequest{Dst: netip.MustParseAddr("224.0.0.1"), OIF: "eth0"})
	require.NoError(t, err)
	require.Equal(t, rtnl.RouteResult{Type: fib.TypeMulticast, Dev: "eth0", DevIndex: eth0, Src: netip.MustParseAddr("198.51.100.1"),
		Flags: rtnl.RouteLocal | rtnl.RouteMulticast}, got)
	got, err = r.h.GetRoute(rtnl.RouteGetRequest{Dst: netip.MustParseAddr("255.255.255.255"), OIF: "eth0"})
	require.NoError(t, err)
	require.Equal(t, rtnl.RouteLocal|rtnl.RouteBroadcast, got.Flags)
	require.Equal(t, fib.TypeBroadcast, got.Type)
}
