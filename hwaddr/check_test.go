package hwaddr

import (
	"strings"
	"testing"

	"github.com/netsimlab/netsim/sim"
)

// TestCheckListCatches breaks one invariant at a time and expects CheckList
// to report it.
func TestCheckListCatches(t *testing.T) {
	task := sim.MustNewWorld(sim.Options{}).NewTask("t")
	build := func(p Policy, counted bool) *List {
		l := NewList(p)
		l.SetCountedWalk(counted)
		for i := range 6 {
			if err := l.Add(task, Addr{0x33, 0x33, 0, 0, 0, byte(i)}, TypeMulticast); err != nil {
				t.Fatal(err)
			}
		}
		return l
	}
	for _, tc := range []struct {
		name    string
		policy  Policy
		counted bool
		breakIt func(l *List)
		want    string
	}{
		{"count", ListOnly, false, func(l *List) { l.count++ }, "count"},
		{"prev link", ListOnly, false, func(l *List) { l.head.next.prev = nil }, "prev link"},
		{"refcount", ListOnly, false, func(l *List) { l.head.refcount = 0 }, "refcount 0"},
		{"negative synced", ListOnly, false, func(l *List) { l.head.synced = -1 }, "negative"},
		{"key twice", ListOnly, false, func(l *List) { l.head.next.key = l.head.key }, "twice"},
		{"tail", ListOnly, false, func(l *List) { l.tail = l.head }, "tail"},
		{"tree order", TreeIndexed, false, func(l *List) { l.tree.root.key, l.tree.root.left.key = l.tree.root.left.key, l.tree.root.key }, "out of order"},
		{"tree color", TreeIndexed, false, func(l *List) { l.tree.root.red = true }, "root is red"},
		{"tree misses a node", TreeIndexed, false, func(l *List) { l.unlink(l.tail) }, "not the list"},
		{"ListOnly with a tree", ListOnly, false, func(l *List) { l.tree.root = l.head }, "has a tree"},
		{"walk index", ListOnly, true, func(l *List) { l.walk.live.add(l.head.seq, 1) }, "Fenwick"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := build(tc.policy, tc.counted)
			if err := CheckList(l); err != nil {
				t.Fatalf("before breaking: %v", err)
			}
			tc.breakIt(l)
			err := CheckList(l)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckList = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
