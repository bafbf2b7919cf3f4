// `ip route get` on the wire: an RTM_GETROUTE without NLM_F_DUMP asks for
// the route a packet would take, answered from rtnl.Handle.GetRoute.

package nlwire

import (
	"encoding/binary"
	"net/netip"
	"syscall"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// rtcfNotify is RTCF_NOTIFY, the route flag RTM_F_NOTIFY asks for.
const rtcfNotify = 0x00010000

// getRouteReq is a decoded route get request.
type getRouteReq struct {
	q          rtnl.RouteGetRequest
	m          rtmsg
	hasSrc     bool
	hasUID     bool
	lookupTbl  bool
	notify     bool
	family     uint8
	queryDst   netip.Addr // RTA_DST as sent (0.0.0.0 or :: when absent)
	querySrc   netip.Addr // RTA_SRC as sent
	iifIndex   uint32
	oifPresent bool
}

// validGetRouteReq is inet_rtm_valid_getroute_req (IPv4) and
// inet6_rtm_valid_getroute_req (IPv6): the header checks and the parse,
// strict on a socket with NETLINK_GET_STRICT_CHK.
func validGetRouteReq(r *request, v6 bool) (attrs, rtmsg, error) {
	// The two families name the request differently in their messages.
	mod, req, alen, pol := "ipv4: ", "route get request", uint8(32), routePolicy4
	if v6 {
		mod, req, alen, pol = "ipv6: ", "get route request", 128, routePolicy6
	}
	if len(r.body) < rtmsgLen {
		return attrs{}, rtmsg{}, errno.New(syscall.EINVAL, mod+"Invalid header for "+req)
	}
	m := parseRtmsg(r.body)
	if !r.strict {
		a, err := r.parseAttrs(r.body[rtmsgLen:], 16+rtmsgLen, pol, validateLiberal)
		return a, m, err
	}
	if m.srcLen != 0 && m.srcLen != alen || m.dstLen != 0 && m.dstLen != alen ||
		m.table != 0 || m.protocol != 0 || m.scope != 0 || m.typ != 0 {
		return attrs{}, m, errno.New(syscall.EINVAL, mod+"Invalid values in header for "+req)
	}
	if v6 {
		if m.flags&^uapi.RTM_F_FIB_MATCH != 0 {
			return attrs{}, m, errno.New(syscall.EINVAL, mod+"Invalid flags for get route request")
		}
	} else if m.flags&^(uapi.RTM_F_NOTIFY|uapi.RTM_F_LOOKUP_TABLE|uapi.RTM_F_FIB_MATCH) != 0 {
		return attrs{}, m, errno.New(syscall.EINVAL, mod+"Unsupported rtm_flags for route get request")
	}
	a, err := r.parseAttrs(r.body[rtmsgLen:], 16+rtmsgLen, pol, validateTrailing|validateMaxType)
	if err != nil {
		return a, m, err
	}
	if a.has(uapi.RTA_SRC) && m.srcLen == 0 || a.has(uapi.RTA_DST) && m.dstLen == 0 {
		if v6 {
			return a, m, errno.New(syscall.EINVAL, mod+"rtm_src_len and rtm_dst_len must be 128 for IPv6")
		}
		return a, m, errno.New(syscall.EINVAL, mod+"rtm_src_len and rtm_dst_len must be 32 for IPv4")
	}
	for t := range a.present() {
		switch t {
		case uapi.RTA_IIF, uapi.RTA_OIF, uapi.RTA_SRC, uapi.RTA_DST, uapi.RTA_IP_PROTO,
			uapi.RTA_SPORT, uapi.RTA_DPORT, uapi.RTA_MARK, uapi.RTA_UID:
		case uapi.RTA_FLOWLABEL:
			if !v6 {
				return a, m, errno.New(syscall.EINVAL, mod+"Unsupported attribute in "+req)
			}
		default:
			return a, m, errno.New(syscall.EINVAL, mod+"Unsupported attribute in "+req)
		}
	}
	return a, m, nil
}

// parseGetRoute decodes a route get request into an rtnl.RouteGetRequest.
//
// Kernel: inet_rtm_getroute (net/ipv4/route.c), inet6_rtm_getroute
// (net/ipv6/route.c).
func parseGetRoute(r *request) (getRouteReq, error) {
	v6 := r.family() == uapi.AF_INET6
	a, m, err := validGetRouteReq(r, v6)
	if err != nil {
		return getRouteReq{}, err
	}
	g := getRouteReq{m: m, family: uapi.AF_INET}
	q := &g.q
	if v6 {
		g.family = uapi.AF_INET6
		// An address shorter than 16 bytes is EINVAL.
		for _, t := range []uint16{uapi.RTA_SRC, uapi.RTA_DST} {
			if a.has(t) && len(a.get(t)) < 16 {
				return g, errInval
			}
		}
		g.queryDst, g.querySrc = inAddr6(a.get(uapi.RTA_DST)), inAddr6(a.get(uapi.RTA_SRC))
	} else {
		g.queryDst, g.querySrc = inAddr4(a.get(uapi.RTA_DST)), inAddr4(a.get(uapi.RTA_SRC))
		g.lookupTbl = m.flags&uapi.RTM_F_LOOKUP_TABLE != 0
		g.notify = m.flags&uapi.RTM_F_NOTIFY != 0
	}
	if r.strict {
		// Only the strict check looks at rtm_src_len.
		q.SrcLen = int(m.srcLen)
	}
	g.hasSrc = a.has(uapi.RTA_SRC)
	q.Dst = g.queryDst
	if g.hasSrc && !g.querySrc.IsUnspecified() {
		q.Src = g.querySrc
	}
	g.iifIndex = a.u32(uapi.RTA_IIF)
	q.IIFIndex = netdev.IfIndex(int32(g.iifIndex))
	if g.iifIndex == 0 {
		q.OIFIndex = netdev.IfIndex(int32(a.u32(uapi.RTA_OIF)))
	}
	q.Mark = a.u32(uapi.RTA_MARK)
	g.hasUID = a.has(uapi.RTA_UID)
	q.UID = a.u32(uapi.RTA_UID)
	if a.has(uapi.RTA_IP_PROTO) {
		q.IPProto, q.HasIPProto = a.u8(uapi.RTA_IP_PROTO), true
	}
	// RTA_SPORT and RTA_DPORT are in network order.
	if p := a.get(uapi.RTA_SPORT); len(p) >= 2 {
		q.Sport = binary.BigEndian.Uint16(p)
	}
	if p := a.get(uapi.RTA_DPORT); len(p) >= 2 {
		q.Dport = binary.BigEndian.Uint16(p)
	}
	q.TOS = m.tos
	if v6 {
		q.TOS = 0 // a flow label's traffic class, which rtnl does not route by
	}
	q.FIBMatch = m.flags&uapi.RTM_F_FIB_MATCH != 0
	return g, nil
}

// getRoute serves an RTM_GETROUTE without NLM_F_DUMP: `ip route get`.
//
// Kernel: inet_rtm_getroute → rt_fill_info (net/ipv4/route.c);
// inet6_rtm_getroute → rt6_fill_node (net/ipv6/route.c); with
// RTM_F_FIB_MATCH, fib_dump_info or rt6_fill_node of the FIB entry.
func getRoute(r *request) ([]netlink.Message, error) {
	g, err := parseGetRoute(r)
	if err != nil {
		return nil, err
	}
	g.q.Origin = r.origin
	rr, err := r.h.GetRoute(g.q)
	if err != nil {
		return nil, err
	}
	var body []byte
	switch {
	case g.q.FIBMatch && rr.Entry != nil:
		body, err = routeMessage(rr.Entry, roomGoodSize)
	case g.family == uapi.AF_INET6:
		body, err = routeAnswer6(&g, &rr)
	default:
		body, err = routeAnswer(&g, &rr)
	}
	if err != nil {
		return nil, err
	}
	return []netlink.Message{{Header: netlink.Header{Type: netlink.HeaderType(rt.RTMNewRoute)}, Data: body}}, nil
}

// routeAnswer is rt_fill_info: the route an IPv4 lookup built, as a
// cached route (RTM_F_CLONED) to the destination as a host.
func routeAnswer(g *getRouteReq, rr *rtnl.RouteResult) ([]byte, error) {
	table := uint32(uapi.RT_TABLE_MAIN)
	if g.lookupTbl {
		table = rr.Table
	}
	flags := uint32(rr.Flags)&^0xffff | uapi.RTM_F_CLONED
	if g.notify {
		flags |= rtcfNotify | uapi.RTM_F_NOTIFY
	}
	m := rtmsg{family: uapi.AF_INET, dstLen: 32, tos: rr.TOS, table: rtmTable(table),
		protocol: uapi.RTPROT_UNSPEC, scope: uapi.RT_SCOPE_UNIVERSE, typ: uint8(rr.Type), flags: flags}
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(uapi.RTA_TABLE, table)
	ae.Bytes(uapi.RTA_DST, g.queryDst.AsSlice())
	src := netip.IPv4Unspecified()
	if g.hasSrc && !g.querySrc.IsUnspecified() {
		src = g.querySrc
		m.srcLen = 32
		ae.Bytes(uapi.RTA_SRC, src.AsSlice())
	}
	if rr.DevIndex != 0 {
		ae.Uint32(uapi.RTA_OIF, uint32(rr.DevIndex))
	}
	input := g.iifIndex != 0
	if !input && rr.Src.IsValid() && rr.Src != src {
		ae.Bytes(uapi.RTA_PREFSRC, rr.Src.AsSlice())
	}
	putGateway(ae, rr.Gateway, uapi.AF_INET)
	putMetrics(ae, rr.Metrics)
	if g.q.Mark != 0 {
		ae.Uint32(uapi.RTA_MARK, g.q.Mark)
	}
	if g.hasUID || !input {
		// Without RTA_UID an output route is the caller's, root's.
		ae.Uint32(uapi.RTA_UID, g.q.UID)
	}
	if input {
		ae.Uint32(uapi.RTA_IIF, g.iifIndex)
	}
	putCacheinfo(ae, routeRefs(g, rr), 0)
	return m.putAttrs(nil, ae)
}

// routeRefs is the rta_clntref of a route get answer: the references to
// the route the kernel built, which the real kernel reports as 1 for a
// locally delivered output route and 2 for the others (the answer's and
// the cache's).
func routeRefs(g *getRouteReq, rr *rtnl.RouteResult) uint32 {
	if g.family == uapi.AF_INET && g.iifIndex == 0 && rr.Type == fib.TypeLocal {
		return 1
	}
	return 2
}

// routeAnswer6 is rt6_fill_node for the route an IPv6 lookup found: the
// destination as asked and the flow's source as rtnl answers it (:: when
// none was asked) as hosts, the input
// device or the source address selection picked, the route's own
// preferred source, metrics, metric, gateway and device.
func routeAnswer6(g *getRouteReq, rr *rtnl.RouteResult) ([]byte, error) {
	m := rtmsg{family: uapi.AF_INET6, dstLen: 128, srcLen: 128, table: rtmTable(rr.Table),
		protocol: uint8(rr.Protocol), scope: uapi.RT_SCOPE_UNIVERSE, typ: uint8(rr.Type), flags: uint32(rr.Flags) & 0xffff}
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(uapi.RTA_TABLE, rr.Table)
	ae.Bytes(uapi.RTA_DST, g.queryDst.AsSlice())
	ae.Bytes(uapi.RTA_SRC, rr.From.AsSlice())
	if g.iifIndex != 0 {
		ae.Uint32(uapi.RTA_IIF, g.iifIndex)
	} else if rr.Src.IsValid() {
		ae.Bytes(uapi.RTA_PREFSRC, rr.Src.AsSlice())
	}
	if rr.PrefSrc.IsValid() {
		ae.Bytes(uapi.RTA_PREFSRC, rr.PrefSrc.AsSlice())
	}
	putMetrics(ae, rr.Metrics)
	ae.Uint32(uapi.RTA_PRIORITY, rr.Priority)
	putGateway(ae, rr.Gateway, uapi.AF_INET6)
	if rr.DevIndex != 0 {
		ae.Uint32(uapi.RTA_OIF, uint32(rr.DevIndex))
	}
	// The cached copy of the route carries no expiry of its own.
	putCacheinfo(ae, routeRefs(g, rr), 0)
	ae.Uint8(uapi.RTA_PREF, uint8(rr.Pref))
	return m.putAttrs(nil, ae)
}
