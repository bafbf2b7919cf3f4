// The memory a fib6_clean_all walk touches: the kernel objects of the
// namespace's IPv6 routes (net/ipv6/ip6_fib.c), for the cost model's
// memory stall (sim.Footprint).

package fib6

import "github.com/netsimlab/netsim/sim"

// The kernel's allocation sizes of the objects a walk reads.
const (
	// fib6InfoBytes is one route: fib6_info_alloc allocates a fib6_info
	// and its fib6_nh together with kzalloc, from kmalloc-512.
	fib6InfoBytes = 512
	// fib6NodeBytes is one tree node, from the fib6_nodes cache.
	fib6NodeBytes = 128
	// fib6VisitLoads is the dependent loads a walk makes per route: the
	// route's fib6_next, which the next visit needs; the callback's reads
	// of its fib6_nh and flags issue beside it.
	fib6VisitLoads = 1
)

// walkFootprint is what a walk of every table touches: every route and
// every node of the namespace's IPv6 FIB.
func (f *FIB) walkFootprint() sim.Footprint {
	return sim.Footprint{
		Bytes: int64(f.stats.FibRtEntries)*fib6InfoBytes + int64(f.stats.FibNodes)*fib6NodeBytes,
		Loads: fib6VisitLoads,
	}
}
