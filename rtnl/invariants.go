// Invariant checks over every namespace and subsystem, for tests and
// fuzzing: what must hold between requests.

package rtnl

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// CheckInvariants runs every subsystem's invariant checker over every
// namespace, the ones deleted but not yet dismantled included, and returns
// the broken invariants found, one error per namespace and subsystem
// (joined), or nil:
//
//   - netdev.Table.CheckInvariants: device tables, links between devices,
//     device references, hardware address lists;
//   - fib.FIB.CheckInvariants: trie shape and key order, fib_info
//     references, the fib_info users of nexthop objects;
//   - fib6.FIB.CheckInvariants: the IPv6 trees, leaf and sibling lists,
//     fib6_info references, the statistics;
//   - nexthop.Table.CheckInvariants: the id tree and its index, the device
//     hash, group membership both ways, FIB user lists;
//   - fibrules.Ops.CheckInvariants for IPv4 and IPv6: pref order, goto
//     targets and the unresolved count, iif/oif attachment;
//
// and, across them, that the machine is at rest: no device waits to be
// freed, and the FIB has unmerged local from main exactly when the
// namespace has custom IPv4 rules.
//
// Call it when no request is in progress — between the requests of direct
// tasks, or after World.Run — for example after every request of a test.
// It takes neither RTNL nor any other lock, and changes nothing.
func (k *Kernel) CheckInvariants() error {
	var errs []error
	if todo := k.stack.TodoLen(); todo != 0 {
		errs = append(errs, fmt.Errorf("%d unregistered devices wait for netdev_run_todo", todo))
	}
	for _, n := range k.allNets() {
		errs = append(errs, n.checkInvariants()...)
	}
	return errors.Join(errs...)
}

// allNets returns the live namespaces, the initial one first, then by name;
// the namespaces deleted by name and not yet dismantled (still held by a
// Handle, or with their cleanup pending) come last, oldest first.
func (k *Kernel) allNets() []*Net {
	nets := []*Net{k.initNet}
	listed := map[*Net]bool{k.initNet: true}
	for _, name := range k.NetNames() {
		if n := k.Net(name); n != nil {
			nets = append(nets, n)
			listed[n] = true
		}
	}
	var gone []*Net
	for _, n := range k.byTable {
		if !listed[n] {
			gone = append(gone, n)
		}
	}
	slices.SortFunc(gone, func(a, b *Net) int { return cmp.Compare(a.seq, b.seq) })
	return append(nets, gone...)
}

func (n *Net) checkInvariants() []error {
	var errs []error
	add := func(what string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", n, what, err))
		}
	}
	add("devices", n.devs.CheckInvariants())
	if u := n.devs.UnregisteringCount(); u != 0 {
		add("devices", fmt.Errorf("%d devices unregistered and not freed", u))
	}
	add("fib", n.fib.CheckInvariants())
	add("fib6", n.fib6.CheckInvariants())
	add("nexthops", n.nh.CheckInvariants())
	add("ipv4 rules", n.rules4.CheckInvariants())
	add("ipv6 rules", n.rules6.CheckInvariants())
	if custom, unmerged := n.rules4.HasCustomRules(), n.fib.Unmerged(); custom != unmerged {
		add("fib", fmt.Errorf("custom IPv4 rules %v, local unmerged from main %v", custom, unmerged))
	}
	return errs
}
