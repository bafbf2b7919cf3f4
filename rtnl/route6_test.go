package rtnl_test

import (
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/rt"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

// route6Rig is lo and a veth pair va/vb with fixed MACs, up, their
// link-local addresses through DAD.
func route6Rig(t *testing.T) *rig {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{
		Name: "va", Peer: "vb",
		Attrs: netdev.Attrs{Addr: mustMAC("02:00:00:00:00:0a")}, PeerAttrs: netdev.Attrs{Addr: mustMAC("02:00:00:00:00:0b")},
	}))
	r.up("lo", "va", "vb")
	r.settle()
	r.check()
	return r
}

// check runs the kernel's invariants (after letting RCU callbacks run).
func (r *rig) check() {
	r.tb.Helper()
	r.settle()
	require.NoError(r.tb, r.k.CheckInvariants())
}

// The routes addrconf makes, as Linux 6.18 shows them after the same
// commands (`ip -6 route show table all`, in the dump's order): fe80::/64
// in main and ff00::/8 in local per device, the link-local addresses' and
// ::1's local routes, an address's prefix route (metric 256, or its
// metric) and local route. They go with the address, and with the device
// going down or away; a device losing its carrier marks them linkdown.
//
// Kernel: addrconf_notify, addrconf_dev_config, inet6_addr_add,
// __ipv6_ifa_notify, ipv6_del_addr, addrconf_ifdown, rt6_sync_down_dev
// (net/ipv6/addrconf.c, route.c).
func TestAddrconfRoutesFollowDevices(t *testing.T) {
	r := route6Rig(t)
	base := []string{
		"fe80::/64 dev vb proto kernel metric 256",
		"fe80::/64 dev va proto kernel metric 256",
		"local ::1 dev lo table local proto kernel",
		"local fe80::ff:fe00:a dev va table local proto kernel",
		"local fe80::ff:fe00:b dev vb table local proto kernel",
		"multicast ff00::/8 dev vb table local proto kernel metric 256",
		"multicast ff00::/8 dev va table local proto kernel metric 256",
	}
	require.ElementsMatch(t, base, r.routes6())

	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: pfx("2001:db8::1/64")}))
	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: pfx("2001:db9::1/64"), Metric: 300}))
	r.settle()
	require.ElementsMatch(t, append(base[:len(base):len(base)],
		"2001:db8::/64 dev va proto kernel metric 256",
		"2001:db9::/64 dev va proto kernel metric 300",
		"local 2001:db8::1 dev va table local proto kernel",
		"local 2001:db9::1 dev va table local proto kernel",
	), r.routes6())
	r.check()

	r.ok(r.h.AddrDel("va", pfx("2001:db9::1/64")))
	require.NotContains(t, r.routes6(), "2001:db9::/64 dev va proto kernel metric 300")
	require.NotContains(t, r.routes6(), "local 2001:db9::1 dev va table local proto kernel")
	r.check()

	// va down: its routes go; vb loses its carrier: its routes but the
	// local one are linkdown.
	r.ok(r.h.LinkSetDown("va"))
	require.Equal(t, []string{
		"fe80::/64 dev vb proto kernel metric 256 linkdown",
		"local ::1 dev lo table local proto kernel",
		"local fe80::ff:fe00:b dev vb table local proto kernel",
		"multicast ff00::/8 dev vb table local proto kernel metric 256 linkdown",
	}, r.routes6())
	r.check()

	r.up("va")
	r.settle()
	require.ElementsMatch(t, base, r.routes6(), "the address went with the device going down")

	r.ok(r.h.LinkDel("va"))
	require.Equal(t, []string{"local ::1 dev lo table local proto kernel"}, r.routes6())
	r.check()
}

// With keep_addr_on_down the address stays; its routes go with the device
// and come back when it is up again (the local route after DAD), as on
// Linux 6.18.
//
// Kernel: addrconf_ifdown, addrconf_permanent_addr, fixup_permanent_addr
// (net/ipv6/addrconf.c).
func TestAddrconfRoutesKeepAddrOnDown(t *testing.T) {
	r := route6Rig(t)
	r.ok(r.h.Sysctl("net.ipv6.conf.va.keep_addr_on_down", "1"))
	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: pfx("2001:db8::1/64")}))
	r.settle()
	r.ok(r.h.LinkSetDown("va"))
	_, ok := r.addr("va", "2001:db8::1")
	require.True(t, ok, "kept")
	for _, l := range r.routes6() {
		require.NotContains(t, l, "dev va")
	}
	r.check()

	r.up("va")
	require.Contains(t, r.routes6(), "2001:db8::/64 dev va proto kernel metric 256", "at once")
	require.NotContains(t, r.routes6(), "local 2001:db8::1 dev va table local proto kernel", "tentative")
	r.settle()
	require.Contains(t, r.routes6(), "local 2001:db8::1 dev va table local proto kernel", "after DAD")
	r.check()
}

// routeGet6Line renders an IPv6 route get answer roughly as ip prints it.
func routeGet6Line(rr rtnl.RouteResult) string {
	var w []string
	if rr.Type != fib.TypeUnicast {
		w = append(w, rr.Type.String())
	}
	w = append(w, rr.Prefix.String(), "from", rr.From.String())
	if rr.Gateway.IsValid() {
		w = append(w, "via", rr.Gateway.String())
	}
	w = append(w, "dev", rr.Dev)
	if rr.Table != fib.TableMain {
		w = append(w, "table", rt.TableName(rr.Table))
	}
	if rr.Protocol != fib.ProtoBoot {
		w = append(w, "proto", rr.Protocol.String())
	}
	if rr.Src.IsValid() {
		w = append(w, "src", rr.Src.String())
	}
	w = append(w, "metric", strconv.FormatUint(uint64(rr.Priority), 10))
	if rr.IIF != "" {
		w = append(w, "iif", rr.IIF)
	}
	return strings.Join(w, " ")
}

// `ip -6 route get` against Linux 6.18's answers for the same setup
// (the destination, "from", gateway, device, table, protocol, chosen
// source, metric, input device; the answer's destination is the route's
// prefix here, where ip prints the queried address).
//
// Kernel: inet6_rtm_getroute, ip6_route_output, ip6_route_input_lookup,
// ip6_route_get_saddr → ipv6_dev_get_saddr (net/ipv6/route.c, addrconf.c).
func TestRouteGet6(t *testing.T) {
	r := route6Rig(t)
	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: pfx("2001:db8::1/64"), Flags: netdev.AddrNoDAD}))
	r.ok(r.h.AddrAddWith("vb", netdev.Addr{Prefix: pfx("2001:db9::1/64"), Flags: netdev.AddrNoDAD, Metric: 5}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:dc0::/32"), Gateway: netip.MustParseAddr("2001:db8::2"), Dev: "va", Priority: 7}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:dd0::/32"), Type: fib.TypeBlackhole}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:de0::/32"), Type: fib.TypeUnreachable}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:df0::/32"), Type: fib.TypeProhibit}))
	r.settle()
	a := netip.MustParseAddr
	for _, tc := range []struct {
		q    rtnl.RouteGetRequest
		want string
		err  error
	}{
		{q: rtnl.RouteGetRequest{Dst: a("2001:db8::5")}, want: "2001:db8::/64 from :: dev va proto kernel src 2001:db8::1 metric 256"},
		{q: rtnl.RouteGetRequest{Dst: a("2001:db8::1")}, want: "local 2001:db8::1/128 from :: dev lo table local proto kernel src 2001:db8::1 metric 0"},
		{q: rtnl.RouteGetRequest{Dst: a("2001:dc0::1")}, want: "2001:dc0::/32 from :: via 2001:db8::2 dev va src 2001:db8::1 metric 7"},
		{q: rtnl.RouteGetRequest{Dst: a("2001:dc0::1"), Src: a("2001:db9::7")}, want: "2001:dc0::/32 from 2001:db9::7 via 2001:db8::2 dev va src 2001:db8::1 metric 7"},
		{q: rtnl.RouteGetRequest{Dst: a("2001:dd0::1")}, err: syscall.EINVAL},
		{q: rtnl.RouteGetRequest{Dst: a("2001:de0::1")}, err: syscall.EHOSTUNREACH},
		{q: rtnl.RouteGetRequest{Dst: a("2001:df0::1")}, err: syscall.EACCES},
		{q: rtnl.RouteGetRequest{Dst: a("2001:eee::1")}, err: syscall.ENETUNREACH},
		{q: rtnl.RouteGetRequest{Dst: a("::")}, err: syscall.ENETUNREACH},
		{q: rtnl.RouteGetRequest{Dst: a("fe80::1"), OIF: "vb"}, want: "fe80::/64 from :: dev vb proto kernel src fe80::ff:fe00:b metric 256"},
		{q: rtnl.RouteGetRequest{Dst: a("ff02::1"), OIF: "va"}, want: "multicast ff00::/8 from :: dev va table local proto kernel src fe80::ff:fe00:a metric 256"},
		{q: rtnl.RouteGetRequest{Dst: a("2001:db8::5"), OIF: "vb"}, err: syscall.ENETUNREACH},
		{q: rtnl.RouteGetRequest{Dst: a("2001:db8::5"), IIF: "vb", Src: a("2001:db9::9")}, want: "2001:db8::/64 from 2001:db9::9 dev va proto kernel metric 256 iif vb"},
		{q: rtnl.RouteGetRequest{Dst: a("2001:db8::1"), IIF: "vb", Src: a("2001:db9::9")}, want: "local 2001:db8::1/128 from 2001:db9::9 dev lo table local proto kernel metric 0 iif vb"},
		{q: rtnl.RouteGetRequest{Dst: a("::1")}, want: "local ::1/128 from :: dev lo table local proto kernel src ::1 metric 0"},
		{q: rtnl.RouteGetRequest{Dst: a("2001:db8::5"), SrcLen: 64}, err: syscall.EINVAL},
	} {
		rr, err := r.h.GetRoute(tc.q)
		if tc.err != nil {
			require.ErrorIs(t, err, tc.err, "%+v", tc.q)
			continue
		}
		require.NoError(t, err, "%+v", tc.q)
		require.Equal(t, tc.want, routeGet6Line(rr), "%+v", tc.q)
	}

	rr, err := r.h.GetRoute(rtnl.RouteGetRequest{Dst: a("2001:dc0::1"), FIBMatch: true})
	require.NoError(t, err)
	require.Equal(t, "2001:dc0::/32 via 2001:db8::2 dev va metric 7", routeLine(*rr.Entry))
	r.check()
}
