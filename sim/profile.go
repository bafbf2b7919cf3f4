// Virtual-time profiles: each task's modelled kernel call stack (the
// kernel functions its work runs in, pushed with Task.Frame) and the CPU
// time, counted work and waiting charged under each stack, gathered by a
// Profiler across Worlds. Package sim/vtprof writes them as pprof profiles.

package sim

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// Profiler gathers the virtual-time profile of one or more Worlds: for
// every modelled call stack, the virtual CPU time, waiting time and counted
// work its tasks charged in it. A World records into a Profiler when it is
// given one (Options.Profiler, or a Tracer from Profiler.Attach); without
// one, Task.Frame does nothing and a charge costs one more branch.
//
// A Profiler is safe for concurrent use by Worlds that run at the same time;
// read it (Stacks) once they have finished.
type Profiler struct {
	mu    sync.Mutex
	roots []*frameNode // one per task, in creation order
}

// NewProfiler returns an empty Profiler.
func NewProfiler() *Profiler { return &Profiler{} }

// StackValues is what a profile holds for one call stack: the virtual CPU
// time charged in it (work and spinning on Mutexes), the time waited in it
// (sleeps, RCU waits, Mutex waits, waits for a virtual CPU) and the work
// counted in it.
type StackValues struct {
	CPU      time.Duration
	Wait     time.Duration
	Counters Counters
}

// ProfileStack is one call stack of a profile with its values.
type ProfileStack struct {
	// Run names the World the stack's tasks ran in: the name given to
	// Attach, or "" for Options.Profiler.
	Run string
	// Frames is the stack from the outermost frame in: the task's command
	// (its name up to the first space, as the kernel's comm), then each
	// frame pushed with Task.Frame.
	Frames []string
	StackValues
}

// frameNode is one frame of one task's call tree.
type frameNode struct {
	name   string
	run    string // on roots only
	parent *frameNode
	kids   []*frameNode
	vals   *StackValues // nil until something is charged here
}

func (n *frameNode) child(name string) *frameNode {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	k := &frameNode{name: name, parent: n}
	n.kids = append(n.kids, k)
	return k
}

func (n *frameNode) values() *StackValues {
	if n.vals == nil {
		n.vals = new(StackValues)
	}
	return n.vals
}

// register gives a new task of w its call tree's root.
func (p *Profiler) register(t *Task, run string) {
	comm, _, _ := strings.Cut(t.name, " ")
	t.frame = &frameNode{name: comm, run: run}
	t.popFrame = func() { t.frame = t.frame.parent }
	p.mu.Lock()
	p.roots = append(p.roots, t.frame)
	p.mu.Unlock()
}

// Frame pushes the kernel function name onto the task's modelled call
// stack and returns the function that pops it:
//
//	defer t.Frame("fib_table_flush")()
//
// The work, CPU time and waits the task charges until the pop are
// attributed to the stack. Without a Profiler (and on a nil Task) Frame
// does nothing.
func (t *Task) Frame(name string) (pop func()) {
	if t == nil || t.frame == nil {
		return noop
	}
	return t.push(name)
}

// push enters frame name, unless the task is in it already (a request
// handler and the subsystem function it calls may both cite one kernel
// function): a call stack shows each kernel function once in a row. It is
// kept out of line, so that the frames of the many functions that call
// Frame stay small when no Profiler runs (a task's stack is fetched into
// the CPU's caches again at each of its turns).
//
//go:noinline
func (t *Task) push(name string) func() {
	if t.frame.name == name {
		return noop
	}
	t.frame = t.frame.child(name)
	return t.popFrame
}

func (t *Task) profCPU(d time.Duration) { t.frame.values().CPU += d }

func (t *Task) profWait(d time.Duration) { t.frame.values().Wait += d }

// count adds n units of kind k to the task's and the World's counters and
// to its current stack.
func (t *Task) count(k Kind, n int64) {
	t.counters[kindSlot[k]] += n
	t.w.count(t, k, n)
	if t.frame != nil {
		t.frame.values().Counters[k] += n
	}
}

// Attach returns a Tracer that gives a World created with it (as
// Options.Tracer) this Profiler, its stacks labelled run, and passes trace
// events on to inner (nil: none, and the World does not trace). It lets
// code that takes only a Tracer be profiled.
func (p *Profiler) Attach(run string, inner Tracer) Tracer {
	return &profTracer{p: p, run: run, inner: inner}
}

type profTracer struct {
	p     *Profiler
	run   string
	inner Tracer
}

// Record implements Tracer.
func (pt *profTracer) Record(e Event) {
	if pt.inner != nil {
		pt.inner.Record(e)
	}
}

// Stacks returns every call stack something was charged in, merged across
// the tasks of a run that share a command, sorted by run and frames.
func (p *Profiler) Stacks() []ProfileStack {
	p.mu.Lock()
	roots := slices.Clone(p.roots)
	p.mu.Unlock()
	merged := make(map[string]*ProfileStack)
	var path []string
	var walk func(run string, n *frameNode)
	walk = func(run string, n *frameNode) {
		path = append(path, n.name)
		if n.vals != nil {
			key := run + "\x00" + strings.Join(path, "\x00")
			s := merged[key]
			if s == nil {
				s = &ProfileStack{Run: run, Frames: slices.Clone(path)}
				merged[key] = s
			}
			s.CPU += n.vals.CPU
			s.Wait += n.vals.Wait
			s.Counters.Add(&n.vals.Counters)
		}
		for _, k := range n.kids {
			walk(run, k)
		}
		path = path[:len(path)-1]
	}
	for _, r := range roots {
		walk(r.run, r)
	}
	out := make([]ProfileStack, 0, len(merged))
	for _, s := range merged {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b ProfileStack) int {
		if c := strings.Compare(a.Run, b.Run); c != 0 {
			return c
		}
		return slices.Compare(a.Frames, b.Frames)
	})
	return out
}
