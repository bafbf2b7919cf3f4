// memlat measures the latency of a dependent load (a pointer chase) on this
// machine as the working set grows from the L1 cache to far beyond the L3,
// in a buffer backed by 2 MB pages as the kernel's direct map is, and
// prints the latencies of sim.Memory as profile lines: the plateau of each
// level (L1Hit, L2Hit, L3Hit, DRAM) with the capacities from sysfs. It also
// prints, for every working set, what sim.Memory.LoadNS predicts from those
// plateaus against what was measured, so the capacity model (a level of
// capacity C holds min(1, C/ws) of the working set) can be judged between
// the plateaus.
//
//	go run ./internal/measure/memlat              # 16 KiB … 1 GiB
//	go run ./internal/measure/memlat -max 256M -reps 3
//
// The chase visits the cache lines of the working set in one random cycle
// (Sattolo's algorithm, seeded), so every load depends on the one before it
// and no prefetcher can guess the next line.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/netsimlab/netsim/sim"
)

const line = 64

func main() {
	minWS := flag.String("min", "16K", "smallest working set")
	maxWS := flag.String("max", "1G", "largest working set")
	reps := flag.Int("reps", 5, "repetitions of each working set (the median is kept)")
	loads := flag.Int64("loads", 1<<22, "loads per repetition at least (and two passes over the working set)")
	seed := flag.Uint64("seed", 1, "seed of the random cycles")
	curve := flag.String("curve", "", "refit the curve a previous run printed (its output file) instead of measuring")
	flag.Int64Var(&objSize, "obj", 0, "0: chase the lines in one random cycle; N: chase objects of N bytes in allocation order, shuffled within each 4 KiB page as a slab with a random freelist hands them out (a list the kernel built one object after another)")
	flag.Parse()
	lo, err1 := parseSize(*minWS)
	hi, err2 := parseSize(*maxWS)
	if err1 != nil || err2 != nil || lo < 4*line || hi < lo || *reps < 1 || *loads < 1 {
		fmt.Fprintln(os.Stderr, "memlat: bad -min, -max, -reps or -loads")
		os.Exit(2)
	}
	caps, err := cacheSizes("/sys/devices/system/cpu/cpu0/cache")
	if err != nil {
		fmt.Fprintln(os.Stderr, "memlat:", err)
		os.Exit(1)
	}
	var pts []point
	if *curve != "" {
		if pts, err = readCurve(*curve); err != nil {
			fmt.Fprintln(os.Stderr, "memlat:", err)
			os.Exit(1)
		}
		fmt.Printf("# memlat: the curve of %s; caches L1d %s, L2 %s, L3 %s (sysfs)\n", *curve, size(caps.L1), size(caps.L2), size(caps.L3))
	} else {
		pts = run(caps, lo, hi, *reps, *loads, *seed)
	}
	// Each level's plateau is taken inside the level; where the caches
	// hold less than sysfs says (a shared or virtualised L3), the working
	// sets inside it are the ones below the fitted capacity: fit the
	// plateaus, then the capacities, a few times.
	m, lat, used := fitPlateaus(caps, pts)
	eff := caps
	for range 4 {
		eff = fitCapacities(m, pts)
		m, lat, used = fitPlateaus(eff, pts)
	}
	m.L2, m.L3 = caps.L2, caps.L3
	fmt.Println()
	when := time.Now().UTC().Format("2006-01-02")
	src := fmt.Sprintf("measured memlat (go run ./internal/measure/memlat, %s, %s):", when, strings.TrimSpace(loadavg()))
	if *curve != "" {
		src = fmt.Sprintf("measured memlat (go run ./internal/measure/memlat -curve %s):", *curve)
	}
	if objSize > 0 {
		// A chase in allocation order gives the Seq fields of the
		// object size measured (the profile has 128 and 512).
		fmt.Printf("Memory.SeqL3 %d %s the chase's effective L3 capacity (fitted below)\n", eff.L3, src)
		fmt.Printf("Memory.SeqL3Hit%d %s %s %.2f ns, %s\n", objSize, fmtNS(m.L3Hit), src, lat[2], used[2])
		fmt.Printf("Memory.SeqDRAM%d %s %s %.2f ns, %s\n", objSize, fmtNS(m.DRAM), src, lat[3], used[3])
	} else {
		fmt.Printf("Memory.L1 %d measured sysfs: /sys/devices/system/cpu/cpu0/cache (L1d, %s)\n", m.L1, size(m.L1))
		fmt.Printf("Memory.L2 %d measured sysfs: /sys/devices/system/cpu/cpu0/cache (L2, %s)\n", m.L2, size(m.L2))
		fmt.Printf("Memory.L3 %d measured sysfs: /sys/devices/system/cpu/cpu0/cache (L3, %s)\n", m.L3, size(m.L3))
		for i, name := range []string{"L1Hit", "L2Hit", "L3Hit", "DRAM"} {
			d := []sim.Latency{m.L1Hit, m.L2Hit, m.L3Hit, m.DRAM}[i]
			fmt.Printf("Memory.%s %s %s %.2f ns, %s\n", name, fmtNS(d), src, lat[i], used[i])
		}
	}
	fmt.Printf("# the chase's effective capacities (fitted, below): L2 %s, L3 %s (%d and %d bytes)\n", size(eff.L2), size(eff.L3), eff.L2, eff.L3)
	fmt.Println()
	fmt.Println("# the capacity model (sim.Memory.LoadNS with the plateaus above, sysfs capacities) against the curve")
	fmt.Printf("# worst model/measured ratio %.2f (or its inverse)\n", printModel(m, pts))

	// The capacities that make the model fit the whole curve best, the
	// plateaus held: what the caches hold of a chase on this machine, which
	// a shared or virtualised L3 can make far less than sysfs says.
	fmt.Println()
	fmt.Printf("# capacities fitted to the curve (least squares on log latency, plateaus held): L2 %s, L3 %s\n", size(eff.L2), size(eff.L3))
	fmt.Printf("# worst model/measured ratio with the fitted capacities %.2f (or its inverse)\n", printModel(eff, pts))
}

// printModel prints m.LoadNS against the measured curve pts, a line each,
// and returns the worst ratio of the two (or its inverse).
func printModel(m sim.Memory, pts []point) float64 {
	fmt.Printf("# %12s %10s %10s %7s\n", "working set", "measured", "model", "ratio")
	worst := 0.0
	for _, p := range pts {
		pred := m.LoadNS(p.WS)
		r := pred / p.NS
		worst = max(worst, max(r, 1/r))
		fmt.Printf("  %12s %10.2f %10.2f %7.2f\n", size(p.WS), p.NS, pred, r)
	}
	return worst
}

// fitCapacities returns m with the L2 and L3 capacities (each searched
// from a sixteenth to twice its own, in steps of 2^(1/8), the L3 above the
// L2) that minimise the squared log error of m.LoadNS over pts.
func fitCapacities(m sim.Memory, pts []point) sim.Memory {
	cost := func(c sim.Memory) float64 {
		e := 0.0
		for _, p := range pts {
			d := math.Log(c.LoadNS(p.WS) / p.NS)
			e += d * d
		}
		return e
	}
	steps := func(c int64) []int64 {
		var out []int64
		for i := -32; i <= 8; i++ {
			out = append(out, int64(float64(c)*math.Pow(2, float64(i)/8))/line*line)
		}
		return out
	}
	best, bestCost := m, cost(m)
	for _, l2 := range steps(m.L2) {
		for _, l3 := range steps(m.L3) {
			if l3 <= l2 || l2 <= m.L1 {
				continue
			}
			c := m
			c.L2, c.L3 = l2, l3
			if e := cost(c); e < bestCost {
				best, bestCost = c, e
			}
		}
	}
	return best
}

// run measures the curve from lo to hi and prints it.
func run(caps sim.Memory, lo, hi int64, reps int, loads int64, seed uint64) []point {
	buf, huge, err := hugeBuffer(hi)
	if err != nil {
		fmt.Fprintln(os.Stderr, "memlat:", err)
		os.Exit(1)
	}
	runtime.LockOSThread()
	fmt.Printf("# memlat: caches L1d %s, L2 %s, L3 %s (sysfs); buffer %s, %s in 2 MB pages (AnonHugePages)\n",
		size(caps.L1), size(caps.L2), size(caps.L3), size(int64(len(buf))), size(huge))
	if huge < int64(len(buf))/2 {
		fmt.Println("# memlat: WARNING: less than half the buffer is in huge pages; TLB misses inflate the large working sets")
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	var pts []point
	fmt.Printf("# %12s %10s %10s %10s\n", "working set", "ns/load", "min", "max")
	for _, ws := range sizes(lo, hi) {
		ns := measure(buf[:ws], rng, reps, loads)
		slices.Sort(ns)
		p := point{WS: ws, NS: ns[len(ns)/2]}
		pts = append(pts, p)
		fmt.Printf("  %12s %10.2f %10.2f %10.2f\n", size(ws), p.NS, ns[0], ns[len(ns)-1])
	}
	return pts
}

// readCurve reads the curve lines ("  16 KiB  1.50  1.11  2.33") of a
// previous run's output, up to the first blank line after them.
func readCurve(name string) ([]point, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var pts []point
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if !strings.HasPrefix(l, "  ") || len(f) != 5 {
			if len(pts) > 0 {
				break
			}
			continue
		}
		ws, err1 := parseSize(strings.TrimSuffix(f[0], ".") + strings.TrimSuffix(f[1], "iB"))
		v, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil {
			if x, err := strconv.ParseFloat(f[0], 64); err == nil && err2 == nil {
				mul := map[string]float64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[f[1]]
				ws, err1 = int64(x*mul), nil
				if mul == 0 {
					err1 = fmt.Errorf("unit %q", f[1])
				}
			}
		}
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: bad curve line %q", name, l)
		}
		pts = append(pts, point{ws, v})
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%s: no curve", name)
	}
	return pts, nil
}

// point is one working set and its median latency per load.
type point struct {
	WS int64
	NS float64
}

// sizes returns the working sets from lo to hi: the powers of 2 and the
// midpoints between them (1.5 times a power of 2), in cache lines.
func sizes(lo, hi int64) []int64 {
	var out []int64
	for p := int64(1); p <= hi; p *= 2 {
		for _, s := range []int64{p, p + p/2} {
			if s >= lo && s <= hi && s%line == 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// measure returns the nanoseconds per load of reps chases over buf, each a
// random cycle through all its cache lines.
func measure(buf []byte, rng *rand.Rand, reps int, minLoads int64) []float64 {
	if objSize > 0 {
		return measureAllocOrder(buf, rng, reps, minLoads)
	}
	n := len(buf) / line
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	// Sattolo: one cycle through all n lines.
	for i := n - 1; i > 0; i-- {
		j := rng.IntN(i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	for i := range n {
		*(*unsafe.Pointer)(unsafe.Pointer(&buf[i*line])) = unsafe.Pointer(&buf[int(perm[i])*line])
	}
	perm = nil
	return timeChase(buf, n, reps, minLoads)
}

// objSize is -obj: 0 for the random chase, else the object size of the
// allocation-order chase.
var objSize int64

// measureAllocOrder chases the objects of buf in the order a slab cache
// with a random freelist allocates them: page by page, the objects of a
// 4 KiB page in a random order, each object's first word pointing at the
// next object allocated. It is the walk of a list the kernel built by
// adding one object after another (routes, addresses), read in the order
// they were added.
func measureAllocOrder(buf []byte, rng *rand.Rand, reps int, minLoads int64) []float64 {
	per := max(1, 4096/int(objSize))
	n := len(buf) / int(objSize)
	order := make([]int32, 0, n)
	for p := 0; p < n; p += per {
		k := min(per, n-p)
		base := len(order)
		for i := range k {
			order = append(order, int32(p+i))
		}
		rng.Shuffle(k, func(i, j int) { order[base+i], order[base+j] = order[base+j], order[base+i] })
	}
	for i, o := range order {
		next := order[(i+1)%n]
		*(*unsafe.Pointer)(unsafe.Pointer(&buf[int(o)*int(objSize)])) = unsafe.Pointer(&buf[int(next)*int(objSize)])
	}
	return timeChase(buf, n, reps, minLoads)
}

// timeChase times reps chases of at least minLoads loads (and two passes
// over the n links) from buf's first byte, after a warming pass.
func timeChase(buf []byte, n int, reps int, minLoads int64) []float64 {
	steps := max(minLoads, 2*int64(n))
	p := unsafe.Pointer(&buf[0])
	p = chase(p, int64(n)) // warm: one pass
	out := make([]float64, reps)
	for r := range reps {
		t := time.Now()
		p = chase(p, steps)
		out[r] = float64(time.Since(t).Nanoseconds()) / float64(steps)
	}
	sink = p
	return out
}

var sink unsafe.Pointer

// chase follows k pointers from p.
//
//go:noinline
func chase(p unsafe.Pointer, k int64) unsafe.Pointer {
	for ; k >= 8; k -= 8 {
		p = *(*unsafe.Pointer)(p)
		p = *(*unsafe.Pointer)(p)
		p = *(*unsafe.Pointer)(p)
		p = *(*unsafe.Pointer)(p)
		p = *(*unsafe.Pointer)(p)
		p = *(*unsafe.Pointer)(p)
		p = *(*unsafe.Pointer)(p)
		p = *(*unsafe.Pointer)(p)
	}
	for ; k > 0; k-- {
		p = *(*unsafe.Pointer)(p)
	}
	return p
}

// fitPlateaus returns the Memory of capacities caps whose latencies are the
// plateaus of pts (to the picosecond, as a sim.Latency holds them),
// the plateaus unrounded, and for each the working sets it was taken from.
// Each level's plateau is taken from the working sets well inside it (at
// least twice the level above's capacity, at most half its own, three
// quarters for L1; DRAM: at least four times the L3), with the share the
// levels above hold by the capacity model taken out: a level's latency is
// the one that makes the model match the median of those points.
func fitPlateaus(caps sim.Memory, pts []point) (sim.Memory, [4]float64, [4]string) {
	m := caps
	var used [4]string
	var exact [4]float64
	lat := []*sim.Latency{&m.L1Hit, &m.L2Hit, &m.L3Hit, &m.DRAM}
	lims := [][2]int64{
		{0, caps.L1 * 3 / 4},
		{2 * caps.L1, caps.L2 / 2},
		{2 * caps.L2, caps.L3 / 2},
		{4 * caps.L3, 1 << 62},
	}
	for lv := range 4 {
		var est []float64
		var names []string
		for _, p := range pts {
			if p.WS < lims[lv][0] || p.WS > lims[lv][1] {
				continue
			}
			// The model is linear in this level's latency: solve for it
			// with the levels above as fitted, the ones below unused.
			probe := m
			*[]*sim.Latency{&probe.L1Hit, &probe.L2Hit, &probe.L3Hit, &probe.DRAM}[lv] = 0
			zero := probe.LoadNS(p.WS)
			*[]*sim.Latency{&probe.L1Hit, &probe.L2Hit, &probe.L3Hit, &probe.DRAM}[lv] = 1000 * sim.Nanosecond
			w := (probe.LoadNS(p.WS) - zero) / 1000
			if w <= 0 {
				continue
			}
			est = append(est, (p.NS-zero)/w)
			names = append(names, size(p.WS))
		}
		if len(est) == 0 {
			// Keep what the Memory given had (a previous fit's).
			exact[lv] = lat[lv].NS()
			used[lv] = "no working set inside the level: the previous estimate kept"
			continue
		}
		slices.Sort(est)
		exact[lv] = est[len(est)/2]
		*lat[lv] = sim.Latency(math.Round(exact[lv] * float64(sim.Nanosecond)))
		used[lv] = fmt.Sprintf("median over working sets %s of the chase latency, less the share the levels above hold (capacities L2 %s, L3 %s)", strings.Join(names, " "), size(caps.L2), size(caps.L3))
	}
	return m, exact, used
}

// cacheSizes reads the data cache capacities of one CPU from sysfs.
func cacheSizes(dir string) (sim.Memory, error) {
	var m sim.Memory
	for i := 0; ; i++ {
		d := fmt.Sprintf("%s/index%d", dir, i)
		lv, err := os.ReadFile(d + "/level")
		if err != nil {
			if i == 0 {
				return m, fmt.Errorf("no caches in %s: %v", dir, err)
			}
			break
		}
		typ, _ := os.ReadFile(d + "/type")
		sz, _ := os.ReadFile(d + "/size")
		if strings.TrimSpace(string(typ)) == "Instruction" {
			continue
		}
		b, err := parseSize(strings.TrimSpace(string(sz)))
		if err != nil {
			return m, fmt.Errorf("%s/size: %v", d, err)
		}
		switch strings.TrimSpace(string(lv)) {
		case "1":
			m.L1 = b
		case "2":
			m.L2 = b
		case "3":
			m.L3 = b
		}
	}
	if m.L1 == 0 || m.L2 == 0 {
		return m, fmt.Errorf("%s: no L1d or L2 cache", dir)
	}
	return m, nil
}

// parseSize parses "32K", "1M", "1G" or a number of bytes.
func parseSize(s string) (int64, error) {
	mul := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mul = 1 << 10
	case strings.HasSuffix(s, "M"):
		mul = 1 << 20
	case strings.HasSuffix(s, "G"):
		mul = 1 << 30
	}
	n, err := strconv.ParseInt(strings.TrimRight(s, "KMG"), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mul, nil
}

// size formats a byte count in the largest unit it reaches.
func size(b int64) string {
	for _, u := range []struct {
		s string
		n int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b%(u.n/2) == 0 && b >= u.n {
			return strconv.FormatFloat(float64(b)/float64(u.n), 'f', -1, 64) + " " + u.s
		}
		if b >= u.n {
			return strconv.FormatFloat(float64(b)/float64(u.n), 'f', 2, 64) + " " + u.s
		}
	}
	return strconv.FormatInt(b, 10) + " B"
}

// fmtNS formats a latency in whole ns.
func fmtNS(l sim.Latency) string {
	return strconv.FormatFloat(math.Round(l.NS()*100)/100, 'f', -1, 64) + "ns"
}

// loadavg returns the first three fields of /proc/loadavg, for the
// provenance line.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return "load " + strings.Join(f[:3], " ")
}
