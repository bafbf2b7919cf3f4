package netdev_test

import (
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/stretchr/testify/require"
)

// TestCarrierChanges: the count of carrier changes follows the kernel's
// carrier bit, as measured on Linux 6.18: a veth's goes off when it is
// registered and on and off with the pair; a macvlan's follows its lower
// device's from the carrier it was created with; a bridge keeps its
// carrier until it has a port.
//
// Kernel: netif_carrier_on / netif_carrier_off (net/sched/sch_generic.c),
// veth_newlink, veth_open, veth_close (drivers/net/veth.c),
// br_port_state_selection (net/bridge/br_stp.c).
func TestCarrierChanges(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(
		netdev.Veth{Name: "va", Peer: "vb"},
		netdev.Macvlan{Name: "mv", Link: "va"},
		netdev.Bridge{Name: "br0"},
	)
	count := func() [4]uint32 {
		var c [4]uint32
		for i, n := range []string{"va", "vb", "mv", "br0"} {
			c[i] = e.dev(n).CarrierChanges()
		}
		return c
	}
	require.Equal(t, [4]uint32{1, 1, 0, 0}, count())

	e.up("va") // the peer is down: still no carrier
	require.Equal(t, [4]uint32{1, 1, 0, 0}, count())
	e.up("vb") // both up: on, on, and the macvlan follows va
	require.Equal(t, [4]uint32{2, 2, 1, 0}, count())
	e.down("vb")
	require.Equal(t, [4]uint32{3, 3, 2, 0}, count())
	e.up("br0") // no port: the bridge keeps its carrier
	require.Equal(t, [4]uint32{3, 3, 2, 0}, count())
	e.master("vb", "br0") // a port that is down: off
	require.Equal(t, [4]uint32{3, 3, 2, 1}, count())
}

// TestBridgeCarrier: a bridge has the carrier alloc_netdev gave it, and
// the UNKNOWN operstate of a device whose carrier never changed, until
// br_port_state_selection first runs; from then on it has carrier while a
// port forwards. The counts are those Linux 6.18 reports (see
// iproute/testdata/bridge_carrier.txt).
//
// Kernel: br_port_state_selection, br_stp_change_bridge_id,
// br_stp_set_bridge_priority, br_stp_start (net/bridge/br_stp*.c);
// rfc2863_policy (net/core/link_watch.c).
func TestBridgeCarrier(t *testing.T) {
	type state struct {
		carrier bool
		oper    netdev.OperState
		changes uint32
	}
	e := newEnv(t, netdev.Config{})
	of := func(name string) state {
		d := e.dev(name)
		return state{d.Carrier(), d.OperState(), d.CarrierChanges()}
	}
	prio, stp := uint16(0x8000), uint32(1)
	e.add(
		netdev.Bridge{Name: "br0"},
		netdev.Veth{Name: "va", Peer: "vb", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:0a")}},
		netdev.Bridge{Name: "br1", Attrs: netdev.Attrs{Addr: mac("02:00:00:00:00:b1")}},
		netdev.Bridge{Name: "br2", Settings: netdev.BridgeSettings{Priority: &prio}},
		netdev.Bridge{Name: "br3", Settings: netdev.BridgeSettings{STPState: &stp}},
		netdev.Bridge{Name: "br4"},
	)
	require.Equal(t, uint32(0), e.dev("br0").CarrierChanges())
	e.up("br0", "br1", "br2", "br3", "br4")
	require.Equal(t, state{true, netdev.OperUnknown, 0}, of("br0"))
	// Created with an address, a priority, STP: selected with no port.
	for _, n := range []string{"br1", "br2", "br3"} {
		require.Equal(t, state{false, netdev.OperDown, 1}, of(n), n)
	}
	// A later address or priority does the same.
	e.do(func() error { return e.dev("br4").SetAddr(e.t, mac("02:00:00:00:00:b4")) })
	require.Equal(t, state{false, netdev.OperDown, 1}, of("br4"))

	// br0 takes its first port's address while the port is disabled
	// (off), then the port forwards (on).
	e.up("va", "vb")
	e.master("vb", "br0")
	require.Equal(t, state{true, netdev.OperUp, 2}, of("br0"))
	e.do(func() error { return e.dev("vb").SetMaster(e.t, nil) })
	require.Equal(t, state{false, netdev.OperDown, 3}, of("br0"))
	e.master("vb", "br0")
	require.Equal(t, state{true, netdev.OperUp, 4}, of("br0"))
	e.down("va") // the port's operstate drops: disabled
	require.Equal(t, state{false, netdev.OperDown, 5}, of("br0"))
	e.down("br0")
	e.up("va", "br0")
	require.Equal(t, state{true, netdev.OperUp, 6}, of("br0"))
}
