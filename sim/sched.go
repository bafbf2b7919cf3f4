// The deterministic scheduler of a World: the run queue ordered by virtual
// time and task id, spawning tasks, World.Run, and the failures (a task's
// panic, a deadlock) that stop a run.

package sim

import (
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
	daemons int      // background tasks among them (SpawnBackgroundFrom)
	failure any      // a panic from a task, or a deadlock report
}

// taskHeap is the run queue: a binary min-heap by (virtual time, id), the
// keys kept beside the task pointers so that ordering never touches a task.
type taskHeap []runEntry

type runEntry struct {
	now Time
	id  int
	t   *Task
}

func (a runEntry) before(b runEntry) bool {
	return a.now < b.now || a.now == b.now && a.id < b.id
}

func (h taskHeap) first() *Task { return h[0].t }

func (h *taskHeap) push(t *Task) {
	*h = append(*h, runEntry{t.now, t.id, t})
	t.heapIdx = len(*h) - 1
	h.up(t.heapIdx)
}

func (h *taskHeap) pop() *Task {
	old := *h
	t := old[0].t
	n := len(old) - 1
	old[0] = old[n]
	old[0].t.heapIdx = 0
	old[n] = runEntry{}
	*h = old[:n]
	if n > 0 {
		h.down(0)
	}
	t.heapIdx = -1
	return t
}

// fix restores the order after the task at index i changed its time.
func (h taskHeap) fix(i int) {
	h[i].now = h[i].t.now
	if !h.down(i) {
		h.up(i)
	}
}

func (h taskHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		h[i].t.heapIdx, h[p].t.heapIdx = i, p
		i = p
	}
}

func (h taskHeap) down(i int) (moved bool) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return moved
		}
		c := l
		if r := l + 1; r < n && h[r].before(h[l]) {
			c = r
		}
		if !h[c].before(h[i]) {
			return moved
		}
		h[i], h[c] = h[c], h[i]
		h[i].t.heapIdx, h[c].t.heapIdx = i, c
		i, moved = c, true
	}
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
		s.runq.push(t)
	} else {
		w.pending = append(w.pending, t)
	}
	return t
}

// SpawnBackgroundFrom is SpawnFrom for a background task: a kernel
// worker whose work repeats for as long as the machine runs (a table's
// periodic garbage collection). Background tasks do not keep Run going:
// once only they are left, Run runs the events still due and returns,
// stopping them where they are.
func (w *World) SpawnBackgroundFrom(parent *Task, name string, body func(t *Task)) *Task {
	t := w.SpawnFrom(parent, name, body)
	w.mu.Lock()
	t.background = true
	if s := w.sched; s != nil {
		s.daemons++
	}
	w.mu.Unlock()
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
		w.sched.runq.fix(t.heapIdx)
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
// A panic in a task is re-raised by Run, as "sim: task NAME panicked: ...":
// an error wrapped (so that errors.Is sees through it), any other value as
// a string. Tasks left blocked with nothing else to run (a deadlock, for
// example a task that finished holding a Mutex that others wait for) make
// Run panic with an *Error of kind ErrDeadlock naming them; Run called
// while the World runs panics with one of kind ErrRunning.
func (w *World) Run() Time {
	w.mu.Lock()
	if w.sched != nil {
		w.mu.Unlock()
		panic(errorf(ErrRunning, "sim: World.Run called while running"))
	}
	s := &scheduler{}
	w.sched = s
	for _, t := range w.pending {
		s.live++
		if t.background {
			s.daemons++
		}
		s.runq.push(t)
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

// fail records a panic of task t (nil: an event) as the World's failure;
// r is what it panicked with, nil if it did not. It reports whether it did.
func (w *World) fail(s *scheduler, t *Task, r any) bool {
	if r == nil {
		return false
	}
	what := "an event"
	if t != nil {
		what = "task " + t.String()
	}
	w.mu.Lock()
	if s.failure == nil {
		if err, ok := r.(error); ok {
			s.failure = fmt.Errorf("sim: %s panicked: %w", what, err)
		} else {
			s.failure = fmt.Sprintf("sim: %s panicked: %v", what, r)
		}
	}
	w.mu.Unlock()
	return true
}

// runEvent runs an event's fn; a panic becomes the World's failure.
func (w *World) runEvent(s *scheduler, fn func()) {
	defer func() { w.fail(s, nil, recover()) }()
	fn()
}

// resumeTask runs task t's next step; a panic becomes the World's failure
// and ends the task.
func (w *World) resumeTask(s *scheduler, t *Task) (alive bool) {
	defer func() {
		if w.fail(s, t, recover()) {
			alive = true // the loop stops at the failure; Run unwinds t
		}
	}()
	_, alive = t.resume()
	return alive
}

// loop is the scheduler: it runs due events and resumes the earliest
// runnable task until none is left. A panic in a task or an event (not in
// the scheduler itself) becomes the World's failure.
func (w *World) loop(s *scheduler) {
	for {
		w.mu.Lock()
		if s.failure != nil {
			w.mu.Unlock()
			return
		}
		var next *Task
		if len(s.runq) > 0 {
			next = s.runq.first()
		}
		if s.live > 0 && s.live == s.daemons {
			next = nil // only background work is left: nothing waits on it
		}
		if at, ok := w.events.next(); ok && (next == nil || at <= next.now) {
			at, fn := w.popEventLocked()
			w.advanceHorizon(at)
			w.mu.Unlock()
			w.runEvent(s, fn)
			continue
		}
		if next == nil {
			if s.live > s.daemons {
				s.failure = w.deadlockReportLocked()
			}
			w.mu.Unlock()
			return
		}
		s.runq.pop()
		w.advanceHorizon(next.now)
		w.mu.Unlock()
		if m := next.lockWant; m != nil && m.enqueueWanted(next) {
			continue // next waits for m without having run
		}
		w.resumes++
		if alive := w.resumeTask(s, next); !alive {
			w.mu.Lock()
			next.finished = true
			s.live--
			if next.background {
				s.daemons--
			}
			w.advanceHorizon(next.now)
			w.mu.Unlock()
		}
	}
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
		panic(errorf(ErrHeldAtExit, "sim: finished holding %d mutex(es)", t.held))
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
	// A background task's time counts once it runs there: one that sleeps
	// past the last other task's end never does.
	if !t.background {
		w.advanceHorizon(t.now)
	}
	s := w.sched
	// Fast path: nothing is due before the task's new time.
	if !w.events.dueBy(t.now) &&
		(len(s.runq) == 0 || (runEntry{t.now, t.id, t}).before(s.runq[0])) {
		if t.background {
			w.advanceHorizon(t.now) // it runs on at t.now
		}
		w.mu.Unlock()
		return
	}
	s.runq.push(t)
	w.mu.Unlock()
	t.park()
}

// CoarseSlice is how long a task computes under Options.Coarse before it
// is preempted — yields, and queues for a CPU again — when it reaches no
// synchronisation point: the kernel's scheduling slice with many runnable
// tasks on a large machine (EEVDF's base slice, 0.75 ms, scaled by 4 for
// more than 8 CPUs).
const CoarseSlice = 3 * time.Millisecond

func (w *World) deadlockReportLocked() *Error {
	var b strings.Builder
	b.WriteString("sim: no runnable task; blocked:")
	for _, t := range w.tasks {
		if t.sched && !t.finished && t.heapIdx < 0 {
			fmt.Fprintf(&b, " %s(at %v)", t, t.now)
		}
	}
	return errorf(ErrDeadlock, "%s", b.String())
}
