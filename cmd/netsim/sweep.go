// `netsim sweep`: a seed's scenario over a range of sizes in both modes,
// the makespans, their fitted growth exponents and a log-log plot.

package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

// runSweep runs a seed's scenario over sizes in both modes and prints the
// makespans and the fitted growth exponent of each mode.
func runSweep(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(out)
	sizes := fs.String("n", "16,32,64,128,256,512,1024,2048,4096", "comma-separated sizes (seed 003: namespaces)")
	family := fs.Int("family", 4, "seed 003: 4 or 6")
	rules := fs.Int("rules", 0, "seed 003: rules per namespace (default: the seed's 1024)")
	cpus := fs.Int("cpus", 0, "virtual CPUs (default: the machine's)")
	mach := fs.String("machine", "", machineUsage+" (default: seed003, the seed's machine)")
	start := fs.String("start", "all", "seed 003: how the jobs start: all (at once) or shell (the script's loop)")
	plotFile := fs.String("plot", "", "draw a log-log plot of the makespans to this file (.svg, .png, .pdf)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	tf := addTraceFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(out, "usage: netsim sweep 003 [-machine NAME|FILE] [-n 16,32,...] [-family 4|6] [-rules N] [-cpus P] [-start all|shell] [-plot FILE.svg] [-json] [-trace FILE.json] [-pprof FILE]")
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
		seed = ""
	}
	if seed != "003" {
		fs.Usage()
		return fmt.Errorf("sweep: the seed to sweep is 003 (the only one sized by a parallel count)")
	}
	var ks []int
	for _, f := range strings.Split(*sizes, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return fmt.Errorf("sweep: -n: %q is not a positive size", f)
		}
		ks = append(ks, k)
	}
	if len(ks) < 2 {
		return fmt.Errorf("sweep: -n needs two or more sizes to fit a growth exponent")
	}
	p := scenario.Seed003Params{Rules: *rules, CPUs: *cpus, Machine: *mach}
	switch *family {
	case 4:
		p.Family = rt.FamilyInet
	case 6:
		p.Family = rt.FamilyInet6
	default:
		return fmt.Errorf("sweep: -family must be 4 or 6, not %d", *family)
	}
	switch *start {
	case "all":
		p.Start = scenario.AllAtOnce
	case "shell":
		p.Start = scenario.ShellLoop
	default:
		return fmt.Errorf("sweep: -start must be all or shell, not %q", *start)
	}
	prof, err := scenario.LoadMachine(*mach, "003")
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	P := cmp.Or(*cpus, prof.Facts.CPUs, scenario.Seed003CPUs)

	type modeResult struct {
		Mode     string    `json:"mode"`
		Sizes    []int     `json:"sizes"`
		Seconds  []float64 `json:"makespan_s"`
		Exponent float64   `json:"exponent"`
		// Up to P and from P on, where a fit has two points or more.
		ExponentUpToP *float64 `json:"exponent_up_to_p,omitempty"`
		ExponentFromP *float64 `json:"exponent_from_p,omitempty"`
	}
	tr, err := tf.open()
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	// The work of a run grows with its namespaces: the bar counts them.
	var work int64
	for _, k := range ks {
		work += 2 * int64(k)
	}
	bar := newProgress("sweep", work)
	modes := []rtnl.Config{rtnl.Before, rtnl.After}
	var pointsByMode [][]scenario.Seed003Point
	for _, cfg := range modes {
		pts, err := scenario.Seed003SweepWith(cfg, p, ks,
			func(k int) sim.Tracer { return tr.Proc(fmt.Sprintf("sweep 003 %s netns=%d", cfg, k)) },
			func(k int) { bar.Add(int64(k)) })
		if err != nil {
			bar.Finish()
			tr.Close(errOut)
			return fmt.Errorf("sweep: %w", err)
		}
		pointsByMode = append(pointsByMode, pts)
	}
	bar.Finish()
	if err := tr.Close(errOut); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	var results []modeResult
	for i, cfg := range modes {
		pts := pointsByMode[i]
		var err error
		mr := modeResult{Mode: cfg.String()}
		for _, pt := range pts {
			mr.Sizes = append(mr.Sizes, pt.Netns)
			mr.Seconds = append(mr.Seconds, pt.Makespan.Seconds())
		}
		if mr.Exponent, err = scenario.SweepExponent(pts, 0, 1<<30); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
		if e, err := scenario.SweepExponent(pts, 0, P); err == nil {
			mr.ExponentUpToP = &e
		}
		if e, err := scenario.SweepExponent(pts, P, 1<<30); err == nil {
			mr.ExponentFromP = &e
		}
		results = append(results, mr)
	}
	if *plotFile != "" {
		if err := plotSweep(*plotFile, p, results[0].Sizes, results[0].Seconds, results[1].Seconds); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
	}
	if *asJSON {
		return printJSON(out, results)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "netns\tbefore\tafter\t")
	for i, k := range ks {
		fmt.Fprintf(tw, "%d\t%.3fs\t%.3fs\t\n", k, results[0].Seconds[i], results[1].Seconds[i])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		fmt.Fprintf(out, "%s: makespan ∝ K^%.2f", r.Mode, r.Exponent)
		if r.ExponentUpToP != nil {
			fmt.Fprintf(out, "; K ≤ %d: K^%.2f", P, *r.ExponentUpToP)
		}
		if r.ExponentFromP != nil {
			fmt.Fprintf(out, "; K ≥ %d: K^%.2f", P, *r.ExponentFromP)
		}
		fmt.Fprintln(out)
	}
	return nil
}

// plotSweep draws the makespans of both modes against the namespace count
// on log-log axes.
func plotSweep(file string, p scenario.Seed003Params, ks []int, before, after []float64) error {
	pl := plot.New()
	fam := 4
	if p.Family == rt.FamilyInet6 {
		fam = 6
	}
	rules := p.Rules
	if rules == 0 {
		rules = 1024
	}
	pl.Title.Text = fmt.Sprintf("seed 003: %d `ip -%d rule add` per namespace, in parallel", rules, fam)
	pl.X.Label.Text = "namespaces K"
	pl.Y.Label.Text = "makespan (virtual s)"
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.LogTicks{}, plot.LogTicks{}
	pts := func(ys []float64) plotter.XYs {
		xy := make(plotter.XYs, len(ks))
		for i := range ks {
			xy[i].X, xy[i].Y = float64(ks[i]), ys[i]
		}
		return xy
	}
	if err := plotutil.AddLinePoints(pl, "before (RTNL)", pts(before), "after (per-ops lock)", pts(after)); err != nil {
		return err
	}
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Legend.YOffs = -vg.Points(14) // below the title
	return pl.Save(6*vg.Inch, 4*vg.Inch, file)
}
