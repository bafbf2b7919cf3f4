// dump.go is a route dump that resumes from a cursor, one part at a time:
// inet_dump_fib (net/ipv4/fib_frontend.c) and fib_table_dump /
// fn_trie_dump_leaf (net/ipv4/fib_trie.c).

package fib

import "github.com/netsimlab/netsim/sim"

// DumpCursor is where a route dump stopped, as inet_dump_fib keeps it in
// cb->args. It holds keys and positions, never a pointer into the trie,
// so that a dump resumes correctly whatever changed between its parts: a
// leaf added before the cursor is not seen, one removed after it is not
// missed. The zero DumpCursor is the start of a dump.
type DumpCursor struct {
	Bucket int    // cb->args[0]: the hash bucket of the table being dumped
	Entry  int    // cb->args[1]: the table's position in its bucket
	Count  int    // cb->args[2]: leaves of the table dumped so far
	Key    uint32 // cb->args[3]: the leaf walk resumes at the first leaf with a key at least this
	Alias  int    // cb->args[4]: aliases of that leaf already passed (those of every table)
	Done   bool   // every table is dumped
}

// Dump calls fn for the routes of table id (0: every table, in hash
// order) from cursor c on, in dump order, until fn returns false or the
// routes run out, and advances c past the routes fn took. A route fn
// refused is offered again by the next call. It reports whether the dump
// is done.
//
// A part that resumes from a cursor walks down from the trie's root to
// the leaf it resumes at (leaf_walk_rcu from t->kv): each tnode entered is
// charged as a sim.TrieNodeVisit. The leaves walked are not charged, as a
// whole-table listing's are not.
//
// Kernel: inet_dump_fib (net/ipv4/fib_frontend.c), fib_table_dump,
// fn_trie_dump_leaf (net/ipv4/fib_trie.c).
func (f *FIB) Dump(t *sim.Task, id uint32, c *DumpCursor, fn func(Route) bool) (done bool) {
	if c.Done {
		return true
	}
	if id != 0 {
		if tb := f.Table(id); tb != nil && !tb.dump(t, c, fn) {
			return false
		}
		c.Done = true
		return true
	}
	dumped := false
	for ; c.Bucket < len(f.buckets); c.Bucket, c.Entry = c.Bucket+1, 0 {
		b := f.buckets[c.Bucket]
		for ; c.Entry < len(b); c.Entry++ {
			if dumped {
				c.Count, c.Key, c.Alias = 0, 0, 0
			}
			if !b[c.Entry].dump(t, c, fn) {
				return false
			}
			dumped = true
		}
	}
	c.Done = true
	return true
}

// dump is fib_table_dump: tb's routes from the leaf at c.Key on. It
// reports false when fn refused a route, c then pointing at it.
func (tb *Table) dump(t *sim.Task, c *DumpCursor, fn func(Route) bool) bool {
	if c.Count != 0 && c.Key == 0 {
		return true // the walk wrapped past 255.255.255.255
	}
	tr := tb.t
	key := c.Key
	resumed := c.Count != 0 || c.Key != 0 || c.Alias != 0
	var pn uint32
	for {
		l := tr.leafWalk(&pn, key)
		if l == 0 {
			break
		}
		if resumed {
			t.Charge(sim.TrieNodeVisit, int64(tr.depth(pn)))
			resumed = false
		}
		lk := tr.lf[l].key
		i := 0
		for a := tr.lf[l].head; a != 0; a, i = tr.al(a).next, i+1 {
			if i < c.Alias || tr.al(a).tbID != tb.id {
				continue
			}
			if !fn(tb.route(lk, tr.al(a))) {
				c.Key, c.Alias = key, i
				return false
			}
		}
		c.Alias = 0
		c.Count++
		key = lk + 1
		if key < lk {
			break
		}
	}
	c.Key = key
	return true
}

// depth is the number of key vectors a walk from the trie (tnode 0) down
// to a child of tnode p enters: the trie's, and the tnodes from the root
// to p.
func (t *trie) depth(p uint32) int {
	n := 1
	for ; p != 0; p = t.tn[p].parent {
		n++
	}
	return n
}
