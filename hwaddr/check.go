// Invariant checking for address lists, for tests of this package and of
// the packages built on it: the kernel has no counterpart (its lists are
// trusted), but its refcount rules in net/core/dev_addr_lists.c are what the
// checks state.

package hwaddr

import "fmt"

// CheckList verifies a list's structural invariants and returns the first
// broken one: the list links agree with each other and with Len; every entry
// holds a reference (Refcount > 0) and has non-negative Synced and SyncCnt;
// no (address, type) is in the list twice. For TreeIndexed, the tree is a valid
// red-black tree holding exactly the list's entries in key order; a ListOnly
// list has no tree, and with counted walks its index agrees with the list.
//
// CheckList only reads the list. It is meant for tests, after every
// operation; it takes O(n log n) time.
func CheckList(l *List) error {
	if l == nil {
		return fmt.Errorf("nil list")
	}
	inList := make(map[*node]bool, l.count)
	keys := make(map[uint64]bool, l.count)
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
		if err := checkCounts(x); err != nil {
			return fmt.Errorf("node %d (%s): %w", n, x.entry(), err)
		}
		if keys[x.key] {
			return fmt.Errorf("node %d (%s): key twice in the list", n, x.entry())
		}
		keys[x.key] = true
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

// checkCounts verifies one entry's reference counts. Only signs can be
// checked: the kernel's counts are plain counters (a plain delete may take
// the reference a sync or the global user took), so the sync counts need
// not add up to Refcount.
func checkCounts(x *node) error {
	if x.synced < 0 || x.syncCnt < 0 {
		return fmt.Errorf("negative synced %d or sync_cnt %d", x.synced, x.syncCnt)
	}
	return nil
}
