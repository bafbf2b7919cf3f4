package scenario_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// published returns the Lookup of scenario.PublishedTimes, recording in
// read (if not nil) every row looked up; a missing row fails t.
func published(t *testing.T, read map[scenario.RowKey]bool) scenario.Lookup {
	return func(k scenario.RowKey) scenario.Published {
		if read != nil {
			read[k] = true
		}
		for _, p := range scenario.PublishedTimes {
			if p.Key() == k {
				return p
			}
		}
		t.Fatalf("no published time for %s", k)
		return scenario.Published{}
	}
}

func TestCalibration(t *testing.T) {
	// Every constant taken from a published time is what its fit or its
	// derivation gives today.
	for _, c := range scenario.Calibrations {
		t.Run(c.Name(), func(t *testing.T) {
			switch c.Kind {
			case scenario.Calibrated:
				if c.Heavy && (raceEnabled || testing.Short()) {
					t.Skipf("runs seed %s at full scale: refitted by `go test ./scenario` without -race or -short", c.Rows[0].Seed)
				}
				got, err := c.Fit()
				require.NoError(t, err)
				require.InEpsilon(t, c.Code(), float64(got), 0.01, "code has %v, fit to %s gives %v", time.Duration(c.Code()), c.Rows[0], got)
			case scenario.Derived:
				b := c.Derive(published(t, nil))
				if b.Exact() {
					require.Equal(t, b.Min, c.Code(), "code has %g, its derivation gives %g: %s", c.Code(), b.Min, c.How)
				} else {
					require.True(t, b.Contains(c.Code()), "code has %g, its derivation allows %s: %s", c.Code(), b, c.How)
				}
			default:
				t.Fatalf("kind %v", c.Kind)
			}
		})
	}
}

func TestCalibrationTable(t *testing.T) {
	type param struct{ name, machine string }
	seen := map[param]bool{}
	fits := map[string]int{}
	for _, c := range scenario.Calibrations {
		p := param{c.Param, c.Machine}
		require.False(t, seen[p], "%s is in the table twice", c.Name())
		seen[p] = true
		require.NotEmpty(t, c.How, c.Name())
		require.NotEmpty(t, c.Rows, c.Name())
		// Every row the table names is published.
		for _, k := range c.Rows {
			published(t, nil)(k)
		}
		// The constant is a sim.Costs field or has its own Value.
		if c.Value == nil {
			require.True(t, reflect.ValueOf(sim.Costs{}).FieldByName(c.Param).IsValid(), "%s: no sim.Costs field and no Value", c.Name())
		}
		require.NotPanics(t, func() { c.Code() }, c.Name())
		switch c.Kind {
		case scenario.Calibrated:
			// A fit reproduces one row, by running it.
			require.Len(t, c.Rows, 1, c.Name())
			require.NotNil(t, c.Run, c.Name())
			require.Nil(t, c.Derive, c.Name())
			require.Nil(t, c.Value, "%s: a fit sets a sim.Costs field", c.Name())
			fits[c.Rows[0].Seed]++
		case scenario.Derived:
			// A derivation reads only the rows it declares, all of them
			// when it is a formula.
			require.NotNil(t, c.Derive, c.Name())
			require.Nil(t, c.Run, c.Name())
			read := map[scenario.RowKey]bool{}
			b := c.Derive(published(t, read))
			for k := range read {
				require.Contains(t, c.Rows, k, "%s reads %s without declaring it", c.Name(), k)
			}
			if b.Exact() {
				require.Len(t, read, len(c.Rows), "%s declares rows its formula does not read", c.Name())
			}
		default:
			t.Fatalf("%s: kind %v", c.Name(), c.Kind)
		}
	}
	// Seed 003 may fit two of its four numbers, the others one.
	limit := map[string]int{"003": 2}
	for seed, n := range fits {
		require.LessOrEqual(t, n, max(1, limit[seed]), "seed %s fits too many numbers", seed)
	}
}

func TestSameAsRows(t *testing.T) {
	// A row declared the same as another names a published row with the
	// same time that is not itself declared the same as a third.
	n := 0
	for _, p := range scenario.PublishedTimes {
		if p.SameAs == (scenario.RowKey{}) {
			continue
		}
		n++
		q := published(t, nil)(p.SameAs)
		require.NotEqual(t, p.Key(), q.Key())
		require.Equal(t, p.Seconds, q.Seconds, p.Key())
		require.Zero(t, q.SameAs, q.Key())
	}
	require.Positive(t, n)

	// The simulator runs the same work for both: seed 004 at a twentieth.
	rows, err := scenario.RunSeedsScaled([]string{"004"}, 0.05)
	require.NoError(t, err)
	virtual := map[scenario.RowKey]time.Duration{}
	for _, r := range rows {
		virtual[scenario.RowKey{Seed: r.Seed, Phase: r.Phase, Mode: r.Mode}] = r.Virtual
	}
	for _, p := range scenario.PublishedTimes {
		if p.SameAs != (scenario.RowKey{}) && p.Seed == "004" {
			require.Contains(t, virtual, p.Key())
			require.Equal(t, virtual[p.SameAs], virtual[p.Key()], "%s and %s", p.Key(), p.SameAs)
		}
	}
}

// without returns table less the entries for which drop is true.
func without(table []scenario.Calibration, drop func(scenario.Calibration) bool) []scenario.Calibration {
	return slices.DeleteFunc(slices.Clone(table), drop)
}

// uses returns whether c takes a constant from a row of seed.
func uses(seed string) func(scenario.Calibration) bool {
	return func(c scenario.Calibration) bool {
		return slices.ContainsFunc(c.Rows, func(k scenario.RowKey) bool { return k.Seed == seed })
	}
}

func TestCalibratedRows(t *testing.T) {
	all := scenario.CalibratedRows(scenario.Calibrations)
	// Exactly the rows the table names, and those the same as one of them.
	named := map[scenario.RowKey]bool{}
	for _, c := range scenario.Calibrations {
		for _, k := range c.Rows {
			named[k] = true
		}
	}
	for _, p := range scenario.PublishedTimes {
		want := named[p.Key()] || (p.SameAs != (scenario.RowKey{}) && named[p.SameAs])
		require.Equal(t, want, all[p.Key()], p.Key())
	}
	for k := range all {
		published(t, nil)(k)
	}
	require.Empty(t, scenario.CalibratedRows(nil))

	// A constant that becomes measured leaves the table, and the rows no
	// other entry uses become predictions, with the rows the same as them.
	for i, c := range scenario.Calibrations {
		rest := slices.Delete(slices.Clone(scenario.Calibrations), i, i+1)
		left := scenario.CalibratedRows(rest)
		for _, k := range c.Rows {
			other := slices.ContainsFunc(rest, func(o scenario.Calibration) bool { return slices.Contains(o.Rows, k) })
			require.Equal(t, other, left[k], "%s without %s", k, c.Name())
			for _, p := range scenario.PublishedTimes {
				if p.SameAs == k && !named[p.Key()] {
					require.Equal(t, other, left[p.Key()], "%s (the same as %s) without %s", p.Key(), k, c.Name())
				}
			}
		}
	}

	// A row the same as another follows it, calibrated or not.
	for _, p := range scenario.PublishedTimes {
		if p.SameAs == (scenario.RowKey{}) {
			continue
		}
		require.Equal(t, all[p.SameAs], all[p.Key()], p.Key())
		rest := without(scenario.Calibrations, func(c scenario.Calibration) bool { return slices.Contains(c.Rows, p.SameAs) })
		require.False(t, scenario.CalibratedRows(rest)[p.Key()], p.Key())
	}
}

func TestSeedRowCalibrated(t *testing.T) {
	// Every row's flag is the table's, at full scale.
	rows, err := scenario.RunSeeds([]string{"002", "004"})
	require.NoError(t, err)
	cal := scenario.CalibratedRows(scenario.Calibrations)
	for _, r := range rows {
		k := scenario.RowKey{Seed: r.Seed, Phase: r.Phase, Mode: r.Mode}
		require.Positive(t, r.Published, k)
		require.Equal(t, cal[k], r.Calibrated, k)
	}

	// Taking the entries that use seed 002 out of the table turns its rows
	// into predictions.
	saved := scenario.Calibrations
	t.Cleanup(func() { scenario.Calibrations = saved })
	scenario.Calibrations = without(saved, uses("002"))
	rows, err = scenario.RunSeeds([]string{"002"})
	require.NoError(t, err)
	require.Len(t, rows, 2)
	for _, r := range rows {
		require.False(t, r.Calibrated, "%s %s", r.Phase, r.Mode)
	}
	scenario.Calibrations = saved

	// Below full scale no published time applies, and no row is calibrated.
	rows, err = scenario.RunSeedsScaled([]string{"002"}, 0.5)
	require.NoError(t, err)
	for _, r := range rows {
		require.False(t, r.Calibrated, "%s %s", r.Phase, r.Mode)
	}
}

func ExampleCalibrations() {
	for _, c := range scenario.Calibrations {
		if c.Machine == "003" && c.Kind == scenario.Calibrated {
			fmt.Printf("%s is %s on %v\n", c.Name(), c.Kind, c.Rows)
		}
	}
	// Output:
	// RuleChange (seed 003's machine) is calibrated on [003 ipv4, before]
	// Fork (seed 003's machine) is calibrated on [003 ipv4, after]
}
