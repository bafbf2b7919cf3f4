// `netsim batch`: an ip -batch file run in K namespaces, serially or in
// parallel, before or after the seed patches, timed in virtual time.

package main

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

const batchUsage = `usage: netsim batch [-machine NAME|FILE] -netns K [-parallel] [-before|-after] [-cpus P] [-4|-6] [-json] [-trace FILE.json] [-pprof FILE] FILE

Runs the ip batch FILE in K fresh network namespaces ns-1 .. ns-K, one
` + "`ip -n ns-I -batch FILE`" + ` process each (seed 003's experiment for any
script), on P virtual CPUs of seed 003's machine (or of -machine's), and prints the makespan,
the CPU time and the locks taken. Without -parallel the processes run one
after another, as a plain shell loop would; with it they are forked by a
shell loop and run at once, as with ` + "`&` and `wait`" + `.
`

// runBatch is `netsim batch`.
func runBatch(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("batch", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() { fmt.Fprint(out, batchUsage); fs.PrintDefaults() }
	netns := fs.Int("netns", 1, "namespaces, one ip process each")
	parallel := fs.Bool("parallel", false, "run the processes at once")
	before := fs.Bool("before", false, "the kernel before the seed patches")
	after := fs.Bool("after", false, "the kernel after them (the default)")
	cpus := fs.Int("cpus", 0, fmt.Sprintf("virtual CPUs (default: the machine's; %d, seed 003's, if its profile does not say)", scenario.Seed003CPUs))
	mach := fs.String("machine", "", machineUsage+" (default: seed003, seed 003's machine)")
	v4 := fs.Bool("4", false, "run ip -4")
	v6 := fs.Bool("6", false, "run ip -6")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	tf := addTraceFlags(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("batch: one FILE expected")
	}
	if *before && *after {
		return fmt.Errorf("batch: -before and -after exclude each other")
	}
	if *v4 && *v6 {
		return fmt.Errorf("batch: -4 and -6 exclude each other")
	}
	if *netns < 1 || *netns > 1<<16 {
		return fmt.Errorf("batch: -netns must be 1..65536, not %d", *netns)
	}
	if *cpus < 0 {
		return fmt.Errorf("batch: -cpus must be positive, not %d", *cpus)
	}
	prof, err := scenario.LoadMachine(*mach, "003")
	if err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	if *cpus == 0 {
		*cpus = cmp.Or(prof.Facts.CPUs, scenario.Seed003CPUs)
	}
	file := fs.Arg(0)
	script, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	cfg := rtnl.After
	if *before {
		cfg = rtnl.Before
	}
	tr, err := tf.open()
	if err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	k, err := scenario.NewSeed003Kernel(cfg, *cpus, &prof.Costs, tr.Proc("batch "+cfg.String()))
	if err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	w := k.World()
	if _, err := scenario.JobNamespaces(k, w.NewTask("setup"), *netns); err != nil {
		return fmt.Errorf("batch: %w", err)
	}

	ipArgs := func(i int) []string {
		a := []string{"-n", fmt.Sprintf("ns-%d", i)}
		if *v4 {
			a = append(a, "-4")
		}
		if *v6 {
			a = append(a, "-6")
		}
		return append(a, "-batch", file)
	}
	bar := newProgress("batch", int64(*netns))
	var stderr bytes.Buffer
	failed := 0
	var jobs []*sim.Task
	job := func(i int) func(t *sim.Task) {
		return func(t *sim.Task) {
			ip := iproute.New(k, t)
			ip.Stdout, ip.Stderr = io.Discard, &stderr
			ip.Open = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(script)), nil }
			ip.ChargeProcess = true // its exec, -n's namespace switch, its lines
			if ip.Main(ipArgs(i)) != 0 {
				failed++
			}
			bar.Add(1)
		}
	}
	start, real0 := w.Now(), time.Now()
	w.Spawn("bash", func(t *sim.Task) {
		for i := 1; i <= *netns; i++ {
			if *parallel {
				t.Charge(sim.Fork, 1)
				jobs = append(jobs, w.SpawnFrom(t, fmt.Sprintf("ip ns-%d", i), job(i)))
			} else {
				job(i)(t) // the shell waits for each process
			}
		}
	})
	end := w.Run()
	elapsed := time.Since(real0)
	bar.Finish()
	if err := tr.Close(errOut); err != nil {
		return fmt.Errorf("batch: %w", err)
	}

	var cpu, spin time.Duration
	for _, t := range w.Tasks() {
		cpu += t.CPUTime() - t.SpinTime()
	}
	st := k.RTNL().Stats()
	spin = st.SpinCPU
	var rtnlTaken, opsTaken int64
	for _, name := range k.NetNames() {
		n := k.Net(name)
		for _, fam := range []rt.Family{rt.FamilyInet, rt.FamilyInet6} {
			rtnlTaken += n.Rules(fam).RTNLAcquires()
			opsTaken += n.Rules(fam).LockAcquires()
		}
	}
	res := struct {
		Mode         string  `json:"mode"`
		Netns        int     `json:"netns"`
		Parallel     bool    `json:"parallel"`
		CPUs         int     `json:"cpus"`
		MakespanS    float64 `json:"makespan_s"`
		CPUS         float64 `json:"cpu_s"`
		SpinS        float64 `json:"spin_s"`
		RTNLAcquires int64   `json:"rtnl_acquires"`
		RTNLHoldMaxS float64 `json:"rtnl_hold_max_s"`
		RuleRTNL     int64   `json:"rule_rtnl_acquires"`
		RuleOpsLock  int64   `json:"rule_ops_lock_acquires"`
		Failed       int     `json:"failed_processes"`
		RealS        float64 `json:"real_s"`
	}{cfg.String(), *netns, *parallel, *cpus, end.Sub(start).Seconds(), cpu.Seconds(), spin.Seconds(),
		st.Acquires, st.HoldMax.Seconds(), rtnlTaken, opsTaken, failed, elapsed.Seconds()}
	if *asJSON {
		if err := printJSON(out, res); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "mode\t%s\n", res.Mode)
		fmt.Fprintf(tw, "processes\t%d (%s)\n", res.Netns, map[bool]string{false: "one after another", true: "at once"}[res.Parallel])
		fmt.Fprintf(tw, "makespan\t%.6fs virtual on %d CPUs\n", res.MakespanS, res.CPUs)
		fmt.Fprintf(tw, "CPU time\t%.3fs working, %.3fs spinning on RTNL\n", res.CPUS, res.SpinS)
		fmt.Fprintf(tw, "RTNL\t%d acquisitions, longest hold %v\n", res.RTNLAcquires, st.HoldMax)
		fmt.Fprintf(tw, "rule changes\t%d took RTNL, %d the rules' own lock\n", res.RuleRTNL, res.RuleOpsLock)
		fmt.Fprintf(tw, "real\t%v\n", elapsed.Round(time.Millisecond))
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if failed > 0 {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return fmt.Errorf("batch: %d of %d processes failed; the first said: %s", failed, *netns, msg)
	}
	return nil
}
