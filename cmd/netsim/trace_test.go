package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/sim"
)

// chromeTrace is what TestTrace* read back of a trace file.
type chromeTrace struct {
	TraceEvents []struct {
		Name string          `json:"name"`
		Cat  string          `json:"cat"`
		Ph   string          `json:"ph"`
		Ts   *json.Number    `json:"ts"`
		Dur  *json.Number    `json:"dur"`
		Pid  int             `json:"pid"`
		Tid  int             `json:"tid"`
		Args json.RawMessage `json:"args"`
	} `json:"traceEvents"`
	DisplayTimeUnit string `json:"displayTimeUnit"`
	OtherData       struct {
		Events    int64 `json:"events"`
		Kept      int64 `json:"kept"`
		Cap       int   `json:"cap"`
		Truncated bool  `json:"truncated"`
	} `json:"otherData"`
}

func readTrace(t *testing.T, file string) chromeTrace {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var tr chromeTrace
	require.NoError(t, json.Unmarshal(b, &tr), "the trace is not valid JSON")
	return tr
}

// nanos reads a trace's microseconds ("12.345") as nanoseconds, exactly.
func nanos(t *testing.T, n json.Number) int64 {
	t.Helper()
	us, frac, _ := strings.Cut(string(n), ".")
	require.LessOrEqual(t, len(frac), 3, "%s: finer than a nanosecond", n)
	v, err := strconv.ParseInt(us+(frac + "000")[:3], 10, 64)
	require.NoError(t, err)
	return v
}

// summary counts a trace's events: metadata by name, complete events by
// category, complete events by name, and the processes' names. It checks
// that the complete events of each thread nest, as the trace viewers need.
func summary(t *testing.T, tr chromeTrace) (meta, cats, names map[string]int, procs []string) {
	t.Helper()
	meta, cats, names = map[string]int{}, map[string]int{}, map[string]int{}
	type span struct{ start, end int64 }
	threads := map[[2]int][]span{}
	for _, e := range tr.TraceEvents {
		switch e.Ph {
		case "M":
			meta[e.Name]++
			if e.Name == "process_name" {
				var a struct{ Name string }
				require.NoError(t, json.Unmarshal(e.Args, &a))
				procs = append(procs, a.Name)
			}
		case "X":
			require.NotNil(t, e.Ts, "complete event without ts")
			require.NotNil(t, e.Dur, "complete event without dur")
			start, dur := nanos(t, *e.Ts), nanos(t, *e.Dur)
			require.GreaterOrEqual(t, dur, int64(0))
			require.NotZero(t, e.Pid)
			cats[e.Cat]++
			names[e.Name]++
			k := [2]int{e.Pid, e.Tid}
			threads[k] = append(threads[k], span{start, start + dur})
		}
	}
	// Events come sorted by start, the longer first: each must end within
	// the innermost span still open at its start.
	for k, spans := range threads {
		var open []span
		for _, s := range spans {
			for len(open) > 0 && open[len(open)-1].end <= s.start {
				open = open[:len(open)-1]
			}
			if len(open) > 0 {
				require.LessOrEqual(t, s.end, open[len(open)-1].end, "thread %v: %v overlaps %v", k, s, open[len(open)-1])
			}
			open = append(open, s)
		}
	}
	return meta, cats, names, procs
}

// withErrOut runs f with diagnostics going to a buffer.
func withErrOut(t *testing.T, f func()) string {
	var buf bytes.Buffer
	old := errOut
	errOut = &buf
	defer func() { errOut = old }()
	f()
	return buf.String()
}

// TestTraceSeeds: netsim seeds -trace writes a valid Chrome trace with a
// process per simulated machine, named threads, and locks, lock waits,
// sleeps, grace periods and requests as complete events; the printed
// figures are those of a run without -trace.
func TestTraceSeeds(t *testing.T) {
	file := filepath.Join(t.TempDir(), "seeds.json")
	args := []string{"seeds", "-only", "000,002,004", "-scale", "0.02", "-json"}
	var plain, traced bytes.Buffer
	require.NoError(t, run(args, &plain))
	diag := withErrOut(t, func() {
		require.NoError(t, run(append(args, "-trace", file, "-trace-events", "1000000"), &traced))
	})
	require.Empty(t, diag, "nothing truncated, nothing said")
	require.Equal(t, dropReal(t, plain.Bytes()), dropReal(t, traced.Bytes()))

	tr := readTrace(t, file)
	meta, cats, names, procs := summary(t, tr)
	require.Equal(t, []string{"seed 000 before", "seed 000 after", "seed 002 before", "seed 002 after",
		"seed 004 before one-by-one/1", "seed 004 before one-by-one/10", "seed 004 before one-by-one/50",
		"seed 004 before group", "seed 004 after list"}, procs)
	require.Greater(t, meta["thread_name"], len(procs))
	for _, c := range []string{"lock", "lockwait", "sleep", "rcu", "span"} {
		require.Positive(t, cats[c], "category %s", c)
	}
	require.Positive(t, names["RTNL"])
	require.Positive(t, names["wait RTNL"])
	require.Positive(t, names["msleep(250)"])
	require.Positive(t, names["rcu_barrier"])
	require.False(t, tr.OtherData.Truncated)
	require.Equal(t, tr.OtherData.Events, tr.OtherData.Kept)
}

// dropReal returns a seeds -json output without its real times.
func dropReal(t *testing.T, b []byte) []map[string]any {
	var rows []map[string]any
	require.NoError(t, json.Unmarshal(b, &rows))
	for _, r := range rows {
		delete(r, "real_s")
	}
	return rows
}

// TestTraceTruncated: a cap keeps the first and last events of every
// machine, says so on stderr, in the process's name and in otherData, and
// the file still loads.
func TestTraceTruncated(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.json")
	var out bytes.Buffer
	diag := withErrOut(t, func() {
		require.NoError(t, run([]string{"seeds", "-only", "002", "-scale", "0.1", "-trace", file, "-trace-events", "100"}, &out))
	})
	require.Contains(t, diag, "truncated: 100 of ")
	tr := readTrace(t, file)
	_, cats, _, procs := summary(t, tr)
	n := 0
	for _, c := range cats {
		n += c
	}
	require.Equal(t, 100, n)
	require.True(t, tr.OtherData.Truncated)
	require.EqualValues(t, 100, tr.OtherData.Kept)
	require.Greater(t, tr.OtherData.Events, int64(100))
	require.Len(t, procs, 2)
	for _, p := range procs {
		require.Regexp(t, `^seed 002 (before|after) \(trace truncated: 50 of \d+ events kept\)$`, p)
	}

	require.ErrorContains(t, run([]string{"seeds", "-trace", file, "-trace-events", "0"}, &out), "-trace-events must be positive")
	require.ErrorContains(t, run([]string{"seeds", "-trace", filepath.Join(t.TempDir(), "no", "dir.json")}, &out), "trace:")
}

// TestTraceHeadAndTail: a machine over its share keeps its first events
// and its last.
func TestTraceHeadAndTail(t *testing.T) {
	for _, c := range []struct {
		max, made, q int
		want         []int // the kept events' Start
	}{
		{10, 5, 10, []int{0, 1, 2, 3, 4}},                      // all fit
		{10, 10, 10, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},      // exactly
		{10, 25, 10, []int{0, 1, 2, 3, 4, 20, 21, 22, 23, 24}}, // the ring wrapped
		{10, 25, 5, []int{0, 1, 2, 23, 24}},                    // a smaller share
		{10, 8, 4, []int{0, 1, 6, 7}},                          // the ring not full
		{9, 30, 9, []int{0, 1, 2, 3, 4, 26, 27, 28, 29}},       // an odd cap
		{1, 3, 1, []int{0}},                                    // a cap of one
	} {
		p := &traceProc{max: c.max}
		for i := range c.made {
			p.Record(sim.Event{Start: sim.Time(i)})
		}
		evs, gap := p.kept(c.q)
		var got []int
		for _, e := range evs {
			got = append(got, int(e.Start))
		}
		require.Equal(t, c.want, got, "%+v", c)
		require.EqualValues(t, c.made-len(c.want), gap, "%+v", c)
	}
}

// TestTraceQuotas: machines with fewer events than an equal share leave
// the rest to the others.
func TestTraceQuotas(t *testing.T) {
	for _, c := range []struct {
		sizes []int
		max   int
		want  []int
	}{
		{[]int{10, 10}, 100, []int{10, 10}},           // everything fits
		{[]int{100, 100}, 100, []int{50, 50}},         // equal shares
		{[]int{100, 10, 100}, 100, []int{45, 10, 45}}, // the small one leaves its share
		{[]int{3, 3, 3}, 7, []int{2, 2, 3}},           // the remainder goes to the last
		{nil, 5, []int{}},                             // no machine
	} {
		require.Equal(t, c.want, quotas(c.sizes, c.max), "%v", c.sizes)
	}
}

// TestTraceCommands: every command takes -trace.
func TestTraceCommands(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "rules.ip")
	require.NoError(t, os.WriteFile(script, []byte("rule add from all table 10\nrule add from all table 11\n"), 0o644))
	for _, c := range []struct {
		args  []string
		procs []string
	}{
		{[]string{"build", "-dummies", "5", "-vlans", "2", "-one-by-one", "2"}, []string{"build before", "build after"}},
		{[]string{"sweep", "003", "-n", "2,4", "-rules", "4", "-cpus", "2"},
			[]string{"sweep 003 before netns=2", "sweep 003 before netns=4", "sweep 003 after netns=2", "sweep 003 after netns=4"}},
		{[]string{"batch", "-netns", "3", "-parallel", "-before", "-cpus", "2", script}, []string{"batch before"}},
	} {
		file := filepath.Join(dir, c.args[0]+".json")
		var out bytes.Buffer
		n := len(c.args)
		if c.args[0] == "batch" {
			n--
		}
		args := append(append(append([]string{}, c.args[:n]...), "-trace", file), c.args[n:]...)
		require.NoError(t, run(args, &out), "%v", args)
		_, cats, _, procs := summary(t, readTrace(t, file))
		require.Equal(t, c.procs, procs, "%v", args)
		require.Positive(t, cats["lock"], "%v", args)
	}

	file := filepath.Join(dir, "ip.json")
	out, errOut, st := runIP(t, "link add d0 type dummy\nlink set d0 up\nlink del d0\n", "-before", "-trace", file, "-batch", "-")
	require.Equal(t, 0, st, errOut)
	require.Empty(t, out)
	meta, cats, names, procs := summary(t, readTrace(t, file))
	require.Equal(t, []string{"ip before"}, procs)
	require.Positive(t, meta["thread_name"])
	require.Positive(t, cats["lock"])
	require.Positive(t, names["RTNL"])
	require.Positive(t, cats["sleep"]+cats["rcu"])

	_, errOut, st = runIP(t, "", "-trace")
	require.Equal(t, 1, st)
	require.Equal(t, "netsim ip: -trace needs a FILE\n", errOut)
	_, errOut, st = runIP(t, "", "-trace", file, "-trace-events", "x", "link")
	require.Equal(t, 1, st)
	require.True(t, strings.HasPrefix(errOut, "netsim ip: -trace-events needs a positive number"), errOut)
}
