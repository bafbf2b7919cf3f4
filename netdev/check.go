// Invariant checking for device tables, for tests of this package and of
// the packages built on it. The kernel has no counterpart; the checks state
// what net/core/dev.c keeps true between requests: the name and ifindex
// hashes and the device list hold the same devices (list_netdevice,
// unlist_netdevice), upper and lower links go both ways
// (netdev_upper_dev_link), and a device's references are those its
// subsystems took (dev_hold in inetdev_init, ipv6_add_dev, and the IPv6
// routes' fib6_nh_init, as the namespace's IPv6FIB counts them).

package netdev

import (
	"fmt"

	"github.com/netsimlab/netsim/hwaddr"
)

// CheckInvariants verifies the table's devices and returns the first broken
// invariant:
//
//   - the device list, the ifindex map and the name map hold the same
//     registered devices, each under its own index and name, and Len counts
//     them; ifindexes are positive, names valid, loopback has ifindex 1;
//   - links go both ways and point at registered devices of the table: a
//     vlan or macvlan is among its lower device's uppers and every upper's
//     lower is the device; a slave is among its master's slaves and every
//     slave's master is the master, except that a bridge keeps its ports
//     in its own port list (each with a port state naming the bridge and
//     a port number of its own) and has no slaves; veth peers point at
//     each other;
//   - every device's uc and mc lists pass hwaddr.CheckList and are searched
//     with the Stack's policy. Sync references are not checked across
//     devices: sync_cnt counts the lower lists an entry was pushed to, not
//     which, so a lower synced from two uppers (a bond and a vlan on its
//     slave) can keep a reference no upper accounts for, in the kernel too
//     (__hw_addr_unsync takes the first one it finds);
//   - reference counts: a device holds at least the references its IPv4 and
//     IPv6 state and its IPv6 routes took, and exactly those once no RCU
//     callback is pending: those of the routes in the IPv6 tables, as the
//     IPv6FIB counts them if it implements IPv6FIBCounts (otherwise the
//     check is only that the device holds its IP state's), and of the
//     local and anycast routes its addresses hold out of the tables; the
//     promiscuity and allmulti counts are not negative;
//     the count of devices unregistered but not yet freed is not negative.
//
// The caller holds RTNL or has a quiescent simulation. CheckInvariants only
// reads; it is meant for tests, after every operation.
func (tb *Table) CheckInvariants() error {
	if tb == nil {
		return fmt.Errorf("nil device table")
	}
	n, addrs6 := 0, 0
	var prev *Device
	seen := make(map[*Device]bool, tb.count)
	for d := tb.head; d != nil; d = d.next {
		if seen[d] {
			return fmt.Errorf("%s: device list has a cycle at %s", tb, d.name)
		}
		seen[d] = true
		if d.prev != prev {
			return fmt.Errorf("%s: device %s: prev link broken", tb, d.name)
		}
		prev = d
		n++
		switch {
		case d.tbl != tb:
			return fmt.Errorf("%s: device %s belongs to another table", tb, d.name)
		case d.state != regRegistered:
			return fmt.Errorf("%s: device %s listed in state %d", tb, d.name, d.state)
		case d.ifindex <= 0:
			return fmt.Errorf("%s: device %s has ifindex %d", tb, d.name, d.ifindex)
		case !ValidName(d.name):
			return fmt.Errorf("%s: device has invalid name %q", tb, d.name)
		case tb.byIndex[d.ifindex] != d:
			return fmt.Errorf("%s: device %s is not under its ifindex %d", tb, d.name, d.ifindex)
		case tb.byName[d.name] != d: // +checklocksignore: RTNL held
			return fmt.Errorf("%s: device %s is not under its name", tb, d.name)
		case !d.listed:
			return fmt.Errorf("%s: device %s listed, not marked so", tb, d.name)
		}
		addrs6 += d.inet6Len()
	}
	if addrs6 != tb.inet6Addrs {
		return fmt.Errorf("%s: %d IPv6 addresses, counted %d", tb, addrs6, tb.inet6Addrs)
	}
	if prev != tb.tail {
		return fmt.Errorf("%s: tail does not end the device list", tb)
	}
	if n != tb.count || n != len(tb.byIndex) || n != len(tb.byName) { // +checklocksignore: RTNL held
		return fmt.Errorf("%s: %d devices listed, count %d, %d by ifindex, %d by name",
			tb, n, tb.count, len(tb.byIndex), len(tb.byName)) // +checklocksignore: RTNL held
	}
	if lo := tb.loopback; lo != nil && lo.state == regRegistered && lo.ifindex != LoopbackIfIndex {
		return fmt.Errorf("%s: loopback has ifindex %d", tb, lo.ifindex)
	}
	if tb.unregCount < 0 {
		return fmt.Errorf("%s: %d devices unregistering", tb, tb.unregCount)
	}
	quiescent := tb.s.w.RCU().Pending() == 0
	counts, exact := tb.fib6.(IPv6FIBCounts)
	for d := tb.head; d != nil; d = d.next {
		if err := tb.checkLinks(d); err != nil {
			return fmt.Errorf("%s: device %s: %w", tb, d.name, err)
		}
		if err := tb.checkAddrLists(d); err != nil {
			return fmt.Errorf("%s: device %s: %w", tb, d.name, err)
		}
		held := int64(0)
		if d.inet != nil {
			held++
		}
		if d.inet6 != nil {
			held++
		}
		if exact {
			held += counts.DevRefs(d) + d.ipv6HeldRoutes()
		}
		switch rc := d.refcnt.Load(); {
		case rc < held:
			return fmt.Errorf("%s: device %s: refcount %d, its IP state holds %d", tb, d.name, rc, held)
		case quiescent && exact && rc != held:
			return fmt.Errorf("%s: device %s: refcount %d with no RCU callback pending, its IP state holds %d", tb, d.name, rc, held)
		}
		if d.promiscCnt < 0 || d.allmulti < 0 {
			return fmt.Errorf("%s: device %s: promiscuity %d, allmulti %d", tb, d.name, d.promiscCnt, d.allmulti)
		}
	}
	return nil
}

// checkLinks verifies d's links to other devices.
func (tb *Table) checkLinks(d *Device) error {
	live := func(x *Device, what string) error {
		if x.state != regRegistered || x.tbl == nil || x.tbl.byIndex[x.ifindex] != x {
			return fmt.Errorf("%s %s is not a registered device", what, x.name)
		}
		return nil
	}
	if l := d.link; l != nil {
		if err := live(l, "lower"); err != nil {
			return err
		}
		if countOf(l.uppers, d) != 1 {
			return fmt.Errorf("not once among lower %s's uppers", l.name)
		}
	}
	for _, u := range d.uppers {
		if err := live(u, "upper"); err != nil {
			return err
		}
		if u.link != d || countOf(d.uppers, u) != 1 {
			return fmt.Errorf("upper %s has lower %v, or is listed twice", u.name, u.link)
		}
	}
	// A vxlan is once on its namespace's list and on its lower's.
	if v := d.priv.vxlan; v != nil {
		if countOf(v.linkNet.vxlans, d) != 1 {
			return fmt.Errorf("not once on its namespace's vxlan list")
		}
		if l := v.lower; l != nil {
			if err := live(l, "vxlan lower"); err != nil {
				return err
			}
			if countOf(l.priv.vxlanUppers, d) != 1 {
				return fmt.Errorf("not once among vxlan lower %s's vxlans", l.name)
			}
		}
	}
	for _, u := range d.priv.vxlanUppers {
		if err := live(u, "vxlan"); err != nil {
			return err
		}
		if u.priv.vxlan == nil || u.priv.vxlan.lower != d {
			return fmt.Errorf("vxlan %s does not have it as its lower", u.name)
		}
	}
	// A bridge keeps its ports in its own port list (br->port_list), not
	// among the slaves of a bond or vrf; each port has its port state,
	// naming the bridge, and a number of its own.
	if m := d.master; m != nil {
		if err := live(m, "master"); err != nil {
			return err
		}
		if b := m.priv.bridge; b != nil {
			if countOf(b.ports, d) != 1 || countOf(m.slaves, d) != 0 {
				return fmt.Errorf("not once among bridge %s's ports, or among its slaves", m.name)
			}
		} else if countOf(m.slaves, d) != 1 {
			return fmt.Errorf("not once among master %s's slaves", m.name)
		}
	}
	if p := d.priv.brPort; p != nil && (d.master == nil || p.br != d.master || d.master.priv.bridge == nil) {
		return fmt.Errorf("bridge port of %v, master %v", p.br, d.master)
	} else if p == nil && d.master != nil && d.master.priv.bridge != nil {
		return fmt.Errorf("enslaved to bridge %s without a port state", d.master.name)
	}
	for _, s := range d.slaves {
		if err := live(s, "slave"); err != nil {
			return err
		}
		if s.master != d || countOf(d.slaves, s) != 1 {
			return fmt.Errorf("slave %s has master %v, or is listed twice", s.name, s.master)
		}
	}
	if b := d.priv.bridge; b != nil {
		if len(d.slaves) != 0 {
			return fmt.Errorf("bridge with %d slaves beside its ports", len(d.slaves))
		}
		nos := make(map[uint16]bool, len(b.ports))
		for _, p := range b.ports {
			if err := live(p, "port"); err != nil {
				return err
			}
			if p.master != d || countOf(b.ports, p) != 1 {
				return fmt.Errorf("port %s has master %v, or is listed twice", p.name, p.master)
			}
			switch bp := p.priv.brPort; {
			case bp == nil || bp.br != d:
				return fmt.Errorf("port %s has no port state of this bridge", p.name)
			case bp.no == 0 || bp.no >= brMaxPorts || nos[bp.no]:
				return fmt.Errorf("port %s has port number %d, out of range or not its own", p.name, bp.no)
			}
			nos[p.priv.brPort.no] = true
		}
	}
	if p := d.peer; p != nil {
		if err := live(p, "peer"); err != nil {
			return err
		}
		if p.peer != d {
			return fmt.Errorf("peer %s's peer is %v", p.name, p.peer)
		}
	}
	return nil
}

func countOf(ds []*Device, d *Device) int {
	n := 0
	for _, x := range ds {
		if x == d {
			n++
		}
	}
	return n
}

// checkAddrLists verifies d's uc and mc lists.
func (tb *Table) checkAddrLists(d *Device) error {
	for _, l := range []struct {
		name string
		l    *hwaddr.List
	}{{"uc", d.uc}, {"mc", d.mc}} {
		if l.l == nil {
			return fmt.Errorf("no %s list", l.name)
		}
		if err := hwaddr.CheckList(l.l); err != nil {
			return fmt.Errorf("%s list: %w", l.name, err)
		}
		if l.l.Policy() != tb.s.cfg.HWAddr {
			return fmt.Errorf("%s list searched with %s, the stack says %s", l.name, l.l.Policy(), tb.s.cfg.HWAddr)
		}
	}
	return nil
}

// CheckReleased verifies a device after its unregistration finished (its
// request returned, netdev_run_todo done): it is in no table, its address
// lists are empty, its IP state is gone, and no reference to it is left.
//
// Kernel: what netdev_wait_allrefs waits for and free_netdev relies on
// (net/core/dev.c).
func CheckReleased(d *Device) error {
	switch {
	case d == nil:
		return fmt.Errorf("nil device")
	case d.state != regUnregistered:
		return fmt.Errorf("device %s: state %d, not unregistered", d.name, d.state)
	case d.tbl != nil && (d.tbl.byIndex[d.ifindex] == d || d.tbl.byName[d.name] == d): // +checklocksignore: RTNL held
		return fmt.Errorf("device %s: still in its table", d.name)
	case d.uc.Len() != 0 || d.mc.Len() != 0:
		return fmt.Errorf("device %s: %d uc and %d mc addresses left", d.name, d.uc.Len(), d.mc.Len())
	case d.inet != nil || d.inet6 != nil:
		return fmt.Errorf("device %s: IP state left", d.name)
	case d.refcnt.Load() != 0:
		return fmt.Errorf("device %s: %d references left", d.name, d.refcnt.Load())
	}
	return nil
}

// TodoLen returns the number of unregistered devices waiting for
// netdev_run_todo (TakeTodo has not taken them yet).
func (s *Stack) TodoLen() int { return len(s.todo) }
