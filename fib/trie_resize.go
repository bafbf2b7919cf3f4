// Resizing the IPv4 LC-trie: put_child and its counts, inflate, halve and
// collapse of a tnode, the suffix-length bookkeeping and the rules that
// decide when a tnode grows or shrinks (should_inflate, should_halve,
// resize, trie_rebalance) (net/ipv4/fib_trie.c).

package fib

// tnodeFull is tnode_full: n is a tnode with no skipped bits below tn.
func (t *trie) tnodeFull(tn *tnode, n ref) bool {
	if n == 0 || n.isLeaf() {
		return false
	}
	c := &t.tn[n.idx()]
	return c.pos+c.bits == tn.pos
}

// putChild is put_child: set child i of tnode ti, keeping the empty and
// full counts and the suffix length.
func (t *trie) putChild(ti, i uint32, n ref) {
	tn := &t.tn[ti]
	chi := t.kid(tn, i)
	switch {
	case n == 0 && chi != 0:
		tn.empty++
	case n != 0 && chi == 0:
		tn.empty--
	}
	wasFull, isFull := t.tnodeFull(tn, chi), t.tnodeFull(tn, n)
	switch {
	case wasFull && !isFull:
		tn.full--
	case !wasFull && isFull:
		tn.full++
	}
	raised := false
	if n != 0 {
		if s := t.kvSlen(n); tn.slen < s {
			tn.slen = s
			raised = true
		}
	}
	t.setKid(tn, i, n)
	t.markDirty(ti)
	if raised {
		t.markDirty(tn.parent)
	}
}

// putChildRoot is put_child_root: set the slot of key in tp, the trie's
// single slot when tp is the trie.
func (t *trie) putChildRoot(tp, key uint32, n ref) {
	if tp == 0 {
		if n.isLeaf() {
			n = leafRef(n.idx()) // no summary in the trie's slot
		}
		t.tn[0].inl[0] = n
		return
	}
	t.putChild(tp, getIndex(key, &t.tn[tp]), n)
}

// updateChildren is update_children: point every child of ti back at it,
// descending into the new tnodes that already do.
func (t *trie) updateChildren(ti uint32) {
	for i := childLength(&t.tn[ti]); i > 0; {
		i--
		c := t.kid(&t.tn[ti], i)
		if c == 0 {
			continue
		}
		if !c.isLeaf() && t.tn[c.idx()].parent == ti {
			t.updateChildren(c.idx())
		} else {
			t.setParent(c, ti)
		}
	}
}

// tnodeFreeList is tnode_free: free the replaced nodes and, once enough
// memory is waiting for RCU, ask for a synchronize_net.
func (t *trie) tnodeFreeList(list []uint32) {
	for _, i := range list {
		t.mem.freed += kernelTnodeSize + kernelPtrSize<<t.tn[i].bits
		t.freeTnode(i)
	}
	t.freedSync()
}

// freedSync is tnode_free's check: once the tnodes freed since the last
// grace period hold sysctl_fib_sync_mem, it waits for one.
func (t *trie) freedSync() {
	if t.mem.freed >= t.mem.limit {
		t.mem.freed = 0
		t.work.syncs++
	}
}

// replace is replace: install tn in oldtnode's place and resize the full
// children it gained.
func (t *trie) replace(oldtnode, tn uint32, freeList []uint32) uint32 {
	tp := t.tn[oldtnode].parent
	t.tn[tn].parent = tp
	t.putChildRoot(tp, t.tn[tn].key, tnodeRef(tn))
	t.updateChildren(tn)
	t.tnodeFreeList(freeList)
	t.resizeFullChildren(tn)
	return tp
}

// resizeFullChildren is the last step of replace and of inflate: resize
// every full child of tn, which has just taken a replaced node's place.
func (t *trie) resizeFullChildren(tn uint32) {
	for i := childLength(&t.tn[tn]); i > 0; {
		i--
		inode := t.kid(&t.tn[tn], i)
		if t.tnodeFull(&t.tn[tn], inode) {
			tn = t.resize(inode.idx())
		}
	}
}

// inflate is inflate: double tnode oldtnode, splitting its full children.
//
// The kernel builds the doubled node, puts it in the old one's place and
// points every child back at it (update_children). Here the doubled node
// takes over the old one's index instead: the children it keeps already
// point at that index, so only the children of split nodes, which change
// parent in the kernel too, are repointed, as they are moved. The shape,
// the node counts and the memory tnode_free accounts are the kernel's.
func (t *trie) inflate(oldtnode uint32) uint32 {
	o := t.tn[oldtnode]
	tn := t.newTnode(o.key, o.pos-1, o.bits+1) // built here, then moved to oldtnode
	m := uint32(1) << (o.pos - 1)
	for i := childLength(&o); i > 0; {
		i--
		inode := t.kid(&o, i)
		if inode == 0 {
			continue
		}
		if !t.tnodeFull(&o, inode) {
			n := &t.tn[tn]
			t.putFresh(n, getIndex(t.kvKey(inode), n), inode)
			continue
		}
		// The split node is freed at once, its memory counted towards
		// tnode_free_size (checked once all are), so that the tnodes
		// made next reuse its slot.
		ii := inode.idx()
		in := t.tn[ii]
		given := in.bits-1 > inlineBits
		if given {
			t.tn[ii].off = kidsGiven
		}
		t.mem.freed += kernelTnodeSize + kernelPtrSize<<in.bits
		t.freeTnode(ii)
		if in.bits == 1 {
			n := &t.tn[tn]
			c1, c0 := t.kid(&in, 1), t.kid(&in, 0)
			t.putFresh(n, 2*i+1, c1)
			t.putFresh(n, 2*i, c0)
			t.setParent(c1, oldtnode)
			t.setParent(c0, oldtnode)
			continue
		}
		var node1, node0 uint32
		if given {
			// The halves take a half each of the split node's block of
			// child slots, where its children already are: nothing is
			// copied, and the block was not freed with the node.
			h := uint32(1) << (in.bits - 1)
			node1 = t.tnodeAt(in.key|m, in.pos, in.bits-1, in.off+h)
			node0 = t.tnodeAt(in.key, in.pos, in.bits-1, in.off)
		} else {
			node1 = t.newTnode(in.key|m, in.pos, in.bits-1)
			node0 = t.newTnode(in.key, in.pos, in.bits-1)
		}
		t.tn[node1].parent, t.tn[node0].parent = oldtnode, oldtnode
		src := t.slots(&in)
		half := len(src) / 2
		t.adopt(node1, src[half:])
		t.adopt(node0, src[:half])
		n := &t.tn[tn]
		t.putFresh(n, 2*i+1, tnodeRef(node1))
		t.putFresh(n, 2*i, tnodeRef(node0))
	}
	t.work.nodes++

	// replace, with the doubled node moved into oldtnode's index: the old
	// node's memory is freed, as tnode_free frees it.
	tp := o.parent
	t.mem.freed += kernelTnodeSize + kernelPtrSize<<o.bits
	if o.bits > inlineBits {
		t.kidsFree[o.bits] = append(t.kidsFree[o.bits], o.off)
	}
	t.tn[oldtnode] = t.tn[tn]
	t.tn[oldtnode].parent = tp
	t.tn[oldtnode].dirty = o.dirty
	t.markDirty(oldtnode)
	t.tn[tn] = tnode{}
	t.tnFree = appendDoubling(t.tnFree, tn)
	t.nTnodes--
	tn = oldtnode
	t.putChildRoot(tp, t.tn[tn].key, tnodeRef(tn))
	t.freedSync()
	t.resizeFullChildren(tn)
	return tp
}

// halve is halve: halve tnode oldtnode, pairing children under new binary
// tnodes where both of a pair are present.
func (t *trie) halve(oldtnode uint32) uint32 {
	o := t.tn[oldtnode]
	tn := t.newTnode(o.key, o.pos+1, o.bits-1)
	for i := childLength(&o); i > 0; {
		i--
		node1 := t.kid(&o, i)
		i--
		node0 := t.kid(&o, i)
		if node1 == 0 || node0 == 0 {
			n := node1
			if n == 0 {
				n = node0
			}
			t.putFresh(&t.tn[tn], i/2, n)
			continue
		}
		inode := t.newTnode(t.kvKey(node0), o.pos, 1)
		in := &t.tn[inode]
		t.putFresh(in, 1, node1)
		t.putFresh(in, 0, node0)
		in.parent = tn
		t.putFresh(&t.tn[tn], i/2, tnodeRef(inode))
	}
	t.work.nodes++
	t.freeList = append(t.freeList[:0], oldtnode)
	return t.replace(oldtnode, tn, t.freeList)
}

// putFresh is put_child into a slot known to be empty, in a tnode being
// built (inflate, halve); n may be empty. tn must not move meanwhile: no
// tnode is allocated while it runs.
func (t *trie) putFresh(tn *tnode, i uint32, n ref) {
	if n == 0 {
		return
	}
	tn.empty--
	s, full := t.childSlen(tn, n)
	if full {
		tn.full++
	}
	if tn.slen < s {
		tn.slen = s
	}
	t.setKid(tn, i, n)
}

// childSlen returns the suffix length of n, a non-empty child of tn, and
// whether it is full (tnodeFull).
func (t *trie) childSlen(tn *tnode, n ref) (slen uint8, full bool) {
	if n.isLeaf() {
		return t.lf[n.idx()].slen, false
	}
	c := &t.tn[n.idx()]
	return c.slen, c.pos+c.bits == tn.pos
}

// adopt is putFresh of src[i] into slot i of tnode ti for every i, and
// setParent of each moved child to ti, in one pass that touches each child
// once: ti's first len(src) slots are empty, or src is those slots
// themselves (its counts are then still a new tnode's), and no tnode is
// allocated meanwhile. The slots come from a tnode at ti's pos, so the
// summaries in their refs hold.
func (t *trie) adopt(ti uint32, src []ref) {
	tn := &t.tn[ti]
	dst := t.slots(tn)[:len(src)]
	empty, full, slen := tn.empty, tn.full, tn.slen
	for i, n := range src {
		if n == 0 {
			continue
		}
		empty--
		var s uint8
		if n.isLeaf() {
			c := &t.lf[n.idx()]
			s, c.parent = c.slen, ti
		} else {
			c := &t.tn[n.idx()]
			s, c.parent = c.slen, ti
			if c.pos+c.bits == tn.pos {
				full++
			}
			t.markDirty(n.idx())
		}
		slen = max(slen, s)
		dst[i] = n
	}
	tn.empty, tn.full, tn.slen = empty, full, slen
}

// collapse is collapse: replace a tnode with at most one child by that child.
func (t *trie) collapse(oldtnode uint32) uint32 {
	var n ref
	for i := childLength(&t.tn[oldtnode]); n == 0 && i > 0; {
		i--
		n = t.kid(&t.tn[oldtnode], i)
	}
	tp := t.tn[oldtnode].parent
	t.putChildRoot(tp, t.tn[oldtnode].key, n)
	t.setParent(n, tp)
	t.freeTnode(oldtnode) // node_free: not counted in tnode_free_size
	return tp
}

// updateSuffix is update_suffix: recompute a tnode's slen from its children.
func (t *trie) updateSuffix(ti uint32) uint8 {
	slen := t.suffixOf(ti)
	if tn := &t.tn[ti]; tn.slen != slen {
		tn.slen = slen
		t.markDirty(ti)
		t.markDirty(tn.parent)
	}
	return slen
}

// suffixOf is the slen update_suffix computes for tnode ti, without
// setting it.
func (t *trie) suffixOf(ti uint32) uint8 {
	tn := &t.tn[ti]
	slen := tn.pos
	slenMax := min(tn.pos+tn.bits-1, tn.slen)
	n := uint64(childLength(tn))
	for i, stride := uint64(0), uint64(2); i < n; i += stride {
		c := t.kid(tn, uint32(i))
		if c == 0 {
			continue
		}
		cs := t.kvSlen(c)
		if cs <= slen {
			continue
		}
		stride <<= cs - slen
		slen = cs
		i &^= stride - 1
		if slen >= slenMax {
			break
		}
	}
	return slen
}

// childUse is what should_inflate and should_halve start from: tn's
// children that are not empty, and its number of child slots times factor,
// or times rootFactor for the root tnode (whose parent is the trie), which
// keeps the root larger.
func (t *trie) childUse(tp, ti uint32, rootFactor, factor uint64) (tn *tnode, used, threshold uint64) {
	tn = &t.tn[ti]
	n := uint64(childLength(tn))
	if tp == 0 {
		factor = rootFactor
	}
	return tn, n - uint64(tn.empty), n * factor
}

// shouldInflate is should_inflate: tn doubles when its non-empty children,
// full ones counted twice (as they would be after doubling), would fill at
// least half (30% at the root) of the doubled node's slots.
func (t *trie) shouldInflate(tp, ti uint32) bool {
	tn, used, threshold := t.childUse(tp, ti, inflateThresholdRoot, inflateThreshold)
	used += uint64(tn.full)
	return used > 1 && tn.pos != 0 && 50*used >= threshold
}

// shouldHalve is should_halve: tn halves when its non-empty children fill
// less than a quarter (15% at the root) of its slots.
func (t *trie) shouldHalve(tp, ti uint32) bool {
	tn, used, threshold := t.childUse(tp, ti, halveThresholdRoot, halveThreshold)
	return used > 1 && tn.bits > 1 && 100*used < threshold
}

func (t *trie) shouldCollapse(ti uint32) bool {
	tn := &t.tn[ti]
	return childLength(tn)-tn.empty < 2
}

// resize is resize: inflate, else halve, else collapse tnode ti, at most
// maxWork doublings or halvings; it returns the parent.
func (t *trie) resize(ti uint32) uint32 {
	t.work.nodes++
	tp := t.tn[ti].parent
	cindex := getIndex(t.tn[ti].key, &t.tn[tp])
	work := maxWork
	for work > 0 && t.shouldInflate(tp, ti) {
		tp = t.inflate(ti)
		work--
		ti = t.kid(&t.tn[tp], cindex).idx()
	}
	tp = t.tn[ti].parent
	if work != maxWork {
		return tp
	}
	for work > 0 && t.shouldHalve(tp, ti) {
		tp = t.halve(ti)
		work--
		ti = t.kid(&t.tn[tp], cindex).idx()
	}
	if t.shouldCollapse(ti) {
		return t.collapse(ti)
	}
	return t.tn[ti].parent
}

// nodePullSuffix is node_pull_suffix.
func (t *trie) nodePullSuffix(ti uint32, slen uint8) {
	nodeSlen := t.tn[ti].slen
	for nodeSlen > t.tn[ti].pos && nodeSlen > slen {
		slen = t.updateSuffix(ti)
		if nodeSlen == slen {
			break
		}
		ti = t.tn[ti].parent
		nodeSlen = t.tn[ti].slen
	}
}

// nodePushSuffix is node_push_suffix.
func (t *trie) nodePushSuffix(ti uint32, slen uint8) {
	for t.tn[ti].slen < slen {
		t.tn[ti].slen = slen
		t.markDirty(ti)
		ti = t.tn[ti].parent
		t.markDirty(ti)
	}
}

// rebalance is trie_rebalance: resize every tnode from ti up to the root.
func (t *trie) rebalance(ti uint32) {
	for ti != 0 {
		ti = t.resize(ti)
	}
}
