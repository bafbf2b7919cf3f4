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

// TestFailedEnslaveKeepsAddresses: a bond's last release gives it a new
// address without NETDEV_CHANGEADDR (__bond_release_one), so a vlan on it
// keeps the address it followed. An enslave that then fails (the slave
// cannot take the bond's MTU) must leave that vlan's address alone too,
// although the bond took the slave's address and gave it back, each time
// with NETDEV_CHANGEADDR. It used to leave the vlan with the bond's address.
func TestFailedEnslaveKeepsAddresses(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Bond{Name: "b0"}, netdev.Dummy{Name: "s0"}, netdev.Dummy{Name: "d0", Attrs: netdev.Attrs{MTU: 1280}})
	e.add(netdev.Vlan{Name: "x0", Link: "b0", ID: 5}, netdev.Macvlan{Name: "mv0", Link: "d0"})
	e.master("s0", "b0") // the bond and x0 take s0's address
	e.do(func() error { return e.dev("s0").SetMaster(e.t, nil) })
	x0 := e.dev("x0").Addr()
	require.NotEqual(t, e.dev("b0").Addr(), x0, "the release gave the bond a new address")

	err := e.try(func() error { return e.dev("mv0").SetMaster(e.t, e.dev("b0")) })
	require.ErrorIs(t, err, syscall.EINVAL) // mv0 cannot take MTU 1500 above d0's 1280
	require.Equal(t, x0, e.dev("x0").Addr())
	require.NoError(t, e.tbl.CheckInvariants())
}
