//go:build ignore

// costs_helper is the helper of costs.sh (see there); it is not part of the
// module's build. costs.sh builds it into a temporary directory:
//
//	go build -o $TMP/costs-helper internal/measure/costs_helper.go
//
// Subcommands (all output is one "key value..." line per figure):
//
//	time CMD ARGS...      run CMD (its stdout goes to stderr), print
//	                      "wall_s user_s sys_s pid exit_status" (µs resolution;
//	                      wall from fork to exit, user/sys from its rusage)
//	membarrier N          call membarrier(MEMBARRIER_CMD_GLOBAL) N times (each
//	                      is one synchronize_rcu()), print each duration in µs
//	perfsum [FLAGS] < perf-script-output
//	                      sum a `perf record -a -g -e cpu-clock -e sched:sched_switch`
//	                      capture, as printed by `perf script`, for one thread:
//	  -pid P              only thread P (a single-threaded process, e.g. ip)
//	  -on NAME=F1,F2!G1,G2  on-CPU time of P's cpu-clock samples whose kernel
//	                      stack holds one of F1,F2 (or * for any) and none of
//	                      G1,G2 (a trailing * matches a prefix); repeatable
//	  -off NAME=F1,F2     off-CPU intervals of P (switch-out to the
//	                      next switch-in) whose switch-out stack holds one of
//	                      F1,F2; prints count, total and the distribution
//	  -top K              also print P's K off-CPU call paths of most total time
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "time":
		timeCmd(os.Args[2:])
	case "membarrier":
		membarrier(os.Args[2:])
	case "perfsum":
		perfsum(os.Args[2:])
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: costs-helper time CMD ARGS... | membarrier N | perfsum -pid P [-on NAME=F,..!G,..]... [-off NAME=F,..]...")
	os.Exit(2)
}

func die(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "costs-helper: "+format+"\n", a...)
	os.Exit(1)
}

func timeCmd(args []string) {
	if len(args) == 0 {
		usage()
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stderr, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		die("%s: %v", strings.Join(args, " "), err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	fmt.Printf("%.6f %.6f %.6f %d %d\n", wall.Seconds(), tv(ru.Utime), tv(ru.Stime), cmd.ProcessState.Pid(), cmd.ProcessState.ExitCode())
}

// membarrier(MEMBARRIER_CMD_GLOBAL, 0, 0) is synchronize_rcu() when more than
// one CPU is online (kernel/sched/membarrier.c).
func membarrier(args []string) {
	if len(args) != 1 {
		usage()
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		die("membarrier: bad count %q", args[0])
	}
	const sysMembarrier, cmdQuery, cmdGlobal = 324, 0, 1
	mask, _, e := syscall.Syscall(sysMembarrier, cmdQuery, 0, 0)
	if e != 0 || mask&cmdGlobal == 0 {
		die("membarrier: MEMBARRIER_CMD_GLOBAL unsupported (mask %#x, %v)", mask, e)
	}
	for range n {
		t := time.Now()
		if _, _, e := syscall.Syscall(sysMembarrier, cmdGlobal, 0, 0); e != 0 {
			die("membarrier: %v", e)
		}
		fmt.Printf("%.1f\n", float64(time.Since(t).Nanoseconds())/1e3)
	}
}

type spec struct {
	name     string
	any      []string
	none     []string
	wildcard bool
}

type specs []spec

func (s *specs) String() string { return "" }
func (s *specs) Set(v string) error {
	name, rest, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("want NAME=F1,F2!G1,G2, got %q", v)
	}
	anyPart, nonePart, _ := strings.Cut(rest, "!")
	sp := spec{name: name}
	for _, f := range strings.Split(anyPart, ",") {
		if f == "*" {
			sp.wildcard = true
		} else if f != "" {
			sp.any = append(sp.any, f)
		}
	}
	for _, f := range strings.Split(nonePart, ",") {
		if f != "" {
			sp.none = append(sp.none, f)
		}
	}
	*s = append(*s, sp)
	return nil
}

func matches(frame, pat string) bool {
	if p, ok := strings.CutSuffix(pat, "*"); ok {
		return strings.HasPrefix(frame, p)
	}
	return frame == pat
}

func (sp spec) match(stack []string) bool {
	hit := sp.wildcard
	for _, f := range stack {
		for _, p := range sp.none {
			if matches(f, p) {
				return false
			}
		}
		if !hit {
			for _, p := range sp.any {
				if matches(f, p) {
					hit = true
				}
			}
		}
	}
	return hit
}

var (
	// "comm  tid [cpu] secs.usecs: [period] event: rest" ([cpu] only with -a)
	headRe  = regexp.MustCompile(`^(.*?)\s+(\d+)\s+(?:\[(\d+)\]\s+)?(\d+\.\d+):\s+(?:(\d+)\s+)?(\S+):\s*(.*)$`)
	frameRe = regexp.MustCompile(`^\s+[0-9a-f]+\s+(\S+?)(?:\+0x[0-9a-f]+)?\s+\(`)
	prevRe  = regexp.MustCompile(`prev_pid=(\d+) .*==> next_comm=.* next_pid=(\d+)`)
)

// path names a sleep by the first frames below the scheduler's own.
func path(stack []string) string {
	var p []string
	for _, f := range stack {
		if len(p) == 0 && (strings.Contains(f, "schedule") || strings.HasPrefix(f, "__traceiter") || strings.HasPrefix(f, "__bpf_trace")) {
			continue
		}
		p = append(p, f)
		if len(p) == 8 {
			break
		}
	}
	return strings.Join(p, "<")
}

type event struct {
	comm   string
	tid    int
	t      float64
	period int64
	name   string
	rest   string
	stack  []string
}

func perfsum(args []string) {
	fs := flag.NewFlagSet("perfsum", flag.ExitOnError)
	pid := fs.Int("pid", 0, "the thread to account")
	var on, off specs
	fs.Var(&on, "on", "NAME=F1,F2!G1,G2 (repeatable)")
	fs.Var(&off, "off", "NAME=F1,F2 (repeatable)")
	top := fs.Int("top", 0, "print the K off-CPU paths of most total time")
	fs.Parse(args)
	if *pid <= 0 {
		die("perfsum: -pid is required")
	}

	onNs := make([]int64, len(on))
	onN := make([]int, len(on))
	offD := make([][]float64, len(off))
	paths := map[string][]float64{}
	type pending struct {
		t     float64
		stack []string
	}
	out := map[int]pending{}
	var total int64
	var samples int

	handle := func(ev *event) {
		switch {
		case ev.name == "cpu-clock":
			if ev.tid != *pid {
				return
			}
			samples++
			total += ev.period
			for i, sp := range on {
				if sp.match(ev.stack) {
					onNs[i] += ev.period
					onN[i]++
				}
			}
		case strings.HasSuffix(ev.name, "sched_switch"):
			m := prevRe.FindStringSubmatch(ev.rest)
			if m == nil {
				return
			}
			prev, _ := strconv.Atoi(m[1])
			next, _ := strconv.Atoi(m[2])
			if prev == *pid {
				out[prev] = pending{ev.t, ev.stack}
			}
			if p, ok := out[next]; ok {
				delete(out, next)
				if *top > 0 {
					k := path(p.stack)
					paths[k] = append(paths[k], (ev.t-p.t)*1e6)
				}
				for i, sp := range off {
					if sp.match(p.stack) {
						offD[i] = append(offD[i], (ev.t-p.t)*1e6)
					}
				}
			}
		}
	}

	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var cur *event
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if cur != nil {
				handle(cur)
				cur = nil
			}
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if cur != nil {
				if m := frameRe.FindStringSubmatch(line); m != nil {
					cur.stack = append(cur.stack, m[1])
				}
			}
			continue
		}
		if cur != nil {
			handle(cur)
		}
		m := headRe.FindStringSubmatch(line)
		if m == nil {
			cur = nil
			continue
		}
		tid, _ := strconv.Atoi(m[2])
		t, _ := strconv.ParseFloat(m[4], 64)
		period, _ := strconv.ParseInt(m[5], 10, 64)
		cur = &event{comm: strings.TrimSpace(m[1]), tid: tid, t: t, period: period, name: m[6], rest: m[7]}
	}
	if cur != nil {
		handle(cur)
	}
	if err := sc.Err(); err != nil {
		die("perfsum: %v", err)
	}
	fmt.Printf("on total %.3f ms %d samples\n", float64(total)/1e6, samples)
	for i, sp := range on {
		fmt.Printf("on %s %.3f ms %d samples\n", sp.name, float64(onNs[i])/1e6, onN[i])
	}
	if *top > 0 {
		type agg struct {
			path   string
			n      int
			sum, m float64
		}
		var a []agg
		for k, d := range paths {
			sort.Float64s(d)
			var sum float64
			for _, x := range d {
				sum += x
			}
			a = append(a, agg{k, len(d), sum, d[len(d)/2]})
		}
		sort.Slice(a, func(i, j int) bool { return a[i].sum > a[j].sum })
		for i := 0; i < len(a) && i < *top; i++ {
			fmt.Printf("offpath %d sleeps total %.3f ms median %.1f us: %s\n", a[i].n, a[i].sum/1e3, a[i].m, a[i].path)
		}
	}
	for i, sp := range off {
		d := offD[i]
		sort.Float64s(d)
		if len(d) == 0 {
			fmt.Printf("off %s 0 sleeps\n", sp.name)
			continue
		}
		var sum float64
		for _, x := range d {
			sum += x
		}
		q := func(f float64) float64 { return d[int(f*float64(len(d)-1)+0.5)] }
		fmt.Printf("off %s %d sleeps total %.3f ms median %.1f mean %.1f us min %.1f p10 %.1f p90 %.1f max %.1f us\n",
			sp.name, len(d), sum/1e3, q(0.5), sum/float64(len(d)), d[0], q(0.1), q(0.9), d[len(d)-1])
	}
}
