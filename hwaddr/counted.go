// Counted walks: a simulation-speed index for ListOnly lists. It has no kernel
// counterpart; it computes, without walking, how many entries the list walks
// of __hw_addr_add_ex and __hw_addr_del_ex (net/core/dev_addr_lists.c before
// 406f42fa0d3c) would compare.
//
// A walk from the head stops at the first entry that matches, so it compares
// exactly as many entries as precede that entry, plus the entry itself; when
// nothing matches, every entry. Entries are only ever appended at the tail, so
// list order is creation order, and "the entries that precede n" are the live
// entries created before n. The index therefore gives every entry a sequence
// number at creation, increasing along the list, and keeps a Fenwick tree
// (binary indexed tree; P. M. Fenwick, "A new data structure for cumulative
// frequency tables", Software: Practice and Experience 24(3), 1994) with a 1
// at the sequence number of every live entry. The position of n is then a
// prefix sum, O(log S) for a sequence space of S numbers.
//
// Which entry matches comes from a map from address to the address's entries,
// oldest first, chained through node.sameAddr. An exact search (every add; a
// delete or lookup with a type) scans that chain for the key; a type-0 search
// ("any type") takes its head, the oldest entry with the address, which is the
// first one a walk from the head meets. A chain holds one entry per type, so
// at most 256 and in practice one.
//
// Sequence numbers are never reused. When the next one would fall outside the
// Fenwick tree, the live entries are renumbered 0, 1, 2, ... in list order and
// the tree is rebuilt for twice their number (at least minSeqSpace): O(n), and
// at least n appends away from the next renumbering, so O(1) amortized per
// append. Renumbering is bookkeeping of the simulator and counts no work.
//
// Worked example. Append a, b, c, d: sequence numbers 0..3, tree bits
// 1 1 1 1 0 0 ... Delete b: bits 1 0 1 1. A search for d sums the bits below
// its number 3: 1+0+1 = 2 entries precede it, so the walk would compare 3
// (a, c, d). A search for an absent key would compare Len() = 3.

package hwaddr

// minSeqSpace is the smallest sequence space a renumbering allocates.
const minSeqSpace = 16

// walkIndex is the counted-walk index of one ListOnly list. It indexes exactly
// the list's nodes (checked by checkList in the package's tests).
type walkIndex struct {
	// byAddr maps an address (the 48 high bits of a key) to its oldest entry;
	// the address's other entries follow through node.sameAddr, oldest first.
	byAddr map[uint64]*node
	// live has a 1 at every live entry's node.seq. len(live) is the sequence
	// space.
	live fenwick
	// next is the sequence number the next appended entry gets.
	next int
}

// newWalkIndex indexes l's current entries.
func newWalkIndex(l *List) *walkIndex {
	w := &walkIndex{byAddr: make(map[uint64]*node, l.count)}
	w.renumber(l)
	for n := l.head; n != nil; n = n.next {
		w.chain(n)
	}
	return w
}

// renumber gives l's entries the sequence numbers 0, 1, 2, ... in list order
// and rebuilds live for a sequence space of twice their number.
func (w *walkIndex) renumber(l *List) {
	size := max(2*l.count, minSeqSpace)
	if cap(w.live) >= size {
		w.live = w.live[:size]
		clear(w.live)
	} else {
		w.live = make(fenwick, size)
	}
	s := 0
	for n := l.head; n != nil; n = n.next {
		n.seq = s
		s++
	}
	w.live.setOnes(s)
	w.next = s
}

// appended indexes n, which l has just linked at its tail.
func (w *walkIndex) appended(l *List, n *node) {
	if w.next == len(w.live) {
		w.renumber(l) // numbers n too
	} else {
		n.seq = w.next
		w.next++
		w.live.add(n.seq, 1)
	}
	w.chain(n)
}

// chain appends n, the newest entry with its address, to the address's chain.
func (w *walkIndex) chain(n *node) {
	n.sameAddr = nil
	a := n.key >> 8
	h, ok := w.byAddr[a]
	if !ok {
		w.byAddr[a] = n
		return
	}
	for h.sameAddr != nil {
		h = h.sameAddr
	}
	h.sameAddr = n
}

// unlinked forgets n, which l has just unlinked.
func (w *walkIndex) unlinked(n *node) {
	w.live.add(n.seq, -1)
	a := n.key >> 8
	if h := w.byAddr[a]; h == n {
		if n.sameAddr == nil {
			delete(w.byAddr, a)
		} else {
			w.byAddr[a] = n.sameAddr
		}
	} else {
		for h.sameAddr != n {
			h = h.sameAddr
		}
		h.sameAddr = n.sameAddr
	}
	n.sameAddr = nil
}

// flushed forgets every entry, keeping the memory for the next ones.
func (w *walkIndex) flushed() {
	clear(w.byAddr)
	w.live = w.live[:0] // the next append renumbers
	w.next = 0
}

// find returns what listFind would: the first entry in list order with key k
// (with anyType, with k's address), and the number of entries a walk from the
// head compares to reach it, or Len() when there is none.
func (w *walkIndex) find(l *List, k uint64, anyType bool) (*node, int64) {
	n := w.byAddr[k>>8]
	if !anyType {
		for n != nil && n.key != k {
			n = n.sameAddr
		}
	}
	if n == nil {
		return nil, int64(l.count)
	}
	return n, int64(w.live.prefix(n.seq)) + 1
}

// fenwick is a Fenwick tree over slots 0..len-1: f[i-1] holds the sum of the
// slots i-lowbit(i) .. i-1, lowbit(i) being i's lowest set bit.
type fenwick []int32

// add adds d to slot i.
func (f fenwick) add(i int, d int32) {
	for i++; i <= len(f); i += i & -i {
		f[i-1] += d
	}
}

// prefix returns the sum of slots 0..i-1.
func (f fenwick) prefix(i int) int {
	s := 0
	for ; i > 0; i -= i & -i {
		s += int(f[i-1])
	}
	return s
}

// setOnes makes a zeroed f hold 1 in slots 0..n-1, in O(len(f)).
func (f fenwick) setOnes(n int) {
	for i := 1; i <= len(f); i++ {
		if i <= n {
			f[i-1]++
		}
		if j := i + i&-i; j <= len(f) {
			f[j-1] += f[i-1]
		}
	}
}
