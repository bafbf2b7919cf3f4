package scenario_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
)

// TestSeedsPassInvariantChecks runs every seed's own scenario function,
// scaled down, before and after, with rtnl.Kernel.CheckInvariants after
// each phase.
func TestSeedsPassInvariantChecks(t *testing.T) {
	checks := 0
	scenario.SetAfterPhase(func(k *rtnl.Kernel) error {
		checks++
		return k.CheckInvariants()
	})
	defer scenario.SetAfterPhase(nil)
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		_, err := scenario.Seed000(cfg, scenario.Seed000Params{Nexthops: 256})
		require.NoError(t, err, "seed 000 %v", cfg)
		_, err = scenario.Seed001(cfg, scenario.Seed001Params{VLANs: 40})
		require.NoError(t, err, "seed 001 %v", cfg)
		_, err = scenario.Seed002(cfg, scenario.Seed002Params{Interfaces: 8})
		require.NoError(t, err, "seed 002 %v", cfg)
		for _, fam := range []rt.Family{rt.FamilyInet, rt.FamilyInet6} {
			_, err = scenario.Seed003(cfg, scenario.Seed003Params{Netns: 16, Rules: 32, Family: fam})
			require.NoError(t, err, "seed 003 %v family %d", cfg, fam)
		}
		for _, p := range []scenario.Seed004Params{{Devices: 60, Threads: 3}, {Devices: 60, Method: scenario.ByGroup}} {
			_, err = scenario.Seed004(cfg, p)
			require.NoError(t, err, "seed 004 %v %+v", cfg, p)
		}
		_, err = scenario.Build(cfg, scenario.BuildParams{Dummies: 30, VLANs: 6, OneByOne: 5})
		require.NoError(t, err, "build %v", cfg)
	}
	require.Greater(t, checks, 40)
}
