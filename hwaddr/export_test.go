package hwaddr

import (
	"github.com/netsimlab/netsim/sim"
)

// AddDistinct appends a fresh entry (refcount 1) for each address, which the
// caller promises are distinct and not in l, without the search Add would do
// and without counting work: it builds a 10⁵-entry ListOnly list in O(n)
// rather than O(n²).
func AddDistinct(l *List, typ Type, addrs ...Addr) {
	for _, a := range addrs {
		n := &node{key: makeKey(a, typ), refcount: 1}
		if l.policy == TreeIndexed {
			c := l.compares
			found, parent, left := l.treeFindExact(n.key)
			l.compares = c
			if found != nil {
				panic("AddDistinct: " + found.entry().String() + " already in the list")
			}
			l.tree.link(n, parent, left)
		}
		l.pushBack(n)
	}
}

// TreeHeight returns the height of a TreeIndexed list's tree (0 when empty).
func TreeHeight(l *List) int { return height(l.tree.root) }

func height(n *node) int {
	if n == nil {
		return 0
	}
	return 1 + max(height(n.left), height(n.right))
}

// SeqState returns a counted-walk list's sequence space and the sequence
// number its next entry gets (zeros when counted walks are off). The next
// number drops when the list renumbers.
func SeqState(l *List) (space, next int) {
	if l.walk == nil {
		return 0, 0
	}
	return len(l.walk.live), l.walk.next
}

// WatchCharges makes every charge of the package call f instead of
// (*sim.Task).ChargeIn, until the returned function restores it.
func WatchCharges(f func(t *sim.Task, k sim.Kind, n int64, fp sim.Footprint)) (restore func()) {
	old := chargeFn
	chargeFn = f
	return func() { chargeFn = old }
}
