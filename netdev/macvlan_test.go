package netdev_test

import (
	"testing"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/stretchr/testify/require"
)

// TestMacvlanPassthruEvents: a passthru macvlan that is up takes its
// lower's new address without a filter entry on the lower (the lower is
// promiscuous instead) and without a NETDEV_CHANGEADDR of its own
// (macvlan_sync_address writes the address directly); setting the
// macvlan's address is the lower's change first, then the macvlan's own
// notification (dev_set_mac_address on each).
//
// Kernel: macvlan_device_event, macvlan_set_mac_address (drivers/net/macvlan.c).
func TestMacvlanPassthruEvents(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	a := hwaddr.MustParseAddr("02:00:00:00:00:0a")
	e.add(netdev.Veth{Name: "va", Peer: "vb", Attrs: netdev.Attrs{Addr: a}},
		netdev.Macvlan{Name: "mp", Link: "va", Mode: netdev.MacvlanPassthru})
	e.up("va", "vb", "mp")
	va, mp := e.dev("va"), e.dev("mp")
	require.Equal(t, a, mp.Addr())
	require.Equal(t, 1, va.Promiscuity())
	ucBefore := va.UC().Entries()
	e.rec.take()

	b := hwaddr.MustParseAddr("02:00:00:00:00:0b")
	e.do(func() error { return va.SetAddr(e.t, b) })
	require.Equal(t, b, mp.Addr())
	require.Equal(t, []string{"NETDEV_CHANGEADDR va"}, e.rec.take("va", "mp"))

	c := hwaddr.MustParseAddr("02:00:00:00:00:0c")
	e.do(func() error { return mp.SetAddr(e.t, c) })
	require.Equal(t, c, va.Addr())
	require.Equal(t, c, mp.Addr())
	require.Equal(t, []string{"NETDEV_CHANGEADDR va", "NETDEV_CHANGEADDR mp"}, e.rec.take("va", "mp"))
	require.Equal(t, ucBefore, va.UC().Entries(), "a passthru macvlan puts no address in its lower's list")

	// The macvlan goes: its lower gets back b, the address it last set
	// itself, with a notification.
	e.del("mp")
	require.Equal(t, b, va.Addr())
	require.Contains(t, e.rec.take("va"), "NETDEV_CHANGEADDR va")
	require.Equal(t, 0, va.Promiscuity())
	require.NoError(t, e.tbl.CheckInvariants())
}

// TestTxQueueLenAndAlias: the u32 IFLA_TXQLEN and the alias, as the device
// keeps them.
func TestTxQueueLenAndAlias(t *testing.T) {
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Dummy{Name: "d0", Attrs: netdev.Attrs{TxQueueLen: -1}},
		netdev.Dummy{Name: "d1", Attrs: netdev.Attrs{Zero: netdev.AttrTxQueueLen}})
	require.Equal(t, 1<<32-1, e.dev("d0").TxQueueLen())
	require.Equal(t, 0, e.dev("d1").TxQueueLen())
	d := e.dev("d1")
	e.do(func() error { d.SetTxQueueLen(e.t, 1<<32+3); return nil })
	require.Equal(t, 3, d.TxQueueLen())
	e.do(func() error { return d.SetAlias(e.t, "a\x00b") })
	require.Equal(t, "a", d.Alias())
	require.Error(t, d.SetAlias(e.t, string(make([]byte, netdev.IFALIASZ))))
	require.Equal(t, "a", d.Alias())
	require.Equal(t, -1, netdev.NetlinkMTU(1<<32-1))
	require.Equal(t, 0, netdev.NetlinkMTU(1<<32))
	require.Equal(t, 1500, netdev.NetlinkMTU(1500))
}
