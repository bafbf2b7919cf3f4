// Calibrations: which cost-model constants are taken from published times
// (calibrated or derived), from which rows of PublishedTimes, and the
// bounds the published figures put on them.

package scenario

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"

	"github.com/netsimlab/netsim/machine"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// Calibrations lists every constant of the seeds' machines' profiles
// (machine/profiles/seedNNN.profile, whose sources say calibrated or
// derived) that is taken from a published time, one entry per constant, and
// the rows of PublishedTimes each uses; the development VM's profile has
// none. Those
// rows are calibrated; every other published time is a prediction
// (CalibratedRows, SeedRow.Calibrated). TestCalibration refits every
// Calibrated entry and recomputes every Derived one against the constant in
// the code.
//
// A constant that becomes measured leaves the table by deleting its line
// here; the rows it used become predictions unless another entry uses them.
var Calibrations = []Calibration{
	fitHWAddrCompare,         // 001 assign addresses, before
	fitSeed002NetnsExec,      // 002 script, after
	fitSeed003RuleChange,     // 003 ipv4, before
	fitSeed003Fork,           // 003 ipv4, after
	fitFib6Visit,             // 004 group, before
	deriveSeed003CPUs,        // 003 ipv4, before (a bound)
	deriveSeed003IPBatchLine, // 003 ipv4, after
	deriveSeed003Syscall,     // 003 ipv4, after
}

// CalibrationKind is how a constant is taken from published times.
type CalibrationKind uint8

const (
	// Calibrated: fitted by running the seed, the value that makes the
	// row's virtual time equal its published time (Calibration.Fit).
	Calibrated CalibrationKind = iota
	// Derived: computed from published figures by a formula, without
	// running anything, or only bounded by them where the documented
	// reasoning is an argument rather than a formula (Calibration.Derive).
	Derived
)

// String returns "calibrated" or "derived".
func (k CalibrationKind) String() string {
	switch k {
	case Calibrated:
		return "calibrated"
	case Derived:
		return "derived"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Calibration is how one constant is taken from published times.
type Calibration struct {
	// Param is the constant: a sim.Costs field ("Fib6Visit") of Machine's
	// profile, or a fact of it that is not one ("Seed003CPUs": its CPUs).
	Param string
	// Machine is the seed whose machine's profile (seedNNN) the constant
	// is in.
	Machine string
	Kind    CalibrationKind
	// Rows are the published rows the constant is taken from: for a
	// Calibrated entry the one row its fit reproduces, for a Derived one
	// every row whose figures its reasoning uses (Derive reads no others).
	Rows []RowKey
	// How says in words how the value follows from the rows.
	How string

	// Run runs the row's phase with costs c and returns its virtual time
	// (Calibrated).
	Run func(c sim.Costs) (time.Duration, error)
	// Heavy marks a fit that runs a seed at its full scale three times
	// (seconds to a minute of real time).
	Heavy bool

	// Derive returns the values the published figures allow (Derived):
	// one value where the documented derivation is a formula, a bound
	// where it is only an argument; How then says how the value in the
	// code was chosen within it. It reads published rows only through pub.
	Derive func(pub Lookup) Bounds
	// Value returns the constant as the code has it, in the unit of Bounds;
	// nil reads the field Param of Machine's cost model.
	Value func() float64
}

// Name returns Param with the machine it is a constant of: "RuleChange
// (seed 003's machine)".
func (c Calibration) Name() string {
	return c.Param + " (seed " + c.Machine + "'s machine)"
}

// ProfileField returns the name of the constant in its machine's profile
// (machine.Profile.Sources): Param, or "CPUs" for Seed003CPUs.
func (c Calibration) ProfileField() string {
	if c.Param == "Seed003CPUs" {
		return "CPUs"
	}
	return c.Param
}

// Code returns the constant as the code has it: nanoseconds for a
// duration, a count for a number of CPUs.
func (c Calibration) Code() float64 {
	if c.Value != nil {
		return c.Value()
	}
	costs := machineCosts(c.Machine)
	f := reflect.ValueOf(costs).FieldByName(c.Param)
	if !f.IsValid() {
		panic(fmt.Sprintf("scenario: calibration of %s: sim.Costs has no field %s and the entry no Value", c.Name(), c.Param))
	}
	return float64(f.Int())
}

// Target returns the published seconds a Calibrated entry's fit
// reproduces: its row's.
func (c Calibration) Target() float64 { return publishedRow(c.Rows[0]).Seconds }

// Bounds is the range of values a derivation allows, in the constant's unit
// (nanoseconds for a duration), both ends included; an end the published
// figures leave open is ±Inf.
type Bounds struct{ Min, Max float64 }

// Exactly is the bound of a formula: v, rounded to a whole unit.
func Exactly(v float64) Bounds { v = math.Round(v); return Bounds{v, v} }

// AtLeast bounds a value from below.
func AtLeast(v float64) Bounds { return Bounds{v, math.Inf(1)} }

// Exact reports whether b allows one value.
func (b Bounds) Exact() bool { return b.Min == b.Max }

// Contains reports whether b allows v.
func (b Bounds) Contains(v float64) bool { return b.Min <= v && v <= b.Max }

// String returns "= 1353", "≥ 245.0" or "[a, b]".
func (b Bounds) String() string {
	switch {
	case b.Exact():
		return "= " + strconv.FormatFloat(b.Min, 'f', -1, 64)
	case math.IsInf(b.Max, 1):
		return fmt.Sprintf("≥ %.1f", b.Min)
	}
	return fmt.Sprintf("[%.1f, %.1f]", b.Min, b.Max)
}

// Lookup returns the published row k. Derivations read published figures
// only through a Lookup, so that a test can see which rows they read.
type Lookup func(k RowKey) Published

// publishedRow is the Lookup of PublishedTimes. A row that is not there is
// a broken table (TestCalibration checks every row the table names).
func publishedRow(k RowKey) Published {
	for _, p := range PublishedTimes {
		if p.Key() == k {
			return p
		}
	}
	panic(fmt.Sprintf("scenario: no published time for %s", k))
}

// CalibrationsOn returns the entries of Calibrations for seed whose
// constant profile p holds as its machine's profile does: with a source
// that says calibrated or derived. On its own machine's profile every
// entry of seed's is there; on the development VM's none is, and the
// seed's published times are all predictions.
func CalibrationsOn(seed string, p *machine.Profile) []Calibration {
	var out []Calibration
	for _, c := range Calibrations {
		if c.Machine != seed {
			continue
		}
		if src, ok := p.Sources[c.ProfileField()]; ok && (src.Kind == machine.Calibrated || src.Kind == machine.Derived) {
			out = append(out, c)
		}
	}
	return out
}

// CalibratedRows returns the published rows the table takes constants from,
// and those the same as one of them by construction (Published.SameAs).
func CalibratedRows(table []Calibration) map[RowKey]bool {
	used := map[RowKey]bool{}
	for _, c := range table {
		for _, k := range c.Rows {
			used[k] = true
		}
	}
	for _, p := range PublishedTimes {
		if p.SameAs != (RowKey{}) && used[p.SameAs] {
			used[p.Key()] = true
		}
	}
	return used
}

// The fits: one for each of seeds 001, 002 and 004, and two of seed 003's
// four runs (its issue allows two).

var fitHWAddrCompare = Calibration{
	Param: "HWAddrCompare", Machine: "001", Kind: Calibrated,
	Rows: []RowKey{{"001", "assign addresses", "before"}},
	How:  "the value that makes the phase take its published time",
	Run: func(c sim.Costs) (time.Duration, error) {
		r, err := Seed001(rtnl.Before, Seed001Params{Costs: &c, Phases: 3})
		return phaseTime(r, err, "assign addresses")
	},
}

var fitSeed002NetnsExec = Calibration{
	Param: "NetnsExec", Machine: "002", Kind: Calibrated,
	Rows: []RowKey{{"002", "script", "after"}},
	How:  "the value that makes the script take its published time (Seed002NetnsExec)",
	Run: func(c sim.Costs) (time.Duration, error) {
		r, err := Seed002(rtnl.After, Seed002Params{Costs: &c})
		return phaseTime(r, err, "script")
	},
}

var fitSeed003RuleChange = seed003Fit("RuleChange", rtnl.Before, seed003V4Before, "Seed003RuleChange")

var fitSeed003Fork = seed003Fit("Fork", rtnl.After, seed003V4After, "Seed003Fork")

// seed003Fit is the fit of constant param of seed 003's machine to the
// IPv4 run in mode cfg, whose makespan is the published real time of row.
func seed003Fit(param string, cfg rtnl.Config, row RowKey, constant string) Calibration {
	return Calibration{
		Param: param, Machine: "003", Kind: Calibrated, Heavy: true,
		Rows: []RowKey{row},
		How:  "the value that makes the run take its published real time (" + constant + ")",
		Run: func(c sim.Costs) (time.Duration, error) {
			r, err := Seed003(cfg, Seed003Params{Family: rt.FamilyInet, Costs: &c})
			if err != nil {
				return 0, err
			}
			return r.Makespan, nil
		},
	}
}

var fitFib6Visit = Calibration{
	Param: "Fib6Visit", Machine: "004", Kind: Calibrated,
	Rows: []RowKey{seed004Group},
	How:  "the value that makes the group deletion take its published time",
	Run: func(c sim.Costs) (time.Duration, error) {
		r, err := Seed004(rtnl.Before, Seed004Params{Method: ByGroup, Costs: &c})
		return phaseTime(r, err, "group")
	},
}

// The derivations, each as its constant's comment states it.

var seed004Group = RowKey{"004", "group", "before"}

var deriveSeed003CPUs = Calibration{
	Param: "Seed003CPUs", Machine: "003", Kind: Derived,
	Rows: []RowKey{seed003V4Before},
	How: "a bound: before the series every CPU running a job spins on RTNL, so (user + sys) / real = " +
		"(7.834 + 5566.721) / 22.752 = 245.0 CPUs were busy; 256 allows for the ramp-up and the tail",
	Derive: func(pub Lookup) Bounds {
		r := pub(seed003V4Before)
		return AtLeast((r.User + r.Sys) / r.Seconds)
	},
	Value: func() float64 { return float64(seedProfile("003").Facts.CPUs) },
}

var deriveSeed003IPBatchLine = Calibration{
	Param: "IPBatchLine", Machine: "003", Kind: Derived,
	Rows: []RowKey{seed003V4After},
	How:  "after the series nothing spins, so user time is ip's parsing: 5.675 s / 4 194 304 lines (Seed003IPBatchLine)",
	Derive: func(pub Lookup) Bounds {
		return Exactly(float64(seed003IPBatchLine(pub)))
	},
}

var deriveSeed003Syscall = Calibration{
	Param: "Syscall", Machine: "003", Kind: Derived,
	Rows: []RowKey{seed003V4After},
	How:  "sys of the IPv4 after run, 127.024 s, per rule, less the work under the lock and the jobs' start-ups (Seed003Syscall)",
	Derive: func(pub Lookup) Bounds {
		return Exactly(float64(seed003Syscall(Seed003Costs(), pub)))
	},
}

func phaseTime(r *Report, err error, name string) (time.Duration, error) {
	if err != nil {
		return 0, err
	}
	p, ok := r.Phase(name)
	if !ok {
		return 0, fmt.Errorf("no phase %q", name)
	}
	return p.Virtual, nil
}

// Fit returns the value of c.Param that makes the phase's virtual time
// equal c.Target(), everything else as in Machine's cost model. Virtual
// time is affine in most per-unit costs, so two runs determine the value
// and a third checks it; where it is not (a cost that moves a run from one
// bottleneck to another), secant steps refine it to within 0.1% of the
// target, or to the whole nanosecond nearest it when 1 ns moves the phase by
// more (seed 001's HWAddrCompare: 1.13 s, 5.9%, a nanosecond).
func (c Calibration) Fit() (time.Duration, error) {
	if c.Kind != Calibrated || c.Run == nil || len(c.Rows) != 1 {
		return 0, fmt.Errorf("%s is not fitted to one row", c.Name())
	}
	target := c.Target()
	row := c.Rows[0]
	at := func(v time.Duration) (time.Duration, error) {
		costs := machineCosts(c.Machine)
		f := reflect.ValueOf(&costs).Elem().FieldByName(c.Param)
		if !f.IsValid() {
			return 0, fmt.Errorf("sim.Costs has no field %s", c.Param)
		}
		f.SetInt(int64(v))
		return c.Run(costs)
	}
	base := time.Duration(c.Code())
	x0, x1 := base/2+1, base*2+2
	y0, err := at(x0)
	if err != nil {
		return 0, err
	}
	y1, err := at(x1)
	if err != nil {
		return 0, err
	}
	targetD := time.Duration(target * 1e9)
	off := func(y time.Duration) float64 { return math.Abs(y.Seconds()-target) / target }
	best, bestOff := x1, off(y1)
	if off(y0) < bestOff {
		best, bestOff = x0, off(y0)
	}
	// between reports whether the target lies between the times of v's
	// whole-nanosecond neighbours: a Duration cannot come nearer than v.
	between := func(v time.Duration) bool {
		lo, err := at(v - 1)
		if err != nil {
			return false
		}
		hi, err := at(v + 1)
		return err == nil && (lo.Seconds()-target)*(hi.Seconds()-target) <= 0
	}
	for range 8 {
		if y1 == y0 {
			if bestOff <= 0.01 || between(best) {
				return best, nil // a plateau within 1% of the target, or the nearest whole nanosecond
			}
			return 0, fmt.Errorf("%s does not change %s", c.Name(), row)
		}
		x := float64(x0) + float64(x1-x0)*float64(targetD-y0)/float64(y1-y0)
		if x < 0 {
			return 0, fmt.Errorf("%s would have to be negative to reach %.3fs", c.Name(), target)
		}
		v := time.Duration(math.Round(x))
		got, err := at(v)
		if err != nil {
			return 0, err
		}
		if off(got) <= 0.001 {
			return v, nil
		}
		if off(got) < bestOff {
			best, bestOff = v, off(got)
		}
		x0, y0, x1, y1 = x1, y1, v, got
	}
	if bestOff <= 0.01 || between(best) {
		return best, nil
	}
	return best, fmt.Errorf("fit of %s does not converge: %.1f%% off %.3fs at best", c.Name(), 100*bestOff, target)
}
