// Seed 003, "net: fib_rules: RTNL-less RTM_NEWRULE and RTM_DELRULE": many
// namespaces filled with policy rules in parallel (fib_nl_newrule,
// net/core/fib_rules.c).

package scenario

import (
	"fmt"
	"math"
	"time"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// Seed003Start is how seed 003's `ip -batch` jobs are started.
type Seed003Start uint8

const (
	// ShellLoop starts them as the patch's script does: one bash loop
	// forking `nsenter --net=NS ip -batch FILE &` per namespace, serially.
	ShellLoop Seed003Start = iota
	// AllAtOnce starts every job at time zero: the kernel's scaling alone,
	// without the shell's serial forks.
	AllAtOnce
)

// String returns "shell-loop" or "all-at-once".
func (s Seed003Start) String() string {
	switch s {
	case ShellLoop:
		return "shell-loop"
	case AllAtOnce:
		return "all-at-once"
	}
	return fmt.Sprintf("start(%d)", uint8(s))
}

// Seed003Params sizes seed 003's experiment. Zero fields take the seed's
// values.
type Seed003Params struct {
	Netns  int          // namespaces K, one `ip -batch` job each (seed: 4096)
	Rules  int          // `rule add from all table N` lines per job, N = 1..Rules (seed: 1024)
	Family rt.Family    // rt.FamilyInet or rt.FamilyInet6 (default IPv4)
	CPUs   int          // virtual CPUs P (default: Machine's, or Seed003CPUs if it does not say)
	Start  Seed003Start // how the jobs start (default ShellLoop)
	// Machine is the profile the run's costs and CPUs come from: a shipped
	// profile's name or a profile file; "" is seed 003's machine (seed003).
	Machine string
	Costs   *sim.Costs // cost model, overriding Machine's; nil: Machine's
	Tracer  sim.Tracer // receives the run's trace events; nil: no tracing
}

// Seed003 sizes.
const (
	seed003Netns = 4096
	seed003Rules = 1024
)

// Seed003Result is a Seed003 report with the figures `time` printed for the
// patch's script.
type Seed003Result struct {
	*Report
	// Makespan is `time`'s real: from the first fork to the end of the
	// last job.
	Makespan time.Duration
	// User and Sys are the CPU time of all the jobs (the bash loop, the
	// `ip` processes' parsing, and the kernel's work), Sys including the
	// CPU that waiters spinning on RTNL burnt (RTNL.SpinCPU).
	User, Sys time.Duration
	// RTNLAcquires and OpsLockAcquires count the locks the rule adds took.
	RTNLAcquires, OpsLockAcquires int64
}

// Seed003 runs the benchmark of seed 003 ("net: fib_rules: RTNL-less
// RTM_NEWRULE and RTM_DELRULE"): p.Netns namespaces, each filled by its own
// `ip -<family> -batch` process adding p.Rules rules `rule add from all
// table N`, all running in parallel on p.CPUs virtual CPUs; the phase
// "ipv4" (or "ipv6") is timed from the first fork to the end of the last
// job, as the script's `time { for ...; done; wait; }`.
//
// Every add walks all the namespace's rules (rule_exists, because `ip rule
// add` sets NLM_F_EXCL) under the lock of cfg.Rules — the global RTNL
// before, the namespace's own ops lock after (plus RTNL for the first IPv4
// rule, which unmerges the FIB tables). IPv6 adds also create a table each
// and, outside the lock, walk every IPv6 table of the namespace. RTNL
// waiters spin, as a kernel mutex whose owner runs does.
//
// The namespaces are created before the timed phase (untimed, as in the
// script). The scheduler runs coarsely (sim.Options.Coarse): lock order and
// hold times are exact; which virtual CPU runs what is decided per job
// step rather than per charge.
func Seed003(cfg rtnl.Config, p Seed003Params) (*Seed003Result, error) {
	if p.Netns == 0 {
		p.Netns = seed003Netns
	}
	if p.Rules == 0 {
		p.Rules = seed003Rules
	}
	if p.Family == 0 {
		p.Family = rt.FamilyInet
	}
	c, cpus, err := runMachine("003", p.Machine, p.Costs, p.CPUs, Seed003CPUs)
	if err != nil {
		return nil, err
	}
	p.CPUs, p.Costs = cpus, &c
	if p.Netns < 1 || p.Netns > 1<<16 || p.Rules < 1 || p.Rules > 1<<16 || p.CPUs < 1 {
		return nil, fmt.Errorf("seed 003: need 1 ≤ netns ≤ 65536, 1 ≤ rules ≤ 65536, cpus ≥ 1 (netns=%d rules=%d cpus=%d)", p.Netns, p.Rules, p.CPUs)
	}
	if p.Family != rt.FamilyInet && p.Family != rt.FamilyInet6 {
		return nil, fmt.Errorf("seed 003: family must be rt.FamilyInet or rt.FamilyInet6, not %d", p.Family)
	}
	if p.Start > AllAtOnce {
		return nil, fmt.Errorf("seed 003: unknown start %d", p.Start)
	}
	k, err := NewSeed003Kernel(cfg, p.CPUs, p.Costs, p.Tracer)
	if err != nil {
		return nil, err
	}
	w := k.World()
	costs := w.Costs()
	setup := w.NewTask("setup")
	rc := newRecorder("003", k, setup)
	var nets []*rtnl.Net
	if err := rc.phase("setup", func() (err error) {
		nets, err = JobNamespaces(k, setup, p.Netns)
		return err
	}); err != nil {
		return nil, err
	}

	var errs []error
	var jobs []*sim.Task
	failed := func(n *rtnl.Net, table uint32, err error) {
		errs = append(errs, fmt.Errorf("%s: rule add from all table %d: %w", n.Name(), table, err))
	}
	// Each job's loop keeps its frame small (the rule built in place, the
	// error formatted elsewhere): 4096 jobs take turns at RTNL, and each
	// turn fetches the job's stack into the CPU's caches again.
	job := func(n *rtnl.Net) func(t *sim.Task) {
		return func(t *sim.Task) {
			t.Charge(sim.IPExec, 2) // nsenter, which execs ip
			h, fam := n.Handle(t), rt.Family(p.Family)
			for table := uint32(1); table <= uint32(p.Rules); table++ {
				t.Charge(sim.IPBatchLine, 1)
				if err := h.RuleAdd(fam, fibrules.Rule{Table: table, Action: fibrules.ActToTable}); err != nil {
					failed(n, table, err)
					return
				}
			}
		}
	}
	start := w.Now()
	var bash *sim.Task
	switch p.Start {
	case ShellLoop:
		bash = w.Spawn("bash", func(t *sim.Task) {
			for _, n := range nets {
				t.Charge(sim.Fork, 1)
				jobs = append(jobs, w.SpawnFrom(t, "ip "+n.Name(), job(n)))
			}
		})
	case AllAtOnce:
		for _, n := range nets {
			jobs = append(jobs, w.Spawn("ip "+n.Name(), job(n)))
		}
	}
	phase := "ipv4"
	if p.Family == rt.FamilyInet6 {
		phase = "ipv6"
	}
	if err := rc.timed(phase, func() (time.Duration, error) {
		end := w.Run()
		if len(errs) > 0 {
			return end.Sub(start), errs[0]
		}
		return end.Sub(start), nil
	}); err != nil {
		return nil, err
	}

	res := &Seed003Result{Report: rc.done()}
	res.Makespan, _ = phaseTime(res.Report, nil, phase)
	if bash != nil {
		jobs = append(jobs, bash)
	}
	for _, t := range jobs {
		c := t.Counters()
		user := time.Duration(c.Get(sim.IPBatchLine)) * costs.IPBatchLine
		res.User += user
		res.Sys += t.CPUTime() - t.SpinTime() - user
	}
	res.Sys += res.RTNL.SpinCPU
	for _, n := range nets {
		o := n.Rules(rt.Family(p.Family))
		res.RTNLAcquires += o.RTNLAcquires()
		res.OpsLockAcquires += o.LockAcquires()
	}
	return res, nil
}

// NewSeed003Kernel returns a kernel with configuration cfg on seed 003's
// machine: cpus virtual CPUs (0: Seed003CPUs), costs (nil: its profile's),
// the coarse scheduler (sim.Options.Coarse), RTNL's waiters spinning as a
// kernel mutex's do, and counted rule walks (same counters, less real time).
func NewSeed003Kernel(cfg rtnl.Config, cpus int, costs *sim.Costs, tracer sim.Tracer) (*rtnl.Kernel, error) {
	if cpus == 0 {
		cpus = Seed003CPUs
	}
	c := machineCosts("003")
	if costs != nil {
		c = *costs
	}
	w, err := sim.NewWorld(sim.Options{Costs: &c, CPUs: cpus, Coarse: !seed003Fine, Tracer: tracer})
	if err != nil {
		return nil, err
	}
	cfg.CountedWalks = true
	k, err := rtnl.NewKernelIn(w, cfg)
	if err != nil {
		return nil, err
	}
	k.RTNL().SetSpin(true)
	return k, nil
}

// seed003Fine, when set (by tests), runs seed 003 on the fine scheduler,
// to measure how far the coarse one's times are from it.
var seed003Fine bool

// JobNamespaces creates namespaces ns-1 … ns-n as task t, each to be
// filled by one job alone: their rules' locks are private to that job
// (sim.Mutex.SetPrivate).
func JobNamespaces(k *rtnl.Kernel, t *sim.Task, n int) ([]*rtnl.Net, error) {
	nets := make([]*rtnl.Net, n)
	for i := range nets {
		var err error
		if nets[i], err = k.NewNet(t, fmt.Sprintf("ns-%d", i+1)); err != nil {
			return nil, err
		}
		for _, fam := range []rt.Family{rt.FamilyInet, rt.FamilyInet6} {
			if m := nets[i].Rules(rt.Family(fam)).Mutex(); m != nil {
				m.SetPrivate()
			}
		}
	}
	return nets, nil
}

// Seed003Point is one run of a sweep.
type Seed003Point struct {
	Netns    int
	Makespan time.Duration
	Result   *Seed003Result
}

// Seed003Sweep runs seed 003 for every namespace count in ks (other sizes
// from p) and returns the runs.
func Seed003Sweep(cfg rtnl.Config, p Seed003Params, ks []int) ([]Seed003Point, error) {
	return Seed003SweepWith(cfg, p, ks, nil, nil)
}

// Seed003SweepWith is Seed003Sweep with hooks, either may be nil: trace
// gives each run's tracer (nil: p's), done is called after each run with
// its namespace count.
func Seed003SweepWith(cfg rtnl.Config, p Seed003Params, ks []int, trace func(netns int) sim.Tracer, done func(netns int)) ([]Seed003Point, error) {
	var out []Seed003Point
	for _, k := range ks {
		q := p
		q.Netns = k
		if trace != nil {
			q.Tracer = trace(k)
		}
		r, err := Seed003(cfg, q)
		if err != nil {
			return nil, err
		}
		out = append(out, Seed003Point{Netns: k, Makespan: r.Makespan, Result: r})
		if done != nil {
			done(k)
		}
	}
	return out, nil
}

// GrowthExponent fits y = c·x^e by least squares on log y against log x and
// returns e: 1 for linear growth, 0 for flat. It needs two or more points
// with positive coordinates and at least two distinct x.
func GrowthExponent(xs, ys []float64) (float64, error) {
	if len(xs) != len(ys) || len(xs) < 2 {
		return 0, fmt.Errorf("growth exponent: need two or more (x, y) points, have %d and %d", len(xs), len(ys))
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		if xs[i] <= 0 || ys[i] <= 0 {
			return 0, fmt.Errorf("growth exponent: point %d (%g, %g) is not positive", i, xs[i], ys[i])
		}
		lx, ly := math.Log(xs[i]), math.Log(ys[i])
		sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
	}
	n := float64(len(xs))
	den := n*sxx - sx*sx
	if den == 0 {
		return 0, fmt.Errorf("growth exponent: all x are equal")
	}
	return (n*sxy - sx*sy) / den, nil
}

// SweepExponent returns the growth exponent of the makespan over the
// points whose namespace count is within [lo, hi].
func SweepExponent(points []Seed003Point, lo, hi int) (float64, error) {
	var xs, ys []float64
	for _, pt := range points {
		if pt.Netns >= lo && pt.Netns <= hi {
			xs = append(xs, float64(pt.Netns))
			ys = append(ys, pt.Makespan.Seconds())
		}
	}
	return GrowthExponent(xs, ys)
}
