// Deferred work: the kernel's delayed work items (queue_delayed_work on
// system_wq, kernel/workqueue.c) that a kworker runs at their due time.

package sim

import (
	"sync"
	"sync/atomic"
	"time"
)

// LastDue is the latest time at which deferred work can run: work due at
// End, the end of virtual time, never runs (a timer set past the end of
// virtual time does not fire).
const LastDue = End - 1

// noWork is WorkQueue.nextAt with nothing pending.
const noWork = int64(^uint64(0) >> 1)

// A WorkQueue runs deferred kernel work. For a scheduled task it spawns a
// kworker task that sleeps for the delay and runs the work. For a direct
// task it keeps the work pending until RunDue runs it, in a kworker task
// of its own, at its due virtual time: a kernel layer calls RunDue as each
// request enters (and to settle), before the request takes its locks.
// Work runs through the run function the queue was made with, which wraps
// it in what the kernel holds around a work item (RTNL for netsim's).
type WorkQueue struct {
	w   *World
	run func(kw *Task, name string, fn func(kw *Task))

	mu      sync.Mutex // guards pending and kw
	pending timeline[work]
	nextAt  atomic.Int64 // when the earliest pending work is due (a Time); noWork when none
	runMu   sync.Mutex   // one direct kworker at a time
	kw      *Task
}

type work struct {
	name       string
	fn         func(kw *Task)
	background bool // QueueBackground's: it repeats for as long as the machine runs
}

// NewWorkQueue returns an empty queue whose work runs through run.
func (w *World) NewWorkQueue(run func(kw *Task, name string, fn func(kw *Task))) *WorkQueue {
	q := &WorkQueue{w: w, run: run}
	q.nextAt.Store(noWork)
	return q
}

// Queue queues fn to run delay after t's time. Work that would be due at
// the end of virtual time (End) is dropped: it could never run.
//
// Kernel: queue_delayed_work (kernel/workqueue.c).
func (q *WorkQueue) Queue(t *Task, delay time.Duration, name string, fn func(kw *Task)) {
	q.queue(t, delay, work{name: name, fn: fn}, q.w.SpawnFrom)
}

// QueueBackground is Queue for work that repeats for as long as the
// machine runs (it queues itself again): for a scheduled task its kworker
// is a background task (SpawnBackgroundFrom), which does not keep Run
// going, and LastForeground leaves it out.
func (q *WorkQueue) QueueBackground(t *Task, delay time.Duration, name string, fn func(kw *Task)) {
	q.queue(t, delay, work{name: name, fn: fn, background: true}, q.w.SpawnBackgroundFrom)
}

func (q *WorkQueue) queue(t *Task, delay time.Duration, p work, spawn func(parent *Task, name string, body func(t *Task)) *Task) {
	at := t.Now().Add(delay)
	if at > LastDue {
		return
	}
	if t.Scheduled() {
		spawn(t, "kworker/"+p.name, func(kw *Task) {
			kw.Sleep(delay)
			q.run(kw, p.name, p.fn)
		})
		return
	}
	q.mu.Lock()
	q.pending.push(at, p)
	q.changedLocked()
	q.mu.Unlock()
}

func (q *WorkQueue) changedLocked() {
	if at, ok := q.pending.next(); ok {
		q.nextAt.Store(int64(at))
	} else {
		q.nextAt.Store(noWork)
	}
}

// LastForeground returns when the latest pending work not queued by
// QueueBackground is due, and false if there is none: how far settling
// must run the queue.
func (q *WorkQueue) LastForeground() (Time, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var last Time
	found := false
	for _, it := range q.pending.items {
		if !it.v.background && (!found || it.at > last) {
			last, found = it.at, true
		}
	}
	return last, found
}

// DueBy reports whether work that can run is due at or before upTo.
func (q *WorkQueue) DueBy(upTo Time) bool {
	return Time(q.nextAt.Load()) <= min(upTo, LastDue)
}

// RunDue runs, for direct task t, the pending work due at or before upTo,
// earliest first, including work that the work itself queues. Work due at
// End never runs. Each item runs once, at its due time or later; none is
// run again for the time that passed (a kernel timer whose expiry has
// passed fires once). For a scheduled task it does nothing: its work runs
// in kworkers of its own.
func (q *WorkQueue) RunDue(t *Task, upTo Time) {
	if t.Scheduled() {
		return
	}
	upTo = min(upTo, LastDue)
	if Time(q.nextAt.Load()) > upTo {
		return // nothing due: no shared lock taken
	}
	q.runMu.Lock()
	defer q.runMu.Unlock()
	for {
		q.mu.Lock()
		if !q.pending.dueBy(upTo) {
			q.mu.Unlock()
			return
		}
		at, p := q.pending.pop()
		q.changedLocked()
		if q.kw == nil {
			q.kw = q.w.NewTask("kworker")
		}
		kw := q.kw
		q.mu.Unlock()
		kw.SleepUntil(at)
		q.run(kw, p.name, p.fn)
	}
}
