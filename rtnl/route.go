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

// RouteInfo is a dumped route (RTM_NEWROUTE of a dump): its fields with
// devices by name. A route through a nexthop object carries the object's
// gateway and device, or its group's members as Multipath (the kernel's
// compatibility dump); a blackhole object's device is the loopback device.
//
// Kernel: fib_dump_info (net/ipv4/fib_semantics.c).
type RouteInfo struct {
	Family    int            // rtm_family: FamilyV4 or FamilyV6
	Table     uint32         // RTA_TABLE
	Dst       netip.Prefix   // RTA_DST and rtm_dst_len
	Type      fib.Type       // rtm_type
	Scope     fib.Scope      // rtm_scope
	Protocol  fib.Protocol   // rtm_protocol
	Priority  uint32         // RTA_PRIORITY; 0 when not sent
	TOS       uint8          // rtm_tos
	Gateway   netip.Addr     // RTA_GATEWAY of a single path
	Dev       string         // RTA_OIF of a single path; "" when none
	DevIndex  netdev.IfIndex // Dev's ifindex, as RTA_OIF carries it; 0 when none
	NexthopID nexthop.ID     // RTA_NH_ID
	PrefSrc   netip.Addr     // RTA_PREFSRC
	Flags     fib.NHFlags    // rtm_flags
	Metrics   fib.Metrics    // RTA_METRICS
	// Multipath are the paths of RTA_MULTIPATH, in the kernel's order;
	// nil for a single path.
	Multipath []RoutePath
	Size      int // the length of its RTM_NEWROUTE message (fib.Route.NetlinkSize)

	Src     netip.Prefix  // RTA_SRC and rtm_src_len (IPv6 "from"); invalid for none
	Pref    rt.Pref       // RTA_PREF (IPv6)
	Expires time.Duration // RTA_EXPIRES (IPv6): the time left; 0 is none
	// IIF is RTA_IIF: the input device of an IPv6 `route get fibmatch
	// ... iif DEV` answer, which rt6_fill_node sends; "" otherwise.
	IIF string
	// IIFIndex is IIF's ifindex, as RTA_IIF carries it.
	IIFIndex netdev.IfIndex
}

// RoutePath is one path of a dumped multipath route (struct rtnexthop and
// its RTA_GATEWAY).
type RoutePath struct {
	Gateway  netip.Addr     // RTA_GATEWAY inside the rtnexthop
	Dev      string         // rtnh_ifindex, by name
	DevIndex netdev.IfIndex // rtnh_ifindex; 0 when none
	Weight   int            // rtnh_hops+1: 1..256
	Flags    fib.NHFlags    // rtnh_flags
}

func routeInfo(r fib.Route) RouteInfo {
	ri := RouteInfo{
		Family: FamilyV4, Table: r.Table, Dst: r.Dst, Type: r.Type, Scope: r.Scope, Protocol: r.Protocol,
		Priority: r.Priority, TOS: r.TOS, Gateway: r.Gateway, NexthopID: r.NexthopID,
		PrefSrc: r.PrefSrc, Flags: r.Flags, Metrics: r.Metrics, Size: r.NetlinkSize(),
	}
	if r.Dev != nil {
		ri.Dev, ri.DevIndex = r.Dev.Name(), r.Dev.Index()
	} else if r.NexthopID != 0 && len(r.Multipath) == 0 && r.Type == fib.TypeBlackhole {
		// A blackhole nexthop object's device is the loopback device
		// (nh_create_ipv4 with cfg->nh_blackhole), which the dump shows.
		ri.Dev, ri.DevIndex = "lo", netdev.LoopbackIfIndex
	}
	ri.Multipath = routePaths(r.Multipath)
	return ri
}

// routePaths is the RTA_MULTIPATH of a dump, for either family: the
// devices by name, a weight of 0 (unset) as 1.
func routePaths(ps []fib.Path) []RoutePath {
	var out []RoutePath
	for _, p := range ps {
		rp := RoutePath{Gateway: p.Gateway, Weight: p.Weight, Flags: p.Flags}
		if rp.Weight == 0 {
			rp.Weight = 1
		}
		if p.Dev != nil {
			rp.Dev, rp.DevIndex = p.Dev.Name(), p.Dev.Index()
		}
		out = append(out, rp)
	}
	return out
}

// RouteList returns the routes of family (FamilyV4, FamilyV6, or
// FamilyAll for both, IPv4 first, as a dump of AF_UNSPEC gives them) in
// table (0: every table, as `ip route show table all`), in the kernel's
// dump order. A family without that table contributes nothing. It is
// RouteDump read whole in one part: one request, RTNL held throughout.
//
// Kernel: inet_dump_fib → fib_table_dump; inet6_dump_fib → fib6_dump_table
// (rtnl_dump_all for AF_UNSPEC).
func (h *Handle) RouteList(family int, table uint32) ([]RouteInfo, error) {
	d, err := h.RouteDump(family, table)
	if err != nil {
		return nil, err
	}
	var out []RouteInfo
	_, err = d.Next(func(ri *RouteInfo) bool {
		out = append(out, *ri)
		return true
	})
	return out, err
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
