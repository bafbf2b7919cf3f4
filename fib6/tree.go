// tree.go follows route insertion into net/ipv6/ip6_fib.c's radix tree:
// the prefix bit helpers (addr_bit_set, __ipv6_addr_diff),
// fib6_add_1 with its intermediate nodes, fib6_add_rt2node (metric order,
// multipath siblings, replace and append) and fib6_add.

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

// nodeAddr returns the address of fn's key (nodeKey), zero when fn has no
// leaf.
func nodeAddr(fn *node, src bool) [16]byte {
	if k := nodeKey(fn, src); k != nil {
		return k.addr
	}
	return [16]byte{}
}

// newNode allocates a tree node (node_alloc) for prefix addr/bit.
func (f *FIB) newNode(addr *[16]byte, bit int) *node {
	f.stats.FibNodes++
	fn := &node{bit: uint16(bit)}
	fn.pfx = maskedHalves(addr, bit)
	return fn
}

// nodeChanged records that a node of bit bit was created or freed below
// pn for the lookup indexes that read it: the jump index
// (lookupindex.go) and the stride tables (lookupstride.go).
func (f *FIB) nodeChanged(pn *node, bit int) {
	f.strideDirty(pn, bit)
	if bit <= jumpBits {
		f.jumpDirty(pn)
	}
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
	if fn.flags&rtnSubtree != 0 {
		f.setSubtree(fn, nil)
	}
	if fn.stride != 0 {
		f.strideDrop(fn)
	}
	if fn.parent != nil && fn.flags&rtnRoot == 0 {
		f.nodeChanged(fn.parent, int(fn.bit))
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
	hi, lo := halves(addr)
	for {
		bit := int(fn.bit)
		// fib6_add_1 compares the key of the node's leaf (fn->leaf) on
		// bit bits: that is the node's own copy of its prefix, which
		// lookups test, except for a node whose leaf is the null entry
		// (or that has none), compared with that entry's key itself.
		var match bool
		if leaf := fn.leaf; leaf != nil && leaf != f.nullEntry {
			match = plen >= bit && fn.covers(hi, lo)
		} else {
			kaddr := nodeAddr(fn, src)
			match = plen >= bit && prefixEqual(&kaddr, addr, bit)
		}
		if !match {
			if !allowCreate && replaceRequired {
				return nil, errNoReplaceMatch
			}
			kaddr := nodeAddr(fn, src)
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
	f.nodeChanged(pn, plen)
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
		f.nodeChanged(pn, bit)
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
	f.nodeChanged(pn, plen)
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
	} else if dup := f.duplicateAt(fn, nrt, mode, canECMP); dup != nil {
		iter = dup // counted.go: the scan would stop there, EEXIST
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
	defer t.Frame("fib6_add")()
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
