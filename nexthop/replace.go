// replace.go follows the replace of a nexthop in net/ipv4/nexthop.c:
// replace_nexthop, replace_nexthop_single, replace_nexthop_grp,
// nh_group_v4_update and nh_rt_cache_flush.

package nexthop

import (
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// replaceNexthop checks that old may take cand's definition and installs
// it in place; on error nothing has changed.
//
// The kernel builds the new definition as a second struct nexthop, swaps
// the nh_info (or nh_grp) into the old one that the tree and the FIB
// entries hold, and tears down the second one with the old definition in
// it. The FIB entries are not marked dead and no flush runs: routes stay,
// and use the new gateway, device or members from then on.
//
// Kernel: replace_nexthop (net/ipv4/nexthop.c).
func (tb *Table) replaceNexthop(t *sim.Task, old, cand *Nexthop) error {
	// The routes using old must accept the new definition.
	if err := old.checkUsersScope(cand); err != nil {
		return err
	}
	if err := old.checkIPv6Users(cand); err != nil {
		return err
	}
	newIsReject := cand.info != nil && cand.info.blackhole
	for e := old.grpList.head; e != nil; e = e.next {
		if newIsReject && len(e.parent.grp.entries) > 1 {
			return einval("Blackhole nexthop can not be a member of a group with more than one path")
		}
		if err := e.parent.checkUsersScope(cand); err != nil {
			return err
		}
		if err := e.parent.checkIPv6Users(cand); err != nil {
			return err
		}
	}
	if old.grp != nil {
		if cand.grp == nil {
			return einval("Can not replace a nexthop group with a nexthop.")
		}
		if err := replaceGroupResCheck(old.grp, cand.grp); err != nil {
			return err
		}
		tb.replaceGroup(t, old, cand)
	} else {
		if cand.grp != nil {
			return einval("Can not replace a nexthop with a nexthop group.")
		}
		if old.grpList.head != nil && old.info.fdb != cand.info.fdb {
			return einval("Cannot change nexthop FDB status while in a group")
		}
		tb.replaceSingle(old, cand)
	}
	old.notifyReplaced(t)
	return nil
}

// replaceSingle installs cand's nh_info in old. The new definition enters
// the device hash at the head of its bucket (nexthop_create hashed it),
// the old one leaves it (__remove_nexthop on the discarded struct).
//
// Kernel: replace_nexthop_single (net/ipv4/nexthop.c).
func (tb *Table) replaceSingle(old, cand *Nexthop) {
	oldInfo, newInfo := old.info, cand.info
	tb.devhashDel(old)
	old.info = newInfo
	tb.devhashAdd(old)
	old.protocol = cand.protocol

	// Only an IPv4 → IPv6 replace recomputes the groups' IPv4 indication.
	if oldInfo.family == rt.FamilyInet && newInfo.family == rt.FamilyInet6 {
		for e := old.grpList.head; e != nil; e = e.next {
			e.parent.grp.hasV4 = computeHasV4(e.parent.grp.entries)
		}
	}
}

// replaceGroup installs cand's member array in old. The new entries were
// linked onto their members when the new group was built; the old ones
// are unlinked when the discarded struct is torn down. The group keeps its
// protocol: replace_nexthop_grp, unlike replace_nexthop_single, does not
// copy it.
//
// Kernel: replace_nexthop_grp, nh_rt_cache_flush (net/ipv4/nexthop.c).
func (tb *Table) replaceGroup(t *sim.Task, old, cand *Nexthop) {
	oldGrp := old.grp
	if oldGrp.res != nil {
		tb.replaceGroupRes(oldGrp, cand.grp)
	}
	for _, e := range cand.grp.entries {
		e.parent = old
	}
	old.grp = cand.grp
	linkEntries(old.grp)
	for _, e := range oldGrp.entries {
		e.nh.grpList.remove(e)
	}
	// New lookups must use only the new group before the old one goes.
	synchronizeNet(t)
}

// checkIPv6Users models fib6_check_nh_list: when IPv6 routes use nh, the
// candidate definition must be one an IPv6 route may use (no IPv4
// nexthop, no group with an IPv4 member, no fdb nexthop).
//
// Kernel: fib6_check_nh_list, fib6_check_nexthop (net/ipv4/nexthop.c).
func (nh *Nexthop) checkIPv6Users(cand *Nexthop) error {
	if nh.IPv6Users() == 0 {
		return nil
	}
	if cand.grp != nil && cand.grp.hasV4 || cand.info != nil && cand.info.family == rt.FamilyInet {
		return einval("IPv6 routes can not use an IPv4 nexthop")
	}
	if cand.FDB() {
		return einval("Route cannot point to a fdb nexthop")
	}
	return nil
}
