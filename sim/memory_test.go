package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/sim"
)

var testMemory = sim.Memory{
	L1: 32 << 10, L2: 1 << 20, L3: 32 << 20,
	L1Hit: 1 * sim.Nanosecond, L2Hit: 4 * sim.Nanosecond, L3Hit: 15 * sim.Nanosecond, DRAM: 100 * sim.Nanosecond,
}

// TestLoadNS: a working set served by one level costs that level's
// latency; one between two levels the capacity-weighted mean.
func TestLoadNS(t *testing.T) {
	m := testMemory
	require.InDelta(t, 1, m.LoadNS(16<<10), 1e-9)
	require.InDelta(t, 1, m.LoadNS(0), 1e-9)
	// 2 MB: L1 holds 1/64, L2 1/2, L3 the rest.
	require.InDelta(t, 1.0/64*1+(0.5-1.0/64)*4+0.5*15, m.LoadNS(2<<20), 1e-9)
	// 64 MB: half in DRAM.
	require.InDelta(t, 1.0/2048*1+(1.0/64-1.0/2048)*4+(0.5-1.0/64)*15+0.5*100, m.LoadNS(64<<20), 1e-9)
	require.Less(t, m.LoadNS(1<<40), 100.0)
	require.Greater(t, m.LoadNS(1<<40), 99.9)
	require.Zero(t, m.StallNS(1<<20))
	require.InDelta(t, m.LoadNS(64<<20)-m.LoadNS(1<<20), m.StallNS(64<<20), 1e-9)
	var zero sim.Memory
	require.Zero(t, zero.LoadNS(1<<30))
}

// TestChargeIn: work with a footprint costs its per-unit cost plus the
// stall of its loads, and counts the stall apart.
func TestChargeIn(t *testing.T) {
	c := sim.DefaultCosts
	c.Memory = testMemory
	w := sim.MustNewWorld(sim.Options{Costs: &c})
	tk := w.NewTask("walk")
	fp := sim.Footprint{Bytes: 64 << 20, Loads: 2}
	tk.ChargeIn(sim.Fib6Visit, 1000, fp)
	stall := 1000 * 2 * c.Memory.StallNS(64<<20)
	require.Equal(t, int64(1000), tk.Counters().Get(sim.Fib6Visit))
	require.Equal(t, int64(stall+0.5), tk.Counters().Get(sim.MemStallNS))
	require.Equal(t, 1000*c.Fib6Visit+time.Duration(int64(stall+0.5)), tk.CPUTime())

	// Within L2 it is Charge.
	tk2 := w.NewTask("small")
	tk2.ChargeIn(sim.Fib6Visit, 1000, sim.Footprint{Bytes: 512 << 10, Loads: 2})
	require.Equal(t, 1000*c.Fib6Visit, tk2.CPUTime())
	require.Zero(t, tk2.Counters().Get(sim.MemStallNS))

	bad := sim.DefaultCosts
	bad.Memory.DRAM = -1
	_, err := sim.NewWorld(sim.Options{Costs: &bad})
	require.ErrorContains(t, err, "cost Memory.DRAM is negative")
}

func TestLatency(t *testing.T) {
	for _, c := range []struct {
		in   string
		want sim.Latency
		out  string
	}{
		{"4.86ns", 4860 * sim.Picosecond, "4.86ns"},
		{"179ns", 179 * sim.Nanosecond, "179ns"},
		{"1.2µs", 1200 * sim.Nanosecond, "1200ns"},
		{"1.2us", 1200 * sim.Nanosecond, "1200ns"},
		{"0.0014ns", 1 * sim.Picosecond, "0.001ns"},
		{"0", 0, "0"},
	} {
		l, err := sim.ParseLatency(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, l, c.in)
		require.Equal(t, c.out, l.String(), c.in)
		back, err := sim.ParseLatency(l.String())
		require.NoError(t, err)
		require.Equal(t, l, back, "String reads back")
	}
	for _, bad := range []string{"", "ns", "5", "5ms", "-1ns", "NaNns", "Infns", "1e3ns", "0x10ns", "1e300µs"} {
		_, err := sim.ParseLatency(bad)
		require.Error(t, err, bad)
	}
	require.InDelta(t, 4.86, (4860 * sim.Picosecond).NS(), 1e-12)
}
