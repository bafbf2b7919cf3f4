// Dumping the rule list: fib_nl_dumprule, dump_rules and fib_nl_fill_rule
// (net/core/fib_rules.c).

package fibrules

import (
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
)

// Rules returns the rules in list order (the order of `ip rule show`),
// with Family, IIFIndex/OIFIndex and the state flags (unresolved,
// detached) filled in and the Attrs of the values set.
//
// Kernel: fib_nl_dumprule, fib_nl_fill_rule (net/core/fib_rules.c).
func (o *Ops) Rules() []Rule {
	out := make([]Rule, 0, o.Len())
	for x := o.first(); x != nil; x = x.next.Load() {
		out = append(out, x.dump(o.family))
	}
	return out
}

// RulesFrom calls fn with the rules from position pos on (0 is the first),
// in list order and filled in as Rules fills them, until fn returns false.
// It returns the position of the rule fn refused, or the list's length
// when fn took them all. Like the kernel's dump, it steps over the rules
// before pos from the head of the list; it copies none of them.
//
// Kernel: dump_rules (net/core/fib_rules.c).
func (o *Ops) RulesFrom(pos int, fn func(*Rule) bool) int {
	i := 0
	for x := o.first(); x != nil; x = x.next.Load() {
		if i >= pos {
			r := x.dump(o.family)
			if !fn(&r) {
				return i
			}
		}
		i++
	}
	return i
}

func (x *entry) dump(f rt.Family) Rule {
	r := x.rule()
	r.Family = f
	r.IIFIndex = netdev.IfIndex(x.iif.Load())
	r.OIFIndex = netdev.IfIndex(x.oif.Load())
	if r.Action == ActGoto && x.ctarget.Load() == nil {
		r.Flags |= FlagUnresolved
	}
	// fib_nl_fill_rule reports a name, and its device's absence, only
	// for a name that is not "".
	if r.IIFIndex == -1 && r.IIF != "" {
		r.Flags |= FlagIIFDetached
	}
	if r.OIFIndex == -1 && r.OIF != "" {
		r.Flags |= FlagOIFDetached
	}
	r.Attrs = AttrPriority
	if r.FwMask != 0 {
		r.Attrs |= AttrFwMask
	}
	if r.Goto != 0 {
		r.Attrs |= AttrGoto
	}
	if r.SuppressPrefixLen != -1 {
		r.Attrs |= AttrSuppressPrefixLen
	}
	if r.SuppressIfGroup != -1 {
		r.Attrs |= AttrSuppressIfGroup
	}
	if r.UID.set() {
		r.Attrs |= AttrUIDRange
	}
	if r.Sport.set() {
		r.Attrs |= AttrSportRange
	}
	if r.Dport.set() {
		r.Attrs |= AttrDportRange
	}
	if r.IIF != "" {
		r.Attrs |= AttrIIFName
	}
	if r.OIF != "" {
		r.Attrs |= AttrOIFName
	}
	return r
}
