package netdev_test

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/stretchr/testify/require"
)

// TestBridgePorts follows a bridge through its ports' lives, as
// iproute/testdata/bridge_link.txt does on the real kernel: the bridge's
// address is its lowest port's until the user sets one (all zeros without
// ports); its MTU is its ports' smallest until the user sets one; it has
// carrier while a port forwards; its ports are promiscuous and allmulti
// while enslaved.
//
// Kernel: br_add_if, br_del_if, br_mtu_auto_adjust (net/bridge/br_if.c),
// br_stp_recalculate_bridge_id (br_stp_if.c), br_port_state_selection
// (br_stp.c).
func TestBridgePorts(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(
		netdev.Bridge{Name: "br0", Attrs: netdev.Attrs{MTU: 9000}},
		netdev.Veth{Name: "v0", Peer: "v0p", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:30")}},
		netdev.Veth{Name: "v1", Peer: "v1p", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:20"), MTU: 1400}},
	)
	br, v0, v1 := e.dev("br0"), e.dev("v0"), e.dev("v1")
	require.Equal(t, netdev.BridgeID{Prio: 0x8000}, br.BridgeInfo().BridgeID, "a new bridge's id has no address")
	require.Nil(t, v0.BridgePortInfo())

	e.master("v0", "br0")
	require.Equal(t, v0.Addr(), br.Addr(), "the first port's address")
	require.Equal(t, 1500, br.MTU(), "the port's MTU, although created with 9000")
	require.Equal(t, 1, v0.Promiscuity())
	require.Equal(t, uint8(netdev.BrStateDisabled), v0.BridgePortInfo().State)

	e.master("v1", "br0")
	require.Equal(t, v1.Addr(), br.Addr(), "the lower address of the two")
	require.Equal(t, 1400, br.MTU(), "the smaller MTU")
	require.Equal(t, uint16(2), v1.BridgePortInfo().No)
	require.Equal(t, uint16(0x8002), v1.BridgePortInfo().ID)

	e.up("br0")
	require.False(t, br.Carrier(), "no port is up")
	require.Equal(t, netdev.OperDown, br.OperState())
	e.up("v0", "v0p")
	require.Equal(t, uint8(netdev.BrStateForwarding), v0.BridgePortInfo().State, "without STP a port forwards at once")
	require.True(t, br.Carrier())
	require.Equal(t, netdev.OperUp, br.OperState())
	require.Len(t, br.Inet6Addrs(), 1, "carrier gave the bridge its link-local address")

	e.do(func() error { return v1.SetMaster(e.t, nil) })
	require.Equal(t, v0.Addr(), br.Addr(), "the remaining port's address")
	require.Equal(t, 1500, br.MTU())
	require.Equal(t, 0, v1.Promiscuity())
	require.Nil(t, v1.BridgePortInfo())

	e.do(func() error { return br.SetMTU(e.t, 1300) })
	e.do(func() error { return v0.SetMTU(e.t, 1200) })
	require.Equal(t, 1300, br.MTU(), "set by the user: ports no longer change it")

	e.down("v0p")
	require.Equal(t, uint8(netdev.BrStateDisabled), v0.BridgePortInfo().State, "the port lost carrier")
	require.False(t, br.Carrier())

	user := mac("02:00:00:00:00:b0")
	e.do(func() error { return br.SetAddr(e.t, user) })
	require.Equal(t, user, br.BridgeInfo().BridgeID.Addr)
	e.do(func() error { return v0.SetMaster(e.t, nil) })
	require.Equal(t, user, br.Addr(), "set by the user: ports no longer change it")

	e.master("v1", "br0")
	e.del("br0")
	require.Nil(t, v1.Master())
	require.Equal(t, 0, v1.Promiscuity(), "deleting the bridge released its port")
}

// TestBridgeLastPortLeaves checks that a bridge whose address came from its
// ports has the zero address when the last one leaves, and that a port
// going away is released.
//
// Kernel: br_stp_recalculate_bridge_id (net/bridge/br_stp_if.c),
// br_device_event NETDEV_UNREGISTER (net/bridge/br.c).
func TestBridgeLastPortLeaves(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(
		netdev.Bridge{Name: "br0"},
		netdev.Veth{Name: "v0", Peer: "v0p", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:30")}},
	)
	br := e.dev("br0")
	e.master("v0", "br0")
	e.del("v0")
	require.Equal(t, netdev.MAC{}, br.Addr())
	require.Empty(t, br.Slaves())
}

// TestBridgeRefusals checks br_add_if's and br_changelink's refusals, and
// that a refused request changes nothing.
func TestBridgeRefusals(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(
		netdev.Bridge{Name: "br0", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:b0")}},
		netdev.Bridge{Name: "br1"},
		netdev.Veth{Name: "v0", Peer: "v0p"},
		netdev.Macvlan{Name: "mv0", Link: "v0p"},
	)
	br := e.dev("br0")
	for _, c := range []struct {
		dev   string
		errno syscall.Errno
		msg   string
	}{
		{"br0", syscall.ELOOP, "Can not enslave a bridge to a bridge"}, // itself
		{"br1", syscall.ELOOP, "Can not enslave a bridge to a bridge"}, // another bridge
		{"lo", syscall.EINVAL, "Device type cannot be bridged"},        // not Ethernet
		{"v0p", syscall.EBUSY, "Device is in use by an rx handler"},    // macvlans hold its rx_handler
	} {
		err := e.try(func() error { return e.dev(c.dev).SetMaster(e.t, br) })
		require.ErrorIs(t, err, c.errno, c.dev)
		require.ErrorContains(t, err, c.msg, c.dev)
		require.Nil(t, e.dev(c.dev).Master(), c.dev)
	}
	require.Equal(t, 0, e.dev("v0p").Promiscuity())

	u32 := func(v uint32) *uint32 { return &v }
	u8 := func(v uint8) *uint8 { return &v }
	before := *br.BridgeInfo()
	for _, c := range []struct {
		s     netdev.BridgeSettings
		errno syscall.Errno
	}{
		{netdev.BridgeSettings{HelloTime: u32(99)}, syscall.ERANGE},
		{netdev.BridgeSettings{MaxAge: u32(4001)}, syscall.ERANGE},
		{netdev.BridgeSettings{AgeingTime: u32(5), McastIGMPVersion: u8(4)}, syscall.EINVAL}, // the ageing time stays too
		{netdev.BridgeSettings{VlanFiltering: u8(0)}, syscall.EOPNOTSUPP},
	} {
		err := e.try(func() error { return br.ChangeBridge(e.t, c.s) })
		require.ErrorIs(t, err, c.errno)
		require.Equal(t, before, *br.BridgeInfo())
	}

	// With STP on, the forward delay must be within 2 to 30 s; turning STP
	// on clamps it into that range.
	e.do(func() error {
		return br.ChangeBridge(e.t, netdev.BridgeSettings{ForwardDelay: u32(100), STPState: u32(1)})
	})
	require.Equal(t, uint32(200), br.BridgeInfo().ForwardDelay)
	require.Equal(t, uint32(1), br.BridgeInfo().STPState)
	err := e.try(func() error { return br.ChangeBridge(e.t, netdev.BridgeSettings{ForwardDelay: u32(100)}) })
	require.ErrorIs(t, err, syscall.ERANGE)
}

// TestBridgeSTPListening checks that with STP on a port that comes up
// starts listening and the bridge has no carrier (the forward-delay timers
// that would move it on are not modelled).
//
// Kernel: br_make_forwarding (net/bridge/br_stp.c).
func TestBridgeSTPListening(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	one, fd := uint32(1), uint32(100)
	e.add(
		netdev.Bridge{Name: "br0", Settings: netdev.BridgeSettings{STPState: &one, ForwardDelay: &fd}},
		netdev.Veth{Name: "v0", Peer: "v0p"},
	)
	e.master("v0", "br0")
	e.up("br0", "v0", "v0p")
	require.Equal(t, uint8(netdev.BrStateListening), e.dev("v0").BridgePortInfo().State)
	require.False(t, e.dev("br0").Carrier())
	require.Equal(t, uint32(200), e.dev("br0").BridgeInfo().ForwardDelay, "clamped when STP started")
}

// TestBridgeSnoopers checks the multicast groups a bridge joins while up
// with snooping on, in the order /proc/net/igmp lists them.
//
// Kernel: br_multicast_join_snoopers, br_multicast_toggle
// (net/bridge/br_multicast.c).
func TestBridgeSnoopers(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Bridge{Name: "br0"})
	br := e.dev("br0")
	groups := func() []string {
		var out []string
		for _, g := range br.Inet4GroupList() {
			out = append(out, g.Addr.String())
		}
		return out
	}
	require.Empty(t, groups())
	e.up("br0")
	require.Equal(t, []string{"224.0.0.1", "224.0.0.106"}, groups())
	require.Contains(t, br.Inet6Groups(), netip.MustParseAddr("ff02::6a"))
	zero := uint8(0)
	e.do(func() error { return br.ChangeBridge(e.t, netdev.BridgeSettings{McastSnooping: &zero}) })
	require.Equal(t, []string{"224.0.0.1"}, groups())
	require.NotContains(t, br.Inet6Groups(), netip.MustParseAddr("ff02::6a"))
	e.down("br0")
	require.Empty(t, groups())
	// The empty bridge had carrier, so IPv6 came up on it and took its
	// groups' link addresses down with it (as on Linux 6.18: ip maddr
	// lists no link address of a bridge taken down).
	require.Equal(t, 0, br.MC().Len())
}

// TestBridgePortSettings checks br_setport: the values a port takes, that
// a blocking port forwards at once without STP, and that a refused
// request changes nothing.
//
// Kernel: br_setport, br_set_port_state (net/bridge/br_netlink.c),
// br_port_state_selection (br_stp.c), nbp_backup_change (br_if.c).
func TestBridgePortSettings(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(
		netdev.Bridge{Name: "br0"},
		netdev.Veth{Name: "v0", Peer: "v0p"},
		netdev.Veth{Name: "v1", Peer: "v1p"},
	)
	br, v0, v1 := e.dev("br0"), e.dev("v0"), e.dev("v1")
	e.master("v0", "br0")
	e.master("v1", "br0")
	e.up("br0", "v0", "v0p")
	require.True(t, br.Carrier())

	off, on := false, true
	prio, cost, backup := uint16(63), uint32(5), v1.Index()
	e.do(func() error {
		return v0.ChangeBridgePort(e.t, netdev.BridgePortSettings{
			Priority: &prio, Cost: &cost, Learning: &off, Locked: &on, BackupPort: &backup,
		})
	})
	pi := v0.BridgePortInfo()
	require.Equal(t, uint16(0xfc01), pi.ID, "the id follows the priority")
	require.Equal(t, uint32(5), pi.Cost)
	require.False(t, pi.Learning)
	require.True(t, pi.Locked)
	require.Equal(t, v1.Index(), pi.BackupPort)

	before := *pi
	for _, c := range []struct {
		s     netdev.BridgePortSettings
		errno syscall.Errno
	}{
		{netdev.BridgePortSettings{Flood: &off, Cost: new(uint32)}, syscall.ERANGE}, // the flood flag stays too
		{netdev.BridgePortSettings{BackupPort: new(netdev.IfIndex)}, 0},             // (valid: clears; undone below)
	} {
		err := e.try(func() error { return v0.ChangeBridgePort(e.t, c.s) })
		if c.errno == 0 {
			require.NoError(t, err)
			continue
		}
		require.ErrorIs(t, err, c.errno)
		require.Equal(t, before, *v0.BridgePortInfo())
	}
	require.Zero(t, v0.BridgePortInfo().BackupPort)

	set := func(st uint8) error {
		return e.try(func() error { return v0.ChangeBridgePort(e.t, netdev.BridgePortSettings{State: &st}) })
	}
	require.NoError(t, set(netdev.BrStateDisabled))
	require.False(t, br.Carrier(), "the only forwarding port is disabled")
	require.NoError(t, set(netdev.BrStateBlocking))
	require.Equal(t, netdev.BrStateForwarding, v0.BridgePortInfo().State, "blocking forwards at once without STP")
	require.True(t, br.Carrier())
	require.ErrorIs(t, set(5), syscall.EINVAL)
	err := e.try(func() error { return v1.ChangeBridgePort(e.t, netdev.BridgePortSettings{State: new(uint8)}) })
	require.ErrorIs(t, err, syscall.ENETDOWN, "v1 is down")

	err = e.try(func() error { return e.dev("v0p").ChangeBridgePort(e.t, netdev.BridgePortSettings{}) })
	require.ErrorIs(t, err, syscall.EOPNOTSUPP)

	// A port leaving clears the backup references to it.
	e.do(func() error { return v0.ChangeBridgePort(e.t, netdev.BridgePortSettings{BackupPort: &backup}) })
	e.do(func() error { return v1.SetMaster(e.t, nil) })
	require.Zero(t, v0.BridgePortInfo().BackupPort)
}

// TestBridgePortRxHandler: a device has one rx_handler. A bridge port's is
// the bridge's, so it cannot become a macvlans' lower device (EBUSY, no
// extack), while the bridge itself, a macvlan on a non-port and a vrf slave
// (a vrf takes no rx_handler) can; a macvlan device can be a port.
func TestBridgePortRxHandler(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(
		netdev.Bridge{Name: "br0"},
		netdev.Veth{Name: "v0", Peer: "v0p"},
		netdev.VRF{Name: "vrf0", Table: 10},
		netdev.Veth{Name: "v1", Peer: "v1p"},
	)
	br := e.dev("br0")
	e.do(func() error { return e.dev("v0").SetMaster(e.t, br) })
	e.do(func() error { return e.dev("v1").SetMaster(e.t, e.dev("vrf0")) })

	err := e.try(func() error { _, err := e.tbl.NewLink(e.t, netdev.Macvlan{Name: "mv0", Link: "v0"}); return err })
	require.ErrorIs(t, err, syscall.EBUSY)
	require.ErrorContains(t, err, "Device is in use by an rx handler")
	require.Nil(t, e.tbl.ByName("mv0"))
	require.Empty(t, e.dev("v0").Uppers())

	e.add(
		netdev.Macvlan{Name: "mv1", Link: "br0"},
		netdev.Macvlan{Name: "mv2", Link: "v0p"},
		netdev.Macvlan{Name: "mv3", Link: "v1"},
	)
	e.do(func() error { return e.dev("mv2").SetMaster(e.t, br) })
	require.Equal(t, br, e.dev("mv2").Master())

	// Once v0 leaves the bridge its rx_handler is free for a macvlan port,
	// and then the bridge cannot take it back.
	e.do(func() error { return e.dev("v0").SetMaster(e.t, nil) })
	e.add(netdev.Macvlan{Name: "mv0", Link: "v0"})
	err = e.try(func() error { return e.dev("v0").SetMaster(e.t, br) })
	require.ErrorIs(t, err, syscall.EBUSY)
	require.Nil(t, e.dev("v0").Master())
}
