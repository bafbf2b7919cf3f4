package sim_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netsimlab/netsim/sim"
)

// profiled runs two scheduled tasks that contend for a spinning Mutex,
// sleep and queue RCU callbacks, each in frames of its own, and returns
// the World and its profile's stacks.
func profiled(t *testing.T, p *sim.Profiler) *sim.World {
	t.Helper()
	w := sim.MustNewWorld(sim.Options{CPUs: 2, Costs: testCosts(), Profiler: p})
	lock := w.NewMutex("RTNL")
	lock.SetSpin(true)
	for i := range 2 {
		w.Spawn("ip worker", func(t *sim.Task) {
			defer t.Frame("rtnetlink_rcv_msg")()
			for range 3 {
				pop := t.Frame("rtnl_lock")
				lock.Lock(t)
				pop()
				func() {
					defer t.Frame("fib_table_flush")()
					defer t.Frame("fib_table_flush")() // a repeat is not pushed again
					t.Charge(sim.Syscall, int64(1+i))
				}()
				w.RCU().Call(t, func(k *sim.Task) {
					defer k.Frame("free_fib_info_rcu")()
					k.Charge(sim.HWAddrCompare, 7)
				})
				lock.Unlock(t)
				t.Msleep(2)
			}
			w.RCU().Barrier(t)
		})
	}
	w.Run()
	w.Settle()
	return w
}

func TestProfilerStacks(t *testing.T) {
	p := sim.NewProfiler()
	w := profiled(t, p)
	stacks := p.Stacks()
	byPath := make(map[string]sim.StackValues)
	var total sim.StackValues
	for _, s := range stacks {
		if s.Run != "" {
			t.Errorf("run %q for Options.Profiler", s.Run)
		}
		byPath[strings.Join(s.Frames, ";")] = s.StackValues
		total.CPU += s.CPU
		total.Wait += s.Wait
		total.Counters.Add(&s.Counters)
	}
	var cpu, wait time.Duration
	for _, task := range w.Tasks() {
		cpu += task.CPUTime()
		wait += task.SleepTime() + task.LockWaitTime() + task.CPUWaitTime()
	}
	if total.CPU != cpu || total.Wait != wait || total.Counters != w.Counters() {
		t.Errorf("profile totals cpu %v wait %v %v;\nWorld: cpu %v wait %v %v", total.CPU, total.Wait, total.Counters, cpu, wait, w.Counters())
	}
	flush := byPath["ip;rtnetlink_rcv_msg;fib_table_flush"]
	if flush.Counters[sim.Syscall] != 3*1+3*2 || flush.CPU != 9*time.Millisecond {
		t.Errorf("fib_table_flush: %+v", flush)
	}
	lockWait := byPath["ip;rtnetlink_rcv_msg;rtnl_lock;mutex_lock"]
	if lockWait.Counters[sim.LockContended] == 0 || lockWait.Wait == 0 || lockWait.CPU != lockWait.Wait {
		t.Errorf("a spinning wait for RTNL is wait and CPU under mutex_lock: %+v", lockWait)
	}
	if s := byPath["ip;rtnetlink_rcv_msg;msleep"]; s.Counters[sim.Sleep] != 6 || s.Wait < 6*2*time.Millisecond {
		t.Errorf("msleep: %+v", s)
	}
	if s := byPath["rcuc;rcu_do_batch;free_fib_info_rcu"]; s.Counters[sim.HWAddrCompare] != 6*7 {
		t.Errorf("RCU callbacks: %+v", s)
	}
	if s := byPath["rcuc;rcu_gp_kthread"]; s.Counters[sim.GracePeriod] == 0 {
		t.Errorf("grace periods: %+v", s)
	}
	if _, ok := byPath["ip;rtnetlink_rcv_msg;rcu_barrier"]; !ok {
		t.Errorf("no rcu_barrier stack in %v", slices.Collect(func(yield func(string) bool) {
			for k := range byPath {
				if !yield(k) {
					return
				}
			}
		}))
	}
}

// TestProfilerChangesNothing: the same run with and without a Profiler
// reaches the same virtual times and counters.
func TestProfilerChangesNothing(t *testing.T) {
	on, off := profiled(t, sim.NewProfiler()), profiled(t, nil)
	if on.Now() != off.Now() || on.Counters() != off.Counters() {
		t.Errorf("with a profiler: %v %v; without: %v %v", on.Now(), on.Counters(), off.Now(), off.Counters())
	}
	a, b := on.Tasks(), off.Tasks()
	for i := range a {
		if a[i].CPUTime() != b[i].CPUTime() || a[i].Now() != b[i].Now() {
			t.Errorf("task %s: %v/%v with, %v/%v without", a[i], a[i].CPUTime(), a[i].Now(), b[i].CPUTime(), b[i].Now())
		}
	}
}

// TestFrameWithoutProfiler: Frame on a nil Task or without a Profiler
// returns a function that does nothing.
func TestFrameWithoutProfiler(t *testing.T) {
	var nilTask *sim.Task
	nilTask.Frame("x")()
	w := sim.MustNewWorld(sim.Options{})
	tk := w.NewTask("ip")
	tk.Frame("x")()
	tk.Charge(sim.Syscall, 1)
	if tk.Counters()[sim.Syscall] != 1 {
		t.Error("charge lost")
	}
}

// BenchmarkChargeInFrame is the hot path a kernel function pays without a
// Profiler: a frame pushed and popped around one charge.
func BenchmarkChargeInFrame(b *testing.B) {
	w := sim.MustNewWorld(sim.Options{})
	tk := w.NewTask("ip")
	for b.Loop() {
		func() {
			defer tk.Frame("fib_table_flush")()
			tk.Charge(sim.RuleScan, 1)
		}()
	}
}

// BenchmarkCharge is one charge alone.
func BenchmarkCharge(b *testing.B) {
	w := sim.MustNewWorld(sim.Options{})
	tk := w.NewTask("ip")
	for b.Loop() {
		tk.Charge(sim.RuleScan, 1)
	}
}
