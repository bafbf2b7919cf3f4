// The red-black tree of TreeIndexed lists: the algorithm of lib/rbtree.c
// (rb_insert_color, rb_erase), which is the textbook one of Cormen, Leiserson,
// Rivest and Stein, "Introduction to Algorithms", chapter 13, with the
// erased node's successor taking its place.
//
// The tree is intrusive: its links live in the same node as the list links,
// as struct rb_node lives in struct netdev_hw_addr. Searching is not here but
// in list.go, because it is where the work is counted.

package hwaddr

// rbtree is the root of a red-black tree of nodes ordered by key. The zero
// rbtree is empty.
//
// Invariants (checked by checkTree in the package's tests): the root is black;
// a red node has no red child; every path from a node down to a missing child
// passes the same number of black nodes. Together they bound the height by
// 2·log2(n+1).
type rbtree struct {
	root *node
}

// link attaches n, which must be unlinked, as the left or right child of
// parent (the place where a search for n.key ended; nil for an empty tree) and
// rebalances: rb_link_node followed by rb_insert_color.
func (t *rbtree) link(n, parent *node, left bool) {
	n.parent, n.left, n.right, n.red = parent, nil, nil, true
	switch {
	case parent == nil:
		t.root = n
	case left:
		parent.left = n
	default:
		parent.right = n
	}
	t.insertFixup(n)
}

// insertFixup restores the invariants after n was linked red.
func (t *rbtree) insertFixup(n *node) {
	for n.parent != nil && n.parent.red {
		p := n.parent
		g := p.parent // exists: a red node is never the root
		if p == g.left {
			if u := g.right; u != nil && u.red {
				// Red uncle: push the grandparent's blackness down, go up two.
				p.red, u.red, g.red = false, false, true
				n = g
				continue
			}
			if n == p.right {
				t.rotateLeft(p)
				n, p = p, n
			}
			p.red, g.red = false, true
			t.rotateRight(g)
		} else {
			if u := g.left; u != nil && u.red {
				p.red, u.red, g.red = false, false, true
				n = g
				continue
			}
			if n == p.left {
				t.rotateRight(p)
				n, p = p, n
			}
			p.red, g.red = false, true
			t.rotateLeft(g)
		}
	}
	t.root.red = false
}

// erase unlinks n from the tree and rebalances: rb_erase. A node with two
// children is replaced by its successor, the leftmost node of its right subtree.
func (t *rbtree) erase(n *node) {
	var x, xParent *node // the node that moved into the removed position, and its parent
	removedRed := n.red
	switch {
	case n.left == nil:
		x, xParent = n.right, n.parent
		t.transplant(n, n.right)
	case n.right == nil:
		x, xParent = n.left, n.parent
		t.transplant(n, n.left)
	default:
		s := n.right
		for s.left != nil {
			s = s.left
		}
		removedRed = s.red
		x = s.right
		if s.parent == n {
			xParent = s
		} else {
			xParent = s.parent
			t.transplant(s, s.right)
			s.right = n.right
			s.right.parent = s
		}
		t.transplant(n, s)
		s.left = n.left
		s.left.parent = s
		s.red = n.red
	}
	n.left, n.right, n.parent = nil, nil, nil
	if !removedRed {
		t.eraseFixup(x, xParent)
	}
}

// eraseFixup restores the black heights after a black node was removed from
// above x (which may be nil, hence xParent).
func (t *rbtree) eraseFixup(x, xParent *node) {
	for x != t.root && (x == nil || !x.red) {
		if x == xParent.left {
			w := xParent.right // exists: x's side is one black short
			if w.red {
				w.red, xParent.red = false, true
				t.rotateLeft(xParent)
				w = xParent.right
			}
			if isBlack(w.left) && isBlack(w.right) {
				w.red = true
				x, xParent = xParent, xParent.parent
				continue
			}
			if isBlack(w.right) {
				w.left.red, w.red = false, true
				t.rotateRight(w)
				w = xParent.right
			}
			w.red, xParent.red = xParent.red, false
			w.right.red = false
			t.rotateLeft(xParent)
			x = t.root
		} else {
			w := xParent.left
			if w.red {
				w.red, xParent.red = false, true
				t.rotateRight(xParent)
				w = xParent.left
			}
			if isBlack(w.left) && isBlack(w.right) {
				w.red = true
				x, xParent = xParent, xParent.parent
				continue
			}
			if isBlack(w.left) {
				w.right.red, w.red = false, true
				t.rotateLeft(w)
				w = xParent.left
			}
			w.red, xParent.red = xParent.red, false
			w.left.red = false
			t.rotateRight(xParent)
			x = t.root
		}
	}
	if x != nil {
		x.red = false
	}
}

func isBlack(n *node) bool { return n == nil || !n.red }

// transplant puts v (possibly nil) where u hangs from u's parent.
func (t *rbtree) transplant(u, v *node) {
	switch {
	case u.parent == nil:
		t.root = v
	case u == u.parent.left:
		u.parent.left = v
	default:
		u.parent.right = v
	}
	if v != nil {
		v.parent = u.parent
	}
}

func (t *rbtree) rotateLeft(x *node) {
	y := x.right
	x.right = y.left
	if y.left != nil {
		y.left.parent = x
	}
	t.transplant(x, y)
	y.left = x
	x.parent = y
}

func (t *rbtree) rotateRight(x *node) {
	y := x.left
	x.left = y.right
	if y.right != nil {
		y.right.parent = x
	}
	t.transplant(x, y)
	y.right = x
	x.parent = y
}
