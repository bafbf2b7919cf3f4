package sim

import (
	"encoding/json"
	"io"
	"sort"
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

type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"` // written even when 0: a complete event (ph X) carries its duration
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// WriteJSON writes the events as a Chrome trace (timestamps in virtual
// microseconds, one thread per task), sorted by start and, for one start,
// the longer first, so that an interval precedes those it encloses.
func (c *ChromeTrace) WriteJSON(w io.Writer) error {
	evs := c.Events()
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].Start != evs[j].Start {
			return evs[i].Start < evs[j].Start
		}
		return evs[i].Dur > evs[j].Dur
	})
	out := struct {
		TraceEvents     []chromeEvent `json:"traceEvents"`
		DisplayTimeUnit string        `json:"displayTimeUnit"`
	}{DisplayTimeUnit: "ms"}
	named := map[int]bool{}
	for _, e := range evs {
		if !named[e.TID] {
			named[e.TID] = true
			out.TraceEvents = append(out.TraceEvents, chromeEvent{
				Name: "thread_name", Ph: "M", Pid: 1, Tid: e.TID,
				Args: map[string]any{"name": e.Task},
			})
		}
		out.TraceEvents = append(out.TraceEvents, chromeEvent{
			Name: e.Name, Cat: e.Cat, Ph: "X", Pid: 1, Tid: e.TID,
			Ts: float64(e.Start) / 1e3, Dur: float64(e.Dur) / 1e3,
		})
	}
	enc := json.NewEncoder(w)
	return enc.Encode(out)
}
