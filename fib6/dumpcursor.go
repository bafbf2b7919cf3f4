// dumpcursor.go follows a route dump that resumes from part to part,
// inet6_dump_fib with its walker kept between parts, fib6_dump_table,
// fib6_dump_node and fib6_dump_end (net/ipv6/ip6_fib.c).

package fib6

import "github.com/netsimlab/netsim/sim"

// Dump is a route dump in progress that resumes where its last part
// stopped, as inet6_dump_fib's does: a walker kept in the FIB between
// parts (cb->args[2]) and registered with it, so that deleting the node
// or route it stands at moves it on (fib6_del_route, fib6_repair_tree).
// When a table changed between parts (its root's serial number moved),
// the walk starts again at the root and skips as many nodes as it had
// dumped, as the kernel's does: a route added before the cursor then
// shifts the rest by one. The zero Dump is not usable: see FIB.NewDump.
type Dump struct {
	f      *FIB
	w      *walker
	fn     func(Route) bool
	now    sim.Time
	bucket int    // cb->args[0]: the hash bucket of the table being dumped
	entry  int    // cb->args[1]: the table's position in its bucket
	walk   bool   // cb->args[4]: the walker is in a table, registered
	sernum uint32 // cb->args[5]: the table's root serial number when it stopped
	done   bool
}

// NewDump starts a route dump.
//
// Kernel: inet6_dump_fib's first call (the walker's allocation).
func (f *FIB) NewDump() *Dump {
	d := &Dump{f: f}
	d.w = &walker{f: f, fn: d.node}
	return d
}

// Next calls fn for the routes of table id (0: every table, in hash
// order) from where the last call stopped, in dump order (a multipath
// route once, the null entry left out), until fn returns false or the
// routes run out. A route fn refused is offered again by the next call.
// It reports whether the dump is done, and then releases the walker.
//
// The nodes a restarted walk skips are charged as sim.TrieNodeVisit each
// (an estimate: entering one node of a tree and moving on, without
// looking at its routes); the routes dumped are not charged, as a
// whole-table listing's are not.
//
// Kernel: inet6_dump_fib, fib6_dump_table, fib6_dump_node
// (net/ipv6/ip6_fib.c).
func (d *Dump) Next(t *sim.Task, id uint32, fn func(Route) bool) (done bool) {
	if d.done {
		return true
	}
	f := d.f
	var tb *Table
	if id != 0 {
		if tb = f.getTable(id); tb == nil {
			d.Close()
			return true
		}
	}
	f.runTimers(t)
	d.fn, d.now = fn, t.Now()
	defer func() { d.fn = nil }()
	if tb != nil {
		if d.table(t, tb) > 0 {
			return false
		}
		d.Close()
		return true
	}
	for ; d.bucket < len(f.buckets); d.bucket, d.entry = d.bucket+1, 0 {
		e := 0
		for tb := f.buckets[d.bucket]; tb != nil; tb, e = tb.next, e+1 {
			if e < d.entry {
				continue
			}
			d.entry = e
			if d.table(t, tb) > 0 {
				return false
			}
		}
	}
	d.Close()
	return true
}

// table is fib6_dump_table: it walks tb from the start, or continues the
// walk it suspended. It returns 1 when fn refused a route (the walker
// then stays registered), 0 when the table is done.
func (d *Dump) table(t *sim.Task, tb *Table) int {
	w := d.w
	w.root = &tb.root
	if !d.walk {
		w.count, w.skip = 0, 0
		if res := d.f.walk(w); res > 0 {
			d.walk, d.sernum = true, tb.root.sernum
			return res
		}
		return 0
	}
	if d.sernum != tb.root.sernum {
		d.sernum = tb.root.sernum
		w.state, w.node, w.skip = fwsInit, w.root, w.count
		t.Charge(sim.TrieNodeVisit, int64(w.count))
	} else {
		w.skip = 0
	}
	res := w.walkContinue()
	if res <= 0 {
		d.f.unlinkWalker(w)
		d.walk = false
		return 0
	}
	return res
}

// node is fib6_dump_node: it offers the node's routes from the walker's
// leaf on, and suspends the walk at the route fn refuses.
func (d *Dump) node(w *walker) int {
	for rt := w.leaf; rt != nil; rt = rt.next {
		if rt != d.f.nullEntry && !d.fn(d.f.fill(d.now, rt)) {
			w.leaf = rt
			return 1
		}
		if rt.nsiblings > 0 {
			rt = rt.lastSibling()
		}
	}
	w.leaf = nil
	return 0
}

// Close ends the dump: the walker, if registered, leaves the FIB. A dump
// that is done is closed already; Close may be called again.
//
// Kernel: fib6_dump_end (net/ipv6/ip6_fib.c).
func (d *Dump) Close() {
	if d.walk {
		d.f.unlinkWalker(d.w)
		d.walk = false
	}
	d.done = true
}
