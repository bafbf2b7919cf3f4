package scenario_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

func seed003(t *testing.T, cfg rtnl.Config, p scenario.Seed003Params) *scenario.Seed003Result {
	t.Helper()
	r, err := scenario.Seed003(cfg, p)
	require.NoError(t, err)
	return r
}

func TestSeed003Locks(t *testing.T) {
	// Before: RTNL for every rule. After: the namespace's own lock for
	// every rule, and RTNL once per namespace for IPv4 (fib_unmerge), never
	// for IPv6.
	const k, n = 8, 64
	for _, fam := range []rt.Family{rt.FamilyInet, rt.FamilyInet6} {
		b := seed003(t, rtnl.Before, scenario.Seed003Params{Netns: k, Rules: n, Family: fam})
		require.EqualValues(t, k*n, b.RTNLAcquires)
		require.EqualValues(t, 0, b.OpsLockAcquires)
		a := seed003(t, rtnl.After, scenario.Seed003Params{Netns: k, Rules: n, Family: fam})
		require.EqualValues(t, k*n, a.OpsLockAcquires)
		if fam == rt.FamilyInet {
			require.EqualValues(t, k, a.RTNLAcquires)
		} else {
			require.EqualValues(t, 0, a.RTNLAcquires)
		}
	}
}

func TestSeed003Work(t *testing.T) {
	// Each add walks every rule of its namespace (rule_exists under
	// NLM_F_EXCL): 3 default IPv4 rules (2 for IPv6) plus those added. Each
	// IPv6 add creates a table and then walks every IPv6 table (local, main
	// and those created).
	const k, n = 4, 100
	v4 := seed003(t, rtnl.After, scenario.Seed003Params{Netns: k, Rules: n, Family: rt.FamilyInet})
	c := v4.Phases[1].Counters
	require.EqualValues(t, k*(3*n+n*(n-1)/2), c.Get(sim.RuleScan))
	require.EqualValues(t, k*n, c.Get(sim.RuleChange))
	require.EqualValues(t, k*n, c.Get(sim.IPBatchLine))
	require.EqualValues(t, k, c.Get(sim.Fork))
	require.EqualValues(t, 0, c.Get(sim.Fib6TableWalk))
	v6 := seed003(t, rtnl.After, scenario.Seed003Params{Netns: k, Rules: n, Family: rt.FamilyInet6})
	c = v6.Phases[1].Counters
	require.EqualValues(t, k*(2*n+n*(n-1)/2), c.Get(sim.RuleScan))
	require.EqualValues(t, k*n, c.Get(sim.Fib6NewTable))
	require.EqualValues(t, k*(3*n+n*(n-1)/2), c.Get(sim.Fib6TableWalk))
}

func TestSeed003Scaling(t *testing.T) {
	// Before, the makespan grows linearly with the namespaces (RTNL
	// serialises every rule); after, it stays flat while K ≤ P (each job
	// has its own lock and a CPU), then grows as the CPUs fill.
	// Without the processes' start-up, which adds a constant.
	costs := scenario.Seed003Costs()
	costs.IPExec = 0
	ks := []int{16, 32, 64, 128}
	p := scenario.Seed003Params{Rules: 256, Start: scenario.AllAtOnce, Costs: &costs}
	before, err := scenario.Seed003Sweep(rtnl.Before, p, ks)
	require.NoError(t, err)
	eb, err := scenario.SweepExponent(before, 16, 128)
	require.NoError(t, err)
	require.InDelta(t, 1.0, eb, 0.1)

	// IPv4 takes RTNL once per namespace (the first rule's fib_unmerge), a
	// few µs each; IPv6 never.
	for fam, tol := range map[rt.Family]float64{rt.FamilyInet: 0.05, rt.FamilyInet6: 0.001} {
		q := p
		q.Family = fam
		after, err := scenario.Seed003Sweep(rtnl.After, q, ks)
		require.NoError(t, err)
		ea, err := scenario.SweepExponent(after, 16, 128)
		require.NoError(t, err)
		require.InDelta(t, 0.0, ea, tol, "family %d", fam)
	}

	p.CPUs = 16 // K > P: the CPUs are the bottleneck
	crowded, err := scenario.Seed003Sweep(rtnl.After, p, []int{32, 64, 128})
	require.NoError(t, err)
	ec, err := scenario.SweepExponent(crowded, 32, 128)
	require.NoError(t, err)
	require.InDelta(t, 1.0, ec, 0.1)
}

func TestSeed003SpinningFillsTheMachine(t *testing.T) {
	// Before, every CPU that runs a job spins on RTNL: with more jobs than
	// CPUs, sys approaches P × real. After, only the first IPv4 rule of
	// each namespace waits for RTNL.
	p := scenario.Seed003Params{Netns: 256, Rules: 64, CPUs: 64, Start: scenario.AllAtOnce}
	b := seed003(t, rtnl.Before, p)
	busy := b.Sys.Seconds() / b.Makespan.Seconds()
	require.Greater(t, busy, 0.85*64)
	require.LessOrEqual(t, busy, 64.0)
	a := seed003(t, rtnl.After, p)
	require.Less(t, a.RTNL.SpinCPU.Seconds(), 0.01*a.Sys.Seconds())
	require.Less(t, a.Sys.Seconds()/a.Makespan.Seconds(), 64.0)
}

func TestSeed003IsDeterministic(t *testing.T) {
	p := scenario.Seed003Params{Netns: 64, Rules: 32, Family: rt.FamilyInet6}
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		x, y := seed003(t, cfg, p), seed003(t, cfg, p)
		require.Equal(t, x.Makespan, y.Makespan)
		require.Equal(t, x.Sys, y.Sys)
		require.Equal(t, x.Phases[1].Counters, y.Phases[1].Counters)
		require.Equal(t, x.RTNL, y.RTNL)
	}
}

func TestSeed003BadParams(t *testing.T) {
	for _, p := range []scenario.Seed003Params{
		{Netns: -1}, {Rules: 1 << 17}, {CPUs: -2}, {Family: 7}, {Start: 9},
	} {
		_, err := scenario.Seed003(rtnl.Before, p)
		require.Error(t, err, "%+v", p)
	}
	_, err := scenario.GrowthExponent([]float64{1}, []float64{2})
	require.Error(t, err)
	_, err = scenario.GrowthExponent([]float64{2, 2}, []float64{1, 3})
	require.Error(t, err)
	e, err := scenario.GrowthExponent([]float64{1, 2, 4}, []float64{3, 12, 48})
	require.NoError(t, err)
	require.InDelta(t, 2.0, e, 1e-9)
}

func TestSeed003FullScale(t *testing.T) {
	// The patch's four runs at full scale: two calibrated (IPv4 before and
	// after), two predicted within ±35%.
	if raceEnabled || testing.Short() {
		t.Skip("full scale (4.2M rules per run): run without -race and -short")
	}
	rows, err := scenario.RunSeeds([]string{"003"})
	require.NoError(t, err)
	require.Len(t, rows, 4)
	for _, r := range rows {
		require.InDelta(t, 1.0, r.Ratio(), 0.35, "%s %s: %.3fs vs %.3fs", r.Phase, r.Mode, r.Virtual.Seconds(), r.Published)
	}
}
