package netdev_test

import (
	"net/netip"
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/stretchr/testify/require"
)

// routesEnv is lo and a veth pair va/vb up with carrier, their link-local
// addresses through DAD.
func routesEnv(t *testing.T) *env {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Veth{Name: "va", Peer: "vb", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:0a")}, PeerAttrs: netdev.Attrs{Addr: mac("02:00:00:00:00:0b")}})
	e.up("lo", "va", "vb")
	return e
}

func (e *env) checkQuiescent() {
	e.tb.Helper()
	e.w.Settle()
	require.NoError(e.tb, e.tbl.CheckInvariants())
}

// TestAddrconfRoutes: a device that comes up with carrier gets fe80::/64 in
// main, ff00::/8 in local and its link-local address's local route;
// loopback gets ::1; an address brings its prefix route and, after DAD, its
// local route; all go with the address, or with the device going down.
// Checked against Linux 6.18 (`ip -6 route show table all`).
//
// Kernel: addrconf_notify, addrconf_dev_config, addrconf_add_mroute,
// addrconf_add_linklocal, inet6_addr_add, __ipv6_ifa_notify, ipv6_del_addr,
// addrconf_ifdown → rt6_disable_ip (net/ipv6/addrconf.c, route.c).
func TestAddrconfRoutes(t *testing.T) {
	e := routesEnv(t)
	base := []string{
		"local ::1/128 dev lo table 255 metric 0",
		"multicast ff00::/8 dev va table 255 metric 256",
		"prefix fe80::/64 dev va table 254 metric 256",
		"local fe80::ff:fe00:a/128 dev va table 255 metric 0",
		"multicast ff00::/8 dev vb table 255 metric 256",
		"prefix fe80::/64 dev vb table 254 metric 256",
		"local fe80::ff:fe00:b/128 dev vb table 255 metric 0",
	}
	require.ElementsMatch(t, base, e.fib.show(nil))
	e.checkQuiescent()

	e.addAddr("va", "2001:db8::1/64")
	e.addAddr("va", "2001:db8::5/128") // a /128 has a prefix route too
	require.ElementsMatch(t, append(base[:len(base):len(base)],
		"prefix 2001:db8::/64 dev va table 254 metric 256",
		"local 2001:db8::1/128 dev va table 255 metric 0",
		"prefix 2001:db8::5/128 dev va table 254 metric 256",
		"local 2001:db8::5/128 dev va table 255 metric 0",
	), e.fib.show(nil))
	require.Equal(t, 7, e.dev("va").IPv6Routes())
	e.checkQuiescent()

	e.delAddr("va", "2001:db8::1/64")
	e.delAddr("va", "2001:db8::5/128")
	require.ElementsMatch(t, base, e.fib.show(nil))
	e.checkQuiescent()

	// vb down: va loses its carrier; its routes but the local ones are
	// linkdown, and come back with it.
	e.down("vb")
	require.ElementsMatch(t, []string{
		"multicast ff00::/8 dev va table 255 metric 256 linkdown",
		"prefix fe80::/64 dev va table 254 metric 256 linkdown",
		"local fe80::ff:fe00:a/128 dev va table 255 metric 0",
	}, e.fib.show(e.dev("va")))
	require.Empty(t, e.fib.show(e.dev("vb")))
	e.up("vb")
	require.ElementsMatch(t, base, e.fib.show(nil))

	// Unregistering the pair removes every route via either.
	e.del("va")
	require.Equal(t, []string{"local ::1/128 dev lo table 255 metric 0"}, e.fib.show(nil))
	e.checkQuiescent()
}

// TestAddrconfRoutesKeepAddrOnDown: with keep_addr_on_down a permanent
// address survives the device going down, tentative, without routes; up
// again, its prefix route comes back at once and its local route after
// DAD. An address added while the device is down gets its prefix route
// when it comes up.
//
// Kernel: addrconf_ifdown, addrconf_permanent_addr → fixup_permanent_addr
// (net/ipv6/addrconf.c); fib6_nh_init refuses a prefix route via a device
// that is down.
func TestAddrconfRoutesKeepAddrOnDown(t *testing.T) {
	e := routesEnv(t)
	va := e.dev("va")
	va.SetIPv6KeepAddrOnDown(true)
	e.addAddr("va", "2001:db8::1/64")
	e.down("va")
	require.Equal(t, []string{"2001:db8::1/64"}, v6(va))
	require.NotZero(t, va.Inet6Addrs()[0].Flags&netdev.AddrTentative)
	require.Empty(t, e.fib.show(va))
	e.addAddr("va", "2001:db9::1/64")
	require.Empty(t, e.fib.show(va), "no prefix route via a device that is down")
	e.checkQuiescent()

	e.up("va")
	require.ElementsMatch(t, []string{
		"prefix 2001:db8::/64 dev va table 254 metric 256",
		"prefix 2001:db9::/64 dev va table 254 metric 256",
		"multicast ff00::/8 dev va table 255 metric 256",
		"prefix fe80::/64 dev va table 254 metric 256",
		"local fe80::ff:fe00:a/128 dev va table 255 metric 0",
		"local 2001:db8::1/128 dev va table 255 metric 0",
		"local 2001:db9::1/128 dev va table 255 metric 0",
	}, e.fib.show(va))
	e.checkQuiescent()
}

// TestAddrconfPrefixRouteMetric: an address's metric (IFA_RT_PRIORITY) is
// its prefix route's; changing it moves the route, and a change without a
// metric keeps it. Checked against Linux 6.18.
//
// Kernel: inet6_addr_add, inet6_addr_modify, modify_prefix_route
// (net/ipv6/addrconf.c).
func TestAddrconfPrefixRouteMetric(t *testing.T) {
	e := routesEnv(t)
	va := e.dev("va")
	p := netip.MustParsePrefix("2001:db8::1/64")
	e.do(func() error { return va.AddInet6(e.t, netdev.Addr{Prefix: p, Metric: 300}) })
	require.Contains(t, e.fib.show(va), "prefix 2001:db8::/64 dev va table 254 metric 300")
	require.EqualValues(t, 300, va.Inet6Addrs()[0].Metric)

	e.do(func() error { return va.ReplaceInet6(e.t, netdev.Addr{Prefix: p, Metric: 77}) })
	require.Contains(t, e.fib.show(va), "prefix 2001:db8::/64 dev va table 254 metric 77")
	require.NotContains(t, e.fib.show(va), "prefix 2001:db8::/64 dev va table 254 metric 300")
	e.do(func() error { return va.ReplaceInet6(e.t, netdev.Addr{Prefix: p}) })
	require.Contains(t, e.fib.show(va), "prefix 2001:db8::/64 dev va table 254 metric 77")
	require.EqualValues(t, 77, va.Inet6Addrs()[0].Metric)

	e.do(func() error {
		return va.ReplaceInet6(e.t, netdev.Addr{Prefix: p, Flags: netdev.AddrNoPrefixRoute})
	})
	require.NotContains(t, e.fib.show(va), "prefix 2001:db8::/64 dev va table 254 metric 77")
	e.checkQuiescent()
}

// TestAddrconfRoutesOrder: addrconf adds a device's routes when linkwatch
// hands it the carrier change, in the order the changes were queued: a
// veth coming up while its peer is up gets NETDEV_UP with its operstate
// not yet up, then NETDEV_CHANGE before its peer's, so that its fe80::/64
// and ff00::/8 come first; a macvlan on it follows both. An address on a
// device that is up without carrier brings ff00::/8 (addrconf_add_dev);
// on a device that is down it does not. Checked against Linux 6.18
// (iproute/testdata/route6_carrier.txt).
//
// Kernel: veth_open (drivers/net/veth.c), linkwatch_fire_event,
// __linkwatch_run_queue (net/core/link_watch.c), macvlan_device_event
// (drivers/net/macvlan.c), addrconf_notify, addrconf_add_dev
// (net/ipv6/addrconf.c).
func TestAddrconfRoutesOrder(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Veth{Name: "va", Peer: "vb"})
	e.add(netdev.Macvlan{Name: "mv", Link: "vb"})
	e.up("va", "mv")
	require.Empty(t, e.fib.show(nil))
	e.rec.take()
	e.up("vb")
	require.Equal(t, []string{"NETDEV_PRE_UP vb", "NETDEV_UP vb", "NETDEV_CHANGE vb", "NETDEV_CHANGE va", "NETDEV_CHANGE mv"}, e.rec.take())
	var order []string
	for _, r := range e.fib.routes {
		if r.kind == netdev.AddrconfMulticast {
			order = append(order, r.dev.Name())
		}
	}
	require.Equal(t, []string{"vb", "va", "mv"}, order)
	e.checkQuiescent()

	e.add(netdev.Veth{Name: "ve", Peer: "vf"})
	e.up("ve")
	e.addAddr("ve", "2001:db8:e::1/64")
	require.ElementsMatch(t, []string{
		"multicast ff00::/8 dev ve table 255 metric 256",
		"prefix 2001:db8:e::/64 dev ve table 254 metric 256",
	}, e.fib.show(e.dev("ve")))
	e.down("ve")
	e.addAddr("ve", "2001:db8:f::1/64")
	require.Empty(t, e.fib.show(e.dev("ve")))
	e.checkQuiescent()
}

// TestAddrconfWalks: deleting an IPv6 address clears it as the preferred
// source of the device's routes, and a device's new MTU goes to its
// routes, each a walk of every table.
//
// Kernel: ipv6_del_addr → rt6_remove_prefsrc; addrconf_notify
// NETDEV_CHANGEMTU → rt6_mtu_change (net/ipv6/addrconf.c, route.c).
func TestAddrconfWalks(t *testing.T) {
	e := routesEnv(t)
	e.addAddr("va", "2001:db8::1/64")
	e.fib.walks = nil
	e.delAddr("va", "2001:db8::1/64")
	require.Equal(t, []string{"prefsrc 2001:db8::1 dev va"}, e.fib.walks)
	e.fib.walks = nil
	e.do(func() error { return e.dev("va").SetMTU(e.t, 1400) })
	e.do(func() error { return e.dev("va").SetMTU(e.t, 9000) })
	require.Equal(t, []string{"mtu 1500->1400 dev va", "mtu 1400->9000 dev va"}, e.fib.walks)
	e.checkQuiescent()
}
