package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// withoutReal returns r's figures with the real times zeroed: what a run
// must reproduce bit for bit.
func withoutReal(r *Report) Report {
	c := *r
	c.Phases = append([]Phase(nil), r.Phases...)
	for i := range c.Phases {
		c.Phases[i].Real = 0
	}
	return c
}

// TestTracingChangesNothing: a tracer records events and changes no
// virtual time, lock statistic or counter of any seed.
func TestTracingChangesNothing(t *testing.T) {
	runs := []struct {
		name string
		run  func(tr sim.Tracer) (*Report, error)
	}{
		{"000", func(tr sim.Tracer) (*Report, error) {
			r, err := Seed000(rtnl.Before, Seed000Params{Nexthops: 64, Tracer: tr})
			if err != nil {
				return nil, err
			}
			return r.Report, nil
		}},
		{"001", func(tr sim.Tracer) (*Report, error) {
			return Seed001(rtnl.Before, Seed001Params{VLANs: 8, Tracer: tr})
		}},
		{"002", func(tr sim.Tracer) (*Report, error) {
			return Seed002(rtnl.After, Seed002Params{Interfaces: 4, Tracer: tr})
		}},
		{"003", func(tr sim.Tracer) (*Report, error) {
			r, err := Seed003(rtnl.Before, Seed003Params{Netns: 8, Rules: 16, CPUs: 4, Tracer: tr})
			if err != nil {
				return nil, err
			}
			return r.Report, nil
		}},
		{"004", func(tr sim.Tracer) (*Report, error) {
			return Seed004(rtnl.Before, Seed004Params{Devices: 20, Threads: 4, Tracer: tr})
		}},
		{"build", func(tr sim.Tracer) (*Report, error) {
			return Build(rtnl.After, BuildParams{Dummies: 10, VLANs: 3, OneByOne: 2, Tracer: tr})
		}},
	}
	for _, run := range runs {
		t.Run(run.name, func(t *testing.T) {
			plain, err := run.run(nil)
			require.NoError(t, err)
			var tr sim.ChromeTrace
			traced, err := run.run(&tr)
			require.NoError(t, err)
			require.NotEmpty(t, tr.Events())
			require.Equal(t, withoutReal(plain), withoutReal(traced))
		})
	}
}

// TestRunSeedsWithTraceAndProgress: every run gets its own named tracer,
// in a fixed order, and progress counts every run.
func TestRunSeedsWithTraceAndProgress(t *testing.T) {
	var names []string
	var progress [][2]int
	rows, err := RunSeedsWith([]string{"002", "004"}, SeedsOptions{
		Scale:    0.01,
		Trace:    func(run string) sim.Tracer { names = append(names, run); return &sim.ChromeTrace{} },
		Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) },
	})
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	require.Equal(t, []string{"seed 002 before", "seed 002 after",
		"seed 004 before one-by-one/1", "seed 004 before one-by-one/10", "seed 004 before one-by-one/50",
		"seed 004 before group", "seed 004 after list"}, names)
	require.Len(t, progress, 8)
	require.Equal(t, [2]int{0, 7}, progress[0])
	require.Equal(t, [2]int{7, 7}, progress[7])
}

// TestRunSeedsProgressCountsRuns: progress counts the runs made, a seed
// named twice running once.
func TestRunSeedsProgressCountsRuns(t *testing.T) {
	var progress [][2]int
	_, err := RunSeedsWith([]string{"002", "002"}, SeedsOptions{
		Scale:    0.01,
		Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) },
	})
	require.NoError(t, err)
	require.Equal(t, [][2]int{{0, 2}, {1, 2}, {2, 2}}, progress)
}
