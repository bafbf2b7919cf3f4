// RTM_NEWLINK on the wire: the request's ifinfomsg, IFLA_LINKINFO and the
// kinds' IFLA_INFO_DATA parsed into an rtnl.LinkRequest. Kernel:
// rtnl_newlink, __rtnl_newlink, rtnl_create_link (net/core/rtnetlink.c);
// veth_newlink (drivers/net/veth.c), macvlan_common_newlink
// (drivers/net/macvlan.c), vlan_newlink (net/8021q/vlan_netlink.c),
// bond_newlink (drivers/net/bonding/bond_netlink.c), vrf_newlink
// (drivers/net/vrf.c), br_dev_newlink and br_changelink
// (net/bridge/br_netlink.c).

package nlwire

import (
	"encoding/binary"
	"errors"
	"syscall"

	"github.com/mdlayher/netlink"
	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// newLink serves RTM_NEWLINK: a change of an existing device, of a group,
// or a creation.
//
// Kernel: rtnl_newlink, __rtnl_newlink.
func newLink(r *request) ([]netlink.Message, error) {
	m, a, err := parseLinkRequest(r)
	if err != nil {
		return nil, err
	}
	if err := ensureUniqueNetns(a, false); err != nil {
		return nil, err
	}
	var info attrs
	if a.has(uapi.IFLA_LINKINFO) {
		// nla_parse_nested_deprecated without an extack.
		if info, err = parseAttrs(a.get(uapi.IFLA_LINKINFO), a.offset(uapi.IFLA_LINKINFO)+nlaHdrLen, iflaInfoPolicy, validateLiberal); err != nil {
			var ae *attrError
			if errors.As(err, &ae) {
				return nil, errno.New(ae.err.Errno, "")
			}
			return nil, err
		}
	}
	kind, hasKind := "", info.has(uapi.IFLA_INFO_KIND)
	if hasKind {
		kind = info.str(uapi.IFLA_INFO_KIND)
	}
	req := rtnl.LinkRequest{
		Origin: r.origin,
		Index:  netdev.IfIndex(m.index),
		Flags:  rt.NLMFlags(r.hdr.Flags) & (rt.NLMCreate | rt.NLMExcl | rt.NLMReplace),
	}
	create := req.Flags&rt.NLMCreate != 0
	if m.index == 0 {
		req.Name = linkName(a)
	}
	if a.has(uapi.IFLA_GROUP) {
		g := a.u32(uapi.IFLA_GROUP)
		req.Group = &g
	}
	known := hasKind && netdev.KnownKind(kind)
	// The kind's IFLA_INFO_DATA is parsed, and the kind validates the
	// request, before any device is looked up.
	var data attrs
	if known && info.has(uapi.IFLA_INFO_DATA) {
		if pol, ok := kindPolicy(kind); ok {
			if data, err = parseAttrs(info.get(uapi.IFLA_INFO_DATA), info.offset(uapi.IFLA_INFO_DATA)+nlaHdrLen, pol, validateLiberal); err != nil {
				return nil, err
			}
		}
	}
	if req.Change, err = linkChange(m, a); err != nil {
		return nil, err
	}
	if known && info.has(uapi.IFLA_INFO_DATA) {
		switch kind {
		case "bridge":
			bs, err := bridgeSettings(data)
			if err != nil {
				return nil, err
			}
			req.Change.Bridge = &bs
		default:
			// Changing a kind's data other than a bridge's is not
			// modelled (the kinds' changelink).
			req.KindMismatch = true
		}
	}
	if info.has(uapi.IFLA_INFO_SLAVE_DATA) {
		ps, err := bridgePortSettings(info.get(uapi.IFLA_INFO_SLAVE_DATA), info.offset(uapi.IFLA_INFO_SLAVE_DATA)+nlaHdrLen)
		if err != nil {
			return nil, err
		}
		req.Change.BridgePort = &ps
	}
	if create {
		switch {
		case !hasKind:
		case !netdev.KnownKind(kind):
			req.KindErr = errno.New(syscall.EOPNOTSUPP, "Unknown device type")
		default:
			spec, err := linkSpec(r, m, a, kind, data)
			if err != nil {
				req.KindErr = err
			}
			req.Spec = spec
			if p := data.get(uapi.VETH_INFO_PEER); kind == "veth" && len(p) >= ifinfomsgLen {
				if pm := parseIfinfomsg(p); pm.flags != 0 || pm.change != 0 {
					req.Peer = &rtnl.LinkChange{SetFlags: true, Flags: netdev.Flags(pm.flags), Change: netdev.Flags(pm.change)}
				}
			}
		}
	}
	if m.index == 0 && req.Name == "" && (a.has(uapi.IFLA_IFNAME) || a.has(uapi.IFLA_ALT_IFNAME)) {
		// An empty name names no device (rtnl_dev_get); a creation
		// with it is refused by rtnl_create_link (dev_valid_name).
		if !create {
			return nil, errno.New(syscall.ENODEV, "")
		}
		if req.Spec != nil && req.KindErr == nil && a.has(uapi.IFLA_IFNAME) {
			return nil, errInval
		}
	}
	// A name clash at register_netdevice and a master without ndo_add_slave
	// are bare errnos in the kernel: rtnl.HasExtack drops their text.
	return nil, r.h.NewLink(req)
}

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
	}
	return policy{}, false
}

// createAttrs are the common attributes rtnl_create_link applies.
func createAttrs(m ifinfomsg, a attrs) netdev.Attrs {
	at := netdev.Attrs{Index: netdev.IfIndex(m.index)}
	if a.has(uapi.IFLA_MTU) {
		at.MTU = int(int32(a.u32(uapi.IFLA_MTU)))
		at.Zero |= netdev.AttrMTU
	}
	if a.has(uapi.IFLA_TXQLEN) {
		at.TxQueueLen = int(a.u32(uapi.IFLA_TXQLEN))
		at.Zero |= netdev.AttrTxQueueLen
	}
	at.Group = a.u32(uapi.IFLA_GROUP)
	copy(at.Addr[:], a.get(uapi.IFLA_ADDRESS))
	return at
}

// linkSpec builds the device a creating RTM_NEWLINK describes. A kind
// netsim does not model, or a kind attribute it does not, is refused.
func linkSpec(r *request, m ifinfomsg, a attrs, kind string, data attrs) (netdev.LinkSpec, error) {
	name := a.str(uapi.IFLA_IFNAME)
	at := createAttrs(m, a)
	notModelled := func(attr string) error {
		return errno.Errorf(syscall.EOPNOTSUPP, "%s of kind %s is not modelled by netsim", attr, kind)
	}
	// IFLA_LINK names the lower device by ifindex. Its 0 names no device
	// (__dev_get_by_index finds none), which a LinkIndex of -1 says: a
	// LinkIndex of 0 is a spec without IFLA_LINK.
	var link netdev.IfIndex
	if a.has(uapi.IFLA_LINK) {
		if link = netdev.IfIndex(a.u32(uapi.IFLA_LINK)); link == 0 {
			link = -1
		}
	}
	switch kind {
	case "dummy":
		return netdev.Dummy{Name: name, Attrs: at}, nil
	case "veth":
		v := netdev.Veth{Name: name, Attrs: at}
		if p := data.get(uapi.VETH_INFO_PEER); p != nil {
			pm := parseIfinfomsg(p)
			if pm.index < 0 {
				return nil, badAttr(errno.New(syscall.EINVAL, "ifindex can't be negative"), data.offset(uapi.VETH_INFO_PEER))
			}
			pa, err := parseAttrs(p[ifinfomsgLen:], data.offset(uapi.VETH_INFO_PEER)+nlaHdrLen+ifinfomsgLen, iflaPolicy, validateLiberal)
			if err != nil {
				return nil, err
			}
			if err := refusePeerUnmodelled(pa); err != nil {
				return nil, err
			}
			v.Peer = pa.str(uapi.IFLA_IFNAME)
			v.PeerAttrs = createAttrs(pm, pa)
			if m.index == 0 {
				// veth_newlink gives the peer its ifi_index only when
				// the request gives the device one.
				v.PeerAttrs.Index = 0
			}
			// rtnl_configure_link of the peer, before the device is
			// registered: bringing it up fails in veth_open, which has
			// no peer yet. The peer's IFLA_MASTER and IFLA_IFALIAS are
			// not looked at.
			if pm.flags != 0 || pm.change != 0 {
				v.PeerUp = pm.flags&uapi.IFF_UP != 0 && (pm.change == 0 || pm.change&uapi.IFF_UP != 0)
			}
		}
		return v, nil
	case "macvlan":
		for _, t := range []int{uapi.IFLA_MACVLAN_FLAGS, uapi.IFLA_MACVLAN_MACADDR_MODE, uapi.IFLA_MACVLAN_MACADDR,
			uapi.IFLA_MACVLAN_MACADDR_DATA, uapi.IFLA_MACVLAN_MACADDR_COUNT, uapi.IFLA_MACVLAN_BC_QUEUE_LEN, uapi.IFLA_MACVLAN_BC_CUTOFF} {
			if data.has(uint16(t)) {
				return nil, notModelled("an IFLA_MACVLAN attribute other than the mode")
			}
		}
		return netdev.Macvlan{Name: name, LinkIndex: link, Mode: netdev.MacvlanMode(data.u32(uapi.IFLA_MACVLAN_MODE)), Attrs: at}, nil
	case "vlan":
		if data.has(uapi.IFLA_VLAN_PROTOCOL) && binary.BigEndian.Uint16(data.get(uapi.IFLA_VLAN_PROTOCOL)) != 0x8100 {
			return nil, notModelled("a protocol other than 802.1Q")
		}
		if data.has(uapi.IFLA_VLAN_EGRESS_QOS) || data.has(uapi.IFLA_VLAN_INGRESS_QOS) {
			return nil, notModelled("a QoS map")
		}
		if f := data.get(uapi.IFLA_VLAN_FLAGS); f != nil {
			flags, mask := binary.LittleEndian.Uint32(f), binary.LittleEndian.Uint32(f[4:])
			if flags&mask != rtnl.VlanFlagReorderHdr&mask {
				return nil, notModelled("a flag other than REORDER_HDR")
			}
		}
		if !data.has(uapi.IFLA_VLAN_ID) {
			// vlan_validate: "VLAN id not specified" (checked before
			// the lower device).
			return nil, errno.New(syscall.EINVAL, "VLAN id not specified")
		}
		return netdev.Vlan{Name: name, LinkIndex: link, ID: data.u16(uapi.IFLA_VLAN_ID), Attrs: at}, nil
	case "bond":
		return netdev.Bond{Name: name, Mode: netdev.BondMode(data.u8(uapi.IFLA_BOND_MODE)), Attrs: at}, nil
	case "vrf":
		if !data.has(uapi.IFLA_VRF_TABLE) {
			return nil, errno.New(syscall.EINVAL, "VRF table id is missing")
		}
		return netdev.VRF{Name: name, Table: data.u32(uapi.IFLA_VRF_TABLE), Attrs: at}, nil
	case "bridge":
		bs, err := bridgeSettings(data)
		if err != nil {
			return nil, err
		}
		return netdev.Bridge{Name: name, Attrs: at, Settings: bs}, nil
	}
	return nil, errno.Errorf(syscall.EOPNOTSUPP, "Kind \"%s\" is not modelled by netsim", kind)
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
	for _, t := range []int{uapi.IFLA_BRPORT_MAB, uapi.IFLA_BRPORT_NEIGH_VLAN_SUPPRESS, uapi.IFLA_BRPORT_MCAST_EHT_HOSTS_LIMIT,
		uapi.IFLA_BRPORT_MCAST_MAX_GROUPS, uapi.IFLA_BRPORT_BACKUP_NHID} {
		if d.has(uint16(t)) {
			return s, badAttr(errno.Errorf(syscall.EOPNOTSUPP, "Bridge port attribute %d is not modelled by netsim", t), d.offset(uint16(t)))
		}
	}
	return s, nil
}
