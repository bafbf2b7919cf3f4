// types.go holds the IPv6 FIB's structures as include/net/ip6_fib.h
// declares them: struct rt6key, struct fib6_node, struct fib6_nh,
// struct fib6_info, struct fib6_table, struct fib6_statistics and the
// namespace's FIB, with the RTN_* and RTF_* flags.

package fib6

import (
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Node flags (fn_flags, include/net/ip6_fib.h).
const (
	rtnTLRoot = 0x0001 // RTN_TL_ROOT: the root of a table
	rtnRoot   = 0x0002 // RTN_ROOT: the root of a tree or of a subtree
	rtnRTInfo = 0x0004 // RTN_RTINFO: the node holds routes

	// rtnSubtree is netsim's own: the node has a source subtree (the
	// kernel's fn->subtree is not NULL), kept in its FIB's
	// treeState.subtrees rather than in every node.
	rtnSubtree = 0x0008
)

// Route flags (fib6_flags, RTF_* of include/uapi/linux/ipv6_route.h).
const (
	rtfUp        = 0x0001
	rtfGateway   = 0x0002
	rtfReject    = 0x0200
	rtfDefault   = 0x00010000
	rtfAddrConf  = 0x00040000
	rtfAnycast   = 0x00100000
	rtfNonexthop = 0x00200000
	rtfExpires   = 0x00400000
	rtfLocal     = 0x80000000
)

// key is a prefix of a route or of a node (struct rt6key): the masked
// address and its length.
type key struct {
	addr [16]byte
	plen uint8
}

// node is one node of a table's radix tree (struct fib6_node). A node with
// RTN_RTINFO holds routes, its leaf list; an intermediate node has none and
// its leaf points at a route below it (or at the null entry).
//
// pfx is the node's prefix, its first bit bits significant: the kernel
// reads it from the leaf's key; the node keeps its own copy so that a
// lookup tests it without loading the route (it never changes while the
// node exists). The node takes 64 bytes, one cache line and Go's 64-byte
// size class (TestNodeSize): the kernel's subtree pointer, which only a
// node with source-specific routes has, lives in a per-FIB map behind the
// rtnSubtree flag (FIB.subtree). The kernel's rr_ptr (rt6_select's
// round-robin pointer) is left out: it moves only past a route whose
// neighbour has failed (RT6_NUD_FAIL_DO_RR), and netsim has no neighbour
// entries, so it would always be NULL.
type node struct {
	pfx         [2]uint64 // the prefix, most significant half first
	bit         uint16
	flags       uint16
	sernum      uint32 // fn_sernum
	left, right *node
	parent      *node
	leaf        *Info // the first route of the node, in metric order
	// visits is the number of routes a walk visits in the node's subtree,
	// kept with counted walks only (counted.go).
	visits int32
	// stride is the node's stride table, or the lookups it has seen
	// towards one (lookupstride.go).
	stride uint32
}

// nh is a route's own nexthop (struct fib6_nh): its device holds a
// reference for as long as the route exists.
type nh struct {
	dev        *netdev.Device
	gw         [16]byte
	hasGW      bool
	flags      rt.NHFlags // RTNH_F_DEAD, RTNH_F_LINKDOWN, RTNH_F_ONLINK
	weight     int32      // fib_nh_weight: 1..256
	upperBound int32      // fib_nh_upper_bound, for hash-threshold multipath
}

// Info is one IPv6 route (struct fib6_info): in a node's leaf list, linked to
// its multipath siblings, using its own nexthop or a nexthop object.
type Info struct {
	table *Table
	next  *Info // fib6_next: the node's next route
	node  *node // fib6_node; nil once unlinked
	// siblings is the circular list fib6_siblings of a multipath route;
	// nsiblings its length without this route.
	sibNext, sibPrev *Info
	nsiblings        int
	ref              int32    // fib6_ref
	expires          sim.Time // 0: none (RTF_EXPIRES clear)
	metrics          *fib.Metrics
	dst, src         key
	prefsrc          key
	flags            uint32 // RTF_*
	metric           uint32 // fib6_metric
	protocol         rt.Protocol
	typ              rt.Type
	pref             rt.Pref // router preference (the RTF_PREF bits)
	shouldFlush      bool
	destroying       bool
	mpSeen           bool             // counted walks: counted in its table's mp (counted.go)
	devPos           int32            // counted walks: its index in its device's routes
	nhObj            *nexthop.Nexthop // nh: a nexthop object, or nil for fib6_nh
	fnh              nh
}

// Table is one IPv6 routing table (struct fib6_table).
type Table struct {
	id    uint32
	root  node // tb6_root
	fib   *FIB
	next  *Table     // the next table of its hash bucket
	flags uint32     // RT6_TABLE_HAS_DFLT_ROUTER
	jump  *jumpIndex // where lookups resume their descent; nil: none (lookupindex.go)
	// mp counts, with counted walks, the routes in the table that have had
	// siblings since they were linked (counted.go).
	mp int
}

// Stats are the namespace's IPv6 route statistics (struct rt6_statistics),
// as /proc/net/rt6_stats shows them.
type Stats struct {
	FibNodes          int // fib_nodes
	FibRouteNodes     int // fib_route_nodes
	FibRtAlloc        int // fib_rt_alloc: fib6_infos allocated and not yet freed
	FibRtEntries      int // fib_rt_entries: routes in the trees
	FibRtCache        int // fib_rt_cache
	FibDiscardedRoute int // fib_discarded_routes
	DstEntries        int // dst entries (the last column)
}

// tableHashSize is FIB6_TABLE_HASHSZ.
const tableHashSize = 256

// FIB is one network namespace's IPv6 routing state (struct netns_ipv6's
// FIB parts): its tables, the null entry, the serial number, statistics.
type FIB struct {
	ns        notifyState // rtnetlink messages (announce.go)
	nh        *nexthop.Table
	buckets   [tableHashSize]*Table // fib_table_hash: newest first in a bucket
	tables    map[uint32]*Table
	tableIDs  []uint32 // the tables' ids in the order they were created (TablesSince)
	main      *Table
	local     *Table
	nullEntry *Info  // fib6_null_entry
	sernum    uint32 // fib6_sernum
	stats     Stats
	w         *sim.World
	tree      treeState    // the walkers, hooks and counters of the tree (table.go)
	rs        routeState   // the route layer's state (gc.go)
	cw        countedState // the counted device walks' index (counted.go)
}
