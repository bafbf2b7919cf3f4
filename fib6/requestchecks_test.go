package fib6

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
)

// A multipath request refused on insertion (EEXIST: a device route of the
// same metric is there) releases every path it created, the ones after the
// refused path too: their devices can then be unregistered (Linux 6.18:
// ip link del of the last path's device returns at once).
func TestMultipathRefusedReleasesAllPaths(t *testing.T) {
	e := newRouteEnv(t)
	v0, v2 := e.d["v0"], e.d["v2"]
	e.w.RCU().Barrier(e.t)
	b0, b2 := v0.RefCount(), v2.RefCount()
	p := "2001:db8:40::/64"
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx(p), Dev: v0, Priority: 100}, rt.ModeAdd))
	e.w.RCU().Barrier(e.t)
	require.Equal(t, b0+1, v0.RefCount())
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx(p), Priority: 100, Multipath: []fib.Path{
		{Gateway: addr("2001:db8::1"), Dev: v0}, {Gateway: addr("2001:db8:2::1"), Dev: v2}, {Gateway: addr("2001:db8:2::3"), Dev: v2}}},
		rt.ModeAdd), syscall.EEXIST, "")
	e.w.RCU().Barrier(e.t)
	assert.Equal(t, b0+1, v0.RefCount(), "only the device route holds v0")
	assert.Equal(t, b2, v2.RefCount(), "no path of the refused route holds v2")
	require.NoError(t, e.f.CheckInvariants())
}

// The checks Linux 6.18 makes before it looks at a route's nexthops
// (rtm_to_fib6_config, fib6_config_validate), checked with `ip -6 route
// add` in a private namespace.
func TestRequestChecksFirst(t *testing.T) {
	e := newRouteEnv(t)
	v0 := e.d["v0"]
	// from with nhid: refused before the nexthop is looked for.
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:1::/64"), Src: pfx("2001:db8:5::/64"), NexthopID: 99}, rt.ModeAdd),
		syscall.EINVAL, "Nexthops can not be used with source routing")
	// A device-only path: refused before the other path's unreachable
	// gateway is checked.
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:12::/64"), Multipath: []fib.Path{
		{Gateway: addr("2001:db8:9::9"), Dev: v0}, {Dev: v0}}}, rt.ModeAdd),
		syscall.EINVAL, "Device only routes can not be added for IPv6 using the multipath API.")
	// An IPv4 gateway of a path (RTA_VIA) is no gateway.
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:12::/64"), Multipath: []fib.Path{
		{Gateway: addr("10.0.0.1"), Dev: v0}, {Gateway: addr("2001:db8::9"), Dev: v0}}}, rt.ModeAdd),
		syscall.EINVAL, "Device only routes can not be added for IPv6 using the multipath API.")
	// The request's own gateway counts for every path.
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:12::/64"), Gateway: addr("2001:db8::9"), Multipath: []fib.Path{{Dev: v0}}}, rt.ModeAdd))
	assert.Equal(t, addr("2001:db8::9"), e.route(t, 0, "2001:db8:12::/64").Gateway)
	// A delete is not checked so.
	require.NoError(t, e.f.Del(e.t, Route{Dst: pfx("2001:db8:12::/64"), Multipath: []fib.Path{{Dev: v0}}}))
	assert.False(t, e.has(0, "2001:db8:12::/64"))
	require.NoError(t, e.f.CheckInvariants())
}

// A route through lo is checked as any other route (Linux 6.18.x:
// fib6_nh_init sends only explicit reject routes to lo) and becomes a
// reject route afterwards, with pref medium whatever it asked for.
func TestRoutesThroughLoopback(t *testing.T) {
	e := newRouteEnv(t)
	_, err := e.f.AddAddrconfRoute(e.t, netdev.AddrconfRoute{Kind: netdev.AddrconfLocal, Dev: e.lo, Prefix: pfx("::1/128")})
	require.NoError(t, err)
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:a::/64"), Dev: e.lo, Pref: rt.PrefHigh}, rt.ModeAdd))
	r := e.route(t, 0, "2001:db8:a::/64")
	assert.Equal(t, rt.PrefMedium, r.Pref)
	assert.Equal(t, e.lo, r.Dev)
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:b::/64"), Type: rt.TypeUnreachable, Pref: rt.PrefHigh}, rt.ModeAdd))
	assert.Equal(t, rt.PrefMedium, e.route(t, 0, "2001:db8:b::/64").Pref)
	// A gateway through lo: the local one is refused as local, a
	// link-local one as needing another device, another as unreachable.
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:7::/64"), Gateway: addr("::1"), Dev: e.lo}, rt.ModeAdd),
		syscall.EINVAL, "Gateway can not be a local address")
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:7::/64"), Gateway: addr("fe80::1"), Dev: e.lo}, rt.ModeAdd),
		syscall.EINVAL, "Egress device can not be loopback device for this route")
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:7::/64"), Gateway: addr("2001:db8::9"), Dev: e.lo}, rt.ModeAdd),
		syscall.EHOSTUNREACH, "")
	// lo down: a route through it is refused, an explicit reject route
	// is not.
	require.NoError(t, e.lo.SetUp(e.t, false))
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:3::/64"), Dev: e.lo}, rt.ModeAdd), syscall.ENETDOWN, "Nexthop device is not up")
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:3::/64"), Type: rt.TypeUnreachable}, rt.ModeAdd))
	require.NoError(t, e.f.CheckInvariants())
}
