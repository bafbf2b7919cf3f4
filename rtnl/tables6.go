// The IPv6 tables as the IPv6 policy rules see them. With Config.Rules =
// LockPerOps a rule request holds the rules' own lock and not RTNL, yet
// creates its table (fib6_new_table) and walks every table
// (fib6_flush_trees), while the FIB itself is RTNL's. The rules therefore
// record the tables they create here, under a lock of their own, and the
// next request that holds RTNL creates them in the FIB before anything
// else can see it; the count they walk is the FIB's as of the last RTNL
// request, plus the tables created since. The kernel guards its table
// hash with fib_table_hash_lock for the same reason.

package rtnl

import (
	"sync"
	"sync/atomic"

	"github.com/netsimlab/netsim/sim"
)

type tables6 struct {
	mu sync.Mutex
	// known are the ids created by a rule, main and local.
	// +checklocks:mu
	known tableSet
	// pending are the ids created by a rule, not yet in the FIB.
	// +checklocks:mu
	pending []uint32
	count   atomic.Int64
	// synced is the FIB's table count at the last syncTables6.
	// +checklocks:mu
	synced int
}

// ruleNewTable6 is the IPv6 rules' fib6_new_table: the first rule for a
// table creates it (and pays for it).
//
// Kernel: fib6_rule_configure → fib6_new_table (net/ipv6/fib6_rules.c,
// ip6_fib.c).
func (n *Net) ruleNewTable6(t *sim.Task, id uint32) error {
	n.tables6.mu.Lock()
	defer n.tables6.mu.Unlock()
	if n.tables6.known.add(id) {
		t.Charge(sim.Fib6NewTable, 1)
		n.tables6.pending = append(n.tables6.pending, id)
		n.tables6.count.Add(1)
	}
	return nil
}

// syncTables6 creates in the FIB the tables rules created, and takes the
// FIB's table count (routes create tables too). The caller holds RTNL.
func (n *Net) syncTables6() {
	n.tables6.mu.Lock()
	defer n.tables6.mu.Unlock()
	if len(n.tables6.pending) == 0 && n.fib6.TableCount() == n.tables6.synced {
		return // nothing new since the last sync: count is synced already
	}
	for _, id := range n.tables6.pending {
		n.fib6.NewTable(nil, id) // charged by the rule
	}
	n.tables6.pending = n.tables6.pending[:0]
	// Tables that routes (or addrconf) created since the last sync are
	// known too: fib6_new_table finds them and creates nothing.
	for _, id := range n.fib6.TablesSince(n.tables6.synced) {
		n.tables6.known.add(id)
	}
	n.tables6.synced = n.fib6.TableCount()
	n.tables6.count.Store(int64(n.tables6.synced))
}

// tableSet is a set of FIB table ids: a bitmap for the small ids that
// tables almost always have, a map for the others.
type tableSet struct {
	small []uint64
	large map[uint32]bool
}

const tableSetSmall = 1 << 16

// add adds id and reports whether it was new.
func (s *tableSet) add(id uint32) bool {
	if id >= tableSetSmall {
		if s.large[id] {
			return false
		}
		if s.large == nil {
			s.large = make(map[uint32]bool)
		}
		s.large[id] = true
		return true
	}
	w, bit := int(id/64), uint64(1)<<(id%64)
	if w >= len(s.small) {
		s.small = append(s.small, make([]uint64, w+1-len(s.small))...)
	}
	if s.small[w]&bit != 0 {
		return false
	}
	s.small[w] |= bit
	return true
}
