// Sweeps: a scenario run at several sizes in several modes, each phase's
// virtual time and work counters at every size, and the growth exponent of
// each fitted on log-log axes with its standard error.

package scenario

import (
	"fmt"
	"math"
	"slices"

	"github.com/netsimlab/netsim/sim"
)

// Fit is a growth exponent: y ≈ c·x^Exponent, fitted by least squares on
// log y against log x (GrowthExponent).
type Fit struct {
	Exponent float64
	// StdErr is the slope's standard error, √(Σr² / (n−2) / Σ(log x − mean)²)
	// over the residuals r of the log-log fit; NaN with two points, where
	// the line passes through both and says nothing of its spread.
	StdErr float64
}

// FitGrowth fits the growth exponent of ys against xs (GrowthExponent) and
// its standard error.
func FitGrowth(xs, ys []float64) (Fit, error) {
	e, err := GrowthExponent(xs, ys)
	if err != nil {
		return Fit{}, err
	}
	n := float64(len(xs))
	var mx, my float64
	for i := range xs {
		mx, my = mx+math.Log(xs[i]), my+math.Log(ys[i])
	}
	mx, my = mx/n, my/n
	var sxx, ssr float64
	for i := range xs {
		dx := math.Log(xs[i]) - mx
		r := math.Log(ys[i]) - my - e*dx
		sxx, ssr = sxx+dx*dx, ssr+r*r
	}
	f := Fit{Exponent: e, StdErr: math.NaN()}
	if len(xs) > 2 {
		f.StdErr = math.Sqrt(ssr / (n - 2) / sxx)
	}
	return f, nil
}

// VirtualMeasure is the name of a phase's virtual time, in seconds, among
// its measures; the others are the counters' names (sim.Kind.String).
const VirtualMeasure = "virtual_s"

// SweepSeries is one mode of a sweep: a run at each size.
type SweepSeries struct {
	Mode    string
	Sizes   []int
	Reports []*Report // Reports[i] ran at Sizes[i]
}

// SweepMeasure is one measure of a phase at each size of a series, with
// its fit. Fit is nil where a value is 0 (a log-log fit needs positive
// values); the measure is then still listed.
type SweepMeasure struct {
	Name   string
	Values []float64
	Fit    *Fit
}

// SweepPhase is a phase of a series: its virtual time and its counters.
type SweepPhase struct {
	Name     string
	Measures []SweepMeasure
}

// SweepPhases returns, for each series, each phase's measures: its virtual
// time, then every counter that is not zero in that phase at some size of
// some series, in sim.Kind order — the same measures in every series, so
// that modes compare row by row. Every run of every series must have the
// phases of the first run, in its order.
func SweepPhases(series []SweepSeries) ([][]SweepPhase, error) {
	if len(series) == 0 || len(series[0].Reports) == 0 {
		return nil, fmt.Errorf("sweep: no runs")
	}
	var names []string
	for _, p := range series[0].Reports[0].Phases {
		names = append(names, p.Name)
	}
	// used[i][k]: counter k moved in phase i somewhere.
	used := make([][sim.NumKinds]bool, len(names))
	for _, s := range series {
		if len(s.Reports) != len(s.Sizes) {
			return nil, fmt.Errorf("sweep: %s: %d sizes and %d runs", s.Mode, len(s.Sizes), len(s.Reports))
		}
		for j, r := range s.Reports {
			var got []string
			for _, p := range r.Phases {
				got = append(got, p.Name)
			}
			if !slices.Equal(got, names) {
				return nil, fmt.Errorf("sweep: %s at %d has the phases %q, not %q as the first run", s.Mode, s.Sizes[j], got, names)
			}
			for i, p := range r.Phases {
				for k, v := range p.Counters {
					if v != 0 {
						used[i][k] = true
					}
				}
			}
		}
	}
	out := make([][]SweepPhase, len(series))
	for si, s := range series {
		xs := make([]float64, len(s.Sizes))
		for j, n := range s.Sizes {
			xs[j] = float64(n)
		}
		for i, name := range names {
			ph := SweepPhase{Name: name}
			values := func(get func(Phase) float64) []float64 {
				v := make([]float64, len(s.Reports))
				for j, r := range s.Reports {
					v[j] = get(r.Phases[i])
				}
				return v
			}
			add := func(name string, v []float64) {
				m := SweepMeasure{Name: name, Values: v}
				if f, err := FitGrowth(xs, v); err == nil {
					m.Fit = &f
				}
				ph.Measures = append(ph.Measures, m)
			}
			add(VirtualMeasure, values(func(p Phase) float64 { return p.Virtual.Seconds() }))
			for k := range sim.NumKinds {
				if used[i][k] {
					add(k.String(), values(func(p Phase) float64 { return float64(p.Counters.Get(k)) }))
				}
			}
			out[si] = append(out[si], ph)
		}
	}
	return out, nil
}
