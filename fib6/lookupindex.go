// lookupindex.go is netsim's own: a jump index that starts the descent of
// fib6_node_lookup (net/ipv6/ip6_fib.c) below the root of a large table.
// The kernel has none; it changes the speed of a lookup, not its answer.

package fib6

import "slices"

// The jump index of a large table: where a lookup's descent is after the
// nodes its destination's first jumpBits bits decide, so that the lookup
// resumes there instead of descending from the root. The kernel has no
// such index; it changes how fast a lookup is, not which node it finds.
//
// The descent of fib6_node_lookup_1 (nodeLookupFrom) at a node of bit b
// takes the child bit b of the address selects and stops when that child
// is missing or does not cover the address. While b < jumpBits and the
// child's bit is at most jumpBits, each step depends on the address's
// first jumpBits bits alone: every address with the same first jumpBits
// bits takes the same steps to the same node. The index holds that node
// for each of the 2^jumpBits values. Only nodes of at most jumpBits bits
// are in it or decide it, so it stays right until such a node is created
// or freed; that changes the entries of the values under the node's
// parent alone (jumpDirty), which are refilled at the next lookup. Nodes
// changing their routes (RTN_RTINFO) do not matter: the climb back reads
// the nodes' flags as they are. Below the node it gives, stride tables
// (lookupstride.go) carry the descent further by strideBits bits at a
// time.

// jumpBits is the number of leading address bits the index is keyed by.
const jumpBits = 16

// jumpMinNodes is the number of tree nodes (of the namespace) from which a
// table gets an index: a smaller tree is descended as fast as the index
// would be built and takes less memory without one. (A variable for the
// tests.)
var jumpMinNodes = 1 << 15

// jumpIndex is a table's jump index.
type jumpIndex struct {
	// dlo..dhi-1 holds the values whose entries may be stale; none when
	// dlo >= dhi.
	dlo, dhi uint32
	start    [1 << jumpBits]*node
}

// jumpStart returns the node where the descent for dst resumes: from the
// table's index, built or rebuilt first if needed; the root for a small
// table.
func (tb *Table) jumpStart(dst *[16]byte) *node {
	f := tb.fib
	j := tb.jump
	if j == nil || j.dlo < j.dhi {
		if f.stats.FibNodes < jumpMinNodes {
			if j != nil {
				tb.jump = nil
				f.tree.jumps = slices.DeleteFunc(f.tree.jumps, func(o *Table) bool { return o == tb })
			}
			return &tb.root
		}
		if j == nil {
			j = new(jumpIndex)
			tb.jump = j
			f.tree.jumps = append(f.tree.jumps, tb)
			j.fill(&tb.root, 0, 1<<jumpBits)
		} else {
			j.refill(&tb.root)
		}
		j.dlo, j.dhi = 0, 0
	}
	return j.start[(uint32(dst[0])<<24|uint32(dst[1])<<16|uint32(dst[2])<<8|uint32(dst[3]))>>(32-jumpBits)]
}

// jumpRange returns the values under fn: those whose first fn.bit bits
// are fn's (one value for a node of jumpBits bits or more).
func jumpRange(fn *node) (lo, hi uint32) {
	lo = uint32(fn.pfx[0] >> (64 - jumpBits))
	return lo, lo + 1<<max(jumpBits-int(fn.bit), 0)
}

// jumpDirty records that a node of at most jumpBits bits was created or
// freed below pn: the entries of the values under pn may be stale, in the
// index of pn's table if it has one. A source subtree's nodes decide no
// entry.
func (f *FIB) jumpDirty(pn *node) {
	if len(f.tree.jumps) == 0 {
		return
	}
	root := pn
	for root.flags&rtnRoot == 0 {
		if root = root.parent; root == nil {
			return
		}
	}
	if root.flags&rtnTLRoot == 0 {
		return
	}
	for _, tb := range f.tree.jumps {
		if &tb.root == root {
			j := tb.jump
			lo, hi := jumpRange(pn)
			if j.dlo >= j.dhi {
				j.dlo, j.dhi = lo, hi
			} else {
				j.dlo, j.dhi = min(j.dlo, lo), max(j.dhi, hi)
			}
			return
		}
	}
}

// refill refills the entries of the stale values: under the deepest node
// of less than jumpBits bits whose values hold them all, which every
// value under it reaches.
func (j *jumpIndex) refill(root *node) {
	fn := root
	for int(fn.bit) < jumpBits {
		c := fn.left
		if j.dlo&(1<<(jumpBits-1-int(fn.bit))) != 0 {
			c = fn.right
		}
		if c == nil || int(c.bit) >= jumpBits {
			break
		}
		if lo, hi := jumpRange(c); lo > j.dlo || hi < j.dhi {
			break
		}
		fn = c
	}
	lo, hi := jumpRange(fn)
	j.fill(fn, lo, hi)
}

// fill sets the index for the values lo..hi-1, whose descents all reach
// fn.
func (j *jumpIndex) fill(fn *node, lo, hi uint32) {
	b := int(fn.bit)
	if b >= jumpBits {
		j.set(fn, lo, hi)
		return
	}
	// Values lo..mid-1 have bit b clear and go left; mid..hi-1 go right.
	mid := lo + (hi-lo)/2
	j.fillChild(fn, fn.left, lo, mid)
	j.fillChild(fn, fn.right, mid, hi)
}

// fillChild sets the index for values lo..hi-1 that reach fn and select
// its child c: those inside c's prefix continue at c when c's bit is
// at most jumpBits, the others stop at fn.
func (j *jumpIndex) fillChild(fn, c *node, lo, hi uint32) {
	if c == nil || int(c.bit) > jumpBits {
		j.set(fn, lo, hi)
		return
	}
	// c's prefix on jumpBits bits: the values from first to first+size-1.
	size := uint32(1) << (jumpBits - int(c.bit))
	first := uint32(c.pfx[0] >> (64 - jumpBits))
	if first < lo || first+size > hi {
		// The tree keeps c inside fn's half; a c outside is a broken
		// tree, which the descent would leave at fn.
		j.set(fn, lo, hi)
		return
	}
	j.set(fn, lo, first)
	j.fill(c, first, first+size)
	j.set(fn, first+size, hi)
}

func (j *jumpIndex) set(fn *node, lo, hi uint32) {
	for v := lo; v < hi; v++ {
		j.start[v] = fn
	}
}
