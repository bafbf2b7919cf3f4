// RCU callbacks under the scheduling-clock tick: a CPU gives its new
// callbacks a grace period, asks for it, notices its end and runs them only
// at its ticks (kernel/rcu/tree.c: rcu_pending, rcu_core).

package sim

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
