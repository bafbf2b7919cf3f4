package fib6

import (
	"math/bits"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// addrBit reports whether bit b (0 = the most significant) of a is set.
// Bits past 128 read as clear: no node of that depth has children.
//
// Kernel: addr_bit_set (net/ipv6/ip6_fib.c).
func addrBit(a *[16]byte, b int) bool {
	if b >= 128 {
		return false
	}
	return a[b>>3]&(0x80>>(b&7)) != 0
}

// addrDiff returns the first bit where a and b differ, 128 if none.
//
// Kernel: __ipv6_addr_diff (include/net/ipv6.h).
func addrDiff(a, b *[16]byte) int {
	for i := 0; i < 16; i += 8 {
		x := be64(a[i:]) ^ be64(b[i:])
		if x != 0 {
			return i*8 + bits.LeadingZeros64(x)
		}
	}
	return 128
}

func be64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

// prefixEqual reports whether a and b agree on their first plen bits.
//
// Kernel: ipv6_prefix_equal (include/net/ipv6.h).
func prefixEqual(a, b *[16]byte, plen int) bool {
	if plen <= 0 {
		return true
	}
	if plen > 128 {
		plen = 128
	}
	n := plen >> 3
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return false
		}
	}
	if r := plen & 7; r != 0 {
		m := byte(0xff << (8 - r))
		return (a[n]^b[n])&m == 0
	}
	return true
}

// nodeKey returns the key of fn's leaf route in the tree fn belongs to: its
// destination in a main tree, its source in a subtree. A node without a
// leaf (being deleted) has no key.
func nodeKey(fn *node, src bool) *key {
	leaf := fn.leaf
	if leaf == nil {
		return nil
	}
	if src {
		return &leaf.src
	}
	return &leaf.dst
}

// newNode allocates a tree node (node_alloc) for prefix addr/bit.
func (f *FIB) newNode(addr *[16]byte, bit int) *node {
	f.stats.FibNodes++
	if bit <= jumpBits {
		f.tree.shallowGen++
	}
	fn := &node{bit: uint16(bit)}
	fn.pfx = maskedHalves(addr, bit)
	return fn
}

// halves returns a as two big-endian halves.
func halves(a *[16]byte) (hi, lo uint64) { return be64(a[:8]), be64(a[8:]) }

// halfMasks returns the masks of a prefix of bit bits over the two halves
// of an address.
func halfMasks(bit int) (hi, lo uint64) {
	if bit <= 64 {
		return ^(^uint64(0) >> uint(bit)), 0
	}
	return ^uint64(0), ^(^uint64(0) >> uint(bit-64))
}

// maskedHalves returns the first bit bits of a as two halves.
func maskedHalves(a *[16]byte, bit int) [2]uint64 {
	hi, lo := halves(a)
	mh, ml := halfMasks(bit)
	return [2]uint64{hi & mh, lo & ml}
}

// bitTables holds, for each node bit 0..128 (indexed by a byte, without
// bounds checks), the masks of a prefix of
// that length (pfx) and of the bit after it (next) over an address's two
// halves: lookups test nodes without branching on the half.
var bitTables = func() (t [256]struct{ pfx, next [2]uint64 }) {
	for b := range 129 {
		mh, ml := halfMasks(b)
		t[b].pfx = [2]uint64{mh, ml}
		if b < 64 {
			t[b].next[0] = 1 << (63 - b)
		} else if b < 128 {
			t[b].next[1] = 1 << (127 - b)
		}
	}
	return t
}()

// covers reports whether the address hi, lo is inside fn's prefix.
func (fn *node) covers(hi, lo uint64) bool {
	m := &bitTables[uint8(fn.bit)].pfx
	return hi&m[0] == fn.pfx[0] && lo&m[1] == fn.pfx[1]
}

// halfBit reports whether bit b (0 = the most significant) of the address
// hi, lo is set; bits past 128 read as clear.
func halfBit(hi, lo uint64, b int) bool {
	m := &bitTables[uint8(b)].next
	return hi&m[0]|lo&m[1] != 0
}

// freeNode frees a node (node_free, node_free_immediate).
func (f *FIB) freeNode(fn *node) {
	f.stats.FibNodes--
	if fn.bit <= jumpBits {
		f.tree.shallowGen++
	}
	if fn.flags&rtnSubtree != 0 {
		f.setSubtree(fn, nil)
	}
	fn.parent, fn.left, fn.right, fn.leaf = nil, nil, nil, nil
}

// subtree returns fn's source subtree (fn->subtree), nil if it has none.
func (f *FIB) subtree(fn *node) *node {
	if fn.flags&rtnSubtree == 0 {
		return nil
	}
	return f.tree.subtrees[fn]
}

// setSubtree sets fn's source subtree to sfn; nil removes it.
func (f *FIB) setSubtree(fn, sfn *node) {
	if sfn == nil {
		fn.flags &^= rtnSubtree
		delete(f.tree.subtrees, fn)
		return
	}
	if f.tree.subtrees == nil {
		f.tree.subtrees = map[*node]*node{}
	}
	fn.flags |= rtnSubtree
	f.tree.subtrees[fn] = sfn
}

// errNoReplaceMatch is fib6_add_1's answer to a replace that finds nothing.
var errNoReplaceMatch = errno.New(syscall.ENOENT, "Can not replace route - no match found")

// add1 finds or creates the node for prefix addr/plen below root: the
// destination tree's node, or (src) the source subtree's.
//
// Kernel: fib6_add_1 (net/ipv6/ip6_fib.c).
func (f *FIB) add1(t *sim.Task, root *node, addr *[16]byte, plen int, src, allowCreate, replaceRequired bool) (*node, error) {
	var pn *node
	dir := false
	fn := root
	var k *key
	for {
		k = nodeKey(fn, src)
		var kaddr [16]byte
		if k != nil {
			kaddr = k.addr
		}
		bit := int(fn.bit)
		if plen < bit || !prefixEqual(&kaddr, addr, bit) {
			if !allowCreate && replaceRequired {
				return nil, errNoReplaceMatch
			}
			return f.insertAbove(fn, pn, dir, &kaddr, addr, plen), nil
		}
		if plen == bit {
			if fn.flags&rtnRTInfo == 0 {
				// An intermediate node becomes a route node.
				leaf := fn.leaf
				fn.leaf = nil
				f.release(t, leaf)
			} else if fn.flags&rtnTLRoot != 0 && fn.leaf == f.nullEntry {
				fn.leaf = nil
				f.visitDelta(fn, -1)
			}
			return fn, nil
		}
		dir = addrBit(addr, bit)
		pn = fn
		if dir {
			fn = fn.right
		} else {
			fn = fn.left
		}
		if fn == nil {
			break
		}
	}
	if !allowCreate && replaceRequired {
		return nil, errNoReplaceMatch
	}
	ln := f.newNode(addr, plen)
	ln.parent = pn
	if dir {
		pn.right = ln
	} else {
		pn.left = ln
	}
	return ln, nil
}

// insertAbove inserts a node for addr/plen above fn (whose key is kaddr),
// with an intermediate node when the two prefixes diverge below plen.
//
// Kernel: fib6_add_1's insert_above (net/ipv6/ip6_fib.c).
func (f *FIB) insertAbove(fn, pn0 *node, dir bool, kaddr, addr *[16]byte, plen int) *node {
	pn := fn.parent
	_ = pn0
	bit := addrDiff(addr, kaddr)
	if plen > bit {
		in := f.newNode(addr, bit)
		ln := f.newNode(addr, plen)
		in.parent = pn
		in.leaf = fn.leaf
		in.leaf.hold()
		in.visits = fn.visits
		if dir {
			pn.right = in
		} else {
			pn.left = in
		}
		ln.parent = in
		fn.parent = in
		if addrBit(addr, bit) {
			in.right, in.left = ln, fn
		} else {
			in.left, in.right = ln, fn
		}
		return ln
	}
	ln := f.newNode(addr, plen)
	ln.parent = pn
	ln.visits = fn.visits
	if addrBit(kaddr, plen) {
		ln.right = fn
	} else {
		ln.left = fn
	}
	fn.parent = ln
	if dir {
		pn.right = ln
	} else {
		pn.left = ln
	}
	return ln
}

// addRt2Node inserts nrt into fn's leaf list: in metric order, after the
// routes of its metric, joining their multipath route when both qualify,
// or replacing the first route of its metric (a whole multipath route).
// The routes it unlinks are returned for fib6_add to purge.
//
// Kernel: fib6_add_rt2node (net/ipv6/ip6_fib.c).
func (f *FIB) addRt2Node(fn *node, nrt *Info, mode rt.NLMFlags, purge []*Info) ([]*Info, error) {
	leaf := fn.leaf
	replace := mode&rt.NLMReplace != 0
	add := mode == 0 || mode&rt.NLMCreate != 0
	found := false
	canECMP := nrt.qualifyForECMP()
	f.ns.nlflags = rt.NLMExcl | mode&rt.NLMAppend

	// ins is where nrt goes: after insPrev (nil: at the head).
	var insPrev, fallbackPrev *Info
	haveFallback := false
	iter := leaf
	if at := f.appendAt(fn, nrt, mode, canECMP); at != nil {
		insPrev, iter = at, nil // counted.go: the scan would end here
	}
	scanned := 0
	for ; iter != nil; iter = iter.next {
		scanned++
		if iter.metric == nrt.metric {
			if mode&rt.NLMExcl != 0 {
				return purge, errno.New(syscall.EEXIST, "")
			}
			f.ns.nlflags &^= rt.NLMExcl
			if replace {
				if canECMP == iter.qualifyForECMP() {
					found = true
					break
				}
				if !haveFallback {
					fallbackPrev, haveFallback = insPrev, true
				}
				insPrev = iter
				continue
			}
			if duplicateNexthop(iter, nrt) {
				nrt.nsiblings = 0
				if iter.flags&rtfExpires == 0 {
					return purge, errno.New(syscall.EEXIST, "")
				}
				if nrt.flags&rtfExpires == 0 {
					iter.flags &^= rtfExpires
					iter.expires = 0
				} else {
					iter.expires = nrt.expires
					iter.flags |= rtfExpires
				}
				return purge, errno.New(syscall.EEXIST, "")
			}
			if canECMP && iter.qualifyForECMP() {
				nrt.nsiblings++
			}
		}
		if iter.metric > nrt.metric {
			break
		}
		insPrev = iter
	}
	f.scanned(fn, scanned)
	if haveFallback && !found {
		insPrev = fallbackPrev
		if insPrev == nil {
			iter = fn.leaf
		} else {
			iter = insPrev.next
		}
		found = true
	}

	if nrt.nsiblings > 0 {
		for s := leaf; s != nil; s = s.next {
			if s.metric == nrt.metric && s.qualifyForECMP() {
				siblingAddTail(nrt, s)
				break
			}
		}
		n := 0
		nrt.eachSibling(func(s *Info) {
			s.nsiblings++
			if s.nsiblings != nrt.nsiblings {
				panic("fib6: sibling counts differ")
			}
			n++
		})
		if n != nrt.nsiblings {
			panic("fib6: sibling list broken")
		}
		if f.tree.rebalance != nil {
			f.tree.rebalance(nrt.sibNext) // temp_sibling: the list's first, in the tree
		}
	}

	link := func(next *Info) {
		nrt.next = next
		nrt.hold()
		nrt.node = fn
		if insPrev == nil {
			fn.leaf = nrt
		} else {
			insPrev.next = nrt
		}
		if fn.flags&rtnRTInfo == 0 {
			f.stats.FibRouteNodes++
			fn.flags |= rtnRTInfo
		}
		f.routeLinked(fn, nrt)
		if nrt.nsiblings > 0 {
			f.markMultipath(nrt)
		}
	}

	if !replace || !found {
		if replace && !add {
			return purge, errno.New(syscall.ENOENT, "")
		}
		link(iter)
		f.stats.FibRtEntries++
		f.ns.nlflags |= rt.NLMCreate
		return purge, nil
	}
	f.ns.nlflags = rt.NLMReplace

	// Replace iter (and, for a multipath route, its siblings).
	link(iter.next)
	nsib := iter.nsiblings
	iter.node = nil
	f.routeUnlinked(fn, nrt, iter)
	purge = append(purge, iter)
	if nsib > 0 {
		prev := nrt
		for it := nrt.next; it != nil; it = prev.next {
			if it.metric > nrt.metric {
				break
			}
			if it.qualifyForECMP() {
				prev.next = it.next
				it.node = nil
				f.routeUnlinked(fn, prev, it)
				purge = append(purge, it)
				nsib--
				f.stats.FibRtEntries--
			} else {
				prev = it
			}
		}
	}
	return purge, nil
}

// add links nrt into tb's tree (taking a reference for the tree), as mode's
// NLM_F_* flags say; mode 0 is the kernel's own request (no netlink
// header), which creates.
//
// Kernel: fib6_add (net/ipv6/ip6_fib.c).
func (tb *Table) add(t *sim.Task, nrt *Info, mode rt.NLMFlags) error {
	f := tb.fib
	nrt.table = tb
	allowCreate := mode == 0 || mode&rt.NLMCreate != 0
	replaceRequired := mode&rt.NLMReplace != 0

	fn, err := f.add1(t, &tb.root, &nrt.dst.addr, int(nrt.dst.plen), false, allowCreate, replaceRequired)
	if err != nil {
		return err
	}
	pn := fn
	if nrt.src.plen != 0 {
		var sn *node
		if sub := f.subtree(fn); sub == nil {
			sfn := f.newNode(&[16]byte{}, 0)
			f.nullEntry.hold()
			sfn.leaf = f.nullEntry
			sfn.flags = rtnRoot
			sn, err = f.add1(t, sfn, &nrt.src.addr, int(nrt.src.plen), true, allowCreate, replaceRequired)
			if err != nil {
				// The kernel frees the subtree root without dropping the
				// null entry reference it took.
				f.freeNode(sfn)
				f.addFailure(t, tb, fn)
				return err
			}
			sfn.parent = fn
			f.setSubtree(fn, sfn)
		} else {
			sn, err = f.add1(t, sub, &nrt.src.addr, int(nrt.src.plen), true, allowCreate, replaceRequired)
			if err != nil {
				f.addFailure(t, tb, fn)
				return err
			}
		}
		if fn.leaf == nil {
			if fn.flags&rtnTLRoot != 0 {
				fn.leaf = f.nullEntry
				f.visitDelta(fn, 1)
			} else {
				nrt.hold()
				fn.leaf = nrt
			}
		}
		fn = sn
	}

	purge, err := f.addRt2Node(fn, nrt, mode, nil)
	if err != nil {
		if pn != fn {
			pnLeaf := pn.leaf
			if pnLeaf == nrt {
				pnLeaf = nil
				pn.leaf = nil
				f.release(t, nrt)
			}
			if pnLeaf == nil && pn.flags&rtnRTInfo == 0 {
				pnLeaf = f.findPrefix(pn)
				if pnLeaf == nil {
					pnLeaf = f.nullEntry
				}
				pnLeaf.hold()
				pn.leaf = pnLeaf
			}
		}
		f.addFailure(t, tb, fn)
		return err
	}
	// The routes replaced are purged last-unlinked first (the purge list
	// is built with list_add).
	for i := len(purge) - 1; i >= 0; i-- {
		f.purgeRT(t, purge[i], fn)
		f.release(t, purge[i])
	}
	if f.tree.linked != nil {
		f.tree.linked(nrt)
	}
	f.routeMsg(t, nrt, false, f.ns.nlflags)
	setSernumUptoRoot(nrt, f.newSernum())
	if nrt.src.plen != 0 {
		f.tree.routesRequireSrc++
	}
	return nil
}

// addFailure trims a node a failed add left without routes.
//
// Kernel: fib6_add's failure label (net/ipv6/ip6_fib.c).
func (f *FIB) addFailure(t *sim.Task, tb *Table, fn *node) {
	if fn != nil && (fn.flags&(rtnRTInfo|rtnRoot) == 0 ||
		(fn.flags&rtnTLRoot != 0 && fn.leaf == nil)) {
		f.repairTree(t, tb, fn)
	}
}

// findPrefix returns a route to stand as the leaf of intermediate node fn:
// the leaf of a child, or of a child's subtree; the null entry for a
// (sub)tree root.
//
// Kernel: fib6_find_prefix (net/ipv6/ip6_fib.c).
func (f *FIB) findPrefix(fn *node) *Info {
	if fn.flags&rtnRoot != 0 {
		return f.nullEntry
	}
	for fn != nil {
		if fn.left != nil {
			return fn.left.leaf
		}
		if fn.right != nil {
			return fn.right.leaf
		}
		fn = f.subtree(fn)
	}
	return nil
}

// repairTree removes fn, which has lost its routes, and every intermediate
// node above it that is left with fewer than two children; a node that
// must stay gets a route below it as its leaf. It returns the node where
// it stopped.
//
// Kernel: fib6_repair_tree (net/ipv6/ip6_fib.c).
func (f *FIB) repairTree(t *sim.Task, tb *Table, fn *node) *node {
	if fn.flags&rtnTLRoot != 0 {
		fn.leaf = f.nullEntry
		f.visitDelta(fn, 1)
		return fn
	}
	for {
		fnR, fnL, pn := fn.right, fn.left, fn.parent
		pnLeaf := pn.leaf
		children := 0
		var child *node
		if fnR != nil {
			child = fnR
			children |= 1
		}
		if fnL != nil {
			child = fnL
			children |= 2
		}
		if children == 3 || fn.flags&rtnSubtree != 0 || (children != 0 && fn.flags&rtnRoot != 0) {
			nl := f.findPrefix(fn)
			if nl == nil {
				nl = f.nullEntry
			}
			nl.hold()
			fn.leaf = nl
			return pn
		}
		var nstate walkState
		if f.subtree(pn) == fn {
			f.setSubtree(pn, nil)
			nstate = fwsL
		} else {
			if pn.right == fn {
				pn.right = child
			} else if pn.left == fn {
				pn.left = child
			}
			if child != nil {
				child.parent = pn
			}
			nstate = fwsR
		}
		for _, w := range f.tree.walkers {
			if child == nil {
				if w.node == fn {
					w.node = pn
					w.state = nstate
				}
			} else if w.node == fn {
				w.node = child
				if children&2 != 0 {
					if w.state >= fwsR {
						w.state = fwsU
					} else {
						w.state = fwsInit
					}
				} else {
					if w.state >= fwsC {
						w.state = fwsU
					} else {
						w.state = fwsInit
					}
				}
			}
		}
		f.freeNode(fn)
		if pn.flags&(rtnRTInfo|rtnSubtree) != 0 {
			return pn
		}
		pn.leaf = nil
		f.release(t, pnLeaf)
		fn = pn
	}
}

// purgeRT detaches rt, which has left fn's leaf list, from the nodes above
// that still use it as their stand-in leaf.
//
// Kernel: fib6_purge_rt (net/ipv6/ip6_fib.c).
func (f *FIB) purgeRT(t *sim.Task, rt *Info, fn *node) {
	rt.destroying = true
	if f.tree.purged != nil {
		f.tree.purged(t, rt)
	}
	if rt.ref != 1 {
		for ; fn != nil; fn = fn.parent {
			if fn.flags&rtnRTInfo == 0 && fn.leaf == rt {
				nl := f.findPrefix(fn)
				nl.hold()
				fn.leaf = nl
				f.release(t, rt)
			}
		}
	}
}

// delRoute unlinks rt from fn's leaf list (prev is the route before it, nil
// at the head), from its siblings and, if it was the node's last route,
// repairs the tree; then drops the tree's reference.
//
// Kernel: fib6_del_route (net/ipv6/ip6_fib.c).
func (f *FIB) delRoute(t *sim.Task, tb *Table, fn *node, prev, rt *Info) {
	if prev == nil {
		fn.leaf = rt.next
	} else {
		prev.next = rt.next
	}
	rt.node = nil
	f.routeUnlinked(fn, prev, rt)
	f.stats.FibRtEntries--
	f.stats.FibDiscardedRoute++
	if rt.nsiblings > 0 {
		rt.eachSibling(func(s *Info) { s.nsiblings-- })
		rt.nsiblings = 0
		next := rt.sibNext // next_sibling: the route after rt in the list
		siblingDel(rt)
		if f.tree.rebalance != nil {
			f.tree.rebalance(next)
		}
	}
	for _, w := range f.tree.walkers {
		if w.state == fwsC && w.leaf == rt {
			w.leaf = rt.next
			if w.leaf == nil {
				w.state = fwsU
			}
		}
	}
	if fn.leaf == nil {
		if fn.flags&rtnTLRoot == 0 {
			fn.flags &^= rtnRTInfo
			f.stats.FibRouteNodes--
		}
		fn = f.repairTree(t, tb, fn)
	}
	f.purgeRT(t, rt, fn)
	f.routeMsg(t, rt, true, 0)
	f.release(t, rt)
}

// del removes route rt from its table's tree; ENOENT if it is not in one
// (or is the null entry).
//
// Kernel: fib6_del (net/ipv6/ip6_fib.c).
func (f *FIB) del(t *sim.Task, rt *Info) error {
	if rt == f.nullEntry || rt.node == nil {
		return errno.New(syscall.ENOENT, "")
	}
	fn := rt.node
	var prev *Info
	for cur := fn.leaf; cur != nil; prev, cur = cur, cur.next {
		if cur == rt {
			if rt.src.plen != 0 {
				f.tree.routesRequireSrc--
			}
			f.delRoute(t, rt.table, fn, prev, rt)
			return nil
		}
	}
	return errno.New(syscall.ENOENT, "")
}

// locate1 finds the node of prefix addr/plen below root: exactly, or the
// deepest route node on the way.
//
// Kernel: fib6_locate_1 (net/ipv6/ip6_fib.c).
func locate1(root *node, addr *[16]byte, plen int, src, exact bool) *node {
	var prev *node
	for fn := root; fn != nil; {
		k := nodeKey(fn, src)
		bit := int(fn.bit)
		if k == nil {
			if plen <= bit {
				break
			}
		} else {
			if plen < bit || !prefixEqual(&k.addr, addr, bit) {
				break
			}
			if plen == bit {
				return fn
			}
			if fn.flags&rtnRTInfo != 0 {
				prev = fn
			}
		}
		if addrBit(addr, bit) {
			fn = fn.right
		} else {
			fn = fn.left
		}
	}
	if exact {
		return nil
	}
	return prev
}

// locate returns the route node of dst (and src, for a source-specific
// route): exactly, or by longest prefix; nil if none.
//
// Kernel: fib6_locate (net/ipv6/ip6_fib.c).
func (tb *Table) locate(dst, src key, exact bool) *node {
	fn := locate1(&tb.root, &dst.addr, int(dst.plen), false, exact)
	if src.plen != 0 && fn != nil && fn.flags&rtnSubtree != 0 {
		fn = locate1(tb.fib.subtree(fn), &src.addr, int(src.plen), true, exact)
	}
	if fn != nil && fn.flags&rtnRTInfo != 0 {
		return fn
	}
	return nil
}

// nodeLookup1 descends from root along addr (the destination, or in a
// subtree the source) and climbs back to the first route node whose
// prefix matches, looking into subtrees on the way (with saddr) when
// src is false.
//
// The kernel descends by bit tests to the bottom and tests each node's
// leaf key on the way back up. This descent stops instead at the first
// node whose prefix does not cover addr: every key below it shares that
// prefix, so the kernel's climb would fail at each of them. Every node
// above the stop covers addr, and a route node's leaf key is the node's
// own prefix (CheckInvariants), so the climb's first route node is the
// kernel's answer without loading a route. A node that only has a subtree
// keeps the kernel's test of its leaf key, which may be a longer prefix
// (a child's route, fib6_find_prefix).
//
// Kernel: fib6_node_lookup_1 (net/ipv6/ip6_fib.c).
func (f *FIB) nodeLookup1(root *node, daddr, saddr *[16]byte, src bool) *node {
	return f.nodeLookupFrom(root, daddr, saddr, src)
}

// nodeLookupFrom is nodeLookup1 with the descent resumed at fn, a node of
// the tree that covers the address and that the descent from the root
// reaches (a table's jump index gives it).
func (f *FIB) nodeLookupFrom(fn *node, daddr, saddr *[16]byte, src bool) *node {
	addr := daddr
	if src {
		addr = saddr
	}
	hi, lo := halves(addr)
	for {
		next := fn.left
		if halfBit(hi, lo, int(fn.bit)) {
			next = fn.right
		}
		if next == nil || !next.covers(hi, lo) {
			break
		}
		fn = next
	}
	for {
		if fn.flags&(rtnRTInfo|rtnSubtree) == rtnRTInfo && fn.leaf != nil {
			return fn
		}
		if fn.flags&rtnSubtree != 0 {
			if k := nodeKey(fn, src); k != nil && prefixEqual(&k.addr, addr, int(k.plen)) {
				if src {
					// A subtree's nodes have no subtrees of their own.
					goto backtrack
				}
				if sfn := f.nodeLookup1(f.subtree(fn), daddr, saddr, true); sfn != nil {
					return sfn
				}
			}
		}
	backtrack:
		if fn.flags&rtnRoot != 0 {
			return nil
		}
		fn = fn.parent
	}
}

// nodeLookup returns the route node for destination dst and source src:
// the longest matching destination prefix with a matching source prefix;
// the table's root if none.
//
// Kernel: fib6_node_lookup (net/ipv6/ip6_fib.c).
func (tb *Table) nodeLookup(dst, src [16]byte) *node {
	fn := tb.fib.nodeLookupFrom(tb.jumpStart(&dst), &dst, &src, false)
	if fn == nil || fn.flags&rtnTLRoot != 0 {
		fn = &tb.root
	}
	return fn
}

// subtreeLookup is fib6_node_lookup on a subtree root with no destination:
// the longest matching source prefix, or the subtree root.
func (f *FIB) subtreeLookup(sn *node, saddr *[16]byte) *node {
	fn := f.nodeLookup1(sn, nil, saddr, true)
	if fn == nil || fn.flags&rtnTLRoot != 0 {
		fn = sn
	}
	return fn
}

// backtrack climbs from fn to the next route node a lookup should try:
// the parent, or the best source match in the parent's subtree; nil at the
// table's root.
//
// Kernel: fib6_backtrack (net/ipv6/route.c).
func (f *FIB) backtrack(fn *node, saddr [16]byte) *node {
	for {
		if fn.flags&rtnTLRoot != 0 {
			return nil
		}
		pn := fn.parent
		if sn := f.subtree(pn); sn != nil && sn != fn {
			fn = f.subtreeLookup(sn, &saddr)
		} else {
			fn = pn
		}
		if fn.flags&rtnRTInfo != 0 {
			return fn
		}
	}
}
