// table.go follows the tables of net/ipv6/ip6_fib.c: the namespace's
// setup with tables main and local and the null entry (fib6_net_init,
// ip6_route_net_init), fib6_new_table, fib6_get_table and the serial
// numbers that tell walkers a tree changed (fib6_new_sernum).

package fib6

import (
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Table ids (RT6_TABLE_MAIN, RT6_TABLE_LOCAL).
const (
	tableMain  = 254
	tableLocal = 255
)

// treeState is the namespace's tree state beyond struct FIB's contract
// fields: the live walkers (fib6_walkers), the count of source-specific
// routes (fib6_routes_require_src) and the route layer's hooks.
type treeState struct {
	walkers []*walker
	// routesRequireSrc counts routes with a source prefix
	// (fib6_routes_require_src).
	routesRequireSrc int
	// rebalance is rt6_multipath_rebalance (route.c), called where the
	// tree changes a sibling list; nil: nothing to do.
	rebalance func(rt *Info)
	// linked is called when a route has joined the tree (fib6_add's
	// list_add to its nexthop object's f6i_list); nil: nothing.
	linked func(rt *Info)
	// purged is called when a route leaves the tree (fib6_purge_rt's
	// exception flush, pcpu drop and nh_list removal); nil: nothing.
	purged func(t *sim.Task, rt *Info)
	// jumps holds the tables that have a jump index (lookupindex.go).
	jumps []*Table
	// stride holds the stride tables (lookupstride.go).
	stride strideState
	// subtrees holds fn->subtree of the nodes with rtnSubtree: the source
	// subtree roots of the nodes with source-specific routes.
	subtrees map[*node]*node
}

// newFIB returns a namespace's IPv6 FIB: the null entry and tables main and
// local, each root holding the null entry.
//
// Kernel: ip6_route_net_init (fib6_null_entry_template), fib6_net_init,
// fib6_tables_init (net/ipv6/route.c, ip6_fib.c).
func newFIB(w *sim.World, nh *nexthop.Table) *FIB {
	f := &FIB{w: w, nh: nh, tables: map[uint32]*Table{}}
	f.nullEntry = &Info{
		typ:      rt.TypeUnreachable,
		metric:   ^uint32(0),
		protocol: rt.ProtoKernel,
		flags:    rtfReject | rtfNonexthop,
		ref:      1,
	}
	f.main = f.allocTable(tableMain)
	f.local = f.allocTable(tableLocal)
	f.linkTable(f.main)
	f.linkTable(f.local)
	return f
}

// allocTable returns a new table whose root holds the null entry.
//
// Kernel: fib6_alloc_table (net/ipv6/ip6_fib.c).
func (f *FIB) allocTable(id uint32) *Table {
	tb := &Table{id: id, fib: f}
	tb.root.leaf = f.nullEntry
	tb.root.flags = rtnRoot | rtnTLRoot | rtnRTInfo
	tb.root.visits = 1 // a walk visits the null entry (counted.go)
	return tb
}

// linkTable puts tb at the head of its hash bucket.
//
// Kernel: fib6_link_table (net/ipv6/ip6_fib.c).
func (f *FIB) linkTable(tb *Table) {
	h := tb.id & (tableHashSize - 1)
	tb.next = f.buckets[h]
	f.buckets[h] = tb
	f.tables[tb.id] = tb
	f.tableIDs = append(f.tableIDs, tb.id)
}

// getTable returns table id (0 is main), or nil.
//
// Kernel: fib6_get_table (net/ipv6/ip6_fib.c).
func (f *FIB) getTable(id uint32) *Table {
	if id == 0 {
		id = tableMain
	}
	for tb := f.buckets[id&(tableHashSize-1)]; tb != nil; tb = tb.next {
		if tb.id == id {
			return tb
		}
	}
	return nil
}

// newTable returns table id, creating it if needed (0 is main).
//
// Kernel: fib6_new_table (net/ipv6/ip6_fib.c).
func (f *FIB) newTable(id uint32) *Table {
	if id == 0 {
		id = tableMain
	}
	if tb := f.getTable(id); tb != nil {
		return tb
	}
	tb := f.allocTable(id)
	f.linkTable(tb)
	return tb
}

// eachTable calls fn for every table in the kernel's hash order: bucket 0
// to 255, newest first within a bucket.
func (f *FIB) eachTable(fn func(tb *Table)) {
	for h := range f.buckets {
		for tb := f.buckets[h]; tb != nil; tb = tb.next {
			fn(tb)
		}
	}
}

// newSernum returns the next serial number.
//
// Kernel: fib6_new_sernum (net/ipv6/ip6_fib.c).
func (f *FIB) newSernum() uint32 {
	if f.sernum < 1<<31-1 {
		f.sernum++
	} else {
		f.sernum = 1
	}
	return f.sernum
}

// setSernumUptoRoot gives rt's node and every node above it the serial
// number sernum.
//
// Kernel: fib6_update_sernum_upto_root (net/ipv6/ip6_fib.c).
func setSernumUptoRoot(rt *Info, sernum uint32) {
	for fn := rt.node; fn != nil; fn = fn.parent {
		fn.sernum = sernum
	}
}
