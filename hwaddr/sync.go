// Whole-list operations: syncing an upper device's list to a lower device's
// (__hw_addr_sync, __hw_addr_sync_multiple, __hw_addr_unsync), syncing a list
// to a driver (__hw_addr_sync_dev, __hw_addr_unsync_dev) and flushing
// (__hw_addr_flush), all in net/core/dev_addr_lists.c.
//
// A sync walks the whole upper ("from") list and, for each entry that needs it,
// adds a sync reference to the lower ("to") list or drops one. The walk is
// O(M) whatever the policy; each add or drop is a search of the lower list,
// which is where ListOnly and TreeIndexed differ.

package hwaddr

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// Sync pushes from's entries to to, for an upper device that has exactly one
// lower device (a VLAN and its real device: dev_uc_sync, dev_mc_sync). Walking
// from in order:
//
//   - an entry never pushed (SyncCnt == 0) gets a sync reference on to (a new
//     entry there, or Synced+1 and Refcount+1 on an existing one) and, in
//     return, SyncCnt+1 and Refcount+1 itself;
//   - an entry whose only reference left is the sync's own (SyncCnt != 0 and
//     Refcount == 1: every user deleted it) has its sync reference on to
//     dropped, and is then released from from.
//
// The error is EINVAL for a nil list and otherwise always nil in netsim: the
// kernel fails here only when it cannot allocate an entry. It is returned so
// that callers can keep the kernel's "if (!err) __dev_set_rx_mode(to)".
// dev_uc_sync's own __dev_set_rx_mode is the caller's to do.
//
// Sync charges t one sim.HWAddrIterate per entry of from visited and one
// sim.HWAddrCompare per entry of to compared while searching.
//
// Kernel: __hw_addr_sync (net/core/dev_addr_lists.c).
func Sync(t *sim.Task, to, from *List) error {
	defer t.Frame("__hw_addr_sync")()
	if to == nil || from == nil {
		return errNilList()
	}
	walkSync(t, to, from, func(ha *node) {
		if ha.syncCnt == 0 {
			to.syncOne(ha)
		} else if ha.refcount == 1 {
			to.unsyncOne(from, ha)
		}
	})
	return nil
}

// SyncMultiple pushes from's entries to to, for an upper device that syncs to
// several lower devices (a bond to each slave, a bridge to each port:
// dev_uc_sync_multiple, dev_mc_sync_multiple). Walking from in order:
//
//   - an entry whose references are all syncs' own (Refcount == SyncCnt: every
//     user deleted it) has its sync reference on to dropped; when to had one,
//     the entry's SyncCnt and Refcount go down by one (so it disappears after
//     the last lower has been visited);
//   - any other entry is added to to as a sync reference. If to already holds
//     a sync reference and the entry has been pushed somewhere (SyncCnt != 0),
//     that add fails with EEXIST, which is taken to mean "to already has it" and
//     changes nothing; otherwise SyncCnt and Refcount go up by one.
//
// With ListOnly, that EEXIST costs a walk of to up to the address: resyncing an
// M-entry list that to already mirrors costs M(M+1)/2 compares.
//
// The error is as for Sync. SyncMultiple charges t as Sync does.
//
// Kernel: __hw_addr_sync_multiple (net/core/dev_addr_lists.c).
func SyncMultiple(t *sim.Task, to, from *List) error {
	defer t.Frame("__hw_addr_sync_multiple")()
	if to == nil || from == nil {
		return errNilList()
	}
	walkSync(t, to, from, func(ha *node) {
		if ha.syncCnt == ha.refcount {
			to.unsyncOne(from, ha)
		} else {
			to.syncOne(ha)
		}
	})
	return nil
}

// Unsync takes back from to every sync reference that from's entries pushed
// (dev_uc_unsync, dev_mc_unsync, on a VLAN's stop or a slave's release). For
// each entry of from with SyncCnt != 0 whose sync reference on to exists, that
// reference is dropped (the entry on to disappears with its last reference)
// and the entry loses one SyncCnt and one Refcount (disappearing likewise when
// no user holds it). Entries of from whose address to has no sync reference
// for are left alone. dev_uc_unsync's own __dev_set_rx_mode is the caller's to do.
//
// Nil lists are ignored. Unsync charges t as Sync does.
//
// Kernel: __hw_addr_unsync (net/core/dev_addr_lists.c).
func Unsync(t *sim.Task, to, from *List) {
	defer t.Frame("__hw_addr_unsync")()
	if to == nil || from == nil {
		return
	}
	walkSync(t, to, from, func(ha *node) {
		if ha.syncCnt != 0 {
			to.unsyncOne(from, ha)
		}
	})
}

// walkSync is the walk shared by Sync, SyncMultiple and Unsync: it visits
// every entry of from in order (visit may release the entry it is given)
// and charges t the entries visited and the compares made searching to.
func walkSync(t *sim.Task, to, from *List, visit func(ha *node)) {
	c0, i0 := to.compares, from.iterated
	for ha := from.head; ha != nil; {
		next := ha.next
		from.iterated++
		visit(ha)
		ha = next
	}
	from.charge(t, sim.HWAddrIterate, from.iterated-i0)
	to.charge(t, sim.HWAddrCompare, to.compares-c0)
}

func errNilList() error { return errno.New(syscall.EINVAL, "nil hardware address list") }

// syncOne is __hw_addr_sync_one: push ha to l as a sync reference. Its only
// kernel failure besides EEXIST is ENOMEM, so it cannot fail here.
func (l *List) syncOne(ha *node) {
	if l.addEx(ha.key, AddOptions{Sync: true, SyncCount: ha.syncCnt}) == statusOK {
		ha.syncCnt++
		ha.refcount++
	}
}

// unsyncOne is __hw_addr_unsync_one: drop ha's sync reference from l and, if
// there was one, release ha from its own list from.
func (l *List) unsyncOne(from *List, ha *node) {
	if l.delEx(ha.key, false, true) != statusOK {
		return
	}
	ha.syncCnt--
	from.delEntry(ha, false, false)
}

// SyncDev brings a driver's filter in line with l, for a device that programs
// addresses one by one from its ndo_set_rx_mode. First pass, in list order:
// every entry that was synced (SyncCnt != 0) but has no other user left
// (Refcount == 1) is passed to unsync, if unsync is not nil, and unless unsync
// fails, loses its sync reference and is removed (a failed unsync leaves it
// for the next call). Second pass: every entry not yet synced is passed to
// sync; on success it gains SyncCnt+1 and Refcount+1; the first failure is
// returned at once, leaving the entries before it synced, as the kernel does.
//
// sync must not be nil (EINVAL, nothing done); neither callback may change l.
// SyncDev charges t one sim.HWAddrIterate per entry visited by either pass.
//
// Kernel: __hw_addr_sync_dev (net/core/dev_addr_lists.c).
func (l *List) SyncDev(t *sim.Task, sync, unsync func(Addr) error) error {
	defer t.Frame("__hw_addr_sync_dev")()
	if sync == nil {
		return errno.New(syscall.EINVAL, "hardware address sync callback is nil")
	}
	i0 := l.iterated
	defer func() { l.charge(t, sim.HWAddrIterate, l.iterated-i0) }()

	for ha := l.head; ha != nil; {
		next := ha.next
		l.iterated++
		if ha.syncCnt != 0 && ha.refcount == 1 && (unsync == nil || unsync(ha.addr()) == nil) {
			ha.syncCnt--
			l.delEntry(ha, false, false)
		}
		ha = next
	}
	for ha := l.head; ha != nil; {
		next := ha.next
		l.iterated++
		if ha.syncCnt == 0 {
			if err := sync(ha.addr()); err != nil {
				return err
			}
			ha.syncCnt++
			ha.refcount++
		}
		ha = next
	}
	return nil
}

// UnsyncDev takes back from a driver every address SyncDev gave it, as a
// device's ndo_stop does: each entry with SyncCnt != 0 is passed to unsync
// (if unsync is not nil) and, unless that fails, loses one SyncCnt and one
// Refcount, disappearing if nothing else holds it. With a nil unsync it just
// forgets the syncs. unsync must not change l. UnsyncDev charges t one
// sim.HWAddrIterate per entry visited.
//
// Kernel: __hw_addr_unsync_dev (net/core/dev_addr_lists.c).
func (l *List) UnsyncDev(t *sim.Task, unsync func(Addr) error) {
	defer t.Frame("__hw_addr_unsync_dev")()
	i0 := l.iterated
	for ha := l.head; ha != nil; {
		next := ha.next
		l.iterated++
		if ha.syncCnt != 0 && (unsync == nil || unsync(ha.addr()) == nil) {
			ha.syncCnt--
			l.delEntry(ha, false, false)
		}
		ha = next
	}
	l.charge(t, sim.HWAddrIterate, l.iterated-i0)
}

// Flush removes every entry whatever its references, as on device
// unregistration (dev_uc_flush, dev_mc_flush, dev_addr_flush). Sync references
// these entries hold on lower lists are not taken back. Flush charges t one
// sim.HWAddrIterate per entry freed.
//
// Kernel: __hw_addr_flush (net/core/dev_addr_lists.c).
func (l *List) Flush(t *sim.Task) {
	defer t.Frame("__hw_addr_flush")()
	n, fp := int64(l.count), l.footprint(sim.HWAddrIterate)
	l.iterated += n
	l.head, l.tail, l.count = nil, nil, 0
	l.tree = rbtree{}
	if l.walk != nil {
		l.walk.flushed()
	}
	if n != 0 {
		chargeFn(t, sim.HWAddrIterate, n, fp)
	}
}
