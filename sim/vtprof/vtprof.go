// Package vtprof writes a sim.Profiler's virtual-time profile in pprof's
// format (profile.proto), so that `go tool pprof` (-top, -http, -diff_base)
// shows where a simulated kernel's virtual time and counted work go, by the
// modelled kernel call stacks that sim.Task.Frame names.
//
// The profile has these sample types, "cpu" the default:
//   - "cpu" (nanoseconds): the virtual CPU time charged, work and spinning
//     on Mutexes (what sim.Task.CPUTime adds up);
//   - one per counter kind (sim.Kind, by its name, unit "count"): the work
//     counted, in Kind order;
//   - "wait" (nanoseconds): the virtual time waited — sleeps, RCU grace
//     periods and barriers, Mutex waits (spinning included), waits for a
//     virtual CPU (sim.Task's SleepTime + LockWaitTime + CPUWaitTime).
//
// Each stack starts with the task's command ("ip", "bash", "rcuc",
// "kworker"): what a task charged outside any frame is that frame's own
// ("flat") value. Samples carry a label "run" naming the simulated
// machine's run (the name given to sim.Profiler.Attach), which pprof's
// -tagfocus selects.
package vtprof

import (
	"io"

	"github.com/google/pprof/profile"

	"github.com/netsimlab/netsim/sim"
)

// SampleTypes returns the profile's sample types, in order.
func SampleTypes() []*profile.ValueType {
	st := []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}
	for k := range sim.NumKinds {
		st = append(st, &profile.ValueType{Type: k.String(), Unit: "count"})
	}
	return append(st, &profile.ValueType{Type: "wait", Unit: "nanoseconds"})
}

// Build returns p's profile. It is deterministic: the same runs give the
// same profile, byte for byte once written.
func Build(p *sim.Profiler) *profile.Profile {
	prof := &profile.Profile{
		SampleType:        SampleTypes(),
		DefaultSampleType: "cpu",
		PeriodType:        &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:            1,
		Comments:          []string{"netsim virtual-time profile: virtual nanoseconds and counted work by modelled kernel call stack"},
	}
	// One mapping marks every location as symbolized: pprof looks for no
	// binary.
	m := &profile.Mapping{ID: 1, File: "netsim", HasFunctions: true}
	prof.Mapping = []*profile.Mapping{m}
	locs := make(map[string]*profile.Location)
	loc := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		f := &profile.Function{ID: uint64(len(prof.Function) + 1), Name: name, SystemName: name}
		prof.Function = append(prof.Function, f)
		l := &profile.Location{ID: uint64(len(prof.Location) + 1), Mapping: m, Line: []profile.Line{{Function: f}}}
		prof.Location = append(prof.Location, l)
		locs[name] = l
		return l
	}
	for _, s := range p.Stacks() {
		vals := make([]int64, 0, int(sim.NumKinds)+2)
		vals = append(vals, int64(s.CPU))
		vals = append(vals, s.Counters[:]...)
		vals = append(vals, int64(s.Wait))
		smp := &profile.Sample{Value: vals}
		for i := len(s.Frames) - 1; i >= 0; i-- {
			smp.Location = append(smp.Location, loc(s.Frames[i]))
		}
		if s.Run != "" {
			smp.Label = map[string][]string{"run": {s.Run}}
		}
		prof.Sample = append(prof.Sample, smp)
	}
	return prof
}

// Write writes p's profile to w, gzip-compressed, as `go tool pprof` reads it.
func Write(w io.Writer, p *sim.Profiler) error {
	return Build(p).Write(w)
}
