package rtnl

import (
	"net/netip"
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Route is an IPv4 or IPv6 route (the family of Dst) as `ip route` sends
// it, with devices by name. In requests zero fields take the defaults `ip
// route add` uses: table main, type unicast, protocol boot (and for IPv6
// metric 1024). For RouteDel zero fields are wildcards, as for `ip route del
// PREFIX`.
type Route struct {
	Table     uint32       // "table"; 0 is main
	Dst       netip.Prefix // the prefix; host bits must be zero
	Src       netip.Prefix // "from" (IPv6 only): a source-specific route
	Type      fib.Type     // "unicast", "local", "blackhole", ...; 0 is unicast
	Scope     fib.Scope    // "scope"
	Protocol  fib.Protocol // "proto"; 0 is boot on add
	Priority  uint32       // "metric"
	TOS       uint8        // "tos"
	Gateway   netip.Addr   // "via"
	Dev       string       // "dev"
	OnLink    bool         // "onlink"
	NexthopID nexthop.ID   // "nhid"
	Multipath []NextHop    // "nexthop via ... dev ... weight ..."
	PrefSrc   netip.Addr   // "src"
	// Metrics are "mtu", "advmss", "congctl", ... (RTA_METRICS), in the
	// kernel's units (see fib.Metrics).
	Metrics fib.Metrics
	Pref    rt.Pref       // "pref" (IPv6 only): RTA_PREF
	Expires time.Duration // "expires" (IPv6 only): RTA_EXPIRES; 0 is none
}

// NextHop is one path of a multipath route.
type NextHop struct {
	Gateway netip.Addr
	Dev     string
	Weight  int // 1..256; 0 is 1
	OnLink  bool
}

func (n *Net) dev(name string) (*netdev.Device, error) {
	if name == "" {
		return nil, nil
	}
	if name[0] == 0 {
		return n.devs.Lookup(name) // a netdev.IndexRef: ENODEV without a message
	}
	if d := n.devs.ByName(name); d != nil {
		return d, nil
	}
	return nil, errno.Errorf(syscall.ENODEV, "Cannot find device \"%s\"", name)
}

func (n *Net) fibRoute(r Route, add bool) (fib.Route, error) {
	fr := fib.Route{
		Table: r.Table, Dst: r.Dst, Type: r.Type, Scope: r.Scope, Protocol: r.Protocol,
		Priority: r.Priority, TOS: r.TOS, Gateway: r.Gateway, OnLink: r.OnLink,
		NexthopID: r.NexthopID, PrefSrc: r.PrefSrc, Metrics: r.Metrics,
	}
	if add && fr.Protocol == fib.ProtoUnspec {
		fr.Protocol = fib.ProtoBoot
	}
	var err error
	fr.Dev, fr.Multipath, err = n.routeDevs(r)
	return fr, err
}

// routeDevs resolves the devices of a route request by name: its own
// (RTA_OIF) and its paths' (RTA_MULTIPATH), for either family.
func (n *Net) routeDevs(r Route) (*netdev.Device, []fib.Path, error) {
	dev, err := n.dev(r.Dev)
	if err != nil {
		return nil, nil, err
	}
	var mp []fib.Path
	for _, p := range r.Multipath {
		d, err := n.dev(p.Dev)
		if err != nil {
			return nil, nil, err
		}
		mp = append(mp, fib.Path{Gateway: p.Gateway, Dev: d, Weight: p.Weight, OnLink: p.OnLink})
	}
	return dev, mp, nil
}

func (h *Handle) routeAdd(r Route, mode rt.NLMFlags) error {
	return h.do("RTM_NEWROUTE", func(t *sim.Task, _ *netdev.Table) error {
		if r.Dst.Addr().Is6() {
			fr, err := h.n.fib6Route(r, true)
			if err != nil {
				return err
			}
			return h.n.fib6.Add(t, fr, mode)
		}
		fr, err := h.n.fibRoute(r, true)
		if err != nil {
			return err
		}
		return h.n.fib.Add(t, fr, mode)
	})
}

// RouteAdd adds a route; EEXIST if the same prefix, TOS and metric exist.
//
// Kernel: inet_rtm_newroute → fib_table_insert with NLM_F_CREATE|NLM_F_EXCL
// (`ip route add`).
func (h *Handle) RouteAdd(r Route) error { return h.routeAdd(r, rt.ModeAdd) }

// RouteAppend adds a route after the existing ones for the same key.
//
// Kernel: fib_table_insert with NLM_F_CREATE|NLM_F_APPEND (`ip route append`).
func (h *Handle) RouteAppend(r Route) error { return h.routeAdd(r, rt.ModeAppend) }

// RoutePrepend adds a route before the existing ones for the same key.
//
// Kernel: fib_table_insert with NLM_F_CREATE (`ip route prepend`).
func (h *Handle) RoutePrepend(r Route) error { return h.routeAdd(r, rt.ModePrepend) }

// RouteReplace replaces the first route with the same key, or adds it.
//
// Kernel: fib_table_insert with NLM_F_CREATE|NLM_F_REPLACE (`ip route replace`).
func (h *Handle) RouteReplace(r Route) error { return h.routeAdd(r, rt.ModeReplace) }

// RouteChange replaces the first route with the same key; ENOENT if none.
//
// Kernel: fib_table_insert with NLM_F_REPLACE (`ip route change`).
func (h *Handle) RouteChange(r Route) error { return h.routeAdd(r, rt.ModeChange) }

// RouteTest is an RTM_NEWROUTE with NLM_F_EXCL alone: EEXIST if the
// route's key exists, and without NLM_F_CREATE nothing is added.
//
// Kernel: fib_table_insert with NLM_F_EXCL (`ip route test`).
func (h *Handle) RouteTest(r Route) error { return h.routeAdd(r, rt.NLMExcl) }

// RouteDel deletes the first route matching r (zero fields match anything).
//
// Kernel: inet_rtm_delroute → fib_table_delete (`ip route del`).
func (h *Handle) RouteDel(r Route) error { return h.routeDel(r, false) }

// routeDel serves RouteDel and RouteDelRequest; exactScope says r.Scope
// is rtm_scope as sent (see RouteDelRequest).
func (h *Handle) routeDel(r Route, exactScope bool) error {
	return h.do("RTM_DELROUTE", func(t *sim.Task, _ *netdev.Table) error {
		if r.Dst.Addr().Is6() {
			fr, err := h.n.fib6Route(r, false)
			if err != nil {
				return err
			}
			return h.n.fib6.Del(t, fr)
		}
		fr, err := h.n.fibRoute(r, false)
		if err != nil {
			return err
		}
		if exactScope {
			return h.n.fib.DelRequest(t, fr)
		}
		return h.n.fib.Del(t, fr)
	})
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
