// The memory hierarchy of the cost model: how long a walk's dependent
// loads take as the data it walks outgrows the caches.

package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Latency is how long one load takes, in picoseconds. A cache hit takes a
// few nanoseconds, and a whole-nanosecond time.Duration cannot tell them
// apart: L2's 4.86 ns and an in-order L3 hit's 5.35 ns would both be 5 ns,
// and a walk that outgrows L2 would seem to stall not at all.
type Latency int64

// Units of Latency.
const (
	Picosecond Latency = 1
	Nanosecond Latency = 1000
)

// NS returns l in nanoseconds.
func (l Latency) NS() float64 { return float64(l) / float64(Nanosecond) }

// String writes l in nanoseconds, as a profile does: "4.86ns", "179ns".
func (l Latency) String() string {
	if l == 0 {
		return "0"
	}
	return strconv.FormatFloat(l.NS(), 'f', -1, 64) + "ns"
}

// ParseLatency reads a Latency written in nanoseconds ("4.86ns") or
// microseconds ("1.2µs", "1.2us"), to the picosecond; "0" is zero.
func ParseLatency(s string) (Latency, error) {
	if s == "0" {
		return 0, nil
	}
	num, unit := s, Latency(0)
	for _, u := range []struct {
		suffix string
		l      Latency
	}{{"ns", Nanosecond}, {"µs", 1000 * Nanosecond}, {"us", 1000 * Nanosecond}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, unit = n, u.l
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if unit == 0 || err != nil || math.IsInf(v, 0) || math.IsNaN(v) || strings.ContainsAny(num, "eE_xXpP") {
		return 0, fmt.Errorf("%q is not a latency (4.86ns, 179ns, 1.2µs)", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("%s is negative", s)
	}
	if v*float64(unit) > math.MaxInt64/2 {
		return 0, fmt.Errorf("%s is too long for a load", s)
	}
	return Latency(math.Round(v * float64(unit))), nil
}

// Memory is the data-cache hierarchy one CPU sees, as a walk over a working
// set of kernel objects meets it: the capacity of each level and the
// latency of a dependent load (one whose address comes from the load
// before it, as in a list or tree walk) that hits there.
//
// The kernel's slab objects sit in the direct map, which x86-64 maps with
// 1 GB or 2 MB pages, so a walk over them misses the TLB rarely; the model
// has no TLB term, and the latencies are to be measured with huge pages
// (internal/measure/memlat).
//
// The zero Memory has no caches and no latencies: loads are free.
type Memory struct {
	// L1, L2 and L3 are the capacities in bytes of the data caches one CPU
	// can use: its own L1d and L2, and the L3 it shares (0: no such level).
	L1, L2, L3 int64
	// L1Hit, L2Hit, L3Hit and DRAM are the latencies of a dependent load
	// served by each level.
	L1Hit, L2Hit, L3Hit, DRAM Latency
	// A chase in allocation order (a list the kernel built object after
	// object, walked in the order it was built: a slab hands out the
	// objects of a page in a random order, page after page) meets other
	// latencies, which the prefetchers partly hide the more objects share
	// a page, and another effective L3 capacity. SeqL3 is that capacity;
	// SeqL3Hit128 and SeqDRAM128 the latencies of a chase over 128-byte
	// objects, SeqL3Hit512 and SeqDRAM512 over 512-byte objects. Other
	// sizes interpolate (and extrapolate no further than) these two in the
	// logarithm of the size.
	SeqL3                                            int64
	SeqL3Hit128, SeqDRAM128, SeqL3Hit512, SeqDRAM512 Latency
}

// LoadNS returns the mean latency, in nanoseconds, of a dependent load at a
// uniformly random place in a working set of ws bytes: a level of capacity
// C holds min(1, C/ws) of it, and a load is served by the first level that
// holds its line. A working set that fits L1 costs L1Hit a load; one far
// larger than L3 costs nearly DRAM.
func (m *Memory) LoadNS(ws int64) float64 {
	return m.loadNS(ws, m.L3, m.L3Hit.NS(), m.DRAM.NS())
}

// SeqLoadNS is LoadNS for a chase in allocation order over objects of obj
// bytes (0: 512).
func (m *Memory) SeqLoadNS(ws, obj int64) float64 {
	if obj <= 0 {
		obj = 512
	}
	x := math.Min(1, math.Max(0, math.Log2(float64(obj)/128)/2))
	mix := func(a, b Latency) float64 { return (1-x)*a.NS() + x*b.NS() }
	return m.loadNS(ws, m.SeqL3, mix(m.SeqL3Hit128, m.SeqL3Hit512), mix(m.SeqDRAM128, m.SeqDRAM512))
}

func (m *Memory) loadNS(ws, l3cap int64, l3, dram float64) float64 {
	if ws <= 0 {
		return m.L1Hit.NS()
	}
	held := func(c int64) float64 { return math.Min(1, float64(c)/float64(ws)) }
	h1 := held(m.L1)
	h2 := math.Max(h1, held(m.L2))
	h3 := math.Max(h2, held(l3cap))
	return h1*m.L1Hit.NS() + (h2-h1)*m.L2Hit.NS() + (h3-h2)*l3 + (1-h3)*dram
}

// StallNS returns what a dependent load in a working set of ws bytes costs
// beyond one that hits L2, in nanoseconds (0 while ws fits L2). A cost
// constant measured on a working set that fits L2 already includes the L2
// hits of its loads; the stall is what a larger working set adds.
func (m *Memory) StallNS(ws int64) float64 {
	return math.Max(0, m.LoadNS(ws)-m.LoadNS(min(ws, m.L2)))
}

// SeqStallNS is StallNS for a chase in allocation order over objects of
// obj bytes.
func (m *Memory) SeqStallNS(ws, obj int64) float64 {
	return math.Max(0, m.SeqLoadNS(ws, obj)-m.SeqLoadNS(min(ws, m.L2), obj))
}

// Footprint is the memory side of one unit of counted work: the working
// set it walks in (Bytes, the kernel objects the whole walk touches) and
// the dependent loads each unit makes there: Loads at places unrelated to
// the order the objects were allocated in (a tree descent, a node reached
// by its key), SeqLoads along a list in the order it was built (the cache
// lines on the walk's chain of pointers, each of which may miss). The
// subsystem that charges the work knows both: the objects' sizes are the
// kernel's, and the lines a unit reads are the fields its callback reads.
//
// Obj is the size of the objects a walk in allocation order chases (0:
// 512 bytes): the more share a page, the more the prefetchers hide.
type Footprint struct {
	Bytes    int64
	Loads    float64
	SeqLoads float64
	Obj      int64
}

// ChargeIn is Charge for work that walks a working set: each of the n
// units costs Costs.PerUnit(k) (its cost while the working set fits L2)
// plus fp.Loads dependent loads' stall in a working set of fp.Bytes
// (Memory.StallNS). The counters record n units of k, as Charge does; the
// stall is counted in MemStallNS.
func (t *Task) ChargeIn(k Kind, n int64, fp Footprint) {
	if t == nil || n == 0 {
		return
	}
	if d := t.account(k, n) + t.accountStall(n, fp); d > 0 {
		t.compute(d)
	}
}

// accountStall records the memory stall of n units of work with footprint
// fp in the counters and returns it.
func (t *Task) accountStall(n int64, fp Footprint) time.Duration {
	s := t.w.stall(n, fp)
	if s > 0 {
		t.count(MemStallNS, int64(s))
	}
	return s
}

// stall returns the memory stall of n units of work with footprint fp.
func (w *World) stall(n int64, fp Footprint) time.Duration {
	if fp.Bytes <= 0 || fp.Loads <= 0 && fp.SeqLoads <= 0 {
		return 0
	}
	m := &w.costs.Memory
	per := max(0, fp.Loads)*m.StallNS(fp.Bytes) + max(0, fp.SeqLoads)*m.SeqStallNS(fp.Bytes, fp.Obj)
	return time.Duration(math.Round(float64(n) * per))
}
