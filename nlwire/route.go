// Routes on the wire: RTM_NEWROUTE and RTM_DELROUTE requests of both
// families decoded into rtnl's route requests, RTM_GETROUTE dumps, and the
// RTM_NEWROUTE / RTM_DELROUTE messages of dumps and notifications encoded
// from rtnl.RouteInfo.

package nlwire

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math"
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
			m.Given |= 1 << fib.MetricCongCtl
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

// devRef names the device with ifindex i in a request, or none for 0.
func devRef(i int32) string {
	if i == 0 {
		return ""
	}
	return netdev.IndexRef(netdev.IfIndex(i))
}

// paths4 is fib_get_nhs: the paths of an IPv4 RTA_MULTIPATH.
func paths4(nhs []rtnexthop) ([]rtnl.NextHop, error) {
	var out []rtnl.NextHop
	for _, nh := range nhs {
		if nh.flags&(uapi.RTNH_F_DEAD|uapi.RTNH_F_LINKDOWN) != 0 {
			return nil, errno.New(syscall.EINVAL, "Invalid flags for nexthop - can not contain DEAD or LINKDOWN")
		}
		p := rtnl.NextHop{Dev: devRef(nh.ifindex), Weight: int(nh.hops) + 1, OnLink: nh.flags&uapi.RTNH_F_ONLINK != 0}
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
func paths6(nhs []rtnexthop) ([]rtnl.NextHop, error) {
	var out []rtnl.NextHop
	for _, nh := range nhs {
		p := rtnl.NextHop{Dev: devRef(nh.ifindex), Weight: int(nh.hops) + 1, OnLink: nh.flags&uapi.RTNH_F_ONLINK != 0}
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

// parseRoute decodes an RTM_NEWROUTE or RTM_DELROUTE (del) into an rtnl
// request: rtm_to_fib_config for IPv4, rtm_to_fib6_config for IPv6, with
// their errors, and the checks fib_table_insert / fib_create_info make
// on what rtnl.Route cannot carry (a prefix length beyond the address,
// rtm_type 0, the DEAD and LINKDOWN flags).
func parseRoute(r *request, del bool) (rtnl.Route, error) {
	if r.family() == uapi.AF_INET6 {
		return parseRoute6(r, del)
	}
	var out rtnl.Route
	if len(r.body) < rtmsgLen {
		return out, errInval // nlmsg_validate_deprecated
	}
	a, err := r.parseAttrs(r.body[rtmsgLen:], 16+rtmsgLen, routePolicy4, validateLiberal)
	if err != nil {
		return out, err
	}
	m := parseRtmsg(r.body)
	if m.typ > uapi.RTN_MAX {
		return out, errno.New(syscall.EINVAL, "Invalid route type")
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
					return out, err
				}
				out.Gateway = gw
			case uapi.RTA_ENCAP_TYPE:
				// Each one's own value, as it is met (the policy
				// made it at least two bytes).
				if err := checkEncapType(binary.LittleEndian.Uint16(at.data)); err != nil {
					return out, err
				}
			}
		}
	}
	oif := int32(a.u32(uapi.RTA_OIF))
	nhID := a.u32(uapi.RTA_NH_ID)
	if nhID != 0 && (oif != 0 || out.Gateway.IsValid() || a.has(uapi.RTA_ENCAP) || a.has(uapi.RTA_MULTIPATH)) {
		return out, errno.New(syscall.EINVAL, "Nexthop specification and nexthop id are mutually exclusive")
	}
	if hasGW && hasVia {
		return out, errno.New(syscall.EINVAL, "Nexthop configuration can not contain both GATEWAY and VIA")
	}
	if a.has(uapi.RTA_ENCAP) {
		return out, errEncap
	}
	if a.u32(uapi.RTA_FLOW) != 0 {
		return out, errRealm
	}
	// fib_valid_key_len, first in fib_table_insert and fib_table_delete.
	if m.dstLen > 32 {
		return out, errno.New(syscall.EINVAL, "Invalid prefix length")
	}
	dst := inAddr4(a.get(uapi.RTA_DST))
	if m.dstLen < 32 && binary.BigEndian.Uint32(dst.AsSlice())<<m.dstLen != 0 {
		return out, errno.New(syscall.EINVAL, "Invalid prefix for given prefix length")
	}
	if !del {
		// fib_create_info: RTN_UNSPEC's scope is nowhere.
		if m.typ == uapi.RTN_UNSPEC && m.scope < uapi.RT_SCOPE_NOWHERE {
			return out, errno.New(syscall.EINVAL, "Invalid scope")
		}
		if m.flags&(uapi.RTNH_F_DEAD|uapi.RTNH_F_LINKDOWN) != 0 {
			return out, errno.New(syscall.EINVAL, "Invalid rtm_flags - can not contain DEAD or LINKDOWN")
		}
	}
	out.Dst = netip.PrefixFrom(dst, int(m.dstLen))
	out.Table = uint32(m.table)
	if a.has(uapi.RTA_TABLE) {
		out.Table = a.u32(uapi.RTA_TABLE)
	}
	out.Type, out.Scope, out.Protocol, out.TOS = fib.Type(m.typ), fib.Scope(m.scope), fib.Protocol(m.protocol), m.tos
	out.OnLink = m.flags&uapi.RTNH_F_ONLINK != 0
	out.Dev = devRef(oif)
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
				return out, errno.New(syscall.ESRCH, "")
			}
			return out, err
		}
		out.Metrics = mx
	}
	if a.has(uapi.RTA_MULTIPATH) {
		nhs, err := parseMultipath(a.get(uapi.RTA_MULTIPATH), a.offset(uapi.RTA_MULTIPATH)+nlaHdrLen, true)
		if err != nil {
			return out, err
		}
		if out.Multipath, err = paths4(nhs); err != nil {
			return out, err
		}
	}
	return out, nil
}

// parseRoute6 is rtm_to_fib6_config, and the prefix length checks of
// ip6_route_info_create.
func parseRoute6(r *request, del bool) (rtnl.Route, error) {
	var out rtnl.Route
	if len(r.body) < rtmsgLen {
		return out, errno.New(syscall.EINVAL, "Invalid header length")
	}
	a, err := r.parseAttrs(r.body[rtmsgLen:], 16+rtmsgLen, routePolicy6, validateLiberal)
	if err != nil {
		return out, err
	}
	m := parseRtmsg(r.body)
	if m.tos != 0 {
		return out, errno.New(syscall.EINVAL, "Invalid dsfield (tos): option not available for IPv6")
	}
	if a.has(uapi.RTA_NH_ID) {
		if a.has(uapi.RTA_GATEWAY) || a.has(uapi.RTA_OIF) || a.has(uapi.RTA_MULTIPATH) || a.has(uapi.RTA_ENCAP) {
			return out, errno.New(syscall.EINVAL, "Nexthop specification and nexthop id are mutually exclusive")
		}
		out.NexthopID = nexthop.ID(a.u32(uapi.RTA_NH_ID))
	}
	if a.has(uapi.RTA_GATEWAY) {
		out.Gateway = inAddr6(a.get(uapi.RTA_GATEWAY))
	}
	if a.has(uapi.RTA_VIA) {
		return out, errno.New(syscall.EINVAL, "IPv6 does not support RTA_VIA attribute")
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
		return out, err
	}
	src, err := prefix(uapi.RTA_SRC, m.srcLen)
	if err != nil {
		return out, err
	}
	if a.has(uapi.RTA_PREFSRC) {
		out.PrefSrc = inAddr6(a.get(uapi.RTA_PREFSRC))
		if out.PrefSrc.IsUnspecified() {
			out.PrefSrc = netip.Addr{}
		}
	}
	out.Dev = devRef(int32(a.u32(uapi.RTA_OIF)))
	out.Priority = a.u32(uapi.RTA_PRIORITY)
	out.Table = uint32(m.table)
	if a.has(uapi.RTA_TABLE) {
		out.Table = a.u32(uapi.RTA_TABLE)
	}
	if a.has(uapi.RTA_METRICS) {
		mx, err := parseMetrics(a.get(uapi.RTA_METRICS), a.offset(uapi.RTA_METRICS)+nlaHdrLen)
		if err != nil {
			if del {
				return out, errno.New(syscall.ESRCH, "")
			}
			return out, err
		}
		out.Metrics = mx
	}
	if a.has(uapi.RTA_MULTIPATH) {
		nhs, err := parseMultipath(a.get(uapi.RTA_MULTIPATH), a.offset(uapi.RTA_MULTIPATH)+nlaHdrLen, false)
		if err != nil {
			return out, errno.New(syscall.EINVAL, "Invalid nexthop configuration - no valid nexthops")
		}
		if out.Multipath, err = paths6(nhs); err != nil {
			return out, err
		}
	}
	if a.has(uapi.RTA_PREF) {
		out.Pref = rt.Pref(a.u8(uapi.RTA_PREF))
	}
	if a.has(uapi.RTA_ENCAP) {
		return out, errEncap
	}
	if a.has(uapi.RTA_ENCAP_TYPE) {
		if err := checkEncapType(a.u16(uapi.RTA_ENCAP_TYPE)); err != nil {
			return out, err
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
		return out, errno.New(syscall.EINVAL, "Invalid prefix length")
	}
	if m.srcLen > 128 {
		return out, errno.New(syscall.EINVAL, "Invalid source address length")
	}
	out.Dst = netip.PrefixFrom(dst, int(m.dstLen)).Masked()
	if m.srcLen > 0 {
		out.Src = netip.PrefixFrom(src, int(m.srcLen)).Masked()
	}
	out.Type, out.Scope, out.Protocol = fib.Type(m.typ), fib.Scope(m.scope), fib.Protocol(m.protocol)
	out.OnLink = m.flags&uapi.RTNH_F_ONLINK != 0
	return out, nil
}

// routeModeMask are the request flags fib_table_insert and fib6_add read.
const routeModeMask = uapi.NLM_F_CREATE | uapi.NLM_F_EXCL | uapi.NLM_F_REPLACE | uapi.NLM_F_APPEND

// newRoute serves RTM_NEWROUTE.
//
// Kernel: inet_rtm_newroute (net/ipv4/fib_frontend.c), inet6_rtm_newroute
// (net/ipv6/route.c).
func newRoute(r *request) ([]netlink.Message, error) {
	rq, err := parseRoute(r, false)
	if err != nil {
		return nil, err
	}
	// An IPv6 multipath add rewrites the request header's flags, which
	// the ack echoes.
	mode, err := r.h.RouteNewHeader(rq, rt.NLMFlags(uint16(r.hdr.Flags)&routeModeMask))
	r.hdr.Flags = r.hdr.Flags&^netlink.HeaderFlags(routeModeMask) | netlink.HeaderFlags(uint16(mode)&routeModeMask)
	return nil, err
}

// delRoute serves RTM_DELROUTE.
//
// Kernel: inet_rtm_delroute (net/ipv4/fib_frontend.c), inet6_rtm_delroute
// (net/ipv6/route.c).
func delRoute(r *request) ([]netlink.Message, error) {
	rq, err := parseRoute(r, true)
	if err != nil {
		return nil, err
	}
	return nil, r.h.RouteDelRequest(rq)
}

// dumpFilter is struct fib_dump_filter: what a strict dump request asks
// for.
type dumpFilter struct {
	table    uint32
	protocol uint8
	typ      uint8
	dev      netdev.IfIndex
	flags    uint32
	set      bool
	strict   bool
}

// validDumpReq is ip_valid_fib_dump_req, which both families' dumps run
// on a socket with NETLINK_GET_STRICT_CHK.
func validDumpReq(r *request) (dumpFilter, error) {
	f := dumpFilter{strict: true}
	if len(r.body) < rtmsgLen {
		return f, errno.New(syscall.EINVAL, "Invalid header for FIB dump request")
	}
	m := parseRtmsg(r.body)
	if m.dstLen != 0 || m.srcLen != 0 || m.tos != 0 || m.scope != 0 {
		return f, errno.New(syscall.EINVAL, "Invalid values in header for FIB dump request")
	}
	if m.flags&^(uapi.RTM_F_CLONED|uapi.RTM_F_PREFIX) != 0 {
		return f, errno.New(syscall.EINVAL, "Invalid flags for FIB dump request")
	}
	f.flags, f.protocol, f.typ, f.table = m.flags, m.protocol, m.typ, uint32(m.table)
	a, err := r.parseAttrs(r.body[rtmsgLen:], 16+rtmsgLen, routePolicy4, validateTrailing|validateMaxType)
	if err != nil {
		return f, err
	}
	for t := range a.present() {
		switch t {
		case uapi.RTA_TABLE:
			f.table = a.u32(uapi.RTA_TABLE)
		case uapi.RTA_OIF:
			i := netdev.IfIndex(a.u32(uapi.RTA_OIF))
			if _, err := r.h.GetLink(rtnl.LinkGetRequest{Index: i}); err != nil || i <= 0 {
				return f, errno.New(syscall.ENODEV, "")
			}
			f.dev = i
		default:
			return f, errno.New(syscall.EINVAL, "Unsupported attribute in dump request")
		}
	}
	f.set = f.flags != 0 || f.protocol != 0 || f.typ != 0 || f.table != 0 || f.dev != 0
	return f, nil
}

// match is the filter of fn_trie_dump_leaf and rt6_dump_route.
func (f dumpFilter) match(ri *rtnl.RouteInfo) bool {
	if !f.set {
		return true
	}
	if f.typ != 0 && uint8(ri.Type) != f.typ || f.protocol != 0 && uint8(ri.Protocol) != f.protocol {
		return false
	}
	if f.dev != 0 {
		// fib_info_nh_uses_dev / fib6_info_uses_dev.
		if ri.DevIndex == f.dev {
			return true
		}
		for _, p := range ri.Multipath {
			if p.DevIndex == f.dev {
				return true
			}
		}
		return false
	}
	return true
}

// dumpRoutes serves a dump of RTM_GETROUTE: inet_dump_fib for AF_INET,
// inet6_dump_fib for AF_INET6, both in turn (rtnl_dump_all) for
// AF_UNSPEC. On a strict socket the request's filters apply (and every
// message says NLM_F_DUMP_FILTERED); RTM_F_CLONED asks for the route
// exceptions, RTM_F_PREFIX for IPv6 prefix routes from router
// advertisements, neither of which netsim has.
func dumpRoutes(r *request) (dumper, error) {
	fam := r.family()
	var f dumpFilter
	if r.strict {
		var err error
		if f, err = validDumpReq(r); err != nil {
			return nil, err
		}
		if f.set {
			r.answerFlags |= uapi.NLM_F_DUMP_FILTERED
		}
	} else if len(r.body) >= rtmsgLen {
		fl := parseRtmsg(r.body).flags
		if fam == uapi.AF_INET6 {
			f.flags = fl & uapi.RTM_F_PREFIX
		} else {
			f.flags = fl & (uapi.RTM_F_PREFIX | uapi.RTM_F_CLONED)
		}
	}
	if f.flags&uapi.RTM_F_PREFIX != 0 || f.strict && f.flags&uapi.RTM_F_CLONED != 0 {
		return &listDumper{}, nil
	}
	family := rtnl.FamilyAll
	switch fam {
	case uapi.AF_INET:
		family = rtnl.FamilyV4
	case uapi.AF_INET6:
		family = rtnl.FamilyV6
	}
	if f.table != 0 {
		// A table one family lacks is an error for a dump of that family
		// only; the other dumps of rtnl_dump_all skip it.
		if family == rtnl.FamilyV4 && !r.h.TableExists(f.table) {
			return nil, errno.New(syscall.ENOENT, "ipv4: FIB table does not exist")
		}
		if family == rtnl.FamilyV6 && !r.h.TableExists6(f.table) {
			return nil, errno.New(syscall.ENOENT, "ipv6: FIB table does not exist")
		}
	}
	rd, err := r.h.RouteDump(family, f.table)
	if err != nil {
		return nil, err
	}
	d := &routeDumper{rd: rd, f: f}
	if f.strict {
		d.flags = uapi.NLM_F_DUMP_FILTERED
	}
	return d, nil
}

// routeDumper is a route dump's cursor (rtnl.RouteDump) and filter.
type routeDumper struct {
	rd    *rtnl.RouteDump
	f     dumpFilter
	flags netlink.HeaderFlags // each message's: NLM_F_DUMP_FILTERED on a strict socket
}

// fill puts the routes that match the filter, from the cursor on, each
// built for the room left in the part, until one does not fit.
//
// A route that does not fit even in an empty part ends the dump (see
// fillPart): quietly, with NLMSG_DONE 0, for one family's dump (whose
// rtnl_dumpit, RTNL_FLAG_DUMP_SPLIT_NLM_DONE, takes the empty part's
// EMSGSIZE for the end), and with -EMSGSIZE for both families'
// (rtnl_dump_all), as Linux 6.18 answers for an IPv4 route. For an IPv6
// route, 6.18's dump of both families does not end: it answers each read
// with an empty datagram while the route exists; netsim ends it as for
// IPv4.
//
// Kernel: fn_trie_dump_leaf → fib_dump_info; fib6_dump_node →
// rt6_dump_route → rt6_fill_node.
func (d *routeDumper) fill(p *part) (bool, error) {
	var perr error
	put := putEach(p, rt.RTMNewRoute, d.flags, routeMessage, &perr)
	done, err := d.rd.Next(func(ri *rtnl.RouteInfo) bool { return !d.f.match(ri) || put(ri) })
	if perr != nil {
		return false, perr
	}
	return done, err
}

func (d *routeDumper) close() { d.rd.Close() }

// notifyRoute builds the RTM_NEWROUTE or RTM_DELROUTE message of a route
// notification, to RTNLGRP_IPV4_ROUTE or RTNLGRP_IPV6_ROUTE.
//
// Kernel: rtmsg_fib (net/ipv4/fib_semantics.c), inet6_rt_notify
// (net/ipv6/route.c).
func notifyRoute(n rtnl.Notification) ([]byte, uint32, error) {
	if n.Route == nil {
		return nil, 0, nil
	}
	group := uint32(uapi.RTNLGRP_IPV4_ROUTE)
	if routeFamily(n.Route) == uapi.AF_INET6 {
		group = uapi.RTNLGRP_IPV6_ROUTE
	}
	b, err := routeMessage(n.Route, roomSized)
	return b, group, err
}

// routeFamily is a dumped route's rtm_family.
func routeFamily(ri *rtnl.RouteInfo) uint8 {
	if ri.Family == rtnl.FamilyV6 || ri.Family == 0 && ri.Dst.Addr().Is6() {
		return uapi.AF_INET6
	}
	return uapi.AF_INET
}

// rtmTable is rtm_table for table id: the id, or RT_TABLE_COMPAT for one
// that does not fit.
func rtmTable(id uint32) uint8 {
	if id < 256 {
		return uint8(id)
	}
	return uapi.RT_TABLE_COMPAT
}

// Rooms: the bytes of the skb a route or nexthop message is built in,
// nlmsghdr included; a message that does not fit fails with EMSGSIZE, as
// nla_put and nlmsg_put fail when the skb has no tailroom left.
const (
	// roomSized is a notification's or an answer's skb that the kernel
	// sizes for the message (nlmsg_new of fib_nlmsg_size, rt6_nlmsg_size
	// or nh_nlmsg_size, which count every path or member): every message
	// fits.
	roomSized = math.MaxInt
	// roomGoodSize is an answer's skb of NLMSG_GOODSIZE, allocated
	// before the answer is known (inet_rtm_getroute, inet6_rtm_getroute).
	roomGoodSize = nlmsgGoodSize
	// A dump's message is built for the room left in its part
	// (part.left).
)

// checkRoom fails with EMSGSIZE when a message with payload b does not
// fit in room bytes.
func checkRoom(b []byte, room int) error {
	if nlmsgHdrLen+align4(len(b)) > room {
		return errPartFull
	}
	return nil
}

// encodeAttrs appends the attributes of ae to b. An attribute too long
// for its 16-bit length is the only way ae fails: EMSGSIZE.
func encodeAttrs(b []byte, ae *netlink.AttributeEncoder) ([]byte, error) {
	a, err := ae.Encode()
	if err != nil {
		return nil, errPartFull
	}
	return append(b, a...), nil
}

// routeMessage is the payload of a route's RTM_NEWROUTE (or RTM_DELROUTE)
// in a dump, an answer or a notification, built in an skb of room bytes:
// it fails with EMSGSIZE when the message does not fit.
//
// Kernel: fib_dump_info (net/ipv4/fib_semantics.c), rt6_fill_node
// (net/ipv6/route.c).
func routeMessage(ri *rtnl.RouteInfo, room int) ([]byte, error) {
	if routeFamily(ri) == uapi.AF_INET6 {
		return routeMessage6(ri, room)
	}
	m := rtmsg{family: uapi.AF_INET, dstLen: uint8(ri.Dst.Bits()), tos: ri.TOS, table: rtmTable(ri.Table),
		protocol: uint8(ri.Protocol), scope: uint8(ri.Scope), typ: uint8(ri.Type), flags: uint32(ri.Flags)}
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(uapi.RTA_TABLE, ri.Table)
	if ri.Dst.Bits() > 0 {
		ae.Bytes(uapi.RTA_DST, ri.Dst.Addr().AsSlice())
	}
	if ri.Priority != 0 {
		ae.Uint32(uapi.RTA_PRIORITY, ri.Priority)
	}
	putMetrics(ae, ri.Metrics)
	if ri.PrefSrc.IsValid() {
		ae.Bytes(uapi.RTA_PREFSRC, ri.PrefSrc.AsSlice())
	}
	b, err := encodeAttrs(m.put(nil), ae)
	if err != nil {
		return nil, err
	}
	if b, err = appendNexthops(b, ri, uapi.AF_INET); err != nil {
		return nil, err
	}
	return b, checkRoom(b, room)
}

// routeMessage6 is rt6_fill_node's message for a route of the table (no
// cached route, no destination asked for).
func routeMessage6(ri *rtnl.RouteInfo, room int) ([]byte, error) {
	m := rtmsg{family: uapi.AF_INET6, dstLen: uint8(ri.Dst.Bits()), table: rtmTable(ri.Table),
		protocol: uint8(ri.Protocol), scope: uapi.RT_SCOPE_UNIVERSE, typ: uint8(ri.Type), flags: uint32(ri.Flags)}
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(uapi.RTA_TABLE, ri.Table)
	if ri.Dst.Bits() > 0 {
		ae.Bytes(uapi.RTA_DST, ri.Dst.Addr().AsSlice())
	}
	if ri.Src.IsValid() && ri.Src.Bits() > 0 {
		m.srcLen = uint8(ri.Src.Bits())
		ae.Bytes(uapi.RTA_SRC, ri.Src.Addr().AsSlice())
	}
	if ri.IIFIndex != 0 {
		ae.Uint32(uapi.RTA_IIF, uint32(ri.IIFIndex))
	}
	if ri.PrefSrc.IsValid() {
		ae.Bytes(uapi.RTA_PREFSRC, ri.PrefSrc.AsSlice())
	}
	putMetrics(ae, ri.Metrics)
	ae.Uint32(uapi.RTA_PRIORITY, ri.Priority)
	b, err := encodeAttrs(m.put(nil), ae)
	if err != nil {
		return nil, err
	}
	if b, err = appendNexthops(b, ri, uapi.AF_INET6); err != nil {
		return nil, err
	}
	ae = netlink.NewAttributeEncoder()
	putCacheinfo(ae, 0, ri.Expires)
	ae.Uint8(uapi.RTA_PREF, uint8(ri.Pref))
	if b, err = encodeAttrs(b, ae); err != nil {
		return nil, err
	}
	return b, checkRoom(b, room)
}

// appendNexthops appends a route's nexthop id, if it has one, then its
// paths: RTA_MULTIPATH, or the one path's gateway and RTA_OIF.
//
// RTA_MULTIPATH is a nest (nla_nest_start_noflag ... nla_nest_end), and
// Linux 6.18's nla_nest_end stores the nest's length in the 16-bit
// nla_len without a check: a route with more paths than 64 KiB holds (an
// IPv4 route through a group of more than 4095 members with gateways, an
// IPv6 route appended to past 2340 gateways) goes out in a notification,
// whose skb is sized for it, with its length modulo 65536, and whatever
// follows reads as garbage (`ip monitor` stops with "Truncated message").
// A dump or a get, whose skb is smaller, fails with EMSGSIZE instead
// (checkRoom). netsim sends what the kernel sends.
//
// Kernel: fib_dump_info, fib_add_multipath (net/ipv4/fib_semantics.c),
// rt6_fill_node (net/ipv6/route.c), nla_nest_end (include/net/netlink.h).
func appendNexthops(b []byte, ri *rtnl.RouteInfo, family uint8) ([]byte, error) {
	ae := netlink.NewAttributeEncoder()
	if ri.NexthopID != 0 {
		ae.Uint32(uapi.RTA_NH_ID, uint32(ri.NexthopID))
	}
	if len(ri.Multipath) > 0 {
		b, err := encodeAttrs(b, ae)
		if err != nil {
			return nil, err
		}
		mp, err := multipathPayload(ri.Multipath, family)
		if err != nil {
			return nil, err
		}
		// appendAttr keeps the length's low 16 bits, as nla_nest_end.
		return appendAttr(b, uapi.RTA_MULTIPATH, mp), nil
	}
	putGateway(ae, ri.Gateway, family)
	if ri.DevIndex != 0 {
		ae.Uint32(uapi.RTA_OIF, uint32(ri.DevIndex))
	}
	return encodeAttrs(b, ae)
}

// putAttrs appends the encoded attributes of ae to the header.
func (m rtmsg) putAttrs(b []byte, ae *netlink.AttributeEncoder) ([]byte, error) {
	return encodeAttrs(m.put(b), ae)
}

// putGateway is the gateway part of fib_nexthop_info: RTA_GATEWAY for a
// gateway of the route's family, RTA_VIA for an IPv6 gateway of an IPv4
// route.
func putGateway(ae *netlink.AttributeEncoder, gw netip.Addr, family uint8) {
	switch {
	case !gw.IsValid():
	case gw.Is4() && family == uapi.AF_INET, gw.Is6() && family == uapi.AF_INET6:
		ae.Bytes(uapi.RTA_GATEWAY, gw.AsSlice())
	default:
		via := binary.LittleEndian.AppendUint16(nil, gwFamily(gw))
		ae.Bytes(uapi.RTA_VIA, append(via, gw.AsSlice()...))
	}
}

func gwFamily(gw netip.Addr) uint16 {
	if gw.Is4() {
		return uapi.AF_INET
	}
	return uapi.AF_INET6
}

// multipathPayload is the payload of RTA_MULTIPATH: a struct rtnexthop per
// path (length, flags, weight - 1, ifindex) followed by its gateway.
//
// Kernel: fib_add_multipath, fib_add_nexthop (net/ipv4/fib_semantics.c).
func multipathPayload(paths []rtnl.RoutePath, family uint8) ([]byte, error) {
	var b []byte
	for _, p := range paths {
		ae := netlink.NewAttributeEncoder()
		putGateway(ae, p.Gateway, family)
		attrs, err := encodeAttrs(nil, ae)
		if err != nil {
			return nil, err
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(8+len(attrs)))
		b = append(b, uint8(p.Flags), uint8(p.Weight-1))
		b = binary.LittleEndian.AppendUint32(b, uint32(p.DevIndex))
		b = append(b, attrs...)
	}
	return b, nil
}

// putMetrics is rtnetlink_put_metrics: RTA_METRICS (without NLA_F_NESTED)
// with each metric set, in RTAX order, the congestion control by name;
// nothing when none is set.
func putMetrics(ae *netlink.AttributeEncoder, mx fib.Metrics) {
	if mx.IsZero() {
		return
	}
	nae := netlink.NewAttributeEncoder()
	if mx.Lock != 0 {
		nae.Uint32(uapi.RTAX_LOCK, mx.Lock)
	}
	for k := fib.MetricMTU; k <= fib.MetricMax; k++ {
		switch {
		case k == fib.MetricCongCtl:
			if mx.CongCtl != "" {
				nae.String(uapi.RTAX_CC_ALGO, mx.CongCtl)
			}
		case k == fib.MetricFeatures:
			if v := mx.Values[k] & uapi.RTAX_FEATURE_MASK; v != 0 {
				nae.Uint32(uint16(k), v)
			}
		case mx.Values[k] != 0:
			nae.Uint32(uint16(k), mx.Values[k])
		}
	}
	b, err := nae.Encode()
	if err == nil && len(b) > 0 {
		ae.Bytes(uapi.RTA_METRICS, b)
	}
}

// userHZ is USER_HZ, the clock ticks per second of struct rta_cacheinfo.
const userHZ = 100

// putCacheinfo is rtnl_put_cacheinfo: struct rta_cacheinfo with the
// reference count clntref and the time left expires (in clock ticks, at
// most INT_MAX either way); netsim keeps no last use, use count or error.
func putCacheinfo(ae *netlink.AttributeEncoder, clntref uint32, expires time.Duration) {
	// The kernel counts the time left in jiffies, which a request made
	// within a tick of the route's creation sees whole: round up.
	tick := time.Second / userHZ
	ticks := int64(expires / tick)
	if expires%tick > 0 {
		ticks++
	}
	ticks = max(-0x7fffffff, min(ticks, 0x7fffffff))
	b := make([]byte, 32)
	binary.LittleEndian.PutUint32(b[0:], clntref)
	binary.LittleEndian.PutUint32(b[8:], uint32(int32(ticks)))
	ae.Bytes(uapi.RTA_CACHEINFO, b)
}
