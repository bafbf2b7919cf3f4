package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// lockBound runs n tasks that each compute outside a lock, take it, compute
// under it and release it, r times, and returns the order of acquisitions,
// the makespan and the lock's stats.
func lockBound(coarse bool, cpus, n, r int) ([]string, sim.Time, sim.LockStats) {
	w := sim.MustNewWorld(sim.Options{CPUs: cpus, Costs: testCosts(), Coarse: coarse})
	lock := w.NewMutex("RTNL")
	lock.SetSpin(true)
	var order []string
	for i := range n {
		w.Spawn(fmt.Sprint("ip", i), func(t *sim.Task) {
			for j := range r {
				t.Charge(sim.HWAddrCompare, int64(100+37*((i*7+j)%11)))
				t.Charge(sim.HWAddrCompare, 5) // a second charge before the lock
				lock.Lock(t)
				order = append(order, t.Name())
				t.Charge(sim.HWAddrCompare, int64(20+i%3))
				t.Charge(sim.HWAddrCompare, 1)
				lock.Unlock(t)
			}
		})
	}
	end := w.Run()
	return order, end, lock.Stats()
}

func TestCoarseKeepsLockOrderAndTimes(t *testing.T) {
	// With a CPU for every task, charges never wait for a CPU, so yielding
	// only at Lock must give exactly the fine-grained schedule.
	fineOrder, fineEnd, fineStats := lockBound(false, 16, 16, 50)
	order, end, stats := lockBound(true, 16, 16, 50)
	require.Equal(t, fineOrder, order)
	require.Equal(t, fineEnd, end)
	require.Equal(t, fineStats, stats)
}

func TestCoarseWithFewCPUsIsCloseAndDeterministic(t *testing.T) {
	// With more tasks than CPUs, a task books its CPU slices up to its next
	// Lock: the makespan may differ a little from the fine schedule, and
	// the run is still reproducible.
	_, fineEnd, _ := lockBound(false, 4, 32, 40)
	_, end, stats := lockBound(true, 4, 32, 40)
	_, end2, stats2 := lockBound(true, 4, 32, 40)
	require.Equal(t, end, end2)
	require.Equal(t, stats, stats2)
	require.InDelta(t, float64(fineEnd), float64(end), 0.05*float64(fineEnd))
}

func TestCoarseRunsEventsInOrder(t *testing.T) {
	// An RCU callback due in the middle of a long run of charges still runs
	// at its virtual time, before the task goes past it.
	w := sim.MustNewWorld(sim.Options{Costs: testCosts(), Coarse: true})
	var firedAt, seenAt sim.Time
	var fired bool
	w.Spawn("a", func(t *sim.Task) {
		w.RCU().Call(t, func(k *sim.Task) { fired, firedAt = true, k.Now() })
		for !fired {
			t.Charge(sim.Syscall, 1)
		}
		seenAt = t.Now()
	})
	w.Run()
	require.Equal(t, 10*time.Millisecond, time.Duration(firedAt))
	require.Equal(t, 10*time.Millisecond, time.Duration(seenAt))
}

func TestSpinCPUIsCappedByCPUs(t *testing.T) {
	// One holder keeps the lock 100 ms (sleeping); 7 tasks arrive at 1 ms
	// and spin until it is released. Each is charged its whole wait, but a
	// 2-CPU machine can spin on at most 2 CPUs at once.
	w := sim.MustNewWorld(sim.Options{CPUs: 2, Costs: testCosts()})
	lock := w.NewMutex("RTNL")
	lock.SetSpin(true)
	w.Spawn("holder", func(t *sim.Task) {
		lock.Lock(t)
		t.Sleep(100 * time.Millisecond)
		lock.Unlock(t)
	})
	var spin time.Duration
	var tasks []*sim.Task
	for i := range 7 {
		tasks = append(tasks, w.Spawn(fmt.Sprint("w", i), func(t *sim.Task) {
			t.Sleep(time.Millisecond)
			lock.Lock(t)
			lock.Unlock(t)
		}))
	}
	w.Run()
	for _, tk := range tasks {
		spin += tk.SpinTime()
	}
	require.Equal(t, 7*99*time.Millisecond, spin)
	require.Equal(t, 2*99*time.Millisecond, lock.Stats().SpinCPU)
}

func TestPrivateMutex(t *testing.T) {
	// Each task has its own lock and a shared one: the private locks give
	// the same times as without SetPrivate.
	run := func(private bool) (sim.Time, sim.LockStats) {
		w := sim.MustNewWorld(sim.Options{CPUs: 8, Costs: testCosts(), Coarse: true})
		shared := w.NewMutex("RTNL")
		for i := range 8 {
			own := w.NewMutex(fmt.Sprint("ops", i))
			if private {
				own.SetPrivate()
			}
			w.Spawn(fmt.Sprint("ip", i), func(t *sim.Task) {
				for j := range 30 {
					if j == 0 {
						shared.Lock(t)
						t.Charge(sim.HWAddrCompare, 50)
						shared.Unlock(t)
					}
					own.Lock(t)
					t.Charge(sim.HWAddrCompare, int64(10+i))
					own.Unlock(t)
					t.Charge(sim.HWAddrCompare, 7)
				}
			})
		}
		return w.Run(), shared.Stats()
	}
	end, stats := run(false)
	endP, statsP := run(true)
	require.Equal(t, end, endP)
	require.Equal(t, stats, statsP)

	// A second task asking for a private lock at an earlier time than its
	// first user took it: the run stops instead of giving a wrong order.
	w := sim.MustNewWorld(sim.Options{CPUs: 2, Costs: testCosts(), Coarse: true})
	m := w.NewMutex("ops")
	m.SetPrivate()
	w.Spawn("first", func(t *sim.Task) {
		for range 5 {
			m.Lock(t)
			t.Charge(sim.Syscall, 1)
			m.Unlock(t)
		}
	})
	w.Spawn("late", func(t *sim.Task) {
		t.Charge(sim.HWAddrCompare, 1)
		m.Lock(t)
		m.Unlock(t)
	})
	require.PanicsWithError(t, "sim: task late#3 panicked: state not recoverable: sim: coarse schedule broken: first#2 took ops alone at 0.002000s, after late#3 asks for it at 0.000001s", func() { w.Run() })
}
