// remove.go follows the removal of nexthops in net/ipv4/nexthop.c —
// remove_nexthop, __remove_nexthop, __remove_nexthop_fib — and the two
// flush policies of seed 000 ("ipv4: Flush the FIB once per dev nexthop
// removal"): before the patch __remove_nexthop_fib calls fib_flush itself;
// after it, it only reports that a flush is needed, the report travels up
// through remove_nexthop and remove_nh_grp_entry, and the operation
// (remove_one_nexthop, nexthop_flush_dev, flush_all_nexthops) flushes once.

package nexthop

import "github.com/netsimlab/netsim/sim"

// removal is one removing operation (Del, FlushDev, FlushAll): the task
// doing it and the FIB to flush.
type removal struct {
	tb *Table
	t  *sim.Task
	f  Flusher
}

func (tb *Table) newRemoval(t *sim.Task, f Flusher) *removal {
	return &removal{tb: tb, t: t, f: f}
}

// removeNexthop removes nh from the table with everything that implies,
// and reports whether a FIB flush is left to do (never under
// FlushPerNexthop, which flushed already).
//
// Kernel: remove_nexthop (net/ipv4/nexthop.c).
func (op *removal) removeNexthop(nh *Nexthop) bool {
	defer op.t.Frame("remove_nexthop")()
	if nh.dead {
		return false
	}
	op.t.Charge(sim.NexthopRemove, 1)
	op.tb.seq++ // nh_base_seq_inc
	op.tb.tree.Delete(treeItem{id: nh.id})
	op.tb.denseSet(nh.id, nil)
	nh.dead = true
	return op.removeNexthopLinks(nh)
}

// removeNexthopLinks unlinks a removed nexthop: its FIB users are marked
// dead (and, before the patch, flushed), a group's entries leave their
// members, a single nexthop leaves the device hash and its groups.
//
// Kernel: __remove_nexthop (net/ipv4/nexthop.c).
func (op *removal) removeNexthopLinks(nh *Nexthop) bool {
	defer op.t.Frame("__remove_nexthop")()
	need := op.removeNexthopFIB(nh)
	if nh.grp != nil {
		op.tb.removeNexthopGroup(nh)
		return need
	}
	op.tb.devhashDel(nh)
	if op.removeNexthopFromGroups(nh) {
		need = true
	}
	return need
}

// removeNexthopFIB marks nh's FIB users dead. Under FlushPerNexthop it
// flushes the FIB right away when there were any, as the kernel did before
// seed 000's patch; under FlushDeferred it reports the need instead. Then
// it deletes the IPv6 routes using nh, one by one (ip6_del_rt).
//
// Kernel: __remove_nexthop_fib (net/ipv4/nexthop.c).
func (op *removal) removeNexthopFIB(nh *Nexthop) bool {
	defer op.t.Frame("__remove_nexthop_fib")()
	need := nh.markFIBUsersDead(op.t)
	if need && op.tb.policy == FlushPerNexthop {
		op.flush()
		need = false
	}
	nh.deleteIPv6Users(op.t)
	return need
}

// flushIf flushes the FIB when need is set (remove_one_nexthop and the
// end of nexthop_flush_dev and flush_all_nexthops).
func (op *removal) flushIf(need bool) {
	if need {
		op.flush()
	}
}

// flush requests fib_flush. The request is counted even without a Flusher.
func (op *removal) flush() {
	op.t.Charge(sim.NexthopFIBFlush, 1)
	if op.f != nil {
		op.f.FlushFIB(op.t)
	}
}
