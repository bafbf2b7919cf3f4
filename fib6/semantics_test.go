package fib6

// Route-layer tests. The expected errnos, messages and dump fields are
// those of Linux 6.18 for the same `ip -6 route` commands, run in a
// private namespace (unshare -n) on veth devices with nodad addresses:
// v0 (2001:db8::2/64, peer v1 up) and v2 (2001:db8:2::2/64, peer v3 up).

import (
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// routeEnv is a namespace with veth pairs v0/v1 and v2/v3 up, addresses on
// v0 and v2 and their connected routes in main, and a FIB driven through
// its exported API.
type routeEnv struct {
	w    *sim.World
	t    *sim.Task
	f    *FIB
	nh   *nexthop.Table
	devs *netdev.Table
	lo   *netdev.Device
	d    map[string]*netdev.Device
}

func newRouteEnv(tb testing.TB) *routeEnv {
	tb.Helper()
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	s, err := netdev.NewStack(w, rtnl, netdev.Config{})
	require.NoError(tb, err)
	e := &routeEnv{w: w, t: w.NewTask("ip"), d: map[string]*netdev.Device{}}
	rtnl.Lock(e.t)
	e.devs, err = s.NewTable(e.t, "")
	require.NoError(tb, err)
	e.lo = e.devs.ByName("lo")
	require.NoError(tb, e.lo.SetUp(e.t, true))
	for _, p := range [][2]string{{"v0", "v1"}, {"v2", "v3"}} {
		_, err := e.devs.NewLink(e.t, netdev.Veth{Name: p[0], Peer: p[1]})
		require.NoError(tb, err)
		for _, n := range p {
			e.d[n] = e.devs.ByName(n)
			require.NoError(tb, e.d[n].SetUp(e.t, true))
		}
	}
	e.nh = nexthop.NewTable(nexthop.FlushDeferred)
	e.nh.SetLoopback(e.lo)
	e.f = New(w, e.nh)
	e.f.SetLoopback(e.lo)
	for dev, a := range map[string]string{"v0": "2001:db8::2/64", "v2": "2001:db8:2::2/64"} {
		require.NoError(tb, e.d[dev].AddInet6(e.t, netdev.Addr{Prefix: netip.MustParsePrefix(a), Flags: netdev.AddrNoDAD}))
		_, err := e.f.AddAddrconfRoute(e.t, netdev.AddrconfRoute{Kind: netdev.AddrconfPrefix, Dev: e.d[dev], Prefix: netip.MustParsePrefix(a).Masked()})
		require.NoError(tb, err)
	}
	tb.Cleanup(func() { rtnl.Unlock(e.t) })
	return e
}

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }
func addr(s string) netip.Addr  { return netip.MustParseAddr(s) }

// route returns the dump of table id's route for p, failing when there is
// not exactly one.
func (e *routeEnv) route(tb testing.TB, id uint32, p string) Route {
	tb.Helper()
	var out []Route
	for _, r := range e.f.Routes(id) {
		if r.Dst == pfx(p) {
			out = append(out, r)
		}
	}
	require.Len(tb, out, 1, "routes for %s", p)
	return out[0]
}

func (e *routeEnv) has(id uint32, p string) bool {
	for _, r := range e.f.Routes(id) {
		if r.Dst == pfx(p) {
			return true
		}
	}
	return false
}

func requireErr(tb testing.TB, err error, want syscall.Errno, msg string) {
	tb.Helper()
	require.Error(tb, err)
	require.ErrorIs(tb, err, want)
	assert.Equal(tb, msg, err.(*errno.Error).Msg)
}

func TestAddDefaultsAndDump(t *testing.T) {
	e := newRouteEnv(t)
	// ip -6 route add 2001:db8:5::1/64 dev v0: the kernel masks the prefix.
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:5::1/64"), Dev: e.d["v0"], Protocol: rt.ProtoBoot}, rt.ModeAdd))
	r := e.route(t, 0, "2001:db8:5::/64")
	assert.Equal(t, Route{Table: 254, Dst: pfx("2001:db8:5::/64"), Type: rt.TypeUnicast, Protocol: rt.ProtoBoot,
		Priority: 1024, Dev: e.d["v0"]}, r)
	// The prefix route: proto kernel metric 256.
	r = e.route(t, 254, "2001:db8::/64")
	assert.Equal(t, rt.ProtoKernel, r.Protocol)
	assert.EqualValues(t, 256, r.Priority)
	// pref high; table 100 is created.
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:31::/64"), Dev: e.d["v0"], Pref: rt.PrefHigh}, rt.ModeAdd))
	assert.Equal(t, rt.PrefHigh, e.route(t, 0, "2001:db8:31::/64").Pref)
	require.NoError(t, e.f.Add(e.t, Route{Table: 100, Dst: pfx("2001:db8:32::/64"), Dev: e.d["v0"]}, rt.ModeAdd))
	assert.EqualValues(t, 100, e.route(t, 100, "2001:db8:32::/64").Table)
	assert.Equal(t, 3, e.f.TableCount())
	// A gateway route resolves its device from the connected route.
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:40::/64"), Gateway: addr("2001:db8::1")}, rt.ModeAdd))
	r = e.route(t, 0, "2001:db8:40::/64")
	assert.Equal(t, e.d["v0"], r.Dev)
	assert.Equal(t, addr("2001:db8::1"), r.Gateway)
	// The same route again: EEXIST without a message.
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:40::/64"), Gateway: addr("2001:db8::1")}, rt.ModeAdd), syscall.EEXIST, "")
	require.NoError(t, e.f.CheckInvariants())
}

func TestAddErrors(t *testing.T) {
	e := newRouteEnv(t)
	v0 := e.d["v0"]
	cases := []struct {
		name string
		r    Route
		want syscall.Errno
		msg  string
	}{
		{"link-local gateway without device", Route{Dst: pfx("2001:db8:6::/64"), Gateway: addr("fe80::1")}, syscall.EINVAL, "Egress device not specified"},
		{"IPv4 gateway (RTA_VIA)", Route{Dst: pfx("2001:db8:6::/64"), Gateway: addr("10.0.0.1")}, syscall.EINVAL, "IPv6 does not support RTA_VIA attribute"},
		{"gateway not reachable", Route{Dst: pfx("2001:db8:6::/64"), Gateway: addr("2001:db8:9::1")}, syscall.EHOSTUNREACH, ""},
		{"gateway is a local address", Route{Dst: pfx("2001:db8:6::/64"), Gateway: addr("2001:db8::2")}, syscall.EINVAL, "Gateway can not be a local address"},
		{"gateway is a local address, with dev", Route{Dst: pfx("2001:db8:6::/64"), Gateway: addr("2001:db8::2"), Dev: v0}, syscall.EINVAL, "Gateway can not be a local address"},
		{"multicast gateway", Route{Dst: pfx("2001:db8:6::/64"), Gateway: addr("ff02::1"), Dev: v0}, syscall.EINVAL, "Invalid gateway address"},
		{"no device, no gateway", Route{Dst: pfx("2001:db8:6::/64")}, syscall.ENODEV, ""},
		{"bad prefsrc", Route{Dst: pfx("2001:db8:8::/64"), Dev: v0, PrefSrc: addr("2001:db8:99::1")}, syscall.EINVAL, "Invalid source address"},
		{"nhid with dev", Route{Dst: pfx("2001:db8:17::/64"), NexthopID: 6, Dev: v0}, syscall.EINVAL, "Nexthop specification and nexthop id are mutually exclusive"},
		{"unknown nhid", Route{Dst: pfx("2001:db8:17::/64"), NexthopID: 66}, syscall.EINVAL, "Nexthop id does not exist"},
		{"onlink without device", Route{Dst: pfx("2001:db8:17::/64"), Gateway: addr("2001:db8:99::1"), OnLink: true}, syscall.ENODEV, "Nexthop device required for onlink"},
		{"device-only multipath path", Route{Dst: pfx("2001:db8:11::/64"), Multipath: []fib.Path{{Dev: v0}, {Gateway: addr("2001:db8::1"), Dev: v0}}},
			syscall.EINVAL, "Device only routes can not be added for IPv6 using the multipath API."},
		{"duplicate multipath path", Route{Dst: pfx("2001:db8:11::/64"), Multipath: []fib.Path{{Gateway: addr("2001:db8::1"), Dev: v0}, {Gateway: addr("2001:db8::1"), Dev: v0}}},
			syscall.EEXIST, ""},
		{"multipath path unreachable", Route{Dst: pfx("2001:db8:11::/64"), Multipath: []fib.Path{{Gateway: addr("2001:db8::1"), Dev: v0}, {Gateway: addr("2001:db8:99::1")}}},
			syscall.EHOSTUNREACH, ""},
	}
	before := e.f.Routes(0)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireErr(t, e.f.Add(e.t, c.r, rt.ModeAdd), c.want, c.msg)
			assert.Equal(t, before, e.f.Routes(0), "a refused request changes nothing")
		})
	}
	require.NoError(t, e.f.CheckInvariants())
}

func TestDelMatching(t *testing.T) {
	e := newRouteEnv(t)
	// No default route: ip6_route_del finds the root's null entry (ENOENT).
	requireErr(t, e.f.Del(e.t, Route{Dst: pfx("::/0")}), syscall.ENOENT, "")
	requireErr(t, e.f.Del(e.t, Route{Dst: pfx("2001:db8:77::/64")}), syscall.ESRCH, "")
	requireErr(t, e.f.Del(e.t, Route{Table: 77, Dst: pfx("2001:db8:77::/64")}), syscall.ESRCH, "FIB table does not exist")
	requireErr(t, e.f.Del(e.t, Route{Dst: pfx("2001:db8::/64"), NexthopID: 5}), syscall.EINVAL, "Nexthop id does not exist")

	require.NoError(t, e.f.Add(e.t, Route{Table: 100, Dst: pfx("2001:db8:32::/64"), Dev: e.d["v0"]}, rt.ModeAdd))
	// Metric and device must match when given.
	requireErr(t, e.f.Del(e.t, Route{Table: 100, Dst: pfx("2001:db8:32::/64"), Priority: 5}), syscall.ESRCH, "")
	requireErr(t, e.f.Del(e.t, Route{Table: 100, Dst: pfx("2001:db8:32::/64"), Dev: e.d["v2"]}), syscall.ESRCH, "")
	// The type is not compared: `ip -6 route del blackhole ...` deletes a unicast route.
	require.NoError(t, e.f.Del(e.t, Route{Table: 100, Dst: pfx("2001:db8:32::/64"), Type: rt.TypeBlackhole}))
	assert.False(t, e.has(100, "2001:db8:32::/64"))
	require.NoError(t, e.f.CheckInvariants())
}

func TestRejectRoutes(t *testing.T) {
	e := newRouteEnv(t)
	for _, ty := range []rt.Type{rt.TypeUnreachable, rt.TypeProhibit, rt.TypeBlackhole, rt.TypeThrow} {
		p := map[rt.Type]string{rt.TypeUnreachable: "2001:db8:a::/64", rt.TypeProhibit: "2001:db8:b::/64",
			rt.TypeBlackhole: "2001:db8:c::/64", rt.TypeThrow: "2001:db8:d::/64"}[ty]
		require.NoError(t, e.f.Add(e.t, Route{Dst: pfx(p), Type: ty}, rt.ModeAdd))
		r := e.route(t, 0, p)
		assert.Equal(t, ty, r.Type)
		assert.Equal(t, e.lo, r.Dev, "reject routes use the loopback device")
	}
	// A route through lo becomes a reject route that keeps type unicast.
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:7::/64"), Dev: e.lo}, rt.ModeAdd))
	r := e.route(t, 0, "2001:db8:7::/64")
	assert.Equal(t, rt.TypeUnicast, r.Type)
	assert.Equal(t, e.lo, r.Dev)

	// ip -6 route get: unreachable EHOSTUNREACH, prohibit EACCES,
	// blackhole EINVAL, throw (and no route) ENETUNREACH.
	for dst, want := range map[string]syscall.Errno{
		"2001:db8:a::1": syscall.EHOSTUNREACH, "2001:db8:b::1": syscall.EACCES,
		"2001:db8:c::1": syscall.EINVAL, "2001:db8:d::1": syscall.ENETUNREACH, "2001:db8:99::1": syscall.ENETUNREACH,
	} {
		_, err := e.f.Lookup(e.t, Flow{Dst: addr(dst)})
		require.ErrorIs(t, err, want, dst)
	}
	res, err := e.f.Lookup(e.t, Flow{Dst: addr("2001:db8::5")})
	require.NoError(t, err)
	assert.Equal(t, e.d["v0"], res.Dev)
	assert.EqualValues(t, 254, res.Table)
	assert.Equal(t, pfx("2001:db8::/64"), res.Route.Dst)
	require.NoError(t, e.f.CheckInvariants())
}

func TestMultipath(t *testing.T) {
	e := newRouteEnv(t)
	v0, v2 := e.d["v0"], e.d["v2"]
	p := "2001:db8:10::/64"
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx(p), Multipath: []fib.Path{
		{Gateway: addr("2001:db8::1"), Dev: v0, Weight: 2}, {Gateway: addr("2001:db8:2::1"), Dev: v2}}}, rt.ModeAdd))
	r := e.route(t, 0, p)
	assert.Equal(t, []fib.Path{{Gateway: addr("2001:db8::1"), Dev: v0, Weight: 2}, {Gateway: addr("2001:db8:2::1"), Dev: v2, Weight: 1}}, r.Multipath)
	assert.Zero(t, r.Flags)
	// A single route with an existing path: EEXIST.
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx(p), Gateway: addr("2001:db8::1"), Dev: v0}, rt.ModeAdd), syscall.EEXIST, "")
	// append joins the multipath route.
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx(p), Gateway: addr("2001:db8::3"), Dev: v0}, rt.ModeAppend))
	assert.Len(t, e.route(t, 0, p).Multipath, 3)
	// del with a gateway removes one path.
	require.NoError(t, e.f.Del(e.t, Route{Dst: pfx(p), Gateway: addr("2001:db8::3")}))
	assert.Len(t, e.route(t, 0, p).Multipath, 2)
	require.NoError(t, e.f.CheckInvariants())

	// Hash-threshold: the weights split [0, 2^31) 2:1 (rt6_multipath_rebalance).
	var sib []*Info
	tb := e.f.Table(254)
	fn := tb.locate(mustKey(p), key{}, true)
	for x := fn.leaf; x != nil; x = x.next {
		sib = append(sib, x)
	}
	require.Len(t, sib, 2)
	assert.EqualValues(t, 1431655764, sib[0].fnh.upperBound)
	assert.EqualValues(t, 2147483647, sib[1].fnh.upperBound)
	// Flows spread over both paths.
	seen := map[*netdev.Device]int{}
	for i := range 64 {
		res, err := e.f.Lookup(e.t, Flow{Dst: netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0x10, 15: byte(i)})})
		require.NoError(t, err)
		seen[res.Dev]++
	}
	assert.Len(t, seen, 2)

	// v2 going down marks its path dead (and linkdown); the route stays.
	require.NoError(t, v2.SetUp(e.t, false))
	e.f.SyncDownDev(e.t, v2, netdev.EventDown)
	r = e.route(t, 0, p)
	assert.Equal(t, rt.FlagDead|rt.FlagLinkDown, r.Multipath[1].Flags)
	assert.EqualValues(t, -1, sib[1].fnh.upperBound)
	for i := range 16 {
		res, err := e.f.Lookup(e.t, Flow{Dst: netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0x10, 15: byte(i)})})
		require.NoError(t, err)
		assert.Equal(t, v0, res.Dev)
	}
	// del without a gateway removes the whole multipath route.
	require.NoError(t, e.f.Del(e.t, Route{Dst: pfx(p)}))
	assert.False(t, e.has(0, p))
	require.NoError(t, e.f.CheckInvariants())
}

func TestMultipathReplaceBySingle(t *testing.T) {
	e := newRouteEnv(t)
	v0, v2 := e.d["v0"], e.d["v2"]
	p := "2001:db8:10::/64"
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx(p), Multipath: []fib.Path{
		{Gateway: addr("2001:db8::1"), Dev: v0}, {Gateway: addr("2001:db8:2::1"), Dev: v2}}}, rt.ModeAdd))
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx(p), Gateway: addr("2001:db8::7"), Dev: v0}, rt.ModeReplace))
	r := e.route(t, 0, p)
	assert.Nil(t, r.Multipath)
	assert.Equal(t, addr("2001:db8::7"), r.Gateway)
	require.NoError(t, e.f.CheckInvariants())
}

func TestSyncDownUp(t *testing.T) {
	e := newRouteEnv(t)
	v2 := e.d["v2"]
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:50::/64"), Gateway: addr("2001:db8:2::1")}, rt.ModeAdd))
	// Carrier loss marks linkdown (NETDEV_CHANGE).
	e.f.SyncDownDev(e.t, v2, netdev.EventChange)
	assert.Equal(t, rt.FlagLinkDown, e.route(t, 0, "2001:db8:50::/64").Flags)
	e.f.SyncUp(e.t, v2, uint8(rt.FlagLinkDown))
	assert.Zero(t, e.route(t, 0, "2001:db8:50::/64").Flags)
	// Down removes the routes through the device.
	before := e.w.Counters()[sim.Fib6Visit]
	e.f.SyncDownDev(e.t, v2, netdev.EventDown)
	assert.False(t, e.has(0, "2001:db8:50::/64"))
	assert.False(t, e.has(0, "2001:db8:2::/64"))
	assert.True(t, e.has(0, "2001:db8::/64"))
	assert.Positive(t, e.w.Counters()[sim.Fib6Visit]-before, "the walk is counted")
	require.NoError(t, e.f.CheckInvariants())
}

func TestNexthopObjects(t *testing.T) {
	e := newRouteEnv(t)
	v0 := e.d["v0"]
	_, err := e.nh.Add(e.t, nexthop.Config{ID: 6, Family: syscall.AF_INET6, Gateway: addr("2001:db8::1"), Dev: v0})
	require.NoError(t, err)
	_, err = e.nh.Add(e.t, nexthop.Config{ID: 9, Family: syscall.AF_INET, Blackhole: true})
	require.NoError(t, err)
	_, err = e.nh.Add(e.t, nexthop.Config{ID: 10, Family: syscall.AF_INET6, Blackhole: true})
	require.NoError(t, err)

	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:16::/64"), NexthopID: 9}, rt.ModeAdd), syscall.EINVAL, "IPv6 routes can not use an IPv4 nexthop")
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:17::/64"), Src: pfx("2001:db8:99::/64"), NexthopID: 6}, rt.ModeAdd),
		syscall.EINVAL, "Nexthops can not be used with source routing")
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:14::/64"), NexthopID: 6}, rt.ModeAdd))
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:16::/64"), NexthopID: 10}, rt.ModeAdd))
	r := e.route(t, 0, "2001:db8:14::/64")
	assert.Equal(t, Route{Table: 254, Dst: pfx("2001:db8:14::/64"), Type: rt.TypeUnicast, Protocol: rt.ProtoBoot, Priority: 1024,
		NexthopID: 6, Gateway: addr("2001:db8::1"), Dev: v0}, r)
	r = e.route(t, 0, "2001:db8:16::/64")
	assert.Equal(t, rt.TypeBlackhole, r.Type)
	assert.Equal(t, e.lo, r.Dev)
	assert.Equal(t, 1, e.nh.Get(6).IPv6Users())

	res, err := e.f.Lookup(e.t, Flow{Dst: addr("2001:db8:14::1")})
	require.NoError(t, err)
	assert.Equal(t, v0, res.Dev)
	assert.Equal(t, addr("2001:db8::1"), res.Gateway)
	_, err = e.f.Lookup(e.t, Flow{Dst: addr("2001:db8:16::1")})
	require.ErrorIs(t, err, syscall.EINVAL)

	// Removing the nexthop deletes its routes.
	require.NoError(t, e.nh.Del(e.t, 6, nil))
	assert.False(t, e.has(0, "2001:db8:14::/64"))
	assert.True(t, e.has(0, "2001:db8:16::/64"))
	require.NoError(t, e.f.CheckInvariants())
}

func TestExpires(t *testing.T) {
	e := newRouteEnv(t)
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:12::/64"), Dev: e.d["v0"], Expires: 100 * time.Second}, rt.ModeAdd))
	// The expiry is set before the route is inserted (ip6_route_info_create
	// before fib6_add), so the insert's own time has passed since.
	ins := sim.DefaultCosts.Fib6RouteInsert
	assert.Equal(t, 100*time.Second-ins, e.route(t, 0, "2001:db8:12::/64").Expires)
	e.t.Sleep(40 * time.Second)
	for _, r := range e.f.RoutesAt(e.t, 254) {
		if r.Dst == pfx("2001:db8:12::/64") {
			assert.Equal(t, 60*time.Second-ins, r.Expires)
		}
	}
	res, err := e.f.Lookup(e.t, Flow{Dst: addr("2001:db8:12::1")})
	require.NoError(t, err)
	assert.Equal(t, pfx("2001:db8:12::/64"), res.Route.Dst)
	// Expired: lookups skip it at once, the gc (every 30 s) removes it.
	e.t.Sleep(61 * time.Second)
	_, err = e.f.Lookup(e.t, Flow{Dst: addr("2001:db8:12::1")})
	require.ErrorIs(t, err, syscall.ENETUNREACH)
	e.t.Sleep(30 * time.Second)
	e.f.RunTimers(e.t)
	assert.False(t, e.has(0, "2001:db8:12::/64"))
	require.NoError(t, e.f.CheckInvariants())
}

func TestAddrconfRoutes(t *testing.T) {
	e := newRouteEnv(t)
	v0 := e.d["v0"]
	r6, err := e.f.AddAddrconfRoute(e.t, netdev.AddrconfRoute{Kind: netdev.AddrconfLocal, Dev: v0, Prefix: pfx("2001:db8::2/128")})
	require.NoError(t, err)
	require.True(t, r6.Linked())
	_, err = e.f.AddAddrconfRoute(e.t, netdev.AddrconfRoute{Kind: netdev.AddrconfMulticast, Dev: v0})
	require.NoError(t, err)
	// local 2001:db8::2 dev v0 table local proto kernel metric 0 pref medium
	assert.Equal(t, Route{Table: 255, Dst: pfx("2001:db8::2/128"), Type: rt.TypeLocal, Protocol: rt.ProtoKernel, Dev: v0},
		e.route(t, 255, "2001:db8::2/128"))
	// multicast ff00::/8 dev v0 table local proto kernel metric 256 pref medium
	assert.Equal(t, Route{Table: 255, Dst: pfx("ff00::/8"), Type: rt.TypeMulticast, Protocol: rt.ProtoKernel, Priority: 256, Dev: v0},
		e.route(t, 255, "ff00::/8"))
	// A local address's lookup is through lo.
	res, err := e.f.Lookup(e.t, Flow{Dst: addr("2001:db8::2")})
	require.NoError(t, err)
	assert.Equal(t, e.lo, res.Dev)
	assert.EqualValues(t, 255, res.Table)

	e.f.DelRoute(e.t, r6)
	assert.False(t, r6.Linked())
	e.f.Release(e.t, r6)
	e.f.DelPrefixRoute(e.t, v0, pfx("2001:db8::2/64"), 0)
	assert.False(t, e.has(0, "2001:db8::/64"))
	require.NoError(t, e.f.CheckInvariants())
}

func TestNexthopReplaceKeepsRoutes(t *testing.T) {
	e := newRouteEnv(t)
	_, err := e.nh.Add(e.t, nexthop.Config{ID: 6, Family: syscall.AF_INET6, Gateway: addr("2001:db8::1"), Dev: e.d["v0"]})
	require.NoError(t, err)
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:14::/64"), NexthopID: 6}, rt.ModeAdd))
	// An IPv6 nexthop used by IPv6 routes may not become an IPv4 one.
	_, err = e.nh.Replace(e.t, nexthop.Config{ID: 6, Family: syscall.AF_INET, Blackhole: true}, nil)
	requireErr(t, err, syscall.EINVAL, "IPv6 routes can not use an IPv4 nexthop")
	// A replace keeps the route, which reads the new definition.
	_, err = e.nh.Replace(e.t, nexthop.Config{ID: 6, Family: syscall.AF_INET6, Gateway: addr("2001:db8:2::1"), Dev: e.d["v2"]}, nil)
	require.NoError(t, err)
	r := e.route(t, 0, "2001:db8:14::/64")
	assert.Equal(t, e.d["v2"], r.Dev)
	assert.Equal(t, addr("2001:db8:2::1"), r.Gateway)
	require.NoError(t, e.f.CheckInvariants())
}

func TestMultipathAppendRollbackAndReplace(t *testing.T) {
	e := newRouteEnv(t)
	v0, v2 := e.d["v0"], e.d["v2"]
	p := "2001:db8:10::/64"
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx(p), Gateway: addr("2001:db8::1"), Dev: v0}, rt.ModeAdd))
	before := e.f.Routes(0)
	// The second path exists: EEXIST, and the first path appended before
	// it is deleted again.
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx(p), Multipath: []fib.Path{
		{Gateway: addr("2001:db8::5"), Dev: v0}, {Gateway: addr("2001:db8::1"), Dev: v0}}}, rt.ModeAppend), syscall.EEXIST, "")
	assert.Equal(t, before, e.f.Routes(0))
	// replace a single route by a multipath route.
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx(p), Multipath: []fib.Path{
		{Gateway: addr("2001:db8::6"), Dev: v0}, {Gateway: addr("2001:db8:2::6"), Dev: v2}}}, rt.ModeReplace))
	assert.Equal(t, []fib.Path{{Gateway: addr("2001:db8::6"), Dev: v0, Weight: 1}, {Gateway: addr("2001:db8:2::6"), Dev: v2, Weight: 1}},
		e.route(t, 0, p).Multipath)
	require.NoError(t, e.f.CheckInvariants())
}

func TestPrefsrcMetricsAndDelWildcards(t *testing.T) {
	e := newRouteEnv(t)
	v0 := e.d["v0"]
	// A global address of another device is a valid source (ipv6_chk_addr, strict 0).
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:20::/64"), Dev: v0, PrefSrc: addr("2001:db8:2::2")}, rt.ModeAdd))
	assert.Equal(t, addr("2001:db8:2::2"), e.route(t, 0, "2001:db8:20::/64").PrefSrc)
	var m fib.Metrics
	m.Set(rt.MetricMTU, 1400)
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:21::/64"), Dev: v0, Metrics: m}, rt.ModeAdd))
	assert.EqualValues(t, 1400, e.route(t, 0, "2001:db8:21::/64").Metrics.Values[rt.MetricMTU])
	// del without a metric takes the first route of the node.
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:22::/64"), Dev: v0, Priority: 5}, rt.ModeAdd))
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:22::/64"), Dev: v0, Priority: 7}, rt.ModeAdd))
	require.NoError(t, e.f.Del(e.t, Route{Dst: pfx("2001:db8:22::/64")}))
	assert.EqualValues(t, 7, e.route(t, 0, "2001:db8:22::/64").Priority)
	require.NoError(t, e.f.CheckInvariants())
}

func TestLookupOIF(t *testing.T) {
	e := newRouteEnv(t)
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("::/0"), Gateway: addr("2001:db8::1"), Dev: e.d["v0"]}, rt.ModeAdd))
	// ip -6 route get 2001:db8:99::1 oif v2: RT6_LOOKUP_F_IFACE refuses
	// the default route through v0.
	_, err := e.f.Lookup(e.t, Flow{Dst: addr("2001:db8:99::1"), OIF: e.d["v2"].Index()})
	require.ErrorIs(t, err, syscall.ENETUNREACH)
	res, err := e.f.Lookup(e.t, Flow{Dst: addr("2001:db8:99::1"), OIF: e.d["v0"].Index()})
	require.NoError(t, err)
	assert.Equal(t, addr("2001:db8::1"), res.Gateway)
	assert.Equal(t, pfx("::/0"), res.Route.Dst)
}

func TestSourceRoutes(t *testing.T) {
	e := newRouteEnv(t)
	v0 := e.d["v0"]
	p := "2001:db8:40::/64"
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx(p), Src: pfx("2001:db8:99::/64"), Gateway: addr("2001:db8::1"), Dev: v0}, rt.ModeAdd))
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx(p), Gateway: addr("2001:db8::3"), Dev: v0}, rt.ModeAdd))
	var got []Route
	for _, r := range e.f.Routes(254) {
		if r.Dst == pfx(p) {
			got = append(got, r)
		}
	}
	require.Len(t, got, 2)
	assert.Equal(t, pfx("2001:db8:99::/64"), got[0].Src)
	assert.Equal(t, netip.Prefix{}, got[1].Src)
	res, err := e.f.Lookup(e.t, Flow{Dst: addr("2001:db8:40::1"), Src: addr("2001:db8:99::1")})
	require.NoError(t, err)
	assert.Equal(t, addr("2001:db8::1"), res.Gateway)
	// The kernel's quirk: the route without a source sits in the subtree's
	// root, whose fn_bit (0) is not its key length (64), so rt6_select
	// skips it and the lookup backtracks to nothing.
	for _, src := range []string{"2001:db8:98::1", ""} {
		fl := Flow{Dst: addr("2001:db8:40::1")}
		if src != "" {
			fl.Src = addr(src)
		}
		_, err = e.f.Lookup(e.t, fl)
		require.ErrorIs(t, err, syscall.ENETUNREACH, src)
	}
	require.NoError(t, e.f.Del(e.t, Route{Dst: pfx(p), Src: pfx("2001:db8:99::/64")}))
	r := e.route(t, 254, p)
	assert.Equal(t, addr("2001:db8::3"), r.Gateway)
	require.NoError(t, e.f.CheckInvariants())
}

func TestRemovePrefsrc(t *testing.T) {
	e := newRouteEnv(t)
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:41::/64"), Dev: e.d["v0"], PrefSrc: addr("2001:db8::2")}, rt.ModeAdd))
	e.f.RemovePrefsrc(e.t, e.d["v0"], addr("2001:db8::2"))
	assert.False(t, e.route(t, 0, "2001:db8:41::/64").PrefSrc.IsValid())
}

func TestGatewayChecks(t *testing.T) {
	e := newRouteEnv(t)
	v0, v2 := e.d["v0"], e.d["v2"]
	_, err := e.f.AddAddrconfRoute(e.t, netdev.AddrconfRoute{Kind: netdev.AddrconfLocal, Dev: e.lo, Prefix: pfx("::1/128")})
	require.NoError(t, err)
	// onlink: a connected route through another device contradicts it.
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:19::/64"), Gateway: addr("2001:db8:2::1"), Dev: v0, OnLink: true}, rt.ModeAdd),
		syscall.EINVAL, "Nexthop has invalid gateway or device mismatch")
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:19::/64"), Gateway: addr("2001:db8::1"), Dev: v0, OnLink: true}, rt.ModeAdd))
	r := e.route(t, 0, "2001:db8:19::/64")
	assert.True(t, r.OnLink)
	assert.Equal(t, rt.FlagOnLink, r.Flags)
	// The gateway's connected route is through another device.
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:1b::/64"), Gateway: addr("2001:db8::1"), Dev: v2}, rt.ModeAdd), syscall.EHOSTUNREACH, "")
	// ::1 resolves to lo through table local.
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:1b::/64"), Gateway: addr("::1")}, rt.ModeAdd),
		syscall.EINVAL, "Egress device can not be loopback device for this route")
	// A device that is down.
	require.NoError(t, v2.SetUp(e.t, false))
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:1a::/64"), Gateway: addr("2001:db8:7::1"), Dev: v2, OnLink: true}, rt.ModeAdd),
		syscall.ENETDOWN, "Nexthop device is not up")
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:1a::/64"), Dev: v2}, rt.ModeAdd), syscall.ENETDOWN, "Nexthop device is not up")
	require.NoError(t, e.f.CheckInvariants())
}

func TestDeviceReferences(t *testing.T) {
	e := newRouteEnv(t)
	v0 := e.d["v0"]
	e.w.RCU().Barrier(e.t)
	base := v0.RefCount()
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:60::/64"), Gateway: addr("2001:db8::1")}, rt.ModeAdd))
	assert.Equal(t, base+1, v0.RefCount(), "a route holds its device")
	// A refused request takes no reference.
	_ = e.f.Add(e.t, Route{Dst: pfx("2001:db8:61::/64"), Dev: v0, PrefSrc: addr("2001:db8:99::1")}, rt.ModeAdd)
	e.w.RCU().Barrier(e.t)
	assert.Equal(t, base+1, v0.RefCount())
	// The reference goes one grace period after the route.
	require.NoError(t, e.f.Del(e.t, Route{Dst: pfx("2001:db8:60::/64")}))
	assert.Equal(t, base+1, v0.RefCount())
	e.w.RCU().Barrier(e.t)
	assert.Equal(t, base, v0.RefCount())
}

func TestExpiresInfinite(t *testing.T) {
	e := newRouteEnv(t)
	// ip -6 route add 2001:db8:d::/64 dev va expires 4294967295: no lifetime.
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:d::/64"), Dev: e.d["v0"], Expires: 0xffffffff * time.Second}, rt.ModeAdd))
	assert.Zero(t, e.route(t, 0, "2001:db8:d::/64").Expires)
}

func TestNexthopGatewayCheck(t *testing.T) {
	e := newRouteEnv(t)
	v0 := e.d["v0"]
	base := v0.RefCount()
	// ip nexthop add id 53 via 2001:db8:3::3 dev v0: no connected route.
	_, err := e.f.CheckGatewayScope(e.t, syscall.AF_INET6, addr("2001:db8:3::3"), v0, false)
	requireErr(t, err, syscall.EHOSTUNREACH, "")
	scope, err := e.f.CheckGatewayScope(e.t, syscall.AF_INET6, addr("2001:db8:3::3"), v0, true)
	require.NoError(t, err)
	assert.EqualValues(t, rt.ScopeLink, scope)
	_, err = e.f.CheckGatewayScope(e.t, syscall.AF_INET6, addr("2001:db8::3"), v0, false)
	require.NoError(t, err)
	_, err = e.f.CheckGatewayScope(e.t, syscall.AF_INET6, addr("2001:db8::2"), v0, false)
	requireErr(t, err, syscall.EINVAL, "Gateway can not be a local address")
	assert.Equal(t, base, v0.RefCount())
}

func TestFibmatchMultipathStartsAtChosenPath(t *testing.T) {
	e := newRouteEnv(t)
	v0, v2 := e.d["v0"], e.d["v2"]
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:3::/64"), Multipath: []fib.Path{
		{Gateway: addr("2001:db8::1"), Dev: v0}, {Gateway: addr("2001:db8:2::1"), Dev: v2}}}, rt.ModeAdd))
	// ip -6 route get fibmatch 2001:db8:3::1 oif v2 (fib_tests.sh): the
	// answer lists the v2 path first.
	res, err := e.f.Lookup(e.t, Flow{Dst: addr("2001:db8:3::1"), OIF: v2.Index()})
	require.NoError(t, err)
	require.Len(t, res.Route.Multipath, 2)
	assert.Equal(t, v2, res.Route.Multipath[0].Dev)
	assert.Equal(t, v0, res.Route.Multipath[1].Dev)
}

func TestMTUChange(t *testing.T) {
	e := newRouteEnv(t)
	v0 := e.d["v0"]
	var m fib.Metrics
	m.Set(rt.MetricMTU, 1400)
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:21::/64"), Dev: v0, Metrics: m}, rt.ModeAdd))
	// Linux 6.18: mtu 1400, then ip link set v0 mtu 1300, 9000, 9100 shows
	// mtu 1300, 9000, 9100.
	e.f.MTUChange(e.t, v0, 1500, 1300)
	assert.EqualValues(t, 1300, e.route(t, 0, "2001:db8:21::/64").Metrics.Values[rt.MetricMTU])
	e.f.MTUChange(e.t, v0, 1300, 9000)
	assert.EqualValues(t, 9000, e.route(t, 0, "2001:db8:21::/64").Metrics.Values[rt.MetricMTU], "the route's MTU was the device's")
	e.f.MTUChange(e.t, v0, 9000, 9100)
	assert.EqualValues(t, 9100, e.route(t, 0, "2001:db8:21::/64").Metrics.Values[rt.MetricMTU])
	// A route MTU below the device's old one stays when the device grows.
	m.Set(rt.MetricMTU, 1400)
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx("2001:db8:22::/64"), Dev: v0, Metrics: m}, rt.ModeAdd))
	e.f.MTUChange(e.t, v0, 9100, 9200)
	assert.EqualValues(t, 1400, e.route(t, 0, "2001:db8:22::/64").Metrics.Values[rt.MetricMTU])
	// Routes without an MTU metric keep none.
	assert.Zero(t, e.route(t, 0, "2001:db8::/64").Metrics.Values[rt.MetricMTU])
}
