package vtprof_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
	"github.com/netsimlab/netsim/sim/vtprof"
)

// seed000Script is seed 000 in small: nexthops on a device, a route on
// each, and the device taken down.
func seed000Script(n int) string {
	var b strings.Builder
	b.WriteString("link add testnh0 type veth peer name testnh1\nlink set testnh0 up\nlink set testnh1 up\naddr add 192.0.2.1/24 dev testnh0\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "nexthop add id %d via 192.0.2.2 dev testnh0\n", i)
		fmt.Fprintf(&b, "route add 10.0.%d.0/32 nhid %d\n", i, i)
	}
	b.WriteString("link set testnh0 down\n")
	return b.String()
}

// run runs seed000Script(n) on cfg in a World that records into p.
func run(t *testing.T, cfg rtnl.Config, n int, p *sim.Profiler, run string) *sim.World {
	t.Helper()
	w, err := sim.NewWorld(sim.Options{Tracer: p.Attach(run, nil)})
	if err != nil {
		t.Fatal(err)
	}
	k, err := rtnl.NewKernelIn(w, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ip := iproute.New(k, w.NewTask("ip"))
	ip.Stdout, ip.Stderr = &out, &out
	if st := ip.Batch(strings.NewReader(seed000Script(n)), "seed000", false); st != 0 {
		t.Fatalf("batch: status %d: %s", st, out.String())
	}
	w.Settle()
	return w
}

// parse writes p's profile and parses it back.
func parse(t *testing.T, p *sim.Profiler) *profile.Profile {
	t.Helper()
	var buf bytes.Buffer
	if err := vtprof.Write(&buf, p); err != nil {
		t.Fatal(err)
	}
	prof, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return prof
}

func TestProfileTotals(t *testing.T) {
	p := sim.NewProfiler()
	w := run(t, rtnl.Before, 16, p, "before")
	prof := parse(t, p)

	var types []string
	for _, st := range prof.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if len(types) != int(sim.NumKinds)+2 || types[0] != "cpu/nanoseconds" || types[len(types)-1] != "wait/nanoseconds" ||
		types[1+int(sim.FIBFlush)] != "fib_flushes/count" || prof.DefaultSampleType != "cpu" {
		t.Fatalf("sample types %v, default %q", types, prof.DefaultSampleType)
	}

	sums := make([]int64, len(prof.SampleType))
	for _, s := range prof.Sample {
		for i, v := range s.Value {
			sums[i] += v
		}
	}
	var cpu, wait time.Duration
	for _, task := range w.Tasks() {
		cpu += task.CPUTime()
		wait += task.SleepTime() + task.LockWaitTime() + task.CPUWaitTime()
	}
	if cpu == 0 || time.Duration(sums[0]) != cpu {
		t.Errorf("cpu total %v, tasks' CPU time %v", time.Duration(sums[0]), cpu)
	}
	if time.Duration(sums[len(sums)-1]) != wait {
		t.Errorf("wait total %v, tasks' waits %v", time.Duration(sums[len(sums)-1]), wait)
	}
	c := w.Counters()
	for k := range sim.NumKinds {
		if sums[1+int(k)] != c[k] {
			t.Errorf("%s: profile total %d, World's counter %d", k, sums[1+int(k)], c[k])
		}
	}
	if c[sim.NexthopFIBFlush] != 16 {
		t.Errorf("nexthop_fib_flushes = %d, want one per nexthop before the patch", c[sim.NexthopFIBFlush])
	}

	// The flushes are charged under the link-down request's stack.
	want := []string{"ip", "rtnetlink_rcv_msg", "rtnl_newlink", "do_setlink", "dev_change_flags", "dev_close_many",
		"call_netdevice_notifiers", "nexthop_flush_dev", "remove_nexthop", "__remove_nexthop", "__remove_nexthop_fib", "fib_flush"}
	var flushes int64
	for _, s := range prof.Sample {
		var stack []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			stack = append(stack, s.Location[i].Line[0].Function.Name)
		}
		if slices.Equal(stack, want) {
			flushes += s.Value[1+int(sim.FIBFlush)]
			if s.Label["run"][0] != "before" {
				t.Errorf("run label %v", s.Label["run"])
			}
		}
	}
	if flushes != 16 {
		t.Errorf("fib_flushes under %s: %d, want 16", strings.Join(want, " → "), flushes)
	}
}

// TestProfileOffChangesNothing runs the same script with and without a
// profiler: virtual time and every counter are the same.
func TestProfileOffChangesNothing(t *testing.T) {
	on := run(t, rtnl.Before, 8, sim.NewProfiler(), "on")
	w, err := sim.NewWorld(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := rtnl.NewKernelIn(w, rtnl.Before)
	if err != nil {
		t.Fatal(err)
	}
	ip := iproute.New(k, w.NewTask("ip"))
	var out bytes.Buffer
	ip.Stdout, ip.Stderr = &out, &out
	if st := ip.Batch(strings.NewReader(seed000Script(8)), "seed000", false); st != 0 {
		t.Fatalf("batch: %s", out.String())
	}
	w.Settle()
	if on.Now() != w.Now() || on.Counters() != w.Counters() {
		t.Errorf("profiled: %v %v\nnot: %v %v", on.Now(), on.Counters(), w.Now(), w.Counters())
	}
}

// TestProfileDeterministic writes the profile of two identical runs: the
// files are the same, byte for byte.
func TestProfileDeterministic(t *testing.T) {
	var files [2][]byte
	for i := range files {
		p := sim.NewProfiler()
		run(t, rtnl.After, 8, p, "after")
		var buf bytes.Buffer
		if err := vtprof.Write(&buf, p); err != nil {
			t.Fatal(err)
		}
		files[i] = buf.Bytes()
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two identical runs wrote different profiles")
	}
}
