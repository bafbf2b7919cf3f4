package hwaddr

import (
	"fmt"

	"github.com/netsimlab/netsim/sim"
)

// CheckList verifies the list's structural invariants; see checkList.
var CheckList = checkList

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

// checkList verifies that the list links agree with each other and with the
// count, and, for TreeIndexed, that the tree is a valid red-black tree holding
// exactly the list's nodes in key order with no key twice. ListOnly lists must
// have no tree.
func checkList(l *List) error {
	inList := make(map[*node]bool, l.count)
	var prev *node
	n := 0
	for x := l.head; x != nil; x = x.next {
		if x.prev != prev {
			return fmt.Errorf("node %d (%s): prev link broken", n, x.entry())
		}
		if inList[x] {
			return fmt.Errorf("node %d (%s): list has a cycle", n, x.entry())
		}
		if x.refcount <= 0 {
			return fmt.Errorf("node %d (%s): refcount %d in list", n, x.entry(), x.refcount)
		}
		inList[x] = true
		prev = x
		n++
	}
	if prev != l.tail {
		return fmt.Errorf("tail does not end the list")
	}
	if n != l.count {
		return fmt.Errorf("count %d, list has %d nodes", l.count, n)
	}
	if l.policy != TreeIndexed {
		if l.tree.root != nil {
			return fmt.Errorf("%s list has a tree", l.policy)
		}
		if l.walk != nil {
			return checkWalkIndex(l)
		}
		return nil
	}
	if l.walk != nil {
		return fmt.Errorf("%s list has a counted-walk index", l.policy)
	}

	root := l.tree.root
	if root != nil && (root.red || root.parent != nil) {
		return fmt.Errorf("root is red or has a parent")
	}
	seen := 0
	var last *node
	var walk func(x *node) (blackHeight int, err error)
	walk = func(x *node) (int, error) {
		if x == nil {
			return 1, nil
		}
		if x.left != nil && x.left.parent != x || x.right != nil && x.right.parent != x {
			return 0, fmt.Errorf("node %s: child's parent link broken", x.entry())
		}
		if x.red && (!isBlack(x.left) || !isBlack(x.right)) {
			return 0, fmt.Errorf("node %s: red node with a red child", x.entry())
		}
		lh, err := walk(x.left)
		if err != nil {
			return 0, err
		}
		if last != nil && last.key >= x.key {
			return 0, fmt.Errorf("node %s: out of order after %s", x.entry(), last.entry())
		}
		last = x
		if !inList[x] {
			return 0, fmt.Errorf("node %s: in the tree but not the list", x.entry())
		}
		seen++
		rh, err := walk(x.right)
		if err != nil {
			return 0, err
		}
		if lh != rh {
			return 0, fmt.Errorf("node %s: black heights %d and %d differ", x.entry(), lh, rh)
		}
		if !x.red {
			lh++
		}
		return lh, nil
	}
	if _, err := walk(root); err != nil {
		return err
	}
	if seen != l.count {
		return fmt.Errorf("tree has %d nodes, list %d", seen, l.count)
	}
	return nil
}

// checkWalkIndex verifies a counted-walk index against the list: sequence
// numbers increase along the list and stay below the next one to be given; the
// Fenwick tree has a 1 at exactly those numbers; every address's chain holds
// exactly its entries, in list order.
func checkWalkIndex(l *List) error {
	w := l.walk
	if w.next > len(w.live) {
		return fmt.Errorf("next sequence number %d outside the space of %d", w.next, len(w.live))
	}
	bits := make([]int32, len(w.live))
	byAddr := map[uint64][]*node{}
	last := -1
	for x := l.head; x != nil; x = x.next {
		if x.seq <= last || x.seq >= w.next {
			return fmt.Errorf("node %s: sequence number %d after %d, next %d", x.entry(), x.seq, last, w.next)
		}
		last = x.seq
		bits[x.seq] = 1
		byAddr[x.key>>8] = append(byAddr[x.key>>8], x)
	}
	want := 0
	for i, b := range bits {
		if got := w.live.prefix(i); got != want {
			return fmt.Errorf("Fenwick prefix(%d) = %d, want %d", i, got, want)
		}
		want += int(b)
	}
	if got := w.live.prefix(len(bits)); got != want {
		return fmt.Errorf("Fenwick total %d, want %d", got, want)
	}
	if len(w.byAddr) != len(byAddr) {
		return fmt.Errorf("index has %d addresses, list %d", len(w.byAddr), len(byAddr))
	}
	for a, want := range byAddr {
		i := 0
		for x := w.byAddr[a]; x != nil; x = x.sameAddr {
			if i >= len(want) || x != want[i] {
				return fmt.Errorf("address %s: chain entry %d is %s", addrFromUint48(a), i, x.entry())
			}
			i++
		}
		if i != len(want) {
			return fmt.Errorf("address %s: chain has %d entries, list %d", addrFromUint48(a), i, len(want))
		}
	}
	return nil
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
// (*sim.Task).Charge, until the returned function restores it.
func WatchCharges(f func(t *sim.Task, k sim.Kind, n int64)) (restore func()) {
	old := chargeFn
	chargeFn = f
	return func() { chargeFn = old }
}
