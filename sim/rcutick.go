// RCU callbacks under the scheduling-clock tick: a CPU gives its new
// callbacks a grace period, asks for it, notices its end and runs them only
// at its ticks (kernel/rcu/tree.c: rcu_pending, rcu_core).

package sim

import (
	"math/bits"
	"time"
)

// tickAfter returns the first tick strictly after q.
func (r *RCU) tickAfter(q Time) Time {
	j := Time(r.tick)
	return (q/j + 1) * j
}

// callbackRunLocked returns when a callback queued at q runs, planning its
// grace period if needed. Without Costs.RCUTick it runs at the end of the
// first grace period that starts at or after q. With it, the callback's CPU
// does RCU's work at its ticks:
//   - at the first tick after q it gives the callback a grace period: the
//     one planned, if that was asked for at this tick or later; else, if one
//     is planned or running, the one after it, asked for at the tick that
//     notices its end and started a tick later; else a new one, started at
//     once — or, at the tick that notices the end of the one before, a tick
//     later;
//   - the callback runs at the first tick after its grace period ends, the
//     tick that notices the end.
//
// So a CPU that queues a callback while a grace period is asked for but not
// yet started waits for the next one; one-by-one deletions from several
// processes cannot join the grace period the barrier before theirs waits
// for.
//
// Kernel: rcu_pending → rcu_core (kernel/rcu/tree.c): note_gp_changes →
// rcu_advance_cbs / rcu_accelerate_cbs → rcu_start_this_gp, and
// rcu_do_batch once the callbacks' grace period has ended.
func (r *RCU) callbackRunLocked(q Time) Time {
	if r.tick <= 0 {
		return r.gpEndForLocked(q)
	}
	a := r.tickAfter(q)
	switch {
	case r.gpEnd < 0:
		// No grace period yet.
		r.planGPLocked(a, a)
	case a <= r.gpReq:
		// The latest planned grace period was asked for at or after a.
	case a < r.gpEnd:
		// One asked for before a is planned or running: the next one.
		n := r.tickAfter(r.gpEnd)
		r.planGPLocked(n, n.Add(r.tick))
	default:
		n := r.tickAfter(r.gpEnd)
		r.planGPLocked(maxTime(a, n), maxTime(a, n.Add(r.tick)))
	}
	return r.tickAfter(r.gpEnd)
}

// gpTicks is the distribution of grace-period lengths on the tick grid
// (Costs.GracePeriodTicks2 … 6): weight[i] is the share of grace periods
// that last minGPTicks+i ticks.
type gpTicks struct {
	weight [5]uint64
	total  uint64
	past   time.Duration // Costs.GracePeriodPastTick
	start  uint64        // the sequence's first point, from the World's seed
}

// minGPTicks is the fewest ticks a grace period asked for at a tick lasts:
// the CPU that asked for it notices it only at its next tick (it asked
// before the grace-period kthread started it), and its quiescent state
// counts only after that, at the tick after (kernel/rcu/tree.c:
// note_gp_changes, rcu_check_quiescent_state; rcu_flavor_sched_clock_irq,
// kernel/rcu/tree_plugin.h).
const minGPTicks = 2

// weyl is 2⁶⁴/φ: the sequence x, x+weyl, x+2·weyl, … (mod 2⁶⁴) spreads its
// points evenly over [0, 2⁶⁴) however many are taken (the golden-ratio
// Weyl sequence), so a run's grace periods follow the distribution closely
// even when it has few of them.
const weyl = 0x9e3779b97f4a7c15

func newGPTicks(c *Costs, seed uint64) gpTicks {
	d := gpTicks{
		weight: [5]uint64{uint64(c.GracePeriodTicks2), uint64(c.GracePeriodTicks3), uint64(c.GracePeriodTicks4), uint64(c.GracePeriodTicks5), uint64(c.GracePeriodTicks6)},
		past:   c.GracePeriodPastTick,
		start:  seed * 0xbf58476d1ce4e5b9,
	}
	for _, w := range d.weight {
		d.total += w
	}
	return d
}

// ticks returns the length in ticks of the grace period at point x of the
// sequence: the K whose share of the cumulative weights holds x/2⁶⁴.
func (d *gpTicks) ticks(x uint64) int {
	v, _ := bits.Mul64(x, d.total) // ⌊x·total/2⁶⁴⌋ < total
	for i, w := range d.weight {
		if v < w {
			return minGPTicks + i
		}
		v -= w
	}
	panic("sim: grace-period distribution overrun") // v < total
}

// gpLenLocked returns the length of the next grace period: with RCUTick
// and a distribution, the next draw's ticks plus GracePeriodPastTick;
// otherwise GracePeriod.
//
// Kernel: rcu_gp_kthread's rcu_gp_init, rcu_gp_fqs_loop, rcu_gp_cleanup
// (kernel/rcu/tree.c): the grace period ends once every CPU has reported a
// quiescent state, which a CPU busy in the kernel does at a tick or a
// context switch, and an idle one through the force-quiescent-state scans.
func (r *RCU) gpLenLocked() time.Duration {
	if r.gpDist.total == 0 {
		return r.gpLen
	}
	k := r.gpDist.ticks(r.gpDraw)
	r.gpDraw += weyl
	return time.Duration(k)*r.tick + r.gpDist.past
}
