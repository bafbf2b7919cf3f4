// The link messages on the wire: struct ifinfomsg, RTM_NEWLINK,
// RTM_SETLINK, RTM_DELLINK and RTM_GETLINK (doit and dumpit) parsed into
// rtnl's link requests, and their notifications. Kernel: rtnl_newlink,
// rtnl_setlink, rtnl_dellink, rtnl_getlink, rtnl_dump_ifinfo,
// rtnl_valid_getlink_req, rtnl_valid_dump_ifinfo_req
// (net/core/rtnetlink.c); the kinds' newlink (drivers/net/veth.c,
// drivers/net/macvlan.c, net/8021q/vlan_netlink.c, drivers/net/vrf.c,
// drivers/net/bonding/bond_netlink.c, net/bridge/br_netlink.c).

package nlwire

import (
	"encoding/binary"
	"errors"
	"strings"
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
	if n.Family == rt.FamilyBridge {
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
	req := rtnl.LinkGetRequest{Origin: r.origin, Index: netdev.IfIndex(max(m.index, 0)), GetChecks: rtnl.GetChecks{Strict: r.strict}}
	v := validateLiberal
	if r.strict {
		req.BadHeader = m.pad != 0 || m.typ != 0 || m.flags != 0 || m.change != 0
		v = validateDeprecatedStrict
	}
	a, err := parseAttrs(r.body[ifinfomsgLen:], 16+ifinfomsgLen, iflaPolicy, v)
	req.AttrErr = err
	if err != nil {
		a = attrs{}
	}
	for t := range a.present() {
		switch t {
		case uapi.IFLA_IFNAME, uapi.IFLA_ALT_IFNAME, uapi.IFLA_EXT_MASK, uapi.IFLA_TARGET_NETNSID:
		default:
			req.Unsupported = true
		}
	}
	req.Refused = ensureUniqueNetns(a, true)
	if a.has(uapi.IFLA_TARGET_NETNSID) {
		id := int32(a.u32(uapi.IFLA_TARGET_NETNSID))
		req.TargetNSID = &id
	}
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
			req.TargetNetnsIDAt, req.TargetNSID = pos, int32(a.u32(uapi.IFLA_TARGET_NETNSID))
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

// netnsRef is the namespace a link request's attributes name
// (rtnl_link_get_net_by_nlattr), of which rtnl_ensure_unique_netns let
// one at most through.
func netnsRef(a attrs) rtnl.NetnsRef {
	var r rtnl.NetnsRef
	switch {
	case a.has(uapi.IFLA_NET_NS_PID):
		pid := a.u32(uapi.IFLA_NET_NS_PID)
		r.PID = &pid
	case a.has(uapi.IFLA_NET_NS_FD):
		fd := a.u32(uapi.IFLA_NET_NS_FD)
		r.FD = &fd
	case a.has(uapi.IFLA_TARGET_NETNSID):
		id := int32(a.u32(uapi.IFLA_TARGET_NETNSID))
		r.NSID = &id
	}
	return r
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
	c.Netns = netnsRef(a)
	if a.has(uapi.IFLA_NEW_IFINDEX) {
		c.NewIndex = netdev.IfIndex(int32(a.u32(uapi.IFLA_NEW_IFINDEX)))
	}
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
	req := rtnl.LinkRequest{Origin: r.origin}
	if a.has(uapi.IFLA_TARGET_NETNSID) {
		id := int32(a.u32(uapi.IFLA_TARGET_NETNSID))
		req.TargetNSID = &id
	}
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
	if a.has(uapi.IFLA_LINK_NETNSID) {
		id := int32(a.u32(uapi.IFLA_LINK_NETNSID))
		req.LinkNSID = &id
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
	if kind == "vxlan" {
		// vxlan_validate, before anything else looks at the message.
		if err := vxlanAddrLen(a); err != nil {
			return nil, err
		}
	}
	if req.Change, err = linkChange(m, a); err != nil {
		return nil, err
	}
	if kind == "vxlan" {
		vs := vxlanSettings(data, info.has(uapi.IFLA_INFO_DATA))
		req.Change.Vxlan = &vs
	}
	req.Change.VlanNoData = kind == "vlan" && !info.has(uapi.IFLA_INFO_DATA)
	if known && info.has(uapi.IFLA_INFO_DATA) {
		switch kind {
		case "bridge":
			bs, err := bridgeSettings(data)
			if err != nil {
				return nil, err
			}
			req.Change.Bridge = &bs
		case "vxlan":
		case "bond":
			bs := bondSettings(data)
			req.Change.Bond = &bs
		case "vlan":
			_, vs, err := vlanSettings(data)
			if err != nil {
				return nil, err
			}
			req.Change.Vlan = &vs
		case "macvlan":
			ms := macvlanSettings(data)
			req.Change.Macvlan = &ms
		default:
			// The other kinds netsim models have no changelink
			// (veth, vrf, dummy, ifb): rtnl_changelink's EOPNOTSUPP.
			req.KindMismatch = true
		}
	}
	if info.has(uapi.IFLA_INFO_SLAVE_DATA) {
		if err := slaveData(&req.Change, info.get(uapi.IFLA_INFO_SLAVE_DATA), info.offset(uapi.IFLA_INFO_SLAVE_DATA)+nlaHdrLen); err != nil {
			return nil, err
		}
	}
	if create {
		switch {
		case !hasKind:
		case !netdev.KnownKind(kind):
			req.KindErr = errno.New(syscall.EOPNOTSUPP, "Unknown device type")
		default:
			spec, peer, err := linkSpec(r, m, a, kind, data)
			if err != nil {
				req.KindErr = err
			}
			req.Spec, req.Peer = spec, peer
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
	return nil, linkErrAttr(r.h.NewLink(req), a, data)
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

// linkSpec builds the device a creating RTM_NEWLINK describes, and for a
// veth with VETH_INFO_PEER what the request changes on the peer: its
// ifi_flags and ifi_change, and its namespace (rtnl_get_peer_net). A kind
// netsim does not model is refused.
func linkSpec(r *request, m ifinfomsg, a attrs, kind string, data attrs) (netdev.LinkSpec, *rtnl.LinkChange, error) {
	name := a.str(uapi.IFLA_IFNAME)
	at := createAttrs(m, a)
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
		return netdev.Dummy{Name: name, Attrs: at}, nil, nil
	case "ifb":
		return netdev.IFB{Name: name, Attrs: at}, nil, nil
	case "veth":
		v := netdev.Veth{Name: name, Attrs: at}
		var peer *rtnl.LinkChange
		if p := data.get(uapi.VETH_INFO_PEER); p != nil {
			pm := parseIfinfomsg(p)
			if pm.index < 0 {
				return nil, nil, badAttr(errno.New(syscall.EINVAL, "ifindex can't be negative"), data.offset(uapi.VETH_INFO_PEER))
			}
			pa, err := parseAttrs(p[ifinfomsgLen:], data.offset(uapi.VETH_INFO_PEER)+nlaHdrLen+ifinfomsgLen, iflaPolicy, validateLiberal)
			if err != nil {
				return nil, nil, err
			}
			if err := ensureUniqueNetns(pa, false); err != nil {
				return nil, nil, err
			}
			if err := refusePeerUnmodelled(pa); err != nil {
				return nil, nil, err
			}
			peer = &rtnl.LinkChange{Netns: netnsRef(pa)}
			if pm.flags != 0 || pm.change != 0 {
				peer.SetFlags, peer.Flags, peer.Change = true, netdev.Flags(pm.flags), netdev.Flags(pm.change)
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
		return v, peer, nil
	case "macvlan":
		ms := macvlanSettings(data)
		var mode netdev.MacvlanMode
		if ms.Mode != nil {
			mode = *ms.Mode
		}
		ms.Mode = nil
		return netdev.Macvlan{Name: name, LinkIndex: link, Mode: mode, Attrs: at, Settings: ms}, nil, nil
	case "vlan":
		if data.raw == nil {
			return netdev.Vlan{Name: name, LinkIndex: link, Attrs: at, NoData: true}, nil, nil
		}
		proto, vs, err := vlanSettings(data)
		if err != nil {
			return nil, nil, err
		}
		vs.ID = nil
		return netdev.Vlan{Name: name, LinkIndex: link, ID: data.u16(uapi.IFLA_VLAN_ID), Attrs: at, Protocol: proto, Settings: vs,
			NoID: !data.has(uapi.IFLA_VLAN_ID)}, nil, nil
	case "bond":
		return netdev.Bond{Name: name, Attrs: at, Settings: bondSettings(data)}, nil, nil
	case "vrf":
		if !data.has(uapi.IFLA_VRF_TABLE) {
			return nil, nil, errno.New(syscall.EINVAL, "VRF table id is missing")
		}
		return netdev.VRF{Name: name, Table: data.u32(uapi.IFLA_VRF_TABLE), Attrs: at}, nil, nil
	case "bridge":
		bs, err := bridgeSettings(data)
		if err != nil {
			return nil, nil, err
		}
		return netdev.Bridge{Name: name, Attrs: at, Settings: bs}, nil, nil
	case "vxlan":
		return netdev.Vxlan{Name: name, Attrs: at, Settings: vxlanSettings(data, len(data.sp) > 0)}, nil, nil
	}
	return nil, nil, errno.Errorf(syscall.EOPNOTSUPP, "Kind \"%s\" is not modelled by netsim", kind)
}

// slaveData reads IFLA_INFO_SLAVE_DATA under the slave policy of each
// master kind with one (bridge, bond): which applies is the device's
// master's, which rtnl finds. Data that neither policy takes is refused
// here with the bridge port's error.
func slaveData(c *rtnl.LinkChange, b []byte, base int) error {
	ps, perr := bridgePortSettings(b, base)
	bs, berr := bondSlaveSettings(b, base)
	if perr != nil && berr != nil {
		return perr
	}
	c.SlaveDataErr = map[string]error{}
	if perr == nil {
		c.BridgePort = &ps
	} else {
		c.SlaveDataErr["bridge"] = perr
	}
	if berr == nil {
		c.BondSlave = &bs
	} else {
		c.SlaveDataErr["bond"] = berr
	}
	return nil
}

// attrNums are the numbers of the attributes an rtnl error's Attr may
// name (errno.Error.At): the link message's own and IFLA_INFO_DATA's of a
// vxlan.
var attrNums = map[string]uint16{
	"IFLA_ADDRESS": uapi.IFLA_ADDRESS, "IFLA_MTU": uapi.IFLA_MTU,
	"IFLA_VXLAN_ID": uapi.IFLA_VXLAN_ID, "IFLA_VXLAN_GROUP": uapi.IFLA_VXLAN_GROUP,
	"IFLA_VXLAN_GROUP6": uapi.IFLA_VXLAN_GROUP6, "IFLA_VXLAN_LOCAL": uapi.IFLA_VXLAN_LOCAL,
	"IFLA_VXLAN_LOCAL6": uapi.IFLA_VXLAN_LOCAL6, "IFLA_VXLAN_PORT_RANGE": uapi.IFLA_VXLAN_PORT_RANGE,
	"IFLA_VXLAN_DF": uapi.IFLA_VXLAN_DF, "IFLA_VXLAN_VNIFILTER": uapi.IFLA_VXLAN_VNIFILTER,
	"IFLA_VXLAN_REMCSUM_NOPARTIAL": uapi.IFLA_VXLAN_REMCSUM_NOPARTIAL,
	"IFLA_VXLAN_RESERVED_BITS":     uapi.IFLA_VXLAN_RESERVED_BITS,
	"IFLA_VXLAN_LOCALBYPASS":       uapi.IFLA_VXLAN_LOCALBYPASS,
	"IFLA_VXLAN_LABEL_POLICY":      uapi.IFLA_VXLAN_LABEL_POLICY,
	"IFLA_VXLAN_MC_ROUTE":          uapi.IFLA_VXLAN_MC_ROUTE, "IFLA_VXLAN_GPE": uapi.IFLA_VXLAN_GPE,
	"IFLA_VXLAN_LIMIT": uapi.IFLA_VXLAN_LIMIT, "IFLA_VXLAN_PORT": uapi.IFLA_VXLAN_PORT,
	"IFLA_VXLAN_UDP_CSUM": uapi.IFLA_VXLAN_UDP_CSUM,
}

// linkErrAttr points an rtnl error's extack at the attribute its Attr
// names: "tb[NAME]" in the message's attributes a, "data[NAME]" in its
// IFLA_INFO_DATA. The kernel's tb[] is indexed by the number alone, so
// vxlan_nl2conf's tb[IFLA_VXLAN_PORT] is whatever link attribute has that
// number; an attribute the request does not carry reports no offset.
func linkErrAttr(err error, a, data attrs) error {
	var e *errno.Error
	if !errors.As(err, &e) || e.Attr == "" {
		return err
	}
	table, name, ok := strings.Cut(strings.TrimSuffix(e.Attr, "]"), "[")
	typ, known := attrNums[name]
	src := a
	if table == "data" {
		src = data
	}
	if !ok || !known || !src.has(typ) {
		return err
	}
	return badAttr(e, src.offset(typ))
}
