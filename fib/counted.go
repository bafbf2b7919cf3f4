// counted.go is a simulation-speed mode of fib_table_flush
// (net/ipv4/fib_trie.c): instead of walking every leaf of the trie, a flush
// visits only the leaves that hold a route it removes, and the tnodes above
// them, and charges the nodes, leaves, aliases and fib_infos the real walk
// visits. The kernel keeps no such index: the routes removed, the trie's
// shape, the counters and so the virtual times are those of the real walk
// (proved by the tests), only real time drops.
//
// Why it is exact. The real walk goes right to left and, once a tnode's
// children are done, updates its suffix length (update_suffix, when its
// slen is above its pos) and resizes it. Its work is fixed by the trie it
// starts from: it descends into every tnode there is and resizes each once,
// and visits every leaf, every alias and, of them, every alias of the table
// — nothing it changes lies in a part it has yet to reach (a leaf's list
// changes only when the walk is at it; a resize changes the resized
// tnode's subtree, all visited, and its own slot in its parent). The
// updates and resizes change nothing at a tnode that is "settled": one
// whose update_suffix would give its slen and that resize would neither
// inflate, halve nor collapse. A tnode below which nothing changed is still
// as it was when the walk began, so where it was settled then, the walk's
// visit to it is only counted. The counted flush therefore runs the real
// flush's leaf work and update_suffix and resize, in the real walk's order
// (post-order, right to left), on the tnodes above the leaves it changes and
// above the tnodes that are not settled, and charges the rest.
//
// The kernel leaves tnodes unsettled (a resize that stops after MAX_WORK
// inflations, an inflation after which the node would halve, a tnode that
// becomes the root or stops being it without a resize), so the trie marks
// every tnode that changes (tnode.dirty) and the next counted flush checks
// those. A flush of all routes (ip_fib_net_exit's), and one whose dead
// fib_infos have routes on a quarter of the trie's leaves or more, walks
// for real.

package fib

import (
	"fmt"
	"slices"

	"github.com/netsimlab/netsim/sim"
)

// countedTrie is a trie's share of the counted flushes' bookkeeping.
type countedTrie struct {
	track bool     // mark changed tnodes dirty
	dirty []uint32 // the tnodes marked dirty (some since freed or clean)
	// sites[i] holds the keys of the leaves where fib_info i has routes
	// in this trie: every such leaf's key at least once, and stale keys
	// (of routes since removed) that stale[i] counts at most. A list is
	// compacted once its stale keys could be more than half of it, so it
	// never holds more than twice the fib_info's routes here.
	sites [][]uint32
	stale []int32
	// Scratch of flushCounted.
	events []flushEvent
	stack  []uint32
	chain  []uint32
}

// flushEvent is a leaf that holds a route the flush removes, or a tnode
// that is not settled: where the counted flush does the real walk's work.
type flushEvent struct {
	key  uint32 // the leaf's key; the tnode's, the lowest below it
	rank uint8  // 0 for a leaf, pos+1 for a tnode
	node ref
}

// SetCountedWalks turns counted fib_table_flush on or off: with it, a
// flush of the routes of dead fib_infos visits only the leaves that hold
// them (and the tnodes above them and any a resize would change), and
// charges the trie work the real walk does. Routes, trie shape, counters
// and virtual time are those of the real walk; only real time drops. The
// caller holds RTNL.
func (f *FIB) SetCountedWalks(on bool) {
	if on == f.fis.counted {
		return
	}
	var tries []*trie
	for _, tb := range f.tables {
		if tb.t != nil && !slices.Contains(tries, tb.t) {
			tries = append(tries, tb.t)
		}
	}
	f.fis.deadList, f.fis.inDead = nil, nil
	f.fis.counted = on
	if !on {
		for _, tr := range tries {
			for i := range tr.tn {
				tr.tn[i].dirty = false
			}
			tr.cf = countedTrie{}
		}
		return
	}
	for i := uint32(1); i < f.fis.next; i++ {
		if f.fis.dead[i] {
			f.fis.setDead(i, true)
		}
	}
	for _, tr := range tries {
		tr.cf.track = true
		for i := 1; i < len(tr.tn); i++ {
			if tr.tn[i].bits != 0 {
				tr.markDirty(uint32(i))
			}
		}
		for l := range tr.leaves() {
			for a := tr.lf[l].head; a != 0; a = tr.al(a).next {
				tr.siteAdd(tr.al(a).info, tr.lf[l].key)
			}
		}
	}
}

// markDirty records that tnode i changed: the next counted flush checks
// whether it is settled.
func (t *trie) markDirty(i uint32) {
	if !t.cf.track || i == 0 {
		return
	}
	if n := &t.tn[i]; !n.dirty {
		n.dirty = true
		t.cf.dirty = append(t.cf.dirty, i)
	}
	// A tnode freed and made again is listed again: without flushes the
	// list would grow with every insert and delete.
	if len(t.cf.dirty) > 2*len(t.tn)+64 {
		t.cf.dirty = t.cf.dirty[:0]
		for j := range t.tn {
			if t.tn[j].dirty {
				t.cf.dirty = append(t.cf.dirty, uint32(j))
			}
		}
	}
}

// setLeafSlen sets leaf l's suffix length, marking its parent, whose
// update_suffix reads it. The caller refreshes the leaf's slot summary
// (resum) once its change to the leaf is done.
func (t *trie) setLeafSlen(l uint32, slen uint8) {
	if lf := &t.lf[l]; lf.slen != slen {
		lf.slen = slen
		t.markDirty(lf.parent)
	}
}

// siteAdd records a route of fib_info info at leaf key of this trie.
func (t *trie) siteAdd(info, key uint32) {
	if !t.cf.track {
		return
	}
	cf := &t.cf
	for len(cf.sites) <= int(info) {
		cf.sites = append(cf.sites, nil)
		cf.stale = append(cf.stale, 0)
	}
	cf.sites[info] = append(cf.sites[info], key)
}

// siteDel forgets a route of fib_info info at leaf key of this trie: its
// key stays listed, counted stale, until the list is compacted.
func (t *trie) siteDel(info, key uint32) {
	if !t.cf.track {
		return
	}
	cf := &t.cf
	if int(info) >= len(cf.sites) || len(cf.sites[info]) == 0 {
		panic(fmt.Sprintf("fib: no route of fib_info %d at %#x in the alias index", info, key))
	}
	if cf.stale[info]++; 2*int(cf.stale[info]) > len(cf.sites[info]) {
		t.compactSites(info)
	}
}

// compactSites keeps, once each, the keys of fib_info info's list whose
// leaf holds a route of it.
func (t *trie) compactSites(info uint32) {
	cf := &t.cf
	keys := cf.sites[info]
	slices.Sort(keys)
	keys = slices.Compact(keys)
	n := 0
	for _, key := range keys {
		if l := t.leafAt(key); l != 0 && t.leafHas(l, info) {
			keys[n] = key
			n++
		}
	}
	keys = keys[:n]
	if cap(keys) > 2*n+8 {
		keys = slices.Clip(slices.Clone(keys)) // let a list that shrank go
	}
	cf.sites[info], cf.stale[info] = keys, 0
}

// leafHas reports whether leaf l holds a route of fib_info info.
func (t *trie) leafHas(l, info uint32) bool {
	for a := t.lf[l].head; a != 0; a = t.al(a).next {
		if t.al(a).info == info {
			return true
		}
	}
	return false
}

// manyDead reports whether this trie lists the dead fib_infos' routes on
// as many leaves as a quarter of its own (stale keys included): a flush
// that may visit that many leaves is quicker walked for real.
func (t *trie) manyDead() bool {
	it := t.fis
	n, limit := 0, t.nLeaves/4
	for _, i := range it.deadList {
		if it.dead[i] && int(i) < len(t.cf.sites) {
			if n += len(t.cf.sites[i]); n > limit {
				return true
			}
		}
	}
	return false
}

// settled reports whether fib_table_flush's update_suffix and resize would
// change nothing at tnode ti.
func (t *trie) settled(ti uint32) bool {
	tp := t.tn[ti].parent
	if t.shouldInflate(tp, ti) || t.shouldHalve(tp, ti) || t.shouldCollapse(ti) {
		return false
	}
	tn := &t.tn[ti]
	return tn.slen <= tn.pos || t.suffixOf(ti) == tn.slen
}

// leafAt returns the leaf with key key, 0 if none, without counting.
func (t *trie) leafAt(key uint32) uint32 {
	n := t.root()
	for n != 0 && !n.isLeaf() {
		tn := &t.tn[n.idx()]
		i := (key ^ tn.key) >> tn.pos
		if i>>tn.bits != 0 {
			return 0
		}
		n = t.kid(tn, i)
	}
	if n == 0 || t.lf[n.idx()].key != key {
		return 0
	}
	return n.idx()
}

// flushCounted is flush (fib_table_flush without flush_all) with counted
// walks: the same routes removed, the same resizes in the same order, the
// same work counted, with visits only where the walk changes something.
func (tb *Table) flushCounted(t *sim.Task) int {
	defer t.Frame("fib_table_flush")()
	tb.f.noteWalk()
	tr, it := tb.t, tb.t.fis
	cf := &tr.cf
	tnodes, leaves, aliases, infos := int64(tr.nTnodes), int64(tr.nLeaves), int64(tr.nAliases), int64(tb.routes)

	// The tnodes that changed since the last check and are not settled.
	evs := cf.events[:0]
	for _, i := range cf.dirty {
		n := &tr.tn[i]
		if !n.dirty {
			continue
		}
		n.dirty = false
		if n.bits != 0 && !tr.settled(i) {
			evs = append(evs, flushEvent{key: n.key, rank: n.pos + 1, node: tnodeRef(i)})
		}
	}
	cf.dirty = cf.dirty[:0]
	for _, ev := range evs {
		tr.markDirty(ev.node.idx()) // checked again next time
	}

	// The leaves that hold a route of this table with a dead fib_info.
	live := it.deadList[:0]
	for _, i := range it.deadList {
		if !it.dead[i] {
			it.inDead[i] = false
			continue
		}
		live = append(live, i)
		if int(i) >= len(cf.sites) {
			continue
		}
		for _, key := range cf.sites[i] {
			l := tr.leafAt(key)
			if l == 0 {
				continue // a stale key
			}
			for a := tr.lf[l].head; a != 0; a = tr.al(a).next {
				if fa := tr.al(a); fa.tbID == tb.id && it.dead[fa.info] {
					evs = append(evs, flushEvent{key: key, node: leafRef(l)})
					break
				}
			}
		}
	}
	clear(it.deadList[len(live):])
	it.deadList = live

	// The real walk's order: right to left, a tnode after everything
	// below it.
	slices.SortFunc(evs, func(a, b flushEvent) int {
		if a.key != b.key {
			if a.key > b.key {
				return -1
			}
			return 1
		}
		return int(a.rank) - int(b.rank)
	})
	evs = slices.Compact(evs)

	// stack holds the tnodes the walk is in, root first; a tnode is
	// resized when the walk leaves it.
	var c flushCount
	var resized int64
	leave := func(pn uint32) {
		if tr.tn[pn].slen > tr.tn[pn].pos {
			tr.updateSuffix(pn)
		}
		tr.resize(pn)
		resized++
	}
	stack := cf.stack[:0]
	for _, ev := range evs {
		chain := cf.chain[:0]
		var p uint32
		if ev.node.isLeaf() {
			p = tr.lf[ev.node.idx()].parent
		} else {
			p = ev.node.idx()
		}
		for ; p != 0; p = tr.tn[p].parent {
			chain = append(chain, p)
		}
		slices.Reverse(chain)
		common := 0
		for common < len(stack) && common < len(chain) && stack[common] == chain[common] {
			common++
		}
		for len(stack) > common {
			leave(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, chain[common:]...)
		cf.chain = chain
		if ev.node.isLeaf() {
			l := ev.node.idx()
			tb.flushLeaf(tr.lf[l].parent, l, false, &c)
		}
	}
	for len(stack) > 0 {
		leave(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
	}
	cf.stack, cf.events = stack, evs[:0]

	// What the real walk counts: a descent into every tnode and a resize
	// of each (those run above counted themselves), every leaf and alias,
	// and every alias of this table.
	w := tr.work
	w.nodes += tnodes + tnodes - resized
	w.leaves += leaves
	w.aliases += aliases
	w.infos += infos
	w.leafInfos += infos
	t.Charge(sim.FibAliasRemove, c.found)
	return int(c.found)
}
