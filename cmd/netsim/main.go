// Command netsim runs netsim's scenarios and prints what the simulated kernel
// took (virtual time), what the simulation took (real time), and the work
// counters that explain the difference between the kernel's behaviour before
// and after the seed patches.
//
// Usage:
//
//	netsim seeds [-machine NAME|FILE] [-only 001,004] [-scale F] [-json]
//	netsim ip [-machine NAME|FILE] [-before|-after|-config FILE] [-netsim-time] [-netsim-json] [-triestat] [-rt6stats] [-force] [-n NETNS] [-batch FILE] ARGS...
//	netsim build [-machine NAME|FILE] [-dummies N] [-vlans N] [-one-by-one N] [-json]
//	netsim batch [-machine NAME|FILE] -netns K [-parallel] [-before|-after] [-cpus P] [-4|-6] [-json] FILE
//	netsim sweep SEED [-machine NAME|FILE] [-n SIZES] [-config before,after,FILE] [-family 4|6] [-rules N] [-cpus P] [-start all|shell] [-method M] [-threads T] [-plot FILE.svg] [-phase NAME] [-measure M,...] [-csv FILE] [-json]
//	netsim sweep -script TEMPLATE -var NAME=V1,V2,... [-var NAME=V] [-machine NAME|FILE] [-config ...] [-plot FILE.svg] [-csv FILE] [-json]
//	netsim diff [-hash-seed N] FILE | -gen SEED [-steps N] [-print]
//	netsim machines
//	netsim machine [-md [-own]] NAME|FILE
//
// -machine chooses the machine profile a run's costs come from (package
// machine): a shipped one by name (devvm, the development VM; seed000 …
// seed004, the seeds' machines) or a profile file. By default each seed
// runs on its own machine's profile (so does sweep SEED), batch on seed
// 003's, and ip, build and sweep -script on the development VM's.
//
// Every command takes -trace FILE.json: a Chrome trace of virtual time,
// which ui.perfetto.dev opens, with a process per simulated machine, its
// tasks as threads, and locks held and waited for, sleeps, RCU grace
// periods and requests as spans. -trace-events N caps the events kept
// (default 200000, shared by the machines; a machine over its share keeps
// its first and last events); a truncated trace says so
// on stderr and in the file. Runs longer than a second draw a progress bar
// on stderr when it is a terminal. A failed command exits non-zero.
//
// seeds, ip, build, batch and sweep take -pprof FILE: a pprof profile of
// virtual time (go tool pprof reads it), the virtual CPU time, every
// counter and the waits by modelled kernel call stack (package
// sim/vtprof), each machine's samples labelled with its run.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "ip" {
		os.Exit(ipMain(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "diff" {
		os.Exit(diffMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "netsim:", err)
		os.Exit(2)
	}
}

const usage = `usage: netsim COMMAND [flags]

commands:
  seeds   rerun the seed patches' experiments at full scale, before and
          after; print published vs simulated (virtual) vs real time,
          marking the published times the cost model is calibrated on
  ip      run ip commands or an ip -batch script in a fresh simulated
          kernel, printing what ip prints (netsim ip -help)
  build   build thousands of devices with addresses, then delete them,
          before and after the seed patches; print virtual and real times
  sweep   run a seed over its size, or an ip script template over a
          variable, before and after; print every phase's virtual time
          and counters with their growth exponents, as a table, JSON, CSV
          or a log-log plot (netsim sweep -help)
  batch   run an ip batch file in K namespaces, one process each, one
          after another or at once (netsim batch -help)
  diff    run an ip script on the real kernel (unshare -n) and on netsim,
          print the first difference (netsim diff -help)
  machines  list the shipped machine profiles
  machine   print a machine profile, every cost with its source
            (netsim machine -help)

seeds, ip, build, sweep and batch take -machine NAME|FILE: the machine
profile the run's costs come from (netsim machines lists the shipped ones).

Every command takes -trace FILE.json (a Chrome/Perfetto trace of virtual
time, for ui.perfetto.dev) and -trace-events N (the cap on its events).
seeds, ip, build, sweep and batch take -pprof FILE: a profile of virtual
time and counted work by modelled kernel call stack, for go tool pprof.
`

func run(args []string, out io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(out, usage)
		return nil
	}
	switch args[0] {
	case "seeds":
		return runSeeds(args[1:], out)
	case "build":
		return runBuild(args[1:], out)
	case "sweep":
		return runSweep(args[1:], out)
	case "batch":
		return runBatch(args[1:], out)
	case "machines":
		return runMachines(args[1:], out)
	case "machine":
		return runMachine(args[1:], out)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(out, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

// parseFlags parses a command's flags; help reports -h or -help, after
// which the flag set has printed its usage and the command does nothing.
func parseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	err = fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return true, nil
	}
	return false, err
}

func runBuild(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(out)
	var p scenario.BuildParams
	fs.IntVar(&p.Dummies, "dummies", 3000, "dummy devices, each up with an IPv6 address")
	fs.IntVar(&p.VLANs, "vlans", 300, "VLANs on a bond, each up with an IPv6 address")
	fs.IntVar(&p.OneByOne, "one-by-one", 20, "dummies deleted one request at a time")
	fs.StringVar(&p.Machine, "machine", "", machineUsage+" (default: devvm, the development VM)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	tf := addTraceFlags(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("build: unexpected argument %q", fs.Arg(0))
	}
	if p.Dummies < 1 || p.VLANs < 1 || p.VLANs > 4094 || p.OneByOne < 1 || p.Dummies > 65535 {
		return fmt.Errorf("build: need 1 ≤ dummies ≤ 65535, 1 ≤ vlans ≤ 4094, one-by-one ≥ 1")
	}
	tr, err := tf.open()
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	var reports []*scenario.Report
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		p.Tracer = tr.Proc("build " + cfg.String())
		r, err := scenario.Build(cfg, p)
		if err != nil {
			tr.Close(errOut)
			return err
		}
		reports = append(reports, r)
	}
	if err := tr.Close(errOut); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if *asJSON {
		return writeJSON(out, reports)
	}
	return scenario.WriteTable(out, reports, sim.HWAddrCompare, sim.RCUBarrier, sim.Sleep)
}

// seedsMemoryLimit is the seeds table's soft memory limit unless
// GOMEMLIMIT sets one: seed 003's two "before" runs go at once and their
// heaps peak together, about 1 GiB live; with the collector's default
// headroom the process reached 1.4-1.7 GB, with this limit 1.06 GB in the
// same time (docs/performance.md).
const seedsMemoryLimit = 1150 << 20

func runSeeds(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("seeds", flag.ContinueOnError)
	fs.SetOutput(out)
	only := fs.String("only", "", "comma-separated seeds to run (default: all implemented: "+strings.Join(scenario.SeedIDs, ",")+")")
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	scale := fs.Float64("scale", 1, "shrink every seed's size by this factor (0 < F ≤ 1) for a quick run; published times apply only at 1")
	mach := fs.String("machine", "", machineUsage+" that every seed runs on (default: each seed's own machine, seed000 … seed004)")
	tf := addTraceFlags(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("seeds: unexpected argument %q", fs.Arg(0))
	}
	var ids []string
	if *only != "" {
		for _, s := range strings.Split(*only, ",") {
			ids = append(ids, strings.TrimSpace(s))
		}
	}
	if !(*scale > 0 && *scale <= 1) {
		return fmt.Errorf("seeds: scale must be in (0, 1], not %g", *scale)
	}
	tr, err := tf.open()
	if err != nil {
		return fmt.Errorf("seeds: %w", err)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(seedsMemoryLimit))
	}
	var bar *progress
	rows, err := scenario.RunSeedsWith(ids, scenario.SeedsOptions{
		Scale:   *scale,
		Machine: *mach,
		Trace:   tr.Proc,
		Progress: func(done, total int) {
			if done == 0 {
				bar = newProgress("seeds", int64(total))
			}
			bar.Set(int64(done))
		},
	})
	bar.Finish()
	if cerr := tr.Close(errOut); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("seeds: %w", err)
	}
	if *asJSON {
		type row struct {
			Seed       string  `json:"seed"`
			Phase      string  `json:"phase"`
			Mode       string  `json:"mode"`
			PublishedS float64 `json:"published_s"`
			Calibrated bool    `json:"calibrated"`
			VirtualS   float64 `json:"virtual_s"`
			Ratio      float64 `json:"ratio"`
			RealS      float64 `json:"real_s"`
			// Counters are the work the row's phase counted (its whole
			// run for a seed reported as one phase).
			Counters map[string]int64 `json:"counters"`
		}
		var js []row
		for _, r := range rows {
			var c sim.Counters
			if r.Report != nil {
				c = r.Report.Counters
				if p, ok := r.Report.Phase(r.Phase); ok {
					c = p.Counters
				}
			}
			js = append(js, row{r.Seed, r.Phase, r.Mode, r.Published, r.Calibrated, r.Virtual.Seconds(), r.Ratio(), r.Real.Seconds(), c.Map()})
		}
		return printJSON(out, js)
	}
	// A calibrated row's published time is marked: the cost model takes a
	// constant from it, so its ratio is no test of the model.
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "seed\tphase\tmode\tpublished \tvirtual\tratio\treal\t")
	marked := false
	for _, r := range rows {
		pub, ratio := "- ", "-"
		if r.Published > 0 {
			mark := " "
			if r.Calibrated {
				mark, marked = "*", true
			}
			pub, ratio = fmt.Sprintf("%.3fs%s", r.Published, mark), fmt.Sprintf("%.2f", r.Ratio())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.3fs\t%s\t%s\t\n", r.Seed, r.Phase, r.Mode, pub, r.Virtual.Seconds(), ratio, r.Real.Round(time.Microsecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if marked {
		if _, err := fmt.Fprint(out, "* calibrated: a cost constant is fitted to or derived from this published time\n"+
			"  (scenario.Calibrations); the other published times are predictions\n"); err != nil {
			return err
		}
	}
	if sc := scenario.ScoreRows(rows); sc.Published > 0 {
		_, err := fmt.Fprintln(out, sc)
		return err
	}
	return nil
}

type jsonPhase struct {
	Scenario string           `json:"scenario"`
	Phase    string           `json:"phase"`
	Mode     string           `json:"mode"`
	VirtualS float64          `json:"virtual_s"`
	RealS    float64          `json:"real_s"`
	Counters map[string]int64 `json:"counters"`
}

func writeJSON(out io.Writer, reports []*scenario.Report) error {
	var rows []jsonPhase
	for _, r := range reports {
		for _, p := range r.Phases {
			rows = append(rows, jsonPhase{r.Scenario, p.Name, r.Mode, p.Virtual.Seconds(), p.Real.Seconds(), p.Counters.Map()})
		}
	}
	return printJSON(out, rows)
}

// printJSON writes v as the commands' -json output: indented JSON.
func printJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
