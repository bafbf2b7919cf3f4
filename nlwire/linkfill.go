// A device as an RTM_NEWLINK message: its ifinfomsg and attributes in the
// kernel's order. Kernel: rtnl_fill_ifinfo, rtnl_link_fill
// (net/core/rtnetlink.c); br_fill_info, br_port_fill_attrs
// (net/bridge/br_netlink.c).

package nlwire

import (
	"encoding/binary"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// Values rtnl_fill_ifinfo sends that are the same for every device netsim
// has.
const (
	ifOperDown = 2   // IF_OPER_DOWN
	brportEHT  = 512 // BR_MCAST_DEFAULT_EHT_HOSTS_LIMIT
	boolOptAll = 0x1f
)

// nestNoFlag adds a nested attribute without NLA_F_NESTED, as the
// kernel's nla_nest_start_noflag does.
func nestNoFlag(ae *netlink.AttributeEncoder, typ uint16, fn func(*netlink.AttributeEncoder)) {
	ae.Do(typ, func() ([]byte, error) {
		nae := netlink.NewAttributeEncoder()
		fn(nae)
		return nae.Encode()
	})
}

// linkFlags is the ifi_flags of a device: IFF_RUNNING for an up device
// whose operstate is up (or unknown), which it is not yet when its
// carrier came but linkwatch has not run.
//
// Kernel: netif_get_flags (net/core/dev.c), netif_oper_up.
func linkFlags(li rtnl.LinkInfo) uint32 {
	f := uint32(li.Flags)
	if f&rt.IFFUp != 0 && (li.OperState == netdev.OperUp || li.OperState == netdev.OperUnknown) {
		f |= rt.IFFRunning
	}
	return f
}

// hasIflink reports whether the kind has an ndo_get_iflink: the devices
// whose IFLA_LINK is sent even when it is 0 (a veth whose peer is not
// tied yet or any more).
//
// Kernel: nla_put_iflink (net/core/rtnetlink.c), veth_get_iflink,
// vlan_dev_get_iflink, macvlan_dev_get_iflink.
func hasIflink(li rtnl.LinkInfo) bool {
	switch li.Kind {
	case "veth", "vlan", "macvlan":
		return true
	}
	return false
}

// carrierCounts splits the carrier changes into ups and downs: they
// alternate, from carrier off at registration, and end in the present
// state.
func carrierCounts(li rtnl.LinkInfo) (up, down uint32) {
	n := li.CarrierChanges
	if li.CarrierOK {
		return (n + 1) / 2, n / 2
	}
	return n / 2, (n + 1) / 2
}

// linkMessage is the payload of an RTM_NEWLINK (or RTM_DELLINK) message
// describing li: its ifinfomsg and attributes in the order the kernel puts
// them. IFLA_AF_SPEC (the per-family configuration), IFLA_PERM_ADDRESS
// (no device netsim has one) and IFLA_PROP_LIST (no alternative names) are
// not sent.
//
// Kernel: rtnl_fill_ifinfo (net/core/rtnetlink.c).
func linkMessage(li rtnl.LinkInfo, change uint32) []byte { return linkMessageEvent(li, change, 0) }

// linkMessageEvent is linkMessage with IFLA_EVENT event (none when 0), as
// rtnetlink_event's notifications carry it.
func linkMessageEvent(li rtnl.LinkInfo, change, event uint32) []byte {
	hdr := ifinfomsg{typ: li.Type, index: int32(li.Index), flags: linkFlags(li), change: change}.marshal()
	ae := netlink.NewAttributeEncoder()
	if li.TargetNetnsID != nil {
		ae.Int32(uapi.IFLA_TARGET_NETNSID, *li.TargetNetnsID)
	}
	ae.String(uapi.IFLA_IFNAME, li.Name)
	ae.Uint32(uapi.IFLA_TXQLEN, uint32(li.TxQueueLen))
	oper := uint8(li.OperState)
	if li.Flags&netdev.FlagUp == 0 {
		oper = ifOperDown
	}
	ae.Uint8(uapi.IFLA_OPERSTATE, oper)
	ae.Uint8(uapi.IFLA_LINKMODE, li.LinkMode)
	ae.Uint8(uapi.IFLA_NETNS_IMMUTABLE, b2u8(li.NetnsImmutable))
	ae.Uint32(uapi.IFLA_MTU, uint32(li.MTU))
	ae.Uint32(uapi.IFLA_MIN_MTU, uint32(li.MinMTU))
	ae.Uint32(uapi.IFLA_MAX_MTU, uint32(li.MaxMTU))
	ae.Uint32(uapi.IFLA_GROUP, li.Group)
	ae.Uint32(uapi.IFLA_PROMISCUITY, uint32(li.Promiscuity))
	ae.Uint32(uapi.IFLA_ALLMULTI, uint32(li.Allmulti))
	ae.Uint32(uapi.IFLA_NUM_TX_QUEUES, li.NumTxQueues)
	ae.Uint32(uapi.IFLA_GSO_MAX_SEGS, li.GSOMaxSegs)
	ae.Uint32(uapi.IFLA_GSO_MAX_SIZE, li.GSOMaxSize)
	ae.Uint32(uapi.IFLA_GRO_MAX_SIZE, li.GROMaxSize)
	ae.Uint32(uapi.IFLA_GSO_IPV4_MAX_SIZE, li.GSOMaxSize)
	ae.Uint32(uapi.IFLA_GRO_IPV4_MAX_SIZE, li.GROMaxSize)
	ae.Uint32(uapi.IFLA_TSO_MAX_SIZE, li.TSOMaxSize)
	ae.Uint32(uapi.IFLA_TSO_MAX_SEGS, li.TSOMaxSegs)
	ae.Uint32(uapi.IFLA_MAX_PACING_OFFLOAD_HORIZON, 0) // nla_put_uint of 0: a u32
	ae.Uint32(uapi.IFLA_NUM_RX_QUEUES, li.NumRxQueues)
	if li.MasterIndex != 0 {
		ae.Uint32(uapi.IFLA_MASTER, uint32(li.MasterIndex))
	}
	ae.Uint8(uapi.IFLA_CARRIER, b2u8(li.CarrierOK))
	if li.Alias != "" {
		ae.String(uapi.IFLA_IFALIAS, li.Alias)
	}
	up, down := carrierCounts(li)
	ae.Uint32(uapi.IFLA_CARRIER_CHANGES, li.CarrierChanges)
	ae.Uint32(uapi.IFLA_CARRIER_UP_COUNT, up)
	ae.Uint32(uapi.IFLA_CARRIER_DOWN_COUNT, down)
	ae.Uint16(uapi.IFLA_HEADROOM, uint16(li.Headroom))
	ae.Uint16(uapi.IFLA_TAILROOM, 0)
	ae.Uint8(uapi.IFLA_PROTO_DOWN, 0)
	if event != 0 {
		ae.Uint32(uapi.IFLA_EVENT, event)
	}
	ae.Bytes(uapi.IFLA_ADDRESS, li.Addr[:])
	ae.Bytes(uapi.IFLA_BROADCAST, li.Broadcast[:])
	ae.Bytes(uapi.IFLA_STATS64, stats64(li.Stats))
	ae.Bytes(uapi.IFLA_STATS, stats32(li.Stats))
	nestNoFlag(ae, uapi.IFLA_XDP, func(x *netlink.AttributeEncoder) {
		x.Uint8(uapi.IFLA_XDP_ATTACHED, 0) // XDP_ATTACHED_NONE
	})
	if li.Kind != "" || li.SlaveKind != "" {
		nestNoFlag(ae, uapi.IFLA_LINKINFO, func(x *netlink.AttributeEncoder) { fillLinkInfo(x, li) })
	}
	// rtnl_fill_link_netnsid: the link's namespace, then the iflink.
	if li.LinkNetns {
		ae.Int32(uapi.IFLA_LINK_NETNSID, li.LinkNetnsID)
	}
	if hasIflink(li) && (li.LinkIndex != li.Index || li.LinkNetns) {
		ae.Uint32(uapi.IFLA_LINK, uint32(li.LinkIndex))
	}
	// rtmsg_ifinfo_newnet's RTM_DELLINK: the new namespace's id and the
	// ifindex there.
	if li.NewIndex != 0 {
		ae.Int32(uapi.IFLA_NEW_NETNSID, li.NewNetnsID)
		ae.Int32(uapi.IFLA_NEW_IFINDEX, int32(li.NewIndex))
	}
	ae.String(uapi.IFLA_QDISC, li.Qdisc)
	ae.Bytes(uapi.IFLA_MAP, make([]byte, 32)) // struct rtnl_link_ifmap, all zero
	ae.Nested(uapi.IFLA_DEVLINK_PORT, func(*netlink.AttributeEncoder) error { return nil })
	ae.Nested(uapi.IFLA_DPLL_PIN, func(*netlink.AttributeEncoder) error { return nil })
	b, err := ae.Encode()
	if err != nil {
		panic("nlwire: encoding a link: " + err.Error()) // no attribute is too long
	}
	return append(hdr, b...)
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// statsFields is struct rtnl_link_stats64 in its order.
func statsFields(s rtnl.LinkStats) []uint64 {
	return []uint64{s.RxPackets, s.TxPackets, s.RxBytes, s.TxBytes, s.RxErrors, s.TxErrors,
		s.RxDropped, s.TxDropped, s.Multicast, s.Collisions, s.RxLengthErrors, s.RxOverErrors,
		s.RxCRCErrors, s.RxFrameErrors, s.RxFIFOErrors, s.RxMissedErrors, s.TxAbortedErrors,
		s.TxCarrierErrors, s.TxFIFOErrors, s.TxHeartbeatErrors, s.TxWindowErrors,
		s.RxCompressed, s.TxCompressed, s.RxNoHandler, s.RxOtherhostDropped}
}

// stats64 is IFLA_STATS64's struct rtnl_link_stats64.
func stats64(s rtnl.LinkStats) []byte {
	f := statsFields(s)
	b := make([]byte, 8*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	return b
}

// stats32 is IFLA_STATS's struct rtnl_link_stats: the first 24 counters,
// truncated to 32 bits (copy_rtnl_link_stats).
func stats32(s rtnl.LinkStats) []byte {
	f := statsFields(s)[:24]
	b := make([]byte, 4*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	return b
}

// fillLinkInfo is rtnl_link_fill: the kind and its data, then the
// master's kind and the port's data.
//
// Kernel: rtnl_link_info_fill, rtnl_link_slave_info_fill; the kinds'
// fill_info and fill_slave_info.
func fillLinkInfo(ae *netlink.AttributeEncoder, li rtnl.LinkInfo) {
	if li.Kind != "" {
		ae.String(uapi.IFLA_INFO_KIND, li.Kind)
		switch li.Kind {
		case "macvlan":
			if li.Macvlan != nil {
				nestNoFlag(ae, uapi.IFLA_INFO_DATA, func(d *netlink.AttributeEncoder) { fillMacvlan(d, li.Macvlan) })
			}
		case "vlan":
			if li.Vlan != nil {
				nestNoFlag(ae, uapi.IFLA_INFO_DATA, func(d *netlink.AttributeEncoder) { fillVlan(d, li.Vlan) })
			}
		case "vrf":
			nestNoFlag(ae, uapi.IFLA_INFO_DATA, func(d *netlink.AttributeEncoder) {
				d.Uint32(uapi.IFLA_VRF_TABLE, li.VRFTable)
			})
		case "bond":
			if li.Bond != nil {
				nestNoFlag(ae, uapi.IFLA_INFO_DATA, func(d *netlink.AttributeEncoder) { fillBond(d, li.Bond) })
			}
		case "bridge":
			if li.Bridge != nil {
				nestNoFlag(ae, uapi.IFLA_INFO_DATA, func(d *netlink.AttributeEncoder) { fillBridge(d, li.Bridge) })
			}
		case "vxlan":
			if li.Vxlan != nil {
				nestNoFlag(ae, uapi.IFLA_INFO_DATA, func(d *netlink.AttributeEncoder) { fillVxlan(d, li.Vxlan) })
			}
		}
	}
	if li.SlaveKind != "" {
		ae.String(uapi.IFLA_INFO_SLAVE_KIND, li.SlaveKind)
		switch {
		case li.SlaveKind == "bridge" && li.BridgePort != nil:
			nestNoFlag(ae, uapi.IFLA_INFO_SLAVE_DATA, func(d *netlink.AttributeEncoder) { fillBridgePort(d, li.BridgePort) })
		case li.SlaveKind == "bond" && li.BondSlave != nil:
			nestNoFlag(ae, uapi.IFLA_INFO_SLAVE_DATA, func(d *netlink.AttributeEncoder) { fillBondSlave(d, li.BondSlave) })
		case li.SlaveKind == "vrf":
			nestNoFlag(ae, uapi.IFLA_INFO_SLAVE_DATA, func(d *netlink.AttributeEncoder) {
				d.Uint32(uapi.IFLA_VRF_PORT_TABLE, li.SlaveVRFTable)
			})
		}
	}
}

func bridgeID(id netdev.BridgeID) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint16(b, id.Prio)
	copy(b[2:], id.Addr[:])
	return b
}

// fillBridge is br_fill_info for the attributes of a kernel built as the
// reference one is (without CONFIG_BRIDGE_VLAN_FILTERING: no VLAN
// attributes).
//
// Kernel: br_fill_info (net/bridge/br_netlink.c).
func fillBridge(d *netlink.AttributeEncoder, b *netdev.BridgeInfo) {
	d.Uint64(uapi.IFLA_BR_HELLO_TIMER, b.HelloTimer)
	d.Uint64(uapi.IFLA_BR_TCN_TIMER, b.TCNTimer)
	d.Uint64(uapi.IFLA_BR_TOPOLOGY_CHANGE_TIMER, b.TopologyChangeTimer)
	d.Uint64(uapi.IFLA_BR_GC_TIMER, b.GCTimer)
	d.Uint32(uapi.IFLA_BR_FORWARD_DELAY, b.ForwardDelay)
	d.Uint32(uapi.IFLA_BR_HELLO_TIME, b.HelloTime)
	d.Uint32(uapi.IFLA_BR_MAX_AGE, b.MaxAge)
	d.Uint32(uapi.IFLA_BR_AGEING_TIME, b.AgeingTime)
	d.Uint32(uapi.IFLA_BR_STP_STATE, b.STPState)
	d.Uint16(uapi.IFLA_BR_PRIORITY, b.Priority)
	d.Uint8(uapi.IFLA_BR_VLAN_FILTERING, b.VlanFiltering)
	d.Uint16(uapi.IFLA_BR_GROUP_FWD_MASK, b.GroupFwdMask)
	d.Bytes(uapi.IFLA_BR_BRIDGE_ID, bridgeID(b.BridgeID))
	d.Bytes(uapi.IFLA_BR_ROOT_ID, bridgeID(b.RootID))
	d.Uint16(uapi.IFLA_BR_ROOT_PORT, b.RootPort)
	d.Uint32(uapi.IFLA_BR_ROOT_PATH_COST, b.RootPathCost)
	d.Uint8(uapi.IFLA_BR_TOPOLOGY_CHANGE, b.TopologyChange)
	d.Uint8(uapi.IFLA_BR_TOPOLOGY_CHANGE_DETECTED, b.TopologyChangeDetected)
	d.Bytes(uapi.IFLA_BR_GROUP_ADDR, b.GroupAddr[:])
	var bo [8]byte
	var v uint32
	if b.NoLinklocalLearn {
		v |= 1
	}
	if b.McastVlanSnooping {
		v |= 2
	}
	binary.LittleEndian.PutUint32(bo[:], v)
	binary.LittleEndian.PutUint32(bo[4:], boolOptAll)
	d.Bytes(uapi.IFLA_BR_MULTI_BOOLOPT, bo[:])
	d.Uint32(uapi.IFLA_BR_FDB_N_LEARNED, 0)
	d.Uint32(uapi.IFLA_BR_FDB_MAX_LEARNED, 0)
	d.Uint8(uapi.IFLA_BR_MCAST_ROUTER, b.McastRouter)
	d.Uint8(uapi.IFLA_BR_MCAST_SNOOPING, b.McastSnooping)
	d.Uint8(uapi.IFLA_BR_MCAST_QUERY_USE_IFADDR, b.McastQueryUseIfaddr)
	d.Uint8(uapi.IFLA_BR_MCAST_QUERIER, b.McastQuerier)
	d.Uint8(uapi.IFLA_BR_MCAST_STATS_ENABLED, b.McastStatsEnabled)
	d.Uint32(uapi.IFLA_BR_MCAST_HASH_ELASTICITY, b.McastHashElasticity)
	d.Uint32(uapi.IFLA_BR_MCAST_HASH_MAX, b.McastHashMax)
	d.Uint32(uapi.IFLA_BR_MCAST_LAST_MEMBER_CNT, b.McastLastMemberCnt)
	d.Uint32(uapi.IFLA_BR_MCAST_STARTUP_QUERY_CNT, b.McastStartupQueryCnt)
	d.Uint8(uapi.IFLA_BR_MCAST_IGMP_VERSION, b.McastIGMPVersion)
	d.Uint8(uapi.IFLA_BR_MCAST_MLD_VERSION, b.McastMLDVersion)
	d.Uint64(uapi.IFLA_BR_MCAST_LAST_MEMBER_INTVL, b.McastLastMemberIntvl)
	d.Uint64(uapi.IFLA_BR_MCAST_MEMBERSHIP_INTVL, b.McastMembershipIntvl)
	d.Uint64(uapi.IFLA_BR_MCAST_QUERIER_INTVL, b.McastQuerierIntvl)
	d.Uint64(uapi.IFLA_BR_MCAST_QUERY_INTVL, b.McastQueryIntvl)
	d.Uint64(uapi.IFLA_BR_MCAST_QUERY_RESPONSE_INTVL, b.McastQueryResponseIntvl)
	d.Uint64(uapi.IFLA_BR_MCAST_STARTUP_QUERY_INTVL, b.McastStartupQueryIntvl)
	d.Uint8(uapi.IFLA_BR_NF_CALL_IPTABLES, b.NFCallIptables)
	d.Uint8(uapi.IFLA_BR_NF_CALL_IP6TABLES, b.NFCallIp6tables)
	d.Uint8(uapi.IFLA_BR_NF_CALL_ARPTABLES, b.NFCallArptables)
}

// fillBridgePort is br_port_fill_attrs.
//
// Kernel: br_port_fill_attrs (net/bridge/br_netlink.c).
func fillBridgePort(d *netlink.AttributeEncoder, p *netdev.BridgePortInfo) {
	d.Uint8(uapi.IFLA_BRPORT_STATE, p.State)
	d.Uint16(uapi.IFLA_BRPORT_PRIORITY, p.Priority)
	d.Uint32(uapi.IFLA_BRPORT_COST, p.Cost)
	d.Uint8(uapi.IFLA_BRPORT_MODE, b2u8(p.Hairpin))
	d.Uint8(uapi.IFLA_BRPORT_GUARD, b2u8(p.Guard))
	d.Uint8(uapi.IFLA_BRPORT_PROTECT, b2u8(p.RootBlock))
	d.Uint8(uapi.IFLA_BRPORT_FAST_LEAVE, b2u8(p.FastLeave))
	d.Uint8(uapi.IFLA_BRPORT_MCAST_TO_UCAST, b2u8(p.McastToUnicast))
	d.Uint8(uapi.IFLA_BRPORT_LEARNING, b2u8(p.Learning))
	d.Uint8(uapi.IFLA_BRPORT_UNICAST_FLOOD, b2u8(p.Flood))
	d.Uint8(uapi.IFLA_BRPORT_MCAST_FLOOD, b2u8(p.McastFlood))
	d.Uint8(uapi.IFLA_BRPORT_BCAST_FLOOD, b2u8(p.BcastFlood))
	d.Uint8(uapi.IFLA_BRPORT_PROXYARP, b2u8(p.ProxyARP))
	d.Uint8(uapi.IFLA_BRPORT_PROXYARP_WIFI, b2u8(p.ProxyARPWifi))
	d.Bytes(uapi.IFLA_BRPORT_ROOT_ID, bridgeID(p.DesignatedRoot))
	d.Bytes(uapi.IFLA_BRPORT_BRIDGE_ID, bridgeID(p.DesignatedBridge))
	d.Uint16(uapi.IFLA_BRPORT_DESIGNATED_PORT, p.DesignatedPort)
	d.Uint16(uapi.IFLA_BRPORT_DESIGNATED_COST, p.DesignatedCost)
	d.Uint16(uapi.IFLA_BRPORT_ID, p.ID)
	d.Uint16(uapi.IFLA_BRPORT_NO, p.No)
	d.Uint8(uapi.IFLA_BRPORT_TOPOLOGY_CHANGE_ACK, p.TopologyChangeAck)
	d.Uint8(uapi.IFLA_BRPORT_CONFIG_PENDING, p.ConfigPending)
	d.Uint8(uapi.IFLA_BRPORT_VLAN_TUNNEL, b2u8(p.VlanTunnel))
	d.Uint16(uapi.IFLA_BRPORT_GROUP_FWD_MASK, p.GroupFwdMask)
	d.Uint8(uapi.IFLA_BRPORT_NEIGH_SUPPRESS, b2u8(p.NeighSuppress))
	d.Uint8(uapi.IFLA_BRPORT_MRP_RING_OPEN, 0)
	d.Uint8(uapi.IFLA_BRPORT_MRP_IN_OPEN, 0)
	d.Uint8(uapi.IFLA_BRPORT_ISOLATED, b2u8(p.Isolated))
	d.Uint8(uapi.IFLA_BRPORT_LOCKED, b2u8(p.Locked))
	d.Uint8(uapi.IFLA_BRPORT_MAB, 0)
	d.Uint8(uapi.IFLA_BRPORT_NEIGH_VLAN_SUPPRESS, 0)
	d.Uint64(uapi.IFLA_BRPORT_MESSAGE_AGE_TIMER, p.MessageAgeTimer)
	d.Uint64(uapi.IFLA_BRPORT_FORWARD_DELAY_TIMER, p.ForwardDelayTimer)
	d.Uint64(uapi.IFLA_BRPORT_HOLD_TIMER, p.HoldTimer)
	d.Uint8(uapi.IFLA_BRPORT_MULTICAST_ROUTER, p.MulticastRouter)
	d.Uint32(uapi.IFLA_BRPORT_MCAST_EHT_HOSTS_LIMIT, brportEHT)
	d.Uint32(uapi.IFLA_BRPORT_MCAST_EHT_HOSTS_CNT, 0)
	d.Uint32(uapi.IFLA_BRPORT_MCAST_N_GROUPS, 0)
	d.Uint32(uapi.IFLA_BRPORT_MCAST_MAX_GROUPS, 0)
	if p.BackupPort != 0 {
		d.Uint32(uapi.IFLA_BRPORT_BACKUP_PORT, uint32(p.BackupPort))
	}
}
