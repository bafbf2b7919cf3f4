// table.go follows struct netns_nexthop and the request handlers of
// net/ipv4/nexthop.c: the id tree, id allocation (nh_find_unused_id),
// rtm_new_nexthop / nexthop_add / insert_nexthop, rtm_del_nexthop,
// nh_netdev_event / nexthop_flush_dev and flush_all_nexthops.

package nexthop

import (
	"net/netip"
	"syscall"

	"github.com/google/btree"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Table is one network namespace's nexthops, net->nexthop: the objects by id
// in an ordered tree (the kernel's rbtree; a B-tree here), the per-device
// hash of single nexthops, the last automatically allocated id, and the
// seed 000 flush Policy.
//
// A Table has no lock of its own: like net->nexthop it is guarded by RTNL,
// which its user (package rtnl) holds around every call. The zero Table is
// not usable; create one with NewTable.
type Table struct {
	policy   Policy
	check    GatewayScopeChecker
	loopback *netdev.Device // the namespace's loopback, when known (SetLoopback)

	tree            *btree.BTreeG[treeItem] // nexthops by id (net->nexthop.rb_root)
	devhash         [devHashSize]devBucket  // single nexthops by device (net->nexthop.devhash)
	lastIDAllocated uint32                  // net->nexthop.last_id_allocated

	// dense mirrors the tree for ids below denseMax: dense[id] is the
	// nexthop with that id, or nil. Get answers from it without a tree
	// descent; ids at or above len(dense) but below denseMax are absent.
	// Only newNexthop (insertion) and removal.removeNexthop (deletion)
	// change the tree, and each updates dense beside it; replace keeps the
	// *Nexthop in place. It never shrinks.
	dense []*Nexthop

	// clock is the latest virtual time a request brought (the kernel's
	// jiffies; it never goes back); resTables are the live resilient
	// groups' tables, whose upkeep runs when clock reaches its deadline.
	clock     sim.Time
	resTables []*resTable

	buckets BucketAnnouncer // told of the upkeep work's migrations

	// seq is net->nexthop.seq, moved by every insertion, replacement and
	// removal: a dump's consistency check (Seq).
	seq uint32

	// upkeepDue is, when upkeepQueued, no later than the earliest queued
	// upkeep deadline (in jiffies); a cancelled upkeep may leave it early.
	// Requests before it skip the scan of resTables. upkeepQueued is false
	// when no upkeep is queued.
	upkeepDue    int64
	upkeepQueued bool
}

// denseMax bounds the ids the dense index covers (8 MB of pointers at most).
const denseMax = 1 << 20

// denseSet records nh (or nil) as the nexthop with the given id in the
// dense index.
func (tb *Table) denseSet(id ID, nh *Nexthop) {
	if id >= denseMax {
		return
	}
	if int(id) >= len(tb.dense) {
		if nh == nil {
			return
		}
		n := min(max(int(id)+1, 2*len(tb.dense), 64), denseMax)
		tb.dense = append(tb.dense, make([]*Nexthop, n-len(tb.dense))...)
	}
	tb.dense[id] = nh
}

// treeItem is a tree entry; a value type so that looking an id up allocates
// nothing.
type treeItem struct {
	id ID
	nh *Nexthop
}

func lessItem(a, b treeItem) bool { return a.id < b.id }

// NewTable returns an empty nexthop table that flushes the FIB per policy p.
// A Policy value other than FlushPerNexthop behaves as FlushDeferred.
//
// Kernel: nexthop_net_init (net/ipv4/nexthop.c).
func NewTable(p Policy) *Table {
	return &Table{policy: p, tree: btree.NewG(64, lessItem)}
}

// SetGatewayChecker sets the function that validates a new single
// nexthop's gateway (the FIB's fib_check_nh, or fib6_nh_init). It is
// called, after every check of the request itself, for single nexthops
// with a gateway and for every single IPv6 nexthop but a blackhole or an
// fdb nexthop (whose gateway is then invalid). With no checker every
// gateway is accepted. A gateway so checked is link scope;
// SetGatewayScopeChecker sets a checker that gives the scope too.
func (tb *Table) SetGatewayChecker(c GatewayChecker) {
	tb.check = func(t *sim.Task, family rt.Family, gw netip.Addr, dev *netdev.Device, onlink bool) (uint8, error) {
		return scopeLink, c(t, family, gw, dev, onlink)
	}
}

// SetGatewayScopeChecker is SetGatewayChecker with a checker that also sets
// the nexthop's scope, as fib_check_nh sets nhc_scope from the route that
// reaches the gateway. It replaces any checker set before.
func (tb *Table) SetGatewayScopeChecker(c GatewayScopeChecker) { tb.check = c }

// SetLoopback tells the table its namespace's loopback device, on which the
// kernel puts blackhole nexthops: a blackhole is then refused with ENETDOWN
// while loopback is down, as fib_check_nh_nongw (IPv4) and fib6_nh_init
// (IPv6) refuse it. Without it blackholes are not checked.
func (tb *Table) SetLoopback(lo *netdev.Device) { tb.loopback = lo }

// Policy returns the table's flush policy.
func (tb *Table) Policy() Policy { return tb.policy }

// Get returns the nexthop with the given id, or nil.
//
// Kernel: nexthop_find_by_id (net/ipv4/nexthop.c).
func (tb *Table) Get(id ID) *Nexthop {
	if id < denseMax {
		if int(id) < len(tb.dense) {
			return tb.dense[id]
		}
		return nil
	}
	it, ok := tb.tree.Get(treeItem{id: id})
	if !ok {
		return nil
	}
	return it.nh
}

// List returns every nexthop in id order, as a dump walks the tree.
func (tb *Table) List() []*Nexthop {
	l := make([]*Nexthop, 0, tb.tree.Len())
	tb.tree.Ascend(func(it treeItem) bool {
		l = append(l, it.nh)
		return true
	})
	return l
}

// From calls fn for the nexthops whose id is at least id, by id, until
// fn returns false: a dump resuming at its cursor (rtm_dump_walk_nexthops,
// which starts from the tree's first node and skips the smaller ids; a
// B-tree descends to the cursor instead).
func (tb *Table) From(id ID, fn func(*Nexthop) bool) {
	tb.tree.AscendGreaterOrEqual(treeItem{id: id}, func(it treeItem) bool { return fn(it.nh) })
}

// Len returns the number of nexthops in the table.
func (tb *Table) Len() int { return tb.tree.Len() }

// findUnusedID returns the id after the last one allocated that is free,
// wrapping around; 0 when none is. As in the kernel, the search that wraps
// past 0xffffffff lands on 0, which is never in the tree, and fails once.
//
// Kernel: nh_find_unused_id (net/ipv4/nexthop.c).
func (tb *Table) findUnusedID() ID {
	start := tb.lastIDAllocated
	for {
		tb.lastIDAllocated++
		if tb.lastIDAllocated == start {
			return 0
		}
		if tb.Get(ID(tb.lastIDAllocated)) == nil {
			return ID(tb.lastIDAllocated)
		}
	}
}

// Add adds a nexthop object, like `ip nexthop add` (RTM_NEWNEXTHOP with
// NLM_F_CREATE|NLM_F_EXCL): a single nexthop (Gateway and/or Dev, or
// Blackhole) or a group of existing single nexthops. Config.ID 0 allocates
// the id after the last one allocated. An existing id is refused with
// EEXIST.
//
// cfg has passed the checks that need no state (rtm_to_nh_config's, which
// package rtnl makes on the request: see Config); the table makes those
// that need it. Errors are *errno.Error with the kernel's errno and
// extack message; a refused request leaves the table as it was, except
// that an id allocated before a failing gateway check stays consumed, as
// in the kernel.
//
// Kernel: rtm_new_nexthop, nexthop_add, insert_nexthop (net/ipv4/nexthop.c).
func (tb *Table) Add(t *sim.Task, cfg Config) (*Nexthop, error) {
	defer t.Frame("rtm_new_nexthop")()
	return tb.newNexthop(t, cfg, false, true)
}

// Replace replaces the nexthop with cfg.ID in place, like `ip nexthop
// replace` (NLM_F_CREATE|NLM_F_REPLACE), and adds it when the id does not
// exist. The FIB entries using the nexthop keep using it: they see the new
// definition through the same *Nexthop, and the kernel neither marks them
// dead nor flushes, so f is not called (users implementing UpdateNotifier
// are told). A replace is refused with EINVAL when it would turn a single
// nexthop into a group or back, put a blackhole into a multipath group,
// or give a route (ScopedFIBUser) a nexthop its scope does not allow.
//
// Kernel: insert_nexthop, replace_nexthop, replace_nexthop_single,
// replace_nexthop_grp (net/ipv4/nexthop.c).
func (tb *Table) Replace(t *sim.Task, cfg Config, f Flusher) (*Nexthop, error) {
	defer t.Frame("replace_nexthop")()
	_ = f // replace never flushes the FIB; kept for the contract
	return tb.newNexthop(t, cfg, true, true)
}

// Insert is RTM_NEWNEXTHOP with any flags: without replace (NLM_F_REPLACE)
// it is Add, whatever create says (the kernel adds a nexthop without
// NLM_F_CREATE and refuses an existing id with EEXIST even without
// NLM_F_EXCL); with replace it is Replace, except that without create
// (NLM_F_CREATE) an id that does not exist is refused with ENOENT. That
// refusal comes after every check of the new nexthop's definition (its
// device, gateway, group members), as the kernel builds the nexthop
// before it looks its id up, and before a new resilient group's check
// for its number of buckets.
//
// Kernel: nexthop_add, insert_nexthop (net/ipv4/nexthop.c).
func (tb *Table) Insert(t *sim.Task, cfg Config, replace, create bool) (*Nexthop, error) {
	return tb.newNexthop(t, cfg, replace, create)
}

func (tb *Table) newNexthop(t *sim.Task, cfg Config, replace, create bool) (*Nexthop, error) {
	nh, err := tb.newNexthopSeq(t, cfg, replace, create)
	if err == nil {
		tb.seq++ // nh_base_seq_inc
	}
	return nh, err
}

// Seq returns the table's generation, which every insertion, replacement
// and removal of a nexthop moves: the cb->seq of a nexthop dump's
// consistency check.
//
// Kernel: net->nexthop.seq, nh_base_seq_inc (net/ipv4/nexthop.c).
func (tb *Table) Seq() uint32 { return tb.seq }

func (tb *Table) newNexthopSeq(t *sim.Task, cfg Config, replace, create bool) (*Nexthop, error) {
	tb.advance(t)
	c, err := tb.parseConfig(cfg)
	if err != nil {
		return nil, err
	}
	if replace && cfg.ID == 0 {
		return nil, einval("Replace requires nexthop id")
	}
	id := cfg.ID
	if id == 0 {
		if id = tb.findUnusedID(); id == 0 {
			return nil, einval("No unused id")
		}
	}
	cand, err := tb.create(t, c, id)
	if err != nil {
		return nil, err
	}
	t.Charge(sim.NexthopAdd, 1)

	// insert_nexthop: one descent of the tree inserts the new nexthop or
	// finds the existing one, which goes straight back.
	if prev, found := tb.tree.ReplaceOrInsert(treeItem{id: id, nh: cand}); found {
		tb.tree.ReplaceOrInsert(prev)
		old := prev.nh
		if !replace {
			return nil, errno.New(syscall.EEXIST, "")
		}
		if err := tb.replaceNexthop(t, old, cand); err != nil {
			return nil, err
		}
		return old, nil
	}
	if replace && !create {
		tb.tree.Delete(treeItem{id: id})
		return nil, errno.New(syscall.ENOENT, "Replace specified without create and no entry exists")
	}
	if cand.IsResilient() {
		if err := tb.insertRes(cand); err != nil {
			tb.tree.Delete(treeItem{id: id})
			return nil, err
		}
		tb.resTables = append(tb.resTables, cand.grp.res)
	}
	tb.denseSet(id, cand)
	tb.link(cand)
	return cand, nil
}

// link links a nexthop just inserted in the tree: a single nexthop into
// the device hash, a group's entries onto its members.
func (tb *Table) link(nh *Nexthop) {
	if nh.grp != nil {
		linkEntries(nh.grp)
	} else {
		tb.devhashAdd(nh)
	}
}

// Del removes the nexthop with the given id, like `ip nexthop del id ID`,
// and what its removal implies: the FIB entries using it are marked dead,
// it leaves the groups it is in, and a group left without members is
// removed too. The FIB is flushed per the Policy: after each removed
// nexthop that had FIB users (FlushPerNexthop), or once at the end if any
// had (FlushDeferred). Id 0 is refused with EINVAL ("Invalid nexthop id"),
// an unknown id with a bare ENOENT: rtm_del_nexthop sets no message.
//
// Kernel: rtm_del_nexthop, remove_one_nexthop (net/ipv4/nexthop.c).
func (tb *Table) Del(t *sim.Task, id ID, f Flusher) error {
	defer t.Frame("rtm_del_nexthop")()
	if id == 0 {
		return einval("Invalid nexthop id")
	}
	tb.advance(t)
	nh := tb.Get(id)
	if nh == nil {
		return errno.New(syscall.ENOENT, "")
	}
	op := tb.newRemoval(t, f)
	op.flushIf(op.removeNexthop(nh))
	return nil
}

// FlushDev removes every nexthop that uses dev when dev goes down, loses its
// carrier or is unregistered — the nexthop notifier's reaction to ev:
// EventDown and EventUnregister always flush; EventChange flushes when dev
// is neither running nor has carrier (dev_get_flags without IFF_RUNNING
// and IFF_LOWER_UP); other events do nothing. Blackholes, which the kernel
// puts on loopback, leave only when loopback is unregistered.
//
// Nexthops are removed newest first (the device hash links at the head),
// with the cascade Del describes. With FlushPerNexthop the FIB is flushed
// after every removed nexthop that had FIB users — N flushes for N
// nexthops with routes, the O(N×R) of seed 000; with FlushDeferred once at
// the end.
//
// Kernel: nh_netdev_event, nexthop_flush_dev (net/ipv4/nexthop.c).
func (tb *Table) FlushDev(t *sim.Task, dev *netdev.Device, ev netdev.Event, f Flusher) {
	defer t.Frame("nexthop_flush_dev")()
	if dev == nil {
		return
	}
	switch ev {
	case netdev.EventDown, netdev.EventUnregister:
	case netdev.EventChange:
		// dev_get_flags: IFF_RUNNING when up and operationally up (UP or
		// UNKNOWN), IFF_LOWER_UP when up with carrier.
		running := dev.IsUp() && (dev.OperState() == netdev.OperUp || dev.OperState() == netdev.OperUnknown)
		lowerUp := dev.IsUp() && dev.Carrier()
		if running || lowerUp {
			return
		}
	default:
		return
	}
	tb.flushDev(t, dev, ev, f)
}

// flushDev models nexthop_flush_dev.
func (tb *Table) flushDev(t *sim.Task, dev *netdev.Device, ev netdev.Event, f Flusher) {
	tb.advance(t)
	op := tb.newRemoval(t, f)
	need := false
	b := &tb.devhash[devHashFn(dev.Index())]
	visits := int64(0)
	// Newest first. Removals leave the slots below in place (devhashDel
	// only trims nil slots off the end), so the walk keeps its place even
	// when a Flusher removes other nexthops of the bucket.
	for i := len(b.nhs) - 1; i >= 0; i-- {
		if i >= len(b.nhs) {
			continue
		}
		nh := b.nhs[i]
		if nh == nil {
			continue
		}
		visits++
		if !nh.info.onDev(dev) || (nh.info.blackhole && (ev == netdev.EventDown || ev == netdev.EventChange)) {
			continue
		}
		if op.removeNexthop(nh) {
			need = true
		}
	}
	t.Charge(sim.NexthopDevhashVisit, visits)
	op.flushIf(need)
}

// FlushAll removes every nexthop, lowest id first, as when the namespace
// goes away; the FIB is flushed per the Policy, as in Del.
//
// Kernel: flush_all_nexthops (net/ipv4/nexthop.c).
func (tb *Table) FlushAll(t *sim.Task, f Flusher) {
	defer t.Frame("flush_all_nexthops")()
	tb.advance(t)
	op := tb.newRemoval(t, f)
	need := false
	for {
		it, ok := tb.tree.Min()
		if !ok {
			break
		}
		if op.removeNexthop(it.nh) {
			need = true
		}
	}
	op.flushIf(need)
}
