// check.go verifies the invariants of the radix trees of net/ipv6/ip6_fib.c
// (parent and child links, fn_bit order, RTN_RTINFO, leaf and sibling lists,
// reference counts, struct fib6_node statistics), for the tests of this
// package and of the packages above it.

package fib6

import "fmt"

// checkTree verifies every table's tree: parent and child links, fn_bit
// growing down the tree, each node's key matching its parent's prefix on
// the side it hangs, RTN_RTINFO exactly on nodes with routes, leaf lists
// in metric order with each route pointing back at its node, sibling lists
// symmetric with equal metrics and consistent nsiblings, references
// covering every holder, and the statistics equal to counts recomputed
// from the trees.
func (f *FIB) checkTree() error {
	c := treeCheck{f: f, holders: map[*Info]int{}}
	var err error
	f.eachTable(func(tb *Table) {
		if err == nil {
			err = c.table(tb)
		}
	})
	if err != nil {
		return err
	}
	for rt, n := range c.holders {
		min := n
		if rt == f.nullEntry {
			min++ // the namespace's own
		}
		if int(rt.ref) < min {
			return fmt.Errorf("route %s: %d references, %d holders", rt.dst, rt.ref, min)
		}
	}
	want := Stats{FibNodes: c.nodes, FibRouteNodes: c.routeNodes, FibRtEntries: c.entries}
	got := f.stats
	if got.FibNodes != want.FibNodes || got.FibRouteNodes != want.FibRouteNodes || got.FibRtEntries != want.FibRtEntries {
		return fmt.Errorf("stats %+v, trees hold nodes %d, route nodes %d, entries %d",
			got, want.FibNodes, want.FibRouteNodes, want.FibRtEntries)
	}
	if c.subtrees != len(f.tree.subtrees) {
		return fmt.Errorf("%d nodes with a subtree, %d in the subtree map", c.subtrees, len(f.tree.subtrees))
	}
	if c.requireSrc != f.tree.routesRequireSrc && c.requireSrc > f.tree.routesRequireSrc {
		return fmt.Errorf("%d source-specific routes, counted %d", c.requireSrc, f.tree.routesRequireSrc)
	}
	return f.checkCounted()
}

func (k key) String() string {
	return fmt.Sprintf("%x/%d", k.addr, k.plen)
}

type treeCheck struct {
	f                          *FIB
	holders                    map[*Info]int
	nodes, routeNodes, entries int
	requireSrc                 int
	subtrees                   int // nodes with rtnSubtree
}

func (c *treeCheck) table(tb *Table) error {
	r := &tb.root
	if r.flags&^rtnSubtree != rtnRoot|rtnTLRoot|rtnRTInfo || r.parent != nil || r.bit != 0 {
		return fmt.Errorf("table %d: root flags %#x", tb.id, r.flags)
	}
	if tb.fib != c.f || c.f.getTable(tb.id) != tb {
		return fmt.Errorf("table %d: not linked", tb.id)
	}
	return c.node(tb, r, false)
}

func (c *treeCheck) node(tb *Table, fn *node, src bool) error {
	where := func() string { return fmt.Sprintf("table %d node bit %d", tb.id, fn.bit) }
	tl := fn.flags&rtnTLRoot != 0
	if !tl {
		c.nodes++
	}
	if fn.leaf == nil {
		return fmt.Errorf("%s: no leaf", where())
	}
	// The node's prefix: its leaf's key, on fn.bit bits.
	k := nodeKey(fn, src)
	if int(k.plen) < int(fn.bit) && fn.leaf != c.f.nullEntry {
		return fmt.Errorf("%s: leaf key %s shorter than the node", where(), k)
	}
	// The node's own copy of its prefix, which lookups test.
	if fn.leaf != c.f.nullEntry && fn.pfx != maskedHalves(&k.addr, int(fn.bit)) {
		return fmt.Errorf("%s: node prefix %016x%016x differs from its leaf's key %s", where(), fn.pfx[0], fn.pfx[1], k)
	}
	if fn.flags&rtnRTInfo != 0 {
		if !tl {
			c.routeNodes++
		}
		if fn.leaf == c.f.nullEntry {
			if !tl {
				return fmt.Errorf("%s: the null entry as routes", where())
			}
		} else if err := c.leafList(tb, fn, src); err != nil {
			return err
		}
	} else {
		if fn.leaf.node == fn {
			return fmt.Errorf("%s: routes without RTN_RTINFO", where())
		}
		c.holders[fn.leaf]++
		if fn.flags&(rtnRoot|rtnSubtree) == 0 && (fn.left == nil || fn.right == nil) {
			return fmt.Errorf("%s: intermediate node with fewer than two children", where())
		}
	}
	if (fn.flags&rtnSubtree != 0) != (c.f.tree.subtrees[fn] != nil) {
		return fmt.Errorf("%s: subtree flag %t, subtree map entry %t", where(), fn.flags&rtnSubtree != 0, c.f.tree.subtrees[fn] != nil)
	}
	if s := c.f.subtree(fn); s != nil {
		c.subtrees++
		if src {
			return fmt.Errorf("%s: a subtree in a subtree", where())
		}
		if s.parent != fn || s.flags != rtnRoot || s.bit != 0 {
			return fmt.Errorf("%s: bad subtree root (flags %#x)", where(), s.flags)
		}
		if err := c.node(tb, s, true); err != nil {
			return err
		}
	}
	for i, ch := range []*node{fn.left, fn.right} {
		if ch == nil {
			continue
		}
		if ch.parent != fn {
			return fmt.Errorf("%s: child's parent link broken", where())
		}
		if ch.bit <= fn.bit {
			return fmt.Errorf("%s: child bit %d not below", where(), ch.bit)
		}
		ck := nodeKey(ch, src)
		if ck == nil {
			return fmt.Errorf("%s: child without leaf", where())
		}
		if !prefixEqual(&ck.addr, &k.addr, int(fn.bit)) {
			return fmt.Errorf("%s: child key %s outside %s", where(), ck, k)
		}
		if addrBit(&ck.addr, int(fn.bit)) != (i == 1) {
			return fmt.Errorf("%s: child key %s on the wrong side", where(), ck)
		}
		if ch.flags&(rtnRoot|rtnTLRoot) != 0 {
			return fmt.Errorf("%s: child flagged root", where())
		}
		if err := c.node(tb, ch, src); err != nil {
			return err
		}
	}
	return nil
}

func (c *treeCheck) leafList(tb *Table, fn *node, src bool) error {
	where := fmt.Sprintf("table %d node bit %d", tb.id, fn.bit)
	var prev *Info
	first := fn.leaf
	for rt := fn.leaf; rt != nil; prev, rt = rt, rt.next {
		c.entries++
		c.holders[rt]++
		if rt.src.plen != 0 {
			c.requireSrc++
		}
		if rt.node != fn || rt.table != tb {
			return fmt.Errorf("%s: route %s points elsewhere", where, rt.dst)
		}
		k := rt.dst
		if src {
			k = rt.src
		}
		fk := first.dst
		if src {
			fk = first.src
		}
		if int(k.plen) != int(fn.bit) || k.addr != fk.addr {
			return fmt.Errorf("%s: route key %s", where, k)
		}
		if prev != nil && prev.metric > rt.metric {
			return fmt.Errorf("%s: metric %d after %d", where, rt.metric, prev.metric)
		}
		if rt.nsiblings == 0 {
			if rt.sibNext != nil || rt.sibPrev != nil {
				return fmt.Errorf("%s: route without siblings in a list", where)
			}
			continue
		}
		n := 0
		for s := rt.sibNext; s != rt; s = s.sibNext {
			if s == nil || s.sibPrev.sibNext != s || s.sibNext.sibPrev != s {
				return fmt.Errorf("%s: sibling list broken", where)
			}
			if s.metric != rt.metric || s.node != fn || s.nsiblings != rt.nsiblings {
				return fmt.Errorf("%s: sibling metric %d/%d nsiblings %d/%d", where, s.metric, rt.metric, s.nsiblings, rt.nsiblings)
			}
			n++
			if n > rt.nsiblings {
				break
			}
		}
		if n != rt.nsiblings {
			return fmt.Errorf("%s: %d siblings, nsiblings %d", where, n, rt.nsiblings)
		}
	}
	return nil
}
