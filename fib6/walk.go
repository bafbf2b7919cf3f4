// walk.go follows the tree walks of net/ipv6/ip6_fib.c: struct
// fib6_walker with fib6_walk and fib6_walk_continue, the registered walkers
// that deletions move on, fib6_clean_all and fib6_clean_node, and the dump
// order of fib6_dump_table.

package fib6

import "github.com/netsimlab/netsim/sim"

// walkState is a walker's position at its node (enum fib6_walk_state).
type walkState uint8

const (
	fwsS walkState = iota // FWS_S: about to visit the node's subtree
	fwsL                  // FWS_L: about to visit the left child
	fwsR                  // FWS_R: about to visit the right child
	fwsC                  // FWS_C: visiting the node's routes
	fwsU                  // FWS_U: going up

	fwsInit = fwsS // FWS_INIT, with CONFIG_IPV6_SUBTREES
)

// walker is a tree walk in progress (struct fib6_walker): it stays valid
// while its callback changes the tree, because deletions adjust the
// walkers registered with the FIB.
type walker struct {
	f          *FIB
	root, node *node
	leaf       *Info
	state      walkState
	skip       int
	count      int
	fn         func(w *walker) int
}

// Walkers returns the number of walkers registered with the FIB
// (fib6_walkers): between requests, those of the route dumps in progress,
// each kept from one part of its dump to the next until the dump ends or
// is closed. It must be called with RTNL held or a quiescent simulation.
func (f *FIB) Walkers() int { return len(f.tree.walkers) }

func (f *FIB) linkWalker(w *walker) { f.tree.walkers = append(f.tree.walkers, w) }

func (f *FIB) unlinkWalker(w *walker) {
	ws := f.tree.walkers
	for i := len(ws) - 1; i >= 0; i-- {
		if ws[i] == w {
			copy(ws[i:], ws[i+1:])
			ws[len(ws)-1] = nil
			f.tree.walkers = ws[:len(ws)-1]
			return
		}
	}
}

// walkContinue runs w until its callback suspends (>0) or fails (<0) the
// walk, or the walk ends (0). A node is visited after its subtree and its
// children: subtree, left, right, then its own routes.
//
// Kernel: fib6_walk_continue (net/ipv6/ip6_fib.c).
func (w *walker) walkContinue() int {
	for {
		fn := w.node
		if fn == nil {
			return 0
		}
		switch w.state {
		case fwsS:
			if fn.flags&rtnSubtree != 0 {
				w.node = w.f.subtree(fn)
				continue
			}
			w.state = fwsL
			fallthrough
		case fwsL:
			if fn.left != nil {
				w.node = fn.left
				w.state = fwsInit
				continue
			}
			w.state = fwsR
			fallthrough
		case fwsR:
			if fn.right != nil {
				w.node = fn.right
				w.state = fwsInit
				continue
			}
			w.state = fwsC
			w.leaf = fn.leaf
			fallthrough
		case fwsC:
			if w.leaf != nil && fn.flags&rtnRTInfo != 0 {
				if w.skip > 0 {
					w.skip--
				} else {
					if err := w.fn(w); err != 0 {
						return err
					}
					w.count++
					continue
				}
			}
			w.state = fwsU
			fallthrough
		case fwsU:
			if fn == w.root {
				return 0
			}
			pn := fn.parent
			w.node = pn
			if w.f.subtree(pn) == fn {
				w.state = fwsL
				continue
			}
			if pn.left == fn {
				w.state = fwsR
				continue
			}
			if pn.right == fn {
				w.state = fwsC
				w.leaf = pn.leaf
				continue
			}
			panic("fib6: walker lost in the tree")
		}
	}
}

// walk runs w over the tree at w.root from the start.
//
// Kernel: fib6_walk (net/ipv6/ip6_fib.c).
func (f *FIB) walk(w *walker) int {
	w.state = fwsInit
	w.node = w.root
	f.linkWalker(w)
	res := w.walkContinue()
	if res <= 0 {
		f.unlinkWalker(w)
	}
	return res
}

// cleanAll calls fn for every route of every table, in hash order; fn
// returns 0 to keep the route, -1 to delete it, -2 to skip the rest of its
// multipath route. Each route given to fn is charged as one
// sim.Fib6Visit.
//
// Kernel: fib6_clean_all, __fib6_clean_all, fib6_clean_tree,
// fib6_clean_node (net/ipv6/ip6_fib.c).
func (f *FIB) cleanAll(t *sim.Task, fn func(rt *Info) int) {
	defer t.Frame("fib6_clean_all")()
	f.eachTable(func(tb *Table) { f.cleanTable(t, tb, fn) })
}

// cleanTable is cleanAll's walk of one table.
//
// Kernel: fib6_clean_tree (net/ipv6/ip6_fib.c).
func (f *FIB) cleanTable(t *sim.Task, tb *Table, fn func(rt *Info) int) {
	c := cleaner{f: f, t: t, fn: fn}
	w := &walker{f: f, root: &tb.root}
	w.fn = c.node
	f.walk(w)
	c.charge()
}

// cleaner is a fib6_clean_all walk (struct fib6_cleaner). The visits it
// counts are charged before each deletion and at the end of each table,
// so that virtual time is exact wherever the walk changes the tree.
type cleaner struct {
	f       *FIB
	t       *sim.Task
	fn      func(rt *Info) int
	visited int64
}

func (c *cleaner) charge() {
	c.t.ChargeIn(sim.Fib6Visit, c.visited, c.f.walkFootprint())
	c.visited = 0
}

// node is the cleaner's walker callback.
//
// Kernel: fib6_clean_node (net/ipv6/ip6_fib.c).
func (c *cleaner) node(w *walker) int {
	rt := w.leaf
	for ; rt != nil; rt = rt.next {
		c.visited++
		switch c.fn(rt) {
		case -1:
			w.leaf = rt
			c.charge()
			if c.f.del(c.t, rt) != nil {
				continue
			}
			return 0
		case -2:
			if rt.nsiblings == 0 {
				continue
			}
			rt = rt.lastSibling()
		}
	}
	w.leaf = rt
	return 0
}

// each calls fn for the routes of tb in dump order (inet6_dump_fib): the
// walk's order, a multipath route once (its first sibling), until fn
// returns false.
//
// Kernel: fib6_dump_table, fib6_dump_node (net/ipv6/ip6_fib.c).
func (tb *Table) each(fn func(rt *Info) bool) {
	w := &walker{f: tb.fib, root: &tb.root}
	w.fn = func(w *walker) int {
		for rt := w.leaf; rt != nil; rt = rt.next {
			if !fn(rt) {
				return 1
			}
			if rt.nsiblings > 0 {
				rt = rt.lastSibling()
			}
		}
		w.leaf = nil
		return 0
	}
	// A dump does not change the tree: no need to register the walker.
	w.state = fwsInit
	w.node = w.root
	w.walkContinue()
}

// eachRoute calls fn for every route of tb in walk order, siblings
// included (the order of /proc/net/ipv6_route).
func (tb *Table) eachRoute(fn func(rt *Info)) {
	w := &walker{f: tb.fib, root: &tb.root}
	w.fn = func(w *walker) int {
		for rt := w.leaf; rt != nil; rt = rt.next {
			fn(rt)
		}
		w.leaf = nil
		return 0
	}
	w.state = fwsInit
	w.node = w.root
	w.walkContinue()
}
