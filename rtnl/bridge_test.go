package rtnl_test

import (
	"testing"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

// TestBridgeInfoAsKernel checks the IFLA_BR_* and IFLA_BRPORT_* values of a
// new bridge and its first port against what Linux 6.18 reports, taken
// with iproute2 6.1 in a fresh namespace by
//
//	ip link add br0 type bridge
//	ip link add v0 address 02:00:00:00:00:10 type veth peer name v0p address 02:00:00:00:00:11
//	ip link set v0 master br0
//	ip -d -j link show br0; ip -d -j link show v0
//
// (the timers, all 0.00 there, are 0 in netsim, which runs none).
//
// Kernel: br_fill_info, br_port_fill_attrs (net/bridge/br_netlink.c).
func TestBridgeInfoAsKernel(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Bridge{Name: "br0"}))
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "v0", Peer: "v0p",
		Attrs:     netdev.Attrs{Addr: hwaddr.MustParseAddr("02:00:00:00:00:10")},
		PeerAttrs: netdev.Attrs{Addr: hwaddr.MustParseAddr("02:00:00:00:00:11")}}))
	r.ok(r.h.LinkSetMaster("v0", "br0"))

	br := r.link("br0")
	require.Equal(t, "bridge", br.Kind)
	require.Equal(t, []int{1500, 68, 65535, 0, 0}, []int{br.MTU, br.MinMTU, br.MaxMTU, br.Promiscuity, br.Allmulti})
	require.Nil(t, br.BridgePort)
	id := netdev.BridgeID{Prio: 0x8000, Addr: hwaddr.MustParseAddr("02:00:00:00:00:10")}
	require.Equal(t, "8000.2:0:0:0:0:10", id.String())
	require.Equal(t, &netdev.BridgeInfo{
		BridgeConfig: netdev.BridgeConfig{
			ForwardDelay: 1500, HelloTime: 200, MaxAge: 2000, AgeingTime: 30000, STPState: 0,
			Priority: 32768, VlanFiltering: 0, GroupFwdMask: 0,
			GroupAddr:     hwaddr.MustParseAddr("01:80:c2:00:00:00"),
			McastSnooping: 1, NoLinklocalLearn: false, McastVlanSnooping: false, McastRouter: 1,
			McastQueryUseIfaddr: 0, McastQuerier: 0, McastHashElasticity: 16, McastHashMax: 4096,
			McastLastMemberCnt: 2, McastStartupQueryCnt: 2, McastLastMemberIntvl: 100,
			McastMembershipIntvl: 26000, McastQuerierIntvl: 25500, McastQueryIntvl: 12500,
			McastQueryResponseIntvl: 1000, McastStartupQueryIntvl: 3124, McastStatsEnabled: 0,
			McastIGMPVersion: 2, McastMLDVersion: 1,
			NFCallIptables: 0, NFCallIp6tables: 0, NFCallArptables: 0,
		},
		BridgeID: id, RootID: id, RootPort: 0, RootPathCost: 0,
		TopologyChange: 0, TopologyChangeDetected: 0,
	}, br.Bridge)

	v0 := r.link("v0")
	require.Equal(t, "veth", v0.Kind)
	require.Equal(t, "br0", v0.Master)
	require.Equal(t, []int{1, 1}, []int{v0.Promiscuity, v0.Allmulti})
	require.Nil(t, v0.Bridge)
	require.Equal(t, &netdev.BridgePortInfo{
		State: netdev.BrStateDisabled, Priority: 32, Cost: 2,
		Hairpin: false, Guard: false, RootBlock: false, FastLeave: false, Learning: true, Flood: true,
		ID: 0x8001, No: 0x1, DesignatedPort: 32769, DesignatedCost: 0,
		DesignatedBridge: id, DesignatedRoot: id,
		TopologyChangeAck: 0, ConfigPending: 0, ProxyARP: false, ProxyARPWifi: false,
		MulticastRouter: 1, McastFlood: true, BcastFlood: true, McastToUnicast: false,
		NeighSuppress: false, GroupFwdMask: 0, VlanTunnel: false, Isolated: false, Locked: false,
	}, v0.BridgePort)

	// A fresh bridge's id has no address (br_dev_setup leaves bridge_id
	// zero, its random address aside): "8000.0:0:0:0:0:0".
	r.ok(r.h.LinkAdd(netdev.Bridge{Name: "br1"}))
	require.Equal(t, "8000.0:0:0:0:0:0", r.link("br1").Bridge.BridgeID.String())
}
