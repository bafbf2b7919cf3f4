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
