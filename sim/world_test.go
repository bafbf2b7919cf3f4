package sim_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

func TestNewWorldRejectsBadOptions(t *testing.T) {
	_, err := sim.NewWorld(sim.Options{CPUs: -1})
	require.ErrorIs(t, err, syscall.EINVAL)
	require.ErrorContains(t, err, "negative number of virtual CPUs")

	c := sim.DefaultCosts
	c.GracePeriod = -time.Millisecond
	_, err = sim.NewWorld(sim.Options{Costs: &c})
	require.ErrorIs(t, err, syscall.EINVAL)
	require.ErrorContains(t, err, "cost GracePeriod is negative")

	w, err := sim.NewWorld(sim.Options{})
	require.NoError(t, err)
	require.Equal(t, 1, w.CPUs())
	require.Equal(t, sim.DefaultCosts, w.Costs())
	require.Panics(t, func() { sim.MustNewWorld(sim.Options{CPUs: -3}) })
}

// TestChargeAllEqualsCharges: ChargeAll gives the times, counters and event
// order of the same Charge calls one after the other, for a direct task
// (one step) and for tasks under Run (one Charge each).
func TestChargeAllEqualsCharges(t *testing.T) {
	work := []sim.Work{{Kind: sim.TrieNodeVisit, N: 7}, {Kind: sim.TrieLeafVisit, N: 0}, {Kind: sim.FibAliasScan, N: 3}, {Kind: sim.Syscall, N: 2}}
	type result struct {
		now      sim.Time
		cpu      time.Duration
		counters sim.Counters
		fired    []sim.Time
	}
	run := func(all, scheduled bool) result {
		c := sim.DefaultCosts
		// An RCU callback falls due in the middle of the second ChargeAll.
		c.GracePeriod = (7*c.PerUnit(sim.TrieNodeVisit) + 3*c.PerUnit(sim.FibAliasScan) + 2*c.PerUnit(sim.Syscall)) * 3 / 2
		c.RCUTick = 0 // it runs at the end of its grace period, not at a tick
		w := sim.MustNewWorld(sim.Options{CPUs: 2, Costs: &c})
		var r result
		body := func(tk *sim.Task) {
			w.RCU().Call(tk, func(k *sim.Task) { r.fired = append(r.fired, k.Now()) })
			for range 3 {
				if all {
					tk.ChargeAll(work...)
				} else {
					for _, wk := range work {
						tk.Charge(wk.Kind, wk.N)
					}
				}
			}
			r.now, r.cpu = tk.Now(), tk.CPUTime()
		}
		if scheduled {
			w.Spawn("a", body)
			w.Spawn("b", func(tk *sim.Task) { tk.Charge(sim.Syscall, 5) })
			w.Run()
		} else {
			body(w.NewTask("a"))
		}
		r.counters = w.Counters()
		return r
	}
	// A scheduled task's ChargeAll is a loop of Charge calls, so only the
	// direct task's summed step is compared; the scheduled run checks
	// the counters and events.
	for _, scheduled := range []bool{false, true} {
		got := run(true, scheduled)
		if !scheduled {
			require.Equal(t, run(false, scheduled), got)
		}
		require.Equal(t, int64(21), got.counters.Get(sim.TrieNodeVisit))
		require.NotEmpty(t, got.fired)
	}
	var nilTask *sim.Task
	require.NotPanics(t, func() { nilTask.ChargeAll(work...) })
}
