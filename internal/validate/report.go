// The validation table: each row's measured wall time (median and range
// over the repetitions), netsim's prediction and their ratio, as text and
// as markdown; and the measurements saved as JSON.

package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/netsimlab/netsim/sim"
)

// Rep is one repetition of a row's timed step on the real kernel.
type Rep struct {
	Wall  float64 `json:"wall_s"`   // the timed step's wall time
	User  float64 `json:"user_s"`   // its processes' user time
	Sys   float64 `json:"sys_s"`    // and system time
	Setup float64 `json:"setup_s"`  // the set-up's wall time
	Busy  int     `json:"busy_pct"` // the machine's busy % during the repetition
}

// Measured is a row's real-kernel repetitions.
type Measured struct {
	ID   string `json:"id"`
	Reps []Rep  `json:"reps"`
}

// Median, Min and Max are over the repetitions' wall times.
func (m *Measured) Median() float64 {
	w := m.walls()
	if len(w) == 0 {
		return 0
	}
	if len(w)%2 == 1 {
		return w[len(w)/2]
	}
	return (w[len(w)/2-1] + w[len(w)/2]) / 2
}

func (m *Measured) Min() float64 { w := m.walls(); return w[0] }
func (m *Measured) Max() float64 { w := m.walls(); return w[len(w)-1] }

// CPU is the median over the repetitions of user+sys time: a row whose
// wall time is far above it slept (grace periods, timers, other load).
func (m *Measured) CPU() float64 {
	c := make([]float64, len(m.Reps))
	for i, r := range m.Reps {
		c[i] = r.User + r.Sys
	}
	sort.Float64s(c)
	if len(c) == 0 {
		return 0
	}
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

func (m *Measured) walls() []float64 {
	w := make([]float64, len(m.Reps))
	for i, r := range m.Reps {
		w[i] = r.Wall
	}
	sort.Float64s(w)
	return w
}

// Run is a real run's saved measurements (-save, -measured).
type Run struct {
	Meta Meta        `json:"meta"`
	Rows []*Measured `json:"rows"`
}

// Meta says where and when a run was taken.
type Meta struct {
	Date    string `json:"date"`
	Kernel  string `json:"kernel"`
	CPU     string `json:"cpu"`
	Load    string `json:"load"` // load averages before and after
	Machine string `json:"machine"`
	Command string `json:"command"`
	// Measured is the saved run the measurements were read from (the
	// command's -measured), and Compare its summary against another run of
	// the same rows (-compare); neither is saved.
	Measured string `json:"-"`
	Compare  string `json:"-"`
}

// LoadRun reads a saved run.
func LoadRun(file string) (*Run, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var r Run
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &r, nil
}

// Save writes the run as JSON.
func (r *Run) Save(file string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(b, '\n'), 0o644)
}

// Find returns the measurements of row id, or nil.
func (r *Run) Find(id string) *Measured {
	for _, m := range r.Rows {
		if m.ID == id && len(m.Reps) > 0 {
			return m
		}
	}
	return nil
}

// Result is one row of the table.
type Result struct {
	Row  *Row
	Pred *Prediction // nil if netsim failed
	Err  error       // netsim's failure
	Meas *Measured   // nil without measurements
}

// Ratio is predicted / measured median (0 when either is missing).
func (r *Result) Ratio() float64 {
	if r.Pred == nil || r.Meas == nil || r.Meas.Median() <= 0 {
		return 0
	}
	return r.Pred.Timed.Seconds() / r.Meas.Median()
}

// Summary counts the rows with both sides within ±15 % and ±35 %.
func Summary(res []*Result) string {
	var n, in15, in35 int
	for _, r := range res {
		x := r.Ratio()
		if x == 0 {
			continue
		}
		n++
		if math.Abs(x-1) <= 0.15 {
			in15++
		}
		if math.Abs(x-1) <= 0.35 {
			in35++
		}
	}
	if n == 0 {
		return fmt.Sprintf("%d rows predicted, none measured", len(res))
	}
	return fmt.Sprintf("%d rows measured and predicted: %d within ±15%%, %d within ±35%%", n, in15, in35)
}

// dur formats seconds compactly.
func dur(s float64) string {
	d := time.Duration(s * 1e9)
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1fs", s)
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", s)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1fms", s*1e3)
	}
	return fmt.Sprintf("%.0fµs", s*1e6)
}

// cells returns a result's table cells: row, scale, measured, predicted, ratio.
func (r *Result) cells() []string {
	meas, cpu, pred, ratio := "—", "—", "—", "—"
	if r.Meas != nil {
		meas = dur(r.Meas.Median())
		if len(r.Meas.Reps) > 1 {
			meas += fmt.Sprintf(" [%s–%s]", dur(r.Meas.Min()), dur(r.Meas.Max()))
		}
		cpu = dur(r.Meas.CPU())
	}
	if r.Pred != nil {
		pred = dur(r.Pred.Timed.Seconds())
	} else if r.Err != nil {
		pred = "error"
	}
	if x := r.Ratio(); x > 0 {
		ratio = fmt.Sprintf("%.2f", x)
	}
	return []string{r.Row.Seed + " " + r.Row.Name, fmt.Sprintf("%d %s", r.Row.Scale, r.Row.Unit), meas, cpu, pred, ratio}
}

var header = []string{"row", "scale", "measured (median [min–max])", "its CPU (user+sys)", "predicted", "predicted/measured"}

// WriteTable prints the table and its summary line.
func WriteTable(w io.Writer, res []*Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range res {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, Summary(res))
	return err
}

// WriteMarkdown writes the table as markdown, under the run's facts.
func WriteMarkdown(w io.Writer, meta Meta, res []*Result) error {
	var b strings.Builder
	b.WriteString("# Same-machine validation\n\n" +
		"Each row is one of the seeds' experiments (or the route and address walks around them) at one scale, " +
		"written once (internal/validate) and run both ways: on this machine's kernel, each repetition in a fresh " +
		"`unshare -n`, its timed step's wall time (median [min–max] over the repetitions); and in netsim, the same " +
		"scripts' virtual time under the machine profile.\n\n")
	fmt.Fprintf(&b, "Taken %s on Linux %s, %s; load average %s. Predicted by netsim under machine profile `%s`.\n\n",
		meta.Date, meta.Kernel, meta.CPU, meta.Load, meta.Machine)
	fmt.Fprintf(&b, "    %s\n\n", meta.Command)
	if meta.Measured != "" {
		fmt.Fprintf(&b, "The measurements are kept in `%s`; the predictions below are today's, recomputed from them (no root needed):\n\n"+
			"    go run ./internal/measure/validate -measured %s -md FILE\n\n", meta.Measured, meta.Measured)
	}
	if meta.Compare != "" {
		fmt.Fprintf(&b, "%s\n\n", meta.Compare)
	}
	fmt.Fprintf(&b, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, r := range res {
		fmt.Fprintf(&b, "| %s |\n", strings.Join(r.cells(), " | "))
	}
	fmt.Fprintf(&b, "\n%s.\n", Summary(res))
	_, err := io.WriteString(w, b.String())
	return err
}

// Explain writes where the prediction's timed step spends its CPU time:
// each kind of work with its count, its cost per unit under costs and its
// total, dearest first, then the memory model's stall, then the sum. The
// sum is CPU time over every task; the predicted time is wall time, which
// also holds waits and, with several tasks, less than their CPU time.
func Explain(w io.Writer, p *Prediction, costs sim.Costs) error {
	type line struct {
		kind  sim.Kind
		total time.Duration
	}
	var ls []line
	var sum time.Duration
	for k := range sim.NumKinds {
		n := p.Work.Get(k)
		if n == 0 || k == sim.MemStallNS {
			continue
		}
		tot := time.Duration(n) * costs.PerUnit(k)
		ls = append(ls, line{k, tot})
		sum += tot
	}
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].total > ls[j].total })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tcount\tper unit\ttotal\t")
	for _, l := range ls {
		fmt.Fprintf(tw, "%s\t%d\t%v\t%v\t\n", l.kind, p.Work.Get(l.kind), costs.PerUnit(l.kind), l.total)
	}
	stall := time.Duration(p.Work.Get(sim.MemStallNS))
	fmt.Fprintf(tw, "memory stall\t\t\t%v\t\n", stall)
	fmt.Fprintf(tw, "CPU, all tasks\t\t\t%v\t\n", sum+stall)
	fmt.Fprintf(tw, "predicted (wall)\t\t\t%v\t\n", p.Timed)
	return tw.Flush()
}

// CompareRuns says how far run b's measurements are from run a's, row by
// row (the medians), over the rows both have: how much the machine itself
// varies between two runs of the same experiments, against which a
// prediction's ratio can be read.
func CompareRuns(a, b *Run, aName, bName string) string {
	n, w15, w35 := 0, 0, 0
	for _, mb := range b.Rows {
		ma := a.Find(mb.ID)
		if ma == nil || len(mb.Reps) == 0 || ma.Median() == 0 {
			continue
		}
		n++
		off := math.Abs(mb.Median()/ma.Median()-1) - 1e-9
		if off <= 0.15 {
			w15++
		}
		if off <= 0.35 {
			w35++
		}
	}
	return fmt.Sprintf("The machine against itself: of the %d rows measured in both %s and %s, the two medians are within ±15%% of each other in %d and within ±35%% in %d.", n, aName, bName, w15, w35)
}
