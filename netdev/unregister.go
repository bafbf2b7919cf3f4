// Creating and destroying devices: the rtnetlink newlink/dellink entry
// points (net/core/rtnetlink.c), unregister_netdevice_many, netdev_run_todo
// and netdev_wait_allrefs (net/core/dev.c).

package netdev

import (
	"fmt"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// MaxIfindexList is the most ifindexes one IFLA_IFINDEX_LIST request can
// carry: a u16 attribute length less its header, in 4-byte ints (seed 004).
const MaxIfindexList = 16382

// NewLink creates and registers the device(s) spec describes (two for a
// veth pair). Nothing is registered unless everything is valid. The caller
// holds RTNL.
//
// Kernel: rtnl_newlink → rtnl_create_link + ops->newlink → register_netdevice
// (net/core/rtnetlink.c). A requested ifindex that is in use is EEXIST (the
// request finds that device first), a veth peer's is EBUSY.
func (tb *Table) NewLink(t *sim.Task, spec LinkSpec) ([]*Device, error) {
	defer t.Frame("rtnl_newlink")()
	if spec == nil {
		return nil, errno.New(syscall.EINVAL, "No link specification")
	}
	// rtnl_newlink: the kind's validate runs before the device is looked up.
	if v, ok := spec.(validator); ok {
		if err := v.validate(tb); err != nil {
			return nil, err
		}
	}
	a := spec.LinkAttrs()
	if a.Index < 0 {
		return nil, errno.New(syscall.EINVAL, "ifindex can't be negative")
	}
	if a.Index > 0 && tb.byIndex[a.Index] != nil {
		return nil, errno.Errorf(syscall.EEXIST, "Device with ifindex %d already exists", a.Index)
	}
	if n := IfNameAttr(spec.LinkName()); n != "" && len(n) < IFNAMSIZ && tb.byName[n] != nil { // +checklocksignore: RTNL held
		return nil, errno.Errorf(syscall.EEXIST, "Device \"%s\" already exists", n)
	}
	// A refused request draws no random address: the generator is put
	// back, so that what the kernel does next does not depend on it.
	rngState, _ := tb.s.rngSrc.MarshalBinary()
	refuse := func(err error) ([]*Device, error) {
		_ = tb.s.rngSrc.UnmarshalBinary(rngState)
		return nil, err
	}
	devs, err := spec.create(t, tb)
	if err != nil {
		return refuse(err)
	}
	// The ifindex asked for: the request's for a single device, each
	// end's own for a veth pair.
	wantIndex := func(d *Device) IfIndex {
		if len(devs) == 1 {
			return a.Index
		}
		return d.priv.wantIndex
	}
	// Check the ifindexes as registration will hand them out, in order: a
	// device without a requested ifindex takes the next free one, which
	// may be the one a later device of the request asks for (a veth peer
	// registered first), and then that device's registration fails with
	// EBUSY in the kernel, unwinding the request.
	// A device of the request may register in another namespace (a veth
	// peer's): each namespace hands out its own ifindexes.
	regTable := func(d *Device) *Table {
		if d.priv.regTable != nil {
			return d.priv.regTable
		}
		return tb
	}
	type claims struct {
		last    IfIndex
		claimed map[IfIndex]bool
	}
	byTable := map[*Table]*claims{}
	for _, d := range devs {
		dtb := regTable(d)
		c := byTable[dtb]
		if c == nil {
			c = &claims{last: dtb.lastIndex, claimed: map[IfIndex]bool{}}
			byTable[dtb] = c
		}
		want := wantIndex(d)
		if want < 0 {
			return refuse(errno.New(syscall.EINVAL, "ifindex can't be negative"))
		}
		if want == 0 {
			if want, c.last = dtb.nextFreeIndex(c.last, c.claimed); want == 0 {
				return refuse(errno.New(syscall.ENOSPC, "No free ifindex"))
			}
		} else if dtb.byIndex[want] != nil || c.claimed[want] {
			return refuse(errno.Errorf(syscall.EBUSY, "ifindex %d is in use", want))
		}
		c.claimed[want] = true
	}
	for i, d := range devs {
		if err := regTable(d).register(t, d, wantIndex(d)); err != nil {
			panic("netdev: register after validation: " + err.Error()) // a broken invariant
		}
		if d.link != nil {
			// netdev_upper_dev_link(lower, dev) and the operstate
			// transfer. Of the lower's NETDEV_CHANGEUPPER netsim models
			// rtnetlink_event's RTM_NEWLINK only.
			d.link.uppers = append(d.link.uppers, d)
			tb.s.linkMsg(t, d.link, false, 0, false)
			d.refreshCarrier(t, false)
		}
		if d.priv.vxlan != nil {
			d.vxlanLinkLower(t)
		}
		if i < len(devs)-1 {
			// The peer a veth registers first is announced at once
			// (veth_newlink's rtnl_configure_link), before the device
			// itself is registered.
			tb.s.linkMsg(t, d, false, ChangeAll, false)
		}
	}
	if tr, ok := spec.(tier); ok {
		tr.tie(devs)
	}
	// rtnl_newlink's rtnl_configure_link announces the request's own
	// device, with the request's header.
	tb.s.linkMsg(t, devs[len(devs)-1], false, ChangeAll, true)
	return devs, nil
}

// tier is a LinkSpec whose devices are joined to each other once all are
// registered (a veth pair's ends).
type tier interface{ tie(devs []*Device) }

// DelLink deletes d and whatever its kind deletes with it (a veth's peer).
// The caller holds RTNL; the devices are freed by RunTodo after RTNL is
// released.
//
// Kernel: rtnl_dellink → rtnl_delete_link (net/core/rtnetlink.c):
// EOPNOTSUPP for a device without dellink (loopback).
func (tb *Table) DelLink(t *sim.Task, d *Device) error {
	defer t.Frame("rtnl_dellink")()
	if d == nil || d.tbl != tb || d.state != regRegistered {
		return errno.New(syscall.ENODEV, "No such device")
	}
	if d.ops.dellink == nil {
		return errno.Errorf(syscall.EOPNOTSUPP, "Device \"%s\" cannot be deleted", d.name)
	}
	var q []*Device
	d.ops.dellink(t, d, &q)
	tb.s.UnregisterMany(t, q)
	return nil
}

// DelGroup deletes every device in group g in one batch, or none.
//
// Kernel: rtnl_group_dellink (net/core/rtnetlink.c): EPERM for group 0,
// EOPNOTSUPP if any member cannot be deleted, ENODEV if none matches.
func (tb *Table) DelGroup(t *sim.Task, g uint32) error {
	defer t.Frame("rtnl_group_dellink")()
	if g == 0 {
		return errno.New(syscall.EPERM, "Cannot delete the default group")
	}
	members := tb.ByGroup(g)
	if len(members) == 0 {
		return errno.Errorf(syscall.ENODEV, "No device in group %d", g)
	}
	for _, d := range members {
		if d.ops.dellink == nil {
			return errno.Errorf(syscall.EOPNOTSUPP, "Device \"%s\" cannot be deleted", d.name)
		}
	}
	return tb.delBatch(t, members)
}

// DelIfindexList deletes the devices with the given ifindexes in one batch,
// or none: seed 004's IFLA_IFINDEX_LIST. Duplicates are harmless.
//
// Kernel: rtnl_list_dellink (net/core/rtnetlink.c, patch v3 "rtnetlink:
// Support fine-grained netdevice bulk deletion"): EINVAL for an empty list
// or one over MaxIfindexList entries, ENODEV for an unknown ifindex,
// EOPNOTSUPP for a device without dellink.
func (tb *Table) DelIfindexList(t *sim.Task, idx []IfIndex) error {
	defer t.Frame("rtnl_list_dellink")()
	if len(idx) == 0 || len(idx) > MaxIfindexList {
		return errno.Errorf(syscall.EINVAL, "ifindex list must hold 1 to %d entries, not %d", MaxIfindexList, len(idx))
	}
	devs := make([]*Device, 0, len(idx))
	for _, i := range idx {
		d := tb.byIndex[i]
		if d == nil {
			return errno.Errorf(syscall.ENODEV, "No device with ifindex %d", i)
		}
		if d.ops.dellink == nil {
			return errno.Errorf(syscall.EOPNOTSUPP, "Device \"%s\" cannot be deleted", d.name)
		}
		devs = append(devs, d)
	}
	return tb.delBatch(t, devs)
}

// delBatch deletes devs, which all have a dellink, in one batch.
func (tb *Table) delBatch(t *sim.Task, devs []*Device) error {
	b := newDelQueue(len(devs))
	for _, d := range devs {
		b.add(t, d)
	}
	tb.s.UnregisterMany(t, b.q)
	return nil
}

// delQueue collects a batch for UnregisterMany through the devices' dellink,
// which may queue more than the device (a veth's peer), asking no device
// twice.
type delQueue struct {
	q      []*Device
	queued map[*Device]bool
}

func newDelQueue(n int) *delQueue {
	return &delQueue{queued: make(map[*Device]bool, n)}
}

// add queues d, if registered and not queued yet, through its kind's
// dellink, or by itself for a kind without one.
func (b *delQueue) add(t *sim.Task, d *Device) {
	if d.state != regRegistered || b.queued[d] {
		return
	}
	n := len(b.q)
	if d.ops.dellink != nil {
		d.ops.dellink(t, d, &b.q)
	} else {
		b.q = append(b.q, d)
	}
	for _, x := range b.q[n:] {
		b.queued[x] = true
	}
}

// UnregisterMany takes devices out of service in one batch: close the ones
// that are up, unlist them, one expedited grace period, NETDEV_UNREGISTER
// (which deletes the vlans and macvlans on them in a nested batch and
// releases them from their masters), flush their address lists, uninit,
// another expedited grace period, and queue them for RunTodo. The caller
// holds RTNL.
//
// Kernel: unregister_netdevice_many → rollback_registered_many (5.x,
// net/core/dev.c). dev_close_many skips dev_deactivate_many's grace period
// for devices being dismantled, so a batch waits for two expedited grace
// periods whatever its size.
func (s *Stack) UnregisterMany(t *sim.Task, devs []*Device) {
	defer t.Frame("unregister_netdevice_many")()
	var list []*Device
	seen := make(map[*Device]bool, len(devs))
	for _, d := range devs {
		if d.state == regRegistered && !seen[d] {
			seen[d] = true
			list = append(list, d)
		}
	}
	if len(list) == 0 {
		return
	}
	s.closeMany(t, list, true, uint32(FlagUp|flagRunning), nil)
	for _, d := range list {
		d.tbl.unlist(d)
		d.state = regUnregistering
	}
	s.w.RCU().SynchronizeExpedited(t)
	for _, d := range list {
		t.Charge(sim.DevUnregister, 1)
		// dev_shutdown: the root qdisc is noop again.
		d.qdisc = ""
		_ = s.notify(t, EventUnregister, d)
		// unregister_netdevice_many_notify: the device's RTM_DELLINK,
		// with the header of the request that deleted it.
		s.linkMsg(t, d, true, ChangeAll, true)
		d.uc.Flush(t)
		d.mc.Flush(t)
		if d.ops.uninit != nil {
			d.ops.uninit(t, d)
		}
	}
	s.w.RCU().SynchronizeExpedited(t)
	for _, d := range list {
		s.todo = append(s.todo, d)
		d.tbl.unregCount++
	}
}

// TakeTodo returns the devices waiting to be freed and empties the list.
// The caller holds RTNL and calls RunTodo with the result after releasing it.
func (s *Stack) TakeTodo() []*Device {
	l := s.todo
	s.todo = nil
	return l
}

// RunTodo finishes unregistering devices taken with TakeTodo. The caller
// has released RTNL. One rcu_barrier for the whole list, then for each
// device in turn: wait for its last references (netdev_wait_allrefs, with
// the Config's WaitPolicy), take RTNL once to count it gone, free it.
//
// Kernel: netdev_run_todo (net/core/dev.c, 5.x).
func (s *Stack) RunTodo(t *sim.Task, list []*Device) {
	defer t.Frame("netdev_run_todo")()
	if len(list) == 0 {
		return
	}
	s.w.RCU().Barrier(t)
	for _, d := range list {
		d.state = regUnregistered
		s.waitAllRefs(t, d)
		s.rtnl.Lock(t)
		d.tbl.unregCount--
		s.rtnl.Unlock(t)
	}
}

// waitAllRefs polls until only the registration's reference to d is left.
// Every second it rebroadcasts NETDEV_UNREGISTER (under RTNL) and runs
// rcu_barrier. WaitFixed sleeps 250 ms between polls; WaitBackoff sleeps
// 16 ms first and doubles up to 250 ms. Past the Config's RefWaitLimit
// (if any) a reference nobody will drop is a leak: it panics, with the
// message the kernel logs every ten seconds while it waits.
//
// Kernel: netdev_wait_allrefs (net/core/dev.c); the backoff is seed 002's.
func (s *Stack) waitAllRefs(t *sim.Task, d *Device) {
	defer t.Frame("netdev_wait_allrefs")()
	const second = 1_000_000_000
	rebroadcast := t.Now()
	start := rebroadcast
	wait := 250
	if s.cfg.Wait == WaitBackoff {
		wait = 16
	}
	for d.refcnt.Load() != 0 {
		if lim := s.cfg.RefWaitLimit; lim > 0 && int64(t.Now()-start) > lim {
			panic(fmt.Sprintf("netdev: unregister_netdevice: waiting for %s to become free. Usage count = %d (leaked for %d ns)",
				d.name, d.refcnt.Load(), t.Now()-start))
		}
		if t.Now()-rebroadcast > second {
			s.rtnl.Lock(t)
			_ = s.notify(t, EventUnregister, d)
			s.rtnl.Unlock(t)
			s.w.RCU().Barrier(t)
			rebroadcast = t.Now()
		}
		t.Msleep(wait)
		if s.cfg.Wait == WaitBackoff {
			wait = min(wait*2, 250)
		}
	}
}

// DelAll deletes every device of the namespace as its teardown does: in
// the reverse order of their registration (loopback, registered first,
// last), each through its kind's dellink where it has one (a veth takes
// its peer, wherever that is), all in one batch. The caller holds RTNL.
//
// Kernel: default_device_exit_batch (net/core/dev.c), run by cleanup_net;
// loopback has no exit method of its own (loopback_net_ops,
// drivers/net/loopback.c).
func (tb *Table) DelAll(t *sim.Task) {
	defer t.Frame("default_device_exit_batch")()
	b := newDelQueue(tb.count)
	for d := tb.tail; d != nil; d = d.prev {
		b.add(t, d)
	}
	tb.s.UnregisterMany(t, b.q)
}
