//go:build ignore

// rcubarrier_helper is the helper of rcubarrier.sh (see there); it is not
// part of the module's build. rcubarrier.sh builds it into a temporary
// directory and feeds it a `perf record -a -g -e sched:sched_switch`
// capture, as printed by
//
//	perf script -F comm,pid,tid,cpu,time,event,trace,ip,sym
//
// It prints, for the ip processes that deleted devices (a switch-out stack
// holding rtnl_dellink), where they slept: each off-CPU interval (switch-out
// to the next switch-in of the same thread) classed by the waiting kernel
// function of its switch-out stack — rcu_barrier on its barrier_mutex (a
// barrier shared or queued behind another), rcu_barrier on its completion
// (a barrier this process ran), synchronize_rcu_expedited and its caller,
// the RTNL mutex — with count, total, mean, median and p90. Then the RCU
// grace-period kthread (rcu_preempt or rcu_sched): its idle sleeps in
// rcu_gp_kthread (no grace period requested) and the time from each wake-up
// to its next idle sleep (one or more grace periods and their clean-up),
// the interval between the returns of successive barriers run (the cycle
// of a one-by-one deletion, in ticks at the kernel's HZ), and, per barrier
// run, when the first grace period started after the
// barrier began and how long after the last grace period ended the barrier
// returned. One "key value..." line per figure.
//
// Given the kernel's HZ (-hz N, from rcubarrier.sh), it also prints the
// histograms on the tick grid: each busy period of the grace-period kthread
// and each rcu_barrier completion wait rounded to the nearest whole number
// of ticks (gp_kthread_busy_ticks, barrier_wait_ticks: "K:COUNT" for K
// ticks), the excess of a busy period over its ticks (the grace period's
// clean-up past the tick that ends it), and how many times the kthread
// slept in rcu_gp_fqs_loop within a busy period (gp_fqs_sleeps_per_busy:
// each grace period waits there at least once, for its first
// force-quiescent-state scan or its last quiescent state, so a busy period
// of several grace periods sleeps there several times).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

type event struct {
	t                  float64
	prevComm, nextComm string
	prevPid, nextPid   int
	prevState          string
	stack              []string
}

var hdr = regexp.MustCompile(`^\s*(\S.*?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+sched:sched_switch:\s+prev_comm=(.*?) prev_pid=(\d+) prev_prio=-?\d+ prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)`)

func main() {
	hz := flag.Int("hz", 0, "the kernel's CONFIG_HZ: print the tick histograms (0: none)")
	flag.Parse()
	var evs []*event
	var cur *event
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := hdr.FindStringSubmatch(line); m != nil {
			t, _ := strconv.ParseFloat(m[5], 64)
			pp, _ := strconv.Atoi(m[7])
			np, _ := strconv.Atoi(m[10])
			cur = &event{t: t, prevComm: m[6], prevPid: pp, prevState: m[8], nextComm: m[9], nextPid: np}
			evs = append(evs, cur)
			continue
		}
		if f := strings.Fields(line); cur != nil && len(f) >= 2 {
			cur.stack = append(cur.stack, f[1])
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "rcubarrier_helper:", err)
		os.Exit(1)
	}
	mine := map[int]bool{}
	for _, e := range evs {
		if e.prevComm == "ip" && slices.Contains(e.stack, "rtnl_dellink") {
			mine[e.prevPid] = true
		}
	}
	if len(mine) == 0 {
		fmt.Fprintln(os.Stderr, "rcubarrier_helper: no ip process deleting devices in the capture")
		os.Exit(1)
	}
	t0, t1 := -1.0, 0.0
	type off struct {
		t     float64
		class string
	}
	out := map[int]off{}
	waits := map[string][]float64{}
	var barriers [][2]float64 // rcu_barrier completion waits: start, end
	var gpIdle [][2]float64   // GP kthread idle sleeps: start, end
	var gpIdleAt float64 = -1
	var fqsSleeps []float64 // when the GP kthread slept in rcu_gp_fqs_loop
	for _, e := range evs {
		if mine[e.prevPid] {
			if t0 < 0 {
				t0 = e.t
			}
			t1 = e.t
			out[e.prevPid] = off{e.t, classify(e)}
		}
		if isGPKthread(e.prevComm) && e.prevState != "R" && e.prevState != "R+" {
			if slices.Contains(head(e.stack, 6), "rcu_gp_fqs_loop") {
				fqsSleeps = append(fqsSleeps, e.t)
			} else {
				gpIdleAt = e.t
			}
		}
		if isGPKthread(e.nextComm) && gpIdleAt >= 0 {
			gpIdle = append(gpIdle, [2]float64{gpIdleAt, e.t})
			gpIdleAt = -1
		}
		if o, ok := out[e.nextPid]; ok && mine[e.nextPid] {
			delete(out, e.nextPid)
			waits[o.class] = append(waits[o.class], e.t-o.t)
			if o.class == "rcu_barrier:completion" {
				barriers = append(barriers, [2]float64{o.t, e.t})
			}
		}
	}
	fmt.Printf("processes %d\nspan_s %.3f\n", len(mine), t1-t0)
	classes := make([]string, 0, len(waits))
	for c := range waits {
		classes = append(classes, c)
	}
	sort.Slice(classes, func(i, j int) bool { return sum(waits[classes[i]]) > sum(waits[classes[j]]) })
	for _, c := range classes {
		v := waits[c]
		fmt.Printf("off %-48s n %5d total_s %7.3f %s\n", c, len(v), sum(v), dist(v))
	}
	// Grace periods within the deleters' span.
	var wakes, sleeps, idles []float64
	for _, g := range gpIdle {
		if g[1] >= t0 && g[1] <= t1 {
			sleeps = append(sleeps, g[0])
			wakes = append(wakes, g[1])
			idles = append(idles, g[1]-g[0])
		}
	}
	fmt.Printf("gp_kthread_wakes_from_idle %d\n", len(wakes))
	if len(idles) > 0 {
		fmt.Printf("gp_kthread_idle %s\n", dist(idles))
	}
	var busy, fqsPer []float64
	for i := 0; i+1 < len(wakes); i++ {
		busy = append(busy, sleeps[i+1]-wakes[i])
		a := sort.SearchFloat64s(fqsSleeps, wakes[i])
		b := sort.SearchFloat64s(fqsSleeps, sleeps[i+1])
		fqsPer = append(fqsPer, float64(b-a))
	}
	if len(busy) > 0 {
		fmt.Printf("gp_kthread_busy %s\n", dist(busy))
	}
	tick := 0.0
	if *hz > 0 {
		tick = 1 / float64(*hz)
	}
	if len(busy) > 0 && tick > 0 {
		var excess []float64
		for _, b := range busy {
			excess = append(excess, b-math.Round(b/tick)*tick)
		}
		fmt.Printf("gp_kthread_busy_ticks %s\n", histogram(busy, tick))
		fmt.Printf("gp_kthread_busy_excess %s\n", dist(excess))
		fmt.Printf("gp_fqs_sleeps_per_busy %s\n", histogram(fqsPer, 1))
	}
	var toStart, fromEnd, starts []float64
	for _, b := range barriers {
		i := sort.SearchFloat64s(wakes, b[0])
		j := sort.SearchFloat64s(wakes, b[1])
		starts = append(starts, float64(j-i))
		if j > i {
			toStart = append(toStart, wakes[i]-b[0])
			if k := sort.SearchFloat64s(sleeps, b[1]) - 1; k >= 0 && sleeps[k] >= b[0] {
				fromEnd = append(fromEnd, b[1]-sleeps[k])
			}
		}
	}
	fmt.Printf("barriers_run %d\n", len(barriers))
	var gaps []float64 // from one barrier's return to the next one's
	for i := 1; i < len(barriers); i++ {
		gaps = append(gaps, barriers[i][1]-barriers[i-1][1])
	}
	if len(gaps) > 0 {
		fmt.Printf("barrier_interval %s\n", dist(gaps))
	}
	if len(barriers) > 0 && tick > 0 {
		var w []float64
		for _, b := range barriers {
			w = append(w, b[1]-b[0])
		}
		fmt.Printf("barrier_wait_ticks %s\n", histogram(w, tick))
		fmt.Printf("barrier_gp_ticks %s\n", histogram(gpTicks(barriers, tick), 1))
	}
	if len(starts) > 0 {
		fmt.Printf("gp_starts_per_barrier mean %.2f\n", sum(starts)/float64(len(starts)))
	}
	if len(toStart) > 0 {
		fmt.Printf("barrier_start_to_gp_start %s\n", dist(toStart))
	}
	if len(fromEnd) > 0 {
		fmt.Printf("gp_end_to_barrier_end %s\n", dist(fromEnd))
	}
}

func isGPKthread(comm string) bool { return comm == "rcu_preempt" || comm == "rcu_sched" }

func head(s []string, n int) []string { return s[:min(n, len(s))] }

// classify names what a switch-out stack waits for.
func classify(e *event) string {
	if e.prevState == "R" || e.prevState == "R+" {
		return "preempted"
	}
	s := e.stack
	for _, f := range []string{"rcu_barrier", "synchronize_rcu_expedited", "synchronize_rcu", "netdev_wait_allrefs_any", "msleep"} {
		i := slices.Index(s, f)
		if i < 0 {
			continue
		}
		caller := ""
		if i+1 < len(s) {
			caller = s[i+1]
		}
		if f == "rcu_barrier" {
			for _, g := range s[:i] {
				if strings.Contains(g, "mutex_lock") {
					return "rcu_barrier:barrier_mutex"
				}
			}
			return "rcu_barrier:completion"
		}
		return f + "<-" + caller
	}
	for i, f := range s {
		if strings.Contains(f, "mutex_lock") && i+1 < len(s) {
			return "mutex<-" + s[i+1]
		}
	}
	return "other"
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// gpTicks returns, for each barrier run, the length in ticks of the grace
// period it waited for, on the tick grid of the barriers' returns (each
// returns just after the tick that noticed its grace period's end; the
// grid's phase is the median of the returns' offsets): from the first tick
// after the barrier began, at which its callbacks asked for a grace period,
// to the tick before the one it returned at. Exact for one deleting process
// (one grace period a barrier, its callbacks queued in the tick the
// barrier begins in).
func gpTicks(barriers [][2]float64, tick float64) []float64 {
	var off []float64
	for _, b := range barriers {
		off = append(off, math.Mod(b[1], tick))
	}
	slices.Sort(off)
	phase := off[len(off)/2]
	var k []float64
	for _, b := range barriers {
		asked := math.Floor((b[0]-phase)/tick) + 1
		noticed := math.Floor((b[1] - phase + tick/2) / tick)
		k = append(k, noticed-asked-1)
	}
	return k
}

// histogram returns "n N K:COUNT..." for v rounded to the nearest multiple
// K of unit, every K from the least to the greatest, and the mean of K.
func histogram(v []float64, unit float64) string {
	count := map[int]int{}
	lo, hi, total := math.MaxInt, math.MinInt, 0
	for _, x := range v {
		k := int(math.Round(x / unit))
		count[k]++
		lo, hi, total = min(lo, k), max(hi, k), total+k
	}
	var b strings.Builder
	fmt.Fprintf(&b, "n %d", len(v))
	for k := lo; k <= hi; k++ {
		if count[k] > 0 {
			fmt.Fprintf(&b, " %d:%d", k, count[k])
		}
	}
	fmt.Fprintf(&b, " mean %.2f", float64(total)/float64(len(v)))
	return b.String()
}

// dist prints mean, median and p90 of v (seconds) in ms.
func dist(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	ms := func(x float64) string { return time.Duration(x * 1e9).Round(time.Microsecond).String() }
	return fmt.Sprintf("mean %s median %s p90 %s", ms(sum(s)/float64(len(s))), ms(s[len(s)/2]), ms(s[len(s)*9/10]))
}
