// Moving a device to another network namespace: the mini unregister and
// register of dev_change_net_namespace (net/core/dev.c), and the devices
// that may not move (dev->netns_immutable).

package netdev

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// NetnsImmutable reports whether d may not change namespace: loopback, and
// the bridge, bond and vrf masters, whose setup functions set it.
//
// Kernel: dev->netns_immutable (the former NETIF_F_NETNS_LOCAL), set by
// loopback_setup, br_dev_setup, bond_setup and vrf_setup.
func (d *Device) NetnsImmutable() bool {
	if d.isLoopback() {
		return true
	}
	switch d.ops.kind {
	case "bridge", "bond", "vrf":
		return true
	}
	return false
}

// MoveAnnouncer is an Announcer that also receives the RTM_DELLINK a
// device sends to the namespace it leaves, which names the ifindex it
// takes in the new one. An Announcer that does not implement it gets a
// plain RTM_DELLINK (LinkMsg) instead.
type MoveAnnouncer interface {
	Announcer
	// LinkMovedMsg is the RTM_DELLINK of d, still in the namespace it
	// leaves, for a move to table to under ifindex newIndex.
	LinkMovedMsg(t *sim.Task, d *Device, to *Table, newIndex IfIndex)
}

// ChangeNetns moves d from its namespace to to's. It refuses, changing
// nothing, a device that may not move (EINVAL "The interface netns is
// immutable"), one not registered, a name in use in to when pat is ""
// (EEXIST), a pat that cannot name it there, and a newIndex in use there
// (EBUSY). Without newIndex (0) the device keeps its ifindex unless to
// has it, and then takes to's next free one. d keeps its name unless it
// is in use in to: then pat (a name, or a template with one %d) gives the
// new one. Moving to its own namespace does nothing.
//
// The device leaves as an unregistration would: closed if up, unlisted,
// NETDEV_UNREGISTER to the old namespace (its addresses and routes go,
// its masters release it; the devices stacked on it stay), its
// RTM_DELLINK there, its address lists flushed; then it is listed in to,
// NETDEV_REGISTER, and its RTM_NEWLINK there. The caller holds RTNL.
//
// Kernel: __dev_change_net_namespace (net/core/dev.c).
func (d *Device) ChangeNetns(t *sim.Task, to *Table, pat string, newIndex IfIndex) error {
	if d.NetnsImmutable() {
		return errno.New(syscall.EINVAL, "The interface netns is immutable")
	}
	if d.state != regRegistered {
		return errno.New(syscall.EINVAL, "The interface isn't registered")
	}
	from := d.tbl
	if to == from {
		return nil
	}
	name := d.name
	if to.ByName(name) != nil {
		if pat == "" {
			return errno.New(syscall.EEXIST, "An interface with the same name exists in the target netns")
		}
		var err error
		if name, err = to.prepValidName(pat); err != nil {
			return errno.Errorf(errno.Of(err), "Unable to use '%s' for the new interface name in the target netns", pat)
		}
	}
	index := newIndex
	switch {
	case newIndex < 0 || newIndex > 0 && to.byIndex[newIndex] != nil:
		e := syscall.EBUSY
		if newIndex < 0 {
			e = syscall.EINVAL
		}
		return errno.Errorf(e, "The ifindex %d is not available in the target netns", newIndex)
	case newIndex == 0 && to.byIndex[d.ifindex] == nil:
		index = d.ifindex
	case newIndex == 0:
		i, err := to.newIndex()
		if err != nil {
			return errno.New(errno.Of(err), "Unable to allocate a new ifindex in the target netns")
		}
		index = i
	}
	s := from.s
	// linkwatch runs after the move: a peer left behind finds the
	// device gone from its namespace (default_operstate).
	s.linkwatchHold()
	defer s.linkwatchRelease(t)
	s.closeMany(t, []*Device{d}, false, uint32(FlagUp|flagRunning), nil)
	from.unlist(d)
	s.w.RCU().SynchronizeExpedited(t) // synchronize_net under RTNL
	t.Charge(sim.DevUnregister, 1)
	d.qdisc = "" // dev_shutdown
	// The device stays NETREG_REGISTERED: the devices stacked on it
	// (vlan_device_event, macvlan_device_event) see a move and stay;
	// its masters release it (br_del_if, bond, vrf_del_slave).
	d.moving = true
	_ = s.notify(t, EventUnregister, d)
	d.moving = false
	s.w.RCU().Barrier(t)
	if a, ok := s.announce.(MoveAnnouncer); ok {
		a.LinkMovedMsg(t, d, to, index)
	} else {
		s.linkMsg(t, d, true, ChangeAll, false)
	}
	d.uc.Flush(t)
	d.mc.Flush(t)
	d.tbl, d.ifindex, d.name = to, index, name
	t.Charge(sim.DevRegister, 1)
	to.list(d)
	_ = s.notify(t, EventRegister, d)
	s.linkMsg(t, d, false, ChangeAll, false)
	s.w.RCU().SynchronizeExpedited(t)
	return nil
}

// prepValidName is the name a device takes in tb for the name or template
// want: EINVAL for an invalid one, EEXIST for a name in use, a template's
// first free name.
//
// Kernel: dev_prep_valid_name (net/core/dev.c) with dup_errno EEXIST.
func (tb *Table) prepValidName(want string) (string, error) {
	if !ValidName(want) {
		return "", errno.New(syscall.EINVAL, "")
	}
	name, err := tb.allocName(want, nil)
	if err != nil {
		return "", err
	}
	if name == want && tb.ByName(want) != nil {
		return "", errno.New(syscall.EEXIST, "")
	}
	return name, nil
}

// list adds a device that keeps its registration to the table's indexes
// and the tail of its list.
//
// Kernel: list_netdevice (net/core/dev.c).
func (tb *Table) list(d *Device) {
	tb.namesMu.Lock()
	tb.byIndex[d.ifindex] = d
	tb.byName[d.name] = d
	tb.namesMu.Unlock()
	if tb.tail == nil {
		tb.head = d
	} else {
		tb.tail.next, d.prev = d, tb.tail
	}
	tb.tail = d
	tb.count++
	tb.byIndexOrder = nil
	d.listed = true
	tb.inet6Addrs += d.inet6Len()
}

// iflinkListed reports whether d has a lower device or peer that
// default_operstate finds: it looks the iflink up by ifindex in d's own
// namespace, so a peer that moved elsewhere leaves d DOWN, not
// LOWERLAYERDOWN (unless a device there has that ifindex).
//
// Kernel: default_operstate (net/core/link_watch.c).
func (d *Device) iflinkListed() bool {
	l := d.link
	if l == nil {
		l = d.peer
	}
	if l == nil {
		return false
	}
	return l.tbl == d.tbl || d.tbl.byIndex[l.ifindex] != nil
}
