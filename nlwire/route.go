// Routes on the wire: RTM_NEWROUTE and RTM_DELROUTE requests of both
// families decoded into rtnl's route requests, RTM_GETROUTE dumps, and the
// RTM_NEWROUTE / RTM_DELROUTE messages of dumps and notifications encoded
// from rtnl.RouteInfo.

package nlwire

import (
	"bytes"
	"encoding/binary"
	"iter"
	"net/netip"
	"slices"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

func init() {
	for _, fam := range []uint8{uapi.AF_INET, uapi.AF_INET6} {
		register(fam, rt.RTMNewRoute, handler{do: newRoute})
		register(fam, rt.RTMDelRoute, handler{do: delRoute})
		register(fam, rt.RTMGetRoute, handler{do: getRoute, dump: dumpRoutes})
	}
	// rtnl_dump_all: a dump of every family's routes.
	register(uapi.AF_UNSPEC, rt.RTMGetRoute, handler{dump: dumpRoutes})
	registerNotify(rt.RTMNewRoute, notifyRoute)
	registerNotify(rt.RTMDelRoute, notifyRoute)
}

// rtmsgLen is sizeof(struct rtmsg).
const rtmsgLen = 12

// rtmsg is struct rtmsg, the fixed header of every route message.
type rtmsg struct {
	family, dstLen, srcLen, tos, table, protocol, scope, typ uint8
	flags                                                    uint32
}

func parseRtmsg(b []byte) rtmsg {
	return rtmsg{b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], binary.LittleEndian.Uint32(b[8:])}
}

func (m rtmsg) put(b []byte) []byte {
	b = append(b, m.family, m.dstLen, m.srcLen, m.tos, m.table, m.protocol, m.scope, m.typ)
	return binary.LittleEndian.AppendUint32(b, m.flags)
}

// routePolicy4 is rtm_ipv4_policy (net/ipv4/fib_frontend.c).
var routePolicy4 = policy{strictStart: uapi.RTA_DPORT + 1, attrs: []attrPolicy{
	uapi.RTA_DST:        {typ: nlaU32},
	uapi.RTA_SRC:        {typ: nlaU32},
	uapi.RTA_IIF:        {typ: nlaU32},
	uapi.RTA_OIF:        {typ: nlaU32},
	uapi.RTA_GATEWAY:    {typ: nlaU32},
	uapi.RTA_PRIORITY:   {typ: nlaU32},
	uapi.RTA_PREFSRC:    {typ: nlaU32},
	uapi.RTA_METRICS:    {typ: nlaNested},
	uapi.RTA_MULTIPATH:  {len: 8},
	uapi.RTA_FLOW:       {typ: nlaU32},
	uapi.RTA_ENCAP_TYPE: {typ: nlaU16},
	uapi.RTA_ENCAP:      {typ: nlaNested},
	uapi.RTA_UID:        {typ: nlaU32},
	uapi.RTA_MARK:       {typ: nlaU32},
	uapi.RTA_TABLE:      {typ: nlaU32},
	uapi.RTA_IP_PROTO:   {typ: nlaU8},
	uapi.RTA_SPORT:      {typ: nlaU16},
	uapi.RTA_DPORT:      {typ: nlaU16},
	uapi.RTA_NH_ID:      {typ: nlaU32},
	uapi.RTA_FLOWLABEL:  {},
}}

// routePolicy6 is rtm_ipv6_policy (net/ipv6/route.c).
var routePolicy6 = policy{strictStart: uapi.RTA_DPORT + 1, attrs: []attrPolicy{
	uapi.RTA_GATEWAY:    {len: 16},
	uapi.RTA_PREFSRC:    {len: 16},
	uapi.RTA_OIF:        {typ: nlaU32},
	uapi.RTA_IIF:        {typ: nlaU32},
	uapi.RTA_PRIORITY:   {typ: nlaU32},
	uapi.RTA_METRICS:    {typ: nlaNested},
	uapi.RTA_MULTIPATH:  {len: 8},
	uapi.RTA_PREF:       {typ: nlaU8},
	uapi.RTA_ENCAP_TYPE: {typ: nlaU16},
	uapi.RTA_ENCAP:      {typ: nlaNested},
	uapi.RTA_EXPIRES:    {typ: nlaU32},
	uapi.RTA_UID:        {typ: nlaU32},
	uapi.RTA_MARK:       {typ: nlaU32},
	uapi.RTA_TABLE:      {typ: nlaU32},
	uapi.RTA_IP_PROTO:   {typ: nlaU8},
	uapi.RTA_SPORT:      {typ: nlaU16},
	uapi.RTA_DPORT:      {typ: nlaU16},
	uapi.RTA_NH_ID:      {typ: nlaU32},
	uapi.RTA_FLOWLABEL:  {typ: nlaBE32},
}}

// lwtEncapMax is LWTUNNEL_ENCAP_MAX, the highest encapsulation type.
const lwtEncapMax = 10

// rawAttr is one attribute of a stream as nla_for_each_attr walks it.
type rawAttr struct {
	typ  uint16 // without NLA_F_NESTED and NLA_F_NET_BYTEORDER
	data []byte
	off  int // from the start of the message
}

// walkAttrs is nla_for_each_attr over b, which starts base bytes into the
// message: every well-formed attribute in order, stopping at the first
// malformed one.
func walkAttrs(b []byte, base int) []rawAttr { return slices.Collect(attrSeq(b, base)) }

// attrSeq is walkAttrs as an iterator, for a caller that keeps nothing.
func attrSeq(b []byte, base int) iter.Seq[rawAttr] {
	return func(yield func(rawAttr) bool) {
		pos := 0
		for len(b)-pos >= nlaHdrLen {
			n := int(binary.LittleEndian.Uint16(b[pos:]))
			if n < nlaHdrLen || n > len(b)-pos {
				return
			}
			if !yield(rawAttr{binary.LittleEndian.Uint16(b[pos+2:]) & nlaTypeMask, b[pos+nlaHdrLen : pos+n], base + pos}) {
				return
			}
			pos += (n + 3) &^ 3
		}
	}
}

// findAttr is nla_find: the first attribute of type t in as.
func findAttr(as []rawAttr, t uint16) *rawAttr {
	for i := range as {
		if as[i].typ == t {
			return &as[i]
		}
	}
	return nil
}

// gwFromVia is fib_gw_from_via: the gateway of an RTA_VIA (struct rtvia:
// a family and an address).
func gwFromVia(p []byte) (netip.Addr, error) {
	if len(p) < 2 {
		return netip.Addr{}, errno.New(syscall.EINVAL, "Invalid attribute length for RTA_VIA")
	}
	fam, a := binary.LittleEndian.Uint16(p), p[2:]
	switch fam {
	case uapi.AF_INET:
		if len(a) != 4 {
			return netip.Addr{}, errno.New(syscall.EINVAL, "Invalid IPv4 address in RTA_VIA")
		}
		return inAddr4(a), nil
	case uapi.AF_INET6:
		if len(a) != 16 {
			return netip.Addr{}, errno.New(syscall.EINVAL, "Invalid IPv6 address in RTA_VIA")
		}
		return inAddr6(a), nil
	}
	return netip.Addr{}, errno.New(syscall.EINVAL, "Unsupported address family in RTA_VIA")
}

// errEncap refuses route encapsulation, which netsim does not model.
var errEncap = errno.New(syscall.EOPNOTSUPP, "Route encapsulation (RTA_ENCAP) is not modelled")

// errRealm refuses a route realm, which netsim does not model.
var errRealm = errno.New(syscall.EOPNOTSUPP, "Route realms (RTA_FLOW) are not modelled")

// checkEncapType is lwtunnel_valid_encap_type for an RTA_ENCAP_TYPE that
// comes without an RTA_ENCAP (which netsim refuses): an unknown type is
// refused, a known one is ignored as the kernel ignores it then.
func checkEncapType(t uint16) error {
	if t == 0 || t > lwtEncapMax {
		return errno.New(syscall.EINVAL, "Unknown LWT encapsulation type")
	}
	return nil
}

// parseMetrics is ip_metrics_convert of an RTA_METRICS nest (whose
// payload starts base bytes into the message) into fib.Metrics, every
// metric present marked Given (fib_metrics_match compares those on a
// delete). Values are as sent: fib caps and validates them.
func parseMetrics(b []byte, base int) (fib.Metrics, error) {
	var m fib.Metrics
	for a := range attrSeq(b, base) {
		if a.typ == 0 {
			continue
		}
		if a.typ > uapi.RTAX_MAX {
			return m, errno.New(syscall.EINVAL, "Invalid metric type")
		}
		if a.typ == uapi.RTAX_CC_ALGO {
			// nla_strscpy into a TCP_CA_NAME_MAX (16) buffer.
			name := a.data
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if len(name) > 15 {
				name = name[:15]
			}
			m.CongCtl = string(name)
			if m.CongCtl == "" {
				// No algorithm is named "": tcp_ca_get_key_by_name fails.
				return m, errno.New(syscall.EINVAL, "Unknown tcp congestion algorithm")
			}
			m.Given |= 1 << rt.MetricCongCtl
			continue
		}
		if len(a.data) != 4 {
			return m, badAttr(errno.New(syscall.EINVAL, "Invalid attribute in metrics"), a.off)
		}
		m.Set(fib.Metric(a.typ), binary.LittleEndian.Uint32(a.data))
	}
	return m, nil
}

// rtnexthop is one struct rtnexthop of an RTA_MULTIPATH and its
// attributes.
type rtnexthop struct {
	flags   uint8
	hops    uint8
	ifindex int32
	attrs   []rawAttr
}

// parseMultipath splits an RTA_MULTIPATH payload (starting base bytes into
// the message) into its rtnexthops: rtnh_ok and rtnh_next, as
// fib_count_nexthops counts them. Extra bytes after the last whole one are
// an error for IPv4 (v4) and ignored for IPv6.
func parseMultipath(b []byte, base int, v4 bool) ([]rtnexthop, error) {
	var out []rtnexthop
	pos := 0
	for len(b)-pos >= 8 {
		n := int(binary.LittleEndian.Uint16(b[pos:]))
		if n < 8 || n > len(b)-pos {
			break
		}
		out = append(out, rtnexthop{
			flags: b[pos+2], hops: b[pos+3], ifindex: int32(binary.LittleEndian.Uint32(b[pos+4:])),
			attrs: walkAttrs(b[pos+8:pos+n], base+pos+8),
		})
		pos += (n + 3) &^ 3
	}
	if v4 && len(b) > pos {
		return nil, errno.New(syscall.EINVAL, "Invalid nexthop configuration - extra data after nexthops")
	}
	if len(out) == 0 {
		return nil, errInval
	}
	return out, nil
}

// paths4 is fib_get_nhs: the paths of an IPv4 RTA_MULTIPATH.
func paths4(nhs []rtnexthop) ([]rtnl.RoutePath, error) {
	var out []rtnl.RoutePath
	for _, nh := range nhs {
		if nh.flags&(uapi.RTNH_F_DEAD|uapi.RTNH_F_LINKDOWN) != 0 {
			return nil, errno.New(syscall.EINVAL, "Invalid flags for nexthop - can not contain DEAD or LINKDOWN")
		}
		p := rtnl.RoutePath{DevIndex: netdev.IfIndex(nh.ifindex), Weight: int(nh.hops) + 1, OnLink: nh.flags&uapi.RTNH_F_ONLINK != 0}
		gw, via := findAttr(nh.attrs, uapi.RTA_GATEWAY), findAttr(nh.attrs, uapi.RTA_VIA)
		switch {
		case gw != nil && via != nil:
			return nil, errno.New(syscall.EINVAL, "Nexthop configuration can not contain both GATEWAY and VIA")
		case gw != nil:
			if len(gw.data) < 4 {
				return nil, errno.New(syscall.EINVAL, "Invalid IPv4 address in RTA_GATEWAY")
			}
			if a := inAddr4(gw.data); !a.IsUnspecified() {
				p.Gateway = a
			}
		case via != nil:
			a, err := gwFromVia(via.data)
			if err != nil {
				return nil, err
			}
			p.Gateway = a
		}
		if fl := findAttr(nh.attrs, uapi.RTA_FLOW); fl != nil {
			if len(fl.data) < 4 {
				return nil, errno.New(syscall.EINVAL, "Invalid RTA_FLOW")
			}
			if binary.LittleEndian.Uint32(fl.data) != 0 {
				return nil, errRealm
			}
		}
		if findAttr(nh.attrs, uapi.RTA_ENCAP) != nil {
			return nil, errEncap
		}
		out = append(out, p)
	}
	return out, nil
}

// paths6 is the walk of ip6_route_multipath_add and
// ip6_route_multipath_del: each path's device (none: the route's own),
// gateway and weight.
func paths6(nhs []rtnexthop) ([]rtnl.RoutePath, error) {
	var out []rtnl.RoutePath
	for _, nh := range nhs {
		p := rtnl.RoutePath{DevIndex: netdev.IfIndex(nh.ifindex), Weight: int(nh.hops) + 1, OnLink: nh.flags&uapi.RTNH_F_ONLINK != 0}
		if gw := findAttr(nh.attrs, uapi.RTA_GATEWAY); gw != nil {
			p.Gateway = inAddr6(gw.data)
		}
		if findAttr(nh.attrs, uapi.RTA_ENCAP) != nil {
			return nil, errEncap
		}
		if t := findAttr(nh.attrs, uapi.RTA_ENCAP_TYPE); t != nil && len(t.data) >= 2 {
			if err := checkEncapType(binary.LittleEndian.Uint16(t.data)); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// parseRoute decodes an RTM_NEWROUTE or RTM_DELROUTE (del) into *out, a
// zero rtnl route: rtm_to_fib_config for IPv4, rtm_to_fib6_config for
// IPv6, with their errors, and the checks fib_table_insert /
// fib_create_info make on what rtnl.Route cannot carry (a prefix length
// beyond the address, rtm_type 0, the DEAD and LINKDOWN flags).
func parseRoute(r *request, del bool, out *rtnl.Route) error {
	if r.family() == uapi.AF_INET6 {
		return parseRoute6(r, del, out)
	}
	if len(r.body) < rtmsgLen {
		return errInval // nlmsg_validate_deprecated
	}
	a, err := r.parseAttrs(r.body[rtmsgLen:], 16+rtmsgLen, routePolicy4, validateLiberal)
	if err != nil {
		return err
	}
	m := parseRtmsg(r.body)
	if m.typ > uapi.RTN_MAX {
		return errno.New(syscall.EINVAL, "Invalid route type")
	}
	hasGW, hasVia := a.has(uapi.RTA_GATEWAY), a.has(uapi.RTA_VIA)
	if gw := inAddr4(a.get(uapi.RTA_GATEWAY)); hasGW && !gw.IsUnspecified() {
		out.Gateway = gw
	}
	if hasVia || a.has(uapi.RTA_ENCAP_TYPE) {
		// rtm_to_fib_config checks every RTA_VIA and RTA_ENCAP_TYPE as it
		// meets them, and the last gateway of either kind is the one kept.
		for at := range attrSeq(r.body[rtmsgLen:], 16+rtmsgLen) {
			switch at.typ {
			case uapi.RTA_GATEWAY:
				out.Gateway = netip.Addr{}
				if gw := inAddr4(at.data); !gw.IsUnspecified() {
					out.Gateway = gw
				}
			case uapi.RTA_VIA:
				gw, err := gwFromVia(at.data)
				if err != nil {
					return err
				}
				out.Gateway = gw
			case uapi.RTA_ENCAP_TYPE:
				// Each one's own value, as it is met (the policy
				// made it at least two bytes).
				if err := checkEncapType(binary.LittleEndian.Uint16(at.data)); err != nil {
					return err
				}
			}
		}
	}
	oif := int32(a.u32(uapi.RTA_OIF))
	nhID := a.u32(uapi.RTA_NH_ID)
	if nhID != 0 && (oif != 0 || out.Gateway.IsValid() || a.has(uapi.RTA_ENCAP) || a.has(uapi.RTA_MULTIPATH)) {
		return errno.New(syscall.EINVAL, "Nexthop specification and nexthop id are mutually exclusive")
	}
	if hasGW && hasVia {
		return errno.New(syscall.EINVAL, "Nexthop configuration can not contain both GATEWAY and VIA")
	}
	if a.has(uapi.RTA_ENCAP) {
		return errEncap
	}
	if a.u32(uapi.RTA_FLOW) != 0 {
		return errRealm
	}
	// fib_valid_key_len, first in fib_table_insert and fib_table_delete.
	if m.dstLen > 32 {
		return errno.New(syscall.EINVAL, "Invalid prefix length")
	}
	dst := inAddr4(a.get(uapi.RTA_DST))
	if m.dstLen < 32 && binary.BigEndian.Uint32(dst.AsSlice())<<m.dstLen != 0 {
		return errno.New(syscall.EINVAL, "Invalid prefix for given prefix length")
	}
	if !del {
		// fib_create_info: RTN_UNSPEC's scope is nowhere.
		if m.typ == uapi.RTN_UNSPEC && m.scope < uapi.RT_SCOPE_NOWHERE {
			return errno.New(syscall.EINVAL, "Invalid scope")
		}
		if m.flags&(uapi.RTNH_F_DEAD|uapi.RTNH_F_LINKDOWN) != 0 {
			return errno.New(syscall.EINVAL, "Invalid rtm_flags - can not contain DEAD or LINKDOWN")
		}
	}
	out.Dst = netip.PrefixFrom(dst, int(m.dstLen))
	out.Table = uint32(m.table)
	if a.has(uapi.RTA_TABLE) {
		out.Table = a.u32(uapi.RTA_TABLE)
	}
	out.Type, out.Scope, out.Protocol, out.TOS = fib.Type(m.typ), fib.Scope(m.scope), fib.Protocol(m.protocol), m.tos
	out.OnLink = m.flags&uapi.RTNH_F_ONLINK != 0
	out.DevIndex = netdev.IfIndex(oif)
	out.Priority = a.u32(uapi.RTA_PRIORITY)
	out.NexthopID = nexthop.ID(nhID)
	if p := inAddr4(a.get(uapi.RTA_PREFSRC)); a.has(uapi.RTA_PREFSRC) && !p.IsUnspecified() {
		out.PrefSrc = p
	}
	if a.has(uapi.RTA_METRICS) {
		mx, err := parseMetrics(a.get(uapi.RTA_METRICS), a.offset(uapi.RTA_METRICS)+nlaHdrLen)
		if err != nil {
			if del {
				// fib_metrics_match: such a request matches no route.
				return errno.New(syscall.ESRCH, "")
			}
			return err
		}
		out.Metrics = mx
	}
	if a.has(uapi.RTA_MULTIPATH) {
		nhs, err := parseMultipath(a.get(uapi.RTA_MULTIPATH), a.offset(uapi.RTA_MULTIPATH)+nlaHdrLen, true)
		if err != nil {
			return err
		}
		if out.Multipath, err = paths4(nhs); err != nil {
			return err
		}
	}
	return nil
}

// parseRoute6 is rtm_to_fib6_config, and the prefix length checks of
// ip6_route_info_create.
func parseRoute6(r *request, del bool, out *rtnl.Route) error {
	if len(r.body) < rtmsgLen {
		return errno.New(syscall.EINVAL, "Invalid header length")
	}
	a, err := r.parseAttrs(r.body[rtmsgLen:], 16+rtmsgLen, routePolicy6, validateLiberal)
	if err != nil {
		return err
	}
	m := parseRtmsg(r.body)
	if m.tos != 0 {
		return errno.New(syscall.EINVAL, "Invalid dsfield (tos): option not available for IPv6")
	}
	if a.has(uapi.RTA_NH_ID) {
		if a.has(uapi.RTA_GATEWAY) || a.has(uapi.RTA_OIF) || a.has(uapi.RTA_MULTIPATH) || a.has(uapi.RTA_ENCAP) {
			return errno.New(syscall.EINVAL, "Nexthop specification and nexthop id are mutually exclusive")
		}
		out.NexthopID = nexthop.ID(a.u32(uapi.RTA_NH_ID))
	}
	if a.has(uapi.RTA_GATEWAY) {
		out.Gateway = inAddr6(a.get(uapi.RTA_GATEWAY))
	}
	if a.has(uapi.RTA_VIA) {
		return errno.New(syscall.EINVAL, "IPv6 does not support RTA_VIA attribute")
	}
	prefix := func(t uint16, plen uint8) (netip.Addr, error) {
		var b [16]byte
		if a.has(t) {
			n := (int(plen) + 7) / 8
			if len(a.get(t)) < n {
				return netip.Addr{}, errInval
			}
			copy(b[:min(n, 16)], a.get(t))
		}
		return netip.AddrFrom16(b), nil
	}
	dst, err := prefix(uapi.RTA_DST, m.dstLen)
	if err != nil {
		return err
	}
	src, err := prefix(uapi.RTA_SRC, m.srcLen)
	if err != nil {
		return err
	}
	if a.has(uapi.RTA_PREFSRC) {
		out.PrefSrc = inAddr6(a.get(uapi.RTA_PREFSRC))
		if out.PrefSrc.IsUnspecified() {
			out.PrefSrc = netip.Addr{}
		}
	}
	out.DevIndex = netdev.IfIndex(int32(a.u32(uapi.RTA_OIF)))
	out.Priority = a.u32(uapi.RTA_PRIORITY)
	out.Table = uint32(m.table)
	if a.has(uapi.RTA_TABLE) {
		out.Table = a.u32(uapi.RTA_TABLE)
	}
	if a.has(uapi.RTA_METRICS) {
		mx, err := parseMetrics(a.get(uapi.RTA_METRICS), a.offset(uapi.RTA_METRICS)+nlaHdrLen)
		if err != nil {
			if del {
				return errno.New(syscall.ESRCH, "")
			}
			return err
		}
		out.Metrics = mx
	}
	if a.has(uapi.RTA_MULTIPATH) {
		nhs, err := parseMultipath(a.get(uapi.RTA_MULTIPATH), a.offset(uapi.RTA_MULTIPATH)+nlaHdrLen, false)
		if err != nil {
			return errno.New(syscall.EINVAL, "Invalid nexthop configuration - no valid nexthops")
		}
		if out.Multipath, err = paths6(nhs); err != nil {
			return err
		}
	}
	if a.has(uapi.RTA_PREF) {
		out.Pref = rt.Pref(a.u8(uapi.RTA_PREF))
	}
	if a.has(uapi.RTA_ENCAP) {
		return errEncap
	}
	if a.has(uapi.RTA_ENCAP_TYPE) {
		if err := checkEncapType(a.u16(uapi.RTA_ENCAP_TYPE)); err != nil {
			return err
		}
	}
	if a.has(uapi.RTA_EXPIRES) {
		// addrconf_timeout_fixup: 0xffffffff is forever.
		if s := a.u32(uapi.RTA_EXPIRES); s != 0xffffffff {
			out.Expires = time.Duration(s) * time.Second
		}
	}
	// ip6_route_info_create.
	if m.dstLen > 128 {
		return errno.New(syscall.EINVAL, "Invalid prefix length")
	}
	if m.srcLen > 128 {
		return errno.New(syscall.EINVAL, "Invalid source address length")
	}
	out.Dst = netip.PrefixFrom(dst, int(m.dstLen)).Masked()
	if m.srcLen > 0 {
		out.Src = netip.PrefixFrom(src, int(m.srcLen)).Masked()
	}
	out.Type, out.Scope, out.Protocol = fib.Type(m.typ), fib.Scope(m.scope), fib.Protocol(m.protocol)
	out.OnLink = m.flags&uapi.RTNH_F_ONLINK != 0
	return nil
}

// routeModeMask are the request flags fib_table_insert and fib6_add read.
const routeModeMask = uapi.NLM_F_CREATE | uapi.NLM_F_EXCL | uapi.NLM_F_REPLACE | uapi.NLM_F_APPEND

// newRoute serves RTM_NEWROUTE.
//
// Kernel: inet_rtm_newroute (net/ipv4/fib_frontend.c), inet6_rtm_newroute
// (net/ipv6/route.c).
func newRoute(r *request) ([]netlink.Message, error) {
	req := rtnl.RouteRequest{Origin: r.origin, Flags: rt.NLMFlags(uint16(r.hdr.Flags) & routeModeMask)}
	if err := parseRoute(r, false, &req.Route); err != nil {
		return nil, err
	}
	// An IPv6 multipath add rewrites the request header's flags, which
	// the ack echoes.
	ack, err := r.h.NewRoute(req)
	r.hdr.Flags = r.hdr.Flags&^netlink.HeaderFlags(routeModeMask) | netlink.HeaderFlags(uint16(ack.Flags)&routeModeMask)
	return nil, err
}

// delRoute serves RTM_DELROUTE.
//
// Kernel: inet_rtm_delroute (net/ipv4/fib_frontend.c), inet6_rtm_delroute
// (net/ipv6/route.c).
func delRoute(r *request) ([]netlink.Message, error) {
	req := rtnl.RouteRequest{Origin: r.origin}
	if err := parseRoute(r, true, &req.Route); err != nil {
		return nil, err
	}
	return nil, r.h.DelRoute(req)
}
