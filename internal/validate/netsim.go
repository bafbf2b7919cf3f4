// The netsim side of a row: its set-up and timed step run by iproute's
// batch runner on a simulated kernel with a machine's costs, the timed
// step's virtual time measured as the real side measures its wall time.

package validate

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

// CPUs is the development VM's CPU count, the validation machine's.
const CPUs = 2

// Config is the kernel the validation runs on: every seed patch applied
// but seed 000's (Linux 6.18 flushes the FIB once per nexthop removal),
// with counted walks (same virtual time, less real time).
var Config = func() rtnl.Config {
	c := rtnl.After
	c.Nexthop = nexthop.FlushPerNexthop
	c.CountedWalks = true
	return c
}()

// Prediction is a row's netsim side.
type Prediction struct {
	Timed time.Duration // the timed step's virtual time: first process started to last exited
	Setup time.Duration // the set-up's virtual time, before it settles (for run-time estimates)
	Real  time.Duration // what the simulation took
	// Work is the timed step's work, kind by kind (mem_stall_ns: the
	// memory model's stall in nanoseconds).
	Work sim.Counters
}

// Predict runs row r on netsim's kernel with costs on CPUs virtual CPUs.
// Every `ip` process is charged as `netsim ip` charges one
// (iproute.IP.ChargeProcess: sim.IPExec, sim.NetnsExec for `ip -n NS`,
// which enters the namespace as `ip netns exec` does, sim.IPBatchLine a
// batch line), every background job the shell forks sim.Fork.
func Predict(r *Row, costs sim.Costs) (*Prediction, error) {
	real0 := time.Now()
	r.Expand()
	// The kernel `netsim batch` uses for parallel jobs: RTNL's waiters
	// spin as a kernel mutex's do; the coarse scheduler.
	k, err := scenario.NewSeed003Kernel(Config, CPUs, &costs, nil)
	if err != nil {
		return nil, err
	}
	w := k.World()
	setup := w.NewTask("setup")
	t0 := setup.Now()
	for i, s := range r.Setup {
		if err := runSetup(k, setup, s); err != nil {
			return nil, fmt.Errorf("%s: set-up %d: %w", r.ID(), i+1, err)
		}
	}
	p := &Prediction{Setup: setup.Now().Sub(t0)}
	k.Settle(setup)

	var errs []string
	fail := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	var end sim.Time
	finish := func(t *sim.Task) {
		if now := t.Now(); now > end {
			end = now
		}
	}
	// proc runs one ip process on task t, which charges its exec, -n
	// and batch lines (iproute.IP.ChargeProcess).
	proc := func(t *sim.Task, args []string, script []byte) {
		var stderr bytes.Buffer
		if st := runIP(k, t, args, script, &stderr); st != 0 {
			fail("ip %s: exit %d: %s", strings.Join(args, " "), st, firstLine(stderr.String()))
		}
	}
	st := r.Timed
	start, work0 := w.Now(), w.Counters()
	switch st.Kind {
	case Batch:
		w.Spawn("ip", func(t *sim.Task) {
			proc(t, append(append([]string{}, st.Opts...), "-batch", "timed.ip"), Script(st.Lines))
			finish(t)
		})
	case Loop:
		w.Spawn("bash", func(t *sim.Task) {
			for _, l := range st.Lines {
				proc(t, append(append([]string{}, st.Opts...), strings.Fields(l)...), nil)
			}
			finish(t)
		})
	case Parallel, Netns:
		w.Spawn("bash", func(t *sim.Task) {
			for i := range st.Processes() {
				args, script := append([]string{}, st.Opts...), Script(st.Lines)
				if st.Kind == Netns {
					args = append([]string{"-n", fmt.Sprintf("ns-%d", i+1)}, args...)
				} else {
					script = Script(st.Jobs[i])
				}
				args = append(args, "-batch", fmt.Sprintf("job%d.ip", i+1))
				t.Charge(sim.Fork, 1)
				w.SpawnFrom(t, fmt.Sprintf("ip %d", i+1), func(t *sim.Task) {
					proc(t, args, script)
					finish(t)
				})
			}
			finish(t)
		})
	default:
		return nil, fmt.Errorf("%s: unknown step kind %v", r.ID(), st.Kind)
	}
	w.Run()
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: timed step: %s", r.ID(), errs[0])
	}
	p.Timed, p.Work = end.Sub(start), w.Counters().Sub(work0)
	if err := check(k, r); err != nil {
		return nil, err
	}
	p.Real = time.Since(real0)
	return p, nil
}

// runSetup runs one set-up command as task t.
func runSetup(k *rtnl.Kernel, t *sim.Task, s Setup) error {
	switch {
	case s.Netns > 0:
		// ip netns add ns-I, one process each.
		t.Charge(sim.IPExec, int64(s.Netns))
		_, err := scenario.JobNamespaces(k, t, s.Netns)
		return err
	case s.Sysctl != "":
		t.Charge(sim.IPExec, 1)
		h := k.InitNet().Handle(t)
		defer h.Close()
		return h.Sysctl(s.Sysctl, s.Value)
	}
	var stderr bytes.Buffer
	if st := runIP(k, t, []string{"-batch", "setup.ip"}, Script(s.Lines), &stderr); st != 0 {
		return fmt.Errorf("ip -batch: exit %d: %s", st, firstLine(stderr.String()))
	}
	return nil
}

// runIP runs one ip process with args on task t, FILE of -batch FILE
// reading script; iproute.IP.ChargeProcess charges its exec, -n and batch
// lines. It returns ip's exit status.
func runIP(k *rtnl.Kernel, t *sim.Task, args []string, script []byte, stderr io.Writer) int {
	ip := iproute.New(k, t)
	ip.Stdout, ip.Stderr = io.Discard, stderr
	ip.Open = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(script)), nil }
	ip.ChargeProcess = true
	return ip.Main(args)
}

// check runs the row's check command and compares its line count.
func check(k *rtnl.Kernel, r *Row) error {
	if r.Check == nil {
		return nil
	}
	var out, stderr bytes.Buffer
	ip := iproute.New(k, k.World().NewTask("check"))
	ip.Stdout, ip.Stderr = &out, &stderr
	if st := ip.Main(append([]string{"-o"}, r.Check...)); st != 0 {
		return fmt.Errorf("%s: check ip -o %s: exit %d: %s", r.ID(), strings.Join(r.Check, " "), st, firstLine(stderr.String()))
	}
	if n := CountLines(out.String()); n != r.Want {
		return fmt.Errorf("%s: check ip -o %s: %d lines, want %d", r.ID(), strings.Join(r.Check, " "), n, r.Want)
	}
	return nil
}

// CountLines returns the number of non-empty lines of s.
func CountLines(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
