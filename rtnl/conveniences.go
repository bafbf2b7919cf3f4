// The conveniences: vishvananda/netlink-style one-line wrappers over the
// requests, for a Go program that configures a namespace the way `ip`
// does. Each builds the request `ip` would send (its NLM flags, devices by
// name) and makes it; everything the kernel decides is in the request
// handlers (request.go and the files named after each object).

package rtnl

import (
	"math"
	"net/netip"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/nexthop"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/rt"
)

// Links.

// Addresses.

// Routes.

// RouteAdd adds a route as `ip route add` does; EEXIST if the same prefix,
// TOS and metric exist.
//
// Kernel: inet_rtm_newroute → fib_table_insert with NLM_F_CREATE|NLM_F_EXCL.
func (h *Handle) RouteAdd(r Route) error { return h.ipRouteNew(r, rt.ModeAdd) }

// RouteAppend adds a route after the existing ones for the same key
// (`ip route append`: NLM_F_CREATE|NLM_F_APPEND).
func (h *Handle) RouteAppend(r Route) error { return h.ipRouteNew(r, rt.ModeAppend) }

// RoutePrepend adds a route before the existing ones for the same key
// (`ip route prepend`: NLM_F_CREATE).
func (h *Handle) RoutePrepend(r Route) error { return h.ipRouteNew(r, rt.ModePrepend) }

// RouteReplace replaces the first route with the same key, or adds it
// (`ip route replace`: NLM_F_CREATE|NLM_F_REPLACE).
func (h *Handle) RouteReplace(r Route) error { return h.ipRouteNew(r, rt.ModeReplace) }

// RouteChange replaces the first route with the same key; ENOENT if none
// (`ip route change`: NLM_F_REPLACE).
func (h *Handle) RouteChange(r Route) error { return h.ipRouteNew(r, rt.ModeChange) }

// RouteTest is an RTM_NEWROUTE with NLM_F_EXCL alone: EEXIST if the
// route's key exists, and without NLM_F_CREATE nothing is added (`ip route
// test`).
func (h *Handle) RouteTest(r Route) error { return h.ipRouteNew(r, rt.NLMExcl) }

// ipRouteNew is the RTM_NEWROUTE `ip route` sends with flags: protocol
// boot unless r gives one (iproute_modify's RTPROT_BOOT).
func (h *Handle) ipRouteNew(r Route, flags rt.NLMFlags) error {
	if r.Protocol == fib.ProtoUnspec {
		r.Protocol = fib.ProtoBoot
	}
	_, err := h.NewRoute(RouteRequest{Flags: flags, Route: r})
	return err
}

// RouteDel deletes the first route matching r, as `ip route del` does:
// zero fields match anything, the scope included (ip sends
// RT_SCOPE_NOWHERE unless given one).
//
// Kernel: inet_rtm_delroute → fib_table_delete.
func (h *Handle) RouteDel(r Route) error { return h.DelRoute(RouteRequest{Route: anyScope(r)}) }

// anyScope is r with its zero scope made the delete's wildcard,
// RT_SCOPE_NOWHERE.
func anyScope(r Route) Route {
	if r.Scope == fib.ScopeUniverse {
		r.Scope = fib.ScopeNowhere
	}
	return r
}

// RouteList returns the routes of family (rt.FamilyInet, rt.FamilyInet6,
// or rt.FamilyUnspec for both, IPv4 first) in table (0: every table), in
// the kernel's dump order: the strict dump `ip route show table TABLE`
// asks for, read whole in one request. A table that does not exist is
// ENOENT for one family's dump, and contributes nothing to both's.
func (h *Handle) RouteList(family rt.Family, table uint32) ([]RouteInfo, error) {
	return drain(h.DumpRoutes(RouteDumpRequest{Family: family, Strict: true, Table: table}))
}

// drain reads the whole of a route dump.
func drain(d *RouteDump, err error) ([]RouteInfo, error) {
	var out []RouteInfo
	if err == nil {
		err = d.Drain(func(int) int { return math.MaxInt }, func(ri *RouteInfo) { out = append(out, *ri) })
	}
	return out, err
}

// RouteGet looks dst up as the kernel routes a locally generated packet
// to it (`ip route get DST`).
func (h *Handle) RouteGet(dst netip.Addr) (RouteResult, error) {
	return h.GetRoute(RouteGetRequest{Dst: dst})
}

// Nexthops.

// NexthopAdd adds a nexthop object, as `ip nexthop add` does
// (NLM_F_CREATE|NLM_F_EXCL: EEXIST for an id that exists).
func (h *Handle) NexthopAdd(nh NexthopRequest) error {
	return h.NewNexthop(nh.with(rt.NLMCreate | rt.NLMExcl))
}

// NexthopReplace replaces a nexthop object or adds it, as `ip nexthop
// replace` does (NLM_F_CREATE|NLM_F_REPLACE).
func (h *Handle) NexthopReplace(nh NexthopRequest) error {
	return h.NewNexthop(nh.with(rt.NLMCreate | rt.NLMReplace))
}

// NexthopDel deletes nexthop id; routes that use it go with it.
func (h *Handle) NexthopDel(id nexthop.ID) error {
	return h.DelNexthop(NexthopDelRequest{ID: id, HasID: true})
}

// NexthopGet returns nexthop id.
func (h *Handle) NexthopGet(id nexthop.ID) (NexthopInfo, error) {
	return h.GetNexthop(NexthopGetRequest{ID: id, HasID: true})
}

// NexthopList returns every nexthop object, by id.
func (h *Handle) NexthopList() ([]NexthopInfo, error) {
	return ReadAll[NexthopInfo](h.DumpNexthops(NexthopDumpRequest{}))
}

// NexthopBucketList returns the buckets of the resilient groups that req
// selects, by group id and bucket index.
func (h *Handle) NexthopBucketList(req NexthopBucketDumpRequest) ([]NexthopBucket, error) {
	return ReadAll[NexthopBucket](h.DumpNexthopBuckets(req))
}

// NexthopBucketGet returns bucket index of resilient group id.
func (h *Handle) NexthopBucketGet(id nexthop.ID, index uint16) (NexthopBucket, error) {
	return h.GetNexthopBucket(NexthopBucketGetRequest{ID: id, HasID: true, HasBucket: true, HasIndex: true, Index: index})
}

// Rules.

// RuleAdd adds a policy routing rule of family, as `ip rule add` does
// (NLM_F_EXCL: EEXIST for an identical rule).
func (h *Handle) RuleAdd(family rt.Family, r fibrules.Rule) error {
	return h.NewRule(RuleRequest{Flags: rt.NLMCreate | rt.NLMExcl, Family: family, Rule: r})
}

// RuleDel deletes the first rule of family matching r (zero fields match
// anything), as `ip rule del` does.
func (h *Handle) RuleDel(family rt.Family, r fibrules.Rule) error {
	return h.DelRule(RuleRequest{Family: family, Rule: r})
}

// RuleList returns the rules of family in lookup order, as `ip rule show`.
func (h *Handle) RuleList(family rt.Family) ([]fibrules.Rule, error) {
	return ReadAll[fibrules.Rule](h.DumpRules(RuleDumpRequest{Family: family}))
}
