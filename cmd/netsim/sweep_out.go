// The output of `netsim sweep`: the results by mode, phase and measure,
// their table, their JSON and CSV forms and the log-log plot.

package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/netsimlab/netsim/scenario"
)

// sweepMode is one mode of a sweep's results, as -json prints it.
type sweepMode struct {
	Mode  string `json:"mode"`
	Var   string `json:"var"` // what the sizes count
	Sizes []int  `json:"sizes"`
	// Seconds are the runs' makespans: a seed's timed phases (those of
	// the seeds table), a template's phases all together.
	Seconds    []float64 `json:"makespan_s"`
	Exponent   *float64  `json:"exponent"`
	ExponentSE *float64  `json:"exponent_se,omitempty"`
	// Seed 003: the makespan's exponent up to P and from P, where a fit
	// has two points or more.
	ExponentUpToP *float64        `json:"exponent_up_to_p,omitempty"`
	ExponentFromP *float64        `json:"exponent_from_p,omitempty"`
	Phases        []sweepPhaseOut `json:"phases"`
}

// sweepPhaseOut is a phase of a mode: its virtual time and its counters.
type sweepPhaseOut struct {
	Phase    string            `json:"phase"`
	Measures []sweepMeasureOut `json:"measures"`
}

// sweepMeasureOut is one measure at each size and its growth exponent
// (null where a value is 0) ± its standard error (absent with two sizes).
type sweepMeasureOut struct {
	Measure    string    `json:"measure"`
	Values     []float64 `json:"values"`
	Exponent   *float64  `json:"exponent"`
	ExponentSE *float64  `json:"exponent_se,omitempty"`
}

// fitFields returns a fit's exponent and standard error for JSON: nil for
// no fit, and nil for a standard error that is not a number.
func fitFields(f *scenario.Fit) (e, se *float64) {
	if f == nil {
		return nil, nil
	}
	e = &f.Exponent
	if !math.IsNaN(f.StdErr) {
		se = &f.StdErr
	}
	return e, se
}

// sweepResults gathers the runs of each mode into its results.
func sweepResults(c *sweepCase, series []scenario.SweepSeries, makespans [][]float64) ([]sweepMode, error) {
	phases, err := scenario.SweepPhases(series)
	if err != nil {
		return nil, err
	}
	var out []sweepMode
	for i, s := range series {
		m := sweepMode{Mode: s.Mode, Var: c.varName, Sizes: s.Sizes, Seconds: makespans[i]}
		m.Exponent, m.ExponentSE = fitFields(fitOf(s.Sizes, m.Seconds, 0, math.MaxInt))
		if c.cpus > 0 {
			m.ExponentUpToP, _ = fitFields(fitOf(s.Sizes, m.Seconds, 0, c.cpus))
			m.ExponentFromP, _ = fitFields(fitOf(s.Sizes, m.Seconds, c.cpus, math.MaxInt))
		}
		for _, p := range phases[i] {
			po := sweepPhaseOut{Phase: p.Name}
			for _, ms := range p.Measures {
				mo := sweepMeasureOut{Measure: ms.Name, Values: ms.Values}
				mo.Exponent, mo.ExponentSE = fitFields(ms.Fit)
				po.Measures = append(po.Measures, mo)
			}
			m.Phases = append(m.Phases, po)
		}
		out = append(out, m)
	}
	return out, nil
}

// fmtSeconds prints a virtual time.
func fmtSeconds(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.3fs", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3fms", s*1e3)
	default:
		return fmt.Sprintf("%.1fµs", s*1e6)
	}
}

// fmtValue prints a measure's value: a time or a count.
func fmtValue(measure string, v float64) string {
	if measure == scenario.VirtualMeasure {
		return fmtSeconds(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// fmtFit prints an exponent ± its standard error, or "-" without one.
func fmtFit(e, se *float64) string {
	// round2 rounds to two decimals, without a sign for a zero.
	round2 := func(v float64) float64 { return math.Round(v*100)/100 + 0 }
	switch {
	case e == nil:
		return "-"
	case se == nil:
		return fmt.Sprintf("%.2f", round2(*e))
	}
	return fmt.Sprintf("%.2f ± %.2f", round2(*e), round2(*se))
}

// writeSweepTable prints the makespans by size and mode, their exponents,
// then every phase's measures: each mode's value at the largest size and
// its exponent, and the first mode's value over each other's.
func writeSweepTable(w io.Writer, c *sweepCase, res []sweepMode) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{c.varName}
	for _, m := range res {
		head = append(head, m.Mode)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for i, k := range c.sizes {
		row := []string{strconv.Itoa(k)}
		for _, m := range res {
			row = append(row, fmtSeconds(m.Seconds[i]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range res {
		fmt.Fprintf(w, "%s: makespan ∝ %s^%s", m.Mode, c.sym, fmtFit(m.Exponent, m.ExponentSE))
		if m.ExponentUpToP != nil {
			fmt.Fprintf(w, "; %s ≤ %d: %s^%.2f", c.sym, c.cpus, c.sym, *m.ExponentUpToP)
		}
		if m.ExponentFromP != nil {
			fmt.Fprintf(w, "; %s ≥ %d: %s^%.2f", c.sym, c.cpus, c.sym, *m.ExponentFromP)
		}
		fmt.Fprintln(w)
	}
	last := len(c.sizes) - 1
	fmt.Fprintf(w, "\nby phase, at %s=%d; exponents: log-log least-squares slope ± standard error\n", c.varName, c.sizes[last])
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head = []string{"phase", "measure"}
	for _, m := range res {
		head = append(head, m.Mode, "exponent")
	}
	for _, m := range res[1:] {
		head = append(head, res[0].Mode+"/"+m.Mode)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for pi, p := range res[0].Phases {
		for mi, ms := range p.Measures {
			row := []string{p.Phase, ms.Measure}
			for _, m := range res {
				o := m.Phases[pi].Measures[mi]
				row = append(row, fmtValue(o.Measure, o.Values[last]), fmtFit(o.Exponent, o.ExponentSE))
			}
			for _, m := range res[1:] {
				a, b := ms.Values[last], m.Phases[pi].Measures[mi].Values[last]
				r := "-"
				if b != 0 {
					r = fmtRatio(a / b)
				}
				row = append(row, r)
			}
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
	}
	return tw.Flush()
}

// fmtRatio prints a ratio to three significant digits, in full above 100.
func fmtRatio(r float64) string {
	if r >= 100 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.3g×", r)
}

// csvMakespan is the measure of the CSV rows that hold a run's makespan
// (with an empty phase).
const csvMakespan = "makespan_s"

// writeSweepCSV writes every value of res as one row: mode, phase,
// measure, size, value (the header names the size's column by what it
// counts); a run's makespan has an empty phase and the measure makespan_s.
func writeSweepCSV(w io.Writer, res []sweepMode) error {
	cw := csv.NewWriter(w)
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	cw.Write([]string{"mode", "phase", "measure", res[0].Var, "value"})
	for _, m := range res {
		for i, k := range m.Sizes {
			cw.Write([]string{m.Mode, "", csvMakespan, strconv.Itoa(k), num(m.Seconds[i])})
		}
		for _, p := range m.Phases {
			for _, ms := range p.Measures {
				for i, k := range m.Sizes {
					cw.Write([]string{m.Mode, p.Phase, ms.Measure, strconv.Itoa(k), num(ms.Values[i])})
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeSweepCSVFile writes the CSV of res to file.
func writeSweepCSVFile(file string, res []sweepMode) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	err = writeSweepCSV(f, res)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// plotSweep draws measures of phase ("": the last) against the size on
// log-log axes, one line per mode and measure. Values of 0 have no place
// on a log axis and are left out.
func plotSweep(file string, c *sweepCase, res []sweepMode, phase string, measures []string) error {
	var names []string
	for _, p := range res[0].Phases {
		names = append(names, p.Phase)
	}
	if phase == "" {
		phase = names[len(names)-1]
	}
	pi := slices.Index(names, phase)
	if pi < 0 {
		return fmt.Errorf("-phase %q: no such phase (have %q)", phase, names)
	}
	pl := plot.New()
	pl.Title.Text = c.title + ": " + phase
	pl.X.Label.Text = c.varName
	pl.Y.Label.Text = "value"
	if len(measures) == 1 {
		pl.Y.Label.Text = measures[0]
		if measures[0] == scenario.VirtualMeasure {
			pl.Y.Label.Text = "virtual time (s)"
		}
	}
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	// The sizes label the x axis: a sweep's range often holds no power of 10.
	var ticks []plot.Tick
	for _, k := range c.sizes {
		ticks = append(ticks, plot.Tick{Value: float64(k), Label: strconv.Itoa(k)})
	}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.ConstantTicks(ticks), plot.LogTicks{}
	var lines []any
	for _, want := range measures {
		for _, m := range res {
			ms := m.Phases[pi].Measures
			mi := slices.IndexFunc(ms, func(o sweepMeasureOut) bool { return o.Measure == want })
			if mi < 0 {
				var have []string
				for _, o := range ms {
					have = append(have, o.Measure)
				}
				return fmt.Errorf("-measure %q: not a measure of phase %q (have %s)", want, phase, strings.Join(have, ", "))
			}
			var xy plotter.XYs
			for i, k := range m.Sizes {
				if v := ms[mi].Values[i]; v > 0 {
					xy = append(xy, plotter.XY{X: float64(k), Y: v})
				}
			}
			if len(xy) == 0 {
				continue
			}
			name := m.Mode
			if len(measures) > 1 {
				name += " " + want
			}
			lines = append(lines, name, xy)
		}
	}
	if len(lines) == 0 {
		return fmt.Errorf("-plot: every value of %s in phase %q is 0", strings.Join(measures, ", "), phase)
	}
	if err := plotutil.AddLinePoints(pl, lines...); err != nil {
		return err
	}
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Legend.YOffs = -vg.Points(14) // below the title
	return pl.Save(6*vg.Inch, 4*vg.Inch, file)
}
