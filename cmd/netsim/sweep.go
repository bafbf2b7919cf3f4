// `netsim sweep`: a seed's scenario over its size, or an `ip` script
// template over a variable, in several modes (before and after by
// default); each phase's virtual time and counters, their fitted growth
// exponents and a log-log plot.

package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

// sweepCase is what a sweep runs: a scenario at each size, in each mode.
type sweepCase struct {
	name    string // "003", or the template's file
	title   string // the plot's title
	varName string // what the sizes count: the table's and the CSV's column
	sym     string // the size in "makespan ∝ K^e"
	sizes   []int
	// run runs the scenario in one mode at one size and returns its
	// report and its makespan: a seed's timed phases (those of the seeds
	// table; seed 003's from the first fork to the end of the last job), or
	// a template's phases all together.
	run func(cfg rtnl.Config, size int, tr sim.Tracer) (*scenario.Report, time.Duration, error)
	// cpus is seed 003's P, where the makespan's growth changes: its
	// exponent is also fitted up to P and from P. 0 elsewhere.
	cpus int
}

// sweepSizes are the default sizes of each seed's sweep.
var sweepSizes = map[string]string{
	"000": "1024,2048,4096,8192",
	"001": "100,200,400,800",
	"002": "25,50,100,200",
	"003": "16,32,64,128,256,512,1024,2048,4096",
	"004": "1000,2000,4000,8000",
}

// sweepVarNames name each seed's size.
var sweepVarNames = map[string]string{
	"000": "nexthops", "001": "vlans", "002": "interfaces", "003": "netns", "004": "devices",
}

// listFlag is a flag that may be given several times, each a
// comma-separated list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	for _, f := range strings.Split(s, ",") {
		*l = append(*l, strings.TrimSpace(f))
	}
	return nil
}

// repeatFlag is a flag that may be given several times, each value whole.
type repeatFlag []string

func (r *repeatFlag) String() string     { return strings.Join(*r, " ") }
func (r *repeatFlag) Set(s string) error { *r = append(*r, s); return nil }

const sweepUsage = `usage: netsim sweep SEED [-n SIZES] [SEED OPTIONS] [OPTIONS]
       netsim sweep -script TEMPLATE -var NAME=V1,V2,... [-var NAME=V] [OPTIONS]

Runs a seed's scenario (000 … 004) over its size, or an ip script template
over a variable, in each mode (-config; default before and after), and
reports each phase's virtual time and every counter that moved, the growth
exponent of each (the least-squares slope of log value against log size,
± its standard error), and before against after.

A TEMPLATE is a bash script that prints ip -batch lines (as the seeds'
one-liners printed examples/seed00*.ip; examples/templates holds them as
templates). bash runs it with each -var in its environment, so $N and ${N}
are the size and its loops run as bash runs them. A template line
"# phase: NAME" starts a phase: each phase is one ip -batch process, timed
alone. Lines before the first marker are the phase "setup"; a template
without markers is one phase, "script". One -var has two or more sizes;
the others, one value each, are constants.
`

// runSweep runs a sweep and prints its table, JSON, CSV or plot.
func runSweep(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(out)
	sizes := fs.String("n", "", "comma-separated sizes of a seed: 000 nexthops, 001 VLANs, 002 interfaces, 003 namespaces, 004 devices (default: "+sweepSizes["003"]+" for 003, a range ending below the seed's size for the others)")
	script := fs.String("script", "", "sweep this ip script template instead of a seed")
	var vars repeatFlag
	fs.Var(&vars, "var", "NAME=V1,V2,...: a template variable and its values (several -var allowed)")
	var configs listFlag
	fs.Var(&configs, "config", "modes to run: before, after or a -config FILE (netsim ip -help), comma-separated or repeated (default before,after)")
	family := fs.Int("family", 4, "seed 003: 4 or 6")
	rules := fs.Int("rules", 0, "seed 003: rules per namespace (default: the seed's 1024)")
	cpus := fs.Int("cpus", 0, "seeds 003 and 004: virtual CPUs (default: the machine's)")
	mach := fs.String("machine", "", machineUsage+" (default: the seed's machine; devvm for a template)")
	start := fs.String("start", "all", "seed 003: how the jobs start: all (at once) or shell (the script's loop)")
	method := fs.String("method", "one-by-one", "seed 004: how the devices are deleted: one-by-one, group or list (list needs ifindex-list, as after)")
	threads := fs.Int("threads", 1, "seed 004: tasks deleting one by one")
	plotFile := fs.String("plot", "", "draw a log-log plot of -measure in -phase, one line per mode and measure, to this file (.svg, .png, .pdf)")
	plotPhase := fs.String("phase", "", "the phase -plot draws (default: the last)")
	var measures listFlag
	fs.Var(&measures, "measure", "the measures -plot draws: virtual_s or counter names, comma-separated (default virtual_s)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	csvFile := fs.String("csv", "", "also write every value to this CSV file (mode, phase, measure, size, value)")
	tf := addTraceFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(out, sweepUsage)
		fs.PrintDefaults()
	}
	// The seed may come before the flags (netsim sweep 003 -n ...) or after.
	var seed string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		seed, args = args[0], args[1:]
	}
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if seed == "" && fs.NArg() == 1 {
		seed = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return fmt.Errorf("sweep: unexpected arguments %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	modes, err := sweepModes(configs)
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	var c *sweepCase
	switch {
	case *script != "" && seed != "":
		return fmt.Errorf("sweep: give a seed or -script, not both")
	case *script != "":
		for _, f := range []string{"n", "family", "rules", "cpus", "start", "method", "threads"} {
			if set[f] {
				return fmt.Errorf("sweep: -%s is a seed's option; a template's sizes are its -var", f)
			}
		}
		c, err = templateCase(*script, vars, *mach)
	case seed != "":
		if len(vars) > 0 {
			return fmt.Errorf("sweep: -var is a template's option; seed %s's sizes are -n", seed)
		}
		c, err = seedCase(seed, cmp.Or(*sizes, sweepSizes[seed]), seedOptions{
			family: *family, rules: *rules, cpus: *cpus, machine: *mach, start: *start,
			method: *method, threads: *threads,
		}, set)
	default:
		fs.Usage()
		return fmt.Errorf("sweep: name a seed (%s) or a -script template", strings.Join(scenario.SeedIDs, ", "))
	}
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if len(c.sizes) < 2 {
		return fmt.Errorf("sweep: %s needs two or more sizes to fit a growth exponent", c.varName)
	}
	res, err := runSweepCase(c, modes, tf)
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if *csvFile != "" {
		if err := writeSweepCSVFile(*csvFile, res); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
	}
	if *plotFile != "" {
		if len(measures) == 0 {
			measures = listFlag{scenario.VirtualMeasure}
		}
		if err := plotSweep(*plotFile, c, res, *plotPhase, measures); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
	}
	if *asJSON {
		return printJSON(out, res)
	}
	return writeSweepTable(out, c, res)
}

// namedConfig is one mode of a sweep: its name and its configuration.
type namedConfig struct {
	name string
	cfg  rtnl.Config
}

// sweepModes returns the modes -config names: before, after, or -config
// files (each named by its file's base name).
func sweepModes(names []string) ([]namedConfig, error) {
	if len(names) == 0 {
		names = []string{"before", "after"}
	}
	var out []namedConfig
	seen := map[string]bool{}
	for _, n := range names {
		var m namedConfig
		switch n {
		case "":
			return nil, fmt.Errorf("-config: an empty mode name")
		case "before":
			m = namedConfig{n, rtnl.Before}
		case "after":
			m = namedConfig{n, rtnl.After}
		default:
			cfg, err := readConfig(n)
			if err != nil {
				return nil, fmt.Errorf("-config %s: not before, after or a readable config file: %w", n, err)
			}
			m = namedConfig{strings.TrimSuffix(filepath.Base(n), filepath.Ext(n)), cfg}
		}
		if seen[m.name] {
			return nil, fmt.Errorf("-config: mode %q given twice", m.name)
		}
		seen[m.name] = true
		out = append(out, m)
	}
	return out, nil
}

// parseSizes parses -n's comma-separated positive, distinct sizes.
func parseSizes(list string) ([]int, error) {
	v, err := parseSweepVar("n=" + list)
	if err != nil {
		return nil, err
	}
	return v.Values, nil
}

// seedOptions are the seed-specific flags of a sweep.
type seedOptions struct {
	family, rules, cpus int
	machine, start      string
	method              string
	threads             int
}

// seedCase returns the sweep of a seed's scenario over sizes.
func seedCase(seed, sizes string, o seedOptions, set map[string]bool) (*sweepCase, error) {
	if _, ok := sweepSizes[seed]; !ok {
		return nil, fmt.Errorf("no seed %q to sweep (have %s)", seed, strings.Join(scenario.SeedIDs, ", "))
	}
	only := map[string][]string{"family": {"003"}, "rules": {"003"}, "start": {"003"}, "cpus": {"003", "004"},
		"method": {"004"}, "threads": {"004"}}
	for f, seeds := range only {
		if set[f] && !slices.Contains(seeds, seed) {
			return nil, fmt.Errorf("-%s is an option of seed %s, not %s", f, strings.Join(seeds, " and "), seed)
		}
	}
	ks, err := parseSizes(sizes)
	if err != nil {
		return nil, err
	}
	c := &sweepCase{name: seed, varName: sweepVarNames[seed], sym: sweepVarNames[seed], sizes: ks}
	// report returns r with its makespan: the virtual time of the phases
	// the seed's script times, which the seeds table reports (the set-up
	// is not timed; seed 002's "script" is its two phases together).
	timed := map[string][]string{"000": {"link down"}, "001": {"create vlans", "bring up", "assign addresses", "attach to vrf"},
		"002": {"script"}}
	report := func(r *scenario.Report, err error) (*scenario.Report, time.Duration, error) {
		if err != nil {
			return nil, 0, err
		}
		phases := timed[seed]
		if seed == "004" {
			phases = []string{r.Phases[len(r.Phases)-1].Name}
		}
		var d time.Duration
		for _, name := range phases {
			p, ok := r.Phase(name)
			if !ok {
				return nil, 0, fmt.Errorf("seed %s: no phase %q", seed, name)
			}
			d += p.Virtual
		}
		return r, d, nil
	}
	switch seed {
	case "000":
		c.title = "seed 000: `ip link set testnh0 down` with N nexthops and routes"
		c.run = func(cfg rtnl.Config, n int, tr sim.Tracer) (*scenario.Report, time.Duration, error) {
			r, err := scenario.Seed000(cfg, scenario.Seed000Params{Nexthops: n, Machine: o.machine, Tracer: tr})
			if err != nil {
				return nil, 0, err
			}
			return report(r.Report, nil)
		}
	case "001":
		c.title = "seed 001: N VLANs on a bond"
		c.run = func(cfg rtnl.Config, n int, tr sim.Tracer) (*scenario.Report, time.Duration, error) {
			return report(scenario.Seed001(cfg, scenario.Seed001Params{VLANs: n, Machine: o.machine, Tracer: tr}))
		}
	case "002":
		c.title = "seed 002: N dummy interfaces created and deleted"
		c.run = func(cfg rtnl.Config, n int, tr sim.Tracer) (*scenario.Report, time.Duration, error) {
			return report(scenario.Seed002(cfg, scenario.Seed002Params{Interfaces: n, Machine: o.machine, Tracer: tr}))
		}
	case "003":
		return seed003Case(c, o)
	case "004":
		p := scenario.Seed004Params{Threads: o.threads, CPUs: o.cpus, Machine: o.machine}
		var err error
		p.Method, err = choose("-method", o.method, []scenario.Seed004Method{scenario.OneByOne, scenario.ByGroup, scenario.ByList})
		if err != nil {
			return nil, err
		}
		if o.threads < 1 {
			return nil, fmt.Errorf("-threads must be positive, not %d", o.threads)
		}
		c.title = fmt.Sprintf("seed 004: N devices deleted (%s)", p.Method)
		c.run = func(cfg rtnl.Config, n int, tr sim.Tracer) (*scenario.Report, time.Duration, error) {
			q := p
			q.Devices, q.Threads, q.Tracer = n, min(p.Threads, n), tr
			return report(scenario.Seed004(cfg, q))
		}
	}
	return c, nil
}

// seed003Case is the sweep of seed 003 over its namespaces.
func seed003Case(c *sweepCase, o seedOptions) (*sweepCase, error) {
	p := scenario.Seed003Params{Rules: o.rules, CPUs: o.cpus, Machine: o.machine}
	switch o.family {
	case 4:
		p.Family = rt.FamilyInet
	case 6:
		p.Family = rt.FamilyInet6
	default:
		return nil, fmt.Errorf("-family must be 4 or 6, not %d", o.family)
	}
	switch o.start {
	case "all":
		p.Start = scenario.AllAtOnce
	case "shell":
		p.Start = scenario.ShellLoop
	default:
		return nil, fmt.Errorf("-start must be all or shell, not %q", o.start)
	}
	prof, err := scenario.LoadMachine(o.machine, "003")
	if err != nil {
		return nil, err
	}
	c.cpus = cmp.Or(o.cpus, prof.Facts.CPUs, scenario.Seed003CPUs)
	c.sym = "K"
	c.title = fmt.Sprintf("seed 003: %d `ip -%d rule add` per namespace, in parallel", cmp.Or(o.rules, 1024), o.family)
	c.run = func(cfg rtnl.Config, k int, tr sim.Tracer) (*scenario.Report, time.Duration, error) {
		q := p
		q.Netns, q.Tracer = k, tr
		r, err := scenario.Seed003(cfg, q)
		if err != nil {
			return nil, 0, err
		}
		return r.Report, r.Makespan, nil
	}
	return c, nil
}

// templateCase returns the sweep of the template in file over its -var.
func templateCase(file string, vars []string, machine string) (*sweepCase, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	text := string(b)
	if len(vars) == 0 {
		return nil, fmt.Errorf("-script %s: give its variable with -var NAME=V1,V2,...", file)
	}
	var (
		vs    []sweepVar
		swept = -1
	)
	for _, s := range vars {
		v, err := parseSweepVar(s)
		if err != nil {
			return nil, err
		}
		for _, w := range vs {
			if w.Name == v.Name {
				return nil, fmt.Errorf("-var %s given twice", v.Name)
			}
		}
		if !usesVar(text, v.Name) {
			return nil, fmt.Errorf("-var %s: the template %s does not use $%s or ${%s}", v.Name, file, v.Name, v.Name)
		}
		if len(v.Values) > 1 {
			if swept >= 0 {
				return nil, fmt.Errorf("-var %s and -var %s both have several values: a sweep varies one variable (give the others one value)", vs[swept].Name, v.Name)
			}
			swept = len(vs)
		}
		vs = append(vs, v)
	}
	if swept < 0 {
		return nil, fmt.Errorf("%s needs two or more sizes to fit a growth exponent", vs[0].Name)
	}
	c := &sweepCase{name: file, varName: vs[swept].Name, sym: vs[swept].Name, sizes: vs[swept].Values,
		title: fmt.Sprintf("%s over %s", filepath.Base(file), vs[swept].Name)}
	expand := func(size int) (string, error) {
		at := make([]int, len(vs))
		for i, v := range vs {
			at[i] = v.Values[0]
		}
		at[swept] = size
		return expandTemplate(file, text, vs, at)
	}
	// Expand every size first: a template that fails says so before any run.
	scripts := map[int]string{}
	for _, n := range c.sizes {
		s, err := expand(n)
		if err != nil {
			return nil, err
		}
		if _, err := scenario.SplitPhases(s); err != nil {
			return nil, fmt.Errorf("%s with %s=%d: %w", file, c.varName, n, err)
		}
		scripts[n] = s
	}
	c.run = func(cfg rtnl.Config, n int, tr sim.Tracer) (*scenario.Report, time.Duration, error) {
		r, err := scenario.Script(cfg, scenario.ScriptParams{Name: fmt.Sprintf("%s %s=%d", filepath.Base(file), c.varName, n),
			Script: scripts[n], Machine: machine, Tracer: tr})
		if err != nil {
			return nil, 0, err
		}
		return r, r.Virtual(), nil
	}
	return c, nil
}

// runSweepCase runs c at each size in each mode and returns the results.
func runSweepCase(c *sweepCase, modes []namedConfig, tf *traceFlags) ([]sweepMode, error) {
	tr, err := tf.open()
	if err != nil {
		return nil, err
	}
	// The bar counts the sizes run: a run's work grows with its size.
	var work int64
	for _, k := range c.sizes {
		work += int64(len(modes)) * int64(k)
	}
	bar := newProgress("sweep", work)
	var (
		series    []scenario.SweepSeries
		makespans [][]float64
	)
	for _, m := range modes {
		s := scenario.SweepSeries{Mode: m.name, Sizes: c.sizes}
		var ms []float64
		for _, k := range c.sizes {
			name := fmt.Sprintf("sweep %s %s %s=%d", c.name, m.name, c.varName, k)
			r, d, err := c.run(m.cfg, k, tr.Proc(name))
			if err != nil {
				bar.Finish()
				tr.Close(errOut)
				return nil, fmt.Errorf("%s, %s=%d: %w", m.name, c.varName, k, err)
			}
			s.Reports = append(s.Reports, r)
			ms = append(ms, d.Seconds())
			bar.Add(int64(k))
		}
		series = append(series, s)
		makespans = append(makespans, ms)
	}
	bar.Finish()
	if err := tr.Close(errOut); err != nil {
		return nil, err
	}
	return sweepResults(c, series, makespans)
}

// fitOf returns the fit of ys over the sizes xs within [lo, hi], or nil
// where there is none (fewer than two points, or a value of 0).
func fitOf(xs []int, ys []float64, lo, hi int) *scenario.Fit {
	var fx, fy []float64
	for i, x := range xs {
		if x >= lo && x <= hi {
			fx, fy = append(fx, float64(x)), append(fy, ys[i])
		}
	}
	f, err := scenario.FitGrowth(fx, fy)
	if err != nil {
		return nil
	}
	return &f
}

// choose returns the value among values whose String is s, or an error
// naming flag and every choice.
func choose[T fmt.Stringer](flag, s string, values []T) (T, error) {
	var names []string
	for _, v := range values {
		if v.String() == s {
			return v, nil
		}
		names = append(names, v.String())
	}
	var zero T
	return zero, fmt.Errorf("%s must be %s or %s, not %q", flag, strings.Join(names[:len(names)-1], ", "), names[len(names)-1], s)
}
