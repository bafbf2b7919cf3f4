// Simulated locks: a Mutex that is also a real sync.Mutex, granted in
// virtual-time order, with optional spinning waiters and lock statistics
// (mutex_lock, mutex_unlock: kernel/locking/mutex.c).

package sim

import (
	"sync"
	"time"
)

// Mutex is a simulated sleeping lock (the kernel's struct mutex, such as
// RTNL) that is also a real sync.Mutex, so code that uses it is safe for real
// concurrent use and visible to the race detector.
//
// In virtual time a Mutex serves waiters in FIFO order of arrival. It keeps
// statistics of hold and wait times. A waiter either sleeps (the default) or
// spins: with SetSpin(true) the time a waiter waits is also charged to it as
// CPU time, modelling the optimistic spinning of a kernel mutex whose owner
// is running (the CPU burnt that way shows in Task.CPUTime and SpinTime, but
// spinners do not occupy one of the World's virtual CPUs).
//
// The zero Mutex is not usable; create one with World.NewMutex.
type Mutex struct {
	w    *World
	name string
	real sync.Mutex

	// Guarded by mu (its own, so that direct tasks on different goroutines
	// taking different Mutexes share no lock; lock order: mu, then w.mu).
	mu         sync.Mutex
	spin       bool
	owner      *Task
	acquiredAt Time
	freeAt     Time // when the last holder released it
	waiters    waitQueue
	acquires   int64
	contended  int64
	holds      Histogram
	waits      Histogram
	holdMaxBy  *Task
	holdMaxAt  Time
	spinners   occupancy // spinning waiters over time

	// SetPrivate: under Options.Coarse, the one task that takes m takes it
	// without yielding first; another task makes it shared. soloAt is the
	// latest such taking.
	private bool
	solo    *Task
	soloAt  Time
}

type mutexWaiter struct {
	t     *Task
	since Time
}

// waitQueue is a FIFO of waiters that reuses its array: popped slots are
// reclaimed by moving the waiters down when the array is full, rather than
// by growing a new one, as appending to a slice popped from the front does.
type waitQueue struct {
	q    []mutexWaiter
	head int
}

func (wq *waitQueue) len() int { return len(wq.q) - wq.head }

func (wq *waitQueue) push(w mutexWaiter) {
	if wq.head > 0 && len(wq.q) == cap(wq.q) {
		n := copy(wq.q, wq.q[wq.head:])
		clear(wq.q[n:])
		wq.q, wq.head = wq.q[:n], 0
	}
	wq.q = append(wq.q, w)
}

func (wq *waitQueue) pop() mutexWaiter {
	w := wq.q[wq.head]
	wq.q[wq.head] = mutexWaiter{}
	if wq.head++; wq.head == len(wq.q) {
		wq.q, wq.head = wq.q[:0], 0
	}
	return w
}

// NewMutex returns an unlocked Mutex named name (the name appears in stats
// and traces, e.g. "RTNL").
func (w *World) NewMutex(name string) *Mutex { return &Mutex{w: w, name: name} }

// Name returns the mutex's name.
func (m *Mutex) Name() string { return m.name }

// SetSpin chooses whether waiters spin (true) or sleep (false, the default).
// Each spinning waiter is charged its whole wait as CPU time (Task.SpinTime);
// LockStats.SpinCPU is what the machine burnt: at any moment no more
// spinners than there are CPUs left idle by charged work.
func (m *Mutex) SetSpin(spin bool) {
	m.mu.Lock()
	m.spin = spin
	m.mu.Unlock()
	m.w.mu.Lock()
	if spin && m.w.busy == nil {
		m.w.busy = &occupancy{} // from now on, record when CPUs work
	}
	m.w.mu.Unlock()
}

// Lock acquires m for task t, waiting in virtual time (and, for direct tasks
// of other goroutines, in real time) while another task holds it.
//
// Kernel: mutex_lock (kernel/locking/mutex.c).
func (m *Mutex) Lock(t *Task) {
	defer t.Frame("mutex_lock")()
	if t.inline {
		m.lockInKernelThread(t)
	}
	w := m.w
	t.count(LockAcquire, 1)
	if !t.sched {
		m.real.Lock()
		m.mu.Lock()
		start := maxTime(t.now, m.freeAt)
		m.grantLocked(t, t.now, start)
		m.mu.Unlock()
		if start > t.now {
			t.now = start
			t.w.runDue(t)
		}
		t.held++
		return
	}
	solo := false
	if w.coarse {
		m.mu.Lock()
		solo = m.private && (m.solo == nil || m.solo == t)
		if !solo {
			m.private = false
		}
		m.mu.Unlock()
		if !solo {
			// Let every earlier task reach its own Lock first. If m is
			// still held when t's turn comes, the scheduler queues t on m
			// without resuming it (enqueueWanted); t resumes as the owner.
			t.lockWant = m
			t.yield()
			t.lockWant = nil
			m.mu.Lock()
			granted := m.owner == t
			m.mu.Unlock()
			if granted {
				m.real.Lock()
				t.held++
				return
			}
		}
	}
	m.mu.Lock()
	if w.coarse && !solo && m.solo != nil && m.soloAt > t.now {
		m.mu.Unlock()
		m.coarseOrderBroken(t)
	}
	if m.owner == nil {
		start := maxTime(t.now, m.freeAt)
		since := t.now
		t.now = start
		m.grantLocked(t, since, start)
		if solo {
			m.solo, m.soloAt = t, start
		}
		m.mu.Unlock()
		m.real.Lock()
		t.held++
		if start > since {
			t.yield()
		}
		return
	}
	m.waiters.push(mutexWaiter{t: t, since: t.now})
	m.mu.Unlock()
	t.park() // until Unlock hands m to t
	m.real.Lock()
	t.held++
}

// enqueueWanted queues t, which yielded on its way into Lock(m) and is now
// the earliest task, as a waiter if m is held, and reports whether it did:
// what t would do itself on resuming, without resuming it.
func (m *Mutex) enqueueWanted(t *Task) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.owner == nil || m.owner == t || m.solo != nil && m.soloAt > t.now {
		return false
	}
	m.waiters.push(mutexWaiter{t: t, since: t.now})
	t.lockWant = nil
	return true
}

// grantLocked records that t, which asked at since, owns m from start.
func (m *Mutex) grantLocked(t *Task, since, start Time) {
	wait := start.Sub(since)
	m.owner = t
	m.acquiredAt = start
	m.acquires++
	m.waits.Record(wait)
	if wait > 0 {
		m.contended++
		t.count(LockContended, 1)
		t.lockWait += wait
		if t.frame != nil {
			t.profWait(wait)
			if m.spin {
				t.profCPU(wait)
			}
		}
		if m.spin {
			t.cpu += wait
			t.spin += wait
			m.spinners.add(since, start)
		}
		if t.w.tracer != nil {
			m.traceWait(t, since, wait)
		}
	}
}

// Unlock releases m, which t must hold, and hands it to the first waiter.
// A task that does not hold m panics with an *Error of kind ErrNotOwner.
//
// Kernel: mutex_unlock (kernel/locking/mutex.c).
func (m *Mutex) Unlock(t *Task) {
	w := m.w
	m.mu.Lock()
	if m.owner != t {
		owner := m.owner
		m.mu.Unlock()
		m.notOwner(t, owner)
	}
	hold := t.now.Sub(m.acquiredAt)
	m.holds.Record(hold)
	if hold >= m.holds.Max() {
		m.holdMaxBy, m.holdMaxAt = t, m.acquiredAt
	}
	if t.w.tracer != nil {
		m.traceHold(t, hold)
	}
	m.freeAt = maxTime(m.freeAt, t.now)
	m.owner = nil
	t.held--
	var next *Task
	if m.waiters.len() > 0 {
		wt := m.waiters.pop()
		next = wt.t
		start := maxTime(next.now, t.now)
		next.now = start
		m.grantLocked(next, wt.since, start)
	}
	m.real.Unlock()
	if next != nil {
		w.mu.Lock()
		w.sched.runq.push(next)
		w.mu.Unlock()
	}
	m.mu.Unlock()
	if t.sched && next != nil {
		t.yield()
	}
}

// The rare paths of Lock, Unlock and grantLocked are functions of their
// own, kept out of line: a task waiting for a Mutex keeps Lock's (or
// Unlock's) frame on its stack, and under a contended lock thousands of
// tasks take turns, each turn fetching its stack into the CPU's caches
// again, so that every byte of those frames costs time.

//go:noinline
func (m *Mutex) lockInKernelThread(t *Task) { t.mustBlock("mutex_lock " + m.name) }

//go:noinline
func (m *Mutex) coarseOrderBroken(t *Task) {
	panic(errorf(ErrCoarseOrder, "sim: coarse schedule broken: %s took %s alone at %v, after %s asks for it at %v",
		m.solo, m.name, m.soloAt, t, t.now))
}

//go:noinline
func (m *Mutex) notOwner(t, owner *Task) {
	if owner == nil {
		panic(errorf(ErrNotOwner, "sim: %s unlocks %s, which no task holds", t, m.name))
	}
	panic(errorf(ErrNotOwner, "sim: %s unlocks %s held by %v", t, m.name, owner))
}

//go:noinline
func (m *Mutex) traceWait(t *Task, since Time, wait time.Duration) {
	t.trace(Event{Name: m.name, Cat: "lockwait", Start: since, Dur: wait})
}

//go:noinline
func (m *Mutex) traceHold(t *Task, hold time.Duration) {
	t.trace(Event{Name: m.name, Cat: "lock", Start: m.acquiredAt, Dur: hold})
}

// SetPrivate declares m a lock that one task alone takes (a namespace's or
// a process's own lock). Under Options.Coarse that task then takes it
// without first yielding to earlier tasks, as no other request can come
// before it. When a second task takes m, m is shared from then on; if that
// task asks at an earlier virtual time than the first last took m, the
// order has been broken and Run panics. Without Coarse it changes nothing.
func (m *Mutex) SetPrivate() {
	m.mu.Lock()
	m.private = m.solo == nil
	m.mu.Unlock()
}

// HeldBy reports whether t holds m.
func (m *Mutex) HeldBy(t *Task) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.owner == t
}

// Stats returns the mutex's usage statistics so far.
func (m *Mutex) Stats() LockStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.w.mu.Lock()
	defer m.w.mu.Unlock()
	return LockStats{
		Name:      m.name,
		Acquires:  m.acquires,
		Contended: m.contended,
		HoldTotal: m.holds.Sum(),
		HoldMax:   m.holds.Max(),
		HoldMaxBy: m.holdMaxBy.String(),
		HoldMaxAt: m.holdMaxAt,
		HoldP50:   m.holds.Percentile(0.50),
		HoldP99:   m.holds.Percentile(0.99),
		WaitTotal: m.waits.Sum(),
		WaitMax:   m.waits.Max(),
		WaitP50:   m.waits.Percentile(0.50),
		WaitP99:   m.waits.Percentile(0.99),
		SpinCPU:   m.spinners.total(m.w.ncpu, m.w.busy),
	}
}
