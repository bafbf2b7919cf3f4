package rtnl_test

import (
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

// TestLinkDetails: a dump carries what rtnl_fill_ifinfo adds for `ip -d
// -s link`: the hardware type, the queues each kind allocates, the
// segmentation limits, the address generation mode, the per-kind defaults,
// statistics that stay zero and the carrier changes since registration.
func TestLinkDetails(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb"}))
	r.ok(r.h.LinkAdd(netdev.Macvlan{Name: "mv", Link: "va", Mode: netdev.MacvlanBridge}))
	r.ok(r.h.LinkAdd(netdev.Vlan{Name: "va.5", Link: "va", ID: 5}))
	r.ok(r.h.LinkAdd(netdev.Bond{Name: "b0"}))
	r.ok(r.h.LinkAdd(netdev.Bridge{Name: "br0"}))

	for _, tc := range []struct {
		name       string
		typ        uint16
		queues     [2]uint32 // tx, rx
		bcQueueLen uint32
		vlanFlags  uint32
		carrier    uint32 // carrier changes
		tsoMax     uint32
	}{
		{"lo", rtnl.ARPHRDLoopback, [2]uint32{1, 1}, 0, 0, 0, 524280},
		{"va", rtnl.ARPHRDEther, [2]uint32{2, 2}, 0, 0, 1, 524280}, // veth_get_num_queues: the possible CPUs; veth_newlink's carrier off
		{"mv", rtnl.ARPHRDEther, [2]uint32{1, 1}, 1000, 0, 0, 524280},
		{"va.5", rtnl.ARPHRDEther, [2]uint32{1, 1}, 0, netdev.VlanFlagReorderHdr, 0, 524280},
		{"b0", rtnl.ARPHRDEther, [2]uint32{16, 16}, 0, 0, 1, 524280}, // BOND_DEFAULT_TX_QUEUES for both; no slave, no carrier
		// No port yet: the carrier it was created with, a new device's
		// TSO limit (GSO_LEGACY_MAX_SIZE; br_set_gso_limits has not run).
		{"br0", rtnl.ARPHRDEther, [2]uint32{1, 1}, 0, 0, 0, 65536},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := r.link(tc.name)
			require.Equal(t, tc.typ, l.Type)
			require.Equal(t, tc.queues, [2]uint32{l.NumTxQueues, l.NumRxQueues})
			require.Equal(t, tc.bcQueueLen, l.MacvlanBcQueueLen)
			require.Equal(t, tc.bcQueueLen, l.MacvlanBcQueueLenUsed)
			require.Equal(t, tc.vlanFlags, l.VlanFlags)
			require.Equal(t, [5]uint32{65536, 65535, tc.tsoMax, 65535, 65536},
				[5]uint32{l.GSOMaxSize, l.GSOMaxSegs, l.TSOMaxSize, l.TSOMaxSegs, l.GROMaxSize})
			require.Equal(t, uint8(rtnl.AddrGenModeEUI64), l.AddrGenMode)
			require.Equal(t, rtnl.LinkStats{}, l.Stats)
			require.Equal(t, tc.carrier, l.CarrierChanges)
		})
	}

	// A port sets the bridge's TSO limit from the ports'; it stays when
	// the last one leaves (br_add_if → br_set_gso_limits).
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "vc", Peer: "vd"}))
	r.ok(r.h.LinkSetMaster("vc", "br0"))
	require.Equal(t, uint32(524280), r.link("br0").TSOMaxSize)
	r.ok(r.h.LinkSetNoMaster("vc"))
	require.Equal(t, uint32(524280), r.link("br0").TSOMaxSize)

	// The list and the single-device request agree.
	all, err := r.h.LinkList()
	r.ok(err)
	for _, l := range all {
		one, err := r.h.GetLink(rtnl.LinkGetRequest{Index: l.Index})
		r.ok(err)
		require.Equal(t, l, one)
	}
}
