package scenario_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
)

// TestFitGrowth: the exponent and its standard error on exact and noisy
// power laws, and the cases without a fit.
func TestFitGrowth(t *testing.T) {
	xs := []float64{10, 20, 40, 80}
	f, err := scenario.FitGrowth(xs, []float64{300, 1200, 4800, 19200}) // 3x²
	require.NoError(t, err)
	require.InDelta(t, 2, f.Exponent, 1e-12)
	require.InDelta(t, 0, f.StdErr, 1e-12)

	// log2 y = 1, 3, 4, 6 at log2 x = 1..4: slope 1.6, residuals
	// -0.1, 0.3, -0.3, 0.1 (in log2, which the ratio cancels): SE =
	// √(0.2/2/5) = 0.1414.
	f, err = scenario.FitGrowth([]float64{2, 4, 8, 16}, []float64{2, 8, 16, 64})
	require.NoError(t, err)
	require.InDelta(t, 1.6, f.Exponent, 1e-12)
	require.InDelta(t, math.Sqrt(0.02), f.StdErr, 1e-12)

	f, err = scenario.FitGrowth([]float64{1, 2}, []float64{5, 10})
	require.NoError(t, err)
	require.InDelta(t, 1, f.Exponent, 1e-12)
	require.True(t, math.IsNaN(f.StdErr), "two points say nothing of the spread")

	_, err = scenario.FitGrowth([]float64{1, 2}, []float64{0, 10})
	require.ErrorContains(t, err, "not positive")
	_, err = scenario.FitGrowth([]float64{1}, []float64{1})
	require.ErrorContains(t, err, "need two or more")
}

func TestSplitPhases(t *testing.T) {
	ph, err := scenario.SplitPhases("link show\n# a comment\nlink show\n")
	require.NoError(t, err)
	require.Equal(t, []scenario.ScriptPhase{{Name: "script", Lines: "link show\n# a comment\nlink show\n"}}, ph)

	ph, err = scenario.SplitPhases("link add d0 type dummy\n# phase: up\nlink set d0 up\n  # phase:  down \nlink set d0 down\n")
	require.NoError(t, err)
	require.Equal(t, []scenario.ScriptPhase{
		{Name: "setup", Lines: "link add d0 type dummy\n"},
		{Name: "up", Lines: "link set d0 up\n"},
		{Name: "down", Lines: "link set d0 down\n"},
	}, ph)

	// A comment before the first marker makes no phase; an empty marked phase is one.
	ph, err = scenario.SplitPhases("# header\n# phase: empty\n# phase: x\nlink show\n")
	require.NoError(t, err)
	require.Equal(t, []scenario.ScriptPhase{{Name: "empty"}, {Name: "x", Lines: "link show\n"}}, ph)

	for script, want := range map[string]string{
		"":                                       "no command to run",
		"# phase:\nlink show\n":                  `line 1: "# phase:" names no phase`,
		"# phase: a\nlink show\n# phase: a\n":    `line 3: phase "a" again (it begins at line 1)`,
		"link show\n# phase: setup\nlink show\n": `line 2: phase "setup" again`,
		"# c\n\n# phase: a\n# phase: b\n# phase: a": `line 5: phase "a" again (it begins at line 3)`,
	} {
		_, err := scenario.SplitPhases(script)
		require.ErrorContains(t, err, want, "%q", script)
	}
}

// TestScript: each phase is one ip -batch process, with its counters; a
// failing line stops the run with ip's message.
func TestScript(t *testing.T) {
	r, err := scenario.Script(rtnl.After, scenario.ScriptParams{
		Script: "link add d0 type dummy\nlink set d0 up\n# phase: routes\nroute add 10.0.0.1/32 dev d0\nroute add 10.0.0.2/32 dev d0\n",
	})
	require.NoError(t, err)
	require.Equal(t, "script", r.Scenario)
	require.Len(t, r.Phases, 2)
	routes := r.Phases[1]
	require.Equal(t, "routes", routes.Name)
	require.Positive(t, routes.Virtual)
	require.EqualValues(t, 1, routes.Counters.Map()["ip_execs"])
	require.EqualValues(t, 2, routes.Counters.Map()["ip_batch_lines"])
	require.EqualValues(t, 2, routes.Counters.Map()["fib_alias_inserts"])

	_, err = scenario.Script(rtnl.After, scenario.ScriptParams{Name: "bad", Script: "# phase: x\nlink del nosuch\n"})
	require.ErrorContains(t, err, `bad: x: ip -batch exited with status 1: Cannot find device "nosuch"`)
	_, err = scenario.Script(rtnl.After, scenario.ScriptParams{Script: "link show\n", Machine: "nosuch"})
	require.Error(t, err)
}

// TestSweepPhases: every series gets the same measures, counters that
// moved in any series, with their fits; runs with other phases are an error.
func TestSweepPhases(t *testing.T) {
	run := func(cfg rtnl.Config, n int) *scenario.Report {
		script := "link add d0 type dummy\nlink set d0 up\n# phase: routes\n"
		for i := range n {
			script += "route add 10.0.0." + string(rune('0'+i)) + "/32 dev d0\n"
		}
		r, err := scenario.Script(cfg, scenario.ScriptParams{Script: script})
		require.NoError(t, err)
		return r
	}
	series := []scenario.SweepSeries{
		{Mode: "before", Sizes: []int{1, 2, 4}, Reports: []*scenario.Report{run(rtnl.Before, 1), run(rtnl.Before, 2), run(rtnl.Before, 4)}},
		{Mode: "after", Sizes: []int{1, 2, 4}, Reports: []*scenario.Report{run(rtnl.After, 1), run(rtnl.After, 2), run(rtnl.After, 4)}},
	}
	phases, err := scenario.SweepPhases(series)
	require.NoError(t, err)
	require.Len(t, phases, 2)
	for _, ph := range phases {
		require.Equal(t, "setup", ph[0].Name)
		require.Equal(t, "routes", ph[1].Name)
		require.Equal(t, scenario.VirtualMeasure, ph[1].Measures[0].Name)
		var inserts *scenario.SweepMeasure
		for i, m := range ph[1].Measures {
			if m.Name == "fib_alias_inserts" {
				inserts = &ph[1].Measures[i]
			}
		}
		require.NotNil(t, inserts)
		require.Equal(t, []float64{1, 2, 4}, inserts.Values)
		require.InDelta(t, 1, inserts.Fit.Exponent, 1e-12)
	}
	require.Equal(t, len(phases[0][1].Measures), len(phases[1][1].Measures))

	series[1].Reports[2] = run(rtnl.After, 0)
	series[1].Reports[2].Phases = series[1].Reports[2].Phases[:1]
	_, err = scenario.SweepPhases(series)
	require.ErrorContains(t, err, `after at 4 has the phases ["setup"], not ["setup" "routes"] as the first run`)
}
