package rtnl_test

import (
	"testing"

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
