package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/sim"
)

// TestFitPlateaus: a curve that is the capacity model of a Memory gives
// back that Memory's latencies.
func TestFitPlateaus(t *testing.T) {
	want := sim.Memory{
		L1: 32 << 10, L2: 1 << 20, L3: 32 << 20,
		L1Hit: 1 * sim.Nanosecond, L2Hit: 4 * sim.Nanosecond, L3Hit: 14 * sim.Nanosecond, DRAM: 95 * sim.Nanosecond,
	}
	var pts []point
	for _, ws := range sizes(16<<10, 1<<30) {
		pts = append(pts, point{ws, want.LoadNS(ws)})
	}
	caps := sim.Memory{L1: want.L1, L2: want.L2, L3: want.L3}
	got, exact, used := fitPlateaus(caps, pts)
	require.Equal(t, want, got)
	require.InDeltaSlice(t, []float64{1, 4, 14, 95}, exact[:], 1e-6)
	for _, u := range used {
		require.Contains(t, u, "median over working sets")
	}
	// No point inside a level: its latency stays unmeasured, and says so.
	_, _, used = fitPlateaus(caps, pts[:3])
	require.Equal(t, "no working set inside the level: the previous estimate kept", used[3])
}

// TestSizes: powers of two and their midpoints, within the bounds.
func TestSizes(t *testing.T) {
	require.Equal(t, []int64{16 << 10, 24 << 10, 32 << 10, 48 << 10, 64 << 10}, sizes(16<<10, 64<<10))
}

func TestParseSize(t *testing.T) {
	for s, n := range map[string]int64{"32K": 32 << 10, "1024K": 1 << 20, "1G": 1 << 30, "4096": 4096} {
		got, err := parseSize(s)
		require.NoError(t, err)
		require.Equal(t, n, got)
	}
	for _, s := range []string{"", "K", "-1M", "x"} {
		_, err := parseSize(s)
		require.Error(t, err, s)
	}
}

// TestFitCapacities: a curve made by the model with smaller caches than
// the ones given is fitted back to those caches.
func TestFitCapacities(t *testing.T) {
	truth := sim.Memory{
		L1: 32 << 10, L2: 512 << 10, L3: 8 << 20,
		L1Hit: 1 * sim.Nanosecond, L2Hit: 4 * sim.Nanosecond, L3Hit: 15 * sim.Nanosecond, DRAM: 150 * sim.Nanosecond,
	}
	var pts []point
	for _, ws := range sizes(16<<10, 1<<30) {
		pts = append(pts, point{ws, truth.LoadNS(ws)})
	}
	given := truth
	given.L2, given.L3 = 1<<20, 32<<20
	got := fitCapacities(given, pts)
	require.Equal(t, truth.L2, got.L2)
	require.Equal(t, truth.L3, got.L3)
}
