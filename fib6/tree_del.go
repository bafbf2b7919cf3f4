// tree_del.go follows route deletion in net/ipv6/ip6_fib.c's radix tree:
// fib6_del and fib6_del_route, fib6_purge_rt and fib6_repair_tree with the
// stand-in leaves fib6_find_prefix picks for intermediate nodes.

package fib6

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

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
	defer t.Frame("fib6_del_route")()
	if prev == nil {
		fn.leaf = rt.next
	} else {
		prev.next = rt.next
	}
	rt.node = nil
	f.routeUnlinked(fn, prev, rt)
	f.stats.FibRtEntries--
	f.stats.FibDiscardedRoute++
	t.Charge(sim.Fib6RouteRemove, 1)
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
