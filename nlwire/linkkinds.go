// The IFLA_INFO_DATA of bonds, vlans and macvlans and a bond port's
// IFLA_INFO_SLAVE_DATA, read into netdev settings and written from
// netdev's reports. Kernel: bond_policy, bond_slave_policy,
// bond_changelink, bond_slave_changelink, bond_fill_info,
// bond_fill_slave_info (drivers/net/bonding/bond_netlink.c); vlan_policy,
// vlan_map_policy, vlan_validate, vlan_changelink, vlan_fill_info
// (net/8021q/vlan_netlink.c); macvlan_policy, macvlan_fill_info
// (drivers/net/macvlan.c).

package nlwire

import (
	"encoding/binary"
	"net/netip"
	"syscall"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
)

// ifla_bond_* attributes this package's uapi lacks (include/uapi/linux/if_link.h).
const (
	iflaBondAdLacpRate     = 21 // IFLA_BOND_AD_LACP_RATE
	iflaBondAdSelect       = 22 // IFLA_BOND_AD_SELECT
	iflaBondAdInfo         = 23 // IFLA_BOND_AD_INFO
	iflaBondAdActorSysPrio = 24 // IFLA_BOND_AD_ACTOR_SYS_PRIO
	iflaBondAdUserPortKey  = 25 // IFLA_BOND_AD_USER_PORT_KEY
	iflaBondAdActorSystem  = 26 // IFLA_BOND_AD_ACTOR_SYSTEM
	iflaBondAdLacpActive   = 29 // IFLA_BOND_AD_LACP_ACTIVE
	iflaBondBroadcastNeigh = 33 // IFLA_BOND_BROADCAST_NEIGH
)

// bondPolicy is bond_policy (Linux 6.18).
var bondPolicy = func() policy {
	p := make([]attrPolicy, iflaBondBroadcastNeigh+1)
	for _, t := range []int{uapi.IFLA_BOND_MODE, uapi.IFLA_BOND_USE_CARRIER, uapi.IFLA_BOND_PRIMARY_RESELECT,
		uapi.IFLA_BOND_FAIL_OVER_MAC, uapi.IFLA_BOND_XMIT_HASH_POLICY, uapi.IFLA_BOND_NUM_PEER_NOTIF,
		uapi.IFLA_BOND_ALL_SLAVES_ACTIVE, iflaBondAdLacpActive, iflaBondAdLacpRate, iflaBondAdSelect,
		uapi.IFLA_BOND_TLB_DYNAMIC_LB, uapi.IFLA_BOND_MISSED_MAX, uapi.IFLA_BOND_COUPLED_CONTROL, iflaBondBroadcastNeigh} {
		p[t] = attrPolicy{typ: nlaU8}
	}
	for _, t := range []int{uapi.IFLA_BOND_ACTIVE_SLAVE, uapi.IFLA_BOND_MIIMON, uapi.IFLA_BOND_UPDELAY,
		uapi.IFLA_BOND_DOWNDELAY, uapi.IFLA_BOND_ARP_INTERVAL, uapi.IFLA_BOND_ARP_VALIDATE,
		uapi.IFLA_BOND_ARP_ALL_TARGETS, uapi.IFLA_BOND_PRIMARY, uapi.IFLA_BOND_RESEND_IGMP,
		uapi.IFLA_BOND_MIN_LINKS, uapi.IFLA_BOND_LP_INTERVAL, uapi.IFLA_BOND_PACKETS_PER_SLAVE} {
		p[t] = attrPolicy{typ: nlaU32}
	}
	for _, t := range []int{uapi.IFLA_BOND_ARP_IP_TARGET, iflaBondAdInfo, uapi.IFLA_BOND_NS_IP6_TARGET} {
		p[t] = attrPolicy{typ: nlaNested}
	}
	p[iflaBondAdActorSysPrio] = attrPolicy{typ: nlaU16}
	p[iflaBondAdUserPortKey] = attrPolicy{typ: nlaU16}
	p[iflaBondAdActorSystem] = attrPolicy{typ: nlaBinary, len: 6}
	p[uapi.IFLA_BOND_PEER_NOTIF_DELAY] = polRange(nlaU32, 0, 300000) // delay_range
	return policy{attrs: p}
}()

// bondSlavePolicy is bond_slave_policy.
var bondSlavePolicy = policy{attrs: []attrPolicy{
	uapi.IFLA_BOND_SLAVE_QUEUE_ID: {typ: nlaU16}, uapi.IFLA_BOND_SLAVE_PRIO: {typ: nlaS32},
}}

// bondSettings reads a bond's IFLA_INFO_DATA. IFLA_BOND_AD_INFO, which
// the kernel reports and bond_changelink does not read, is not looked at.
func bondSettings(d attrs) netdev.BondSettings {
	var s netdev.BondSettings
	u8 := func(t int) *uint8 { return optional(d, t, attrs.u8) }
	u32 := func(t int) *uint32 { return optional(d, t, attrs.u32) }
	ifindex := func(t int) *netdev.IfIndex {
		return optional(d, t, func(d attrs, t uint16) netdev.IfIndex { return netdev.IfIndex(d.u32(t)) })
	}
	s.Mode = optional(d, uapi.IFLA_BOND_MODE, func(d attrs, t uint16) netdev.BondMode { return netdev.BondMode(d.u8(t)) })
	s.ActiveSlave, s.Primary = ifindex(uapi.IFLA_BOND_ACTIVE_SLAVE), ifindex(uapi.IFLA_BOND_PRIMARY)
	s.Miimon, s.UpDelay, s.DownDelay = u32(uapi.IFLA_BOND_MIIMON), u32(uapi.IFLA_BOND_UPDELAY), u32(uapi.IFLA_BOND_DOWNDELAY)
	s.PeerNotifDelay, s.UseCarrier, s.ArpInterval = u32(uapi.IFLA_BOND_PEER_NOTIF_DELAY), u8(uapi.IFLA_BOND_USE_CARRIER), u32(uapi.IFLA_BOND_ARP_INTERVAL)
	s.ArpIPTargets = bondTargets(d, uapi.IFLA_BOND_ARP_IP_TARGET, 4)
	s.NSIP6Targets = bondTargets(d, uapi.IFLA_BOND_NS_IP6_TARGET, 16)
	s.ArpValidate, s.ArpAllTargets = u32(uapi.IFLA_BOND_ARP_VALIDATE), u32(uapi.IFLA_BOND_ARP_ALL_TARGETS)
	s.PrimaryReselect, s.FailOverMac, s.XmitHashPolicy = u8(uapi.IFLA_BOND_PRIMARY_RESELECT), u8(uapi.IFLA_BOND_FAIL_OVER_MAC), u8(uapi.IFLA_BOND_XMIT_HASH_POLICY)
	s.ResendIGMP, s.NumPeerNotif, s.AllSlavesActive = u32(uapi.IFLA_BOND_RESEND_IGMP), u8(uapi.IFLA_BOND_NUM_PEER_NOTIF), u8(uapi.IFLA_BOND_ALL_SLAVES_ACTIVE)
	s.MinLinks, s.LpInterval, s.PacketsPerSlave = u32(uapi.IFLA_BOND_MIN_LINKS), u32(uapi.IFLA_BOND_LP_INTERVAL), u32(uapi.IFLA_BOND_PACKETS_PER_SLAVE)
	s.LacpActive, s.LacpRate, s.AdSelect = u8(iflaBondAdLacpActive), u8(iflaBondAdLacpRate), u8(iflaBondAdSelect)
	s.AdActorSysPrio = optional(d, iflaBondAdActorSysPrio, attrs.u16)
	s.AdUserPortKey = optional(d, iflaBondAdUserPortKey, attrs.u16)
	if d.has(iflaBondAdActorSystem) {
		s.AdActorSystem = append([]byte{}, d.get(iflaBondAdActorSystem)...)
	}
	s.TLBDynamicLB, s.MissedMax = u8(uapi.IFLA_BOND_TLB_DYNAMIC_LB), u8(uapi.IFLA_BOND_MISSED_MAX)
	s.CoupledControl, s.BroadcastNeigh = u8(uapi.IFLA_BOND_COUPLED_CONTROL), u8(iflaBondBroadcastNeigh)
	return s
}

// bondTargets reads a target list as bond_changelink walks it
// (nla_for_each_nested, whatever each entry's type): an entry shorter than
// an address of size n is an invalid netip.Addr, which the bond refuses
// when it comes to it; a longer one is read for its first n bytes.
func bondTargets(d attrs, t uint16, n int) *[]netip.Addr {
	if !d.has(t) {
		return nil
	}
	list := []netip.Addr{}
	for a := range attrSeq(d.get(t), 0) {
		switch {
		case len(a.data) < n:
			list = append(list, netip.Addr{})
		case n == 4:
			list = append(list, netip.AddrFrom4([4]byte(a.data[:4])))
		default:
			list = append(list, netip.AddrFrom16([16]byte(a.data[:16])))
		}
	}
	return &list
}

// bondSlaveSettings reads a bond port's IFLA_INFO_SLAVE_DATA
// (nla_parse_nested_deprecated with bond_slave_policy).
func bondSlaveSettings(b []byte, base int) (netdev.BondSlaveSettings, error) {
	d, err := parseAttrs(b, base, bondSlavePolicy, validateLiberal)
	if err != nil {
		return netdev.BondSlaveSettings{}, err
	}
	return netdev.BondSlaveSettings{
		QueueID: optional(d, uapi.IFLA_BOND_SLAVE_QUEUE_ID, attrs.u16),
		Prio:    optional(d, uapi.IFLA_BOND_SLAVE_PRIO, func(d attrs, t uint16) int32 { return int32(d.u32(t)) }),
	}, nil
}

// vlanSettings reads a vlan's IFLA_INFO_DATA: the protocol (host order; 0
// when not sent), and the flags and maps. IFLA_VLAN_FLAGS is struct
// ifla_vlan_flags, its first 8 bytes read whatever follows; a map entry of
// type IFLA_VLAN_QOS_MAPPING is struct ifla_vlan_qos_mapping, other
// entries are skipped. A map with a mapping shorter than 8 bytes is
// refused as vlan_validate refuses it (vlan_map_policy's length).
func vlanSettings(d attrs) (uint16, netdev.VlanSettings, error) {
	var s netdev.VlanSettings
	var proto uint16
	if d.has(uapi.IFLA_VLAN_PROTOCOL) {
		proto = binary.BigEndian.Uint16(d.get(uapi.IFLA_VLAN_PROTOCOL)) // NLA_BE16 on the wire
		s.Protocol = &proto
	}
	s.ID = optional(d, uapi.IFLA_VLAN_ID, attrs.u16)
	if f := d.get(uapi.IFLA_VLAN_FLAGS); f != nil {
		s.Flags = &netdev.VlanFlags{Flags: binary.LittleEndian.Uint32(f), Mask: binary.LittleEndian.Uint32(f[4:])}
	}
	qos := func(t uint16, which string) ([]netdev.VlanQoSMapping, error) {
		if !d.has(t) {
			return nil, nil
		}
		list := []netdev.VlanQoSMapping{}
		for a := range attrSeq(d.get(t), 0) {
			if a.typ != uapi.IFLA_VLAN_QOS_MAPPING {
				continue
			}
			if len(a.data) < 8 {
				return nil, errno.New(syscall.ERANGE, "8021q: Invalid "+which+" QOS map")
			}
			list = append(list, netdev.VlanQoSMapping{From: binary.LittleEndian.Uint32(a.data), To: binary.LittleEndian.Uint32(a.data[4:])})
		}
		return list, nil
	}
	var err error
	if s.IngressQoS, err = qos(uapi.IFLA_VLAN_INGRESS_QOS, "ingress"); err != nil {
		return proto, s, err
	}
	s.EgressQoS, err = qos(uapi.IFLA_VLAN_EGRESS_QOS, "egress")
	return proto, s, err
}

// macvlanSettings reads a macvlan's IFLA_INFO_DATA beside its mode. The
// source mode's address lists are refused by name when their mode
// attribute asks for one (netdev.MacvlanSettings.MacaddrMode); an address
// or list without it is not looked at, as macvlan_common_newlink and
// macvlan_changelink do not.
func macvlanSettings(d attrs) netdev.MacvlanSettings {
	return netdev.MacvlanSettings{
		Mode: optional(d, uapi.IFLA_MACVLAN_MODE, func(d attrs, t uint16) netdev.MacvlanMode {
			return netdev.MacvlanMode(d.u32(t))
		}),
		Flags:        optional(d, uapi.IFLA_MACVLAN_FLAGS, attrs.u16),
		BcQueueLen:   optional(d, uapi.IFLA_MACVLAN_BC_QUEUE_LEN, attrs.u32),
		BcCutoff:     optional(d, uapi.IFLA_MACVLAN_BC_CUTOFF, func(d attrs, t uint16) int32 { return int32(d.u32(t)) }),
		MacaddrMode:  optional(d, uapi.IFLA_MACVLAN_MACADDR_MODE, attrs.u32),
		MacaddrCount: optional(d, uapi.IFLA_MACVLAN_MACADDR_COUNT, attrs.u32),
		Macaddr:      d.get(uapi.IFLA_MACVLAN_MACADDR),
	}
}

// fillBond is bond_fill_info: the mode, the active slave (when there is
// one), the monitors, the targets (a list without targets is not sent),
// the primary (when set), the rest; an 802.3ad bond's actor settings
// (the caller has CAP_NET_ADMIN) but not IFLA_BOND_AD_INFO, which needs
// an aggregator the LACP state machine (not modelled) selects.
func fillBond(d *netlink.AttributeEncoder, b *netdev.BondInfo) {
	d.Uint8(uapi.IFLA_BOND_MODE, uint8(b.Mode))
	if b.ActiveSlave != 0 {
		d.Uint32(uapi.IFLA_BOND_ACTIVE_SLAVE, uint32(b.ActiveSlave))
	}
	d.Uint32(uapi.IFLA_BOND_MIIMON, b.Miimon)
	d.Uint32(uapi.IFLA_BOND_UPDELAY, b.UpDelay)
	d.Uint32(uapi.IFLA_BOND_DOWNDELAY, b.DownDelay)
	d.Uint32(uapi.IFLA_BOND_PEER_NOTIF_DELAY, b.PeerNotifDelay)
	d.Uint8(uapi.IFLA_BOND_USE_CARRIER, b.UseCarrier)
	d.Uint32(uapi.IFLA_BOND_ARP_INTERVAL, b.ArpInterval)
	targets := func(t uint16, list []netip.Addr, flag uint16) {
		if len(list) == 0 {
			return
		}
		nestNoFlag(d, t|flag, func(n *netlink.AttributeEncoder) {
			for i, a := range list {
				n.Bytes(uint16(i), a.AsSlice())
			}
		})
	}
	targets(uapi.IFLA_BOND_ARP_IP_TARGET, b.ArpIPTargets, 0)
	d.Uint32(uapi.IFLA_BOND_ARP_VALIDATE, b.ArpValidate)
	d.Uint32(uapi.IFLA_BOND_ARP_ALL_TARGETS, b.ArpAllTargets)
	targets(uapi.IFLA_BOND_NS_IP6_TARGET, b.NSIP6Targets, nlaFNested) // nla_nest_start
	if b.Primary != 0 {
		d.Uint32(uapi.IFLA_BOND_PRIMARY, uint32(b.Primary))
	}
	d.Uint8(uapi.IFLA_BOND_PRIMARY_RESELECT, b.PrimaryReselect)
	d.Uint8(uapi.IFLA_BOND_FAIL_OVER_MAC, b.FailOverMac)
	d.Uint8(uapi.IFLA_BOND_XMIT_HASH_POLICY, b.XmitHashPolicy)
	d.Uint32(uapi.IFLA_BOND_RESEND_IGMP, b.ResendIGMP)
	d.Uint8(uapi.IFLA_BOND_NUM_PEER_NOTIF, b.NumPeerNotif)
	d.Uint8(uapi.IFLA_BOND_ALL_SLAVES_ACTIVE, b.AllSlavesActive)
	d.Uint32(uapi.IFLA_BOND_MIN_LINKS, b.MinLinks)
	d.Uint32(uapi.IFLA_BOND_LP_INTERVAL, b.LpInterval)
	d.Uint32(uapi.IFLA_BOND_PACKETS_PER_SLAVE, b.PacketsPerSlave)
	d.Uint8(iflaBondAdLacpActive, b.LacpActive)
	d.Uint8(iflaBondAdLacpRate, b.LacpRate)
	d.Uint8(iflaBondAdSelect, b.AdSelect)
	d.Uint8(uapi.IFLA_BOND_TLB_DYNAMIC_LB, b.TLBDynamicLB)
	d.Uint8(uapi.IFLA_BOND_MISSED_MAX, b.MissedMax)
	d.Uint8(uapi.IFLA_BOND_COUPLED_CONTROL, b.CoupledControl)
	d.Uint8(iflaBondBroadcastNeigh, b.BroadcastNeigh)
	if b.Mode == netdev.Bond8023AD {
		d.Uint16(iflaBondAdActorSysPrio, b.AdActorSysPrio)
		d.Uint16(iflaBondAdUserPortKey, b.AdUserPortKey)
		d.Bytes(iflaBondAdActorSystem, b.AdActorSystem[:])
	}
}

// fillBondSlave is bond_fill_slave_info without the 802.3ad attributes
// (see netdev.BondSlaveInfo).
func fillBondSlave(d *netlink.AttributeEncoder, s *netdev.BondSlaveInfo) {
	d.Uint8(uapi.IFLA_BOND_SLAVE_STATE, s.State)
	d.Uint8(uapi.IFLA_BOND_SLAVE_MII_STATUS, s.MIIStatus)
	d.Uint32(uapi.IFLA_BOND_SLAVE_LINK_FAILURE_COUNT, s.LinkFailureCount)
	d.Bytes(uapi.IFLA_BOND_SLAVE_PERM_HWADDR, s.PermHWAddr[:])
	d.Uint16(uapi.IFLA_BOND_SLAVE_QUEUE_ID, s.QueueID)
	d.Int32(uapi.IFLA_BOND_SLAVE_PRIO, s.Prio)
}

// fillVlan is vlan_fill_info.
func fillVlan(d *netlink.AttributeEncoder, v *netdev.VlanInfo) {
	var proto [2]byte
	binary.BigEndian.PutUint16(proto[:], v.Protocol)
	d.Bytes(uapi.IFLA_VLAN_PROTOCOL, proto[:])
	d.Uint16(uapi.IFLA_VLAN_ID, v.ID)
	if v.Flags != 0 {
		var f [8]byte
		binary.LittleEndian.PutUint32(f[:], v.Flags)
		binary.LittleEndian.PutUint32(f[4:], ^uint32(0))
		d.Bytes(uapi.IFLA_VLAN_FLAGS, f[:])
	}
	qos := func(t uint16, list []netdev.VlanQoSMapping) {
		if len(list) == 0 {
			return
		}
		nestNoFlag(d, t, func(n *netlink.AttributeEncoder) {
			for _, m := range list {
				var b [8]byte
				binary.LittleEndian.PutUint32(b[:], m.From)
				binary.LittleEndian.PutUint32(b[4:], m.To)
				n.Bytes(uapi.IFLA_VLAN_QOS_MAPPING, b[:])
			}
		})
	}
	qos(uapi.IFLA_VLAN_INGRESS_QOS, v.IngressQoS)
	qos(uapi.IFLA_VLAN_EGRESS_QOS, v.EgressQoS)
}

// fillMacvlan is macvlan_fill_info (no source addresses: the count is 0
// and the list absent).
func fillMacvlan(d *netlink.AttributeEncoder, m *netdev.MacvlanInfo) {
	d.Uint32(uapi.IFLA_MACVLAN_MODE, uint32(m.Mode))
	d.Uint16(uapi.IFLA_MACVLAN_FLAGS, m.Flags)
	d.Uint32(uapi.IFLA_MACVLAN_MACADDR_COUNT, 0)
	d.Uint32(uapi.IFLA_MACVLAN_BC_QUEUE_LEN, m.BcQueueLen)
	d.Uint32(uapi.IFLA_MACVLAN_BC_QUEUE_LEN_USED, m.BcQueueLenUsed)
	if m.BcCutoff != 1 {
		d.Int32(uapi.IFLA_MACVLAN_BC_CUTOFF, m.BcCutoff)
	}
}
