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
	// fib6NodeLoads is the dependent loads a walk makes at a node: the
	// node, reached in key order, which has nothing to do with the order
	// the nodes were allocated in.
	fib6NodeLoads = 1
)

// walkFootprint is what a walk of every table touches: every route and
// every node of the namespace's IPv6 FIB. At a node with routes the walk
// loads the node and its first route (fn->leaf), both at places unrelated
// to the order they were allocated in; each further route of the node's
// list (fib6_next) was added after the one before it, so the walk follows
// them in allocation order. Per route visited that is 2·R/E loads out of
// order and (E−R)/E in order, R the nodes with routes and E the routes
// (rt6_stats' fib_route_nodes and fib_rt_entries).
func (f *FIB) walkFootprint() sim.Footprint {
	e, r := float64(f.stats.FibRtEntries), float64(f.stats.FibRouteNodes)
	if e <= 0 {
		return sim.Footprint{}
	}
	return sim.Footprint{
		Bytes:    int64(f.stats.FibRtEntries)*fib6InfoBytes + int64(f.stats.FibNodes)*fib6NodeBytes,
		Loads:    2 * r / e,
		SeqLoads: (e - r) / e,
		Obj:      fib6InfoBytes,
	}
}

// FlushTrees walks every node of every table to give it a new serial
// number, as every IPv6 address deletion and policy change does: one
// sim.Fib6TableWalk per table (its root) and one sim.Fib6FlushNode per
// other node, in a working set of every node.
//
// Kernel: fib6_flush_trees, rt_genid_bump_ipv6 (net/ipv6/ip6_fib.c,
// include/net/net_namespace.h).
func (f *FIB) FlushTrees(t *sim.Task) {
	defer t.Frame("fib6_flush_trees")()
	nodes := int64(f.stats.FibNodes)
	t.ChargeAll(sim.Work{Kind: sim.Fib6TableWalk, N: int64(len(f.tables))},
		sim.Work{Kind: sim.Fib6FlushNode, N: nodes, In: sim.Footprint{Bytes: nodes * fib6NodeBytes, Loads: fib6NodeLoads}})
}
