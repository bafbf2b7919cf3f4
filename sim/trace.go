// Tracing: the events of a task's time line (locks held and waited for,
// sleeps, grace periods, requests) and their output in the Chrome trace
// event format.

package sim

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Event is one traced interval of a task's timeline: a lock held or waited
// for, a sleep, a grace period waited, a request.
type Event struct {
	Name  string        // e.g. "RTNL", "msleep(250)", "rcu_barrier", "ip link del eth0"
	Cat   string        // "lock", "lockwait", "sleep", "rcu", "span"
	Task  string        // the task's name
	TID   int           // the task's id
	Start Time          // when the interval began
	Dur   time.Duration // how long it lasted
}

// Tracer receives trace events. Implementations must be safe for concurrent
// use by direct tasks.
type Tracer interface {
	Record(e Event)
}

// ChromeTrace is a Tracer that keeps every event in memory and writes them in
// the Chrome trace event format, which chrome://tracing and ui.perfetto.dev
// open. The zero ChromeTrace is ready to use.
type ChromeTrace struct {
	mu     sync.Mutex
	events []Event
}

// Record implements Tracer.
func (c *ChromeTrace) Record(e Event) {
	c.mu.Lock()
	c.events = append(c.events, e)
	c.mu.Unlock()
}

// Events returns the recorded events in the order they were recorded.
func (c *ChromeTrace) Events() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Event(nil), c.events...)
}

// WriteJSON writes the events as a Chrome trace of one process, "netsim"
// (see WriteChromeTrace).
func (c *ChromeTrace) WriteJSON(w io.Writer) error {
	return WriteChromeTrace(w, []TraceProcess{{Name: "netsim", Events: c.Events()}}, nil)
}

// TraceProcess is one process of a Chrome trace: a simulated machine, its
// events, and notes to mark on its timeline.
type TraceProcess struct {
	Name   string
	Events []Event
	Notes  []TraceNote
}

// TraceNote is an instant event on a process's timeline (for example
// where a truncated trace left events out).
type TraceNote struct {
	Name string
	At   Time
	Args map[string]any
}

// chromeEvent is one event of the Chrome trace event format.
type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   json.Number    `json:"ts"`
	Dur  *json.Number   `json:"dur,omitempty"` // set for a complete event (ph X), even when 0
	S    string         `json:"s,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// micros renders virtual nanoseconds as microseconds, exactly.
func micros(ns int64) json.Number {
	s := strconv.FormatInt(ns/1000, 10)
	if r := ns % 1000; r != 0 {
		s += "." + strconv.FormatInt(1000+r, 10)[1:]
	}
	return json.Number(s)
}

// WriteChromeTrace writes procs as one trace in the Chrome trace event
// format, which chrome://tracing and ui.perfetto.dev open: each process
// (pid 1, 2, ... in order) named and sorted as given, its tasks as threads
// named "task#id" in id order, its events as complete events in virtual
// microseconds (exact), sorted by start and, for one start, the longer
// first, so that an interval precedes those it encloses; lock waits are
// named "wait LOCK". otherData, if not nil, is written as the trace's
// otherData. The events of procs are sorted in place.
func WriteChromeTrace(w io.Writer, procs []TraceProcess, otherData map[string]any) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	first := true
	emit := func(e chromeEvent) {
		if !first {
			bw.WriteString(",\n")
		}
		first = false
		b, _ := json.Marshal(e) // cannot fail: strings, numbers and maps of them
		bw.Write(b)
	}
	bw.WriteString(`{"displayTimeUnit":"ms","traceEvents":[` + "\n")
	for i, p := range procs {
		pid := i + 1
		emit(chromeEvent{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": p.Name}})
		emit(chromeEvent{Name: "process_sort_index", Ph: "M", Pid: pid, Args: map[string]any{"sort_index": pid}})
		threads := map[int]string{}
		for _, e := range p.Events {
			if _, ok := threads[e.TID]; !ok {
				threads[e.TID] = e.Task
			}
		}
		tids := make([]int, 0, len(threads))
		for tid := range threads {
			tids = append(tids, tid)
		}
		slices.Sort(tids)
		for _, tid := range tids {
			emit(chromeEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"name": fmt.Sprintf("%s#%d", threads[tid], tid)}})
			emit(chromeEvent{Name: "thread_sort_index", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"sort_index": tid}})
		}
		slices.SortStableFunc(p.Events, func(a, b Event) int {
			if c := cmp.Compare(a.Start, b.Start); c != 0 {
				return c
			}
			return cmp.Compare(b.Dur, a.Dur)
		})
		for _, e := range p.Events {
			name := e.Name
			if e.Cat == "lockwait" {
				name = "wait " + e.Name
			}
			d := micros(int64(e.Dur))
			emit(chromeEvent{Name: name, Cat: e.Cat, Ph: "X", Ts: micros(int64(e.Start)), Dur: &d, Pid: pid, Tid: e.TID})
		}
		for _, n := range p.Notes {
			emit(chromeEvent{Name: n.Name, Ph: "i", S: "p", Ts: micros(int64(n.At)), Pid: pid, Args: n.Args})
		}
	}
	bw.WriteString("\n]")
	if otherData != nil {
		b, err := json.Marshal(otherData)
		if err != nil {
			return err
		}
		bw.WriteString(",\n\"otherData\":")
		bw.Write(b)
	}
	bw.WriteString("}\n")
	return bw.Flush()
}
