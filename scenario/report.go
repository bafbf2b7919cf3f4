// The Report of an experiment: virtual and real time per phase, RTNL
// statistics and work counters, recorded phase by phase.

// Package scenario holds netsim's experiments as reusable Go functions: each
// takes its sizes and an rtnl.Config and returns a Report — virtual time and
// real time per phase, RTNL hold and wait statistics, and the work counters
// that explain the times. The CLI, the examples, the benchmarks and the
// tests all run the same functions.
package scenario

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// Report is the outcome of one scenario run.
type Report struct {
	Scenario string        // e.g. "build"
	Mode     string        // rtnl.Config.String(): "before", "after", ...
	Phases   []Phase       // in the order they ran
	RTNL     sim.LockStats // RTNL over the whole run
	Counters sim.Counters  // every task's work over the whole run
}

// Phase is one timed part of a scenario.
type Phase struct {
	Name     string
	Virtual  time.Duration // what the simulated kernel took
	Real     time.Duration // what the simulator took
	Counters sim.Counters  // work done during the phase
}

// Phase returns the phase named name, or false.
func (r *Report) Phase(name string) (Phase, bool) {
	for _, p := range r.Phases {
		if p.Name == name {
			return p, true
		}
	}
	return Phase{}, false
}

// Virtual returns the virtual time of all phases together.
func (r *Report) Virtual() time.Duration {
	var d time.Duration
	for _, p := range r.Phases {
		d += p.Virtual
	}
	return d
}

// Real returns the real time of all phases together.
func (r *Report) Real() time.Duration {
	var d time.Duration
	for _, p := range r.Phases {
		d += p.Real
	}
	return d
}

// afterPhase, when set (by tests), checks the kernel after every phase of
// every scenario, e.g. with rtnl.Kernel.CheckInvariants.
var afterPhase func(*rtnl.Kernel) error

// recorder times phases of a run driven by one direct task.
type recorder struct {
	k *rtnl.Kernel
	t *sim.Task
	r *Report
}

func newRecorder(name string, k *rtnl.Kernel, t *sim.Task) *recorder {
	return &recorder{k: k, t: t, r: &Report{Scenario: name, Mode: k.Config().String()}}
}

// phase runs fn as a phase named name, timed on the driving task from its
// first request to the return of its last, as `time` times a script loop.
// Deferred kernel work the phase leaves behind (DAD, namespace cleanup)
// runs later, when it is due, competing for RTNL with whatever comes next.
func (rc *recorder) phase(name string, fn func() error) error {
	start := rc.t.Now()
	return rc.timed(name, func() (time.Duration, error) {
		err := fn()
		return rc.t.Now().Sub(start), err
	})
}

// timed runs fn as a phase named name whose virtual time fn measures itself
// (for phases run by scheduled tasks), recording its real time and counters.
func (rc *recorder) timed(name string, fn func() (time.Duration, error)) error {
	startC, real0 := rc.k.Counters(), time.Now()
	virtual, err := fn()
	if err == nil && afterPhase != nil {
		err = afterPhase(rc.k)
	}
	rc.r.Phases = append(rc.r.Phases, Phase{
		Name: name, Virtual: virtual, Real: time.Since(real0),
		Counters: rc.k.Counters().Sub(startC),
	})
	if err != nil {
		return fmt.Errorf("%s: %s: %w", rc.r.Scenario, name, err)
	}
	return nil
}

// total appends a phase named name that spans every phase recorded so far.
func (rc *recorder) total(name string) {
	p := Phase{Name: name}
	for _, q := range rc.r.Phases {
		p.Virtual += q.Virtual
		p.Real += q.Real
		p.Counters.Add(&q.Counters)
	}
	rc.r.Phases = append(rc.r.Phases, p)
}

func (rc *recorder) done() *Report {
	rc.r.RTNL = rc.k.RTNL().Stats()
	rc.r.Counters = rc.k.Counters()
	return rc.r
}

// WriteTable prints reports side by side, one row per phase and mode, with
// the counters named in counters.
func WriteTable(w io.Writer, reports []*Report, counters ...sim.Kind) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"scenario", "phase", "mode", "virtual", "real"}
	for _, k := range counters {
		head = append(head, k.String())
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, r := range reports {
		for _, p := range r.Phases {
			row := []string{r.Scenario, p.Name, r.Mode, fmtDur(p.Virtual), fmtDur(p.Real)}
			for _, k := range counters {
				row = append(row, fmt.Sprint(p.Counters.Get(k)))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
	}
	return tw.Flush()
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.3fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.3fms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.1fµs", float64(d)/1e3)
	}
}
