// Command validate runs the same-machine validation: every row of
// internal/validate (the seeds' experiments this kernel can run, at several
// scales) on the real kernel, each repetition in a fresh private network
// namespace, then the same scripts in netsim under a machine profile, and
// prints measured, predicted and their ratio per row.
//
//	sudo go run ./internal/measure/validate                 # every row, 3 repetitions
//	sudo go run ./internal/measure/validate -rows '^004/' -reps 5 -save v.json
//	go run ./internal/measure/validate -netsim-only          # predictions only, no root
//	go run ./internal/measure/validate -measured v.json -md docs/validation.md
//	go run ./internal/measure/validate -netsim-only -explain -rows 'fib/'   # where each prediction's time goes
//	go run ./internal/measure/validate -measured v2.json -compare v.json    # and how far v2's measurements are from v's
//	go run ./internal/measure/validate -measured v.json -no-memory          # the predictions without the memory model
//
// Each repetition runs the row's set-up (`ip -batch` files, a sysctl, `ip
// netns add`) in a fresh `unshare -n` (rows with named namespaces: `unshare
// -m -n` with a private tmpfs on /run/netns, so the host's is untouched),
// sleeps a second, times the timed step with bash's `time` (wall, user,
// sys), then checks with `ip -o ...` that the step did what it says. Before
// each repetition it waits (up to -idle-wait) for an idle machine, as
// internal/measure/costs.sh does, and records how busy the machine was. It
// sends no packet and changes no host setting.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/netsimlab/netsim/internal/validate"
	"github.com/netsimlab/netsim/machine"
	"github.com/netsimlab/netsim/sim"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "validate:", err)
		os.Exit(1)
	}
}

type options struct {
	machine, rows, measured, save, md string
	compare                           string
	reps, maxScale, idleMax           int
	idleWait, long                    time.Duration
	netsimOnly, keep, explain, noMem  bool
}

func run(args []string) error {
	var o options
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.StringVar(&o.machine, "machine", "devvm", "machine profile NAME|FILE netsim predicts for")
	fs.StringVar(&o.rows, "rows", "", "run only the rows whose ID (SEED/NAME@SCALE) matches this regexp")
	fs.IntVar(&o.maxScale, "max-scale", 0, "run only the rows of at most this scale (0: any)")
	fs.IntVar(&o.reps, "reps", 3, "repetitions of each row on the real kernel")
	fs.BoolVar(&o.netsimOnly, "netsim-only", false, "print netsim's predictions only (no root needed)")
	fs.StringVar(&o.measured, "measured", "", "take the measurements from this saved run instead of measuring")
	fs.StringVar(&o.save, "save", "", "save the real run's measurements to this JSON file")
	fs.StringVar(&o.md, "md", "", "write the table as markdown to this file")
	fs.StringVar(&o.compare, "compare", "", "say how far the measurements are from those of this earlier saved run (the machine's own variation)")
	fs.DurationVar(&o.idleWait, "idle-wait", 120*time.Second, "before each repetition, wait up to this long for an idle machine (0: do not wait)")
	fs.IntVar(&o.idleMax, "idle-max", 10, "an idle machine is at most this % busy")
	fs.DurationVar(&o.long, "long", 30*time.Second, "a row whose first repetition (set-up and timed step) takes longer runs once (0: always -reps)")
	fs.BoolVar(&o.noMem, "no-memory", false, "predict without the memory model (the profile's Memory zeroed: every working set fits the caches)")
	fs.BoolVar(&o.explain, "explain", false, "print where each row's predicted time goes, kind by kind")
	fs.BoolVar(&o.keep, "keep", false, "keep the generated scripts (their directory is printed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.reps < 1 {
		return fmt.Errorf("-reps must be positive")
	}
	prof, err := machine.Load(o.machine)
	if err != nil {
		return err
	}
	costs := prof.Costs
	if o.noMem {
		costs.Memory = sim.Memory{}
	}
	rows, err := validate.Select(validate.Rows(), o.rows, o.maxScale)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("no row matches -rows %q -max-scale %d", o.rows, o.maxScale)
	}
	meta := validate.Meta{Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Kernel: kernel(), CPU: cpu(),
		Load: loadavg(), Machine: o.machine, Command: "sudo go run ./internal/measure/validate " + shellQuote(args)}

	// The netsim side first: it is quick, and it says how long the real
	// side will take.
	res := make([]*validate.Result, len(rows))
	var expect time.Duration
	for i, r := range rows {
		p, err := validate.Predict(r, costs)
		res[i] = &validate.Result{Row: r, Pred: p, Err: err}
		if err != nil {
			fmt.Fprintf(os.Stderr, "# %s: netsim: %v\n", r.ID(), err)
			continue
		}
		one := p.Setup + p.Timed + 2*time.Second
		if o.long > 0 && p.Setup+p.Timed > o.long {
			expect += one
		} else {
			expect += time.Duration(o.reps) * one
		}
		fmt.Fprintf(os.Stderr, "# %s: predicted %v (netsim took %v)\n", r.ID(), p.Timed, p.Real.Round(time.Millisecond))
		if o.explain {
			if err := validate.Explain(os.Stderr, p, costs); err != nil {
				return err
			}
		}
	}

	if o.netsimOnly {
		fmt.Fprintf(os.Stderr, "# a real run of these rows (-reps %d -long %v) would take about %v by netsim's predictions\n", o.reps, o.long, expect.Round(time.Second))
	}
	var saved *validate.Run
	switch {
	case o.measured != "":
		if saved, err = validate.LoadRun(o.measured); err != nil {
			return err
		}
		meta = saved.Meta
		meta.Measured = o.measured
	case !o.netsimOnly:
		fmt.Fprintf(os.Stderr, "# real side: %d rows × %d repetitions, about %v by netsim's predictions (set-ups, timed steps, a 2 s pause each)\n",
			len(rows), o.reps, expect.Round(time.Second))
		if saved, err = measureAll(rows, o, meta); err != nil {
			return err
		}
		saved.Meta.Load += " → " + loadavg()
		meta = saved.Meta
	}
	if saved != nil {
		for _, r := range res {
			r.Meas = saved.Find(r.Row.ID())
		}
		if o.compare != "" {
			earlier, err := validate.LoadRun(o.compare)
			if err != nil {
				return err
			}
			meta.Compare = validate.CompareRuns(earlier, saved, "`"+o.compare+"` ("+earlier.Meta.Date+")", "this run")
			fmt.Fprintln(os.Stderr, "#", meta.Compare)
		}
	}
	if err := validate.WriteTable(os.Stdout, res); err != nil {
		return err
	}
	if o.md != "" {
		var b bytes.Buffer
		if err := validate.WriteMarkdown(&b, meta, res); err != nil {
			return err
		}
		if err := os.WriteFile(o.md, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	for _, r := range res {
		if r.Err != nil {
			return errors.New("netsim could not run every row (above)")
		}
	}
	return nil
}

// measureAll runs every row o.reps times on the real kernel.
func measureAll(rows []*validate.Row, o options, meta validate.Meta) (*validate.Run, error) {
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("the real side needs root (it creates network namespaces); -netsim-only prints the predictions alone")
	}
	for _, c := range []string{"unshare", "ip", "bash", "mount", "sysctl"} {
		if _, err := exec.LookPath(c); err != nil {
			return nil, fmt.Errorf("%s not found", c)
		}
	}
	host, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return nil, err
	}
	if out, err := exec.Command("unshare", "-n", "readlink", "/proc/self/ns/net").Output(); err != nil || strings.TrimSpace(string(out)) == host {
		return nil, fmt.Errorf("unshare -n does not give a private network namespace")
	}
	dir, err := os.MkdirTemp("", "netsim-validate.")
	if err != nil {
		return nil, err
	}
	if o.keep {
		fmt.Fprintf(os.Stderr, "# scripts kept in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	run := &validate.Run{Meta: meta}
	save := func() error {
		if o.save == "" {
			return nil
		}
		return run.Save(o.save)
	}
	for i, r := range rows {
		d := filepath.Join(dir, fmt.Sprintf("row%02d", i+1))
		if err := writeScripts(d, r); err != nil {
			return nil, err
		}
		m := &validate.Measured{ID: r.ID()}
		run.Rows = append(run.Rows, m)
		for rep := 1; rep <= o.reps; rep++ {
			if w := waitDismantled(time.Minute); w > time.Second {
				fmt.Fprintf(os.Stderr, "#   waited %v for earlier namespaces to be dismantled\n", w.Round(time.Millisecond))
			}
			b := waitIdle(o.idleWait, o.idleMax)
			fmt.Fprintf(os.Stderr, "# %s rep %d (machine %d%% busy, load %s)\n", r.ID(), rep, b, loadavg())
			x, err := measure(d, r, host)
			if err != nil {
				_ = save()
				return nil, fmt.Errorf("%s: %w", r.ID(), err)
			}
			m.Reps = append(m.Reps, x)
			fmt.Fprintf(os.Stderr, "#   wall %.4fs user %.3fs sys %.3fs (set-up %.2fs; machine %d%% busy)\n", x.Wall, x.User, x.Sys, x.Setup, x.Busy)
			if rep == 1 && o.long > 0 && time.Duration((x.Wall+x.Setup)*1e9) > o.long {
				fmt.Fprintf(os.Stderr, "#   longer than -long %v: one repetition\n", o.long)
				break
			}
		}
		if err := save(); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// measure runs one repetition of row r from the scripts in d.
func measure(d string, r *validate.Row, host string) (validate.Rep, error) {
	var x validate.Rep
	args := []string{"-n", "bash", filepath.Join(d, "inner.sh")}
	if r.MultiNetns() {
		args = append([]string{"-m", "--propagation", "private"}, args...)
	}
	cmd := exec.Command("unshare", args...)
	mnt, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return x, err
	}
	cmd.Env = append(os.Environ(), "HOST_NS="+host, "HOST_MNT="+mnt, "D="+d)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	a := cpuStat()
	out, err := cmd.Output()
	x.Busy = busy(a, cpuStat())
	if err != nil {
		return x, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var check int = -1
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 4 && f[0] == "time":
			x.Wall, _ = strconv.ParseFloat(f[1], 64)
			x.User, _ = strconv.ParseFloat(f[2], 64)
			x.Sys, _ = strconv.ParseFloat(f[3], 64)
		case len(f) == 2 && f[0] == "setup":
			x.Setup, _ = strconv.ParseFloat(f[1], 64)
		case len(f) == 2 && f[0] == "check":
			check, _ = strconv.Atoi(f[1])
		}
	}
	if x.Wall <= 0 {
		return x, fmt.Errorf("no time in the output: %q", out)
	}
	if check != r.Want {
		return x, fmt.Errorf("check `ip -o %s`: %d lines, want %d", strings.Join(r.Check, " "), check, r.Want)
	}
	return x, nil
}

// shellQuote returns args as a shell would need them typed.
func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./@=:,+-") != "" {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
