package nlwire

import (
	"encoding/binary"
	"syscall"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// ifinfomsgLen is sizeof(struct ifinfomsg).
const ifinfomsgLen = 16

// ifinfomsg is struct ifinfomsg, the fixed header of the link messages.
type ifinfomsg struct {
	family uint8
	pad    uint8
	typ    uint16
	index  int32
	flags  uint32
	change uint32
}

func parseIfinfomsg(b []byte) ifinfomsg {
	return ifinfomsg{
		family: b[0], pad: b[1],
		typ:    binary.LittleEndian.Uint16(b[2:]),
		index:  int32(binary.LittleEndian.Uint32(b[4:])),
		flags:  binary.LittleEndian.Uint32(b[8:]),
		change: binary.LittleEndian.Uint32(b[12:]),
	}
}

func (m ifinfomsg) marshal() []byte {
	b := make([]byte, ifinfomsgLen)
	b[0], b[1] = m.family, m.pad
	binary.LittleEndian.PutUint16(b[2:], m.typ)
	binary.LittleEndian.PutUint32(b[4:], uint32(m.index))
	binary.LittleEndian.PutUint32(b[8:], m.flags)
	binary.LittleEndian.PutUint32(b[12:], m.change)
	return b
}

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

// iflaInfoPolicy is ifla_info_policy.
var iflaInfoPolicy = policy{attrs: []attrPolicy{
	uapi.IFLA_INFO_KIND:       {typ: nlaString},
	uapi.IFLA_INFO_DATA:       {typ: nlaNested},
	uapi.IFLA_INFO_XSTATS:     {},
	uapi.IFLA_INFO_SLAVE_KIND: {typ: nlaString},
	uapi.IFLA_INFO_SLAVE_DATA: {typ: nlaNested},
}}

// The kinds' IFLA_INFO_DATA policies: veth_policy, macvlan_policy,
// vlan_policy, vrf_nl_policy and the first entry of bond_policy.
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
	vrfPolicy  = policy{attrs: []attrPolicy{uapi.IFLA_VRF_TABLE: {typ: nlaU32}}}
	bondPolicy = policy{attrs: []attrPolicy{uapi.IFLA_BOND_MODE: {typ: nlaU8}, uapi.IFLA_BOND_COUPLED_CONTROL: {}}}
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

func init() {
	register(uapi.AF_UNSPEC, rt.RTMGetLink, handler{do: getLink, dump: dumpLinks})
	register(uapi.AF_UNSPEC, rt.RTMNewLink, handler{do: newLink})
	register(uapi.AF_UNSPEC, rt.RTMSetLink, handler{do: setLink})
	register(uapi.AF_UNSPEC, rt.RTMDelLink, handler{do: delLink})
	// PF_BRIDGE's own link handlers (rtnl_bridge_getlink, _setlink,
	// _dellink) are in unmodelled.go.
	registerNotify(rt.RTMNewLink, linkNotify)
	registerNotify(rt.RTMDelLink, linkNotify)
}

// linkNotify builds an RTM_NEWLINK or RTM_DELLINK notification for
// RTNLGRP_LINK: a device's, or a bridge's about one of its ports.
//
// Kernel: rtmsg_ifinfo_event → rtnl_fill_ifinfo (net/core/rtnetlink.c);
// br_ifinfo_notify (net/bridge/br_netlink.c).
func linkNotify(n rtnl.Notification) ([]byte, uint32, error) {
	if n.Link == nil {
		return nil, 0, nil
	}
	if n.Family == rtnl.FamilyBridge {
		return bridgePortMessage(*n.Link, n.Type == rt.RTMDelLink), uapi.RTNLGRP_LINK, nil
	}
	return linkMessageEvent(*n.Link, n.Change, n.Event), uapi.RTNLGRP_LINK, nil
}

// parseLinkRequest checks a link request's length and parses its
// attributes as nlmsg_parse_deprecated does.
func parseLinkRequest(r *request) (ifinfomsg, attrs, error) {
	if len(r.body) < ifinfomsgLen {
		return ifinfomsg{}, attrs{}, errno.New(syscall.EINVAL, "Invalid header length")
	}
	a, err := parseAttrs(r.body[ifinfomsgLen:], 16+ifinfomsgLen, iflaPolicy, validateLiberal)
	return parseIfinfomsg(r.body), a, err
}

// ensureUniqueNetns is rtnl_ensure_unique_netns; the namespace attributes
// themselves are refused afterwards as not modelled.
func ensureUniqueNetns(a attrs, idOnly bool) error {
	pid, fd, id := a.has(uapi.IFLA_NET_NS_PID), a.has(uapi.IFLA_NET_NS_FD), a.has(uapi.IFLA_TARGET_NETNSID)
	if idOnly {
		if pid || fd {
			return errno.New(syscall.EOPNOTSUPP, "specified netns attribute not supported")
		}
		return nil
	}
	if id && (pid || fd) || pid && fd {
		return errno.New(syscall.EINVAL, "multiple netns identifying attributes specified")
	}
	return nil
}

// getLink serves RTM_GETLINK without NLM_F_DUMP.
//
// Kernel: rtnl_getlink, rtnl_valid_getlink_req (net/core/rtnetlink.c).
func getLink(r *request) ([]netlink.Message, error) {
	if len(r.body) < ifinfomsgLen {
		return nil, errno.New(syscall.EINVAL, "Invalid header for get link")
	}
	m := parseIfinfomsg(r.body)
	v := validateLiberal
	if r.strict {
		if m.pad != 0 || m.typ != 0 || m.flags != 0 || m.change != 0 {
			return nil, errno.New(syscall.EINVAL, "Invalid values in header for get link request")
		}
		v = validateDeprecatedStrict
	}
	a, err := parseAttrs(r.body[ifinfomsgLen:], 16+ifinfomsgLen, iflaPolicy, v)
	if err != nil {
		return nil, err
	}
	if r.strict {
		for t := range a.present() {
			switch t {
			case uapi.IFLA_IFNAME, uapi.IFLA_ALT_IFNAME, uapi.IFLA_EXT_MASK, uapi.IFLA_TARGET_NETNSID:
			default:
				return nil, errno.New(syscall.EINVAL, "Unsupported attribute in get link request")
			}
		}
	}
	if err := ensureUniqueNetns(a, true); err != nil {
		return nil, err
	}
	if a.has(uapi.IFLA_TARGET_NETNSID) {
		return nil, errno.New(syscall.EOPNOTSUPP, "IFLA_TARGET_NETNSID is not modelled by netsim")
	}
	req := rtnl.LinkGetRequest{Origin: r.origin, Index: netdev.IfIndex(max(m.index, 0))}
	if m.index <= 0 {
		req.Name = linkName(a)
	}
	li, err := r.h.GetLink(req)
	if err != nil {
		return nil, bareErrno(err, syscall.ENODEV)
	}
	return []netlink.Message{{
		Header: netlink.Header{Type: netlink.HeaderType(rt.RTMNewLink)},
		Data:   linkMessage(li, 0),
	}}, nil
}

// linkName is the name a request looks a device up by: IFLA_IFNAME, or
// IFLA_ALT_IFNAME (netsim has no alternative names, so only a device's
// own name finds it), cut at the first NUL.
//
// Kernel: rtnl_dev_get.
func linkName(a attrs) string {
	if a.has(uapi.IFLA_IFNAME) {
		return a.str(uapi.IFLA_IFNAME)
	}
	return a.str(uapi.IFLA_ALT_IFNAME)
}

// dumpLinks serves RTM_GETLINK with NLM_F_DUMP: the request's header and
// attributes parsed into an rtnl.LinkDumpRequest, which checks them.
//
// Kernel: rtnl_dump_ifinfo, rtnl_valid_dump_ifinfo_req.
func dumpLinks(r *request) (dumper, error) {
	req := rtnl.LinkDumpRequest{Origin: r.origin, Strict: r.strict}
	var a attrs
	var err error
	if r.strict {
		if len(r.body) < ifinfomsgLen {
			return nil, errno.New(syscall.EINVAL, "Invalid header for link dump")
		}
		m := parseIfinfomsg(r.body)
		req.BadHeader = m.pad != 0 || m.typ != 0 || m.flags != 0 || m.change != 0
		req.Index = netdev.IfIndex(m.index)
		a, req.AttrErr = parseAttrs(r.body[ifinfomsgLen:], 16+ifinfomsgLen, iflaPolicy, validateDeprecatedStrict)
	} else {
		// An rtgenmsg of iproute2 before 3.9 is shorter than an
		// ifinfomsg: its attributes start after the one byte (aligned).
		hdr := ifinfomsgLen
		if len(r.body) < ifinfomsgLen {
			hdr = 4 // NLMSG_ALIGN(sizeof(struct rtgenmsg))
		}
		if len(r.body) >= hdr {
			a, err = parseAttrs(r.body[hdr:], 16+hdr, iflaPolicy, validateLiberal)
		}
		if err != nil || len(r.body) < hdr {
			a = attrs{} // a failed parse walks every device unfiltered
		}
	}
	pos := 0
	for t, v := range a.present() {
		if v == nil {
			continue
		}
		pos++
		switch t {
		case uapi.IFLA_TARGET_NETNSID:
			req.TargetNetnsIDAt = pos
		case uapi.IFLA_EXT_MASK:
		case uapi.IFLA_MASTER:
			req.Master = netdev.IfIndex(a.u32(uint16(t)))
		case uapi.IFLA_LINKINFO:
			req.Kind = linkinfoKind(v)
		default:
			if req.UnsupportedAt == 0 {
				req.UnsupportedAt = pos
			}
		}
	}
	ld, err := r.h.DumpLinks(req)
	if err != nil {
		return nil, err
	}
	d := &linkDumper{d: ld}
	if ld.Filtered() {
		d.flags = netlink.HeaderFlags(uapi.NLM_F_DUMP_FILTERED)
	}
	return d, nil
}

// linkDumper puts an rtnl link dump's devices into messages.
type linkDumper struct {
	d     *rtnl.LinkDump
	flags netlink.HeaderFlags
}

// fill puts the devices from the cursor on, and checks the dump's
// consistency against dev_base_seq.
//
// Kernel: rtnl_dump_ifinfo, rtnl_fill_ifinfo.
func (d *linkDumper) fill(p *part) (bool, error) {
	var perr error
	ds, err := d.d.Next(putEach(p, rt.RTMNewLink, d.flags, func(li *rtnl.LinkInfo, _ int) ([]byte, error) {
		return linkMessage(*li, 0), nil
	}, &perr))
	if err != nil {
		return false, err
	}
	p.checkConsistent(ds.Seq)
	return ds.Done, perr
}

func (d *linkDumper) close() { d.d.Close() }

// linkinfoKind is the IFLA_INFO_KIND of a dump's IFLA_LINKINFO, or "".
func linkinfoKind(b []byte) string {
	li, err := parseAttrs(b, 0, iflaInfoPolicy, validateLiberal)
	if err != nil {
		return ""
	}
	return li.str(uapi.IFLA_INFO_KIND)
}

// unmodelledLinkAttrs are the attributes do_setlink and rtnl_create_link
// act on that netsim does not model: a request carrying one is refused.
var unmodelledLinkAttrs = map[int]string{
	uapi.IFLA_MAP: "IFLA_MAP", uapi.IFLA_CARRIER: "IFLA_CARRIER",
	uapi.IFLA_GSO_MAX_SIZE: "IFLA_GSO_MAX_SIZE", uapi.IFLA_GSO_MAX_SEGS: "IFLA_GSO_MAX_SEGS",
	uapi.IFLA_GRO_MAX_SIZE: "IFLA_GRO_MAX_SIZE", uapi.IFLA_GSO_IPV4_MAX_SIZE: "IFLA_GSO_IPV4_MAX_SIZE",
	uapi.IFLA_GRO_IPV4_MAX_SIZE: "IFLA_GRO_IPV4_MAX_SIZE", uapi.IFLA_VFINFO_LIST: "IFLA_VFINFO_LIST",
	uapi.IFLA_VF_PORTS: "IFLA_VF_PORTS", uapi.IFLA_PORT_SELF: "IFLA_PORT_SELF",
	uapi.IFLA_AF_SPEC: "IFLA_AF_SPEC", uapi.IFLA_PROTO_DOWN: "IFLA_PROTO_DOWN",
	uapi.IFLA_PROTO_DOWN_REASON: "IFLA_PROTO_DOWN_REASON", uapi.IFLA_XDP: "IFLA_XDP",
	uapi.IFLA_NET_NS_PID: "IFLA_NET_NS_PID", uapi.IFLA_NET_NS_FD: "IFLA_NET_NS_FD",
	uapi.IFLA_TARGET_NETNSID: "IFLA_TARGET_NETNSID", uapi.IFLA_LINK_NETNSID: "IFLA_LINK_NETNSID",
	uapi.IFLA_NUM_TX_QUEUES: "IFLA_NUM_TX_QUEUES", uapi.IFLA_NUM_RX_QUEUES: "IFLA_NUM_RX_QUEUES",
}

// refuseUnmodelled refuses a request that carries an attribute netsim
// does not model. IFLA_OPERSTATE is modelled as the no-op it is for every
// value but IF_OPER_UP and IF_OPER_DORMANT (set_operstate), IFLA_LINKMODE
// as the no-op of mode 0 (every device's).
func refuseUnmodelled(a attrs) error {
	for t, v := range a.present() {
		if v == nil {
			continue
		}
		if name, ok := unmodelledLinkAttrs[t]; ok {
			return badAttr(errno.Errorf(syscall.EOPNOTSUPP, "%s is not modelled by netsim", name), a.offset(uint16(t)))
		}
	}
	if a.has(uapi.IFLA_OPERSTATE) {
		if s := a.u8(uapi.IFLA_OPERSTATE); s == uint8(netdev.OperUp) || s == uint8(netdev.OperDormant) {
			return badAttr(errno.New(syscall.EOPNOTSUPP, "IFLA_OPERSTATE UP and DORMANT are not modelled by netsim"), a.offset(uapi.IFLA_OPERSTATE))
		}
	}
	if a.has(uapi.IFLA_LINKMODE) && a.u8(uapi.IFLA_LINKMODE) != 0 {
		return badAttr(errno.New(syscall.EOPNOTSUPP, "IFLA_LINKMODE dormant is not modelled by netsim"), a.offset(uapi.IFLA_LINKMODE))
	}
	return nil
}

// unmodelledPeerAttrs are the attributes of a veth's VETH_INFO_PEER that
// rtnl_create_link or rtnl_get_peer_net act on and netsim does not model;
// veth_newlink ignores the others.
var unmodelledPeerAttrs = []int{
	uapi.IFLA_GSO_MAX_SIZE, uapi.IFLA_GSO_MAX_SEGS, uapi.IFLA_GRO_MAX_SIZE, uapi.IFLA_GSO_IPV4_MAX_SIZE,
	uapi.IFLA_GRO_IPV4_MAX_SIZE, uapi.IFLA_NUM_TX_QUEUES, uapi.IFLA_NUM_RX_QUEUES,
	uapi.IFLA_NET_NS_PID, uapi.IFLA_NET_NS_FD, uapi.IFLA_TARGET_NETNSID,
}

// refusePeerUnmodelled refuses a veth peer's attribute that netsim does not
// model, with IFLA_OPERSTATE and IFLA_LINKMODE as refuseUnmodelled has them.
func refusePeerUnmodelled(a attrs) error {
	for _, t := range unmodelledPeerAttrs {
		if a.has(uint16(t)) {
			return badAttr(errno.Errorf(syscall.EOPNOTSUPP, "%s of a veth peer is not modelled by netsim", unmodelledLinkAttrs[t]), a.offset(uint16(t)))
		}
	}
	return refuseUnmodelled(a.only(uapi.IFLA_OPERSTATE, uapi.IFLA_LINKMODE))
}

// linkChange decodes what do_setlink applies. addrOK checks IFLA_ADDRESS
// and IFLA_BROADCAST against an Ethernet address length, as
// validate_linkmsg does for every device netsim has.
func linkChange(m ifinfomsg, a attrs) (rtnl.LinkChange, error) {
	var c rtnl.LinkChange
	const addrLen = 6
	if a.has(uapi.IFLA_ADDRESS) && len(a.get(uapi.IFLA_ADDRESS)) < addrLen ||
		a.has(uapi.IFLA_BROADCAST) && len(a.get(uapi.IFLA_BROADCAST)) < addrLen {
		return c, errInval
	}
	if err := refuseUnmodelled(a); err != nil {
		return c, err
	}
	if a.has(uapi.IFLA_ADDRESS) {
		var mac netdev.MAC
		copy(mac[:], a.get(uapi.IFLA_ADDRESS))
		c.Addr = &mac
	}
	if a.has(uapi.IFLA_BROADCAST) {
		var mac netdev.MAC
		copy(mac[:], a.get(uapi.IFLA_BROADCAST))
		c.Broadcast = &mac
	}
	if a.has(uapi.IFLA_MTU) {
		mtu := netdev.NetlinkMTU(int(a.u32(uapi.IFLA_MTU)))
		c.MTU = &mtu
	}
	if a.has(uapi.IFLA_GROUP) {
		g := a.u32(uapi.IFLA_GROUP)
		c.Group = &g
	}
	c.Name = a.str(uapi.IFLA_IFNAME)
	if a.has(uapi.IFLA_IFALIAS) {
		al := string(a.get(uapi.IFLA_IFALIAS))
		c.Alias = &al
	}
	if m.flags != 0 || m.change != 0 {
		c.SetFlags, c.Flags, c.Change = true, netdev.Flags(m.flags), netdev.Flags(m.change)
	}
	if a.has(uapi.IFLA_MASTER) {
		i := netdev.IfIndex(a.u32(uapi.IFLA_MASTER))
		c.Master = &i
	}
	if a.has(uapi.IFLA_TXQLEN) {
		q := int(a.u32(uapi.IFLA_TXQLEN))
		c.TxQueueLen = &q
	}
	return c, nil
}

// setLink serves RTM_SETLINK.
//
// Kernel: rtnl_setlink.
func setLink(r *request) ([]netlink.Message, error) {
	m, a, err := parseLinkRequest(r)
	if err != nil {
		return nil, err
	}
	if err := ensureUniqueNetns(a, false); err != nil {
		return nil, err
	}
	c, err := linkChange(m, a)
	if err != nil {
		return nil, err
	}
	name := ""
	if m.index <= 0 {
		name = linkName(a)
		if name == "" && (a.has(uapi.IFLA_IFNAME) || a.has(uapi.IFLA_ALT_IFNAME)) {
			return nil, errno.New(syscall.ENODEV, "")
		}
	}
	return nil, bareErrno(r.h.SetLink(rtnl.LinkRequest{Origin: r.origin, Index: netdev.IfIndex(max(m.index, 0)), Name: name, Change: c}), syscall.ENODEV)
}

// delLink serves RTM_DELLINK.
//
// Kernel: rtnl_dellink, rtnl_group_dellink.
func delLink(r *request) ([]netlink.Message, error) {
	m, a, err := parseLinkRequest(r)
	if err != nil {
		return nil, err
	}
	if err := ensureUniqueNetns(a, true); err != nil {
		return nil, err
	}
	if a.has(uapi.IFLA_TARGET_NETNSID) {
		return nil, badAttr(errno.New(syscall.EOPNOTSUPP, "IFLA_TARGET_NETNSID is not modelled by netsim"), a.offset(uapi.IFLA_TARGET_NETNSID))
	}
	req := rtnl.LinkRequest{Origin: r.origin}
	switch {
	case m.index > 0:
		req.Index = netdev.IfIndex(m.index)
	case a.has(uapi.IFLA_IFNAME) || a.has(uapi.IFLA_ALT_IFNAME):
		if req.Name = linkName(a); req.Name == "" {
			return nil, errno.New(syscall.ENODEV, "")
		}
	case a.has(uapi.IFLA_GROUP):
		g := a.u32(uapi.IFLA_GROUP)
		req.Group = &g
	}
	return nil, delLinkErr(r.h.DelLink(req))
}

// delLinkErr drops the message of rtnl's errors that rtnl_dellink answers
// bare: no such device (ENODEV), a device without dellink such as lo
// (EOPNOTSUPP).
func delLinkErr(err error) error {
	return bareErrno(bareErrno(err, syscall.ENODEV), syscall.EOPNOTSUPP)
}

// validateDeprecatedStrict is NL_VALIDATE_DEPRECATED_STRICT, what
// nlmsg_parse_deprecated_strict uses: trailing bytes and unknown
// attribute types are refused, lengths checked as a liberal parse does.
const validateDeprecatedStrict = validateTrailing | validateMaxType
