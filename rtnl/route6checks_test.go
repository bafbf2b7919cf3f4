package rtnl_test

import (
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// route6Rig2 is route6Rig with a second veth pair vc/vd up, and addresses
// 2001:db8::1/64 on va and 2001:db8:1::1/64 on vc (nodad).
func route6Rig2(t *testing.T) *rig {
	r := route6Rig(t)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "vc", Peer: "vd"}))
	r.up("vc", "vd")
	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: pfx("2001:db8::1/64"), Flags: netdev.AddrNoDAD}))
	r.ok(r.h.AddrAddWith("vc", netdev.Addr{Prefix: pfx("2001:db8:1::1/64"), Flags: netdev.AddrNoDAD}))
	r.settle()
	return r
}

// `ip -6 route get` on Linux 6.18: the source address comes from the
// matched route's first path — a nexthop group's first member, whichever
// member the hash chose — and a fibmatch answer is the matched sibling as
// rt6_fill_node sends it (its own path first), with iif for an input
// route.
func TestRouteGet6PathsAndSource(t *testing.T) {
	r := route6Rig2(t)
	a := netip.MustParseAddr
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 1, Gateway: a("2001:db8::2"), Dev: "va"}))
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 2, Gateway: a("2001:db8:1::2"), Dev: "vc"}))
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 3, Group: []nexthop.GroupEntry{{ID: 1}, {ID: 2}}}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:db8:6::/64"), NexthopID: 3}))
	devs := map[string]bool{}
	for i := range 16 {
		dst := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 6, 15: byte(i)})
		rr, err := r.h.GetRoute(rtnl.RouteGetRequest{Dst: dst})
		require.NoError(t, err)
		devs[rr.Dev] = true
		assert.Equal(t, a("2001:db8::1"), rr.Src, "%v by %s", dst, rr.Dev)
	}
	assert.Len(t, devs, 2, "flows take both members")

	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:db8:5::/64"), Multipath: []rtnl.RoutePath{
		{Gateway: a("2001:db8::2"), Dev: "va"}, {Gateway: a("2001:db8:1::2"), Dev: "vc"}}}))
	rr, err := r.h.GetRoute(rtnl.RouteGetRequest{Dst: a("2001:db8:5::1"), OIF: "vc", FIBMatch: true})
	require.NoError(t, err)
	require.Len(t, rr.Entry.Multipath, 2)
	assert.Equal(t, "vc", rr.Entry.Multipath[0].Dev)
	assert.Equal(t, "va", rr.Entry.Multipath[1].Dev)
	assert.Empty(t, rr.Entry.IIF)
	assert.Equal(t, a("2001:db8:1::1"), rr.Src)

	rr, err = r.h.GetRoute(rtnl.RouteGetRequest{Dst: a("2001:db8:1::5"), IIF: "vb", FIBMatch: true})
	require.NoError(t, err)
	assert.Equal(t, "vb", rr.Entry.IIF)
	assert.Equal(t, "2001:db8:1::/64 dev vc proto kernel metric 256", routeLine(*rr.Entry))
	r.check()
}

// RTA_CACHEINFO carries at most INT_MAX clock ticks: Linux 6.18 shows a
// route added with `expires 4294967294` (or 30000000) as expires
// 21474836sec; 4294967295 is no lifetime.
func TestRoute6ExpiresCacheinfo(t *testing.T) {
	r := route6Rig(t)
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:db8:7::/64"), Dev: "va", Expires: 4294967294 * time.Second}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:db8:8::/64"), Dev: "va", Expires: 4294967295 * time.Second}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:db8:9::/64"), Dev: "va", Expires: 1000 * time.Second}))
	l, err := r.h.RouteList(rt.FamilyInet6, 0)
	require.NoError(t, err)
	got := map[string]time.Duration{}
	for _, ri := range l {
		got[ri.Dst.String()] = ri.Expires
	}
	assert.Equal(t, 2147483647*10*time.Millisecond, got["2001:db8:7::/64"])
	assert.Zero(t, got["2001:db8:8::/64"])
	assert.InDelta(t, float64(1000*time.Second), float64(got["2001:db8:9::/64"]), float64(time.Second))
}

// IPv6 nexthop objects' gateways are checked in the IPv6 FIB as
// nh_create_ipv6 has fib6_nh_init check them (Linux 6.18's answers to
// `ip -6 nexthop add`).
func TestNexthop6GatewayChecks(t *testing.T) {
	r := route6Rig2(t)
	a := netip.MustParseAddr
	// No connected route reaches it: EHOSTUNREACH without a message.
	err := r.h.NexthopAdd(rtnl.NexthopRequest{ID: 1, Gateway: a("2001:db8:3::3"), Dev: "va"})
	requireErr(t, err, syscall.EHOSTUNREACH, "")
	// onlink: accepted, and dumped with the flag.
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 1, Gateway: a("2001:db8:3::3"), Dev: "va", NHFlags: rt.FlagOnLink}))
	ni, err := r.h.NexthopGet(1)
	require.NoError(t, err)
	assert.Equal(t, rt.FlagOnLink, ni.Flags)
	// onlink, but the connected route is through another device.
	err = r.h.NexthopAdd(rtnl.NexthopRequest{ID: 2, Gateway: a("2001:db8:1::5"), Dev: "va", NHFlags: rt.FlagOnLink})
	requireErr(t, err, syscall.EINVAL, "Nexthop has invalid gateway or device mismatch")
	// A local address, on this device or another, tentative or not.
	err = r.h.NexthopAdd(rtnl.NexthopRequest{ID: 2, Gateway: a("2001:db8::1"), Dev: "va"})
	requireErr(t, err, syscall.EINVAL, "Gateway can not be a local address")
	r.ok(r.h.AddrAddWith("vc", netdev.Addr{Prefix: pfx("2001:db8:2::1/64")}))
	err = r.h.NexthopAdd(rtnl.NexthopRequest{ID: 2, Gateway: a("2001:db8:2::1"), Dev: "va"})
	requireErr(t, err, syscall.EINVAL, "Gateway can not be a local address")
	err = r.h.NexthopAdd(rtnl.NexthopRequest{ID: 2, Gateway: a("::1"), Dev: "lo"})
	requireErr(t, err, syscall.EINVAL, "Gateway can not be a local address")
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 2, Gateway: a("2001:db8::2"), Dev: "va"}))

	// A replace may not give an IPv6 route's nexthop an IPv4 gateway.
	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: pfx("10.0.0.1/24")}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:db8:5::/64"), NexthopID: 2}))
	err = r.h.NexthopReplace(rtnl.NexthopRequest{ID: 2, Gateway: a("10.0.0.2"), Dev: "va"})
	requireErr(t, err, syscall.EINVAL, "IPv6 routes can not use an IPv4 nexthop")
	ni, err = r.h.NexthopGet(2)
	require.NoError(t, err)
	assert.Equal(t, a("2001:db8::2"), ni.Gateway)
	assert.Contains(t, r.routes6(), "2001:db8:5::/64 nhid 2 via 2001:db8::2 dev va metric 1024")
	r.check()
}

// A device-only IPv6 nexthop is checked by fib6_nh_init too: Linux 6.18
// refuses it (ENODEV, no message) on a device without IPv6, one whose MTU
// is below 1280.
func TestNexthop6DeviceOnlyChecked(t *testing.T) {
	r := route6Rig(t)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "vc", Peer: "vd", Attrs: netdev.Attrs{MTU: 1000}}))
	r.up("vc", "vd")
	err := r.h.NexthopAdd(rtnl.NexthopRequest{ID: 4, Family: syscall.AF_INET6, Dev: "vc"})
	requireErr(t, err, syscall.ENODEV, "")
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 5, Family: syscall.AF_INET6, Dev: "va"}))
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 6, Dev: "vc"}))
	ni, err := r.h.NexthopGet(5)
	require.NoError(t, err)
	assert.Equal(t, rt.ScopeLink, ni.Scope)
	r.check()
}
