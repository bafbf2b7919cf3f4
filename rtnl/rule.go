// Policy routing rules' requests: RTM_NEWRULE, RTM_DELRULE and the
// RTM_GETRULE dump (fib_nl_newrule, fib_nl_delrule, fib_nl_dumprule in
// net/core/fib_rules.c), under the rules' own lock policy.

package rtnl

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/sim"
)

// ruleOps returns the namespace's rules of family (FamilyV4 or FamilyV6).
func (n *Net) ruleOps(family int) (*fibrules.Ops, error) {
	switch family {
	case FamilyV4:
		return n.rules4, nil
	case FamilyV6:
		return n.rules6, nil
	}
	return nil, errno.Errorf(syscall.EAFNOSUPPORT, "Rules of address family %d are not modelled", family)
}

// Rules returns the namespace's rules of family (FamilyV4 or FamilyV6), or
// nil for another family, for inspection (counts, lock acquisitions).
func (n *Net) Rules(family int) *fibrules.Ops {
	o, _ := n.ruleOps(family)
	return o
}

// ruleRequest starts one RTM_NEWRULE, RTM_DELRULE or RTM_GETRULE and
// returns the family's rules and the function that ends the request.
// Unlike the other requests it takes no lock itself: the rules' own lock
// policy (Config.Rules) decides which locks a change takes. Under
// LockPerOps it therefore reads nothing of the namespace that RTNL
// guards: the Handle's reference keeps the namespace alive, the rule
// lists are the ops' (their lock, or RCU for a dump), device names are
// looked up as dev_get_by_name_rcu does, IPv4 table ids as fib_get_table
// does under RCU (fib.FIB.HasTable), the IPv6 tables through tables6's
// lock, and the notifications go through the namespace's own listener
// and origin locks.
func (h *Handle) ruleRequest(op string, family int) (*fibrules.Ops, func(), error) {
	end := h.enter(op)
	if err := h.usable(); err != nil {
		return nil, end, err
	}
	o, err := h.n.ruleOps(family)
	return o, end, err
}

// RuleAdd adds a policy routing rule of family (FamilyV4 or FamilyV6), as
// `ip rule add` does (NLM_F_EXCL: EEXIST for an identical rule). With
// Config.Rules = LockRTNL it holds RTNL; with LockPerOps it holds the
// family's rules lock, and RTNL only for the namespace's first IPv4 rule,
// which splits the local and main tables (fib_unmerge).
//
// Kernel: fib_nl_newrule → fib_newrule (net/core/fib_rules.c).
func (h *Handle) RuleAdd(family int, r fibrules.Rule) error {
	return h.RuleNew(family, r, true)
}

// RuleDel deletes the first rule matching r (zero fields match anything).
//
// Kernel: fib_nl_delrule → fib_delrule (net/core/fib_rules.c).
func (h *Handle) RuleDel(family int, r fibrules.Rule) error {
	o, end, err := h.ruleRequest("RTM_DELRULE", family)
	defer end()
	if err != nil {
		return err
	}
	defer h.ruleRequestOrigin()()
	return o.Del(h.t, h.n.k.rtnl, r)
}

// RuleList returns the rules of family in lookup order, as `ip rule show`.
//
// Kernel: fib_nl_dumprule.
func (h *Handle) RuleList(family int) ([]fibrules.Rule, error) {
	o, end, err := h.ruleRequest("RTM_GETRULE", family)
	defer end()
	if err != nil {
		return nil, err
	}
	return o.Rules(), nil
}

// RuleDump is one part of a rule dump of family (FamilyV4 or FamilyV6):
// it calls fn for the rules from position *pos on, in the order of the
// family's list, until fn returns false, and leaves *pos at the rule fn
// refused. As the kernel's, each part walks the list from its head and
// steps over the rules before *pos, each charged as a sim.RuleScan.
//
// Kernel: fib_nl_dumprule, dump_rules (net/core/fib_rules.c).
func (h *Handle) RuleDump(family int, pos *int, fn func(*fibrules.Rule) bool) (done bool, err error) {
	o, end, err := h.ruleRequest("RTM_GETRULE", family)
	defer end()
	if err != nil {
		return false, err
	}
	h.t.Charge(sim.RuleScan, int64(min(*pos, o.Len())))
	*pos = o.RulesFrom(*pos, fn)
	return *pos >= o.Len(), nil
}

// RuleNew adds a policy routing rule as RTM_NEWRULE does with the
// request's own flags: with excl (NLM_F_EXCL) an equal rule fails the add
// with EEXIST, as for RuleAdd; without it the rule is added beside the
// equal one. Locking is RuleAdd's.
//
// Kernel: fib_newrule (net/core/fib_rules.c).
func (h *Handle) RuleNew(family int, r fibrules.Rule, excl bool) error {
	o, end, err := h.ruleRequest("RTM_NEWRULE", family)
	defer end()
	if err != nil {
		return err
	}
	defer h.ruleRequestOrigin()()
	return o.Add(h.t, h.n.k.rtnl, r, excl)
}
