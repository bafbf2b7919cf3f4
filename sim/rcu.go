// The RCU model: grace periods in virtual time, callbacks run by a kernel
// thread at the end of their grace period, synchronize_rcu, its expedited
// form and rcu_barrier (kernel/rcu/tree.c, tree_exp.h).

package sim

import (
	"time"
)

// RCU models the kernel's read-copy-update machinery at the level the
// control plane sees it: callbacks queued with call_rcu run one grace period
// later, synchronize_rcu waits for a grace period, rcu_barrier waits for the
// callbacks already queued — and not for the callbacks those callbacks queue,
// which is what makes a chained release (seed 002) outlive a barrier.
//
// Grace periods are serial: a grace period starts when one is needed and none
// is running; a callback queued while one runs waits for the next, so it
// waits between one and two grace periods. Callbacks run in a kernel thread
// ("rcuc") at the end of their grace period, in the order they were queued.
type RCU struct {
	w      *World
	kthr   *Task // context callbacks run in
	mu     *Mutex
	gpLen  time.Duration
	expLen time.Duration
	tick   time.Duration // Costs.RCUTick
	gpDist gpTicks       // with tick: grace-period lengths in ticks

	// Guarded by w.mu.
	gpStart, gpEnd Time // the latest grace period planned
	gpReq          Time // when it was asked for (see callbackRunLocked)
	lastCB         Time // when the latest queued callback will run
	pending        int  // callbacks queued and not yet run
	barrierRun     int64
	barrierDone    int64  // barriers completed (barrier_sequence / 2)
	gpDraw         uint64 // the next grace period's point of gpDist's sequence
}

func newRCU(w *World, seed uint64) *RCU {
	r := &RCU{w: w, tick: w.costs.RCUTick, gpLen: w.costs.GracePeriod, expLen: w.costs.ExpeditedGP, gpStart: -1, gpEnd: -1, gpReq: -1}
	if r.tick > 0 {
		r.gpDist = newGPTicks(&w.costs, seed)
		r.gpDraw = r.gpDist.start
	}
	r.kthr = w.NewKernelThread("rcuc")
	r.mu = w.NewMutex("rcu_barrier_mutex")
	return r
}

// KernelThread returns the task RCU callbacks run in; its counters hold the
// work the callbacks charged.
func (r *RCU) KernelThread() *Task { return r.kthr }

// gpEndForLocked returns the end of the first grace period that starts at or
// after q, planning it if needed.
func (r *RCU) gpEndForLocked(q Time) Time {
	switch {
	case q <= r.gpStart:
		// The latest planned grace period starts at or after q.
	case q < r.gpEnd:
		// One is running; the next starts when it ends.
		r.planGPLocked(r.gpEnd, r.gpEnd)
	default:
		r.planGPLocked(q, q)
	}
	return r.gpEnd
}

// planGPLocked plans the next grace period, asked for at req, from start.
func (r *RCU) planGPLocked(req, start Time) {
	r.gpReq, r.gpStart, r.gpEnd = req, start, start.Add(r.gpLenLocked())
	r.countGPLocked(r.gpEnd)
}

func (r *RCU) countGPLocked(at Time) {
	r.w.atLocked(at, func() {
		pop := r.kthr.Frame("rcu_gp_kthread")
		r.kthr.count(GracePeriod, 1)
		pop()
	})
}

// Call queues fn to run after a grace period, in the RCU callback thread,
// with that thread's task (whose clock is the callback's virtual time). fn
// may charge work and queue further callbacks; it must not sleep or take a
// Mutex. With Costs.RCUTick, a callback gets its grace period and runs at
// ticks (callbackRunLocked).
//
// Kernel: call_rcu (kernel/rcu/tree.c).
func (r *RCU) Call(t *Task, fn func(t *Task)) {
	w := r.w
	w.mu.Lock()
	at := r.callbackRunLocked(t.now)
	r.lastCB = maxTime(r.lastCB, at)
	r.pending++
	w.atLocked(at, func() {
		w.mu.Lock()
		r.pending--
		w.mu.Unlock()
		k := r.kthr
		k.now = at
		pop := k.Frame("rcu_do_batch")
		k.Charge(RCUCallback, 1)
		fn(k)
		pop()
	})
	w.mu.Unlock()
}

// Pending returns the number of callbacks queued and not yet run.
func (r *RCU) Pending() int {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.pending
}

// Synchronize waits for a full grace period that starts after the call.
//
// Kernel: synchronize_rcu (kernel/rcu/tree.c).
func (r *RCU) Synchronize(t *Task) {
	defer t.Frame("synchronize_rcu")()
	r.w.mu.Lock()
	end := r.gpEndForLocked(t.now)
	r.w.mu.Unlock()
	start := t.now
	t.Sleep(end.Sub(t.now))
	t.trace(Event{Name: "synchronize_rcu", Cat: "rcu", Start: start, Dur: t.now.Sub(start)})
}

// SynchronizeExpedited waits for an expedited grace period (Costs.ExpeditedGP),
// which does not wait for normal grace periods in progress. synchronize_net
// under RTNL is this.
//
// Kernel: synchronize_rcu_expedited (kernel/rcu/tree_exp.h).
func (r *RCU) SynchronizeExpedited(t *Task) {
	defer t.Frame("synchronize_rcu_expedited")()
	t.Charge(SyncExpedited, 1)
	start := t.now
	t.Sleep(r.expLen)
	t.trace(Event{Name: "synchronize_rcu_expedited", Cat: "rcu", Start: start, Dur: t.now.Sub(start)})
}

// Barrier waits until every callback queued before the call has run. It does
// not wait for callbacks that those callbacks queue. Concurrent callers share
// barriers: a caller that finds, once it holds the barrier mutex, that a
// barrier which started after it arrived has completed returns at once
// (counted as RCUBarrierShared); otherwise it runs a barrier (RCUBarrier),
// holding the mutex until the last queued callback has run plus
// Costs.BarrierOverhead.
//
// Kernel: rcu_barrier (kernel/rcu/tree.c), with its barrier_mutex and the
// rcu_seq_snap / rcu_seq_done test of barrier_sequence.
func (r *RCU) Barrier(t *Task) {
	defer t.Frame("rcu_barrier")()
	w := r.w
	start := t.now
	w.mu.Lock()
	// The barrier this caller needs is the first one that starts after now:
	// the next to run, whether or not one is running now.
	need := r.barrierRun + 1
	w.mu.Unlock()

	r.mu.Lock(t)
	w.mu.Lock()
	if r.barrierDone >= need {
		w.mu.Unlock()
		r.mu.Unlock(t)
		t.Charge(RCUBarrierShared, 1)
		t.trace(Event{Name: "rcu_barrier (shared)", Cat: "rcu", Start: start, Dur: t.now.Sub(start)})
		return
	}
	r.barrierRun++
	done := t.now
	if r.pending > 0 {
		done = maxTime(done, r.lastCB)
	}
	done = done.Add(w.costs.BarrierOverhead)
	w.mu.Unlock()

	t.Charge(RCUBarrier, 1)
	t.Sleep(done.Sub(t.now))

	w.mu.Lock()
	r.barrierDone = r.barrierRun
	w.mu.Unlock()
	r.mu.Unlock(t)
	t.trace(Event{Name: "rcu_barrier", Cat: "rcu", Start: start, Dur: t.now.Sub(start)})
}
