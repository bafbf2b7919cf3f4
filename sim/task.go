// Tasks: a simulated process or kernel thread with its own virtual clock,
// the work it charges, sleeps, and the times it spent on a CPU, waiting for
// a CPU, waiting for locks and sleeping.

package sim

import (
	"fmt"
	"time"
)

// Task is a simulated process or kernel thread: an `ip -batch` run, a
// systemd-networkd, a kworker. It owns a virtual clock. Every operation that
// does work takes the task that does it as its first argument, the way the
// kernel charges CPU to current.
//
// A Task is driven by one goroutine at a time. The zero Task is not usable;
// create tasks with World.NewTask or World.Spawn. Charge and Count accept a
// nil *Task and then do nothing, so data structures can be used without a
// simulation around them.
type Task struct {
	// The fields every charge, lock and switch reads or writes come first,
	// in the task's first three cache lines: with thousands of tasks taking
	// turns, each turn starts with the task's state out of the CPU's
	// caches, and fewer lines to fetch is less time per turn.

	w *World

	// Owned by the goroutine driving the task; written by others only under
	// World.mu while the task is blocked in the scheduler.
	now        Time
	cpu        time.Duration // CPU time: charged work plus spinning
	cpu0End    Time          // when the last charge ended (scheduled tasks)
	sliceStart Time          // with Options.Coarse: when the task last yielded
	cpu0       int           // the virtual CPU of the last charge
	cpuWait    time.Duration // time spent runnable, waiting for a virtual CPU
	lockWait   time.Duration // time spent waiting for Mutexes
	spin       time.Duration // part of cpu spent spinning on a Mutex

	// With a Profiler: the task's modelled call stack (its innermost
	// frame); nil without.
	frame *frameNode

	id int

	// Scheduling state, guarded by World.mu.
	heapIdx  int
	lockWant *Mutex                  // the Mutex the task yielded on its way into (Options.Coarse)
	held     int                     // Mutexes held
	resume   func() (struct{}, bool) // runs the coroutine until it parks; false when it has finished
	suspend  func(struct{}) bool     // inside the coroutine: back to the scheduler loop
	sched    bool                    // driven by the World's scheduler (Spawn)
	finished bool
	// background: a kernel worker that does not keep Run going
	// (SpawnBackgroundFrom).
	background bool

	inline bool // kernel-thread context: charged work advances the clock but never waits

	// counters holds the task's counts by counter slot (kindSlot), the
	// kinds that almost every request charges in the first slots.
	counters Counters

	name     string
	slept    time.Duration
	popFrame func() // pops a frame (Frame); with a Profiler only
	body     func(*Task)
	stop     func()
}

// Name returns the task's name.
func (t *Task) Name() string { return t.name }

// ID returns the task's id, unique in its World, starting at 1.
func (t *Task) ID() int { return t.id }

// World returns the task's World.
func (t *Task) World() *World { return t.w }

// Now returns the task's virtual time.
func (t *Task) Now() Time { return t.now }

// CPUTime returns the virtual CPU time the task consumed: its charged work
// plus the time it spent spinning on Mutexes.
func (t *Task) CPUTime() time.Duration { return t.cpu }

// SpinTime returns the part of CPUTime spent spinning on Mutexes.
func (t *Task) SpinTime() time.Duration { return t.spin }

// SleepTime returns the virtual time the task spent sleeping.
func (t *Task) SleepTime() time.Duration { return t.slept }

// LockWaitTime returns the virtual time the task spent waiting for Mutexes.
func (t *Task) LockWaitTime() time.Duration { return t.lockWait }

// CPUWaitTime returns the virtual time the task was runnable but every
// virtual CPU was busy.
func (t *Task) CPUWaitTime() time.Duration { return t.cpuWait }

// Counters returns the work the task has counted.
func (t *Task) Counters() Counters {
	var c Counters
	for k := range c {
		c[k] = t.counters[kindSlot[k]]
	}
	return c
}

// String returns "name#id" ("" for a nil Task).
func (t *Task) String() string {
	if t == nil {
		return ""
	}
	return fmt.Sprintf("%s#%d", t.name, t.id)
}

// Charge records n units of work of kind k and spends their CPU cost
// (n × Costs.PerUnit(k)) on one of the World's virtual CPUs. A nil Task
// records nothing.
func (t *Task) Charge(k Kind, n int64) {
	if t == nil || n == 0 {
		return
	}
	if d := t.account(k, n); d > 0 {
		t.compute(d)
	}
}

// account records n units of work of kind k in the task's and the World's
// counters and returns their CPU cost.
func (t *Task) account(k Kind, n int64) time.Duration {
	t.count(k, n)
	return time.Duration(n) * t.w.table[k]
}

// Work is n units of one kind of work, for ChargeAll, with the working
// set they walk in (the zero Footprint: none, as Charge).
type Work struct {
	Kind Kind
	N    int64
	In   Footprint
}

// ChargeAll charges each piece of work in turn, as consecutive ChargeIn
// calls would, with the same virtual times and counters. A direct task (one
// not under Run) spends their summed cost in one step.
func (t *Task) ChargeAll(work ...Work) {
	if t == nil {
		return
	}
	if t.sched {
		for _, wk := range work {
			t.ChargeIn(wk.Kind, wk.N, wk.In)
		}
		return
	}
	var d time.Duration
	for _, wk := range work {
		if wk.N != 0 {
			d += t.account(wk.Kind, wk.N) + t.accountStall(wk.N, wk.In)
		}
	}
	if d > 0 {
		t.compute(d)
	}
}

// Busy spends d of CPU time that no counter describes (for example the user
// space part of an `ip` invocation).
func (t *Task) Busy(d time.Duration) {
	if d > 0 {
		t.compute(d)
	}
}

func (t *Task) compute(d time.Duration) {
	t.cpu += d
	if t.frame != nil {
		t.profCPU(d)
	}
	switch {
	case t.inline:
		t.now = t.now.Add(d)
	case t.sched:
		w := t.w
		w.mu.Lock()
		start, cpu := w.cpuFree.book(t.now, d, t.cpu0, t.cpu0End)
		t.cpuWait += start.Sub(t.now)
		if t.frame != nil {
			t.profWait(start.Sub(t.now))
		}
		t.now = start.Add(d)
		if w.busy != nil {
			w.busy.add(start, t.now)
		}
		t.cpu0, t.cpu0End = cpu, t.now
		if w.coarse {
			if t.now.Sub(t.sliceStart) >= CoarseSlice {
				t.cpu0 = -1 // preempted: the next charge queues for a CPU
				t.sliceStart = t.now
			} else if !w.events.dueBy(t.now) {
				w.advanceHorizon(t.now)
				w.mu.Unlock()
				return
			}
		}
		w.mu.Unlock()
		t.yield()
	default:
		t.now = t.now.Add(d)
		t.w.runDue(t)
	}
}

// Sleep advances the task's clock by d without using a CPU.
func (t *Task) Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	t.mustBlock("sleep")
	start := t.now
	t.now = t.now.Add(d)
	d = t.now.Sub(start) // less at the end of virtual time
	t.slept += d
	if t.frame != nil {
		t.profWait(d)
	}
	t.trace(Event{Name: "sleep", Cat: "sleep", Start: start, Dur: d})
	t.sync()
}

// Msleep models the kernel's msleep(ms): the task sleeps ms milliseconds
// rounded up to whole jiffies, plus one jiffy.
//
// Kernel: msleep (kernel/time/timer.c).
func (t *Task) Msleep(ms int) {
	defer t.Frame("msleep")()
	t.Charge(Sleep, 1)
	j := t.w.costs.Jiffy
	d := time.Duration(ms) * time.Millisecond
	if j > 0 {
		d = (d+j-1)/j*j + j
	}
	start := t.now
	t.mustBlock("msleep")
	t.now = t.now.Add(d)
	d = t.now.Sub(start)
	t.slept += d
	if t.frame != nil {
		t.profWait(d)
	}
	t.trace(Event{Name: fmt.Sprintf("msleep(%d)", ms), Cat: "sleep", Start: start, Dur: d})
	t.sync()
}

// SleepUntil sleeps until virtual time at (no-op if at is not in the future).
func (t *Task) SleepUntil(at Time) { t.Sleep(at.Sub(t.now)) }

// Span starts a named span of the task's timeline (a request, a phase) and
// returns the function that ends it. Spans appear in traces.
func (t *Task) Span(name string) (end func()) {
	if t.w.tracer == nil {
		return noop
	}
	start := t.now
	return func() { t.trace(Event{Name: name, Cat: "span", Start: start, Dur: t.now.Sub(start)}) }
}

func (t *Task) trace(e Event) {
	if tr := t.w.tracer; tr != nil {
		e.Task, e.TID = t.name, t.id
		tr.Record(e)
	}
}

func (t *Task) mustBlock(what string) {
	if t.inline {
		panic(errorf(ErrBlockedInKernelThread, "sim: %s in kernel thread %s (RCU callbacks cannot block)", what, t))
	}
}

// sync lets the World catch up with the task's advanced clock: a scheduled
// task yields to any task or event that is earlier; a direct task runs the
// events that are due.
func (t *Task) sync() {
	if t.sched {
		t.yield()
	} else if !t.inline {
		t.w.runDue(t)
	}
}

// Scheduled reports whether the task is run by World.Run (created with Spawn)
// rather than driven directly by a goroutine.
func (t *Task) Scheduled() bool { return t.sched }

func noop() {}
