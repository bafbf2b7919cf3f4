package rtnl_test

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

// requireErr checks an error's errno and its whole extack message ("" when
// the kernel sends none).
func requireErr(t *testing.T, err error, en syscall.Errno, msg string) {
	t.Helper()
	require.ErrorIs(t, err, en)
	var e *errno.Error
	require.True(t, errors.As(err, &e), "got %T %v", err, err)
	require.Equal(t, msg, e.Msg)
}

func mac(s string) netdev.MAC { return mustMAC(s) }

// TestLinkAlias: dev_set_alias sets, replaces and clears the alias; it is
// kept up to a NUL; IFALIASZ bytes or more fail the netlink policy.
func TestLinkAlias(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb"}))
	require.Empty(t, r.link("va").Alias)

	r.ok(r.h.LinkSetAlias("va", "uplink"))
	require.Equal(t, "uplink", r.link("va").Alias)
	r.ok(r.h.LinkSetAlias("va", "to\x00the lab"))
	require.Equal(t, "to", r.link("va").Alias)
	r.ok(r.h.LinkSetAlias("va", strings.Repeat("x", netdev.IFALIASZ-1)))
	require.Len(t, r.link("va").Alias, netdev.IFALIASZ-1)

	err := r.h.LinkSetAlias("va", strings.Repeat("y", netdev.IFALIASZ))
	requireErr(t, err, syscall.ERANGE, "Attribute failed policy validation")
	require.Len(t, r.link("va").Alias, netdev.IFALIASZ-1, "a refused alias changes nothing")

	r.ok(r.h.LinkSetAlias("va", ""))
	require.Empty(t, r.link("va").Alias)
	require.ErrorIs(t, r.h.LinkSetAlias("nothere", "x"), syscall.ENODEV)
}

// TestLinkTxQueueLen: IFLA_TXQLEN is a u32 on add and on set; 0 is a
// length, sent only when asked for with Attrs.Zero.
func TestLinkTxQueueLen(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb",
		Attrs:     netdev.Attrs{Zero: netdev.AttrTxQueueLen},
		PeerAttrs: netdev.Attrs{TxQueueLen: 5}}))
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d0"})) // no TxQueueLen: the default
	require.Equal(t, 0, r.link("va").TxQueueLen)
	require.Equal(t, 5, r.link("vb").TxQueueLen)
	require.Equal(t, 1000, r.link("d0").TxQueueLen)

	for _, c := range []struct {
		set, want int
	}{
		{7, 7},
		{0, 0},
		{-1, 1<<32 - 1}, // ip's txqueuelen -1
		{1<<32 + 9, 9},  // only the low 32 bits travel
	} {
		r.ok(r.h.LinkSetTxQueueLen("d0", c.set))
		require.Equal(t, c.want, r.link("d0").TxQueueLen, "set %d", c.set)
	}
	require.ErrorIs(t, r.h.LinkSetTxQueueLen("nothere", 1), syscall.ENODEV)
}

// TestLinkMTUEncoding: an MTU is read as IFLA_MTU carries it, a u32 the
// kernel takes as an int; an MTU of 0 is sent only with Attrs.Zero.
func TestLinkMTUEncoding(t *testing.T) {
	r := newRig(t, rtnl.After)
	// A bond's minimum is 68; dummy has none (dummy_setup), so 0 is an
	// MTU it takes, and only a negative one is too small.
	err := r.h.LinkAdd(netdev.Bond{Name: "b0", Attrs: netdev.Attrs{Zero: netdev.AttrMTU}})
	requireErr(t, err, syscall.EINVAL, "mtu less than device minimum")
	err = r.h.LinkAdd(netdev.Bond{Name: "b0", Attrs: netdev.Attrs{MTU: 1 << 32}}) // 0 on the wire
	requireErr(t, err, syscall.EINVAL, "mtu less than device minimum")
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d0", Attrs: netdev.Attrs{Zero: netdev.AttrMTU}}))
	require.Equal(t, 0, r.link("d0").MTU)
	err = r.h.LinkAdd(netdev.Dummy{Name: "d1", Attrs: netdev.Attrs{MTU: 1<<32 - 1}}) // -1 for the kernel
	requireErr(t, err, syscall.EINVAL, "mtu less than device minimum")
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d1", Attrs: netdev.Attrs{MTU: 1<<32 + 1400}}))
	require.Equal(t, 1400, r.link("d1").MTU)

	// veth_validate: outside 68..65535 is a bare EINVAL, the peer's too.
	requireErr(t, r.h.LinkAdd(netdev.Veth{Name: "va", Attrs: netdev.Attrs{Zero: netdev.AttrMTU}}), syscall.EINVAL, "")
	requireErr(t, r.h.LinkAdd(netdev.Veth{Name: "va", PeerAttrs: netdev.Attrs{MTU: 65536}}), syscall.EINVAL, "")
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb"}))

	// On set, dev_validate_mtu's extack: 0, -1 and 2^32-1 are too small.
	for _, m := range []int{0, -1, 1<<32 - 1, 1 << 32} {
		requireErr(t, r.h.LinkSetMTU("va", m), syscall.EINVAL, "mtu less than device minimum")
	}
	requireErr(t, r.h.LinkSetMTU("va", 65536), syscall.EINVAL, "mtu greater than device maximum")
	r.ok(r.h.LinkSetMTU("va", 1<<32+9000))
	require.Equal(t, 9000, r.link("va").MTU)
}

// TestLinkNameNUL: IFLA_IFNAME is copied with nla_strscpy, so a name ends
// at its first NUL, on add, on rename and when naming the device.
func TestLinkNameNUL(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "ab\x00cd"}))
	r.link("ab")
	requireErr(t, r.h.LinkAdd(netdev.Dummy{Name: "ab\x00x"}), syscall.EEXIST, `Device "ab" already exists`)
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "\x00ab"})) // empty: the kind's template
	r.link("dummy0")
	r.ok(r.h.LinkSetUp("ab\x00zz"))
	require.True(t, r.link("ab").Flags&netdev.FlagUp != 0)
	r.ok(r.h.LinkSetName("ab", "ef\x00gh"))
	r.link("ef")
}

// TestLinkAddOther: a kind by name is rtnl_link_ops_get's lookup: modelled
// kinds are created, unknown ones are "Unknown device type" (after the
// EEXIST check of an existing name), Linux kinds netsim does not model
// fail with EOPNOTSUPP.
func TestLinkAddOther(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Other{Name: "d0", Kind: "dummy", Attrs: netdev.Attrs{MTU: 1400}}))
	require.Equal(t, "dummy", r.link("d0").Kind)
	require.Equal(t, 1400, r.link("d0").MTU)

	requireErr(t, r.h.LinkAdd(netdev.Other{Name: "x0", Kind: "foo"}), syscall.EOPNOTSUPP, "Unknown device type")
	requireErr(t, r.h.LinkAdd(netdev.Other{Name: "x0", Kind: "foo", Attrs: netdev.Attrs{Zero: netdev.AttrMTU}}),
		syscall.EOPNOTSUPP, "Unknown device type")
	err := r.h.LinkAdd(netdev.Other{Name: "d0", Kind: "foo"})
	require.ErrorIs(t, err, syscall.EEXIST)
	// A vxlan by name alone has no IFLA_INFO_DATA: vxlan_validate's EINVAL.
	requireErr(t, r.h.LinkAdd(netdev.Other{Name: "vx0", Kind: "vxlan"}), syscall.EINVAL, "Required attributes not provided to perform the operation")
	require.ErrorIs(t, r.h.LinkAdd(netdev.Other{Name: "gn0", Kind: "geneve"}), syscall.EOPNOTSUPP)
	require.True(t, netdev.KnownKind("geneve"))
	r.ok(r.h.LinkAdd(netdev.Other{Name: "br0", Kind: "bridge"}))
	require.Equal(t, "bridge", r.link("br0").Kind)
	require.False(t, netdev.KnownKind("foo"))
	// A macvlan by name alone has no lower device: macvlan_common_newlink's EINVAL.
	require.ErrorIs(t, r.h.LinkAdd(netdev.Other{Name: "m0", Kind: "macvlan"}), syscall.EINVAL)
	_, err = r.h.LinkByName("x0")
	require.ErrorIs(t, err, syscall.ENODEV)
}

// TestMacvlanPassthruAddress: a passthru macvlan has its lower's address
// from creation on, follows the lower's changes, sets the lower's address
// when its own is set, and the lower gets back the address it had when
// the macvlan goes, unless it changed it itself since.
//
// Kernel: macvlan_common_newlink, macvlan_device_event NETDEV_CHANGEADDR,
// macvlan_set_mac_address, macvlan_port_destroy (drivers/net/macvlan.c).
func TestMacvlanPassthruAddress(t *testing.T) {
	r := newRig(t, rtnl.After)
	a, b := mac("02:00:00:00:00:0a"), mac("02:00:00:00:00:0b")
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb", Attrs: netdev.Attrs{Addr: a}}))
	r.ok(r.h.LinkAdd(netdev.Macvlan{Name: "mp", Link: "va", Mode: netdev.MacvlanPassthru, Attrs: netdev.Attrs{Addr: b}}))
	require.Equal(t, a, r.link("mp").Addr, "eth_hw_addr_inherit overrides the requested address")

	// The lower changes: the macvlan follows, up or down.
	r.ok(r.h.LinkSetHardwareAddr("va", mac("02:00:00:00:00:aa")))
	require.Equal(t, mac("02:00:00:00:00:aa"), r.link("mp").Addr)
	r.ok(r.h.LinkSetUp("mp"))
	r.ok(r.h.LinkSetHardwareAddr("va", mac("02:00:00:00:00:ab")))
	require.Equal(t, mac("02:00:00:00:00:ab"), r.link("mp").Addr)

	// The macvlan's own change sets the lower's address.
	r.ok(r.h.LinkSetHardwareAddr("mp", mac("02:00:00:00:00:bb")))
	require.Equal(t, mac("02:00:00:00:00:bb"), r.link("va").Addr)
	require.Equal(t, mac("02:00:00:00:00:bb"), r.link("mp").Addr)
	requireErr(t, r.h.LinkSetHardwareAddr("mp", mac("01:00:00:00:00:01")), syscall.EADDRNOTAVAIL, "Cannot assign a multicast address")

	// The port goes: the lower's last own address comes back.
	r.ok(r.h.LinkDel("mp"))
	require.Equal(t, mac("02:00:00:00:00:ab"), r.link("va").Addr)

	// Changed by the lower after the macvlan's change: nothing to restore.
	r.ok(r.h.LinkAdd(netdev.Macvlan{Name: "mq", Link: "va", Mode: netdev.MacvlanPassthru}))
	r.ok(r.h.LinkSetHardwareAddr("mq", mac("02:00:00:00:00:cc")))
	r.ok(r.h.LinkSetHardwareAddr("va", mac("02:00:00:00:00:dd")))
	r.ok(r.h.LinkDel("mq"))
	require.Equal(t, mac("02:00:00:00:00:dd"), r.link("va").Addr)
	require.NoError(t, r.k.InitNet().Devices().CheckInvariants())
}

// TestMacvlanErrors: what drivers/net/macvlan.c refuses, all without an
// extack message.
func TestMacvlanErrors(t *testing.T) {
	r := newRig(t, rtnl.After)
	m1, m2 := mac("02:00:00:00:01:01"), mac("02:00:00:00:01:02")
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:0a")}}))
	r.ok(r.h.LinkAdd(netdev.Macvlan{Name: "m1", Link: "va", Attrs: netdev.Attrs{Addr: m1}}))
	r.ok(r.h.LinkAdd(netdev.Macvlan{Name: "m2", Link: "va", Attrs: netdev.Attrs{Addr: m2}}))
	r.ok(r.h.LinkSetUp("va"))
	r.ok(r.h.LinkSetUp("m1"))

	cases := []struct {
		name string
		err  error
		en   syscall.Errno
	}{
		// macvlan_common_newlink: a passthru must be alone on its port.
		{"passthru-not-alone", r.h.LinkAdd(netdev.Macvlan{Name: "m3", Link: "va", Mode: netdev.MacvlanPassthru}), syscall.EINVAL},
		// macvlan_common_newlink: IFLA_MTU above the lower's.
		{"mtu-above-lower", r.h.LinkAdd(netdev.Macvlan{Name: "m3", Link: "va", Attrs: netdev.Attrs{MTU: 1501}}), syscall.EINVAL},
		// macvlan_change_mtu.
		{"set-mtu-above-lower", r.h.LinkSetMTU("m2", 1501), syscall.EINVAL},
		// macvlan_validate: a multicast IFLA_ADDRESS, an unknown mode.
		{"mc-address", r.h.LinkAdd(netdev.Macvlan{Name: "m3", Link: "va", Attrs: netdev.Attrs{Addr: mac("01:00:00:00:00:01")}}), syscall.EADDRNOTAVAIL},
		{"bad-mode", r.h.LinkAdd(netdev.Macvlan{Name: "m3", Link: "va", Mode: 3}), syscall.EINVAL},
		// macvlan_port_create: loopback.
		{"on-loopback", r.h.LinkAdd(netdev.Macvlan{Name: "m3", Link: "lo"}), syscall.EINVAL},
		// macvlan_addr_busy: the lower's address, an up macvlan's.
		{"addr-of-lower", r.h.LinkSetHardwareAddr("m2", mac("02:00:00:00:00:0a")), syscall.EADDRINUSE},
		{"addr-of-up-macvlan", r.h.LinkSetHardwareAddr("m2", m1), syscall.EADDRINUSE},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { requireErr(t, c.err, c.en, "") })
	}
	// macvlan_port_create: a bond's port has its rx_handler taken.
	r.ok(r.h.LinkAdd(netdev.Bond{Name: "b0"}))
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "s0"}))
	r.ok(r.h.LinkSetMaster("s0", "b0"))
	requireErr(t, r.h.LinkAdd(netdev.Macvlan{Name: "m3", Link: "s0"}), syscall.EBUSY, "Device is in use by an rx handler")
	// macvlan_common_newlink: no IFLA_LINK, or an unknown one.
	requireErr(t, r.h.LinkAdd(netdev.Macvlan{Name: "m3"}), syscall.EINVAL, "")
	requireErr(t, r.h.LinkAdd(netdev.Macvlan{Name: "m3", Link: "nope"}), syscall.ENODEV, "")

	// m2 is down: m1's address is free to take once m1 goes down, and then
	// m1 cannot come up (macvlan_open's busy check).
	r.ok(r.h.LinkSetDown("m1"))
	r.ok(r.h.LinkSetHardwareAddr("m2", m1))
	r.ok(r.h.LinkSetUp("m2"))
	requireErr(t, r.h.LinkSetUp("m1"), syscall.EADDRINUSE, "")
	require.NoError(t, r.k.InitNet().Devices().CheckInvariants())
}

// TestLinkChangeFlags: dev_change_flags under ifi_change: only the flags
// of the mask change; promisc and allmulticast show as the user set them
// and count in Promiscuity and Allmulti; flags outside netdev.UserFlags
// are not the user's to change.
func TestLinkChangeFlags(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb"}))
	r.ok(r.h.LinkChangeFlags("va", netdev.FlagPromisc|netdev.FlagAllMulti|netdev.FlagLoopback,
		netdev.FlagPromisc|netdev.FlagAllMulti|netdev.FlagNoARP|netdev.FlagLoopback))
	l := r.link("va")
	require.Equal(t, netdev.FlagBroadcast|netdev.FlagMulticast|netdev.FlagPromisc|netdev.FlagAllMulti, l.Flags)
	require.Equal(t, 1, l.Promiscuity)
	require.Equal(t, 1, l.Allmulti)

	r.ok(r.h.LinkChangeFlags("va", netdev.FlagUp|netdev.FlagNoARP, netdev.FlagUp|netdev.FlagNoARP|netdev.FlagPromisc))
	l = r.link("va")
	require.Equal(t, netdev.FlagBroadcast|netdev.FlagMulticast|netdev.FlagNoARP|netdev.FlagAllMulti|netdev.FlagUp, l.Flags)
	require.Zero(t, l.Promiscuity)

	require.ErrorIs(t, r.h.LinkChangeFlags("nothere", netdev.FlagUp, netdev.FlagUp), syscall.ENODEV)
}
