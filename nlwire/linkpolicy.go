// The link messages' attribute policies and the kinds' IFLA_INFO_DATA
// read into netdev settings. Kernel: ifla_policy, ifla_info_policy
// (net/core/rtnetlink.c); veth_policy (drivers/net/veth.c),
// macvlan_policy (drivers/net/macvlan.c), vlan_policy
// (net/8021q/vlan_netlink.c), vrf_nl_policy (drivers/net/vrf.c),
// bond_policy (drivers/net/bonding/bond_netlink.c); br_policy,
// br_port_policy, br_changelink, br_setport (net/bridge/br_netlink.c).

package nlwire

import (
	"encoding/binary"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
)

// iflaPolicy is ifla_policy (net/core/rtnetlink.c).
var iflaPolicy = func() policy {
	p := make([]attrPolicy, uapi.IFLA_MAX+1)
	set := func(t int, typ attrType, n int) { p[t] = attrPolicy{typ: typ, len: n} }
	set(uapi.IFLA_IFNAME, nlaString, netdev.IFNAMSIZ-1)
	set(uapi.IFLA_ADDRESS, nlaBinary, maxAddrLen)
	set(uapi.IFLA_BROADCAST, nlaBinary, maxAddrLen)
	set(uapi.IFLA_MAP, nlaUnspec, 32) // sizeof(struct rtnl_link_ifmap)
	for _, t := range []int{uapi.IFLA_MTU, uapi.IFLA_LINK, uapi.IFLA_MASTER, uapi.IFLA_TXQLEN,
		uapi.IFLA_WEIGHT, uapi.IFLA_NET_NS_PID, uapi.IFLA_NET_NS_FD, uapi.IFLA_EXT_MASK,
		uapi.IFLA_PROMISCUITY, uapi.IFLA_NUM_TX_QUEUES, uapi.IFLA_NUM_RX_QUEUES, uapi.IFLA_GSO_MAX_SEGS,
		uapi.IFLA_CARRIER_CHANGES, uapi.IFLA_EVENT, uapi.IFLA_GROUP, uapi.IFLA_CARRIER_UP_COUNT,
		uapi.IFLA_CARRIER_DOWN_COUNT, uapi.IFLA_MIN_MTU, uapi.IFLA_MAX_MTU, uapi.IFLA_GRO_MAX_SIZE,
		uapi.IFLA_GRO_IPV4_MAX_SIZE} {
		set(t, nlaU32, 0)
	}
	p[uapi.IFLA_GSO_MAX_SIZE] = polMin(nlaU32, maxTCPHeader+1)
	p[uapi.IFLA_GSO_IPV4_MAX_SIZE] = polMin(nlaU32, maxTCPHeader+1)
	for _, t := range []int{uapi.IFLA_CARRIER, uapi.IFLA_OPERSTATE, uapi.IFLA_LINKMODE, uapi.IFLA_PROTO_DOWN} {
		set(t, nlaU8, 0)
	}
	for _, t := range []int{uapi.IFLA_LINKINFO, uapi.IFLA_VFINFO_LIST, uapi.IFLA_VF_PORTS, uapi.IFLA_PORT_SELF,
		uapi.IFLA_AF_SPEC, uapi.IFLA_XDP, uapi.IFLA_PROP_LIST, uapi.IFLA_PROTO_DOWN_REASON} {
		set(t, nlaNested, 0)
	}
	set(uapi.IFLA_IFALIAS, nlaBinary, ifAliasSize-1)
	set(uapi.IFLA_PHYS_PORT_ID, nlaBinary, maxPhysItem)
	set(uapi.IFLA_PHYS_SWITCH_ID, nlaBinary, maxPhysItem)
	set(uapi.IFLA_LINK_NETNSID, nlaS32, 0)
	set(uapi.IFLA_TARGET_NETNSID, nlaS32, 0)
	p[uapi.IFLA_NEW_IFINDEX] = polMin(nlaS32, 1)
	set(uapi.IFLA_ALT_IFNAME, nlaString, altIfNameLen-1)
	set(uapi.IFLA_PARENT_DEV_NAME, nlaNulString, 0)
	for _, t := range []int{uapi.IFLA_PERM_ADDRESS, uapi.IFLA_TSO_MAX_SIZE, uapi.IFLA_TSO_MAX_SEGS,
		uapi.IFLA_ALLMULTI, uapi.IFLA_NETNS_IMMUTABLE, uapi.IFLA_HEADROOM, uapi.IFLA_TAILROOM} {
		set(t, nlaReject, 0)
	}
	return policy{attrs: p, strictStart: uapi.IFLA_DPLL_PIN}
}()

// Lengths of the policies' binary attributes, and IFLA_GSO_MAX_SIZE's
// bound.
const (
	maxAddrLen   = 32  // MAX_ADDR_LEN
	ifAliasSize  = 256 // IFALIASZ
	altIfNameLen = 128 // ALTIFNAMSIZ
	maxPhysItem  = 32  // MAX_PHYS_ITEM_ID_LEN

	// maxTCPHeader is MAX_TCP_HEADER as Linux 6.18 on x86-64 has it
	// (L1_CACHE_ALIGN(128 + MAX_HEADER)): the GSO sizes' NLA_POLICY_MIN
	// is one above it.
	maxTCPHeader = 192
)

// iflaInfoPolicy is ifla_info_policy.
var iflaInfoPolicy = policy{attrs: []attrPolicy{
	uapi.IFLA_INFO_KIND:       {typ: nlaString},
	uapi.IFLA_INFO_DATA:       {typ: nlaNested},
	uapi.IFLA_INFO_XSTATS:     {},
	uapi.IFLA_INFO_SLAVE_KIND: {typ: nlaString},
	uapi.IFLA_INFO_SLAVE_DATA: {typ: nlaNested},
}}

// The kinds' IFLA_INFO_DATA policies: veth_policy, macvlan_policy,
// vlan_policy and vrf_nl_policy (bond_policy is in linkkinds.go).
var (
	vethPolicy    = policy{attrs: []attrPolicy{uapi.VETH_INFO_PEER: {typ: nlaUnspec, len: ifinfomsgLen}}}
	macvlanPolicy = policy{attrs: []attrPolicy{
		uapi.IFLA_MACVLAN_MODE: {typ: nlaU32}, uapi.IFLA_MACVLAN_FLAGS: {typ: nlaU16},
		uapi.IFLA_MACVLAN_MACADDR_MODE: {typ: nlaU32}, uapi.IFLA_MACVLAN_MACADDR: {typ: nlaBinary, len: maxAddrLen},
		uapi.IFLA_MACVLAN_MACADDR_DATA: {typ: nlaNested}, uapi.IFLA_MACVLAN_MACADDR_COUNT: {typ: nlaU32},
		uapi.IFLA_MACVLAN_BC_QUEUE_LEN: {typ: nlaU32}, uapi.IFLA_MACVLAN_BC_QUEUE_LEN_USED: {typ: nlaReject},
		uapi.IFLA_MACVLAN_BC_CUTOFF: {typ: nlaS32},
	}}
	vlanPolicy = policy{attrs: []attrPolicy{
		uapi.IFLA_VLAN_ID: {typ: nlaU16}, uapi.IFLA_VLAN_FLAGS: {typ: nlaUnspec, len: 8},
		uapi.IFLA_VLAN_EGRESS_QOS: {typ: nlaNested}, uapi.IFLA_VLAN_INGRESS_QOS: {typ: nlaNested},
		uapi.IFLA_VLAN_PROTOCOL: {typ: nlaU16},
	}}
	vrfPolicy = policy{attrs: []attrPolicy{uapi.IFLA_VRF_TABLE: {typ: nlaU32}}}
)

// brPolicy is br_policy (net/bridge/br_netlink.c) for the attributes
// netdev.BridgeSettings has.
var brPolicy = func() policy {
	p := make([]attrPolicy, uapi.IFLA_BR_FDB_MAX_LEARNED+1)
	for _, t := range []int{uapi.IFLA_BR_FORWARD_DELAY, uapi.IFLA_BR_HELLO_TIME, uapi.IFLA_BR_MAX_AGE,
		uapi.IFLA_BR_AGEING_TIME, uapi.IFLA_BR_STP_STATE, uapi.IFLA_BR_MCAST_HASH_ELASTICITY,
		uapi.IFLA_BR_MCAST_HASH_MAX, uapi.IFLA_BR_MCAST_LAST_MEMBER_CNT, uapi.IFLA_BR_MCAST_STARTUP_QUERY_CNT,
		uapi.IFLA_BR_FDB_MAX_LEARNED} {
		p[t] = attrPolicy{typ: nlaU32}
	}
	for _, t := range []int{uapi.IFLA_BR_PRIORITY, uapi.IFLA_BR_VLAN_PROTOCOL, uapi.IFLA_BR_GROUP_FWD_MASK,
		uapi.IFLA_BR_VLAN_DEFAULT_PVID} {
		p[t] = attrPolicy{typ: nlaU16}
	}
	for _, t := range []int{uapi.IFLA_BR_VLAN_FILTERING, uapi.IFLA_BR_MCAST_ROUTER, uapi.IFLA_BR_MCAST_SNOOPING,
		uapi.IFLA_BR_MCAST_QUERY_USE_IFADDR, uapi.IFLA_BR_MCAST_QUERIER, uapi.IFLA_BR_NF_CALL_IPTABLES,
		uapi.IFLA_BR_NF_CALL_IP6TABLES, uapi.IFLA_BR_NF_CALL_ARPTABLES, uapi.IFLA_BR_VLAN_STATS_ENABLED,
		uapi.IFLA_BR_MCAST_STATS_ENABLED, uapi.IFLA_BR_MCAST_IGMP_VERSION, uapi.IFLA_BR_MCAST_MLD_VERSION,
		uapi.IFLA_BR_VLAN_STATS_PER_PORT} {
		p[t] = attrPolicy{typ: nlaU8}
	}
	for _, t := range []int{uapi.IFLA_BR_MCAST_LAST_MEMBER_INTVL, uapi.IFLA_BR_MCAST_MEMBERSHIP_INTVL,
		uapi.IFLA_BR_MCAST_QUERIER_INTVL, uapi.IFLA_BR_MCAST_QUERY_INTVL, uapi.IFLA_BR_MCAST_QUERY_RESPONSE_INTVL,
		uapi.IFLA_BR_MCAST_STARTUP_QUERY_INTVL} {
		p[t] = attrPolicy{typ: nlaU64}
	}
	p[uapi.IFLA_BR_GROUP_ADDR] = attrPolicy{typ: nlaBinary, len: 6}
	p[uapi.IFLA_BR_FDB_FLUSH] = attrPolicy{typ: nlaFlag}
	p[uapi.IFLA_BR_MULTI_BOOLOPT] = polExactLen(8) // sizeof(struct br_boolopt_multi)
	for _, t := range []int{uapi.IFLA_BR_FDB_N_LEARNED, uapi.IFLA_BR_MCAST_QUERIER_STATE} {
		p[t] = attrPolicy{typ: nlaReject}
	}
	return policy{attrs: p}
}()

// brportPolicy is br_port_policy for the attributes
// netdev.BridgePortSettings has.
var brportPolicy = func() policy {
	p := make([]attrPolicy, uapi.IFLA_BRPORT_BACKUP_NHID+1)
	for _, t := range []int{uapi.IFLA_BRPORT_STATE, uapi.IFLA_BRPORT_MODE, uapi.IFLA_BRPORT_GUARD,
		uapi.IFLA_BRPORT_PROTECT, uapi.IFLA_BRPORT_FAST_LEAVE, uapi.IFLA_BRPORT_LEARNING,
		uapi.IFLA_BRPORT_UNICAST_FLOOD, uapi.IFLA_BRPORT_PROXYARP, uapi.IFLA_BRPORT_PROXYARP_WIFI,
		uapi.IFLA_BRPORT_MULTICAST_ROUTER, uapi.IFLA_BRPORT_MCAST_TO_UCAST, uapi.IFLA_BRPORT_MCAST_FLOOD,
		uapi.IFLA_BRPORT_BCAST_FLOOD, uapi.IFLA_BRPORT_VLAN_TUNNEL, uapi.IFLA_BRPORT_NEIGH_SUPPRESS,
		uapi.IFLA_BRPORT_ISOLATED, uapi.IFLA_BRPORT_LOCKED, uapi.IFLA_BRPORT_MAB} {
		p[t] = attrPolicy{typ: nlaU8}
	}
	p[uapi.IFLA_BRPORT_NEIGH_VLAN_SUPPRESS] = polMax(nlaU8, 1)
	p[uapi.IFLA_BRPORT_PRIORITY] = attrPolicy{typ: nlaU16}
	p[uapi.IFLA_BRPORT_GROUP_FWD_MASK] = attrPolicy{typ: nlaU16}
	for _, t := range []int{uapi.IFLA_BRPORT_COST, uapi.IFLA_BRPORT_BACKUP_PORT, uapi.IFLA_BRPORT_MCAST_EHT_HOSTS_LIMIT,
		uapi.IFLA_BRPORT_MCAST_MAX_GROUPS, uapi.IFLA_BRPORT_BACKUP_NHID} {
		p[t] = attrPolicy{typ: nlaU32}
	}
	p[uapi.IFLA_BRPORT_FLUSH] = attrPolicy{typ: nlaFlag}
	p[uapi.IFLA_BRPORT_MCAST_N_GROUPS] = attrPolicy{typ: nlaReject}
	return policy{attrs: p}
}()

// kindPolicy returns the IFLA_INFO_DATA policy of a kind netsim models.
func kindPolicy(kind string) (policy, bool) {
	switch kind {
	case "veth":
		return vethPolicy, true
	case "macvlan":
		return macvlanPolicy, true
	case "vlan":
		return vlanPolicy, true
	case "vrf":
		return vrfPolicy, true
	case "bond":
		return bondPolicy, true
	case "bridge":
		return brPolicy, true
	case "vxlan":
		return vxlanPolicy, true
	}
	return policy{}, false
}

// optional reads attribute t of d with get, or returns nil when d lacks
// it: the optional settings of a changelink.
func optional[T any](d attrs, t int, get func(attrs, uint16) T) *T {
	if !d.has(uint16(t)) {
		return nil
	}
	v := get(d, uint16(t))
	return &v
}

// bridgeSettings decodes a bridge's IFLA_INFO_DATA.
//
// Kernel: br_changelink (net/bridge/br_netlink.c).
func bridgeSettings(d attrs) (netdev.BridgeSettings, error) {
	var s netdev.BridgeSettings
	u32 := func(t int) *uint32 { return optional(d, t, attrs.u32) }
	u16 := func(t int) *uint16 { return optional(d, t, attrs.u16) }
	u8 := func(t int) *uint8 { return optional(d, t, attrs.u8) }
	u64 := func(t int) *uint64 { return optional(d, t, attrs.u64) }
	s.ForwardDelay, s.HelloTime, s.MaxAge = u32(uapi.IFLA_BR_FORWARD_DELAY), u32(uapi.IFLA_BR_HELLO_TIME), u32(uapi.IFLA_BR_MAX_AGE)
	s.AgeingTime, s.STPState = u32(uapi.IFLA_BR_AGEING_TIME), u32(uapi.IFLA_BR_STP_STATE)
	s.Priority = u16(uapi.IFLA_BR_PRIORITY)
	s.VlanFiltering = u8(uapi.IFLA_BR_VLAN_FILTERING)
	s.VlanProtocol, s.GroupFwdMask, s.VlanDefaultPVID = u16(uapi.IFLA_BR_VLAN_PROTOCOL), u16(uapi.IFLA_BR_GROUP_FWD_MASK), u16(uapi.IFLA_BR_VLAN_DEFAULT_PVID)
	if d.has(uapi.IFLA_BR_VLAN_PROTOCOL) {
		v := binary.BigEndian.Uint16(d.get(uapi.IFLA_BR_VLAN_PROTOCOL)) // NLA_BE16 on the wire
		s.VlanProtocol = &v
	}
	if g := d.get(uapi.IFLA_BR_GROUP_ADDR); g != nil {
		var mac netdev.MAC
		copy(mac[:], g)
		s.GroupAddr = &mac
	}
	s.FDBFlush = d.has(uapi.IFLA_BR_FDB_FLUSH)
	s.McastRouter, s.McastSnooping, s.McastQueryUseIfaddr = u8(uapi.IFLA_BR_MCAST_ROUTER), u8(uapi.IFLA_BR_MCAST_SNOOPING), u8(uapi.IFLA_BR_MCAST_QUERY_USE_IFADDR)
	s.McastQuerier = u8(uapi.IFLA_BR_MCAST_QUERIER)
	s.McastHashElasticity, s.McastHashMax = u32(uapi.IFLA_BR_MCAST_HASH_ELASTICITY), u32(uapi.IFLA_BR_MCAST_HASH_MAX)
	s.McastLastMemberCnt, s.McastStartupQueryCnt = u32(uapi.IFLA_BR_MCAST_LAST_MEMBER_CNT), u32(uapi.IFLA_BR_MCAST_STARTUP_QUERY_CNT)
	s.McastLastMemberIntvl, s.McastMembershipIntvl = u64(uapi.IFLA_BR_MCAST_LAST_MEMBER_INTVL), u64(uapi.IFLA_BR_MCAST_MEMBERSHIP_INTVL)
	s.McastQuerierIntvl, s.McastQueryIntvl = u64(uapi.IFLA_BR_MCAST_QUERIER_INTVL), u64(uapi.IFLA_BR_MCAST_QUERY_INTVL)
	s.McastQueryResponseIntvl, s.McastStartupQueryIntvl = u64(uapi.IFLA_BR_MCAST_QUERY_RESPONSE_INTVL), u64(uapi.IFLA_BR_MCAST_STARTUP_QUERY_INTVL)
	s.McastStatsEnabled, s.McastIGMPVersion, s.McastMLDVersion = u8(uapi.IFLA_BR_MCAST_STATS_ENABLED), u8(uapi.IFLA_BR_MCAST_IGMP_VERSION), u8(uapi.IFLA_BR_MCAST_MLD_VERSION)
	s.NFCallIptables, s.NFCallIp6tables, s.NFCallArptables = u8(uapi.IFLA_BR_NF_CALL_IPTABLES), u8(uapi.IFLA_BR_NF_CALL_IP6TABLES), u8(uapi.IFLA_BR_NF_CALL_ARPTABLES)
	s.VlanStatsEnabled, s.VlanStatsPerPort = u8(uapi.IFLA_BR_VLAN_STATS_ENABLED), u8(uapi.IFLA_BR_VLAN_STATS_PER_PORT)
	if b := d.get(uapi.IFLA_BR_MULTI_BOOLOPT); b != nil {
		val, mask := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
		if mask&^3 != 0 {
			return s, badAttr(errno.New(syscall.EOPNOTSUPP, "Bridge boolean options other than no_linklocal_learn and mcast_vlan_snooping are not modelled by netsim"), d.offset(uapi.IFLA_BR_MULTI_BOOLOPT))
		}
		if mask&1 != 0 {
			v := val&1 != 0
			s.NoLinklocalLearn = &v
		}
		if mask&2 != 0 {
			v := val&2 != 0
			s.McastVlanSnooping = &v
		}
	}
	if d.has(uapi.IFLA_BR_FDB_MAX_LEARNED) {
		return s, badAttr(errno.New(syscall.EOPNOTSUPP, "IFLA_BR_FDB_MAX_LEARNED is not modelled by netsim"), d.offset(uapi.IFLA_BR_FDB_MAX_LEARNED))
	}
	return s, nil
}

// bridgePortSettings decodes a bridge port's IFLA_INFO_SLAVE_DATA
// (nla_parse_nested_deprecated with br_port_policy).
//
// Kernel: br_port_slave_changelink → br_setport.
func bridgePortSettings(b []byte, base int) (netdev.BridgePortSettings, error) {
	var s netdev.BridgePortSettings
	d, err := parseAttrs(b, base, brportPolicy, validateLiberal)
	if err != nil {
		return s, err
	}
	flag := func(t int) *bool { return optional(d, t, func(d attrs, t uint16) bool { return d.u8(t) != 0 }) }
	s.State = optional(d, uapi.IFLA_BRPORT_STATE, attrs.u8)
	s.Priority = optional(d, uapi.IFLA_BRPORT_PRIORITY, attrs.u16)
	s.Cost = optional(d, uapi.IFLA_BRPORT_COST, attrs.u32)
	s.Hairpin, s.Guard, s.RootBlock, s.FastLeave = flag(uapi.IFLA_BRPORT_MODE), flag(uapi.IFLA_BRPORT_GUARD), flag(uapi.IFLA_BRPORT_PROTECT), flag(uapi.IFLA_BRPORT_FAST_LEAVE)
	s.Learning, s.Flood, s.ProxyARP, s.ProxyARPWifi = flag(uapi.IFLA_BRPORT_LEARNING), flag(uapi.IFLA_BRPORT_UNICAST_FLOOD), flag(uapi.IFLA_BRPORT_PROXYARP), flag(uapi.IFLA_BRPORT_PROXYARP_WIFI)
	s.McastFlood, s.BcastFlood, s.McastToUnicast = flag(uapi.IFLA_BRPORT_MCAST_FLOOD), flag(uapi.IFLA_BRPORT_BCAST_FLOOD), flag(uapi.IFLA_BRPORT_MCAST_TO_UCAST)
	s.NeighSuppress, s.VlanTunnel, s.Isolated, s.Locked = flag(uapi.IFLA_BRPORT_NEIGH_SUPPRESS), flag(uapi.IFLA_BRPORT_VLAN_TUNNEL), flag(uapi.IFLA_BRPORT_ISOLATED), flag(uapi.IFLA_BRPORT_LOCKED)
	s.McastRouter = optional(d, uapi.IFLA_BRPORT_MULTICAST_ROUTER, attrs.u8)
	s.GroupFwdMask = optional(d, uapi.IFLA_BRPORT_GROUP_FWD_MASK, attrs.u16)
	if d.has(uapi.IFLA_BRPORT_BACKUP_PORT) {
		v := netdev.IfIndex(d.u32(uapi.IFLA_BRPORT_BACKUP_PORT))
		s.BackupPort = &v
	}
	s.FDBFlush = d.has(uapi.IFLA_BRPORT_FLUSH)
	for _, u := range []struct {
		t    int
		name string
	}{{uapi.IFLA_BRPORT_MAB, "IFLA_BRPORT_MAB"}, {uapi.IFLA_BRPORT_NEIGH_VLAN_SUPPRESS, "IFLA_BRPORT_NEIGH_VLAN_SUPPRESS"},
		{uapi.IFLA_BRPORT_MCAST_EHT_HOSTS_LIMIT, "IFLA_BRPORT_MCAST_EHT_HOSTS_LIMIT"},
		{uapi.IFLA_BRPORT_MCAST_MAX_GROUPS, "IFLA_BRPORT_MCAST_MAX_GROUPS"}, {uapi.IFLA_BRPORT_BACKUP_NHID, "IFLA_BRPORT_BACKUP_NHID"}} {
		if d.has(uint16(u.t)) {
			return s, badAttr(errno.Errorf(syscall.EOPNOTSUPP, "%s is not modelled by netsim", u.name), d.offset(uint16(u.t)))
		}
	}
	return s, nil
}
