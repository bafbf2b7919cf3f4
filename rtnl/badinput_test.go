package rtnl_test

import (
	"errors"
	"net/netip"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// devState is what a snapshot keeps of one device beyond rtnl.LinkInfo:
// the IPv6 state and the links between devices.
type devState struct {
	Groups  map[netip.Addr]int
	Anycast []netip.Addr
	Routes  int
	V6Conf  netdev.IPv6Conf
	HasV6   bool
	Slaves  []string
	Uppers  []string
	Carrier bool
}

// netState is a snapshot of one namespace.
type netState struct {
	Links      []rtnl.LinkInfo
	Addrs      []rtnl.AddrInfo
	Devs       map[string]devState
	Len        int
	Unreg      int
	V6Routes   int
	IPv4All    netdev.IPv4Conf
	IPv4Dflt   netdev.IPv4Conf
	IPv6All    netdev.IPv6Conf
	IPv6Dflt   netdev.IPv6Conf
	Registered []string
}

// state is a snapshot of the whole kernel: every namespace, and the work
// counters that only a change of state moves (devices registered and
// unregistered, addresses added and removed, barriers, sleeps, grace
// periods waited for, rx-mode reloads). Counters a rejected request moves
// legitimately (syscalls, notifier calls for NETDEV_PRE_UP, lock
// acquisitions, address-list searches) are left out.
type state struct {
	Names    []string
	Nets     map[string]netState
	Counters map[sim.Kind]int64
}

var stateKinds = []sim.Kind{
	sim.DevRegister, sim.DevUnregister, sim.AddrOp, sim.RCUBarrier, sim.RCUBarrierShared,
	sim.Sleep, sim.SyncExpedited, sim.RxModeSync, sim.HWAddrIterate, sim.RCUCallback,
}

// snapshot settles the kernel (so deferred work a request queued is done)
// and records its state. It reads the namespaces through Handles, as a user
// would, and the device internals that rtnl does not show through the
// namespace's device table.
func snapshot(tb testing.TB, k *rtnl.Kernel, t *sim.Task) state {
	tb.Helper()
	k.Settle(t)
	c := k.Counters()
	s := state{Names: k.NetNames(), Nets: map[string]netState{}, Counters: map[sim.Kind]int64{}}
	for _, kd := range stateKinds {
		s.Counters[kd] = c.Get(kd)
	}
	for _, name := range append([]string{""}, s.Names...) {
		n := k.Net(name)
		h := n.Handle(t)
		links, err := h.LinkList()
		require.NoError(tb, err)
		addrs, err := h.AddrList("", rt.FamilyUnspec)
		require.NoError(tb, err)
		tbl := n.Devices()
		ns := netState{
			Links: links, Addrs: addrs, Devs: map[string]devState{},
			Len: tbl.Len(), Unreg: tbl.UnregisteringCount(), V6Routes: tbl.IPv6Routes(),
			IPv4All: tbl.IPv4All, IPv4Dflt: tbl.IPv4Default, IPv6All: tbl.IPv6All, IPv6Dflt: tbl.IPv6Default,
		}
		for _, d := range tbl.Devices() {
			ds := devState{Groups: d.Inet6Groups(), Anycast: d.Inet6Anycast(), Routes: d.IPv6Routes(), Carrier: d.Carrier()}
			ds.V6Conf, ds.HasV6 = d.IPv6Conf()
			for _, x := range d.Slaves() {
				ds.Slaves = append(ds.Slaves, x.Name())
			}
			for _, x := range d.Uppers() {
				ds.Uppers = append(ds.Uppers, x.Name())
			}
			ns.Devs[d.Name()] = ds
			if d.Registered() {
				ns.Registered = append(ns.Registered, d.Name())
			}
		}
		s.Nets[name] = ns
	}
	return s
}

// badInputRig builds the kernel every rejected request is tried on. In
// init_net:
//
//	lo                   loopback, in group 9
//	d0                   dummy, up, 192.0.2.1/24 and 2001:db8::1/64
//	d1                   dummy, down
//	d2                   dummy, up, lower of the passthru macvlan mvp
//	d3                   dummy, down, lower of vd (so vd cannot come up)
//	dsmall               dummy with MTU 1000: no IPv6
//	va, vb               veth pair, both up
//	mv0                  macvlan (bridge) on d0, up
//	mvdup                macvlan on d0 with mv0's address, down
//	dnov6                dummy created with default.disable_ipv6=1
//	mvp                  macvlan (passthru) on d2, up
//	v10                  vlan 10 on d0, up
//	vd                   vlan 20 on d3, down
//	bond0                bond, up, slave s0; vlans bv5 (up) and bv6 (down) on it
//	bond1, bond2         bonds; bond1 is enslaved to bond2, which is down
//	bond3                bond without slaves, up
//	vrf0                 vrf table 10, up, port p0 (up); vrf1 table 11
//	g7a, g7b             dummies in group 7; g9 dummy in group 9
//
// a namespace "blue" with a dummy b0, and a namespace "gone" that has been
// deleted and dismantled (a Handle made of it afterwards is returned as
// gone).
func badInputRig(t *testing.T, cfg rtnl.Config) (r *rig, blue, gone *rtnl.Handle) {
	r = newRig(t, cfg)
	h := r.h
	mac := func(s string) netdev.Attrs { return netdev.Attrs{Addr: mustMAC(s)} }
	for _, spec := range []netdev.LinkSpec{
		netdev.Dummy{Name: "d0", Attrs: mac("02:00:00:00:00:d0")},
		netdev.Dummy{Name: "d1"},
		netdev.Dummy{Name: "d2"},
		netdev.Dummy{Name: "d3"},
		netdev.Dummy{Name: "dsmall", Attrs: netdev.Attrs{MTU: 1000}},
		netdev.Veth{Name: "va", Peer: "vb"},
		netdev.Macvlan{Name: "mv0", Link: "d0", Mode: netdev.MacvlanBridge, Attrs: mac("02:00:00:00:0a:01")},
		netdev.Macvlan{Name: "mvp", Link: "d2", Mode: netdev.MacvlanPassthru},
		netdev.Vlan{Name: "v10", Link: "d0", ID: 10},
		netdev.Vlan{Name: "vd", Link: "d3", ID: 20},
		netdev.Bond{Name: "bond0"},
		netdev.Dummy{Name: "s0"},
		netdev.Vlan{Name: "bv5", Link: "bond0", ID: 5},
		netdev.Vlan{Name: "bv6", Link: "bond0", ID: 6},
		netdev.Bond{Name: "bond1"},
		netdev.Bond{Name: "bond2"},
		netdev.Bond{Name: "bond3"},
		netdev.VRF{Name: "vrf0", Table: 10},
		netdev.VRF{Name: "vrf1", Table: 11},
		netdev.Dummy{Name: "p0"},
		netdev.Dummy{Name: "g7a", Attrs: netdev.Attrs{Group: 7}},
		netdev.Dummy{Name: "g7b", Attrs: netdev.Attrs{Group: 7}},
		netdev.Dummy{Name: "g9", Attrs: netdev.Attrs{Group: 9}},
		netdev.Macvlan{Name: "mvdup", Link: "d0", Attrs: mac("02:00:00:00:0a:01")},
	} {
		r.ok(h.LinkAdd(spec))
	}
	r.ok(h.Sysctl("net.ipv6.conf.default.disable_ipv6", "1"))
	r.ok(h.LinkAdd(netdev.Dummy{Name: "dnov6"}))
	r.ok(h.Sysctl("net.ipv6.conf.default.disable_ipv6", "0"))
	r.up("d0", "d2", "va", "vb", "mv0", "mvp", "bond0", "bond3", "vrf0", "p0")
	r.ok(h.LinkSetMaster("s0", "bond0"))
	r.ok(h.LinkSetDown("bv6"))
	r.ok(h.LinkSetMaster("bond1", "bond2"))
	r.ok(h.LinkSetMaster("p0", "vrf0"))
	r.ok(h.LinkSetGroup("lo", 9))
	r.ok(h.AddrAdd("d0", pfx("192.0.2.1/24")))
	r.ok(h.AddrAdd("d0", pfx("2001:db8::1/64")))

	_, err := r.k.NewNet(r.t, "blue")
	r.ok(err)
	blue = r.k.Net("blue").Handle(r.t)
	r.ok(blue.LinkAdd(netdev.Dummy{Name: "b0"}))
	gn, err := r.k.NewNet(r.t, "gone")
	r.ok(err)
	gh := gn.Handle(r.t)
	r.ok(gh.LinkAdd(netdev.Dummy{Name: "x0"}))
	r.ok(gh.Close())
	r.ok(r.k.DelNet(r.t, "gone"))
	r.settle()
	// A Handle made of the dismantled namespace: Linux would not let a
	// process reach it, so every request fails.
	gone = gn.Handle(r.t)

	// The rig is what the comment above says.
	require.Equal(t, []string{"s0"}, names(r.dev("bond0").Slaves()))
	require.Equal(t, "bond2", r.dev("bond1").Master().Name())
	require.Equal(t, "vrf0", r.dev("p0").Master().Name())
	require.True(t, r.dev("bv5").IsUp())
	require.False(t, r.dev("vd").IsUp())
	_, hasV6 := r.dev("dsmall").IPv6Conf()
	require.False(t, hasV6)
	return r, blue, gone
}

func names(ds []*netdev.Device) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name())
	}
	return out
}

// TestRejectedRequestsChangeNothing tries every Handle method (and the
// namespace constructor and destructor) with each kind of invalid argument.
// Each must fail with the kernel's errno, carry an extack-style message,
// and leave the kernel exactly as it was: every namespace's links,
// addresses, IPv6 groups, routes, sysctls and the state counters.
func TestRejectedRequestsChangeNothing(t *testing.T) {
	r, blue, gone := badInputRig(t, rtnl.After)
	h, k := r.h, r.k
	twin, _, _ := badInputRig(t, rtnl.After) // built the same way, spared the rejected requests
	before := rtnl.Before
	rb, _, _ := badInputRig(t, before)

	long := "abcdefghijklmnop" // 16 bytes: one more than IFNAMSIZ-1
	mcMAC := netdev.Attrs{Addr: mustMAC("01:00:5e:00:00:01")}
	tooMany := make([]netdev.IfIndex, netdev.MaxIfindexList+1)
	for i := range tooMany {
		tooMany[i] = 2
	}
	idx := func(name string) netdev.IfIndex { return r.dev(name).Index() }

	cases := []struct {
		name  string
		rig   *rig // nil: r
		call  func() error
		errno syscall.Errno
		msg   string
	}{
		// ---- LinkAdd: names ----
		// IFLA_IFNAME longer than IFNAMSIZ-1 fails netlink policy validation.
		{"add/name-too-long", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: long}) }, syscall.ERANGE, "Attribute failed policy validation"},
		// A template longer than IFNAMSIZ-1 fails the same way, before dev_alloc_name.
		{"add/template-too-long", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: "abcdefghijklmn%d"}) }, syscall.ERANGE, "Attribute failed policy validation"},
		// dev_valid_name: no '/'.
		{"add/name-slash", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: "a/b"}) }, syscall.EINVAL, "Invalid device name"},
		// dev_valid_name: no ':'.
		{"add/name-colon", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: "a:b"}) }, syscall.EINVAL, "Invalid device name"},
		// dev_valid_name: no whitespace.
		{"add/name-space", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: "a b"}) }, syscall.EINVAL, "Invalid device name"},
		// dev_valid_name: not "." or "..".
		{"add/name-dot", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: "."}) }, syscall.EINVAL, "Invalid device name"},
		// dev_valid_name: not ".." either, whatever the kind.
		{"add/name-dotdot", nil, func() error { return h.LinkAdd(netdev.Bond{Name: ".."}) }, syscall.EINVAL, "Invalid device name"},
		// A template that is not one %d.
		{"add/name-bad-template", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: "d%s"}) }, syscall.EINVAL, "Invalid device name template"},
		// __dev_alloc_name: one %d and no other %.
		{"add/template-bad-verb", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: "d%s"}) }, syscall.EINVAL, "Invalid device name template"},
		// __dev_alloc_name: two %d.
		{"add/template-two", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: "d%d%d"}) }, syscall.EINVAL, "Invalid device name template"},
		// NLM_F_EXCL on an existing name.
		{"add/name-taken", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: "d0"}) }, syscall.EEXIST, `"d0" already exists`},
		// The name is taken whatever kind the new device would be.
		{"add/name-taken-other-kind", nil, func() error { return h.LinkAdd(netdev.VRF{Name: "bond0", Table: 5}) }, syscall.EEXIST, "already exists"},
		// Every namespace has its own lo.
		{"add/name-lo-in-blue", nil, func() error { return blue.LinkAdd(netdev.Dummy{Name: "lo"}) }, syscall.EEXIST, "already exists"},

		// ---- LinkAdd: ifindex ----
		// ifi_index finds an existing device first: EEXIST.
		{"add/index-taken", nil, func() error {
			return h.LinkAdd(netdev.Dummy{Name: "n0", Attrs: netdev.Attrs{Index: idx("d0")}})
		}, syscall.EEXIST, "already exists"},
		// "ifindex can't be negative".
		{"add/index-negative", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: "n0", Attrs: netdev.Attrs{Index: -5}}) }, syscall.EINVAL, "ifindex can't be negative"},
		// A veth peer's requested ifindex in use: register_netdevice's EBUSY.
		{"add/veth-peer-index-taken", nil, func() error {
			return h.LinkAdd(netdev.Veth{Name: "n0", Peer: "n1", PeerAttrs: netdev.Attrs{Index: idx("d1")}})
		}, syscall.EBUSY, "in use"},
		// Both ends asking for the same free ifindex.
		{"add/veth-same-index", nil, func() error {
			return h.LinkAdd(netdev.Veth{Name: "n0", Peer: "n1", Attrs: netdev.Attrs{Index: 900}, PeerAttrs: netdev.Attrs{Index: 900}})
		}, syscall.EBUSY, "in use"},
		// The peer's ifi_index may not be negative either.
		{"add/veth-peer-index-negative", nil, func() error {
			return h.LinkAdd(netdev.Veth{Name: "n0", Peer: "n1", PeerAttrs: netdev.Attrs{Index: -1}})
		}, syscall.EINVAL, "negative"},

		// ---- LinkAdd: MTU and address ----
		{"add/veth-mtu-low", nil, func() error { return h.LinkAdd(netdev.Veth{Name: "n0", Attrs: netdev.Attrs{MTU: 67}}) }, syscall.EINVAL, ""},
		// veth_validate: above ETH_MAX_MTU, a bare EINVAL.
		{"add/veth-mtu-high", nil, func() error { return h.LinkAdd(netdev.Veth{Name: "n0", Attrs: netdev.Attrs{MTU: 65536}}) }, syscall.EINVAL, ""},
		// The peer's own IFLA_MTU is validated too (veth_validate: no message).
		{"add/veth-peer-mtu-low", nil, func() error {
			return h.LinkAdd(netdev.Veth{Name: "n0", Peer: "n1", PeerAttrs: netdev.Attrs{MTU: 10}})
		}, syscall.EINVAL, ""},
		// dev_validate_mtu: a negative MTU is below any minimum.
		{"add/dummy-mtu-negative", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: "n0", Attrs: netdev.Attrs{MTU: -1}}) }, syscall.EINVAL, "mtu less than device minimum"},
		// Below bond's min_mtu (ETH_MIN_MTU).
		{"add/bond-mtu-low", nil, func() error { return h.LinkAdd(netdev.Bond{Name: "n0", Attrs: netdev.Attrs{MTU: 67}}) }, syscall.EINVAL, "mtu less than device minimum"},
		// vrf's range is IPV6_MIN_MTU..IP6_MAX_MTU.
		{"add/vrf-mtu-low", nil, func() error { return h.LinkAdd(netdev.VRF{Name: "n0", Table: 5, Attrs: netdev.Attrs{MTU: 1279}}) }, syscall.EINVAL, "mtu less than device minimum"},
		// Above IP6_MAX_MTU.
		{"add/vrf-mtu-high", nil, func() error {
			return h.LinkAdd(netdev.VRF{Name: "n0", Table: 5, Attrs: netdev.Attrs{MTU: netdev.VRFMTU + 1}})
		}, syscall.EINVAL, "mtu greater than device maximum"},
		// A multicast IFLA_ADDRESS is not a valid Ethernet address.
		{"add/dummy-mc-mac", nil, func() error { return h.LinkAdd(netdev.Dummy{Name: "n0", Attrs: mcMAC}) }, syscall.EADDRNOTAVAIL, "multicast"},
		// The peer's IFLA_ADDRESS is validated too.
		{"add/veth-peer-mc-mac", nil, func() error { return h.LinkAdd(netdev.Veth{Name: "n0", Peer: "n1", PeerAttrs: mcMAC}) }, syscall.EADDRNOTAVAIL, "multicast"},
		// Likewise for a bond,
		{"add/bond-mc-mac", nil, func() error { return h.LinkAdd(netdev.Bond{Name: "n0", Attrs: mcMAC}) }, syscall.EADDRNOTAVAIL, "multicast"},
		// a vrf,
		{"add/vrf-mc-mac", nil, func() error { return h.LinkAdd(netdev.VRF{Name: "n0", Table: 5, Attrs: mcMAC}) }, syscall.EADDRNOTAVAIL, "multicast"},
		// a vlan
		{"add/vlan-mc-mac", nil, func() error { return h.LinkAdd(netdev.Vlan{Name: "n0", Link: "d0", ID: 99, Attrs: mcMAC}) }, syscall.EADDRNOTAVAIL, "multicast"},
		// and a macvlan (macvlan_validate).
		{"add/macvlan-mc-mac", nil, func() error { return h.LinkAdd(netdev.Macvlan{Name: "n0", Link: "d0", Attrs: mcMAC}) }, syscall.EADDRNOTAVAIL, ""},
		// nothing to create
		{"add/nil-spec", nil, func() error { return h.LinkAdd(nil) }, syscall.EINVAL, "No link specification"},

		// ---- LinkAdd veth ----
		{"add/veth-peer-taken", nil, func() error { return h.LinkAdd(netdev.Veth{Name: "n0", Peer: "d1"}) }, syscall.EEXIST, `"d1" already exists`},
		// Both ends cannot have one name.
		{"add/veth-same-names", nil, func() error { return h.LinkAdd(netdev.Veth{Name: "n0", Peer: "n0"}) }, syscall.EEXIST, "already exists"},
		// VETH_INFO_PEER's IFLA_IFNAME has the same policy.
		{"add/veth-peer-too-long", nil, func() error { return h.LinkAdd(netdev.Veth{Name: "n0", Peer: long}) }, syscall.ERANGE, "Attribute failed policy validation"},
		// and the same dev_valid_name check.
		{"add/veth-peer-invalid", nil, func() error { return h.LinkAdd(netdev.Veth{Name: "n0", Peer: "a:b"}) }, syscall.EINVAL, "Invalid device name"},

		// ---- LinkAdd macvlan ----
		{"add/macvlan-no-link", nil, func() error { return h.LinkAdd(netdev.Macvlan{Name: "n0"}) }, syscall.EINVAL, ""},
		// macvlan_common_newlink: IFLA_LINK names no device.
		{"add/macvlan-unknown-link", nil, func() error { return h.LinkAdd(netdev.Macvlan{Name: "n0", Link: "nope"}) }, syscall.ENODEV, ""},
		// macvlan_port_create: loopback cannot be a macvlan lower.
		{"add/macvlan-on-lo", nil, func() error { return h.LinkAdd(netdev.Macvlan{Name: "n0", Link: "lo"}) }, syscall.EINVAL, ""},
		// macvlan_validate: 3 is not a mode.
		{"add/macvlan-bad-mode", nil, func() error { return h.LinkAdd(netdev.Macvlan{Name: "n0", Link: "d0", Mode: 3}) }, syscall.EINVAL, ""},
		// A lower with a passthru macvlan takes no other macvlan.
		{"add/macvlan-second-passthru", nil, func() error {
			return h.LinkAdd(netdev.Macvlan{Name: "n0", Link: "d2", Mode: netdev.MacvlanPassthru})
		}, syscall.EINVAL, ""},
		// Not even a non-passthru one.
		{"add/macvlan-after-passthru", nil, func() error { return h.LinkAdd(netdev.Macvlan{Name: "n0", Link: "d2"}) }, syscall.EINVAL, ""},
		// A passthru macvlan must be its lower's only macvlan.
		{"add/macvlan-passthru-not-alone", nil, func() error {
			return h.LinkAdd(netdev.Macvlan{Name: "n0", Link: "d0", Mode: netdev.MacvlanPassthru})
		}, syscall.EINVAL, ""},
		// macvlan_common_newlink: the MTU may not exceed the lower's.
		{"add/macvlan-mtu-above-lower", nil, func() error {
			return h.LinkAdd(netdev.Macvlan{Name: "n0", Link: "d0", Attrs: netdev.Attrs{MTU: 1501}})
		}, syscall.EINVAL, ""},
		// Below the macvlan's min_mtu (ETH_MIN_MTU).
		{"add/macvlan-mtu-low", nil, func() error {
			return h.LinkAdd(netdev.Macvlan{Name: "n0", Link: "d0", Attrs: netdev.Attrs{MTU: 67}})
		}, syscall.EINVAL, "mtu less than device minimum"},
		// Every kind's name goes through the IFLA_IFNAME policy.
		{"add/macvlan-name-too-long", nil, func() error { return h.LinkAdd(netdev.Macvlan{Name: long, Link: "d0"}) }, syscall.ERANGE, "Attribute failed policy validation"},

		// ---- LinkAdd vlan ----
		{"add/vlan-no-link", nil, func() error { return h.LinkAdd(netdev.Vlan{Name: "n0", ID: 1}) }, syscall.EINVAL, "8021q: link not specified"},
		// vlan_newlink: "link does not exist".
		{"add/vlan-unknown-link", nil, func() error { return h.LinkAdd(netdev.Vlan{Name: "n0", Link: "nope", ID: 1}) }, syscall.ENODEV, "Cannot find device"},
		// vlan_validate: id >= VLAN_VID_MASK.
		{"add/vlan-id-4095", nil, func() error { return h.LinkAdd(netdev.Vlan{Name: "n0", Link: "d0", ID: 4095}) }, syscall.ERANGE, "8021q: Invalid VLAN id"},
		// The largest u16 is no better.
		{"add/vlan-id-max", nil, func() error { return h.LinkAdd(netdev.Vlan{Name: "n0", Link: "d0", ID: 65535}) }, syscall.ERANGE, "8021q: Invalid VLAN id"},
		// vlan_check_real_dev: a vid once per lower.
		{"add/vlan-dup-vid", nil, func() error { return h.LinkAdd(netdev.Vlan{Name: "n0", Link: "d0", ID: 10}) }, syscall.EEXIST, "8021q: VLAN device already exists"},
		// The same on a bond: vlans stack on any Ethernet device.
		{"add/vlan-dup-vid-on-bond", nil, func() error { return h.LinkAdd(netdev.Vlan{Name: "n0", Link: "bond0", ID: 5}) }, syscall.EEXIST, "8021q: VLAN device already exists"},
		// vlan_check_real_dev: loopback and vrf are VLAN-challenged.
		{"add/vlan-on-lo", nil, func() error { return h.LinkAdd(netdev.Vlan{Name: "n0", Link: "lo", ID: 1}) }, syscall.EOPNOTSUPP, "8021q: VLANs not supported on device"},
		// A vrf is an L3 master: no vlans.
		{"add/vlan-on-vrf", nil, func() error { return h.LinkAdd(netdev.Vlan{Name: "n0", Link: "vrf0", ID: 1}) }, syscall.EOPNOTSUPP, "8021q: VLANs not supported on device"},
		// vlan_newlink: the MTU may not exceed the lower's.
		{"add/vlan-mtu-above-lower", nil, func() error {
			return h.LinkAdd(netdev.Vlan{Name: "n0", Link: "d0", ID: 99, Attrs: netdev.Attrs{MTU: 1501}})
		}, syscall.EINVAL, ""},
		// dev_validate_mtu first: above ETH_MAX_MTU.
		{"add/vlan-mtu-above-max", nil, func() error {
			return h.LinkAdd(netdev.Vlan{Name: "n0", Link: "d0", ID: 99, Attrs: netdev.Attrs{MTU: 65536}})
		}, syscall.EINVAL, "mtu greater than device maximum"},
		// A trailing space is whitespace.
		{"add/vlan-name-invalid", nil, func() error { return h.LinkAdd(netdev.Vlan{Name: "d0.99 ", Link: "d0", ID: 99}) }, syscall.EINVAL, "Invalid device name"},

		// ---- LinkAdd bond, vrf ----
		{"add/bond-bad-mode", nil, func() error { return h.LinkAdd(netdev.Bond{Name: "n0", Mode: 7}) }, syscall.EINVAL, "invalid option value"},
		// vrf_newlink: RT_TABLE_UNSPEC.
		{"add/vrf-table-0", nil, func() error { return h.LinkAdd(netdev.VRF{Name: "n0"}) }, syscall.EINVAL, "Invalid VRF table id"},

		// ---- LinkDel, DelLink by index ----
		{"del/unknown", nil, func() error { return h.LinkDel("nope") }, syscall.ENODEV, `Cannot find device "nope"`},
		// No name: nothing identifies a device.
		{"del/empty-name", nil, func() error { return h.LinkDel("") }, syscall.EINVAL, "Device name is required"},
		// rtnl_delete_link: loopback has no rtnl_link_ops.
		{"del/lo", nil, func() error { return h.LinkDel("lo") }, syscall.EOPNOTSUPP, `"lo" cannot be deleted`},
		// A name is looked up in the handle's namespace only.
		{"del/other-netns", nil, func() error { return blue.LinkDel("d0") }, syscall.ENODEV, "Cannot find device"},
		// rtnl_dellink by ifi_index: ENODEV.
		{"del-index/unknown", nil, func() error { return h.DelLink(rtnl.LinkRequest{Index: 999}) }, syscall.ENODEV, "No device with ifindex 999"},
		// By index, loopback is still not deletable.
		{"del-index/lo", nil, func() error { return h.DelLink(rtnl.LinkRequest{Index: netdev.LoopbackIfIndex}) }, syscall.EOPNOTSUPP, "cannot be deleted"},

		// ---- LinkDelGroup (rtnl_group_dellink) ----
		{"del-group/default", nil, func() error { return h.LinkDelGroup(0) }, syscall.EPERM, "default group"},
		// No device in the group.
		{"del-group/no-match", nil, func() error { return h.LinkDelGroup(42) }, syscall.ENODEV, "No device in group 42"},
		// Group 9 holds g9 and lo: lo cannot be deleted, so g9 is not either.
		{"del-group/member-without-dellink", nil, func() error { return h.LinkDelGroup(9) }, syscall.EOPNOTSUPP, `"lo" cannot be deleted`},

		// ---- LinkDelList (seed 004's rtnl_list_dellink) ----
		{"del-list/empty", nil, func() error { return h.LinkDelList(nil) }, syscall.EINVAL, "1 to 16382 entries, not 0"},
		// More than a u16 attribute can carry.
		{"del-list/oversize", nil, func() error { return h.LinkDelList(tooMany) }, syscall.EINVAL, "1 to 16382 entries, not 16383"},
		// One unknown ifindex and nothing goes, not even the valid ones before it.
		{"del-list/unknown", nil, func() error { return h.LinkDelList([]netdev.IfIndex{idx("d1"), idx("g7a"), 999}) }, syscall.ENODEV, "No device with ifindex 999"},
		// One device without dellink and nothing goes.
		{"del-list/lo", nil, func() error {
			return h.LinkDelList([]netdev.IfIndex{idx("d1"), netdev.LoopbackIfIndex, idx("g7a")})
		}, syscall.EOPNOTSUPP, `"lo" cannot be deleted`},
		// A kernel without the patch does not know IFLA_IFINDEX_LIST.
		{"del-list/unsupported", rb, func() error { return rb.h.LinkDelList([]netdev.IfIndex{2}) }, syscall.EINVAL, "not supported"},

		// ---- LinkSetUp, LinkSetDown ----
		{"up/unknown", nil, func() error { return h.LinkSetUp("nope") }, syscall.ENODEV, "Cannot find device"},
		// No name.
		{"up/empty-name", nil, func() error { return h.LinkSetUp("") }, syscall.ENODEV, "Device name is required"},
		// vlan_dev_open: the lower is down.
		// macvlan_open: another macvlan of the lower uses the address.
		{"up/macvlan-address-in-use", nil, func() error { return h.LinkSetUp("mvdup") }, syscall.EADDRINUSE, "in use"},
		// vlan_dev_open: the lower (d3) is down.
		{"up/vlan-lower-down", nil, func() error { return h.LinkSetUp("vd") }, syscall.ENETDOWN, "Lower device is down"},
		// No such device.
		{"down/unknown", nil, func() error { return h.LinkSetDown("nope") }, syscall.ENODEV, "Cannot find device"},

		// ---- LinkSetMaster, LinkSetNoMaster ----
		{"master/unknown-dev", nil, func() error { return h.LinkSetMaster("nope", "bond0") }, syscall.ENODEV, "Cannot find device"},
		// The master's name is resolved like the device's.
		{"master/unknown-master", nil, func() error { return h.LinkSetMaster("d1", "nope") }, syscall.ENODEV, "Cannot find device"},
		// An empty master name (use LinkSetNoMaster).
		{"master/empty-master", nil, func() error { return h.LinkSetMaster("d1", "") }, syscall.EINVAL, "Device name is required"},
		// do_set_master: a device without ndo_add_slave.
		{"master/not-a-master", nil, func() error { return h.LinkSetMaster("d1", "d0") }, syscall.EOPNOTSUPP, `"d0" cannot be a master`},
		// Nor does a veth.
		{"master/veth-not-a-master", nil, func() error { return h.LinkSetMaster("d1", "va") }, syscall.EOPNOTSUPP, "cannot be a master"},
		// bond_enslave: the slave must be down.
		{"master/bond-slave-up", nil, func() error { return h.LinkSetMaster("va", "bond0") }, syscall.EPERM, "Device can not be enslaved while up"},
		// bond_enslave: bond_dev == slave_dev,
		{"master/bond-itself", nil, func() error { return h.LinkSetMaster("bond0", "bond0") }, syscall.EPERM, "Cannot enslave bond to itself."},
		// whether the bond is up or not.
		{"master/bond-down-itself", nil, func() error { return h.LinkSetMaster("bond2", "bond2") }, syscall.EPERM, "Cannot enslave bond to itself."},
		// bond_enslave: a vrf is a master of another type.
		{"master/vrf-into-bond", nil, func() error { return h.LinkSetMaster("vrf1", "bond0") }, syscall.EPERM, "Device type (master device) cannot be enslaved"},
		// bond_enslave: a macvlan lower's rx_handler is taken.
		{"master/bond-macvlan-lower", nil, func() error { return h.LinkSetMaster("d0", "bond2") }, syscall.EBUSY, "Device is in use"},
		// bond_enslave: loopback is not an Ethernet device.
		{"master/bond-lo", nil, func() error { return h.LinkSetMaster("lo", "bond2") }, syscall.EINVAL, "Device type is different"},
		// __netdev_upper_dev_link: bond2 is above bond1 already.
		{"master/bond-loop", nil, func() error { return h.LinkSetMaster("bond2", "bond1") }, syscall.EBUSY, "stacked on it"},
		// A vlan of bond0 into bond0: a loop too.
		{"master/vlan-into-its-bond", nil, func() error { return h.LinkSetMaster("bv6", "bond0") }, syscall.EBUSY, "stacked on it"},
		// vlan_dev_open would fail (vd's lower is down): refused before
		// anything changes, with or without slaves in the bond.
		{"master/bond-vlan-lower-down", nil, func() error { return h.LinkSetMaster("vd", "bond3") }, syscall.ENETDOWN, "Lower device is down"},
		{"master/bond-vlan-lower-down-2", nil, func() error { return h.LinkSetMaster("vd", "bond0") }, syscall.ENETDOWN, "Lower device is down"},
		// macvlan_open fails inside bond_enslave (mv0 uses mvdup's
		// address): bond3, which had taken mvdup's address as its first
		// slave's, gets its own back.
		{"master/bond-slave-open-fails", nil, func() error { return h.LinkSetMaster("mvdup", "bond3") }, syscall.EADDRINUSE, "in use"},
		// vrf_add_slave: an L3 master cannot be a port.
		{"master/vrf-into-vrf", nil, func() error { return h.LinkSetMaster("vrf1", "vrf0") }, syscall.EINVAL, "Can not enslave an L3 master device to a VRF"},
		// A vrf into itself: an L3 master too.
		{"master/vrf-itself", nil, func() error { return h.LinkSetMaster("vrf0", "vrf0") }, syscall.EINVAL, "L3 master"},
		// do_vrf_add_slave: not loopback.
		{"master/vrf-lo", nil, func() error { return h.LinkSetMaster("lo", "vrf0") }, syscall.EOPNOTSUPP, "Can not enslave loopback device to a VRF"},
		// Moving p0 (up) from vrf0 to bond0: bond0 refuses an up device, and
		// p0 stays in vrf0.
		{"master/move-refused", nil, func() error { return h.LinkSetMaster("p0", "bond0") }, syscall.EPERM, "while up"},
		// Moving s0 out of bond0 to a device that takes no slaves: s0 stays.
		{"master/move-to-non-master", nil, func() error { return h.LinkSetMaster("s0", "d1") }, syscall.EOPNOTSUPP, "cannot be a master"},
		// No such device.
		{"nomaster/unknown", nil, func() error { return h.LinkSetNoMaster("nope") }, syscall.ENODEV, "Cannot find device"},

		// ---- LinkSetGroup ----
		{"group/unknown", nil, func() error { return h.LinkSetGroup("nope", 3) }, syscall.ENODEV, "Cannot find device"},

		// ---- LinkSetMTU (dev_set_mtu_ext) ----
		{"mtu/unknown", nil, func() error { return h.LinkSetMTU("nope", 1500) }, syscall.ENODEV, "Cannot find device"},
		// dev_validate_mtu: below veth's min_mtu.
		{"mtu/veth-low", nil, func() error { return h.LinkSetMTU("va", 67) }, syscall.EINVAL, "mtu less than device minimum"},
		// dev_validate_mtu: above veth's max_mtu.
		{"mtu/veth-high", nil, func() error { return h.LinkSetMTU("va", 65536) }, syscall.EINVAL, "mtu greater than device maximum"},
		// Negative: below any minimum.
		{"mtu/negative", nil, func() error { return h.LinkSetMTU("d0", -1) }, syscall.EINVAL, "mtu less than device minimum"},
		// A vrf's minimum is IPV6_MIN_MTU.
		{"mtu/vrf-low", nil, func() error { return h.LinkSetMTU("vrf0", 1279) }, syscall.EINVAL, "mtu less than device minimum"},
		// vlan_dev_change_mtu: above the lower's MTU is ERANGE.
		{"mtu/vlan-above-lower", nil, func() error { return h.LinkSetMTU("v10", 1501) }, syscall.ERANGE, ""},
		// macvlan_change_mtu: above the lower's MTU is EINVAL.
		{"mtu/macvlan-above-lower", nil, func() error { return h.LinkSetMTU("mv0", 1501) }, syscall.EINVAL, ""},

		// ---- LinkSetName (dev_change_name) ----
		{"name/unknown", nil, func() error { return h.LinkSetName("nope", "x") }, syscall.ENODEV, "Cannot find device"},
		// dev_get_valid_name: EEXIST.
		{"name/taken", nil, func() error { return h.LinkSetName("d1", "g9") }, syscall.EEXIST, `"g9" already exists`},
		// IFLA_IFNAME policy.
		{"name/too-long", nil, func() error { return h.LinkSetName("d1", long) }, syscall.ERANGE, "Attribute failed policy validation"},
		// dev_valid_name.
		{"name/invalid", nil, func() error { return h.LinkSetName("d1", "a/b") }, syscall.EINVAL, "Invalid device name"},
		// An empty name.
		{"name/empty", nil, func() error { return h.LinkSetName("d1", "") }, syscall.EINVAL, "Device name is required"},
		// __dev_alloc_name: %x is not %d.
		{"name/bad-template", nil, func() error { return h.LinkSetName("d1", "x%x") }, syscall.EINVAL, "Invalid device name template"},

		// ---- LinkSetHardwareAddr ----
		{"mac/unknown", nil, func() error { return h.LinkSetHardwareAddr("nope", mustMAC("02:00:00:00:00:01")) }, syscall.ENODEV, "Cannot find device"},
		// eth_prepare_mac_addr_change → is_valid_ether_addr: not multicast,
		{"mac/multicast", nil, func() error { return h.LinkSetHardwareAddr("d1", mustMAC("03:00:00:00:00:01")) }, syscall.EADDRNOTAVAIL, "multicast"},
		// is_valid_ether_addr: not all zeros.
		{"mac/zero", nil, func() error { return h.LinkSetHardwareAddr("d1", netdev.MAC{}) }, syscall.EADDRNOTAVAIL, "all-zero"},
		// Loopback's address cannot change.
		{"mac/lo", nil, func() error { return h.LinkSetHardwareAddr("lo", mustMAC("02:00:00:00:00:01")) }, syscall.EOPNOTSUPP, "changing its address"},

		// ---- LinkByName, GetLink by index ----
		{"get/unknown", nil, func() error { _, err := h.LinkByName("nope"); return err }, syscall.ENODEV, "Cannot find device"},
		// rtnl_getlink by ifi_index.
		{"get-index/unknown", nil, func() error { _, err := h.GetLink(rtnl.LinkGetRequest{Index: 999}); return err }, syscall.ENODEV, "No device with ifindex 999"},

		// ---- AddrAdd (inet_rtm_newaddr, inet6_rtm_newaddr) ----
		{"addr/unknown-dev", nil, func() error { return h.AddrAdd("nope", pfx("192.0.2.9/24")) }, syscall.ENODEV, "Cannot find device"},
		// AddrAddWith resolves the device the same way,
		{"addr-with/unknown-dev", nil, func() error { return h.AddrAddWith("nope", netdev.Addr{Prefix: pfx("192.0.2.9/24")}) }, syscall.ENODEV, "Cannot find device"},
		// and refuses a zero Addr.
		{"addr-with/invalid-prefix", nil, func() error { return h.AddrAddWith("d0", netdev.Addr{}) }, syscall.EINVAL, "Invalid prefix"},
		// The zero netip.Prefix is not a prefix.
		{"addr/invalid-prefix", nil, func() error { return h.AddrAdd("d0", netip.Prefix{}) }, syscall.EINVAL, "Invalid prefix"},
		// __inet_insert_ifa: the same local address in the same subnet.
		{"addr/v4-exists", nil, func() error { return h.AddrAdd("d0", pfx("192.0.2.1/24")) }, syscall.EEXIST, "ipv4: Address already assigned"},
		// __inet_insert_ifa: the subnet's primary has another scope.
		{"addr/v4-scope", nil, func() error {
			return h.AddrAddWith("d0", netdev.Addr{Prefix: pfx("192.0.2.7/24"), Scope: netdev.ScopeLink})
		}, syscall.EINVAL, "ipv4: Invalid scope value"},
		// An IPv4 address with an IPv6 broadcast address.
		{"addr/v4-broadcast-v6", nil, func() error {
			return h.AddrAddWith("d0", netdev.Addr{Prefix: pfx("198.51.100.1/24"), Broadcast: netip.MustParseAddr("::1")})
		}, syscall.EINVAL, "Invalid broadcast"},
		// ipv6_add_addr_hash: the address, whatever its prefix length.
		{"addr/v6-exists", nil, func() error { return h.AddrAdd("d0", pfx("2001:db8::1/64")) }, syscall.EEXIST, "address already assigned"},
		// The match is on the address alone: EEXIST with another prefix length.
		{"addr/v6-exists-other-plen", nil, func() error { return h.AddrAdd("d0", pfx("2001:db8::1/128")) }, syscall.EEXIST, "address already assigned"},
		// ipv6_add_addr: ::, multicast, and a loopback address off lo.
		{"addr/v6-unspecified", nil, func() error { return h.AddrAdd("d0", pfx("::/64")) }, syscall.EADDRNOTAVAIL, "Invalid address"},
		// ipv6_add_addr: multicast without IFA_F_MCAUTOJOIN.
		{"addr/v6-multicast", nil, func() error { return h.AddrAdd("d0", pfx("ff02::5/64")) }, syscall.EADDRNOTAVAIL, "multicast"},
		// ipv6_add_addr: ::1 only on lo or an L3 master.
		{"addr/v6-loopback-on-dummy", nil, func() error { return h.AddrAdd("d0", pfx("::1/128")) }, syscall.EADDRNOTAVAIL, "loopback address"},
		// An IPv4-mapped address is not an IPv6 interface address here.
		{"addr/v6-4in6", nil, func() error { return h.AddrAdd("d0", pfx("::ffff:192.0.2.1/128")) }, syscall.EINVAL, "Invalid prefix"},
		// A device whose MTU is below IPV6_MIN_MTU has no inet6_dev.
		// inet6_addr_add with disable_ipv6.
		{"addr/v6-disabled", nil, func() error { return h.AddrAdd("dnov6", pfx("2001:db8:5::1/64")) }, syscall.EACCES, "IPv6 is disabled"},
		// ipv6_add_dev refuses to create IPv6 state below IPV6_MIN_MTU.
		{"addr/v6-mtu-too-small", nil, func() error { return h.AddrAdd("dsmall", pfx("2001:db8:5::1/64")) }, syscall.EINVAL, "MTU of at least 1280"},

		// ---- AddrDel (inet_rtm_deladdr, inet6_rtm_deladdr) ----
		{"deladdr/unknown-dev", nil, func() error { return h.AddrDel("nope", pfx("192.0.2.1/24")) }, syscall.ENODEV, "Cannot find device"},
		// The zero netip.Prefix.
		{"deladdr/invalid-prefix", nil, func() error { return h.AddrDel("d0", netip.Prefix{}) }, syscall.EINVAL, "Invalid prefix"},
		// inet_rtm_deladdr: no such address.
		{"deladdr/v4-absent", nil, func() error { return h.AddrDel("d0", pfx("192.0.2.2/24")) }, syscall.EADDRNOTAVAIL, "ipv4: Address not found"},
		// IPv4 matches local address and prefix length.
		{"deladdr/v4-other-plen", nil, func() error { return h.AddrDel("d0", pfx("192.0.2.1/25")) }, syscall.EADDRNOTAVAIL, "ipv4: Address not found"},
		// The address is on d0, not d1.
		{"deladdr/v4-other-dev", nil, func() error { return h.AddrDel("d1", pfx("192.0.2.1/24")) }, syscall.EADDRNOTAVAIL, "ipv4: Address not found"},
		// inet6_addr_del matches address and prefix length.
		{"deladdr/v6-other-plen", nil, func() error { return h.AddrDel("d0", pfx("2001:db8::1/128")) }, syscall.EADDRNOTAVAIL, "address not found"},
		// inet6_addr_del: no such address.
		{"deladdr/v6-absent", nil, func() error { return h.AddrDel("d0", pfx("2001:db8::2/64")) }, syscall.EADDRNOTAVAIL, "address not found"},
		// inet6_addr_del: no inet6_dev: ENXIO.
		{"deladdr/v6-no-idev", nil, func() error { return h.AddrDel("dsmall", pfx("2001:db8::1/64")) }, syscall.ENXIO, "IPv6 is disabled"},

		// ---- AddrList ----
		{"addrlist/bad-family", nil, func() error { _, err := h.AddrList("", 99); return err }, syscall.EAFNOSUPPORT, "Unknown address family 99"},
		// No such device.
		{"addrlist/unknown-dev", nil, func() error { _, err := h.AddrList("nope", rt.FamilyUnspec); return err }, syscall.ENODEV, "Cannot find device"},

		// ---- Sysctl ----
		{"sysctl/unknown-key", nil, func() error { return h.Sysctl("net.core.somaxconn", "1") }, syscall.ENOENT, "not modelled"},
		// A leaf netsim does not model.
		{"sysctl/unknown-leaf", nil, func() error { return h.Sysctl("net.ipv6.conf.all.hop_limit", "1") }, syscall.ENOENT, "not modelled"},
		// A device's IPv4 sysctls: forwarding only.
		{"sysctl/ipv4-per-device", nil, func() error { return h.Sysctl("net.ipv4.conf.d0.promote_secondaries", "1") }, syscall.ENOENT, "not modelled"},
		{"sysctl/ipv4-unknown-device", nil, func() error { return h.Sysctl("net.ipv4.conf.nope.forwarding", "1") }, syscall.ENOENT, "no device nope"},
		// net.ipv6.conf.DEV for a device that does not exist.
		{"sysctl/unknown-device", nil, func() error { return h.Sysctl("net.ipv6.conf.nope.forwarding", "1") }, syscall.ENOENT, "no device nope"},
		// Not an integer,
		{"sysctl/bad-value", nil, func() error { return h.Sysctl("net.ipv6.conf.all.forwarding", "yes") }, syscall.EINVAL, "invalid value"},
		// nor is an empty value.
		{"sysctl/empty-value", nil, func() error { return h.Sysctl("net.ipv6.conf.all.forwarding", "") }, syscall.EINVAL, "invalid value"},

		// ---- NewNet, DelNet ----
		{"netns/new-duplicate", nil, func() error { _, err := k.NewNet(r.t, "blue"); return err }, syscall.EEXIST, "File exists"},
		// `ip netns add` needs a name,
		{"netns/new-empty", nil, func() error { _, err := k.NewNet(r.t, ""); return err }, syscall.EINVAL, "Invalid netns name"},
		// that is a file name,
		{"netns/new-slash", nil, func() error { _, err := k.NewNet(r.t, "a/b"); return err }, syscall.EINVAL, "Invalid netns name"},
		// and not . or ..
		{"netns/new-dotdot", nil, func() error { _, err := k.NewNet(r.t, ".."); return err }, syscall.EINVAL, "Invalid netns name"},
		// `ip netns del` of a name that does not exist,
		{"netns/del-unknown", nil, func() error { return k.DelNet(r.t, "nope") }, syscall.ENOENT, "No such file or directory"},
		// of init_net, which has none,
		{"netns/del-init", nil, func() error { return k.DelNet(r.t, "") }, syscall.ENOENT, "No such file or directory"},
		// or of one already deleted.
		{"netns/del-deleted", nil, func() error { return k.DelNet(r.t, "gone") }, syscall.ENOENT, "No such file or directory"},

		// ---- requests in a deleted namespace ----
		{"gone/link-add", nil, func() error { return gone.LinkAdd(netdev.Dummy{Name: "y0"}) }, syscall.ENOENT, `"gone" has been deleted`},
		// Every request in a deleted namespace fails the same way.
		{"gone/link-del", nil, func() error { return gone.LinkDel("x0") }, syscall.ENOENT, "has been deleted"},
		{"gone/link-del-group", nil, func() error { return gone.LinkDelGroup(1) }, syscall.ENOENT, "has been deleted"},
		{"gone/link-del-list", nil, func() error { return gone.LinkDelList([]netdev.IfIndex{2}) }, syscall.ENOENT, "has been deleted"},
		{"gone/link-up", nil, func() error { return gone.LinkSetUp("lo") }, syscall.ENOENT, "has been deleted"},
		{"gone/link-down", nil, func() error { return gone.LinkSetDown("lo") }, syscall.ENOENT, "has been deleted"},
		{"gone/link-master", nil, func() error { return gone.LinkSetMaster("x0", "lo") }, syscall.ENOENT, "has been deleted"},
		{"gone/link-group", nil, func() error { return gone.LinkSetGroup("lo", 1) }, syscall.ENOENT, "has been deleted"},
		{"gone/link-mtu", nil, func() error { return gone.LinkSetMTU("lo", 1500) }, syscall.ENOENT, "has been deleted"},
		{"gone/link-list", nil, func() error { _, err := gone.LinkList(); return err }, syscall.ENOENT, "has been deleted"},
		{"gone/addr-add", nil, func() error { return gone.AddrAdd("lo", pfx("10.0.0.1/8")) }, syscall.ENOENT, "has been deleted"},
		{"gone/addr-del", nil, func() error { return gone.AddrDel("lo", pfx("127.0.0.1/8")) }, syscall.ENOENT, "has been deleted"},
		{"gone/link-del-index", nil, func() error { return gone.DelLink(rtnl.LinkRequest{Index: 2}) }, syscall.ENOENT, "has been deleted"},
		{"gone/link-nomaster", nil, func() error { return gone.LinkSetNoMaster("lo") }, syscall.ENOENT, "has been deleted"},
		{"gone/link-name", nil, func() error { return gone.LinkSetName("x0", "x1") }, syscall.ENOENT, "has been deleted"},
		{"gone/link-mac", nil, func() error { return gone.LinkSetHardwareAddr("x0", mustMAC("02:00:00:00:00:01")) }, syscall.ENOENT, "has been deleted"},
		{"gone/link-by-name", nil, func() error { _, err := gone.LinkByName("lo"); return err }, syscall.ENOENT, "has been deleted"},
		{"gone/link-by-index", nil, func() error { _, err := gone.GetLink(rtnl.LinkGetRequest{Index: 1}); return err }, syscall.ENOENT, "has been deleted"},
		{"gone/addr-add-with", nil, func() error {
			return gone.AddrAddWith("lo", netdev.Addr{Prefix: pfx("10.0.0.1/8"), Label: "lo:1"})
		}, syscall.ENOENT, "has been deleted"},
		{"gone/addr-list", nil, func() error { _, err := gone.AddrList("", rt.FamilyUnspec); return err }, syscall.ENOENT, "has been deleted"},
		{"gone/sysctl", nil, func() error { return gone.Sysctl("net.ipv6.conf.all.forwarding", "1") }, syscall.ENOENT, "has been deleted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rr := c.rig
			if rr == nil {
				rr = r
			}
			want := snapshot(t, rr.k, rr.t)
			err := c.call()
			require.Error(t, err)
			require.ErrorIs(t, err, c.errno, "got %v", err)
			if c.msg == "" {
				// The kernel sends no extack message for it.
				var e *errno.Error
				require.ErrorAs(t, err, &e)
				require.Empty(t, e.Msg)
			} else {
				require.ErrorContains(t, err, c.msg)
			}
			var en syscall.Errno
			require.True(t, errors.As(err, &en))
			require.Zero(t, rr.k.World().RCU().Pending(), "the rejected request queued RCU callbacks")
			require.Equal(t, want, snapshot(t, rr.k, rr.t), "the rejected request changed the kernel")
		})
	}

	// Nor did they change what the kernel will do next: the next device
	// gets the same ifindexes and random addresses as in the twin kernel.
	probe := func(r *rig) []rtnl.LinkInfo {
		r.ok(r.h.LinkAdd(netdev.Veth{Name: "probe0", Peer: "probe1"}))
		r.ok(r.h.LinkAdd(netdev.Bond{Name: "probe2"}))
		return []rtnl.LinkInfo{r.link("probe0"), r.link("probe1"), r.link("probe2")}
	}
	require.Equal(t, probe(twin), probe(r))
}
