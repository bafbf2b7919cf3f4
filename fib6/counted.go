// counted.go is a simulation-speed mode of the device walks
// (rt6_sync_down_dev, rt6_disable_ip, rt6_sync_up): instead of visiting
// every route of every table, a walk visits only the routes whose own
// nexthop uses the device — the only ones those callbacks change — and
// charges sim.Fib6Visit as the real walk (cleanAll) would, at the same
// points: before each deletion, the visits up to and including the route
// deleted, and at the end of each table the rest. A route's place in the
// walk comes from per-node counts of the routes each subtree visits (an
// augmented tree); the routes the real walk visits are every route in the
// tables plus the null entry of each table whose root has no route of its
// own. The kernel keeps no such counts: the behaviour, counters and
// virtual times are those of the real walk (proved by the tests), only
// real time drops.
//
// Where a walk's callback can skip routes (fib6_ifdown's -2 for a
// multipath route on NETDEV_DOWN), the counted walk walks that table for
// real: every table that holds, or has held since they were linked, a
// route with siblings.

package fib6

import (
	"fmt"
	"slices"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// countedState is the index of the counted device walks.
type countedState struct {
	on bool
	// byDev holds, per device, the routes in the tables whose own nexthop
	// (fib6_nh, not a nexthop object) uses it; Info.devPos is a route's
	// index in its device's slice.
	byDev map[*netdev.Device][]*Info
	// tails indexes the long leaf lists (see leafTail).
	tails map[*node]*leafTail
}

// longLeafList is the length from which a leaf list gets a leafTail.
const longLeafList = 64

// leafTail is, with counted walks, the index of a long leaf list (a node
// with thousands of routes, as fe80::/64 and ff00::/8 with one route per
// device): its last route and how many of its routes have each metric and
// nexthop, with the route itself where only one has them. With them,
// fib6_add_rt2node's scan of the list for a route that goes at its end,
// cannot join a multipath route and is no duplicate reaches the same place
// without walking the list, and its scan for a route that is a duplicate
// starts at the duplicate (the scan is charged nothing, so skipping the
// routes before it changes no counter).
type leafTail struct {
	tail *Info
	keys map[nhKey]keyRoutes
}

// keyRoutes is how many routes of a leaf list have one metric and
// nexthop, and the route when it is the only one that has them (nil when
// it is not known: a second one came and went).
type keyRoutes struct {
	n    int32
	only *Info
}

// nhKey is a route's metric and nexthop: two routes with the same key are
// duplicates in fib6_add_rt2node (rt6_duplicate_nexthop).
type nhKey struct {
	metric uint32
	dev    *netdev.Device
	gw     [16]byte
	obj    *nexthop.Nexthop
}

func nhKeyOf(r *Info) nhKey {
	if r.nhObj != nil {
		return nhKey{metric: r.metric, obj: r.nhObj}
	}
	return nhKey{metric: r.metric, dev: r.fnh.dev, gw: r.fnh.gw}
}

// appendAt returns the route after which fib6_add_rt2node would insert rt
// into fn's leaf list, when fn's list is indexed and its scan would only
// find the list's end; nil otherwise (scan the list).
func (f *FIB) appendAt(fn *node, nrt *Info, mode rt.NLMFlags, canECMP bool) *Info {
	if !f.cw.on || canECMP || mode&(rt.NLMReplace|rt.NLMExcl) != 0 {
		return nil
	}
	lt := f.cw.tails[fn]
	if lt == nil || lt.tail.metric > nrt.metric || lt.keys[nhKeyOf(nrt)].n != 0 {
		return nil
	}
	return lt.tail
}

// duplicateAt returns the route of fn's leaf list that is a duplicate of
// nrt (same metric and nexthop), where fib6_add_rt2node's scan would stop
// with EEXIST, when fn's list is indexed, nrt can join no multipath route
// and the request neither replaces nor is exclusive; nil otherwise (scan
// the list). The routes before it would only clear NLM_F_EXCL from the
// notification's flags, as the duplicate itself does.
func (f *FIB) duplicateAt(fn *node, nrt *Info, mode rt.NLMFlags, canECMP bool) *Info {
	if !f.cw.on || canECMP || mode&(rt.NLMReplace|rt.NLMExcl) != 0 {
		return nil
	}
	lt := f.cw.tails[fn]
	if lt == nil {
		return nil
	}
	return lt.keys[nhKeyOf(nrt)].only
}

// keyLinked counts r, which has joined the list lt indexes.
func (lt *leafTail) keyLinked(r *Info) {
	k := nhKeyOf(r)
	kr := lt.keys[k]
	if kr.n++; kr.n == 1 {
		kr.only = r
	} else {
		kr.only = nil
	}
	lt.keys[k] = kr
}

// scanned indexes fn's leaf list once a scan has walked n of its routes.
func (f *FIB) scanned(fn *node, n int) {
	if !f.cw.on || n < longLeafList || f.cw.tails[fn] != nil {
		return
	}
	lt := &leafTail{keys: map[nhKey]keyRoutes{}}
	for r := fn.leaf; r != nil; r = r.next {
		lt.keyLinked(r)
		lt.tail = r
	}
	f.cw.tails[fn] = lt
}

// SetCountedWalks turns the counted device walks on or off (see
// counted.go); turning them on indexes the routes already in the tables.
// Behaviour, counters and virtual time are the same either way.
func (f *FIB) SetCountedWalks(on bool) {
	if on == f.cw.on {
		return
	}
	f.cw = countedState{on: on}
	f.eachTable(func(tb *Table) { tb.mp = 0 })
	if !on {
		f.eachTable(func(tb *Table) {
			tb.eachRoute(func(r *Info) { r.mpSeen = false })
		})
		return
	}
	f.cw.byDev = map[*netdev.Device][]*Info{}
	f.cw.tails = map[*node]*leafTail{}
	f.eachTable(func(tb *Table) {
		f.recountVisits(&tb.root)
		tb.eachRoute(func(r *Info) {
			if r == f.nullEntry {
				return
			}
			f.indexRoute(r)
			if r.nsiblings > 0 {
				f.markMultipath(r)
			}
		})
	})
}

// CountedWalks reports whether the counted device walks are on.
func (f *FIB) CountedWalks() bool { return f.cw.on }

// ownVisits is the number of routes a walk visits at fn itself: its leaf
// list if it holds routes (the null entry of an empty root included).
func ownVisits(fn *node) int32 {
	if fn.flags&rtnRTInfo == 0 {
		return 0
	}
	n := int32(0)
	for r := fn.leaf; r != nil; r = r.next {
		n++
	}
	return n
}

// recountVisits sets the visit counts of fn's subtree from scratch and
// returns fn's.
func (f *FIB) recountVisits(fn *node) int32 {
	if fn == nil {
		return 0
	}
	n := ownVisits(fn) + f.recountVisits(f.subtree(fn)) + f.recountVisits(fn.left) + f.recountVisits(fn.right)
	fn.visits = n
	return n
}

// visitDelta adds d to the visit counts of fn and of every node above it,
// up to its table's root: fn's own visits changed by d.
func (f *FIB) visitDelta(fn *node, d int32) {
	if !f.cw.on {
		return
	}
	for ; fn != nil; fn = fn.parent {
		fn.visits += d
	}
}

// routeLinked indexes r, which has joined fn's leaf list.
func (f *FIB) routeLinked(fn *node, r *Info) {
	if !f.cw.on {
		return
	}
	f.visitDelta(fn, 1)
	f.indexRoute(r)
	if lt := f.cw.tails[fn]; lt != nil {
		lt.keyLinked(r)
		if r.next == nil {
			lt.tail = r
		}
	}
}

// routeUnlinked drops r, which has left fn's leaf list (where prev was
// before it, nil at the head), from the index.
func (f *FIB) routeUnlinked(fn *node, prev, r *Info) {
	if !f.cw.on {
		return
	}
	f.visitDelta(fn, -1)
	if lt := f.cw.tails[fn]; lt != nil {
		k := nhKeyOf(r)
		if kr := lt.keys[k]; kr.n == 1 {
			delete(lt.keys, k)
		} else {
			lt.keys[k] = keyRoutes{n: kr.n - 1}
		}
		if lt.tail == r {
			lt.tail = prev
		}
		if fn.leaf == nil || lt.tail == nil {
			delete(f.cw.tails, fn)
		}
	}
	if r.nhObj == nil && r.fnh.dev != nil {
		l := f.cw.byDev[r.fnh.dev]
		i := r.devPos
		last := len(l) - 1
		if int(i) > last || l[i] != r {
			panic("fib6: counted walk index lost a route")
		}
		l[i] = l[last]
		l[i].devPos = i
		l[last] = nil
		if last == 0 {
			delete(f.cw.byDev, r.fnh.dev)
		} else {
			f.cw.byDev[r.fnh.dev] = l[:last]
		}
	}
	if r.mpSeen {
		r.mpSeen = false
		r.table.mp--
	}
}

func (f *FIB) indexRoute(r *Info) {
	if r.nhObj != nil || r.fnh.dev == nil {
		return
	}
	l := f.cw.byDev[r.fnh.dev]
	r.devPos = int32(len(l))
	f.cw.byDev[r.fnh.dev] = append(l, r)
}

// markMultipath records that r and its siblings are multipath routes: their
// table's NETDEV_DOWN walks are real walks while they are linked.
func (f *FIB) markMultipath(r *Info) {
	if !f.cw.on {
		return
	}
	mark := func(s *Info) {
		if !s.mpSeen {
			s.mpSeen = true
			s.table.mp++
		}
	}
	mark(r)
	r.eachSibling(mark)
}

// walkRank returns the number of routes a walk of r's table visits up to
// and including r (post-order: a node's subtree, left child, right child,
// then its own leaf list).
func walkRank(r *Info) int64 {
	fn, f := r.node, r.table.fib
	n := int64(1)
	for it := fn.leaf; it != r; it = it.next {
		n++
	}
	n += int64(visitsOf(f.subtree(fn)) + visitsOf(fn.left) + visitsOf(fn.right))
	for c := fn; c.parent != nil; c = c.parent {
		pn := c.parent
		switch c {
		case pn.left:
			n += int64(visitsOf(f.subtree(pn)))
		case pn.right:
			n += int64(visitsOf(f.subtree(pn)) + visitsOf(pn.left))
		}
	}
	return n
}

func visitsOf(fn *node) int32 {
	if fn == nil {
		return 0
	}
	return fn.visits
}

// devWalk is cleanAll for a callback fn that changes or deletes only
// routes whose own nexthop uses dev, and returns 0 for every other route;
// skips says whether fn may return -2 (skip a multipath route's rest),
// deletes whether it may return -1. With counted walks it visits dev's
// routes alone, charging what cleanAll charges when cleanAll does. A walk
// that deletes nothing calls fn in any order: fn changes only the route it
// is given and rebalances its multipath route from the siblings' state, so
// the end state is the same in every order, and the charges are each
// table's total.
func (f *FIB) devWalk(t *sim.Task, dev *netdev.Device, skips, deletes bool, fn func(r *Info) int) {
	defer t.Frame("fib6_clean_all")()
	if !f.cw.on {
		f.cleanAll(t, fn)
		return
	}
	type ranked struct {
		r    *Info
		rank int64
	}
	mine := slices.Clone(f.cw.byDev[dev])
	f.eachTable(func(tb *Table) {
		if skips && tb.mp > 0 {
			f.cleanTable(t, tb, fn)
			return
		}
		total := int64(tb.root.visits)
		if !deletes {
			for _, r := range mine {
				if r.table == tb && fn(r) != 0 {
					panic("fib6: a counted walk's callback changed the walk")
				}
			}
			t.ChargeIn(sim.Fib6Visit, total, f.walkFootprint())
			return
		}
		var todo []ranked
		for _, r := range mine {
			if r.table == tb {
				todo = append(todo, ranked{r, walkRank(r)})
			}
		}
		slices.SortFunc(todo, func(a, b ranked) int {
			if a.rank < b.rank {
				return -1
			}
			if a.rank > b.rank {
				return 1
			}
			return 0
		})
		charged := int64(0)
		for _, m := range todo {
			if m.r.node == nil {
				continue
			}
			if fn(m.r) == -1 {
				t.ChargeIn(sim.Fib6Visit, m.rank-charged, f.walkFootprint())
				charged = m.rank
				_ = f.del(t, m.r)
			}
		}
		t.ChargeIn(sim.Fib6Visit, total-charged, f.walkFootprint())
	})
}

// checkCounted verifies the counted walks' index: every node's visit
// count, every route with its own nexthop indexed under its device, and
// each table's count of multipath routes covering those with siblings.
func (f *FIB) checkCounted() error {
	if !f.cw.on {
		return nil
	}
	indexed := 0
	var err error
	f.eachTable(func(tb *Table) {
		if err != nil {
			return
		}
		if e := f.checkVisits(&tb.root); e != nil {
			err = fmt.Errorf("table %d: %v", tb.id, e)
			return
		}
		mp := 0
		tb.eachRoute(func(r *Info) {
			if err != nil || r == f.nullEntry {
				return
			}
			if r.mpSeen {
				mp++
			} else if r.nsiblings > 0 {
				err = fmt.Errorf("table %d: route %s with siblings not counted as multipath", tb.id, r.dst)
				return
			}
			if r.nhObj != nil || r.fnh.dev == nil {
				return
			}
			indexed++
			l := f.cw.byDev[r.fnh.dev]
			if int(r.devPos) >= len(l) || l[r.devPos] != r {
				err = fmt.Errorf("table %d: route %s missing from its device's index", tb.id, r.dst)
			}
		})
		if err == nil && mp != tb.mp {
			err = fmt.Errorf("table %d: %d multipath routes, counted %d", tb.id, mp, tb.mp)
		}
	})
	if err != nil {
		return err
	}
	for fn, lt := range f.cw.tails {
		keys := map[nhKey]int32{}
		var tail *Info
		for r := fn.leaf; r != nil; r = r.next {
			keys[nhKeyOf(r)]++
			tail = r
		}
		ok := fn.flags&rtnRTInfo != 0 && tail == lt.tail && len(keys) == len(lt.keys)
		for k, kr := range lt.keys {
			if !ok {
				break
			}
			ok = keys[k] == kr.n && (kr.only == nil || kr.n == 1 && kr.only.node == fn && nhKeyOf(kr.only) == k)
		}
		if !ok {
			return fmt.Errorf("node bit %d: leaf list index out of date", fn.bit)
		}
	}
	n := 0
	for _, l := range f.cw.byDev {
		n += len(l)
	}
	if n != indexed {
		return fmt.Errorf("device index holds %d routes, the tables %d", n, indexed)
	}
	return nil
}

func (f *FIB) checkVisits(fn *node) error {
	if fn == nil {
		return nil
	}
	sub := f.subtree(fn)
	want := ownVisits(fn) + visitsOf(sub) + visitsOf(fn.left) + visitsOf(fn.right)
	if fn.visits != want {
		return fmt.Errorf("node bit %d: visit count %d, routes below %d", fn.bit, fn.visits, want)
	}
	for _, c := range []*node{sub, fn.left, fn.right} {
		if err := f.checkVisits(c); err != nil {
			return err
		}
	}
	return nil
}
