package rtnl_test

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// TestLinkInfo: what LinkByName and LinkList report for each kind.
func TestLinkInfo(t *testing.T) {
	r := newRig(t, rtnl.After)
	h := r.h
	r.ok(h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb", Attrs: netdev.Attrs{MTU: 9000, TxQueueLen: 500, Group: 3}}))
	r.ok(h.LinkAdd(netdev.Vlan{Name: "va.7", Link: "va", ID: 7}))
	r.ok(h.LinkAdd(netdev.Macvlan{Name: "mv", Link: "va", Mode: netdev.MacvlanPrivate}))
	r.ok(h.LinkAdd(netdev.Bond{Name: "bond0", Mode: netdev.BondActiveBackup}))
	r.ok(h.LinkAdd(netdev.VRF{Name: "vrf0", Table: 1001}))
	r.ok(h.LinkAdd(netdev.Dummy{Name: "d0"}))
	r.ok(h.LinkSetMaster("d0", "bond0"))

	cases := []struct {
		name  string
		check func(li rtnl.LinkInfo)
	}{
		// loopback: no kind, LOOPBACK, ifindex 1, MTU 64 KiB.
		{"lo", func(li rtnl.LinkInfo) {
			require.Equal(t, netdev.LoopbackIfIndex, li.Index)
			require.Equal(t, "", li.Kind)
			require.Equal(t, "LOOPBACK", li.Flags.String())
			require.Equal(t, 65536, li.MTU)
			require.Equal(t, netdev.OperDown, li.OperState)
		}},
		// A veth end names its peer as its link, keeps its attributes.
		{"va", func(li rtnl.LinkInfo) {
			require.Equal(t, "veth", li.Kind)
			require.Equal(t, "vb", li.Link)
			require.Equal(t, 9000, li.MTU)
			require.Equal(t, 500, li.TxQueueLen)
			require.Equal(t, uint32(3), li.Group)
			require.Equal(t, [2]int{68, 65535}, [2]int{li.MinMTU, li.MaxMTU})
		}},
		// The peer has its own, default attributes.
		{"vb", func(li rtnl.LinkInfo) {
			require.Equal(t, "va", li.Link)
			require.Equal(t, 1500, li.MTU)
			require.Equal(t, 1000, li.TxQueueLen)
			require.Zero(t, li.Group)
		}},
		// A vlan inherits its lower's MTU and address.
		{"va.7", func(li rtnl.LinkInfo) {
			require.Equal(t, "vlan", li.Kind)
			require.Equal(t, uint16(7), li.VlanID)
			require.Equal(t, "va", li.Link)
			require.Equal(t, 9000, li.MTU)
			require.Equal(t, r.link("va").Addr, li.Addr)
		}},
		{"mv", func(li rtnl.LinkInfo) {
			require.Equal(t, "macvlan", li.Kind)
			require.Equal(t, netdev.MacvlanPrivate, li.MacvlanMode)
			require.Equal(t, "private", li.MacvlanMode.String())
			require.NotEqual(t, r.link("va").Addr, li.Addr, "a random address")
		}},
		{"bond0", func(li rtnl.LinkInfo) {
			require.Equal(t, "bond", li.Kind)
			require.Equal(t, "active-backup", li.BondMode.String())
			require.Equal(t, "BROADCAST,MULTICAST,MASTER", li.Flags.String())
		}},
		{"d0", func(li rtnl.LinkInfo) {
			require.Equal(t, "bond0", li.Master)
			require.Equal(t, "BROADCAST,NOARP,SLAVE,UP,LOWER_UP", li.Flags.String())
			require.Equal(t, netdev.OperUnknown, li.OperState, "a dummy has no operstate of its own")
		}},
		{"vrf0", func(li rtnl.LinkInfo) {
			require.Equal(t, "vrf", li.Kind)
			require.Equal(t, uint32(1001), li.VRFTable)
			require.Equal(t, netdev.VRFMTU, li.MTU)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			li := r.link(c.name)
			c.check(li)
			byIdx, err := h.GetLink(rtnl.LinkGetRequest{Index: li.Index})
			require.NoError(t, err)
			require.Equal(t, li, byIdx)
		})
	}
	require.Equal(t, []string{"lo", "vb", "va", "va.7", "mv", "bond0", "vrf0", "d0"}, linkNames(t, h))
}

// TestDelGroupAndList: a group delete takes exactly the group's devices
// (and what goes with them: a veth's peer, the vlans on a lower); a list
// delete exactly the listed ones, duplicates allowed.
func TestDelGroupAndList(t *testing.T) {
	r := newRig(t, rtnl.After)
	h := r.h
	for _, s := range []netdev.LinkSpec{
		netdev.Dummy{Name: "a", Attrs: netdev.Attrs{Group: 1}},
		netdev.Dummy{Name: "b"},
		netdev.Veth{Name: "c", Peer: "cp", Attrs: netdev.Attrs{Group: 1}},
		netdev.Vlan{Name: "b.5", Link: "b", ID: 5},
		netdev.Dummy{Name: "e"},
		netdev.Dummy{Name: "f"},
	} {
		r.ok(h.LinkAdd(s))
	}
	r.ok(h.LinkSetGroup("b", 1))
	r.ok(h.LinkDelGroup(1))
	require.Equal(t, []string{"lo", "e", "f"}, linkNames(t, h))

	e, f := r.link("e").Index, r.link("f").Index
	r.ok(h.LinkDelList([]netdev.IfIndex{f, e, f}))
	require.Equal(t, []string{"lo"}, linkNames(t, h))
}

// TestDADRunsLater: `ip addr add` returns with the address tentative; the
// solicited-node group is joined by the DAD work, which a direct task's
// kernel runs before its next request (or in Settle), and the address
// stops being tentative a DAD probe later.
//
// Kernel: addrconf_dad_start → addrconf_dad_work → addrconf_dad_begin →
// addrconf_join_solict (net/ipv6/addrconf.c).
func TestDADRunsLater(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb"}))
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d0"}))
	r.up("va", "vb", "d0")
	r.settle()
	va, d0 := r.dev("va"), r.dev("d0")

	r.ok(r.h.AddrAdd("va", pfx("2001:db8::1:2:3/64")))
	require.False(t, mcHas(va, "33:33:ff:02:00:03"), "not joined when the request returns")
	r.ok(r.h.AddrAdd("d0", pfx("2001:db8::1:2:3/64"))) // the next request runs the DAD work due first
	a, _ := r.addrInfo("va", "2001:db8::1:2:3/64")
	require.NotZero(t, a.Flags&netdev.AddrTentative, "probing")
	require.True(t, mcHas(va, "33:33:ff:02:00:03"), "joined by addrconf_dad_begin")

	r.settle()
	a, _ = r.addrInfo("va", "2001:db8::1:2:3/64")
	require.Zero(t, a.Flags&netdev.AddrTentative)
	require.Equal(t, "global", a.Scope.String())
	require.True(t, mcHas(va, "33:33:ff:02:00:03"))
	require.False(t, mcHas(d0, "33:33:ff:02:00:03"), "a dummy is NOARP: no solicited-node groups")
	a, _ = r.addrInfo("d0", "2001:db8::1:2:3/64")
	require.Zero(t, a.Flags&netdev.AddrTentative, "NOARP: DAD completes at once")
}

// TestSysctl: the sysctls netsim models, in dotted and file form, with a
// device name that contains a dot.
func TestSysctl(t *testing.T) {
	r := newRig(t, rtnl.After)
	h := r.h
	r.ok(h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb"}))
	r.ok(h.LinkAdd(netdev.Vlan{Name: "va.10", Link: "va", ID: 10}))
	r.up("va", "vb")
	r.settle()

	// Per device, a dotted name written with '/' in dotted form.
	r.ok(h.Sysctl("net.ipv6.conf.va/10.forwarding", "1"))
	c, _ := r.dev("va.10").IPv6Conf()
	require.True(t, c.Forwarding)
	require.True(t, mcHas(r.dev("va.10"), "33:33:00:00:00:02"), "all-routers joined")
	c, _ = r.dev("va").IPv6Conf()
	require.False(t, c.Forwarding)

	// File form: the dot is the device's.
	r.ok(h.Sysctl("net/ipv6/conf/va.10/forwarding", "0"))
	c, _ = r.dev("va.10").IPv6Conf()
	require.False(t, c.Forwarding)
	r.ok(h.Sysctl("net/ipv6/conf/va/keep_addr_on_down", "1"))
	c, _ = r.dev("va").IPv6Conf()
	require.True(t, c.KeepAddrOnDown)

	// keep_addr_on_down at work through the Handle.
	r.ok(h.AddrAdd("va", pfx("2001:db8::5/64")))
	r.settle()
	r.ok(h.LinkSetDown("va"))
	require.Equal(t, []string{"2001:db8::5/64"}, r.addrs("va", rt.FamilyInet6))
	r.ok(h.LinkSetUp("va"))
	r.settle()
	a, ok := r.addrInfo("va", "2001:db8::5/64")
	require.True(t, ok)
	require.Zero(t, a.Flags&netdev.AddrTentative)

	// all.forwarding reaches every device, and new ones through default.
	r.ok(h.Sysctl("net.ipv6.conf.all.forwarding", "1"))
	r.ok(h.LinkAdd(netdev.Dummy{Name: "d0"}))
	c, _ = r.dev("d0").IPv6Conf()
	require.True(t, c.Forwarding)

	// default.disable_ipv6: new devices get no IPv6.
	r.ok(h.Sysctl("net.ipv6.conf.default.disable_ipv6", "1"))
	r.ok(h.LinkAdd(netdev.Dummy{Name: "d1"}))
	_, ok = r.dev("d1").IPv6Conf()
	require.False(t, ok)

	// IPv4.
	r.ok(h.Sysctl("net.ipv4.conf.all.promote_secondaries", "1"))
	require.True(t, r.k.InitNet().Devices().IPv4All.PromoteSecondaries)
	r.ok(h.AddrAdd("d1", pfx("10.0.0.1/24")))
	r.ok(h.AddrAdd("d1", pfx("10.0.0.2/24")))
	r.ok(h.AddrDel("d1", pfx("10.0.0.1/24")))
	require.Equal(t, []string{"10.0.0.2/24"}, r.addrs("d1", rt.FamilyInet))
}

// TestNamespaces: namespaces are separate device tables, each with its
// loopback at ifindex 1 and its own ifindex counter; deleting one removes
// its name at once and its devices when the cleanup work has run.
func TestNamespaces(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d0"}))
	for _, name := range []string{"red", "blue"} {
		n, err := r.k.NewNet(r.t, name)
		r.ok(err)
		h := n.Handle(r.t)
		r.ok(h.LinkAdd(netdev.Dummy{Name: "d0"}))
		require.Equal(t, []string{"lo", "d0"}, linkNames(t, h))
		require.Equal(t, netdev.IfIndex(2), n.Devices().ByName("d0").Index())
		require.Same(t, n, r.k.Net(name))
		require.Equal(t, name, n.Name())
		r.ok(h.Close())
	}
	require.Equal(t, []string{"blue", "red"}, r.k.NetNames())
	require.Same(t, r.k.InitNet(), r.k.Net(""))

	red := r.k.Net("red")
	d0 := red.Devices().ByName("d0")
	before := r.counters()
	r.ok(r.k.DelNet(r.t, "red"))
	require.Equal(t, []string{"blue"}, r.k.NetNames())
	require.Nil(t, r.k.Net("red"))
	r.settle()
	require.False(t, d0.Registered())
	require.Zero(t, red.Devices().Len(), "cleanup_net unregistered every device, loopback too")
	d := r.counters().Sub(before)
	require.Equal(t, int64(2), d.Get(sim.DevUnregister))
	require.Equal(t, []string{"lo", "d0"}, linkNames(t, r.h), "init_net untouched")
}

// TestSetMasterMoves: a device moves between masters with one request; a
// bond releases (and closes) it first, a vrf cycles it.
func TestSetMasterMoves(t *testing.T) {
	r := newRig(t, rtnl.After)
	for _, s := range []netdev.LinkSpec{netdev.Bond{Name: "b0"}, netdev.Bond{Name: "b1"}, netdev.VRF{Name: "vrf0", Table: 9}, netdev.Dummy{Name: "d0"}} {
		r.ok(r.h.LinkAdd(s))
	}
	r.up("vrf0")
	r.ok(r.h.LinkSetMaster("d0", "b0"))
	r.ok(r.h.LinkSetMaster("d0", "b1"))
	require.Equal(t, "b1", r.link("d0").Master)
	require.Empty(t, r.dev("b0").Slaves())
	r.ok(r.h.LinkSetMaster("d0", "vrf0"))
	require.Equal(t, "vrf0", r.link("d0").Master)
	require.False(t, r.dev("d0").IsUp(), "released by b1, closed; a vrf does not open it")
	r.ok(r.h.LinkSetUp("d0"))
	r.ok(r.h.LinkSetNoMaster("d0"))
	require.Equal(t, "", r.link("d0").Master)
	require.True(t, r.dev("d0").IsUp(), "vrf release cycles, the device stays up")
	require.NoError(t, r.h.LinkSetNoMaster("d0"), "nomaster without a master is a no-op")
}

// TestHardwareAddr: changing a device's address, and a macvlan's moving its
// unicast entry on the lower.
func TestHardwareAddr(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d0"}))
	r.ok(r.h.LinkAdd(netdev.Macvlan{Name: "mv", Link: "d0"}))
	r.up("d0", "mv")
	m1, m2 := mustMAC("02:00:00:00:00:01"), mustMAC("02:00:00:00:00:02")
	r.ok(r.h.LinkSetHardwareAddr("mv", m1))
	require.Equal(t, m1, r.link("mv").Addr)
	require.True(t, ucHas(r.dev("d0"), m1))
	r.ok(r.h.LinkSetHardwareAddr("mv", m2))
	require.False(t, ucHas(r.dev("d0"), m1))
	require.True(t, ucHas(r.dev("d0"), m2))
	require.Len(t, r.link("d0").UC, 1)
	require.NoError(t, r.h.LinkSetHardwareAddr("mv", m2), "the same address: no-op")
}

// TestAddrList: the family filter and the order (per device, IPv4 first).
func TestAddrList(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d0"}))
	r.ok(r.h.AddrAdd("d0", pfx("2001:db8::1/64")))
	r.ok(r.h.AddrAdd("d0", pfx("192.0.2.1/24")))
	r.up("lo")
	r.settle()
	all, err := r.h.AddrList("", rt.FamilyUnspec)
	r.ok(err)
	var got []string
	for _, a := range all {
		got = append(got, a.Link+" "+a.Prefix.String())
	}
	require.Equal(t, []string{"lo 127.0.0.1/8", "lo ::1/128", "d0 192.0.2.1/24", "d0 2001:db8::1/64"}, got)
	require.Equal(t, []string{"192.0.2.1/24"}, r.addrs("d0", rt.FamilyInet))
	require.Equal(t, []string{"2001:db8::1/64"}, r.addrs("d0", rt.FamilyInet6))
	ai, ok := r.addrInfo("d0", "192.0.2.1/24")
	require.True(t, ok)
	require.Equal(t, r.link("d0").Index, ai.Index)
	require.Equal(t, "d0", ai.Label)
	require.True(t, slices.Contains(r.addrs("lo", rt.FamilyUnspec), netip.MustParsePrefix("::1/128").String()))
}

func TestIPv6FollowsMTU(t *testing.T) {
	// addrconf_notify NETDEV_CHANGEMTU: below IPV6_MIN_MTU the device loses
	// IPv6 (addresses, groups, the inet6_dev's device reference); back at
	// 1280 or more it gets IPv6 again, with a new link-local while up.
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "a", Peer: "b"}))
	r.up("a", "b")
	r.ok(r.h.AddrAdd("a", pfx("2001:db8::1/64")))
	r.settle()
	require.Len(t, r.addrs("a", rt.FamilyInet6), 2)
	refs := r.dev("a").RefCount()

	r.ok(r.h.LinkSetMTU("a", 1279))
	r.settle()
	require.Empty(t, r.addrs("a", rt.FamilyInet6))
	require.False(t, mcHas(r.dev("a"), "33:33:00:00:00:01"))
	_, ok := r.dev("a").IPv6Conf()
	require.False(t, ok)
	require.Less(t, r.dev("a").RefCount(), refs)

	r.ok(r.h.LinkSetMTU("a", 1280))
	r.settle()
	got := r.addrs("a", rt.FamilyInet6)
	require.Len(t, got, 1)
	require.True(t, strings.HasPrefix(got[0], "fe80::"), got[0])
	require.True(t, mcHas(r.dev("a"), "33:33:00:00:00:01"))
}

func TestVRFEnslaveKeepsKeptAddresses(t *testing.T) {
	// NETDEV_CHANGEUPPER to an L3 master flushes IPv6 (addrconf_ifdown); with
	// keep_addr_on_down the global address survives the flush and the cycle.
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "a", Peer: "b"}))
	r.ok(r.h.LinkAdd(netdev.VRF{Name: "v", Table: 10}))
	r.up("a", "b", "v")
	r.ok(r.h.Sysctl("net.ipv6.conf.all.keep_addr_on_down", "1"))
	r.ok(r.h.AddrAdd("a", pfx("2001:db8::1/64")))
	r.settle()
	rec := r.watch("a")
	r.ok(r.h.LinkSetMaster("a", "v"))
	r.settle()
	require.Contains(t, rec.take(), "NETDEV_CHANGEUPPER a")
	require.Contains(t, r.addrs("a", rt.FamilyInet6), "2001:db8::1/64", "kept across the cycle")
}
