package sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// costs with round numbers so expected times are easy to compute by hand.
func testCosts() *sim.Costs {
	c := sim.Costs{
		Syscall:         1 * time.Millisecond,
		HWAddrCompare:   1 * time.Microsecond,
		GracePeriod:     10 * time.Millisecond,
		ExpeditedGP:     1 * time.Millisecond,
		BarrierOverhead: 0,
		Jiffy:           1 * time.Millisecond,
	}
	return &c
}

// mixedScenario runs K tasks that take a shared lock, compute, sleep, queue
// RCU callbacks and run barriers, and returns everything observable.
func mixedScenario(cpus int) string {
	w := sim.MustNewWorld(sim.Options{CPUs: cpus, Costs: testCosts(), Seed: 42})
	lock := w.NewMutex("RTNL")
	var out bytes.Buffer
	for i := range 8 {
		w.Spawn(fmt.Sprintf("worker%d", i), func(t *sim.Task) {
			for j := range 5 {
				lock.Lock(t)
				t.Charge(sim.Syscall, int64(1+(i+j)%3))
				w.RCU().Call(t, func(k *sim.Task) { k.Charge(sim.HWAddrCompare, 7) })
				lock.Unlock(t)
				t.Charge(sim.HWAddrCompare, int64(w.Rand().IntN(1000)))
				if j%2 == 0 {
					w.RCU().Barrier(t)
				} else {
					t.Msleep(3)
				}
			}
		})
	}
	end := w.Run()
	fmt.Fprintf(&out, "end=%v counters=%v\n", end, w.Counters())
	for _, t := range w.Tasks() {
		fmt.Fprintf(&out, "%v now=%v cpu=%v slept=%v wait=%v %v\n", t, t.Now(), t.CPUTime(), t.SleepTime(), t.LockWaitTime(), t.Counters())
	}
	fmt.Fprintf(&out, "%+v\n", lock.Stats())
	return out.String()
}

func TestRunIsDeterministic(t *testing.T) {
	for _, cpus := range []int{1, 2, 4} {
		first := mixedScenario(cpus)
		for range 3 {
			require.Equal(t, first, mixedScenario(cpus), "cpus=%d", cpus)
		}
	}
}

func TestSaturatedLockMakespanIsSumOfHolds(t *testing.T) {
	// K tasks, each taking the lock H times for a fixed hold and doing nothing
	// else: with enough CPUs the lock is the only bottleneck, so the makespan
	// equals the sum of every hold.
	const K, H = 16, 10
	w := sim.MustNewWorld(sim.Options{CPUs: K, Costs: testCosts()})
	lock := w.NewMutex("RTNL")
	for i := range K {
		w.Spawn(fmt.Sprint("t", i), func(t *sim.Task) {
			for range H {
				lock.Lock(t)
				t.Charge(sim.Syscall, int64(1+i%4)) // 1..4 ms
				lock.Unlock(t)
			}
		})
	}
	end := w.Run()
	st := lock.Stats()
	require.Equal(t, st.HoldTotal, time.Duration(end))
	var want time.Duration
	for i := range K {
		want += H * time.Duration(1+i%4) * time.Millisecond
	}
	require.Equal(t, want, st.HoldTotal)
	require.EqualValues(t, K*H, st.Acquires)
	require.Equal(t, 4*time.Millisecond, st.HoldMax)
	require.Positive(t, st.Contended)
	require.Positive(t, st.WaitTotal)
}

func TestVirtualCPUs(t *testing.T) {
	// 10 tasks each computing 5 ms on P CPUs finish at ceil(10/P)×5 ms.
	for _, p := range []int{1, 2, 3, 10, 20} {
		w := sim.MustNewWorld(sim.Options{CPUs: p, Costs: testCosts()})
		for i := range 10 {
			w.Spawn(fmt.Sprint("t", i), func(t *sim.Task) { t.Charge(sim.Syscall, 5) })
		}
		end := w.Run()
		want := time.Duration((10+p-1)/p) * 5 * time.Millisecond
		require.Equal(t, want, time.Duration(end), "P=%d", p)
	}
}

func TestSleepDoesNotUseCPU(t *testing.T) {
	// One CPU, two tasks: one sleeps 100 ms, the other computes 100 ms. They
	// overlap completely.
	w := sim.MustNewWorld(sim.Options{CPUs: 1, Costs: testCosts()})
	a := w.Spawn("sleeper", func(t *sim.Task) { t.Sleep(100 * time.Millisecond) })
	b := w.Spawn("worker", func(t *sim.Task) { t.Charge(sim.Syscall, 100) })
	require.Equal(t, 100*time.Millisecond, time.Duration(w.Run()))
	require.Equal(t, time.Duration(0), a.CPUTime())
	require.Equal(t, 100*time.Millisecond, b.CPUTime())
	require.Equal(t, 100*time.Millisecond, a.SleepTime())
}

func TestSpinningWaiterBurnsCPU(t *testing.T) {
	for _, spin := range []bool{false, true} {
		w := sim.MustNewWorld(sim.Options{CPUs: 2, Costs: testCosts()})
		lock := w.NewMutex("RTNL")
		lock.SetSpin(spin)
		w.Spawn("holder", func(t *sim.Task) {
			lock.Lock(t)
			t.Charge(sim.Syscall, 50)
			lock.Unlock(t)
		})
		waiter := w.Spawn("waiter", func(t *sim.Task) {
			t.Sleep(time.Millisecond)
			lock.Lock(t)
			lock.Unlock(t)
		})
		w.Run()
		require.Equal(t, 49*time.Millisecond, waiter.LockWaitTime())
		if spin {
			require.Equal(t, 49*time.Millisecond, waiter.CPUTime())
			require.Equal(t, 49*time.Millisecond, waiter.SpinTime())
		} else {
			require.Zero(t, waiter.CPUTime())
		}
	}
}

func TestMsleepRoundsToJiffies(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{Costs: testCosts()})
	task := w.NewTask("t")
	task.Msleep(250)
	require.Equal(t, 251*time.Millisecond, time.Duration(task.Now()))
	c := *testCosts()
	c.Jiffy = 4 * time.Millisecond // HZ=250
	w = sim.MustNewWorld(sim.Options{Costs: &c})
	task = w.NewTask("t")
	task.Msleep(250)
	require.Equal(t, 256*time.Millisecond, time.Duration(task.Now()))
	require.EqualValues(t, 1, task.Counters().Get(sim.Sleep))
}

func TestSpawnDuringRun(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{CPUs: 4, Costs: testCosts()})
	var childStart sim.Time
	w.Spawn("parent", func(t *sim.Task) {
		t.Sleep(7 * time.Millisecond)
		w.SpawnFrom(t, "child", func(c *sim.Task) {
			childStart = c.Now()
			c.Sleep(3 * time.Millisecond)
		})
		t.Sleep(time.Millisecond)
	})
	end := w.Run()
	require.Equal(t, 7*time.Millisecond, time.Duration(childStart))
	require.Equal(t, 10*time.Millisecond, time.Duration(end))
}

func TestTaskPanicIsReraisedByRun(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{})
	w.Spawn("bad", func(t *sim.Task) { panic("boom") })
	require.PanicsWithValue(t, "sim: task bad#2 panicked: boom", func() { w.Run() })
}

func TestDeadlockIsReported(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{Costs: testCosts()})
	lock := w.NewMutex("RTNL")
	w.Spawn("leaker", func(t *sim.Task) { lock.Lock(t) })
	w.Spawn("victim", func(t *sim.Task) { t.Sleep(time.Millisecond); lock.Lock(t) })
	require.Panics(t, func() { w.Run() })
}

func TestDirectTasksFromManyGoroutines(t *testing.T) {
	// Real concurrency: direct tasks on their own goroutines share a Mutex.
	// The race detector checks the library; the counts must add up.
	w := sim.MustNewWorld(sim.Options{Costs: testCosts()})
	lock := w.NewMutex("RTNL")
	shared := 0
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			task := w.NewTask(fmt.Sprint("g", i))
			for range 100 {
				lock.Lock(task)
				shared++
				task.Charge(sim.Syscall, 1)
				w.RCU().Call(task, func(*sim.Task) {})
				lock.Unlock(task)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 800, shared)
	require.EqualValues(t, 800, lock.Stats().Acquires)
	require.EqualValues(t, 800, w.Counters().Get(sim.Syscall))
	w.Settle()
	require.Zero(t, w.RCU().Pending())
	require.EqualValues(t, 800, w.Counters().Get(sim.RCUCallback))
}

func TestChromeTrace(t *testing.T) {
	tr := &sim.ChromeTrace{}
	w := sim.MustNewWorld(sim.Options{Costs: testCosts(), Tracer: tr})
	lock := w.NewMutex("RTNL")
	w.Spawn("ip", func(t *sim.Task) {
		end := t.Span("ip link del eth0")
		lock.Lock(t)
		t.Charge(sim.Syscall, 2)
		lock.Unlock(t)
		t.Msleep(250)
		end()
	})
	w.Run()
	var names []string
	for _, e := range tr.Events() {
		names = append(names, e.Cat+":"+e.Name)
	}
	require.Equal(t, []string{"lock:RTNL", "sleep:msleep(250)", "span:ip link del eth0"}, names)
	var buf bytes.Buffer
	require.NoError(t, tr.WriteJSON(&buf))
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	// The process's and the thread's name and sort index, then the
	// intervals by start, the enclosing span first.
	var names2 []string
	for _, e := range doc.TraceEvents {
		names2 = append(names2, e["name"].(string))
	}
	require.Equal(t, []string{"process_name", "process_sort_index", "thread_name", "thread_sort_index",
		"ip link del eth0", "RTNL", "msleep(250)"}, names2)
	for _, e := range doc.TraceEvents {
		if e["name"] == "msleep(250)" {
			require.InDelta(t, 2000.0, e["ts"], 1e-9) // the sleep starts after 2 ms
			require.InDelta(t, 251000.0, e["dur"], 1e-9)
		}
	}
}

func TestHistogramPercentiles(t *testing.T) {
	var h sim.Histogram
	require.Zero(t, h.Percentile(0.5))
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	require.EqualValues(t, 1000, h.Count())
	require.Equal(t, 1000*time.Microsecond, h.Max())
	require.Equal(t, 500500*time.Microsecond, h.Sum())
	for _, q := range []float64{0.5, 0.9, 0.99} {
		got := float64(h.Percentile(q)) / float64(time.Microsecond)
		require.InEpsilon(t, q*1000, got, 0.035, "q=%v", q)
	}
	require.Equal(t, h.Max(), h.Percentile(1))
	h.Record(0)
	require.Equal(t, time.Duration(0), h.Percentile(0))
}

func TestCountersSubAndString(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{Costs: testCosts()})
	task := w.NewTask("t")
	before := task.Counters()
	task.Charge(sim.HWAddrCompare, 5)
	task.Charge(sim.Syscall, 1)
	d := task.Counters().Sub(before)
	require.Equal(t, "syscalls=1 hwaddr_compares=5", d.String())
	require.Equal(t, map[string]int64{"syscalls": 1, "hwaddr_compares": 5}, d.Map())
	k, ok := sim.ParseKind("rcu_barriers")
	require.True(t, ok)
	require.Equal(t, sim.RCUBarrier, k)
	var nilTask *sim.Task
	nilTask.Charge(sim.Syscall, 1) // no-op, no panic
}
