package rtnl_test

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// requireMsgSize checks err is the EMSGSIZE of a request longer than
// netlink can carry: no extack message, as no kernel sets one.
func requireMsgSize(t *testing.T, err error) {
	t.Helper()
	var en *errno.Error
	require.ErrorAs(t, err, &en)
	require.Equal(t, syscall.EMSGSIZE, en.Errno)
	require.Empty(t, en.Msg)
}

// TestRequestLimits checks that the Go API has the limits a netlink
// request has, the kernel layer applying them for every front end: an
// IPv4 route of more paths than one RTA_MULTIPATH carries (4095 with IPv4
// gateways), an IPv6 route of more than it carries with IPv6 gateways
// (2340) and a group of more members than NHA_GROUP carries (8191) are
// refused with EMSGSIZE and change nothing; appends grow an IPv6 route
// past what one request carries, as on Linux.
func TestRequestLimits(t *testing.T) {
	r := routeRig(t, rtnl.After)
	r.up("lo")
	r.settle()
	gw6 := func(n int) []rtnl.RoutePath {
		mp := make([]rtnl.RoutePath, n)
		for i := range mp {
			a := netip.MustParseAddr("fe80::").As16()
			a[14], a[15] = byte((0x1000+i)>>8), byte(0x1000+i)
			mp[i] = rtnl.RoutePath{Gateway: netip.AddrFrom16(a), Dev: "eth0"}
		}
		return mp
	}
	gw4 := func(n int) []rtnl.RoutePath {
		mp := make([]rtnl.RoutePath, n)
		for i := range mp {
			mp[i] = rtnl.RoutePath{Gateway: netip.AddrFrom4([4]byte{198, 51, 100, byte(2 + i%250)})}
		}
		return mp
	}
	before4, before6 := r.routes(), r.routes6()

	requireMsgSize(t, r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.0.0/8"), Multipath: gw4(4096)}))
	requireMsgSize(t, r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:db8:100::/64"), Multipath: gw6(2341)}))
	requireMsgSize(t, r.h.RouteAppend(rtnl.Route{Dst: pfx("2001:db8:100::/64"), Multipath: gw6(10000)}))
	require.Equal(t, before4, r.routes())
	require.Equal(t, before6, r.routes6())

	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.0.0/8"), Multipath: gw4(4095)}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:db8:100::/64"), Multipath: gw6(2340)}))
	// One path at a time, past what a request carries.
	for _, nh := range gw6(2400)[2340:] {
		r.ok(r.h.RouteAppend(rtnl.Route{Dst: pfx("2001:db8:100::/64"), Gateway: nh.Gateway, Dev: "eth0"}))
	}
	l, err := r.h.RouteList(rt.FamilyInet6, 0)
	require.NoError(t, err)
	paths := 0
	for _, ri := range l {
		if ri.Dst == pfx("2001:db8:100::/64") {
			paths = len(ri.Multipath)
		}
	}
	require.Equal(t, 2400, paths)
	// fibmatch answers in an skb of NLMSG_GOODSIZE: 130 paths with
	// gateways fit, 131 do not (as Linux 6.18 answers `ip -6 route get
	// fibmatch`); 2400 do not either.
	for _, n := range []int{130, 131, 2400} {
		dst := pfx("2001:db8:100::/64")
		if n != 2400 {
			dst = netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, byte(n)}), 64)
			r.ok(r.h.RouteAdd(rtnl.Route{Dst: dst, Multipath: gw6(n)}))
		}
		_, err := r.h.GetRoute(rtnl.RouteGetRequest{Dst: dst.Addr().Next(), FIBMatch: true})
		if n == 130 {
			require.NoError(t, err)
		} else {
			requireMsgSize(t, err)
		}
	}

	// Groups: 8192 members are refused, 8191 made.
	for i := 1; i <= 8192; i++ {
		r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: nexthop.ID(i), Gateway: netip.AddrFrom4([4]byte{198, 51, 100, byte(2 + i%250)}), Dev: "eth0"}))
	}
	group := func(n int) []nexthop.GroupEntry {
		g := make([]nexthop.GroupEntry, n)
		for i := range g {
			g[i] = nexthop.GroupEntry{ID: nexthop.ID(i + 1)}
		}
		return g
	}
	requireMsgSize(t, r.h.NexthopAdd(rtnl.NexthopRequest{ID: 10000, Group: group(nexthop.MaxGroupMembers + 1)}))
	_, err = r.h.NexthopGet(10000)
	require.ErrorIs(t, err, syscall.ENOENT)
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 10000, Group: group(nexthop.MaxGroupMembers)}))
	ni, err := r.h.NexthopGet(10000)
	require.NoError(t, err)
	require.Len(t, ni.Group, 8191)
	require.NoError(t, r.k.CheckInvariants())
}
