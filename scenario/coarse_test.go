package scenario_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
)

// TestSeed003CoarseNearFine bounds what seed 003's coarse schedule costs in
// accuracy. sim.Options.Coarse keeps lock order and hold times exact but
// books a job's CPU slices up to its next lock at once; with more jobs than
// CPUs (the seed runs 4096 jobs on 256 CPUs) its makespan may differ from
// the fine schedule's. Here, at 16 jobs per CPU as in the seed (512 jobs,
// 32 CPUs, 256 rules each), the runs before the series, whose makespan is
// RTNL's, come out equal; after it the coarse makespan is 1.5% longer (5%
// allowed); the lock counts are the same.
func TestSeed003CoarseNearFine(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("four fine and four coarse runs of 131 072 rules")
	}
	for _, run := range []struct {
		cfg    rtnl.Config
		family rt.Family
	}{
		{rtnl.Before, rt.FamilyInet}, {rtnl.Before, rt.FamilyInet6},
		{rtnl.After, rt.FamilyInet}, {rtnl.After, rt.FamilyInet6},
	} {
		t.Run(fmt.Sprintf("%s/ipv%d", run.cfg, map[rt.Family]int{rt.FamilyInet: 4, rt.FamilyInet6: 6}[run.family]), func(t *testing.T) {
			p := scenario.Seed003Params{Netns: 512, Rules: 256, CPUs: 32, Family: run.family}
			coarse, err := scenario.Seed003(run.cfg, p)
			require.NoError(t, err)
			scenario.SetSeed003Fine(true)
			defer scenario.SetSeed003Fine(false)
			fine, err := scenario.Seed003(run.cfg, p)
			require.NoError(t, err)
			t.Logf("makespan coarse %v, fine %v (%+.2f%%)", coarse.Makespan, fine.Makespan,
				100*(coarse.Makespan.Seconds()/fine.Makespan.Seconds()-1))
			require.InDelta(t, fine.Makespan.Seconds(), coarse.Makespan.Seconds(), 0.05*fine.Makespan.Seconds())
			require.Equal(t, fine.RTNLAcquires, coarse.RTNLAcquires)
			require.Equal(t, fine.OpsLockAcquires, coarse.OpsLockAcquires)
		})
	}
}
