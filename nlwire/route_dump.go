// Route dumps on the wire: an RTM_GETROUTE with NLM_F_DUMP, served by
// inet_dump_fib (net/ipv4/fib_frontend.c), inet6_dump_fib
// (net/ipv6/ip6_fib.c) and for AF_UNSPEC rtnl_dump_all
// (net/core/rtnetlink.c).

package nlwire

import (
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// dumpRouteRequest decodes an RTM_GETROUTE dump request: its family, its
// struct rtmsg and, on a socket with NETLINK_GET_STRICT_CHK, its
// attributes as ip_valid_fib_dump_req parses them (nlmsg_parse_deprecated_strict:
// the policy's errors are the parse's); rtnl checks the rest.
func dumpRouteRequest(r *request) (rtnl.RouteDumpRequest, error) {
	q := rtnl.RouteDumpRequest{Origin: r.origin, Family: rt.Family(r.family()), Strict: r.strict}
	if len(r.body) < rtmsgLen {
		q.Short = true
		return q, nil
	}
	m := parseRtmsg(r.body)
	q.DstLen, q.SrcLen, q.TOS, q.Scope = m.dstLen, m.srcLen, m.tos, fib.Scope(m.scope)
	q.Flags, q.Protocol, q.Type, q.Table = m.flags, fib.Protocol(m.protocol), fib.Type(m.typ), uint32(m.table)
	if !r.strict || m.dstLen != 0 || m.srcLen != 0 || m.tos != 0 || m.scope != 0 ||
		m.flags&^(uapi.RTM_F_CLONED|uapi.RTM_F_PREFIX) != 0 {
		// rtnl refuses the header before the attributes are parsed.
		return q, nil
	}
	a, err := r.parseAttrs(r.body[rtmsgLen:], 16+rtmsgLen, routePolicy4, validateTrailing|validateMaxType)
	if err != nil {
		return q, err
	}
	for t := range a.present() {
		q.Attrs = append(q.Attrs, rt.RouteAttr(t))
		switch t {
		case uapi.RTA_TABLE:
			q.Table = a.u32(uapi.RTA_TABLE)
		case uapi.RTA_OIF:
			q.DevIndex = netdev.IfIndex(int32(a.u32(uapi.RTA_OIF)))
		}
	}
	return q, nil
}

// dumpRoutes serves a dump of RTM_GETROUTE: inet_dump_fib for AF_INET,
// inet6_dump_fib for AF_INET6, both in turn (rtnl_dump_all) for
// AF_UNSPEC, with the request's filter on a strict socket (see
// rtnl.Handle.DumpRoutes), whose every message then says
// NLM_F_DUMP_FILTERED.
func dumpRoutes(r *request) (dumper, error) {
	q, err := dumpRouteRequest(r)
	if err != nil {
		return nil, err
	}
	rd, err := r.h.DumpRoutes(q)
	if err != nil {
		return nil, err
	}
	d := &routeDumper{rd: rd}
	if r.strict {
		d.flags = uapi.NLM_F_DUMP_FILTERED
	}
	return d, nil
}

// routeDumper is a route dump's cursor (rtnl.RouteDump).
type routeDumper struct {
	rd    *rtnl.RouteDump
	flags netlink.HeaderFlags // each message's: NLM_F_DUMP_FILTERED on a strict socket
}

// fill puts the routes rtnl's dump part gives for the room left in p,
// each built for the room left: rtnl cuts the parts, and ends the dump at
// a route that does not fit in an empty part (see rtnl.RouteDump.Next).
//
// Kernel: fn_trie_dump_leaf → fib_dump_info; fib6_dump_node →
// rt6_dump_route → rt6_fill_node.
func (d *routeDumper) fill(p *part) (bool, error) {
	var perr error
	put := putEach(p, rt.RTMNewRoute, d.flags, routeMessage, &perr)
	done, err := d.rd.Next(p.left(), put)
	if d.rd.Filtered() {
		// The dumpit's cb->answer_flags, set once its filter is known.
		p.cb.answerFlags |= uapi.NLM_F_DUMP_FILTERED
	}
	if perr != nil {
		return false, perr
	}
	return done, err
}

func (d *routeDumper) close() { d.rd.Close() }
