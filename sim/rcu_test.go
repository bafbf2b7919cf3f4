package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

const ms = time.Millisecond

func TestCallbackRunsAfterGracePeriod(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{Costs: testCosts()})
	task := w.NewTask("t")
	var ran []sim.Time
	w.RCU().Call(task, func(k *sim.Task) { ran = append(ran, k.Now()) }) // GP [0,10)
	task.Sleep(4 * ms)
	w.RCU().Call(task, func(k *sim.Task) { ran = append(ran, k.Now()) }) // needs GP [10,20)
	task.Sleep(4 * ms)
	w.RCU().Call(task, func(k *sim.Task) { ran = append(ran, k.Now()) }) // shares [10,20)
	task.Sleep(30 * ms)
	w.RCU().Call(task, func(k *sim.Task) { ran = append(ran, k.Now()) }) // idle: [38,48)
	require.Equal(t, 3, len(ran))
	w.Settle()
	require.Equal(t, []sim.Time{sim.Time(10 * ms), sim.Time(20 * ms), sim.Time(20 * ms), sim.Time(48 * ms)}, ran)
	require.EqualValues(t, 4, w.Counters().Get(sim.RCUCallback))
	require.EqualValues(t, 3, w.Counters().Get(sim.GracePeriod))
}

func TestSynchronizeWaitsForNewGracePeriod(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{Costs: testCosts()})
	task := w.NewTask("t")
	w.RCU().Synchronize(task)
	require.Equal(t, sim.Time(10*ms), task.Now())
	w.RCU().SynchronizeExpedited(task)
	require.Equal(t, sim.Time(11*ms), task.Now())
}

func TestBarrierDoesNotWaitForChainedCallbacks(t *testing.T) {
	// Seed 002's chain: the first callback queues the second, which drops
	// the last reference. The barrier returns after the first only.
	for _, scheduled := range []bool{false, true} {
		w := sim.MustNewWorld(sim.Options{Costs: testCosts()})
		refs := 2
		body := func(task *sim.Task) {
			w.RCU().Call(task, func(k *sim.Task) { // aca_free_rcu
				w.RCU().Call(k, func(*sim.Task) { refs-- }) // fib6_info_destroy_rcu -> dev_put
			})
			w.RCU().Barrier(task)
			require.Equal(t, sim.Time(10*ms), task.Now())
			require.Equal(t, 2, refs, "barrier must not wait for the chained callback")
			polls := 0
			for refs != 1 {
				task.Msleep(1)
				polls++
			}
			require.Equal(t, sim.Time(20*ms), task.Now())
			require.Equal(t, 5, polls) // 2 ms per msleep(1) at HZ=1000
		}
		if scheduled {
			w.Spawn("ip", body)
			w.Run()
		} else {
			body(w.NewTask("ip"))
		}
		require.EqualValues(t, 1, w.Counters().Get(sim.RCUBarrier))
	}
}

func TestBarrierWithNothingQueuedIsCheap(t *testing.T) {
	c := *testCosts()
	c.BarrierOverhead = 50 * time.Microsecond
	w := sim.MustNewWorld(sim.Options{Costs: &c})
	task := w.NewTask("t")
	w.RCU().Barrier(task)
	require.Equal(t, sim.Time(50*time.Microsecond), task.Now())
}

func TestConcurrentBarriersAreShared(t *testing.T) {
	// K tasks queue a callback and call rcu_barrier at the same instant. The
	// first runs a barrier; all the others arrived while it ran, so they
	// need the next one: exactly one more barrier runs and the rest share it.
	const K = 10
	w := sim.MustNewWorld(sim.Options{CPUs: K, Costs: testCosts()})
	var ends []sim.Time
	for i := range K {
		w.Spawn(fmt.Sprint("del", i), func(t *sim.Task) {
			w.RCU().Call(t, func(*sim.Task) {})
			w.RCU().Barrier(t)
			ends = append(ends, t.Now())
		})
	}
	w.Run()
	c := w.Counters()
	require.EqualValues(t, 2, c.Get(sim.RCUBarrier))
	require.EqualValues(t, K-2, c.Get(sim.RCUBarrierShared))
	require.Equal(t, sim.Time(10*ms), ends[0])
	for _, e := range ends[1:] {
		require.Equal(t, sim.Time(10*ms), e, "the second barrier has nothing left to wait for")
	}
}

func TestBarrierCohorts(t *testing.T) {
	// Tasks arriving while a barrier runs wait for the next one, between B
	// and 2B: a closed loop of K tasks runs far fewer barriers than calls.
	const K, N = 10, 20
	w := sim.MustNewWorld(sim.Options{CPUs: K, Costs: testCosts()})
	for i := range K {
		w.Spawn(fmt.Sprint("del", i), func(t *sim.Task) {
			t.Sleep(time.Duration(i) * ms)
			for range N {
				w.RCU().Call(t, func(*sim.Task) {})
				w.RCU().Barrier(t)
				t.Sleep(time.Millisecond)
			}
		})
	}
	w.Run()
	c := w.Counters()
	require.EqualValues(t, K*N, c.Get(sim.RCUBarrier)+c.Get(sim.RCUBarrierShared))
	require.Less(t, c.Get(sim.RCUBarrier), int64(K*N/3))
}
