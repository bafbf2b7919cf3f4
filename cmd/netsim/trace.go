// Trace files: the Chrome trace of one or several simulated machines,
// capped in events, keeping each machine's first and last events.

package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/netsimlab/netsim/sim"
)

// defaultTraceEvents is the default cap on a trace file's events: about
// 18 MB of JSON (seed 004's trace), which ui.perfetto.dev opens in a few seconds.
const defaultTraceEvents = 200000

// traceFile collects the trace events of one command's simulated machines
// (each a process of the trace, its tasks the threads) and writes them as a
// Chrome trace event file that ui.perfetto.dev and chrome://tracing open:
// timestamps are virtual microseconds, each machine's clock starting at 0.
//
// A run of millions of requests makes tens of millions of events, so the
// file keeps at most max: the machines share max, those with fewer events
// than an equal share leaving the rest to the others, and a machine with
// more than its share keeps the first half of it and the last half — the
// set-up and the end of the timed phase, where the spans that enclose the
// run are recorded — with an instant event "trace truncated" in the gap.
// What is kept depends only on each machine's deterministic run, never on
// how concurrent machines interleave in real time.
type traceFile struct {
	path string // "": no Chrome trace
	max  int

	// With -pprof: the virtual-time profile of every machine, and its file.
	prof      *sim.Profiler
	pprofPath string

	mu    sync.Mutex // guards procs
	procs []*traceProc
}

// traceProc is one simulated machine's tracer. It keeps the first
// (max+1)/2 events it records and the last max/2: all a share of max
// needs.
type traceProc struct {
	name string
	max  int

	mu    sync.Mutex  // guards the fields below
	head  []sim.Event // the first events, up to (max+1)/2
	tail  []sim.Event // a ring of the last events after head, up to max/2
	next  int         // where the ring's next event goes once it is full
	total int64       // events made, kept or not
}

// Record implements sim.Tracer.
func (p *traceProc) Record(e sim.Event) {
	p.mu.Lock()
	p.total++
	switch {
	case len(p.head) < (p.max+1)/2:
		p.head = append(p.head, e)
	case len(p.tail) < p.max/2:
		p.tail = append(p.tail, e)
	case len(p.tail) > 0:
		p.tail[p.next] = e
		p.next = (p.next + 1) % len(p.tail)
	}
	p.mu.Unlock()
}

// kept returns the events a share of q keeps, in the order recorded, and
// how many were left out between its first and its last part.
func (p *traceProc) kept(q int) (evs []sim.Event, gap int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ring := append(slices.Clone(p.tail[p.next:]), p.tail[:p.next]...)
	all := int64(len(p.head) + len(ring))
	if all == p.total && len(p.head)+len(ring) <= q {
		return append(slices.Clone(p.head), ring...), 0
	}
	first, last := (q+1)/2, q/2
	evs = slices.Clone(p.head[:min(first, len(p.head))])
	if last <= len(ring) {
		evs = append(evs, ring[len(ring)-last:]...)
	} else {
		// Not full: the ring holds everything after head.
		evs = append(evs, p.head[len(p.head)-(last-len(ring)):]...)
		evs = append(evs, ring...)
	}
	return evs, p.total - int64(len(evs))
}

// size returns how many events the machine can contribute.
func (p *traceProc) size() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return int(min(p.total, int64(p.max)))
}

// traceFlags registers -trace and -trace-events on fs; open creates the
// trace once the flags are parsed (nil without -trace).
type traceFlags struct {
	path   string
	events int
	pprof  string
}

func addTraceFlags(fs *flag.FlagSet) *traceFlags {
	tf := &traceFlags{}
	fs.StringVar(&tf.path, "trace", "", "write a Chrome/Perfetto trace of virtual time to this file (open it in ui.perfetto.dev)")
	fs.IntVar(&tf.events, "trace-events", defaultTraceEvents, "keep at most this many events in the -trace file")
	fs.StringVar(&tf.pprof, "pprof", "", "write a pprof profile of virtual time and counted work by modelled kernel call stack to this file (go tool pprof reads it)")
	return tf
}

// open returns the trace and profile the flags ask for, or nil. It
// creates their files at once, so that a path that cannot be written fails
// before the run.
func (tf *traceFlags) open() (*traceFile, error) {
	return openTrace(tf.path, tf.events, tf.pprof)
}

func openTrace(path string, max int, pprofPath string) (*traceFile, error) {
	if path == "" && pprofPath == "" {
		return nil, nil
	}
	if max < 1 {
		return nil, fmt.Errorf("-trace-events must be positive, not %d", max)
	}
	for _, p := range []struct{ what, path string }{{"trace", path}, {"pprof", pprofPath}} {
		if p.path == "" {
			continue
		}
		f, err := os.Create(p.path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.what, err)
		}
		if err := f.Close(); err != nil {
			return nil, fmt.Errorf("%s: %w", p.what, err)
		}
	}
	tf := &traceFile{path: path, max: max, pprofPath: pprofPath}
	if pprofPath != "" {
		tf.prof = sim.NewProfiler()
	}
	return tf, nil
}

// Proc returns the tracer of a new simulated machine called name. On a nil
// traceFile it returns nil: no tracing.
func (tf *traceFile) Proc(name string) sim.Tracer {
	if tf == nil {
		return nil
	}
	var tr sim.Tracer
	if tf.path != "" {
		p := &traceProc{name: name, max: tf.max}
		tf.mu.Lock()
		tf.procs = append(tf.procs, p)
		tf.mu.Unlock()
		tr = p
	}
	if tf.prof != nil {
		return tf.prof.Attach(name, tr)
	}
	return tr
}

// quotas shares max between the machines: each keeps all its events if
// they fit in an equal share of what the smaller ones left.
func quotas(sizes []int, max int) []int {
	order := make([]int, len(sizes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return sizes[a] - sizes[b] })
	q := make([]int, len(sizes))
	left := max
	for n, i := range order {
		share := left / (len(sizes) - n)
		q[i] = min(sizes[i], share)
		left -= q[i]
	}
	return q
}

// Close writes the trace file and the profile, and reports on w when
// events were left out. On a nil traceFile it does nothing.
func (tf *traceFile) Close(w io.Writer) error {
	if tf == nil {
		return nil
	}
	if tf.prof != nil {
		if err := writePprof(tf.pprofPath, tf.prof); err != nil {
			return err
		}
	}
	if tf.path == "" {
		return nil
	}
	f, err := os.Create(tf.path)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	kept, total, err := tf.write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	if kept < total {
		fmt.Fprintf(w, "netsim: trace %s truncated: %d of %d events kept (-trace-events %d)\n", tf.path, kept, total, tf.max)
	}
	return nil
}

// write writes the trace and returns the events kept and made.
func (tf *traceFile) write(w io.Writer) (kept, total int64, err error) {
	tf.mu.Lock()
	procs := slices.Clone(tf.procs)
	tf.mu.Unlock()
	sizes := make([]int, len(procs))
	for i, p := range procs {
		sizes[i] = p.size()
		p.mu.Lock()
		total += p.total
		p.mu.Unlock()
	}
	q := quotas(sizes, tf.max)
	out := make([]sim.TraceProcess, len(procs))
	for i, p := range procs {
		evs, gap := p.kept(q[i])
		made := int64(len(evs)) + gap
		kept += int64(len(evs))
		out[i] = sim.TraceProcess{Name: p.name, Events: evs}
		if gap > 0 {
			// The gap's note goes where the first part ends.
			var gapAt sim.Time
			for _, e := range evs[:(q[i]+1)/2] {
				gapAt = max(gapAt, e.Start.Add(e.Dur))
			}
			out[i].Name += fmt.Sprintf(" (trace truncated: %d of %d events kept)", len(evs), made)
			out[i].Notes = []sim.TraceNote{{Name: "trace truncated", At: gapAt,
				Args: map[string]any{"left_out": gap, "kept": len(evs), "events": made, "cap": tf.max}}}
		}
	}
	other := map[string]any{"generator": "netsim", "time": "virtual", "events": total, "kept": kept, "cap": tf.max, "truncated": kept < total}
	return kept, total, sim.WriteChromeTrace(w, out, other)
}
