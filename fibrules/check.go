// Invariant checking for rule lists, for tests of this package and of the
// packages built on it. The kernel has no counterpart; the checks state what
// net/core/fib_rules.c keeps true between requests.

package fibrules

import "fmt"

// CheckInvariants verifies the rule list and returns the first broken
// invariant:
//
//   - the list links agree with each other and with Len, and the rules are
//     in pref order;
//   - every goto rule's target (ctarget) is nil or a rule in the list whose
//     pref is the goto's; it is nil exactly when no rule has that pref, and
//     the number of such unresolved gotos is the ops' unresolved count, as
//     the number of goto rules is its goto count; rules of other actions
//     have no target;
//   - a rule's iif and oif given by name (FRA_IIFNAME, FRA_OIFNAME, even
//     "") are attached (the ifindex of the namespace's device with that
//     name) when such a device exists and detached (-1) otherwise (always
//     for "", which no device is named); without a name they are unset (0).
//
// The caller holds the policy's lock or knows no writer runs; device
// attachment is read through the Config's Devices, so RTNL too.
// CheckInvariants only reads; it is meant for tests, after every operation.
func (o *Ops) CheckInvariants() error {
	if o == nil {
		return fmt.Errorf("nil rule ops")
	}
	inList := make(map[*entry]bool)
	prefs := make(map[uint32]bool)
	prev := &o.list
	n := 0
	for x := o.first(); x != nil; x = x.next.Load() {
		if inList[x] || n > int(o.n.Load()) {
			return fmt.Errorf("%s rules: list longer than its count %d (a cycle?)", o.family, o.n.Load())
		}
		if x.prev != prev {
			return fmt.Errorf("%s rules: rule %d (pref %d): prev link broken", o.family, n, x.pref)
		}
		if prev != &o.list && prev.pref > x.pref {
			return fmt.Errorf("%s rules: pref %d after pref %d", o.family, x.pref, prev.pref)
		}
		inList[x] = true
		prefs[x.pref] = true
		prev = x
		n++
	}
	if o.list.prev != prev {
		return fmt.Errorf("%s rules: the list's tail is not its last rule", o.family)
	}
	if n != int(o.n.Load()) {
		return fmt.Errorf("%s rules: %d listed, count %d", o.family, n, o.n.Load())
	}

	gotos, unresolved := 0, 0
	for x := o.first(); x != nil; x = x.next.Load() {
		ct := x.ctarget.Load()
		if x.action != ActGoto {
			if ct != nil {
				return fmt.Errorf("%s rules: pref %d: %s rule with a goto target", o.family, x.pref, x.action)
			}
		} else {
			gotos++
			switch {
			case ct == nil && prefs[x.gotoPref]:
				return fmt.Errorf("%s rules: pref %d: goto %d unresolved, but a rule has that pref", o.family, x.pref, x.gotoPref)
			case ct == nil:
				unresolved++
			case !inList[ct]:
				return fmt.Errorf("%s rules: pref %d: goto target is not in the list", o.family, x.pref)
			case ct.pref != x.gotoPref:
				return fmt.Errorf("%s rules: pref %d: goto %d resolved to pref %d", o.family, x.pref, x.gotoPref, ct.pref)
			}
		}
		if err := o.checkAttached("iif", x.opts.IIF, x.iifNamed, x.iif.Load()); err != nil {
			return fmt.Errorf("%s rules: pref %d: %w", o.family, x.pref, err)
		}
		if err := o.checkAttached("oif", x.opts.OIF, x.oifNamed, x.oif.Load()); err != nil {
			return fmt.Errorf("%s rules: pref %d: %w", o.family, x.pref, err)
		}
	}
	if gotos != o.nrGoto || unresolved != o.unresolved {
		return fmt.Errorf("%s rules: %d gotos, %d unresolved; counted %d, %d",
			o.family, gotos, unresolved, o.nrGoto, o.unresolved)
	}
	return nil
}

// checkAttached verifies the ifindex a rule holds for its iif or oif:
// given by name (named, even ""), the index of the device of that name or
// -1; not given, 0.
func (o *Ops) checkAttached(what, name string, named bool, index int32) error {
	if !named {
		if name != "" || index != 0 {
			return fmt.Errorf("no %s name given, yet %s %q, ifindex %d", what, what, name, index)
		}
		return nil
	}
	want := int32(-1)
	if o.cfg.Devices != nil && name != "" {
		if d := o.cfg.Devices.ByNameRCU(name); d != nil {
			want = int32(d.Index())
		}
	}
	if index != want {
		return fmt.Errorf("%s %q: ifindex %d, want %d", what, name, index, want)
	}
	return nil
}
