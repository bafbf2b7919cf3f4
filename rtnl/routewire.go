// Route requests as rtnetlink messages carry them: the NLM_F_* flags of an
// RTM_NEWROUTE as they are, the protocol as sent, and the ifindexes of a
// route lookup's answer.

package rtnl

import (
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// RouteNew is an RTM_NEWROUTE with the request flags mode (any
// combination of NLM_F_CREATE, EXCL, REPLACE and APPEND, none included)
// as a netlink socket sends it: unlike RouteAdd and its siblings, a zero
// Protocol stays RTPROT_UNSPEC. For IPv4, fib_table_insert reads the
// flags (no NLM_F_CREATE and no match is ENOENT); for IPv6, fib6_add
// does (no NLM_F_CREATE still adds, as the kernel does with a warning).
//
// Kernel: inet_rtm_newroute (net/ipv4/fib_frontend.c),
// inet6_rtm_newroute (net/ipv6/route.c).
func (h *Handle) RouteNew(r Route, mode rt.NLMFlags) error {
	_, err := h.RouteNewHeader(r, mode)
	return err
}

// RouteNewHeader is RouteNew that also returns the request's
// NLM_F_CREATE, EXCL, REPLACE and APPEND flags as the kernel leaves them
// in the request's header, which the ack echoes: an IPv6 multipath add
// rewrites them (see fib6.FIB.AddRequest); any other request returns mode.
//
// Kernel: ip6_route_multipath_add (net/ipv6/route.c).
func (h *Handle) RouteNewHeader(r Route, mode rt.NLMFlags) (rt.NLMFlags, error) {
	nlh := mode
	err := h.do("RTM_NEWROUTE", func(t *sim.Task, _ *netdev.Table) error {
		if r.Dst.Addr().Is6() {
			fr, err := h.n.fib6Route(r, true)
			if err != nil {
				return err
			}
			fr.Protocol = r.Protocol
			var err6 error
			nlh, err6 = h.n.fib6.AddRequest(t, fr, mode)
			return err6
		}
		fr, err := h.n.fibRoute(r, true)
		if err != nil {
			return err
		}
		fr.Protocol = r.Protocol
		return h.n.fib.Add(t, fr, mode)
	})
	return nlh, err
}

// RouteDelRequest is an RTM_DELROUTE as a netlink socket sends it: unlike
// RouteDel, whose zero Scope matches any, Scope is rtm_scope as sent, with
// RT_SCOPE_NOWHERE (fib.ScopeNowhere, what `ip route del` sends unless
// given a scope) the wildcard, so that 0 matches only universe routes
// (IPv4; an IPv6 delete does not look at the scope). The other fields are
// RouteDel's.
//
// Kernel: inet_rtm_delroute, rtm_to_fib_config (net/ipv4/fib_frontend.c),
// fib_table_delete (net/ipv4/fib_trie.c); inet6_rtm_delroute
// (net/ipv6/route.c).
func (h *Handle) RouteDelRequest(r Route) error { return h.routeDel(r, true) }

// RouteIndexes are the ifindexes of a RouteResult's devices, which a
// netlink answer carries instead of their names: RTA_OIF and RTA_IIF (0
// when there is none).
type RouteIndexes struct {
	Dev, IIF netdev.IfIndex
}

// RouteGetIndexes is RouteGetFlow for a netlink front end: the answer and
// the ifindexes of its devices, resolved in the same request.
//
// Kernel: inet_rtm_getroute (net/ipv4/route.c), inet6_rtm_getroute
// (net/ipv6/route.c).
func (h *Handle) RouteGetIndexes(q RouteQuery) (RouteResult, RouteIndexes, error) {
	var rr RouteResult
	var ix RouteIndexes
	get := h.routeGetFlow(q, &rr)
	err := h.do("RTM_GETROUTE", func(t *sim.Task, tb *netdev.Table) error {
		if err := get(t, tb); err != nil {
			return err
		}
		index := func(name string) netdev.IfIndex {
			if d := tb.ByName(name); name != "" && d != nil {
				return d.Index()
			}
			return 0
		}
		ix = RouteIndexes{Dev: index(rr.Dev), IIF: index(rr.IIF)}
		return nil
	})
	return rr, ix, err
}
