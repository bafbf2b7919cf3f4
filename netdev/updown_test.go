package netdev_test

import (
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/stretchr/testify/require"
)

// TestUpDownEvents checks the notifier events, in order, of bringing a
// device up and down, with a vlan on it that follows it. A notifier
// registered after the kernel's own sees the vlan's events, which
// vlan_device_event causes while handling the lower's, before the lower's.
//
// Kernel: dev_open / dev_close (PRE_UP, UP; GOING_DOWN, DOWN),
// vlan_device_event (net/8021q/vlan.c).
func TestUpDownEvents(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Dummy{Name: "d0"}, netdev.Vlan{Name: "v10", Link: "d0", ID: 10})
	require.Equal(t, []string{"NETDEV_REGISTER lo", "NETDEV_REGISTER d0", "NETDEV_REGISTER v10"}, e.rec.take())

	steps := []struct {
		name string
		do   func()
		want []string
	}{
		// The vlan comes up inside the lower's NETDEV_UP.
		{"up", func() { e.up("d0") }, []string{
			"NETDEV_PRE_UP d0", "NETDEV_PRE_UP v10", "NETDEV_UP v10", "NETDEV_UP d0",
		}},
		// Up again: nothing happens.
		{"up-again", func() { e.up("d0") }, nil},
		// The vlan goes down inside the lower's NETDEV_DOWN.
		{"down", func() { e.down("d0") }, []string{
			"NETDEV_GOING_DOWN d0", "NETDEV_GOING_DOWN v10", "NETDEV_DOWN v10", "NETDEV_DOWN d0",
		}},
		{"down-again", func() { e.down("d0") }, nil},
		// dev_change_name.
		{"rename", func() {
			d := e.dev("d0")
			e.do(func() error { return d.SetName(e.t, "d9") })
		}, []string{"NETDEV_CHANGENAME d9"}},
		// dev_set_mtu: the vlan is clamped to its lower's new MTU.
		{"mtu", func() {
			d := e.dev("d9")
			e.do(func() error { return d.SetMTU(e.t, 1400) })
		}, []string{"NETDEV_CHANGEMTU v10", "NETDEV_CHANGEMTU d9"}},
		// dev_set_mac_address: the vlan, which uses its lower's address,
		// follows it.
		{"address", func() {
			d := e.dev("d9")
			e.do(func() error { return d.SetAddr(e.t, mac("02:00:00:00:00:99")) })
		}, []string{"NETDEV_CHANGEADDR v10", "NETDEV_CHANGEADDR d9"}},
		// unregister_netdevice_many: the vlan is deleted in a nested batch
		// inside its lower's NETDEV_UNREGISTER.
		{"delete", func() { e.up("d9"); e.rec.take(); e.del("d9") }, []string{
			"NETDEV_GOING_DOWN d9", "NETDEV_GOING_DOWN v10", "NETDEV_DOWN v10", "NETDEV_DOWN d9",
			"NETDEV_UNREGISTER v10", "NETDEV_UNREGISTER d9",
		}},
	}
	for _, s := range steps {
		s.do()
		require.Equal(t, s.want, e.rec.take(), s.name)
	}
	require.Equal(t, []string{"lo"}, e.names())
}

// TestVethCarrier: a veth end has carrier only while both ends are up; an
// end that is up while its peer is down is LOWERLAYERDOWN, its iflink
// being the peer. The end already up hears NETDEV_CHANGE when the other
// comes up or goes down, after the NETDEV_UP of the one coming up.
//
// Kernel: veth_open / veth_close (drivers/net/veth.c), default_operstate,
// linkwatch_do_dev (net/core/link_watch.c).
func TestVethCarrier(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Veth{Name: "va", Peer: "vb"})
	va, vb := e.dev("va"), e.dev("vb")
	require.Equal(t, netdev.OperDown, va.OperState())

	e.up("va")
	require.False(t, va.Carrier())
	require.Equal(t, netdev.OperLowerLayerDown, va.OperState())
	require.Equal(t, "BROADCAST,MULTICAST,UP", va.Flags().String(), "no LOWER_UP")
	require.Empty(t, va.Inet6Addrs(), "no link-local address without carrier")

	e.rec.take()
	e.up("vb")
	require.True(t, va.Carrier())
	require.True(t, vb.Carrier())
	require.Equal(t, netdev.OperUp, va.OperState())
	require.Equal(t, netdev.OperUp, vb.OperState())
	require.Equal(t, "BROADCAST,MULTICAST,UP,LOWER_UP", va.Flags().String())
	// veth_open turns on vb's carrier, then va's: NETDEV_UP finds vb's
	// operstate not yet up, and linkwatch then sends NETDEV_CHANGE for
	// each in that order (linkwatch_fire_event, __linkwatch_run_queue).
	require.Equal(t, []string{"NETDEV_PRE_UP vb", "NETDEV_UP vb", "NETDEV_CHANGE vb", "NETDEV_CHANGE va"}, e.rec.take())
	require.Len(t, va.Inet6Addrs(), 1, "NETDEV_CHANGE gave va its link-local address")

	e.down("vb")
	require.Equal(t, netdev.OperLowerLayerDown, va.OperState())
	require.Equal(t, netdev.OperDown, vb.OperState())
	require.Equal(t, []string{"NETDEV_GOING_DOWN vb", "NETDEV_DOWN vb", "NETDEV_CHANGE va"}, e.rec.take())
}

// TestVlanFollowsLower: a vlan cannot come up while its lower is down
// (ENETDOWN); the lower going down takes its vlans down, and the lower
// coming up brings every vlan up, even one the administrator had set down.
// The vlan's carrier follows the lower's.
//
// Kernel: vlan_dev_open, vlan_device_event NETDEV_UP/NETDEV_DOWN.
func TestVlanFollowsLower(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Veth{Name: "va", Peer: "vb"}, netdev.Vlan{Name: "v10", Link: "va", ID: 10}, netdev.Vlan{Name: "v11", Link: "va", ID: 11})
	v10, v11 := e.dev("v10"), e.dev("v11")

	err := e.try(func() error { return v10.SetUp(e.t, true) })
	require.ErrorIs(t, err, syscall.ENETDOWN)
	require.False(t, v10.IsUp())

	e.up("va")
	require.True(t, v10.IsUp())
	require.True(t, v11.IsUp())
	require.Equal(t, netdev.OperLowerLayerDown, v10.OperState(), "va has no carrier while vb is down")
	e.up("vb")
	require.Equal(t, netdev.OperUp, v10.OperState())
	require.True(t, v10.Carrier())

	e.down("v11")
	e.down("va")
	require.False(t, v10.IsUp())
	require.Equal(t, netdev.OperDown, v10.OperState())
	e.up("va")
	require.True(t, v10.IsUp())
	require.True(t, v11.IsUp(), "the lower coming up brings up vlans set down by hand too")
}

// TestMacvlan: a macvlan that is up puts its address in its lower's unicast
// list (a dummy, which cannot filter unicast addresses, turns promiscuous
// for it) and takes it out when it goes down; a passthru macvlan makes its
// lower promiscuous instead. A macvlan comes up whatever its lower's state
// and follows the lower's carrier.
//
// Kernel: macvlan_open / macvlan_stop (drivers/net/macvlan.c),
// __dev_set_rx_mode (net/core/dev.c).
func TestMacvlan(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	m1, m2 := mac("02:00:00:00:01:01"), mac("02:00:00:00:01:02")
	e.add(
		netdev.Dummy{Name: "d0", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:d0")}},
		netdev.Macvlan{Name: "mv1", Link: "d0", Mode: netdev.MacvlanBridge, Attrs: netdev.Attrs{Addr: m1}},
		netdev.Macvlan{Name: "mv2", Link: "d0", Attrs: netdev.Attrs{Addr: m2}},
	)
	d0, mv1, mv2 := e.dev("d0"), e.dev("mv1"), e.dev("mv2")
	require.Equal(t, netdev.MacvlanVEPA, mv2.MacvlanMode(), "VEPA is the default")
	require.Equal(t, d0.MTU(), mv1.MTU())

	e.up("mv1")
	require.Equal(t, netdev.OperLowerLayerDown, mv1.OperState(), "a macvlan opens on a down lower")
	require.Equal(t, []string{m1.String()}, macs(d0.UC()))
	require.Zero(t, d0.Promiscuity(), "the lower is down: no rx-mode reload")

	e.up("d0", "mv2")
	require.Equal(t, netdev.OperUp, mv1.OperState())
	require.Equal(t, []string{m1.String(), m2.String()}, macs(d0.UC()))
	require.Equal(t, 1, d0.Promiscuity(), "a dummy has no unicast filter: unicast promiscuity")
	require.NotContains(t, d0.Flags().String(), "PROMISC", "dev_get_flags reports only user-set promiscuity")

	e.down("mv1")
	require.Equal(t, []string{m2.String()}, macs(d0.UC()))
	e.down("mv2")
	require.Empty(t, macs(d0.UC()))
	require.Zero(t, d0.Promiscuity())

	// Passthru: the macvlan takes its lower's address and makes it
	// promiscuous; nothing goes in the unicast list.
	e.add(netdev.Dummy{Name: "d1"}, netdev.Macvlan{Name: "mvp", Link: "d1", Mode: netdev.MacvlanPassthru})
	d1, mvp := e.dev("d1"), e.dev("mvp")
	require.Equal(t, d1.Addr(), mvp.Addr())
	e.up("d1", "mvp")
	require.Equal(t, 1, d1.Promiscuity())
	require.Empty(t, macs(d1.UC()))
	e.down("mvp")
	require.Zero(t, d1.Promiscuity())
	require.NotContains(t, d1.Flags().String(), "PROMISC")
}

// TestVlanUnicast: a vlan with its lower's address adds nothing to the
// lower's unicast list; one with an address of its own adds it while up.
// A vlan whose address was set by hand no longer follows its lower's.
//
// Kernel: vlan_dev_open / vlan_dev_stop, vlan_sync_address (net/8021q).
func TestVlanUnicast(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	own := mac("02:00:00:00:10:11")
	e.add(netdev.Dummy{Name: "d0"}, netdev.Vlan{Name: "v10", Link: "d0", ID: 10}, netdev.Vlan{Name: "v11", Link: "d0", ID: 11, Attrs: netdev.Attrs{Addr: own}})
	d0, v10, v11 := e.dev("d0"), e.dev("v10"), e.dev("v11")
	require.Equal(t, d0.Addr(), v10.Addr())
	require.Equal(t, own, v11.Addr())
	e.up("d0")
	require.True(t, v11.IsUp())
	require.Equal(t, []string{own.String()}, macs(d0.UC()))
	e.down("v11")
	require.Empty(t, macs(d0.UC()))

	// v10 set by hand: it gets a unicast entry and keeps its address when
	// the lower's changes.
	set := mac("02:00:00:00:10:10")
	e.do(func() error { return v10.SetAddr(e.t, set) })
	require.Equal(t, []string{set.String()}, macs(d0.UC()))
	e.do(func() error { return d0.SetAddr(e.t, mac("02:00:00:00:00:01")) })
	require.Equal(t, set, v10.Addr())
}

// TestMTU: a device's MTU stays within its kind's range; a vlan or macvlan
// may not exceed its lower's MTU, and shrinks with it.
//
// Kernel: dev_validate_mtu, vlan_dev_change_mtu (ERANGE),
// macvlan_change_mtu (EINVAL), vlan_device_event / macvlan_device_event
// NETDEV_CHANGEMTU.
func TestMTU(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Veth{Name: "va", Peer: "vb"}, netdev.Vlan{Name: "v10", Link: "va", ID: 10}, netdev.Macvlan{Name: "mv", Link: "va"})
	va, v10, mv := e.dev("va"), e.dev("v10"), e.dev("mv")
	lo, hi := va.MTURange()
	require.Equal(t, [2]int{68, 65535}, [2]int{lo, hi})
	lo, hi = v10.MTURange()
	require.Equal(t, [2]int{0, 65535}, [2]int{lo, hi})

	set := func(d *netdev.Device, mtu int) error { return e.try(func() error { return d.SetMTU(e.t, mtu) }) }
	require.NoError(t, set(va, 9000))
	require.Equal(t, 1500, v10.MTU(), "stacked devices keep theirs when the lower grows")
	require.NoError(t, set(v10, 9000))
	require.NoError(t, set(mv, 9000))
	require.ErrorIs(t, set(v10, 9001), syscall.ERANGE)
	require.ErrorIs(t, set(mv, 9001), syscall.EINVAL)
	require.NoError(t, set(va, 1400))
	require.Equal(t, 1400, v10.MTU())
	require.Equal(t, 1400, mv.MTU())
	require.NoError(t, set(va, 1400), "the same MTU is a no-op")
}

// TestChangeFlags: a user's flags. IFF_NOARP and IFF_MULTICAST are kept
// as given; promisc and allmulticast are the user's reference on the
// counts (gflags): shown only when the user set them, counted once
// however often set, and passed down from a macvlan to its lower while it
// is up. Bringing up in the same request comes between the two.
//
// Kernel: __dev_change_flags, dev_get_flags (net/core/dev.c).
func TestChangeFlags(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(
		netdev.Veth{Name: "va", Peer: "vb"},
		netdev.Macvlan{Name: "mv", Link: "vb", Mode: netdev.MacvlanBridge},
	)
	va, vb, mv := e.dev("va"), e.dev("vb"), e.dev("mv")
	change := func(d *netdev.Device, flags, mask netdev.Flags) {
		t.Helper()
		e.do(func() error { return d.ChangeFlags(e.t, flags, mask) })
	}

	change(va, netdev.FlagPromisc|netdev.FlagNoARP, netdev.FlagPromisc|netdev.FlagNoARP|netdev.FlagMulticast)
	require.Equal(t, netdev.FlagBroadcast|netdev.FlagNoARP|netdev.FlagPromisc, va.Flags())
	require.Equal(t, 1, va.Promiscuity())
	change(va, netdev.FlagPromisc, netdev.FlagPromisc)
	require.Equal(t, 1, va.Promiscuity(), "the user holds one reference")

	change(va, netdev.FlagUp|netdev.FlagAllMulti, netdev.FlagUp|netdev.FlagAllMulti|netdev.FlagPromisc)
	require.True(t, va.IsUp())
	require.Equal(t, netdev.FlagBroadcast|netdev.FlagNoARP|netdev.FlagAllMulti|netdev.FlagUp, va.Flags(),
		"promisc off; no carrier while vb is down")
	require.Zero(t, va.Promiscuity())
	require.Equal(t, 1, va.Allmulti())

	// A macvlan passes its promiscuity and allmulti to its lower while up;
	// the lower does not show them as its own.
	// (The macvlan's address in vb's unicast list is a reference of its
	// own: base.)
	e.up("vb", "mv")
	base := vb.Promiscuity()
	change(mv, netdev.FlagPromisc, netdev.FlagPromisc)
	require.Equal(t, base+1, vb.Promiscuity())
	require.NotContains(t, vb.Flags().String(), "PROMISC")
	require.Contains(t, mv.Flags().String(), "PROMISC")
	change(mv, 0, netdev.FlagUp)
	require.Zero(t, vb.Promiscuity(), "a closed macvlan gives its lower's references back")
	require.Contains(t, mv.Flags().String(), "PROMISC", "the user's flag stays")
}
