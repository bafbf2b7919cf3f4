// The seeds table: the seeds' published times (PublishedTimes), running
// every seed before and after its patch (RunSeeds), the rows that compare
// each simulated time with the published one, and their score.

package scenario

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// Published is one time a seed patch's commit message reports.
type Published struct {
	Seed    string  // "001"
	Phase   string  // the scenario phase it times
	Mode    string  // "before" or "after"
	Seconds float64 // the published time (real, where `time` reports more)
	Source  string  // where in the seed it is stated
	// User and Sys are the CPU times `time` reported with Seconds, where
	// the seed gives them and a derivation uses them (seed 003); 0 otherwise.
	User, Sys float64
	// SameAs, if not zero, is a row this one equals by construction: the
	// seed states this number as that row's, and the simulator runs the same
	// work for both (seed 004's list deletion, "the same as using the
	// existing group deletion"). It is calibrated when that row is.
	SameAs RowKey
}

// RowKey names one published time: a phase of a seed in one mode.
type RowKey struct{ Seed, Phase, Mode string }

// String returns "004 group, before".
func (k RowKey) String() string { return k.Seed + " " + k.Phase + ", " + k.Mode }

// Key returns the row p times.
func (p Published) Key() RowKey { return RowKey{p.Seed, p.Phase, p.Mode} }

// PublishedTimes are the seeds' published numbers that netsim reproduces.
var PublishedTimes = []Published{
	{Seed: "000", Phase: "link down", Mode: "before", Seconds: 32.601, Source: "seed 000: Without this patch, real"},
	{Seed: "000", Phase: "link down", Mode: "after", Seconds: 0.209, Source: "seed 000: With this patch, real"},
	{Seed: "001", Phase: "create vlans", Mode: "before", Seconds: 108.35, Source: "seed 001: Creating vlans, before"},
	{Seed: "001", Phase: "create vlans", Mode: "after", Seconds: 5.59, Source: "seed 001: Creating vlans, after"},
	{Seed: "001", Phase: "bring up", Mode: "before", Seconds: 4.96, Source: "seed 001: Bringing them up, before"},
	{Seed: "001", Phase: "bring up", Mode: "after", Seconds: 5.07, Source: "seed 001: Bringing them up, after"},
	{Seed: "001", Phase: "assign addresses", Mode: "before", Seconds: 19.22, Source: "seed 001: Assigning IPv6 Addresses, before"},
	{Seed: "001", Phase: "assign addresses", Mode: "after", Seconds: 5.64, Source: "seed 001: Assigning IPv6 Addresses, after"},
	{Seed: "001", Phase: "attach to vrf", Mode: "before", Seconds: 458.84, Source: "seed 001: Attaching to VRF, before"},
	{Seed: "001", Phase: "attach to vrf", Mode: "after", Seconds: 25.37, Source: "seed 001: Attaching to VRF, after"},
	{Seed: "002", Phase: "script", Mode: "before", Seconds: 31.522, Source: "seed 002: Time without this patch, real"},
	{Seed: "002", Phase: "script", Mode: "after", Seconds: 8.199, Source: "seed 002: Time with this patch on a 5.4 kernel, real"},
	{Seed: "003", Phase: "ipv4", Mode: "before", Seconds: 22.752, User: 7.834, Sys: 5566.721,
		Source: "seed 003: Without this series, IPv4, real 0m22.752s user 0m7.834s sys 92m46.721s"},
	{Seed: "003", Phase: "ipv6", Mode: "before", Seconds: 35.181, User: 8.635, Sys: 8550.479,
		Source: "seed 003: Without this series, IPv6, real 0m35.181s user 0m8.635s sys 142m30.479s"},
	{Seed: "003", Phase: "ipv4", Mode: "after", Seconds: 0.918, User: 5.675, Sys: 127.024,
		Source: "seed 003: With this series, IPv4, real 0m0.918s user 0m5.675s sys 2m7.024s"},
	{Seed: "003", Phase: "ipv6", Mode: "after", Seconds: 1.214, User: 7.917, Sys: 259.489,
		Source: "seed 003: With this series, IPv6, real 0m1.214s user 0m7.917s sys 4m19.489s"},
	{Seed: "004", Phase: "one-by-one/1", Mode: "before", Seconds: 243, Source: "seed 004: Deleting one-by-one using 1 thread"},
	{Seed: "004", Phase: "one-by-one/10", Mode: "before", Seconds: 70, Source: "seed 004: Deleting one-by-one using 10 thread"},
	{Seed: "004", Phase: "one-by-one/50", Mode: "before", Seconds: 54, Source: "seed 004: Deleting one-by-one using 50 thread"},
	{Seed: "004", Phase: "group", Mode: "before", Seconds: 30, Source: "seed 004: Deleting all using \"group deletion\""},
	{Seed: "004", Phase: "list", Mode: "after", Seconds: 30, SameAs: RowKey{"004", "group", "before"},
		Source: "seed 004: the new API: \"the same as using the existing group deletion\""},
}

// SeedRow is one line of the seeds table: a phase of a seed in one mode,
// with its published time if the seed reports one.
type SeedRow struct {
	Seed      string
	Phase     string
	Mode      string
	Published float64 // seconds; 0 when the seed reports none
	// Calibrated says that the published time is not a prediction: a
	// constant of the cost model is fitted to it or derived from it (it is
	// one of the rows of Calibrations), or it is the same as such a row
	// (Published.SameAs). False without a published time.
	Calibrated bool
	Virtual    time.Duration
	Real       time.Duration
	Report     *Report
}

// Ratio returns virtual / published, or 0 without a published time.
func (r SeedRow) Ratio() float64 {
	if r.Published == 0 {
		return 0
	}
	return r.Virtual.Seconds() / r.Published
}

// Score counts how well rows predict their published times: the rows
// with a published time, how many of them are calibrated (their ratio is
// no test of the model), and how many of the others — the predictions —
// are within ±35% and within ±15% of it.
type Score struct {
	Published, Calibrated, Predicted int
	Within35, Within15               int
}

// String is the count `netsim seeds` ends with (and README.md and
// docs/cost-model.md quote).
func (s Score) String() string {
	return fmt.Sprintf("%d published times: %d calibrated, %d predicted; of the predictions %d within ±35%%, %d within ±15%%",
		s.Published, s.Calibrated, s.Predicted, s.Within35, s.Within15)
}

// ScoreRows returns the Score of rows.
func ScoreRows(rows []SeedRow) Score {
	var s Score
	for _, r := range rows {
		if r.Published == 0 {
			continue
		}
		s.Published++
		if r.Calibrated {
			s.Calibrated++
			continue
		}
		s.Predicted++
		off := math.Abs(r.Ratio()-1) - 1e-9 // a ratio of exactly 0.85 is in
		if off <= 0.35 {
			s.Within35++
		}
		if off <= 0.15 {
			s.Within15++
		}
	}
	return s
}

// SeedIDs are the seeds RunSeeds knows, in order.
var SeedIDs = []string{"000", "001", "002", "003", "004"}

// RunSeeds runs the named seeds' experiments at full scale, before and
// after, and returns a row for every published phase.
func RunSeeds(only []string) ([]SeedRow, error) { return RunSeedsScaled(only, 1) }

// RunSeedsScaled is RunSeeds with every seed's size multiplied by scale
// (0 < scale ≤ 1; at least one of each thing): nexthops and routes (000),
// VLANs (001), interfaces (002), namespaces (003), devices (004). Below
// full scale the published times do not apply and rows carry none.
func RunSeedsScaled(only []string, scale float64) ([]SeedRow, error) {
	if !(scale > 0 && scale <= 1) {
		return nil, fmt.Errorf("scale must be in (0, 1], not %g", scale)
	}
	return RunSeedsWith(only, SeedsOptions{Scale: scale})
}

// SeedsOptions are RunSeedsWith's options. The zero SeedsOptions runs every
// seed at full scale, without tracing or progress reports.
type SeedsOptions struct {
	// Scale multiplies every seed's size, as in RunSeedsScaled; 0 means 1.
	Scale float64
	// Trace, if not nil, is called once for every simulated machine, in a
	// fixed order and before that machine runs, with the run's name ("seed
	// 003 before ipv6"); the tracer it returns (nil: none) receives the
	// run's events. Tracing changes no virtual time and no counter.
	Trace func(run string) sim.Tracer
	// Progress, if not nil, is called before the first run with 0 and
	// after each run with the number of runs done, and their total. Calls
	// do not overlap.
	Progress func(done, total int)
	// Machine is the profile every seed runs on (its costs and, where it
	// knows them, its CPUs): a shipped profile's name or a profile file;
	// "" runs each seed on its own machine's profile (seed000 … seed004).
	Machine string
}

// seedModes are the configurations seeds 000, 001 and 002 run in, one
// simulated machine each.
var seedModes = []rtnl.Config{rtnl.Before, rtnl.After}

// The runs' real times in seconds, from one `netsim seeds` on the 2-core
// development machine (the real column, summed over a run's phases): they
// only order the runs, longest first.
var (
	seed000Weight = map[string]float64{"before": 0.2, "after": 0.05}
	seed001Weight = map[string]float64{"before": 3.3, "after": 1.9}
	seed002Weight = map[string]float64{"before": 0.01, "after": 0.01}
)

// seed003Runs are seed 003's runs, in the table's order.
var seed003Runs = []struct {
	cfg    rtnl.Config
	family rt.Family
	weight float64
}{
	{rtnl.Before, rt.FamilyInet, 23.7}, {rtnl.Before, rt.FamilyInet6, 30.3},
	{rtnl.After, rt.FamilyInet, 2.9}, {rtnl.After, rt.FamilyInet6, 3.9},
}

// seed004Runs are seed 004's runs (Devices is set from the scale).
var seed004Runs = []struct {
	cfg    rtnl.Config
	p      Seed004Params
	weight float64
}{
	{rtnl.Before, Seed004Params{Threads: 1}, 0.2},
	{rtnl.Before, Seed004Params{Threads: 10}, 1.6},
	{rtnl.Before, Seed004Params{Threads: 50}, 2.8},
	{rtnl.Before, Seed004Params{Method: ByGroup}, 0.17},
	{rtnl.After, Seed004Params{Method: ByList}, 0.12},
}

// RunSeedsWith is RunSeedsScaled with options. The runs (one simulated
// machine each) go as many at once as there are processors, the longest
// first: each row's Real is measured while sharing them.
func RunSeedsWith(only []string, o SeedsOptions) ([]SeedRow, error) {
	scale := o.Scale
	if scale == 0 {
		scale = 1
	}
	if !(scale > 0 && scale <= 1) {
		return nil, fmt.Errorf("scale must be in (0, 1], not %g", scale)
	}
	size := func(full int) int { return max(1, int(math.Round(float64(full)*scale))) }
	if len(only) == 0 {
		only = SeedIDs
	}
	for _, s := range only {
		if !slices.Contains(SeedIDs, s) {
			return nil, fmt.Errorf("unknown or unimplemented seed %q (have %s)", s, strings.Join(SeedIDs, ", "))
		}
	}
	var (
		total, done int // the runs (set once they are known) and those done
		mu          sync.Mutex
	)
	ran := func() {
		mu.Lock()
		defer mu.Unlock()
		done++
		if o.Progress != nil {
			o.Progress(done, total)
		}
	}
	calibrated := map[string]map[RowKey]bool{}
	for _, seed := range only {
		p, err := LoadMachine(o.Machine, seed)
		if err != nil {
			return nil, err
		}
		calibrated[seed] = CalibratedRows(CalibrationsOn(seed, p))
	}
	rowsOf := func(seed, mode string, r *Report, phases ...string) []SeedRow {
		var rows []SeedRow
		for _, name := range phases {
			p, ok := r.Phase(name)
			if !ok {
				continue
			}
			row := SeedRow{Seed: seed, Phase: name, Mode: mode, Virtual: p.Virtual, Real: p.Real, Report: r}
			for _, pub := range PublishedTimes {
				if scale != 1 {
					break
				}
				if k := pub.Key(); k == (RowKey{seed, name, mode}) {
					row.Published, row.Calibrated = pub.Seconds, calibrated[seed][k]
				}
			}
			rows = append(rows, row)
		}
		return rows
	}
	// The table's runs, in its order; each is one simulated machine.
	var runs []seedRun
	// eachMode adds a seed's runs before and after its patch, whose rows
	// are the phases named.
	eachMode := func(seed string, weight map[string]float64, run func(rtnl.Config, sim.Tracer) (*Report, error), phases ...string) {
		for _, cfg := range seedModes {
			mode := cfg.String()
			runs = append(runs, seedRun{name: "seed " + seed + " " + mode, weight: weight[mode],
				run: func(tr sim.Tracer) ([]SeedRow, error) {
					r, err := run(cfg, tr)
					if err != nil {
						return nil, err
					}
					return rowsOf(seed, mode, r, phases...), nil
				}})
		}
	}
	for _, seed := range SeedIDs {
		if !slices.Contains(only, seed) {
			continue
		}
		switch seed {
		case "000":
			eachMode(seed, seed000Weight, func(cfg rtnl.Config, tr sim.Tracer) (*Report, error) {
				r, err := Seed000(cfg, Seed000Params{Nexthops: size(seed000Nexthops), Machine: o.Machine, Tracer: tr})
				if err != nil {
					return nil, err
				}
				return r.Report, nil
			}, "link down")
		case "001":
			eachMode(seed, seed001Weight, func(cfg rtnl.Config, tr sim.Tracer) (*Report, error) {
				return Seed001(cfg, Seed001Params{VLANs: size(seed001VLANs), Machine: o.Machine, Tracer: tr})
			}, "create vlans", "bring up", "assign addresses", "attach to vrf")
		case "002":
			eachMode(seed, seed002Weight, func(cfg rtnl.Config, tr sim.Tracer) (*Report, error) {
				return Seed002(cfg, Seed002Params{Interfaces: size(100), Machine: o.Machine, Tracer: tr})
			}, "script")
		case "003":
			for _, r := range seed003Runs {
				v := map[rt.Family]int{rt.FamilyInet: 4, rt.FamilyInet6: 6}[r.family]
				runs = append(runs, seedRun{name: fmt.Sprintf("seed 003 %s ipv%d", r.cfg, v), weight: r.weight,
					run: func(tr sim.Tracer) ([]SeedRow, error) {
						res, err := Seed003(r.cfg, Seed003Params{Family: r.family, Netns: size(seed003Netns), Machine: o.Machine, Tracer: tr})
						if err != nil {
							return nil, err
						}
						return rowsOf(seed, res.Mode, res.Report, res.Phases[len(res.Phases)-1].Name), nil
					}})
			}
		case "004":
			for _, run := range seed004Runs {
				p := run.p
				p.Devices = size(seed004Devices)
				p.Machine = o.Machine
				p.Threads = min(p.Threads, p.Devices)
				name := fmt.Sprintf("seed 004 %s %s", run.cfg, p.Method)
				if p.Method == OneByOne {
					name += fmt.Sprintf("/%d", p.Threads)
				}
				runs = append(runs, seedRun{name: name, weight: run.weight,
					run: func(tr sim.Tracer) ([]SeedRow, error) {
						p.Tracer = tr
						r, err := Seed004(run.cfg, p)
						if err != nil {
							return nil, err
						}
						return rowsOf(seed, run.cfg.String(), r, r.Phases[len(r.Phases)-1].Name), nil
					}})
			}
		}
	}
	total = len(runs)
	if o.Progress != nil {
		o.Progress(0, total)
	}
	// Every run's tracer is made before any run starts, in the table's
	// order; the runs then go as many at once as there are processors,
	// the longest first, so that the processors finish together.
	trs := make([]sim.Tracer, len(runs))
	if o.Trace != nil {
		for i, r := range runs {
			trs[i] = o.Trace(r.name)
		}
	}
	order := make([]int, len(runs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(runs[b].weight, runs[a].weight) })
	out := make([][]SeedRow, len(runs))
	var (
		g      errgroup.Group
		failed atomic.Bool
	)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, i := range order {
		g.Go(func() error {
			if failed.Load() {
				return nil // another run failed: the table will not be printed
			}
			rows, err := runs[i].run(trs[i])
			if err != nil {
				failed.Store(true)
				return err
			}
			out[i] = rows
			ran()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.Concat(out...), nil
}

// seedRun is one simulated machine of the seeds table: its tracer's name,
// its real time at full scale on the development machine in seconds (an
// estimate that only orders the runs: longest first), and the run itself,
// which returns its rows in the table's order.
type seedRun struct {
	name   string
	weight float64
	run    func(sim.Tracer) ([]SeedRow, error)
}
