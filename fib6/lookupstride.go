// lookupstride.go is netsim's own: stride tables that carry the descent
// of fib6_node_lookup (net/ipv6/ip6_fib.c) several levels at a time below
// the jump index (lookupindex.go). The kernel has none; they change the
// speed of a lookup, not its answer.

package fib6

// A stride table belongs to one node X of a destination tree, of bit b,
// and is keyed by the strideBits address bits from bit b on (b to
// b+strideBits-1). The descent of fib6_node_lookup_1 (nodeLookupFrom)
// below X, while it only takes children of at most b+strideBits bits,
// depends on those bits alone: X covers the address, so its earlier bits
// are X's, and a child of bit c is tested on bits below c and selects by
// bit c. The table holds, for each of the 2^strideBits values, the node
// that descent reaches, where the lookup resumes (one load instead of one
// a level). It is the jump index's argument, applied at X.
//
// Only nodes in X's subtree of at most b+strideBits bits decide the
// table; creating or freeing one changes it. Each such change climbs from
// the node's parent through the ancestors within strideBits bits above it
// (strideDirty) and drops their tables. Nodes changing their routes do not
// matter: the climb back from where the descent stops reads the flags as
// they are.
//
// Tables are built lazily: a node counts the lookups that pass it
// (node.stride) and, at strideVisits, is weighed (strideBuild): it gets a
// table if its descents, averaged over the 2^strideBits values, take at
// least strideMinDepth levels, and is marked strideNone otherwise, until a
// change below it (strideDirty) restarts the count. Tables are numbered
// slots of one array of the namespace; a table is built only while fewer
// than one for every strideNodesPerSlot nodes of the namespace are in use
// (strideBuild), so that they take 2^strideBits*8/strideNodesPerSlot
// bytes a node (8) at most when built; a slot whose table is dropped is
// cleared and reused, and the array keeps its largest size.

// strideBits is the number of address bits a stride table is keyed by.
const strideBits = 8

const strideSize = 1 << strideBits

// Values of node.stride: a count of lookups below strideVisits, strideNone,
// or strideSlot0 plus the node's table slot.
const (
	strideNone  = 1<<31 - 1 // weighed and found not worth a table
	strideSlot0 = 1 << 31
)

// strideVisits is the number of lookups a node sees before it is weighed:
// a lookup right after a change does not pay for a table that the next
// change drops. (A variable for the tests.)
var strideVisits uint32 = 8

// strideMinDepth is the average number of levels, over the table's values,
// the descent below a node must take within strideBits bits for the node
// to get a table: a table costs one load; with fewer levels it saves
// little. (A variable for the tests.)
var strideMinDepth = 3.0

// strideNodesPerSlot bounds the tables: at most one per that many nodes of
// the namespace (2^strideBits pointers: 2 KiB, 8 bytes a node). (A
// variable for the tests.)
var strideNodesPerSlot = 256

// strideState holds a namespace's stride tables.
type strideState struct {
	// entries holds the tables, slot s at s*strideSize.
	entries []*node
	free    []uint32 // slots no table uses
	used    int      // slots a table uses
}

// strideIndex returns the strideBits address bits from bit b of the
// address hi, lo (b+strideBits <= 128).
func strideIndex(hi, lo uint64, b uint) uint {
	var x uint64
	if b < 64 {
		x = hi<<b | lo>>(64-b)
	} else {
		x = lo << (b - 64)
	}
	return uint(x >> (64 - strideBits))
}

// strideStep is the descent's step at fn through fn's stride table: the
// node the descent reaches within fn's strideBits bits, or fn itself when
// fn has no table (a count below strideVisits becomes a table or
// strideNone here).
func (f *FIB) strideStep(fn *node, hi, lo uint64) *node {
	s := fn.stride
	if s >= strideSlot0 {
		return f.tree.stride.entries[uint(s-strideSlot0)*strideSize+strideIndex(hi, lo, uint(fn.bit))]
	}
	if s == strideNone {
		return fn
	}
	if s+1 < strideVisits {
		fn.stride = s + 1
		return fn
	}
	f.strideBuild(fn)
	if fn.stride >= strideSlot0 {
		return f.strideStep(fn, hi, lo)
	}
	return fn
}

// strideBuild weighs fn and gives it a table or strideNone.
func (f *FIB) strideBuild(fn *node) {
	st := &f.tree.stride
	fn.stride = strideNone
	if int(fn.bit)+strideBits > 128 {
		return
	}
	if st.used >= f.stats.FibNodes/strideNodesPerSlot {
		return
	}
	var slot uint32
	if n := len(st.free); n > 0 {
		slot = st.free[n-1]
		st.free = st.free[:n-1]
	} else {
		slot = uint32(len(st.entries) / strideSize)
		st.entries = append(st.entries, make([]*node, strideSize)...)
	}
	tab := st.entries[int(slot)*strideSize : int(slot+1)*strideSize]
	b := strideFill{tab: tab, base: int(fn.bit)}
	b.fill(fn, 0, strideSize, 0)
	if float64(b.depth) < strideMinDepth*strideSize {
		clear(tab)
		st.free = append(st.free, slot)
		return
	}
	st.used++
	fn.stride = strideSlot0 + slot
}

// strideDrop removes fn's table, if it has one, and restarts its count.
func (f *FIB) strideDrop(fn *node) {
	if s := fn.stride; s >= strideSlot0 {
		st := &f.tree.stride
		slot := int(s - strideSlot0)
		clear(st.entries[slot*strideSize : (slot+1)*strideSize])
		st.free = append(st.free, uint32(slot))
		st.used--
	}
	fn.stride = 0
}

// strideDirty records that a node of bit bit was created or freed below
// pn: the tables of pn and of its ancestors within strideBits bits above
// bit are dropped. The climb ends at a (sub)tree root: a source subtree's
// nodes decide no destination table.
func (f *FIB) strideDirty(pn *node, bit int) {
	for fn := pn; fn != nil && int(fn.bit)+strideBits >= bit; fn = fn.parent {
		if fn.stride != 0 {
			f.strideDrop(fn)
		}
		if fn.flags&rtnRoot != 0 {
			return
		}
	}
}

// strideFill fills a table keyed by the strideBits address bits from bit
// base, adding up the levels its descents take.
type strideFill struct {
	tab   []*node
	base  int
	depth int // the levels below the table's node, summed over the values
}

// fill sets the table for values lo..hi-1, whose descents all reach fn
// after d levels.
func (s *strideFill) fill(fn *node, lo, hi uint32, d int) {
	b := int(fn.bit)
	if b >= s.base+strideBits {
		s.set(fn, lo, hi, d)
		return
	}
	// Values lo..mid-1 have bit b clear and go left; mid..hi-1 go right.
	mid := lo + (hi-lo)/2
	s.fillChild(fn, fn.left, lo, mid, d)
	s.fillChild(fn, fn.right, mid, hi, d)
}

// fillChild sets the table for values lo..hi-1 that reach fn and select
// its child c: those inside c's prefix continue at c when c's bit is at
// most base+strideBits, the others stop at fn.
func (s *strideFill) fillChild(fn, c *node, lo, hi uint32, d int) {
	end := s.base + strideBits
	if c == nil || int(c.bit) > end {
		s.set(fn, lo, hi, d)
		return
	}
	// c's prefix on the table's bits: the values first to first+size-1.
	size := uint32(1) << (end - int(c.bit))
	first := uint32(strideIndex(c.pfx[0], c.pfx[1], uint(s.base)))
	if first < lo || first+size > hi {
		// The tree keeps c inside fn's half; a c outside is a broken
		// tree, which the descent would leave at fn.
		s.set(fn, lo, hi, d)
		return
	}
	s.set(fn, lo, first, d)
	s.fill(c, first, first+size, d+1)
	s.set(fn, first+size, hi, d)
}

func (s *strideFill) set(fn *node, lo, hi uint32, d int) {
	for v := lo; v < hi; v++ {
		s.tab[v] = fn
	}
	s.depth += d * int(hi-lo)
}
