// Address lists and their add, delete and lookup operations: the "general list
// handling functions" of net/core/dev_addr_lists.c (__hw_addr_add_ex,
// __hw_addr_del_ex, __hw_addr_del_entry, __hw_addr_lookup) and the uc/mc
// wrappers that choose their flags (dev_uc_add, dev_mc_add_global, ...).

package hwaddr

import (
	"fmt"
	"iter"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// Entry is a snapshot of one list entry, struct netdev_hw_addr. The zero Entry
// is not in any list.
type Entry struct {
	Addr      Addr
	Type      Type
	Refcount  int  // refcount: references held, by users and by syncs
	GlobalUse bool // global_use: the one global user holds a reference
	Synced    int  // synced: references pushed here by syncs from upper lists
	SyncCnt   int  // sync_cnt: lower lists this entry has been pushed to
}

// String renders the entry on one line, e.g.
// "33:33:00:00:00:01 multicast refcount=2 synced=1 sync_cnt=0 global".
func (e Entry) String() string {
	s := fmt.Sprintf("%s %s refcount=%d synced=%d sync_cnt=%d", e.Addr, e.Type, e.Refcount, e.Synced, e.SyncCnt)
	if e.GlobalUse {
		s += " global"
	}
	return s
}

// node is one entry, linked into the list and, for TreeIndexed, the tree.
type node struct {
	// key is the address (high 48 bits, big-endian) followed by the type
	// (low 8 bits): integer order is the kernel's tree order, memcmp of the
	// address and then of the type byte.
	key       uint64
	refcount  int
	synced    int
	syncCnt   int
	globalUse bool

	prev, next *node // list links, insertion order

	left, right, parent *node // tree links, TreeIndexed only
	red                 bool

	// Counted-walk index (counted.go), ListOnly lists with SetCountedWalk only.
	seq      int   // creation order: increasing along the list
	sameAddr *node // the next newer entry with the same address
}

func makeKey(a Addr, t Type) uint64 { return a.uint48()<<8 | uint64(t) }

func (n *node) addr() Addr { return addrFromUint48(n.key >> 8) }
func (n *node) typ() Type  { return Type(n.key) }

func (n *node) entry() Entry {
	return Entry{
		Addr:      n.addr(),
		Type:      n.typ(),
		Refcount:  n.refcount,
		GlobalUse: n.globalUse,
		Synced:    n.synced,
		SyncCnt:   n.syncCnt,
	}
}

// List is a device's hardware address list, struct netdev_hw_addr_list: the
// entries in insertion order and, with TreeIndexed, a red-black tree over the
// same entries for searching.
//
// The zero List is an empty ListOnly list, ready to use. A List is not safe for
// concurrent use: the kernel guards it with netif_addr_lock, netsim's callers
// with their own lock.
type List struct {
	policy     Policy
	head, tail *node
	count      int
	tree       rbtree     // empty unless policy is TreeIndexed
	walk       *walkIndex // nil unless counted walks are on (ListOnly only)

	compares int64 // entries compared while searching this list, ever
	iterated int64 // entries visited by whole-list walks of this list, ever
}

// NewList returns an empty list that searches with policy p. A Policy other
// than ListOnly and TreeIndexed is taken as ListOnly.
//
// Kernel: __hw_addr_init (net/core/dev_addr_lists.c).
func NewList(p Policy) *List {
	if p != TreeIndexed {
		p = ListOnly
	}
	return &List{policy: p}
}

// Policy returns the list's search policy.
func (l *List) Policy() Policy { return l.policy }

// SetCountedWalk turns counted walks on or off for a ListOnly list. A counted
// walk is a simulation-speed option: every operation behaves exactly as with
// the real walk and counts exactly the same work (Compares, Iterated and the
// charges to the task), but a search takes O(log n) real time instead of
// walking n entries. Whole-list walks (the syncs, SyncDev, Flush) still visit
// every entry. The default, off, really walks, so that benchmarks show the
// pre-5.15 linear cost in wall time too.
//
// Turning it on indexes the current entries, in O(n); the index costs a few
// dozen bytes per entry. A TreeIndexed list ignores the call: its searches are
// already tree descents, and they are what it counts.
func (l *List) SetCountedWalk(on bool) {
	switch {
	case !on || l.policy != ListOnly:
		l.walk = nil
	case l.walk == nil:
		l.walk = newWalkIndex(l)
	}
}

// CountedWalk reports whether the list counts its walks instead of walking:
// see SetCountedWalk. It is always false for a TreeIndexed list.
func (l *List) CountedWalk() bool { return l.walk != nil }

// Len returns the number of entries.
//
// Kernel: netdev_hw_addr_list_count (include/linux/netdevice.h).
func (l *List) Len() int { return l.count }

// Compares returns the number of entries compared while searching this list
// since it was made: the list's own total of sim.HWAddrCompare.
func (l *List) Compares() int64 { return l.compares }

// Iterated returns the number of entries visited by whole-list walks of this
// list (syncs from it, SyncDev, Flush) since it was made: the list's own total
// of sim.HWAddrIterate.
func (l *List) Iterated() int64 { return l.iterated }

// Front returns the first entry, the oldest. For dev_addrs that is the
// device's own address, the one dev->dev_addr points at.
//
// Kernel: list_first_entry, as used by dev_addr_init and dev_addr_del.
func (l *List) Front() (Entry, bool) {
	if l.head == nil {
		return Entry{}, false
	}
	return l.head.entry(), true
}

// Entries returns a snapshot of every entry in list order, oldest first. It
// charges no work: it stands for reading the list, not for a kernel walk.
func (l *List) Entries() []Entry {
	es := make([]Entry, 0, l.count)
	for n := l.head; n != nil; n = n.next {
		es = append(es, n.entry())
	}
	return es
}

// All yields a snapshot of each entry in list order, oldest first, like
// netdev_hw_addr_list_for_each. The list must not be changed during the
// iteration, except that deleting the entry just yielded is allowed. All
// charges no work.
func (l *List) All() iter.Seq[Entry] {
	return func(yield func(Entry) bool) {
		for n := l.head; n != nil; {
			next := n.next
			if !yield(n.entry()) {
				return
			}
			n = next
		}
	}
}

// AddOptions are the flags of __hw_addr_add_ex.
type AddOptions struct {
	// Global marks the caller as the address's global user. If the entry
	// already has one, the add succeeds without taking a reference.
	Global bool
	// Sync marks a reference pushed by a sync from an upper list: it counts
	// in the entry's Synced as well as its Refcount. Global and Sync together
	// are rejected (see AddEx).
	Sync bool
	// SyncCount is the upper entry's SyncCnt. With Sync, a non-zero
	// SyncCount on an entry that already has sync references fails with
	// EEXIST: that is how __hw_addr_sync_multiple tells that this lower
	// already has the address.
	SyncCount int
	// Exclusive fails with EEXIST when the entry already exists, before any
	// other flag is looked at.
	Exclusive bool
}

// AddEx adds a reference to (addr, typ), creating the entry at the tail of the
// list if there is none (refcount 1, global_use = o.Global, synced = 1 if
// o.Sync). For an existing entry, in this order: Exclusive fails with EEXIST;
// Global on an entry already in global use returns nil and changes nothing,
// otherwise sets GlobalUse; Sync fails with EEXIST if the entry already has sync
// references and o.SyncCount != 0, otherwise bumps Synced; then Refcount goes up.
// The search compares the full key: type 0 matches only type 0 here.
//
// Global and Sync together fail with EINVAL. No kernel caller combines them,
// and the kernel would set global_use before failing the sync check, leaving a
// half-applied change on an EEXIST.
//
// A failed AddEx changes nothing. The search charges t one sim.HWAddrCompare
// per entry compared (walked, or on the tree descent).
//
// Kernel: __hw_addr_add_ex (net/core/dev_addr_lists.c); the exclusive flag
// replaced the open-coded walk of dev_uc_add_excl in 406f42fa0d3c.
func (l *List) AddEx(t *sim.Task, addr Addr, typ Type, o AddOptions) error {
	defer t.Frame("__hw_addr_add_ex")()
	if o.Global && o.Sync {
		return errno.Errorf(syscall.EINVAL, "hardware address %s (%s): global and sync adds cannot be combined", addr, typ)
	}
	before := l.compares
	st := l.addEx(makeKey(addr, typ), o)
	l.charge(t, sim.HWAddrCompare, l.compares-before)
	return st.err(addr, typ)
}

// Add takes a plain reference on (addr, typ), creating the entry if needed.
// It always returns nil: the kernel's only failures here are an allocation
// failure and an address longer than MAX_ADDR_LEN, which netsim does not have.
//
// Kernel: __hw_addr_add, as called by dev_uc_add, dev_mc_add and dev_addr_add.
func (l *List) Add(t *sim.Task, addr Addr, typ Type) error {
	return l.AddEx(t, addr, typ, AddOptions{})
}

// AddExcl creates (addr, typ) as a global entry, or fails with EEXIST if the
// list already has it.
//
// Kernel: dev_uc_add_excl, dev_mc_add_excl.
func (l *List) AddExcl(t *sim.Task, addr Addr, typ Type) error {
	return l.AddEx(t, addr, typ, AddOptions{Global: true, Exclusive: true})
}

// AddGlobal takes the global reference on (addr, typ). If the entry is already
// in global use it returns nil and changes nothing.
//
// Kernel: dev_mc_add_global.
func (l *List) AddGlobal(t *sim.Task, addr Addr, typ Type) error {
	defer t.Frame("dev_mc_add_global")()
	return l.AddEx(t, addr, typ, AddOptions{Global: true})
}

// DelOptions are the flags of __hw_addr_del_ex.
type DelOptions struct {
	// Global drops the global user's reference: ENOENT if the entry is not in
	// global use.
	Global bool
	// Sync drops a sync reference: ENOENT if the entry has none.
	Sync bool
}

// DelEx drops a reference on the entry for (addr, typ), unlinking it when its
// Refcount reaches zero. Type 0 matches the address under any type: ListOnly
// takes the first such entry in list order, TreeIndexed the first its descent
// meets. It fails with ENOENT, changing nothing, if there is no such entry or
// the flags' checks fail (o.Global but not in global use, o.Sync but no sync
// references). The search charges t one sim.HWAddrCompare per entry compared.
//
// Kernel: __hw_addr_del_ex, __hw_addr_del_entry, __hw_addr_lookup
// (net/core/dev_addr_lists.c).
func (l *List) DelEx(t *sim.Task, addr Addr, typ Type, o DelOptions) error {
	defer t.Frame("__hw_addr_del_ex")()
	before := l.compares
	st := l.delEx(makeKey(addr, typ), o.Global, o.Sync)
	l.charge(t, sim.HWAddrCompare, l.compares-before)
	return st.err(addr, typ)
}

// Del drops a plain reference on (addr, typ).
//
// Kernel: __hw_addr_del, as called by dev_uc_del, dev_mc_del and dev_addr_del.
func (l *List) Del(t *sim.Task, addr Addr, typ Type) error {
	return l.DelEx(t, addr, typ, DelOptions{})
}

// DelGlobal drops the global user's reference on (addr, typ).
//
// Kernel: dev_mc_del_global.
func (l *List) DelGlobal(t *sim.Task, addr Addr, typ Type) error {
	defer t.Frame("dev_mc_del_global")()
	return l.DelEx(t, addr, typ, DelOptions{Global: true})
}

// Lookup returns the entry a delete of (addr, typ) would act on (type 0
// matches any type), charging t one sim.HWAddrCompare per entry compared.
//
// Kernel: __hw_addr_lookup (TreeIndexed); the walk in __hw_addr_del_ex (ListOnly).
func (l *List) Lookup(t *sim.Task, addr Addr, typ Type) (Entry, bool) {
	before := l.compares
	n := l.lookup(makeKey(addr, typ))
	l.charge(t, sim.HWAddrCompare, l.compares-before)
	if n == nil {
		return Entry{}, false
	}
	return n.entry(), true
}

// status is the outcome of an internal operation. The syncs meet EEXIST once
// per already-synced entry, so outcomes stay plain values until an exported
// method turns one into an error.
type status uint8

const (
	statusOK        status = iota
	statusExists           // EEXIST: exclusive add of an existing entry
	statusSynced           // EEXIST: sync add of an entry that already has sync references
	statusNotFound         // ENOENT: no entry
	statusNotGlobal        // ENOENT: global delete of an entry not in global use
	statusNotSynced        // ENOENT: sync delete of an entry without sync references
)

func (s status) err(addr Addr, typ Type) error {
	switch s {
	case statusOK:
		return nil
	case statusExists:
		return errno.Errorf(syscall.EEXIST, "hardware address %s (%s) already exists", addr, typ)
	case statusSynced:
		return errno.Errorf(syscall.EEXIST, "hardware address %s (%s) is already synced", addr, typ)
	case statusNotFound:
		return errno.Errorf(syscall.ENOENT, "hardware address %s (%s) not found", addr, typ)
	case statusNotGlobal:
		return errno.Errorf(syscall.ENOENT, "hardware address %s (%s) is not in global use", addr, typ)
	case statusNotSynced:
		return errno.Errorf(syscall.ENOENT, "hardware address %s (%s) is not synced", addr, typ)
	}
	panic(fmt.Sprintf("hwaddr: unknown status %d", s))
}

// chargeFn is (*sim.Task).ChargeIn; the package's tests replace it to
// watch the charges.
var chargeFn = (*sim.Task).ChargeIn

// charge charges t n units of kind k of work on l, which walk its entries.
func (l *List) charge(t *sim.Task, k sim.Kind, n int64) {
	if n != 0 {
		chargeFn(t, k, n, l.footprint(k))
	}
}

// hwAddrBytes is one netdev_hw_addr as __hw_addr_create allocates it
// (104 bytes, from kmalloc-128): the memory a walk of a list touches per
// entry, with one dependent load, the next entry.
const hwAddrBytes = 128

// footprint is what work of kind k on l touches: a list walk follows the
// list in the order it was built (list_add_tail_rcu); the compares of a
// tree-indexed list are a descent, whose nodes are in key order, not
// allocation order.
func (l *List) footprint(k sim.Kind) sim.Footprint {
	fp := sim.Footprint{Bytes: int64(l.count) * hwAddrBytes, SeqLoads: 1, Obj: hwAddrBytes}
	if k == sim.HWAddrCompare && l.policy != ListOnly {
		fp.Loads, fp.SeqLoads = 1, 0
	}
	return fp
}

// addEx is __hw_addr_add_ex on a packed key. The caller has rejected
// Global+Sync, so every failure below happens before any change.
func (l *List) addEx(k uint64, o AddOptions) status {
	var ha, parent *node
	var left bool
	if l.policy == TreeIndexed {
		ha, parent, left = l.treeFindExact(k)
	} else {
		ha = l.listFind(k, false)
	}
	if ha != nil {
		if o.Exclusive {
			return statusExists
		}
		if o.Global {
			if ha.globalUse {
				return statusOK
			}
			ha.globalUse = true
		}
		if o.Sync {
			if ha.synced != 0 && o.SyncCount != 0 {
				return statusSynced
			}
			ha.synced++
		}
		ha.refcount++
		return statusOK
	}

	n := &node{key: k, refcount: 1, globalUse: o.Global}
	if o.Sync {
		n.synced = 1
	}
	if l.policy == TreeIndexed {
		l.tree.link(n, parent, left)
	}
	l.pushBack(n)
	return statusOK
}

// delEx is __hw_addr_del_ex on a packed key; type 0 in k matches any type.
func (l *List) delEx(k uint64, global, sync bool) status {
	ha := l.lookup(k)
	if ha == nil {
		return statusNotFound
	}
	return l.delEntry(ha, global, sync)
}

// delEntry is __hw_addr_del_entry: both checks come before any change.
func (l *List) delEntry(ha *node, global, sync bool) status {
	if global && !ha.globalUse {
		return statusNotGlobal
	}
	if sync && ha.synced == 0 {
		return statusNotSynced
	}
	if global {
		ha.globalUse = false
	}
	if sync {
		ha.synced--
	}
	ha.refcount--
	if ha.refcount != 0 {
		return statusOK
	}
	if l.policy == TreeIndexed {
		l.tree.erase(ha)
	}
	l.unlink(ha)
	return statusOK
}

// lookup finds the entry for k, in which type 0 matches any type.
func (l *List) lookup(k uint64) *node {
	if l.policy == TreeIndexed {
		return l.treeLookup(k)
	}
	return l.listFind(k, k&0xff == 0)
}

// listFind walks the list from its head to the first entry with key k (with
// anyType, the first with k's address), counting every entry it compares. A
// counted walk finds the same entry and counts the same entries without
// walking.
func (l *List) listFind(k uint64, anyType bool) *node {
	if l.walk != nil {
		n, walked := l.walk.find(l, k, anyType)
		l.compares += walked
		return n
	}
	mask := ^uint64(0)
	if anyType {
		mask = ^uint64(0xff)
	}
	k &= mask
	var walked int64
	n := l.head
	for ; n != nil; n = n.next {
		walked++
		if n.key&mask == k {
			break
		}
	}
	l.compares += walked
	return n
}

// treeFindExact descends the tree comparing full keys, as __hw_addr_add_ex
// does. Without a match it returns where a node with key k would be linked.
func (l *List) treeFindExact(k uint64) (found, parent *node, left bool) {
	var compared int64
	n := l.tree.root
	for n != nil {
		compared++
		parent = n
		switch {
		case k < n.key:
			left = true
			n = n.left
		case k > n.key:
			left = false
			n = n.right
		default:
			l.compares += compared
			return n, nil, false
		}
	}
	l.compares += compared
	return nil, parent, left
}

// treeLookup descends the tree as __hw_addr_lookup does: with type 0 in k only
// the address is compared, so the descent stops at the first node with that
// address, whatever its type.
func (l *List) treeLookup(k uint64) *node {
	var compared int64
	mask := ^uint64(0)
	if k&0xff == 0 {
		mask = ^uint64(0xff)
	}
	n := l.tree.root
	for n != nil {
		compared++
		nk := n.key & mask
		if k < nk {
			n = n.left
		} else if k > nk {
			n = n.right
		} else {
			break
		}
	}
	l.compares += compared
	return n
}

func (l *List) pushBack(n *node) {
	n.prev, n.next = l.tail, nil
	if l.tail == nil {
		l.head = n
	} else {
		l.tail.next = n
	}
	l.tail = n
	l.count++
	if l.walk != nil {
		l.walk.appended(l, n)
	}
}

// unlink removes n from the list. It leaves n.next alone, so a walk that is
// standing on n can still step forward, as list_del_rcu allows.
func (l *List) unlink(n *node) {
	if n.prev == nil {
		l.head = n.next
	} else {
		n.prev.next = n.next
	}
	if n.next == nil {
		l.tail = n.prev
	} else {
		n.next.prev = n.prev
	}
	n.prev = nil
	l.count--
	if l.walk != nil {
		l.walk.unlinked(n)
	}
}
