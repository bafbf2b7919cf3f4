// tree_lookup.go follows the lookups of net/ipv6/ip6_fib.c's radix tree:
// fib6_locate (exact or longest-prefix node of a prefix) and fib6_node_lookup
// with its descent into source subtrees and its backtracking.

package fib6

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
		if !src && fn.stride != strideNone {
			if t := f.strideStep(fn, hi, lo); t != fn {
				fn = t
				continue
			}
		}
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
