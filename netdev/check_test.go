package netdev_test

import (
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/stretchr/testify/require"
)

// TestVethPeerTakesRequestedIndex: a veth whose peer has no requested
// ifindex registers the peer first, with the next free ifindex; when the
// other end asks for that very ifindex, its registration fails with EBUSY
// and the request is unwound, as veth_newlink does (drivers/net/veth.c).
// It used to panic after validation ("register after validation").
func TestVethPeerTakesRequestedIndex(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Dummy{Name: "d0"}) // ifindex 2: the next free one is 3
	err := e.try(func() error {
		_, err := e.tbl.NewLink(e.t, netdev.Veth{Name: "va", Peer: "vb", Attrs: netdev.Attrs{Index: 3}})
		return err
	})
	require.ErrorIs(t, err, syscall.EBUSY)
	require.Equal(t, []string{"lo", "d0"}, e.names())
	require.NoError(t, e.tbl.CheckInvariants())

	// The peer's own requested ifindex is checked the same way, and a pair
	// that fits registers the peer first.
	e.add(netdev.Veth{Name: "va", Peer: "vb", Attrs: netdev.Attrs{Index: 4}})
	require.Equal(t, netdev.IfIndex(3), e.dev("vb").Index())
	require.Equal(t, netdev.IfIndex(4), e.dev("va").Index())
	require.NoError(t, e.tbl.CheckInvariants())
}

// TestCheckInvariants runs the table checker over a stack of every kind of
// device and over devices released by deletion.
func TestCheckInvariants(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Dummy{Name: "d0"}, netdev.Veth{Name: "va", Peer: "vb"}, netdev.Bond{Name: "b0"},
		netdev.VRF{Name: "vrf0", Table: 10})
	e.add(netdev.Macvlan{Name: "mv0", Link: "d0", Mode: netdev.MacvlanBridge}, netdev.Vlan{Name: "vl5", Link: "b0", ID: 5})
	e.master("va", "b0")
	e.up("d0", "va", "vb", "b0", "mv0", "vl5", "vrf0")
	e.addAddr("vl5", "2001:db8::1/64")
	e.addAddr("mv0", "192.0.2.1/24")
	e.master("vl5", "vrf0")
	require.NoError(t, e.tbl.CheckInvariants())
	gone := []*netdev.Device{e.dev("b0"), e.dev("vl5"), e.dev("va"), e.dev("vb")}
	e.del("b0")
	e.del("va")
	e.w.Settle()
	require.NoError(t, e.tbl.CheckInvariants())
	for _, d := range gone {
		require.NoError(t, netdev.CheckReleased(d), d.Name())
	}
	require.Error(t, netdev.CheckReleased(e.dev("d0")))
}
