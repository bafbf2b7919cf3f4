// The seeds table: the seeds' published times (PublishedTimes), running
// every seed before and after its patch (RunSeeds), the rows that compare
// each simulated time with the published one, and their score.

package scenario

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
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

// seed003Runs are seed 003's runs, in the table's order.
var seed003Runs = []struct {
	cfg    rtnl.Config
	family rt.Family
}{
	{rtnl.Before, rt.FamilyInet}, {rtnl.Before, rt.FamilyInet6},
	{rtnl.After, rt.FamilyInet}, {rtnl.After, rt.FamilyInet6},
}

// seed004Runs are seed 004's runs (Devices is set from the scale).
var seed004Runs = []struct {
	cfg rtnl.Config
	p   Seed004Params
}{
	{rtnl.Before, Seed004Params{Threads: 1}},
	{rtnl.Before, Seed004Params{Threads: 10}},
	{rtnl.Before, Seed004Params{Threads: 50}},
	{rtnl.Before, Seed004Params{Method: ByGroup}},
	{rtnl.After, Seed004Params{Method: ByList}},
}

// seedRuns is the number of simulated machines a seed runs.
func seedRuns(seed string) int {
	switch seed {
	case "003":
		return len(seed003Runs)
	case "004":
		return len(seed004Runs)
	}
	return len(seedModes)
}

// RunSeedsWith is RunSeedsScaled with options. Seed 000 runs beside the
// other seeds, and seed 003's runs as many at once as there are
// processors: each row's Real is measured while sharing them.
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
		total, done int
		mu          sync.Mutex
	)
	for _, s := range only {
		total += seedRuns(s)
	}
	if o.Progress != nil {
		o.Progress(0, total)
	}
	// Seed 000 runs beside the others (below): its runs' tracers are made
	// first, in the order the seeds list their runs, and looked up by name.
	made := map[string]sim.Tracer{}
	tracer := func(run string) sim.Tracer {
		if o.Trace == nil {
			return nil
		}
		if tr, ok := made[run]; ok {
			return tr
		}
		return o.Trace(run)
	}
	if o.Trace != nil && slices.Contains(only, "000") {
		for _, cfg := range seedModes {
			run := "seed 000 " + cfg.String()
			made[run] = o.Trace(run)
		}
	}
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
	add := func(rows *[]SeedRow, seed, mode string, r *Report, phases ...string) {
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
			*rows = append(*rows, row)
		}
	}
	// eachMode runs a seed's experiment before and after its patch and
	// adds the rows of phases.
	eachMode := func(rows *[]SeedRow, seed string, run func(rtnl.Config, sim.Tracer) (*Report, error), phases ...string) error {
		for _, cfg := range seedModes {
			r, err := run(cfg, tracer("seed "+seed+" "+cfg.String()))
			if err != nil {
				return err
			}
			ran()
			add(rows, seed, cfg.String(), r, phases...)
		}
		return nil
	}
	// runSeed runs one seed's experiments and appends its rows to rows.
	runSeed := func(seed string, rows *[]SeedRow) error {
		switch seed {
		case "000":
			err := eachMode(rows, seed, func(cfg rtnl.Config, tr sim.Tracer) (*Report, error) {
				r, err := Seed000(cfg, Seed000Params{Nexthops: size(seed000Nexthops), Machine: o.Machine, Tracer: tr})
				if err != nil {
					return nil, err
				}
				return r.Report, nil
			}, "link down")
			if err != nil {
				return err
			}
		case "001":
			err := eachMode(rows, seed, func(cfg rtnl.Config, tr sim.Tracer) (*Report, error) {
				return Seed001(cfg, Seed001Params{VLANs: size(seed001VLANs), Machine: o.Machine, Tracer: tr})
			}, "create vlans", "bring up", "assign addresses", "attach to vrf")
			if err != nil {
				return err
			}
		case "002":
			err := eachMode(rows, seed, func(cfg rtnl.Config, tr sim.Tracer) (*Report, error) {
				return Seed002(cfg, Seed002Params{Interfaces: size(100), Machine: o.Machine, Tracer: tr})
			}, "script")
			if err != nil {
				return err
			}
		case "003":
			reports, err := runSeed003(size(seed003Netns), o.Machine, tracer, ran)
			if err != nil {
				return err
			}
			for _, r := range reports {
				add(rows, seed, r.Mode, r.Report, r.Phases[len(r.Phases)-1].Name)
			}
		case "004":
			for _, run := range seed004Runs {
				run.p.Devices = size(seed004Devices)
				run.p.Machine = o.Machine
				run.p.Threads = min(run.p.Threads, run.p.Devices)
				name := fmt.Sprintf("seed 004 %s %s", run.cfg, run.p.Method)
				if run.p.Method == OneByOne {
					name += fmt.Sprintf("/%d", run.p.Threads)
				}
				run.p.Tracer = tracer(name)
				r, err := Seed004(run.cfg, run.p)
				if err != nil {
					return err
				}
				ran()
				last := r.Phases[len(r.Phases)-1].Name
				add(rows, seed, run.cfg.String(), r, last)
			}
		}
		return nil
	}
	// Seed 000's before walks the FIB alone for 10-15 s of real time on
	// one processor; the other seeds run one after another beside it (seed
	// 003's runs two at a time), and the rows keep the seeds' order.
	seedRows := make(map[string]*[]SeedRow)
	var g errgroup.Group
	for _, seed := range SeedIDs {
		if !slices.Contains(only, seed) {
			continue
		}
		rows := new([]SeedRow)
		seedRows[seed] = rows
		if seed == "000" {
			g.Go(func() error { return runSeed(seed, rows) })
			continue
		}
		if err := runSeed(seed, rows); err != nil {
			_ = g.Wait()
			return nil, err
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var rows []SeedRow
	for _, seed := range SeedIDs {
		if r := seedRows[seed]; r != nil {
			rows = append(rows, *r...)
		}
	}
	return rows, nil
}

// runSeed003 runs seed 003's four experiments (IPv4 and IPv6, before and
// after) at full scale, as many at once as there are processors: they are
// independent simulated machines, on the profile machine ("": seed 003's).
// The real time each reports is its own, measured while sharing the
// processors with the others. tracer gives each run's tracer; ran is called
// after each run.
func runSeed003(netns int, machine string, tracer func(run string) sim.Tracer, ran func()) ([]*Seed003Result, error) {
	runs := seed003Runs
	out := make([]*Seed003Result, len(runs))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	// Longest first (IPv6 before, IPv4 before, IPv6 after, IPv4 after), so
	// that two processors finish together.
	trs := make([]sim.Tracer, len(runs))
	for i, r := range runs {
		trs[i] = tracer(fmt.Sprintf("seed 003 %s ipv%d", r.cfg, map[rt.Family]int{rt.FamilyInet: 4, rt.FamilyInet6: 6}[r.family]))
	}
	for _, i := range []int{1, 0, 3, 2} {
		r := runs[i]
		g.Go(func() error {
			res, err := Seed003(r.cfg, Seed003Params{Family: r.family, Netns: netns, Machine: machine, Tracer: trs[i]})
			out[i] = res
			if err == nil {
				ran()
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
