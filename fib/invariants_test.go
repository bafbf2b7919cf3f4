package fib

import (
	"fmt"
)

// resizable counts the tnodes of a trie whose shape CheckInvariants has
// verified that would still inflate or halve (the kernel does not promise there are none:
// max_work, resizing only the path of a change, and collapses that make a
// tnode the root can leave some). The root is exempt: a tnode that becomes
// the root when its parent collapses is not resized again.
func (t *trie) resizable() (inflatable, halvable int) {
	var walk func(r ref, parent uint32)
	walk = func(r ref, parent uint32) {
		if r == 0 || r.isLeaf() {
			return
		}
		i := r.idx()
		if parent != 0 && t.shouldInflate(parent, i) {
			inflatable++
		}
		if parent != 0 && t.shouldHalve(parent, i) {
			halvable++
		}
		for c := uint32(0); c < 1<<t.tn[i].bits; c++ {
			walk(t.kid(&t.tn[i], c), i)
		}
	}
	walk(t.root(), 0)
	return inflatable, halvable
}

// check is CheckInvariants plus: no tnode is left that resize would
// inflate or halve.
func (f *FIB) check() error {
	if err := f.CheckInvariants(); err != nil {
		return err
	}
	seen := make(map[*trie]bool)
	for _, tb := range f.Tables() {
		if seen[tb.t] {
			continue
		}
		seen[tb.t] = true
		infl, halv := tb.t.resizable()
		if infl+halv > 0 {
			return fmt.Errorf("table %d: %d tnodes should inflate, %d should halve", tb.id, infl, halv)
		}
	}
	return nil
}
