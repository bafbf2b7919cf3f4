// The conveniences: vishvananda/netlink-style one-line wrappers over the
// requests, for a Go program that configures a namespace the way `ip`
// does. Each builds the request `ip` would send (its NLM flags, devices by
// name) and makes it; everything the kernel decides is in the request
// handlers (request.go and the files named after each object).

package rtnl

import (
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
)

// Links.

// Addresses.

// Routes.

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
