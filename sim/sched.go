package sim

import (
	"container/heap"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"
)

// scheduler is the state of one World.Run.
type scheduler struct {
	runq    taskHeap // runnable tasks that are not executing
	live    int      // tasks that have not finished
	failure any      // a panic from a task, or a deadlock report
}

type taskHeap []*Task

func (h taskHeap) Len() int { return len(h) }
func (h taskHeap) Less(i, j int) bool {
	if h[i].now != h[j].now {
		return h[i].now < h[j].now
	}
	return h[i].id < h[j].id
}
func (h taskHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx, h[j].heapIdx = i, j
}
func (h *taskHeap) Push(x any) {
	t := x.(*Task)
	t.heapIdx = len(*h)
	*h = append(*h, t)
}
func (h *taskHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.heapIdx = -1
	return t
}

// Spawn creates a scheduled task that will run body when Run is called (or
// at once, in virtual time, if Run is executing and the caller is one of its
// tasks). Its clock starts at the World's current Now, or at the spawning
// task's Now when spawned from a running task.
func (w *World) Spawn(name string, body func(t *Task)) *Task {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.newTaskLocked(name)
	t.sched, t.body = true, body
	t.resume, t.stop = iter.Pull(t.run)
	if s := w.sched; s != nil {
		s.live++
		heap.Push(&s.runq, t)
	} else {
		w.pending = append(w.pending, t)
	}
	return t
}

// SpawnFrom is Spawn for a task started by parent (a process forking a
// worker, a work item queued by a request): the new task starts at parent's
// virtual time.
func (w *World) SpawnFrom(parent *Task, name string, body func(t *Task)) *Task {
	t := w.Spawn(name, body)
	w.mu.Lock()
	t.now = parent.now
	if t.heapIdx >= 0 {
		heap.Fix(&w.sched.runq, t.heapIdx)
	}
	w.mu.Unlock()
	return t
}

// Run executes every spawned task to completion, deterministically: at every
// step the runnable task with the smallest virtual time (ties: the lowest id)
// runs until it charges work, sleeps, waits or takes a lock; RCU callbacks run
// at their virtual times before any task that is later. Run returns the
// World's Now when the last task finished.
//
// Tasks are coroutines of the goroutine that calls Run: switching between
// them costs tens of nanoseconds and never involves the Go scheduler.
//
// A panic in a task is re-raised by Run. Tasks left blocked with nothing else
// to run (a deadlock, for example a task that finished holding a Mutex that
// others wait for) make Run panic with a description.
func (w *World) Run() Time {
	w.mu.Lock()
	if w.sched != nil {
		w.mu.Unlock()
		panic("sim: World.Run called while running")
	}
	s := &scheduler{}
	w.sched = s
	for _, t := range w.pending {
		s.live++
		heap.Push(&s.runq, t)
	}
	w.pending = nil
	w.mu.Unlock()
	w.loop(s)
	w.mu.Lock()
	w.sched = nil
	failure := s.failure
	now := w.horizonNow()
	var left []*Task
	for _, t := range w.tasks {
		if t.sched && !t.finished && t.stop != nil {
			left = append(left, t)
		}
	}
	w.mu.Unlock()
	for _, t := range left {
		t.stop() // unwinds a blocked task's coroutine
	}
	if failure != nil {
		panic(failure)
	}
	return now
}

// loop is the scheduler: it runs due events and resumes the earliest
// runnable task until none is left.
func (w *World) loop(s *scheduler) {
	for {
		w.mu.Lock()
		if s.failure != nil {
			w.mu.Unlock()
			return
		}
		var next *Task
		if len(s.runq) > 0 {
			next = s.runq[0]
		}
		if len(w.events) > 0 && (next == nil || w.events[0].at <= next.now) {
			e := w.popEventLocked()
			w.advanceHorizon(e.at)
			w.mu.Unlock()
			if !w.protect(nil, e.fn) {
				return
			}
			continue
		}
		if next == nil {
			if s.live > 0 {
				s.failure = w.deadlockReportLocked()
			}
			w.mu.Unlock()
			return
		}
		heap.Pop(&s.runq)
		w.advanceHorizon(next.now)
		w.mu.Unlock()
		alive := true
		if !w.protect(next, func() { _, alive = next.resume() }) {
			return
		}
		if !alive {
			w.mu.Lock()
			next.finished = true
			s.live--
			w.advanceHorizon(next.now)
			w.mu.Unlock()
		}
	}
}

// protect runs fn, task t's step or (t nil) an event, and turns a panic
// into the World's failure.
func (w *World) protect(t *Task, fn func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			what := "an event"
			if t != nil {
				what = "task " + t.String()
			}
			w.mu.Lock()
			if w.sched.failure == nil {
				w.sched.failure = fmt.Sprintf("sim: %s panicked: %v", what, r)
			}
			w.mu.Unlock()
			ok = false
		}
	}()
	fn()
	return true
}

// errStopped unwinds a task whose World stopped before it finished.
var errStopped = errors.New("sim: task stopped")

// run is the body of a scheduled task's coroutine.
func (t *Task) run(yield func(struct{}) bool) {
	t.suspend = yield
	defer func() {
		if r := recover(); r != nil && r != errStopped {
			panic(r)
		}
	}()
	t.body(t)
	if t.held > 0 {
		panic(fmt.Sprintf("finished holding %d mutex(es)", t.held))
	}
}

// park returns control to the scheduler loop until it resumes t.
func (t *Task) park() {
	if !t.suspend(struct{}{}) {
		panic(errStopped)
	}
	t.sliceStart = t.now
}

// yield puts the running scheduled task back in the run queue and lets an
// earlier task or event go first.
func (t *Task) yield() {
	w := t.w
	w.mu.Lock()
	w.advanceHorizon(t.now)
	s := w.sched
	// Fast path: nothing is due before the task's new time.
	if (len(w.events) == 0 || w.events[0].at > t.now) &&
		(len(s.runq) == 0 || t.now < s.runq[0].now || (t.now == s.runq[0].now && t.id < s.runq[0].id)) {
		w.mu.Unlock()
		return
	}
	heap.Push(&s.runq, t)
	w.mu.Unlock()
	t.park()
}

// CoarseSlice is how long a task computes under Options.Coarse before it
// is preempted — yields, and queues for a CPU again — when it reaches no
// synchronisation point: the kernel's scheduling slice with many runnable
// tasks on a large machine (EEVDF's base slice, 0.75 ms, scaled by 4 for
// more than 8 CPUs).
const CoarseSlice = 3 * time.Millisecond

func (w *World) deadlockReportLocked() string {
	var b strings.Builder
	b.WriteString("sim: deadlock: no runnable task; blocked:")
	for _, t := range w.tasks {
		if t.sched && !t.finished && t.heapIdx < 0 {
			fmt.Fprintf(&b, " %s(at %v)", t, t.now)
		}
	}
	return b.String()
}
