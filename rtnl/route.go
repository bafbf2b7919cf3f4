// Route requests: RTM_NEWROUTE and RTM_DELROUTE of either family,
// inet_rtm_newroute and inet_rtm_delroute (net/ipv4/fib_frontend.c) into
// fib_table_insert and fib_table_delete (net/ipv4/fib_trie.c),
// inet6_rtm_newroute and inet6_rtm_delroute (net/ipv6/route.c), with a
// route's devices resolved as rtm_to_fib_config and rtm_to_fib6_config
// resolve them.

package rtnl

import (
	"net/netip"
	"time"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fib6"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Route is an IPv4 or IPv6 route (the family of Dst): the body of an
// RTM_NEWROUTE or RTM_DELROUTE, struct rtmsg and its attributes, with `ip
// route`'s names in the comments. A zero field is what the message leaves
// out: table main, type unicast on add (RTN_UNSPEC), no metric (IPv6: 1024);
// for a delete a zero field is a wildcard, the scope's being
// fib.ScopeNowhere (see DelRoute). A device is named by ifindex when its
// index field is not 0, else by name.
type Route struct {
	Table     uint32         // "table" (rtm_table, RTA_TABLE); 0 is main
	Dst       netip.Prefix   // the prefix (RTA_DST, rtm_dst_len); host bits must be zero
	Src       netip.Prefix   // "from" (IPv6 only: RTA_SRC): a source-specific route
	Type      fib.Type       // "unicast", "local", "blackhole", ... (rtm_type); 0 is unicast
	Scope     fib.Scope      // "scope" (rtm_scope)
	Protocol  fib.Protocol   // "proto" (rtm_protocol), as sent
	Priority  uint32         // "metric" (RTA_PRIORITY)
	TOS       uint8          // "tos" (rtm_tos)
	Gateway   netip.Addr     // "via" (RTA_GATEWAY, RTA_VIA)
	Dev       string         // "dev" (RTA_OIF) by name
	DevIndex  netdev.IfIndex // RTA_OIF: the device by ifindex, used instead of Dev when not 0
	OnLink    bool           // "onlink" (RTNH_F_ONLINK in rtm_flags)
	NexthopID nexthop.ID     // "nhid" (RTA_NH_ID)
	Multipath []RoutePath    // "nexthop via ... dev ... weight ..." (RTA_MULTIPATH)
	PrefSrc   netip.Addr     // "src" (RTA_PREFSRC)
	// Metrics are "mtu", "advmss", "congctl", ... (RTA_METRICS), in the
	// kernel's units (see fib.Metrics).
	Metrics fib.Metrics
	Pref    rt.Pref       // "pref" (IPv6 only): RTA_PREF
	Expires time.Duration // "expires" (IPv6 only): RTA_EXPIRES; 0 is none
}

// RoutePath is one path of a multipath route: a struct rtnexthop and its
// RTA_GATEWAY (or RTA_VIA). A request's path has a gateway, a device (by
// ifindex when DevIndex is not 0, else by name), a weight and the onlink
// flag; a dumped path has its device by both, and its rtnh_flags.
type RoutePath struct {
	Gateway  netip.Addr     // RTA_GATEWAY inside the rtnexthop
	Dev      string         // rtnh_ifindex, by name
	DevIndex netdev.IfIndex // rtnh_ifindex; 0 when none
	Weight   int            // rtnh_hops+1: 1..256; 0 in a request is 1
	OnLink   bool           // RTNH_F_ONLINK of a request's path
	Flags    fib.NHFlags    // rtnh_flags of a dumped path
}

// RouteRequest is an RTM_NEWROUTE or RTM_DELROUTE: the route and, for
// RTM_NEWROUTE, its NLM_F_* request flags.
type RouteRequest struct {
	Origin
	// Flags are RTM_NEWROUTE's NLM_F_CREATE, EXCL, REPLACE and APPEND
	// (rt.ModeAdd, ... as `ip route` sends them); RTM_DELROUTE reads none.
	Flags rt.NLMFlags
	Route
}

// RouteAck is what an RTM_NEWROUTE leaves in its own header, which the
// request's ack echoes: the NLM_F_CREATE, EXCL, REPLACE and APPEND flags as
// the kernel leaves them. An IPv6 multipath add rewrites them (see
// fib6.FIB.AddRequest); any other request leaves the request's.
type RouteAck struct {
	Flags rt.NLMFlags
}

// NewRoute is an RTM_NEWROUTE: it inserts req's route as req.Flags say.
// For IPv4, fib_table_insert reads the flags: with NLM_F_EXCL an existing
// route of the same key is EEXIST, with NLM_F_REPLACE the first one is
// replaced (ENOENT without NLM_F_CREATE when there is none), with
// NLM_F_APPEND the route goes after the existing ones, else before them.
// For IPv6, fib6_add does (without NLM_F_CREATE it still adds, as the
// kernel does with a warning). The protocol is as sent: a zero Protocol is
// RTPROT_UNSPEC.
//
// Kernel: inet_rtm_newroute (net/ipv4/fib_frontend.c), fib_table_insert
// (net/ipv4/fib_trie.c); inet6_rtm_newroute, ip6_route_add,
// ip6_route_multipath_add (net/ipv6/route.c).
func (h *Handle) NewRoute(req RouteRequest) (RouteAck, error) {
	return h.newRoute(req.Origin, req.Flags, &req.Route)
}

// newRoute is NewRoute of the route *r, from o, with flags: the route is
// read in place, and turned into the FIB's request on the stack, never
// copied whole again.
func (h *Handle) newRoute(o Origin, flags rt.NLMFlags, r *Route) (RouteAck, error) {
	ack := RouteAck{Flags: flags}
	err := h.doFrom(o, "RTM_NEWROUTE", func(t *sim.Task, _ *netdev.Table) error {
		if r.Dst.Addr().Is6() {
			var fr fib6.Route
			if err := h.n.fib6Route(r, &fr); err != nil {
				return err
			}
			var err error
			ack.Flags, err = h.n.fib6.AddRoute(t, &fr, flags)
			return err
		}
		var fr fib.Route
		if err := h.n.fibRoute(r, &fr); err != nil {
			return err
		}
		return h.n.fib.AddRoute(t, &fr, flags)
	})
	return ack, err
}

// DelRoute is an RTM_DELROUTE: it deletes the first route req matches.
// Zero fields match anything, except the scope: rtm_scope is compared as
// sent, fib.ScopeNowhere (RT_SCOPE_NOWHERE, what `ip route del` sends
// unless given a scope) matching any and 0 only universe routes (IPv4; an
// IPv6 delete does not look at the scope). Without a gateway an IPv6
// multipath route goes whole; with Multipath each path is deleted as its
// own route.
//
// Kernel: inet_rtm_delroute, rtm_to_fib_config (net/ipv4/fib_frontend.c),
// fib_table_delete (net/ipv4/fib_trie.c); inet6_rtm_delroute,
// ip6_route_del, ip6_route_multipath_del (net/ipv6/route.c).
func (h *Handle) DelRoute(req RouteRequest) error {
	return h.doFrom(req.Origin, "RTM_DELROUTE", func(t *sim.Task, _ *netdev.Table) error {
		if req.Dst.Addr().Is6() {
			var fr fib6.Route
			if err := h.n.fib6Route(&req.Route, &fr); err != nil {
				return err
			}
			return h.n.fib6.Del(t, fr)
		}
		var fr fib.Route
		if err := h.n.fibRoute(&req.Route, &fr); err != nil {
			return err
		}
		return h.n.fib.DelRequest(t, fr)
	})
}

// routeDev resolves a device a route request names (RTA_OIF,
// rtnh_ifindex): by ifindex when index is not 0 (ENODEV without a message
// when no device has it), else by name ("Cannot find device"); none when
// both are zero.
//
// Kernel: __dev_get_by_index in fib_create_info, fib_check_nh
// (net/ipv4/fib_semantics.c) and ip6_route_info_create (net/ipv6/route.c).
func (n *Net) routeDev(index netdev.IfIndex, name string) (*netdev.Device, error) {
	if index == 0 && name == "" {
		return nil, nil
	}
	return n.devs.Find(index, name)
}

// fibRoute fills fr, which is zero, with the fib request for r, an IPv4
// route, its devices resolved.
//
// Kernel: rtm_to_fib_config (net/ipv4/fib_frontend.c).
func (n *Net) fibRoute(r *Route, fr *fib.Route) error {
	fr.Table, fr.Dst, fr.Type, fr.Scope, fr.Protocol = r.Table, r.Dst, r.Type, r.Scope, r.Protocol
	fr.Priority, fr.TOS, fr.Gateway, fr.OnLink = r.Priority, r.TOS, r.Gateway, r.OnLink
	fr.NexthopID, fr.PrefSrc, fr.Metrics = r.NexthopID, r.PrefSrc, r.Metrics
	var err error
	fr.Dev, fr.Multipath, err = n.routeDevs(r)
	return err
}

// routeDevs resolves the devices of a route request: its own (RTA_OIF)
// and its paths' (RTA_MULTIPATH), for either family.
func (n *Net) routeDevs(r *Route) (*netdev.Device, []fib.Path, error) {
	dev, err := n.routeDev(r.DevIndex, r.Dev)
	if err != nil {
		return nil, nil, err
	}
	var mp []fib.Path
	for _, p := range r.Multipath {
		d, err := n.routeDev(p.DevIndex, p.Dev)
		if err != nil {
			return nil, nil, err
		}
		mp = append(mp, fib.Path{Gateway: p.Gateway, Dev: d, Weight: p.Weight, OnLink: p.OnLink})
	}
	return dev, mp, nil
}

// TrieStat returns the namespace's /proc/net/fib_triestat text.
func (h *Handle) TrieStat() (string, error) {
	return h.procText("fib_triestat", h.n.fib.TrieStat)
}

// procText reads a /proc file's text, text, with RTNL held; op names the
// file.
func (h *Handle) procText(op string, text func() string) (string, error) {
	var s string
	err := h.do(op, func(*sim.Task, *netdev.Table) error {
		s = text()
		return nil
	})
	return s, err
}
