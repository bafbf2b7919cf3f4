// api.go is the FIB's exported surface: the route, flow and result types
// of a request, a lookup and a dump (struct fib6_config, struct flowi6,
// struct fib6_result), and the entry points rtnl calls for route requests,
// lookups, tables, /proc files, device events and addrconf's routes
// (net/ipv6/route.c, net/ipv6/ip6_fib.c, net/ipv6/addrconf.c).

package fib6

import (
	"net/netip"
	"time"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Route is an IPv6 route: the request of `ip -6 route add/del/replace/...`
// (RTM_NEWROUTE / RTM_DELROUTE) and an entry of a dump.
//
// In requests, zero fields take the kernel's and iproute2's defaults: Table
// 0 is main, Type 0 is unicast, Priority 0 is IP6_RT_PRIO_USER (1024). For
// Del, zero fields are wildcards, as in ip6_route_del.
type Route struct {
	Table     uint32         // RTA_TABLE; 0 means main (254)
	Dst       netip.Prefix   // RTA_DST and rtm_dst_len; must be masked
	Src       netip.Prefix   // RTA_SRC and rtm_src_len ("from"): a source-specific route; invalid for none
	Type      rt.Type        // rtm_type; 0 means unicast
	Protocol  rt.Protocol    // rtm_protocol
	Priority  uint32         // RTA_PRIORITY ("metric")
	Pref      rt.Pref        // RTA_PREF
	Gateway   netip.Addr     // RTA_GATEWAY
	Dev       *netdev.Device // RTA_OIF
	OnLink    bool           // RTNH_F_ONLINK in rtm_flags
	NexthopID nexthop.ID     // RTA_NH_ID: use a nexthop object
	Multipath []fib.Path     // RTA_MULTIPATH; in dumps the siblings of a multipath route
	PrefSrc   netip.Addr     // RTA_PREFSRC
	Metrics   fib.Metrics    // RTA_METRICS
	// Expires is RTA_EXPIRES: in a request the route's lifetime, in a dump
	// the time left; 0 is none.
	Expires time.Duration
	Flags   rt.NHFlags // in dumps: rtm_flags (dead, linkdown, onlink, ...)
}

// Flow is a lookup key: the parts of struct flowi6 a lookup reads.
type Flow struct {
	Dst, Src  netip.Addr     // flowi6_daddr, flowi6_saddr (invalid: unspecified)
	IIF, OIF  netdev.IfIndex // flowi6_iif, flowi6_oif
	Mark      uint32         // flowi6_mark
	UID       uint32         // flowi6_uid
	Proto     uint8          // flowi6_proto
	FlowLabel uint32         // the flow label (multipath hash)
	Sport     uint16
	Dport     uint16
}

// Result is what a lookup found: the matching route as a dump shows it,
// the path chosen and the table it came from.
type Result struct {
	// Route is the route chosen as rt6_fill_node shows it (`ip -6 route
	// get fibmatch`): for a multipath route the sibling the flow's hash
	// chose, whose Multipath lists every path starting from its own (the
	// kernel dumps rt, then rt's sibling list).
	Route   Route
	Table   uint32         // the table it is in
	Gateway netip.Addr     // the chosen path's gateway
	Dev     *netdev.Device // the chosen path's device
}

// RuleLookup resolves a flow through the IPv6 policy rules (fib6_rule_lookup
// → fib_rules_lookup); it is given the table lookup to run for a to_tbl
// rule. It is called with RTNL held and must not change the FIB.
type RuleLookup func(t *sim.Task, fl Flow) (Result, error)

// New returns the IPv6 FIB of a new namespace: tables main and local, and
// the null entry.
//
// Kernel: ip6_route_net_init, fib6_net_init (net/ipv6/route.c, ip6_fib.c).
func New(w *sim.World, nh *nexthop.Table) *FIB {
	f := newFIB(w, nh)
	f.tree.rebalance = multipathRebalance
	f.tree.linked = nhLinked
	f.tree.purged = nhUnlink
	return f
}

// SetRuleLookup installs the lookup through the policy rules, which
// Lookup then uses instead of the default rules' (table local, then main).
func (f *FIB) SetRuleLookup(fn RuleLookup) { f.rs.rules = fn }

// Add adds, replaces, appends or prepends a route, as mode says. A request
// with Multipath adds one route per path, merged into one multipath route;
// Priority 0 is 1024.
//
// Kernel: inet6_rtm_newroute → ip6_route_add / ip6_route_multipath_add.
func (f *FIB) Add(t *sim.Task, r Route, mode rt.NLMFlags) error {
	_, err := f.add(t, &r, mode)
	return err
}

// AddRequest is Add for a netlink request whose header carries mode: it
// also returns the header's NLM_F_CREATE, EXCL, REPLACE and APPEND flags as
// the kernel leaves them, which the request's ack echoes. A multipath add
// rewrites them in place after each path it inserts (NLM_F_EXCL and
// NLM_F_REPLACE off, NLM_F_CREATE on), whether or not a later path fails;
// any other request leaves them as sent.
//
// Kernel: ip6_route_multipath_add (net/ipv6/route.c).
func (f *FIB) AddRequest(t *sim.Task, r Route, mode rt.NLMFlags) (rt.NLMFlags, error) {
	return f.AddRoute(t, &r, mode)
}

// AddRoute is AddRequest of the route *r, which it reads and does not
// keep: a caller that builds a request in place passes it without a copy.
func (f *FIB) AddRoute(t *sim.Task, r *Route, mode rt.NLMFlags) (rt.NLMFlags, error) {
	defer t.Frame("inet6_rtm_newroute")()
	return f.add(t, r, mode)
}

// Del deletes the first route r matches: same prefix and source prefix,
// and — when set — metric, protocol, device, gateway and nexthop id. The
// type is not compared. Without a gateway a multipath route goes whole;
// with Multipath each path is deleted as its own route.
//
// Kernel: inet6_rtm_delroute → ip6_route_del / ip6_route_multipath_del.
func (f *FIB) Del(t *sim.Task, r Route) error { return f.delRequest(t, r) }

// Routes returns the routes of table id (0: every table), in the kernel's
// dump order (inet6_dump_fib).
func (f *FIB) Routes(id uint32) []Route { return f.routes(f.w.Now(), id) }

// RoutesAt is Routes with the time left of routes with a lifetime counted
// from t's time.
func (f *FIB) RoutesAt(t *sim.Task, id uint32) []Route {
	defer t.Frame("inet6_rtm_delroute")()
	f.runTimers(t)
	return f.routes(t.Now(), id)
}

// Lookup resolves fl through the policy rules (fib6_rule_lookup) and the
// tables (fib6_table_lookup, rt6_select): see lookup.go.
func (f *FIB) Lookup(t *sim.Task, fl Flow) (Result, error) { return f.lookup(t, fl) }

// TableLookup looks fl up in table id alone, for a rule's to_tbl action
// (fib6_table_lookup); EAGAIN when the table does not exist or the route
// found is the null entry or a throw, the error of a reject route's type
// with the route found.
func (f *FIB) TableLookup(t *sim.Task, id uint32, fl Flow) (Result, error) {
	return f.tableLookupResult(t, id, fl)
}

// NewTable returns table id, creating it if needed (fib6_new_table).
func (f *FIB) NewTable(t *sim.Task, id uint32) *Table { return f.newTableCharged(t, id) }

// Table returns table id, or nil (fib6_get_table). Id 0 is main.
func (f *FIB) Table(id uint32) *Table {
	if id == 0 {
		id = fib.TableMain
	}
	return f.getTable(id)
}

// TablesSince returns the ids of the tables created after the first n, in
// the order they were created (tables are never freed before the
// namespace): with n = TableCount() at an earlier time, the tables created
// since.
func (f *FIB) TablesSince(n int) []uint32 { return f.tableIDs[n:] }

// TableCount is the number of tables (fib6_flush_trees walks them).
func (f *FIB) TableCount() int { return len(f.tables) }

// ID returns the table's id.
func (tb *Table) ID() uint32 { return tb.id }

// Stats returns /proc/net/rt6_stats's values.
func (f *FIB) Stats() Stats { return f.stats }

// RT6Stats returns /proc/net/rt6_stats's text.
func (f *FIB) RT6Stats() string { return f.rt6Stats() }

// IPv6Route returns /proc/net/ipv6_route's text.
func (f *FIB) IPv6Route() string { return f.ipv6Route() }

// NetdevEvent follows device events: ip6_route_dev_notify (the loopback
// device's registration). Route changes for devices going down, up or away
// come through netdev.IPv6FIB (SyncDownDev, SyncUp, DisableIP), as
// addrconf_notify calls them.
func (f *FIB) NetdevEvent(t *sim.Task, ev netdev.Event, dev *netdev.Device) error {
	f.netdevEvent(ev, dev)
	return nil
}

// Exit removes every route of a namespace going away (fib6_net_exit →
// fib6_flush_trees... the tables' routes are freed with the namespace).
func (f *FIB) Exit(t *sim.Task) {
	f.ns.skip++ // the tables go without messages
	defer func() { f.ns.skip-- }()
	f.cleanAll(t, func(r *Info) int {
		if r == f.nullEntry {
			return 0
		}
		return -1
	})
}

// CheckInvariants verifies the trees, the leaf lists, the sibling lists,
// the reference counts and the statistics.
func (f *FIB) CheckInvariants() error { return f.checkTree() }

// AddAddrconfRoute implements netdev.IPv6FIB: it creates r's route and
// links it (ip6_ins_rt). For the local and anycast kinds it returns the
// route with the allocation's reference, which the caller owns even when
// the insertion failed (the error is then returned too); for the other
// kinds it returns nil.
func (f *FIB) AddAddrconfRoute(t *sim.Task, r netdev.AddrconfRoute) (netdev.Route6, error) {
	return f.addAddrconfRoute(t, r)
}

// DelRoute implements netdev.IPv6FIB (ip6_del_rt): it removes r from its
// table if it is still linked.
func (f *FIB) DelRoute(t *sim.Task, r netdev.Route6) {
	if rt6, ok := r.(*Info); ok && rt6 != nil && rt6.node != nil {
		_ = f.delRT(t, rt6)
	}
}

// Release implements netdev.IPv6FIB (fib6_info_release).
func (f *FIB) Release(t *sim.Task, r netdev.Route6) {
	if rt6, ok := r.(*Info); ok && rt6 != nil {
		f.release(t, rt6)
	}
}

// DelPrefixRoute implements netdev.IPv6FIB: dev's prefix route for p (no
// gateway, not a default router), in table (0: main or dev's VRF's), if
// any, is deleted.
func (f *FIB) DelPrefixRoute(t *sim.Task, dev *netdev.Device, p netip.Prefix, table uint32) {
	f.delPrefixRoute(t, dev, p, table)
}

// SyncUp implements netdev.IPv6FIB (rt6_sync_up).
func (f *FIB) SyncUp(t *sim.Task, dev *netdev.Device, flags uint8) {
	f.syncUp(t, dev, rt.NHFlags(flags))
}

// SyncDownDev implements netdev.IPv6FIB (rt6_sync_down_dev).
func (f *FIB) SyncDownDev(t *sim.Task, dev *netdev.Device, ev netdev.Event) {
	defer t.Frame("rt6_sync_down_dev")()
	f.syncDownDev(t, dev, ev)
}

// DisableIP implements netdev.IPv6FIB (rt6_disable_ip: rt6_sync_down_dev;
// netsim has no uncached dsts or neighbours to flush).
func (f *FIB) DisableIP(t *sim.Task, dev *netdev.Device, ev netdev.Event) {
	defer t.Frame("rt6_disable_ip")()
	f.syncDownDev(t, dev, ev)
}

// Linked implements netdev.Route6.
func (f6i *Info) Linked() bool { return f6i.node != nil }

var (
	_ netdev.IPv6FIB   = (*FIB)(nil)
	_ nexthop.IPv6User = (*Info)(nil)
)
