package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/sim"
)

func tickCosts() *sim.Costs {
	c := *testCosts()
	c.GracePeriod = 10500 * time.Microsecond
	c.RCUTick = 4 * ms
	return &c
}

func TestTickCallbackGetsAGracePeriodAtTheNextTick(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{Costs: tickCosts()})
	task := w.NewTask("t")
	var ran []sim.Time
	record := func(k *sim.Task) { ran = append(ran, k.Now()) }
	task.Sleep(1 * ms)
	w.RCU().Call(task, record) // asked for at 4 ms: grace period [4, 14.5), runs at the 16 ms tick
	task.Sleep(2 * ms)         // 3 ms: given the same one at the same tick
	w.RCU().Call(task, record)
	task.Sleep(2 * ms) // 5 ms: given one at 8 ms, while [4, 14.5) runs: the next, asked for at 16, from 20
	w.RCU().Call(task, record)
	w.RCU().Barrier(task)
	require.Equal(t, []sim.Time{sim.Time(16 * ms), sim.Time(16 * ms), sim.Time(32 * ms)}, ran)
	require.Equal(t, sim.Time(32*ms), task.Now())
	require.EqualValues(t, 2, w.Counters().Get(sim.GracePeriod))
}

func TestTickCallbackAfterTheRequestWaitsForTheNext(t *testing.T) {
	// A grace period asked for at the tick that notices the end of the one
	// before starts a tick later; a callback given a grace period at that
	// later tick does not join it.
	w := sim.MustNewWorld(sim.Options{Costs: tickCosts()})
	task := w.NewTask("t")
	var ran []sim.Time
	record := func(k *sim.Task) { ran = append(ran, k.Now()) }
	task.Sleep(1 * ms)
	w.RCU().Call(task, record) // [4, 14.5), runs at 16
	task.Sleep(5 * ms)         // 6 ms: given one at 8, while it runs: asked for at 16, [20, 30.5), runs at 32
	w.RCU().Call(task, record)
	task.Sleep(11 * ms) // 17 ms: given one at 20, asked for before: the one after, asked for at 32, [36, 46.5)
	w.RCU().Call(task, record)
	w.RCU().Barrier(task)
	require.Equal(t, []sim.Time{sim.Time(16 * ms), sim.Time(32 * ms), sim.Time(48 * ms)}, ran)
	require.EqualValues(t, 3, w.Counters().Get(sim.GracePeriod))
}

func TestTickOneByOneTakesFourTicks(t *testing.T) {
	// One deleter: callbacks, then rcu_barrier, over and over. Each round
	// waits for one grace period asked for at the tick after the callbacks,
	// and for the tick after it ends that runs them: four ticks, with one
	// grace period a round (the VM: 15-17 ms and one grace period a
	// deletion, rcubarrier.sh -n 200).
	const N = 20
	w := sim.MustNewWorld(sim.Options{Costs: tickCosts()})
	task := w.NewTask("ip")
	var rounds []time.Duration
	for range N {
		start := task.Now()
		task.Sleep(500 * time.Microsecond) // the deletion under RTNL
		w.RCU().Call(task, func(*sim.Task) {})
		w.RCU().Barrier(task)
		rounds = append(rounds, task.Now().Sub(start))
	}
	for _, r := range rounds[1:] {
		require.Equal(t, 16*ms, r)
	}
	require.EqualValues(t, N, w.Counters().Get(sim.GracePeriod))
}

func TestTickTenDeletersShareBarriersOneGracePeriodEach(t *testing.T) {
	// Ten deleters at once: they share barriers, and each barrier that runs
	// waits four ticks for a grace period of its own — the callbacks of the
	// deletions made while the barrier before it ran do not join it (the VM:
	// 102 barriers for 500 deletions, 15.7 ms each, rcubarrier.sh -n 500 -p 10).
	const K, N = 10, 20
	w := sim.MustNewWorld(sim.Options{CPUs: 2, Costs: tickCosts()})
	rtnl := w.NewMutex("rtnl")
	for i := range K {
		w.Spawn(fmt.Sprint("ip", i), func(t *sim.Task) {
			for range N {
				rtnl.Lock(t)
				t.Charge(sim.Syscall, 1) // the deletion: 1 ms
				w.RCU().Call(t, func(*sim.Task) {})
				rtnl.Unlock(t)
				w.RCU().Barrier(t)
			}
		})
	}
	end := w.Run()
	c := w.Counters()
	barriers := c.Get(sim.RCUBarrier)
	require.EqualValues(t, K*N, barriers+c.Get(sim.RCUBarrierShared))
	require.Less(t, barriers, int64(K*N/3), "barriers are shared")
	require.EqualValues(t, barriers, c.Get(sim.GracePeriod), "one grace period a barrier")
	perBarrier := time.Duration(end) / time.Duration(barriers)
	require.InDelta(t, float64(16*ms), float64(perBarrier), float64(ms), "four ticks a barrier, not one grace period")
}

// distCosts is tickCosts with a distribution of grace-period lengths: per
// mille, 800 of two ticks, 120 of three, 40 of four, 30 of five and 10 of
// six; 2.33 ticks on average.
func distCosts() *sim.Costs {
	c := *tickCosts()
	c.GracePeriodTicks2, c.GracePeriodTicks3, c.GracePeriodTicks4, c.GracePeriodTicks5, c.GracePeriodTicks6 = 800, 120, 40, 30, 10
	c.GracePeriodPastTick = 25 * time.Microsecond
	return &c
}

// gracePeriods returns the lengths of n grace periods one after another,
// each waited for by synchronize_rcu from a task with none running.
func gracePeriods(c *sim.Costs, seed uint64, n int) []time.Duration {
	w := sim.MustNewWorld(sim.Options{Costs: c, Seed: seed})
	task := w.NewTask("t")
	var out []time.Duration
	for range n {
		start := task.Now()
		w.RCU().Synchronize(task)
		out = append(out, task.Now().Sub(start))
	}
	return out
}

func TestGracePeriodLengthsFollowTheDistribution(t *testing.T) {
	// Every length is whole ticks plus GracePeriodPastTick, and the shares
	// of 1000 grace periods are the profile's per mille to within two.
	const N = 1000
	c := distCosts()
	count := map[int]int{}
	var total time.Duration
	for _, d := range gracePeriods(c, 1, N) {
		k := (d - c.GracePeriodPastTick) / c.RCUTick
		require.Equal(t, d, k*c.RCUTick+c.GracePeriodPastTick, "on the tick grid")
		count[int(k)]++
		total += d
	}
	want := map[int]sim.PerMille{2: c.GracePeriodTicks2, 3: c.GracePeriodTicks3, 4: c.GracePeriodTicks4, 5: c.GracePeriodTicks5, 6: c.GracePeriodTicks6}
	require.Len(t, count, len(want))
	for k, w := range want {
		require.InDelta(t, int64(w), count[k], 2, "grace periods of %d ticks", k)
	}
	mean := total / N
	require.InDelta(t, float64(2330*time.Microsecond*4+25*time.Microsecond), float64(mean), float64(20*time.Microsecond), "2.33 ticks and the clean-up")
}

func TestGracePeriodSequenceIsTheSameOnEveryRun(t *testing.T) {
	// The sequence is the World's: the same seed draws the same lengths,
	// another seed other ones with the same distribution.
	c := distCosts()
	a, b := gracePeriods(c, 7, 200), gracePeriods(c, 7, 200)
	require.Equal(t, a, b)
	other := gracePeriods(c, 8, 200)
	require.NotEqual(t, a, other)
	sum := func(v []time.Duration) (s time.Duration) {
		for _, d := range v {
			s += d
		}
		return s
	}
	require.InDelta(t, float64(sum(a)), float64(sum(other)), float64(10*c.RCUTick), "the same mean to within a twentieth of a tick")
}

func TestGracePeriodDistributionNeedsTheTick(t *testing.T) {
	// Without RCUTick the distribution is not used: every grace period
	// lasts GracePeriod, as without it.
	c := distCosts()
	c.RCUTick = 0
	for _, d := range gracePeriods(c, 1, 50) {
		require.Equal(t, c.GracePeriod, d)
	}
}

func TestTickOneByOneWaitsForItsGracePeriodsTicks(t *testing.T) {
	// One deleter: each round is its grace period's ticks and two more (the
	// tick that asks for it and the one that notices its end), so the
	// rounds' mean is 4.33 ticks, not the four of a fixed grace period.
	const N = 400
	w := sim.MustNewWorld(sim.Options{Costs: distCosts()})
	task := w.NewTask("ip")
	var total time.Duration
	task.Sleep(500 * time.Microsecond)
	w.RCU().Call(task, func(*sim.Task) {})
	w.RCU().Barrier(task)
	for range N {
		start := task.Now()
		task.Sleep(500 * time.Microsecond) // the deletion under RTNL
		w.RCU().Call(task, func(*sim.Task) {})
		w.RCU().Barrier(task)
		r := task.Now().Sub(start)
		require.Zero(t, r%(4*ms), "a round ends at a tick")
		require.GreaterOrEqual(t, r, 16*ms)
		require.LessOrEqual(t, r, 32*ms)
		total += r
	}
	require.InDelta(t, 4.33*float64(4*ms), float64(total/N), float64(40*time.Microsecond))
	require.EqualValues(t, N+1, w.Counters().Get(sim.GracePeriod))
}
