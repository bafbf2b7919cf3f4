// Policy routing rules' requests: RTM_NEWRULE, RTM_DELRULE and the
// RTM_GETRULE dump (fib_nl_newrule, fib_nl_delrule, fib_nl_dumprule in
// net/core/fib_rules.c), under the rules' own lock policy.

package rtnl

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// The families of the multicast routing rules (RTNL_FAMILY_IPMR,
// RTNL_FAMILY_IP6MR), which the kernel has and netsim does not model.
const (
	familyIPMR  rt.Family = 128
	familyIP6MR rt.Family = 129
)

// RuleFamily reports whether a rule request of family f can be served:
// nil for IPv4 and IPv6, the error the kernel answers for a family without
// rules (EAFNOSUPPORT), and EOPNOTSUPP for the multicast routing rules.
// The kernel checks it before it parses the request's attributes, which a
// front end that parses them does after.
//
// Kernel: lookup_rules_ops (net/core/fib_rules.c).
func RuleFamily(f rt.Family) error {
	switch f {
	case rt.FamilyInet, rt.FamilyInet6:
		return nil
	case familyIPMR, familyIP6MR:
		return errno.New(syscall.EOPNOTSUPP, "Multicast routing rules are not modelled")
	}
	return errno.New(syscall.EAFNOSUPPORT, "Rule family not supported")
}

// ruleOps returns the namespace's rules of family, or RuleFamily's error.
func (n *Net) ruleOps(family rt.Family) (*fibrules.Ops, error) {
	if err := RuleFamily(family); err != nil {
		return nil, err
	}
	if family == rt.FamilyInet {
		return n.rules4, nil
	}
	return n.rules6, nil
}

// Rules returns the namespace's rules of family (rt.FamilyInet or
// rt.FamilyInet6), or nil for another family, for inspection (counts,
// lock acquisitions).
func (n *Net) Rules(family rt.Family) *fibrules.Ops {
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
func (h *Handle) ruleRequest(op string, family rt.Family) (*fibrules.Ops, func(), error) {
	end := h.enter(op)
	if err := h.usable(); err != nil {
		return nil, end, err
	}
	o, err := h.n.ruleOps(family)
	return o, end, err
}

// RuleRequest is the body of an RTM_NEWRULE or an RTM_DELRULE: a rule of
// a family (fib_rule_hdr's family, then the rule fib_nl2rule builds).
type RuleRequest struct {
	Origin
	// Flags are an RTM_NEWRULE's NLM_F_* flags: with rt.NLMExcl an equal
	// rule fails the add with EEXIST; without it the rule is added beside
	// the equal one. An RTM_DELRULE reads none.
	Flags  rt.NLMFlags
	Family rt.Family // rt.FamilyInet or rt.FamilyInet6 (see RuleFamily)
	// Rule is the rule to add, or what the rule to delete matches: the
	// first rule whose fields equal those set goes (zero fields match
	// anything).
	Rule fibrules.Rule
}

// NewRule adds a policy routing rule as RTM_NEWRULE does with the
// request's flags. With Config.Rules = LockRTNL it holds RTNL; with
// LockPerOps it holds the family's rules lock, and RTNL only for the
// namespace's first IPv4 rule, which splits the local and main tables
// (fib_unmerge). Its notification carries the request's Origin.
//
// Kernel: fib_nl_newrule → fib_newrule (net/core/fib_rules.c).
func (h *Handle) NewRule(r RuleRequest) error {
	return h.newRule(r.Origin, r.Flags, r.Family, &r.Rule)
}

// newRule is NewRule on the caller's rule, which it reads only: a rule
// is about 180 bytes, and RuleAdd passes on the one it was given rather
// than copy it into a request on its stack.
func (h *Handle) newRule(origin Origin, flags rt.NLMFlags, family rt.Family, r *fibrules.Rule) error {
	return h.ruleChange("RTM_NEWRULE", origin, family, func(o *fibrules.Ops) error {
		return o.AddRequest(h.t, h.n.k.rtnl, r, flags&rt.NLMExcl != 0)
	})
}

// DelRule deletes the first rule that matches r.Rule, with NewRule's
// locking.
//
// Kernel: fib_nl_delrule → fib_delrule, rule_find (net/core/fib_rules.c).
func (h *Handle) DelRule(r RuleRequest) error {
	return h.ruleChange("RTM_DELRULE", r.Origin, r.Family, func(o *fibrules.Ops) error {
		return o.Del(h.t, h.n.k.rtnl, r.Rule)
	})
}

// ruleChange makes the rule request op: change runs on the rules of
// family, with the request's origin recorded for the notification it
// causes.
func (h *Handle) ruleChange(op string, origin Origin, family rt.Family, change func(o *fibrules.Ops) error) error {
	defer h.t.Frame("rtnetlink_rcv_msg")()
	o, end, err := h.ruleRequest(op, family)
	defer end()
	if err != nil {
		return err
	}
	defer h.ruleRequestOrigin(origin)()
	return change(o)
}

// RuleDumpRequest is the body of an RTM_GETRULE with NLM_F_DUMP: the
// rules of one family, or of every family (AF_UNSPEC), and what a
// strictly checked request must not carry.
type RuleDumpRequest struct {
	Origin
	// Family is rt.FamilyInet or rt.FamilyInet6, or rt.FamilyUnspec for
	// every family, IPv4 first (the kernel's multicast routing rules,
	// which it lists between IPv4 and IPv6, netsim does not have).
	Family rt.Family
	// Strict is NETLINK_GET_STRICT_CHK on the requesting socket: the
	// request must then be a whole fib_rule_hdr (not ShortHeader) that
	// sets nothing but the family (not HeaderSet), with no attributes
	// after it (not Attrs).
	Strict, ShortHeader, HeaderSet, Attrs bool
}

// RuleDump is a rule dump in progress: the families still to dump and,
// in the first, the position in its rule list (cb->args[1]), as the
// kernel resumes. A RuleDump is used by its Handle's goroutine.
type RuleDump struct {
	h    *Handle
	fams []rt.Family
	pos  int
}

// DumpRules starts a dump of the rules req asks for, after the checks of
// the request: the strict ones when asked for, then the family's (a bare
// EAFNOSUPPORT for a family without rules). Nothing is walked until Next.
//
// Kernel: fib_nl_dumprule, fib_valid_dumprule_req (net/core/fib_rules.c).
func (h *Handle) DumpRules(req RuleDumpRequest) (*RuleDump, error) {
	if req.Strict {
		switch {
		case req.ShortHeader:
			return nil, errno.New(syscall.EINVAL, "Invalid header for fib rule dump request")
		case req.HeaderSet:
			return nil, errno.New(syscall.EINVAL, "Invalid values in header for fib rule dump request")
		case req.Attrs:
			return nil, errno.New(syscall.EINVAL, "Invalid data after header in fib rule dump request")
		}
	}
	d := &RuleDump{h: h, fams: []rt.Family{rt.FamilyInet, rt.FamilyInet6}}
	if req.Family != rt.FamilyUnspec {
		if err := RuleFamily(req.Family); err != nil {
			if errno.Of(err) == syscall.EAFNOSUPPORT {
				return nil, errno.New(syscall.EAFNOSUPPORT, "") // fib_nl_dumprule sets no message
			}
			return nil, err
		}
		d.fams = []rt.Family{req.Family}
	}
	return d, nil
}

// Next is one part of the dump: family after family, it calls fn for the
// rules from where the last part stopped, in the order of the family's
// list, until fn returns false, and reports whether the dump is done. As
// the kernel's, each part walks a family's list from its head and steps
// over the rules before its position, each charged as a sim.RuleScan;
// each family is one pass of the dumpit, a request of its own.
//
// Kernel: fib_nl_dumprule, dump_rules (net/core/fib_rules.c).
func (d *RuleDump) Next(fn func(*fibrules.Rule) bool) (done bool, err error) {
	for len(d.fams) > 0 {
		if done, err := d.nextFamily(fn); err != nil || !done {
			return false, err
		}
		d.fams, d.pos = d.fams[1:], 0
	}
	return true, nil
}

func (d *RuleDump) nextFamily(fn func(*fibrules.Rule) bool) (bool, error) {
	h := d.h
	o, end, err := h.ruleRequest("RTM_GETRULE", d.fams[0])
	defer end()
	if err != nil {
		return false, err
	}
	h.t.Charge(sim.RuleScan, int64(min(d.pos, o.Len())))
	d.pos = o.RulesFrom(d.pos, fn)
	return d.pos >= o.Len(), nil
}

// Close ends the dump; a rule dump holds nothing between its parts.
func (d *RuleDump) Close() { d.fams = nil }
