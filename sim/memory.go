// The memory hierarchy of the cost model: how long a walk's dependent
// loads take as the data it walks outgrows the caches.

package sim

import (
	"math"
	"time"
)

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
	L1Hit, L2Hit, L3Hit, DRAM time.Duration
	// L3Seq and DRAMSeq are the same for a load of a chase in allocation
	// order (a list the kernel built object after object, walked in the
	// order it was built), which the prefetchers partly hide.
	L3Seq, DRAMSeq time.Duration
}

// LoadNS returns the mean latency, in nanoseconds, of a dependent load at a
// uniformly random place in a working set of ws bytes: a level of capacity
// C holds min(1, C/ws) of it, and a load is served by the first level that
// holds its line. A working set that fits L1 costs L1Hit a load; one far
// larger than L3 costs nearly DRAM.
func (m *Memory) LoadNS(ws int64) float64 {
	return m.loadNS(ws, m.L3Hit, m.DRAM)
}

// SeqLoadNS is LoadNS for a chase in allocation order.
func (m *Memory) SeqLoadNS(ws int64) float64 {
	return m.loadNS(ws, m.L3Seq, m.DRAMSeq)
}

func (m *Memory) loadNS(ws int64, l3, dram time.Duration) float64 {
	if ws <= 0 {
		return float64(m.L1Hit)
	}
	held := func(c int64) float64 { return math.Min(1, float64(c)/float64(ws)) }
	h1 := held(m.L1)
	h2 := math.Max(h1, held(m.L2))
	h3 := math.Max(h2, held(m.L3))
	return h1*float64(m.L1Hit) + (h2-h1)*float64(m.L2Hit) + (h3-h2)*float64(l3) + (1-h3)*float64(dram)
}

// StallNS returns what a dependent load in a working set of ws bytes costs
// beyond one that hits L2, in nanoseconds (0 while ws fits L2). A cost
// constant measured on a working set that fits L2 already includes the L2
// hits of its loads; the stall is what a larger working set adds.
func (m *Memory) StallNS(ws int64) float64 {
	return math.Max(0, m.LoadNS(ws)-m.LoadNS(min(ws, m.L2)))
}

// SeqStallNS is StallNS for a chase in allocation order.
func (m *Memory) SeqStallNS(ws int64) float64 {
	return math.Max(0, m.SeqLoadNS(ws)-m.SeqLoadNS(min(ws, m.L2)))
}

// Footprint is the memory side of one unit of counted work: the working
// set it walks in (Bytes, the kernel objects the whole walk touches) and
// the dependent loads each unit makes there: Loads at places unrelated to
// the order the objects were allocated in (a tree descent, a node reached
// by its key), SeqLoads along a list in the order it was built (the cache
// lines on the walk's chain of pointers, each of which may miss). The
// subsystem that charges the work knows both: the objects' sizes are the
// kernel's, and the lines a unit reads are the fields its callback reads.
type Footprint struct {
	Bytes    int64
	Loads    float64
	SeqLoads float64
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
		t.counters[MemStallNS] += int64(s)
		t.w.count(t, MemStallNS, int64(s))
	}
	return s
}

// stall returns the memory stall of n units of work with footprint fp.
func (w *World) stall(n int64, fp Footprint) time.Duration {
	if fp.Bytes <= 0 || fp.Loads <= 0 && fp.SeqLoads <= 0 {
		return 0
	}
	m := &w.costs.Memory
	per := max(0, fp.Loads)*m.StallNS(fp.Bytes) + max(0, fp.SeqLoads)*m.SeqStallNS(fp.Bytes)
	return time.Duration(math.Round(float64(n) * per))
}
