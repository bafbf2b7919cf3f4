package rtnl

import "github.com/netsimlab/netsim/fibrules"

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
