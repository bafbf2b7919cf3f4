package rtnl

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// Route is an IPv4 route as `ip route` sends it, with devices by name. In
// requests zero fields take the defaults `ip route add` uses: table main,
// type unicast, protocol boot. For RouteDel zero fields are wildcards, as
// for `ip route del PREFIX`.
type Route struct {
	Table     uint32       // "table"; 0 is main
	Dst       netip.Prefix // the prefix; host bits must be zero
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
	if fr.Dev, err = n.dev(r.Dev); err != nil {
		return fr, err
	}
	for _, p := range r.Multipath {
		d, err := n.dev(p.Dev)
		if err != nil {
			return fr, err
		}
		fr.Multipath = append(fr.Multipath, fib.NextHop{Gateway: p.Gateway, Dev: d, Weight: p.Weight, OnLink: p.OnLink})
	}
	return fr, nil
}

func (h *Handle) routeAdd(r Route, mode fib.Mode) error {
	return h.do("RTM_NEWROUTE", func(t *sim.Task, _ *netdev.Table) error {
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
func (h *Handle) RouteAdd(r Route) error { return h.routeAdd(r, fib.ModeAdd) }

// RouteAppend adds a route after the existing ones for the same key.
//
// Kernel: fib_table_insert with NLM_F_CREATE|NLM_F_APPEND (`ip route append`).
func (h *Handle) RouteAppend(r Route) error { return h.routeAdd(r, fib.ModeAppend) }

// RoutePrepend adds a route before the existing ones for the same key.
//
// Kernel: fib_table_insert with NLM_F_CREATE (`ip route prepend`).
func (h *Handle) RoutePrepend(r Route) error { return h.routeAdd(r, fib.ModePrepend) }

// RouteReplace replaces the first route with the same key, or adds it.
//
// Kernel: fib_table_insert with NLM_F_CREATE|NLM_F_REPLACE (`ip route replace`).
func (h *Handle) RouteReplace(r Route) error { return h.routeAdd(r, fib.ModeReplace) }

// RouteChange replaces the first route with the same key; ENOENT if none.
//
// Kernel: fib_table_insert with NLM_F_REPLACE (`ip route change`).
func (h *Handle) RouteChange(r Route) error { return h.routeAdd(r, fib.ModeChange) }

// RouteDel deletes the first route matching r (zero fields match anything).
//
// Kernel: inet_rtm_delroute → fib_table_delete (`ip route del`).
func (h *Handle) RouteDel(r Route) error {
	return h.do("RTM_DELROUTE", func(t *sim.Task, _ *netdev.Table) error {
		fr, err := h.n.fibRoute(r, false)
		if err != nil {
			return err
		}
		return h.n.fib.Del(t, fr)
	})
}

// RouteInfo is a dumped route: its fields with devices by name, and the
// line `ip route show` prints for it.
type RouteInfo struct {
	Table     uint32
	Dst       netip.Prefix
	Type      fib.Type
	Scope     fib.Scope
	Protocol  fib.Protocol
	Priority  uint32
	TOS       uint8
	Gateway   netip.Addr
	Dev       string
	NexthopID nexthop.ID
	PrefSrc   netip.Addr
	Flags     fib.NHFlags
	Metrics   fib.Metrics
	Paths     int    // paths of a multipath route (0 for a single path)
	Size      int    // the length of its RTM_NEWROUTE message (fib.Route.NetlinkSize)
	Text      string // as `ip route show table all` prints it
}

func routeInfo(r fib.Route) RouteInfo {
	ri := RouteInfo{
		Table: r.Table, Dst: r.Dst, Type: r.Type, Scope: r.Scope, Protocol: r.Protocol,
		Priority: r.Priority, TOS: r.TOS, Gateway: r.Gateway, NexthopID: r.NexthopID,
		PrefSrc: r.PrefSrc, Flags: r.Flags, Metrics: r.Metrics, Paths: len(r.Multipath), Size: r.NetlinkSize(), Text: r.String(),
	}
	if r.Dev != nil {
		ri.Dev = r.Dev.Name()
	}
	return ri
}

// RouteList returns the routes of table (0: every table, as `ip route show
// table all`), in the kernel's dump order.
//
// Kernel: inet_dump_fib → fib_table_dump.
func (h *Handle) RouteList(table uint32) ([]RouteInfo, error) {
	var out []RouteInfo
	err := h.do("RTM_GETROUTE", func(t *sim.Task, _ *netdev.Table) error {
		var rs []fib.Route
		if table == 0 {
			rs = h.n.fib.AllRoutes()
		} else {
			if h.n.fib.Table(table) == nil {
				return nil
			}
			rs = h.n.fib.Routes(table)
		}
		for _, r := range rs {
			out = append(out, routeInfo(r))
		}
		return nil
	})
	return out, err
}

// TrieStat returns the namespace's /proc/net/fib_triestat text.
func (h *Handle) TrieStat() (string, error) {
	var s string
	err := h.do("fib_triestat", func(t *sim.Task, _ *netdev.Table) error {
		s = h.n.fib.TrieStat()
		return nil
	})
	return s, err
}
