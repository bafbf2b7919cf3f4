package scenario_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/machine"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

// TestSeedProfilesHoldCalibrations: every constant scenario.Calibrations
// refits or recomputes is in its seed machine's profile with the same
// value and a source of the same kind, and every calibrated or derived
// value of a seed's profile has its entry in the table.
func TestSeedProfilesHoldCalibrations(t *testing.T) {
	consts := map[string]float64{
		"002 NetnsExec":   float64(scenario.Seed002NetnsExec),
		"003 RuleChange":  float64(scenario.Seed003RuleChange),
		"003 Fork":        float64(scenario.Seed003Fork),
		"003 IPBatchLine": float64(scenario.Seed003IPBatchLine),
		"003 Syscall":     float64(scenario.Seed003Syscall),
		"003 Seed003CPUs": scenario.Seed003CPUs,
	}
	entries := map[string]bool{}
	for _, c := range scenario.Calibrations {
		p, err := scenario.LoadMachine("", c.Machine)
		require.NoError(t, err)
		src, ok := p.Sources[c.ProfileField()]
		require.True(t, ok, c.Name())
		want := map[scenario.CalibrationKind]machine.Provenance{scenario.Calibrated: machine.Calibrated, scenario.Derived: machine.Derived}[c.Kind]
		require.Equal(t, want, src.Kind, "%s: the profile says %s", c.Name(), src.Kind)
		if v, ok := consts[c.Machine+" "+c.Param]; ok {
			require.Equal(t, v, c.Code(), "%s: the profile and the constant differ", c.Name())
		}
		entries["seed"+c.Machine+" "+c.ProfileField()] = true
	}
	for _, seed := range scenario.SeedIDs {
		p, err := scenario.LoadMachine("", seed)
		require.NoError(t, err)
		require.Equal(t, "seed"+seed, p.Name)
		for f, src := range p.Sources {
			if src.Kind == machine.Calibrated || src.Kind == machine.Derived {
				require.True(t, entries[p.Name+" "+f], "%s's %s is %s but not in scenario.Calibrations", p.Name, f, src.Kind)
			}
		}
	}
	// Nothing of the development VM's is taken from a published time.
	vm, err := scenario.LoadMachine("devvm", "004")
	require.NoError(t, err)
	for _, seed := range scenario.SeedIDs {
		require.Empty(t, scenario.CalibrationsOn(seed, vm), seed)
	}
	own, err := scenario.LoadMachine("", "004")
	require.NoError(t, err)
	require.Len(t, scenario.CalibrationsOn("004", own), 1)
}

// TestMachineParam: a seed runs on the profile its params name, its costs
// and (where the profile knows them) its CPUs, and on its own machine's
// by default; a profile that does not load is an error.
func TestMachineParam(t *testing.T) {
	run := func(p scenario.Seed004Params) time.Duration {
		p.Devices, p.Method = 1000, scenario.ByGroup
		r, err := scenario.Seed004(rtnl.Before, p)
		require.NoError(t, err)
		ph, ok := r.Phase("group")
		require.True(t, ok)
		return ph.Virtual
	}
	seed004, _ := machine.Load("seed004")
	own := run(scenario.Seed004Params{})
	require.Equal(t, own, run(scenario.Seed004Params{Costs: &seed004.Costs, CPUs: 16}))
	vm := run(scenario.Seed004Params{Machine: "devvm"})
	require.Equal(t, vm, run(scenario.Seed004Params{Costs: &sim.DefaultCosts, CPUs: 2}))
	require.Less(t, vm, own, "the VM walks a route in 30 ns, seed 004's machine in 129 ns")

	file := filepath.Join(t.TempDir(), "slow.profile")
	require.NoError(t, os.WriteFile(file, []byte("base devvm\nFib6Visit 1µs estimated slow\n"), 0o644))
	require.Greater(t, run(scenario.Seed004Params{Machine: file}), own)

	_, err := scenario.Seed004(rtnl.Before, scenario.Seed004Params{Devices: 10, Machine: "nope"})
	require.ErrorContains(t, err, `seed 004: no profile "nope"`)
	_, err = scenario.Seed001(rtnl.Before, scenario.Seed001Params{VLANs: 2, Machine: "nope"})
	require.Error(t, err)
	_, err = scenario.Build(rtnl.After, scenario.BuildParams{Dummies: 2, VLANs: 1, Machine: "nope"})
	require.Error(t, err)
	_, err = scenario.RunSeedsWith([]string{"002"}, scenario.SeedsOptions{Scale: 0.1, Machine: "nope"})
	require.Error(t, err)
}
