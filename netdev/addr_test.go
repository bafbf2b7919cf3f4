package netdev_test

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/stretchr/testify/require"
)

// TestIPv4Addresses: an address in the subnet of a primary becomes
// secondary; the list holds primaries first; deleting a primary deletes its
// secondaries, or promotes the first with promote_secondaries. Addresses
// survive the device going down.
//
// Kernel: __inet_insert_ifa, __inet_del_ifa (net/ipv4/devinet.c).
func TestIPv4Addresses(t *testing.T) {
	for _, promote := range []bool{false, true} {
		e := newEnv(t, netdev.Config{})
		e.tbl.IPv4All.PromoteSecondaries = promote
		e.add(netdev.Dummy{Name: "d0"})
		d := e.dev("d0")
		for _, p := range []string{"10.0.0.1/24", "10.0.0.2/24", "10.0.1.1/24", "10.0.0.3/24", "10.0.0.1/16"} {
			e.addAddr("d0", p)
		}
		require.Equal(t, []string{"10.0.0.1/24", "10.0.1.1/24", "10.0.0.1/16", "10.0.0.2/24", "10.0.0.3/24"}, v4(d),
			"primaries (the same address with another mask is one) before secondaries")
		var sec []string
		for _, a := range d.Inet4Addrs() {
			if a.Flags&netdev.AddrSecondary != 0 {
				sec = append(sec, a.Prefix.String())
			}
			require.Equal(t, "d0", a.Label)
		}
		require.Equal(t, []string{"10.0.0.2/24", "10.0.0.3/24"}, sec)

		e.up("d0")
		e.down("d0")
		require.Len(t, v4(d), 5, "IPv4 addresses stay across down")

		e.delAddr("d0", "10.0.0.1/24")
		if promote {
			require.Equal(t, []string{"10.0.1.1/24", "10.0.0.1/16", "10.0.0.2/24", "10.0.0.3/24"}, v4(d))
			require.Zero(t, d.Inet4Addrs()[2].Flags&netdev.AddrSecondary, "10.0.0.2 promoted")
			require.NotZero(t, d.Inet4Addrs()[3].Flags&netdev.AddrSecondary, "10.0.0.3 still secondary")
		} else {
			require.Equal(t, []string{"10.0.1.1/24", "10.0.0.1/16"}, v4(d), "the secondaries went with their primary")
		}
		// Deleting a secondary touches nothing else.
		if promote {
			e.delAddr("d0", "10.0.0.3/24")
			require.Equal(t, []string{"10.0.1.1/24", "10.0.0.1/16", "10.0.0.2/24"}, v4(d))
		}
	}
}

// TestIPv6Addrconf: which devices get which IPv6 addresses and multicast
// MACs.
//
//   - At registration every device with MTU >= 1280 joins ff02::1: its mc
//     list holds 33:33:00:00:00:01 even while down (not loopback, which
//     maps no multicast).
//   - At up, 224.0.0.1 puts 01:00:5e:00:00:01 in the list.
//   - With carrier, an EUI-64 link-local address appears, and DAD joins
//     its solicited-node group 33:33:ff:xx:xx:xx — except on NOARP
//     devices (dummy, vrf), which join none.
//   - lo gets ::1/128 and no link-local address; a vrf none at all.
//
// Kernel: ipv6_add_dev, addrconf_notify, addrconf_dev_config,
// addrconf_join_solict (net/ipv6/addrconf.c), ip_mc_up (net/ipv4/igmp.c).
func TestIPv6Addrconf(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(
		netdev.Dummy{Name: "d0", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:d0")}},
		netdev.Veth{Name: "va", Peer: "vb", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:0a")}},
		netdev.VRF{Name: "vrf0", Table: 10},
	)
	lo, d0, va, vrf := e.dev("lo"), e.dev("d0"), e.dev("va"), e.dev("vrf0")

	// Registered, down.
	require.Equal(t, []string{"33:33:00:00:00:01"}, macs(d0.MC()))
	require.Equal(t, []string{"33:33:00:00:00:01"}, macs(va.MC()))
	require.Empty(t, macs(lo.MC()))
	require.Equal(t, 1, d0.Inet6Groups()[netip.MustParseAddr("ff02::1")])
	require.Equal(t, 1, d0.Inet6Groups()[netip.MustParseAddr("ff01::1")], "joined, but below link scope: no MAC")

	e.up("lo", "d0", "va", "vb", "vrf0")
	require.Equal(t, []string{"::1/128"}, v6(lo))
	require.Equal(t, []string{"127.0.0.1/8"}, v4(lo))
	require.Equal(t, []string{"fe80::ff:fe00:d0/64"}, v6(d0), "EUI-64: 02 flips to 00, ff:fe in the middle")
	require.Equal(t, []string{"fe80::ff:fe00:a/64"}, v6(va))
	require.Empty(t, v6(vrf))

	require.Equal(t, []string{"33:33:00:00:00:01", "01:00:5e:00:00:01"}, macs(d0.MC()), "a dummy (NOARP) joins no solicited-node group")
	require.Equal(t, []string{"33:33:00:00:00:01", "01:00:5e:00:00:01", "33:33:ff:00:00:0a"}, macs(va.MC()))
	require.Empty(t, macs(lo.MC()))
	for _, a := range va.Inet6Addrs() {
		require.Zero(t, a.Flags&netdev.AddrTentative, "DAD (run inline here) completed")
		require.Equal(t, netdev.ScopeLink, a.Scope)
	}

	// A global address: its solicited-node group on va, none on d0.
	e.addAddr("va", "2001:db8::1:2:3/64")
	e.addAddr("d0", "2001:db8::1:2:3/64")
	require.True(t, has(va.MC(), "33:33:ff:02:00:03"))
	require.False(t, has(d0.MC(), "33:33:ff:02:00:03"))
	require.Equal(t, []string{"2001:db8::1:2:3/64", "fe80::ff:fe00:a/64"}, v6(va), "global scope first")

	// Two addresses sharing the low 24 bits share the group.
	e.addAddr("va", "2001:db8:1::1:2:3/64")
	ent, _ := entry(va.MC(), "33:33:ff:02:00:03")
	require.Equal(t, 1, ent.Refcount, "one group, one MAC reference")
	require.Equal(t, 2, va.Inet6Groups()[netip.MustParseAddr("ff02::1:ff02:3")])
	e.delAddr("va", "2001:db8::1:2:3/64")
	require.True(t, has(va.MC(), "33:33:ff:02:00:03"))
	e.delAddr("va", "2001:db8:1::1:2:3/64")
	require.False(t, has(va.MC(), "33:33:ff:02:00:03"))

	// Down: the link-local address and every multicast MAC go.
	e.down("va")
	require.Empty(t, v6(va))
	require.Empty(t, macs(va.MC()))
	require.Equal(t, 1, va.Inet6Groups()[netip.MustParseAddr("ff02::1")], "the membership stays")
	e.up("va")
	require.Equal(t, []string{"01:00:5e:00:00:01", "33:33:00:00:00:01", "33:33:ff:00:00:0a"}, macs(va.MC()),
		"inetdev_event's ip_mc_up runs before addrconf's ipv6_mc_up")

	// A device whose MTU is below IPV6_MIN_MTU has no IPv6.
	e.add(netdev.Dummy{Name: "small", Attrs: netdev.Attrs{MTU: 1000}})
	small := e.dev("small")
	_, ok := small.IPv6Conf()
	require.False(t, ok)
	require.Empty(t, macs(small.MC()))
	err := e.try(func() error { return small.AddInet6(e.t, netdev.Addr{Prefix: netip.MustParsePrefix("2001:db8::9/64")}) })
	require.ErrorIs(t, err, syscall.EINVAL, "ipv6_add_dev refuses an MTU below 1280")
}

// TestKeepAddrOnDown: with keep_addr_on_down a global address survives the
// device going down, tentative again, and is back in service (DAD done,
// solicited-node group joined) when the device comes up; without it the
// address goes. Link-local addresses go either way.
//
// Kernel: addrconf_ifdown, addrconf_permanent_addr / fixup_permanent_addr
// (net/ipv6/addrconf.c).
func TestKeepAddrOnDown(t *testing.T) {
	for _, keep := range []bool{false, true} {
		e := newEnv(t, netdev.Config{})
		e.tbl.IPv6All.KeepAddrOnDown = keep
		e.add(netdev.Veth{Name: "va", Peer: "vb"})
		e.up("va", "vb")
		va := e.dev("va")
		e.addAddr("va", "2001:db8::5/64")
		require.Len(t, v6(va), 2)

		e.down("va")
		if !keep {
			require.Empty(t, v6(va))
			continue
		}
		require.Equal(t, []string{"2001:db8::5/64"}, v6(va), "kept; the link-local address is not")
		require.NotZero(t, va.Inet6Addrs()[0].Flags&netdev.AddrTentative, "tentative while down")

		e.up("va")
		require.Len(t, v6(va), 2)
		for _, a := range va.Inet6Addrs() {
			require.Zero(t, a.Flags&netdev.AddrTentative, "%s: DAD ran again", a.Prefix)
		}
		require.True(t, has(va.MC(), "33:33:ff:00:00:05"), "the solicited-node group is joined again")
	}
}

// TestForwardingAnycast: with IPv6 forwarding a device joins ff02::2 and the
// subnet-router anycast address of each address, whose route holds a
// device reference; turning forwarding off leaves them.
//
// Kernel: dev_forward_change, addrconf_join_anycast, __ipv6_dev_ac_inc
// (net/ipv6/addrconf.c, anycast.c).
func TestForwardingAnycast(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Veth{Name: "va", Peer: "vb"})
	e.up("va", "vb")
	va := e.dev("va")
	e.addAddr("va", "2001:db8:7::5/64")
	refs, routes := va.RefCount(), va.IPv6Routes()

	e.do(func() error { e.tbl.SetIPv6Forwarding(e.t, nil, true); return nil })
	require.ElementsMatch(t, []netip.Addr{netip.MustParseAddr("2001:db8:7::"), netip.MustParseAddr("fe80::")}, va.Inet6Anycast())
	require.True(t, has(va.MC(), "33:33:00:00:00:02"), "ff02::2 and ff05::2")
	ent, _ := entry(va.MC(), "33:33:00:00:00:02")
	require.Equal(t, 2, ent.Refcount)
	require.True(t, has(va.MC(), "33:33:ff:00:00:00"), "the anycast addresses' solicited-node group")
	require.Equal(t, refs+2, va.RefCount(), "an anycast route each")
	require.Equal(t, routes+2, va.IPv6Routes())
	conf, _ := va.IPv6Conf()
	require.True(t, conf.Forwarding)

	e.do(func() error { e.tbl.SetIPv6Forwarding(e.t, nil, false); return nil })
	require.Empty(t, va.Inet6Anycast())
	require.False(t, has(va.MC(), "33:33:00:00:00:02"))
	require.False(t, has(va.MC(), "33:33:ff:00:00:00"))
	e.w.Settle()
	require.Equal(t, refs, va.RefCount(), "RCU callbacks dropped the anycast routes' references")
}
