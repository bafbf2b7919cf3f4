// The World: one simulated machine (virtual CPUs, clock, RCU, cost model,
// seeded random source, tracer) and its options.

package sim

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Options configures a World. The zero Options gives one virtual CPU, the
// DefaultCosts, no tracing and seed 1.
type Options struct {
	// CPUs is the number of virtual CPUs P that scheduled tasks share for
	// their charged work. Zero means 1.
	CPUs int
	// Costs is the cost model; nil means DefaultCosts.
	Costs *Costs
	// Tracer receives trace events; nil disables tracing.
	Tracer Tracer
	// Seed seeds World.Rand and the sequence of grace-period lengths drawn
	// with Costs.RCUTick; zero means 1.
	Seed uint64
	// Coarse makes scheduled tasks yield only where they synchronise with
	// others — taking a Mutex, sleeping, waiting for RCU, or when a timed
	// event falls due — instead of after every charge of work. Lock
	// acquisitions, sleeps and events stay in exact virtual-time order;
	// what may differ from the fine-grained schedule is which virtual CPU a
	// charge gets when more tasks than CPUs compute at once (a task books
	// its CPU slices up to its next synchronisation point before an earlier
	// task books its own), and state shared without a Mutex may be seen out
	// of virtual-time order (Mutex.SetPrivate goes further for locks that
	// one task alone takes). Many-task scenarios (thousands of tasks making
	// millions of requests) run several times faster in real time.
	Coarse bool
	// Profiler, if not nil, records the World's virtual-time profile:
	// the CPU time, waits and work its tasks charge under each modelled
	// call stack (Task.Frame). A Tracer from Profiler.Attach does the same.
	// Profiling changes no virtual time and no counter.
	Profiler *Profiler
}

// World is one simulated machine: a virtual clock origin, P virtual CPUs, an
// RCU instance, the cost model, the work counters and the trace sink.
//
// Tasks use a World in one of two ways:
//   - directly (NewTask): the caller's goroutine drives the task; many
//     goroutines may drive their own tasks at once and the library stays safe
//     for that real concurrency, but virtual times of concurrent direct tasks
//     are only approximately ordered;
//   - scheduled (Spawn, then Run): the World runs the tasks one at a time in
//     virtual-time order, always the one with the smallest Now, switching at
//     every point where it charges work, sleeps, waits or takes a lock. The
//     result is exact and bit-for-bit reproducible.
type World struct {
	costs  Costs
	table  [NumKinds]time.Duration // costs.PerUnit by kind, read without locks
	ncpu   int
	coarse bool

	tracer  Tracer
	prof    *Profiler        // nil: not profiling
	profRun string           // the run name its stacks are labelled with
	shards  [numShards]shard // work counters and the horizon, spread over cache lines

	// mu guards the fields below and the scheduling state of every Task and
	// Mutex of this World.
	mu      sync.Mutex
	cpuFree cpuHeap    // per virtual CPU: when it is next idle, earliest first
	busy    *occupancy // when the CPUs run charged work; recorded once a Mutex spins
	nextID  int
	nextEv  atomic.Int64 // when the earliest pending event is due (a Time); noEvent when none
	tasks   []*Task
	pending []*Task // spawned, waiting for Run
	// events are what happens at a virtual time without a task of its
	// own: RCU callbacks.
	events timeline[func()]
	sched  *scheduler // non-nil while Run executes
	rng    *rand.Rand
	// resumes counts the scheduler's switches into tasks, for the tests
	// that bound how many a contended hand-off costs. Written by the
	// scheduler loop only.
	resumes int64

	// evRun serialises event execution for direct tasks.
	evRun sync.Mutex

	rcu *RCU
}

// NewWorld returns a World configured by opts, or an EINVAL *Error for a
// negative CPU count (ErrBadOptions) or a negative cost (ErrBadCosts).
func NewWorld(opts Options) (*World, error) {
	if opts.CPUs < 0 {
		return nil, errorf(ErrBadOptions, "sim: negative number of virtual CPUs %d", opts.CPUs)
	}
	w := &World{costs: DefaultCosts, ncpu: opts.CPUs, coarse: opts.Coarse, tracer: opts.Tracer, prof: opts.Profiler}
	if pt, ok := opts.Tracer.(*profTracer); ok {
		w.tracer, w.prof, w.profRun = pt.inner, pt.p, pt.run
	}
	if opts.Costs != nil {
		if err := opts.Costs.Validate(); err != nil {
			return nil, err
		}
		w.costs = *opts.Costs
	}
	if w.ncpu <= 0 {
		w.ncpu = 1
	}
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	w.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	w.table = w.costs.table()
	w.cpuFree = newCPUHeap(w.ncpu)
	w.nextEv.Store(noEvent)
	w.rcu = newRCU(w, seed)
	return w, nil
}

// MustNewWorld is NewWorld for options known to be valid (tests, examples);
// it panics on an error.
func MustNewWorld(opts Options) *World {
	w, err := NewWorld(opts)
	if err != nil {
		panic(err)
	}
	return w
}

// Costs returns the cost model.
func (w *World) Costs() Costs { return w.costs }

// CPUs returns the number of virtual CPUs.
func (w *World) CPUs() int { return w.ncpu }

// RCU returns the World's RCU instance.
func (w *World) RCU() *RCU { return w.rcu }

// Tracer returns the trace sink, or nil.
func (w *World) Tracer() Tracer { return w.tracer }

// Rand returns the World's seeded random source. It is not safe for
// concurrent use; scheduled tasks may use it freely (one runs at a time).
func (w *World) Rand() *rand.Rand { return w.rng }

// Now returns the latest virtual time any task of the World has reached.
func (w *World) Now() Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.horizonNow()
}

// Counters returns the work counted by every task of the World so far.
func (w *World) Counters() Counters {
	var c Counters
	for k := range c {
		for i := range w.shards {
			c[k] += w.shards[i].counters[k].Load()
		}
	}
	return c
}

// Tasks returns every task created in the World, in creation order.
func (w *World) Tasks() []*Task {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*Task(nil), w.tasks...)
}

// NewTask returns a direct task named name, driven by the caller's goroutine.
// Its clock starts at the World's current Now.
func (w *World) NewTask(name string) *Task {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.newTaskLocked(name)
}

func (w *World) newTaskLocked(name string) *Task {
	w.nextID++
	t := &Task{w: w, id: w.nextID, name: name, now: w.horizonNow(), heapIdx: -1, cpu0: -1}
	w.tasks = append(w.tasks, t)
	if w.prof != nil {
		w.prof.register(t, w.profRun)
	}
	return t
}

// NewKernelThread returns a task for work the kernel does outside any process
// (RCU callbacks, timers). Its work is charged and counted but never waits:
// it must not sleep or take a Mutex.
func (w *World) NewKernelThread(name string) *Task {
	t := w.NewTask(name)
	t.inline = true
	return t
}

// numShards is how many cache lines the World's counters and horizon are
// spread over, so that direct tasks on different goroutines do not write
// the same line on every charge.
const numShards = 16

// shard is one task group's part of the World's counters and horizon.
type shard struct {
	counters [NumKinds]atomic.Int64
	horizon  atomic.Int64 // the latest virtual time a task of the shard has reached
	_        [shardPad]byte
}

// shardPad rounds a shard up to whole 64-byte cache lines, so that no line
// holds the counters of two shards.
const shardPad = 64 - (int(NumKinds)*8+8)%64

func (w *World) shardOf(t *Task) *shard { return &w.shards[t.id%numShards] }

// count adds n to the World's counter k on t's shard.
func (w *World) count(t *Task, k Kind, n int64) { w.shardOf(t).counters[k].Add(n) }

// horizonNow is the latest virtual time any task has reached.
func (w *World) horizonNow() Time {
	var h int64
	for i := range w.shards {
		h = max(h, w.shards[i].horizon.Load())
	}
	return Time(h)
}

// advanceHorizon raises the World's Now to t if t is later; safe without
// w.mu.
func (w *World) advanceHorizon(t Time) { w.shards[0].advance(t) }

func (s *shard) advance(t Time) {
	for {
		h := s.horizon.Load()
		if int64(t) <= h || s.horizon.CompareAndSwap(h, int64(t)) {
			return
		}
	}
}

const noEvent = int64(^uint64(0) >> 1)

// eventsChangedLocked records when the earliest pending event is due, so
// that tasks can see without w.mu that nothing is due.
func (w *World) eventsChangedLocked() {
	if at, ok := w.events.next(); ok {
		w.nextEv.Store(int64(at))
	} else {
		w.nextEv.Store(noEvent)
	}
}

// popEventLocked removes the earliest pending event, returning when it is
// due and what it runs.
func (w *World) popEventLocked() (Time, func()) {
	at, fn := w.events.pop()
	w.eventsChangedLocked()
	return at, fn
}

// atLocked schedules fn to run at virtual time at.
func (w *World) atLocked(at Time, fn func()) {
	w.events.push(at, fn)
	w.eventsChangedLocked()
}

// runDue runs, for direct task t, every event due at or before its now.
func (w *World) runDue(t *Task) {
	now := t.now
	w.shardOf(t).advance(now)
	if Time(w.nextEv.Load()) > now {
		return
	}
	w.evRun.Lock()
	defer w.evRun.Unlock()
	for {
		w.mu.Lock()
		if !w.events.dueBy(now) {
			w.mu.Unlock()
			return
		}
		_, fn := w.popEventLocked()
		w.mu.Unlock()
		fn()
	}
}

// Settle runs every pending event (RCU callbacks), however far in the future,
// advancing the World's Now to the last of them. It must not be called while
// Run executes.
func (w *World) Settle() {
	w.evRun.Lock()
	defer w.evRun.Unlock()
	for {
		w.mu.Lock()
		if w.events.len() == 0 {
			w.mu.Unlock()
			return
		}
		at, fn := w.popEventLocked()
		w.advanceHorizon(at)
		w.mu.Unlock()
		fn()
	}
}

// cpuHeap keeps the virtual CPUs in a binary min-heap by the time each is
// next idle, with each CPU's position so that a running task can extend its
// own CPU's booking.
type cpuHeap struct {
	free []Time // by CPU
	heap []int  // CPUs, earliest idle first
	pos  []int  // by CPU: its index in heap
}

func newCPUHeap(n int) cpuHeap {
	h := cpuHeap{free: make([]Time, n), heap: make([]int, n), pos: make([]int, n)}
	for i := range n {
		h.heap[i], h.pos[i] = i, i
	}
	return h
}

// book runs d of work for a task at now that last ran on CPU last until
// lastEnd (last < 0: none): on that CPU if the task has held it until now,
// else on the CPU idle first. It returns when the work starts and the CPU.
func (h *cpuHeap) book(now Time, d time.Duration, last int, lastEnd Time) (start Time, cpu int) {
	if last >= 0 && lastEnd == now && h.free[last] == now {
		cpu, start = last, now
	} else {
		cpu = h.heap[0]
		start = maxTime(now, h.free[cpu])
	}
	h.free[cpu] = start.Add(d)
	h.down(h.pos[cpu])
	return start, cpu
}

// down restores the heap order below heap index i after its time grew.
func (h *cpuHeap) down(i int) {
	n := len(h.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h.free[h.heap[r]] < h.free[h.heap[l]] {
			c = r
		}
		if h.free[h.heap[i]] <= h.free[h.heap[c]] {
			return
		}
		h.heap[i], h.heap[c] = h.heap[c], h.heap[i]
		h.pos[h.heap[i]], h.pos[h.heap[c]] = i, c
		i = c
	}
}
