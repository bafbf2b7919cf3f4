// IPv4 interface addresses and the IPv4 multicast groups a device joins:
// net/ipv4/devinet.c (inetdev_event, __inet_insert_ifa, __inet_del_ifa) and
// net/ipv4/igmp.c (ip_mc_up, ip_mc_down).

package netdev

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// inDev is a device's IPv4 state, struct in_device. Guarded by RTNL, as
// its device is.
type inDev struct {
	addrs []*Addr // ifa_list: primaries first (by scope), then secondaries
	// byKey, primary and nSec index addrs. The kernel has no index: it
	// walks ifa_list on every add (find_matching_ifa, __inet_insert_ifa),
	// which is charged as sim.IfaScan; netsim answers the same questions
	// here without the walk. byKey holds each address by its local address
	// and subnet (no two addresses share both), primary the primary of
	// each subnet that has addresses (the first of the subnet in addrs),
	// nSec the number of secondaries (the tail of addrs).
	byKey   map[ifaKey]*Addr
	primary map[netip.Prefix]*Addr
	nSec    int
	// walked counts the addresses netsim itself examined walking addrs
	// (a refused add, a replace, a delete, an unusual place for a new
	// primary): the index's misses. Adding new addresses walks nothing.
	walked int64
	mcUp   bool     // ip_mc_up has run (the device is up)
	mc     mcList   // mc_list: the groups joined
	cnf    IPv4Conf // the device's net.ipv4.conf.DEV
	lft    lftTimer // the pending lifetime check
}

// ifaKey is what tells IPv4 addresses of one device apart: the local
// address and the subnet (Addr.Subnet, with its length).
type ifaKey struct {
	local  netip.Addr
	subnet netip.Prefix
}

func ifaKeyOf(a *Addr) ifaKey { return ifaKey{a.Prefix.Addr(), a.Subnet()} }

// index enters a, just put in addrs, in the indexes.
func (in *inDev) index(a *Addr) {
	if in.byKey == nil {
		in.byKey, in.primary = map[ifaKey]*Addr{}, map[netip.Prefix]*Addr{}
	}
	in.byKey[ifaKeyOf(a)] = a
	if a.Flags&AddrSecondary != 0 {
		in.nSec++
	} else {
		in.primary[a.Subnet()] = a
	}
}

// unindex takes a, leaving addrs, out of the indexes.
func (in *inDev) unindex(a *Addr) {
	delete(in.byKey, ifaKeyOf(a))
	if a.Flags&AddrSecondary != 0 {
		in.nSec--
	} else if s := a.Subnet(); in.primary[s] == a {
		delete(in.primary, s)
	}
}

// pos is a's index in addrs: a walk, for the rare requests (a refused add,
// a replace) whose kernel walk stops at a.
func (in *inDev) pos(a *Addr) int {
	i := slices.Index(in.addrs, a)
	in.walked += int64(i + 1)
	return i
}

// inet4Count is the number of IPv4 addresses in the namespace: the
// length of check_lifetime's walk of inet_addr_lst.
func (tb *Table) inet4Count() int64 {
	n := 0
	for d := tb.head; d != nil; d = d.next {
		if d.inet != nil {
			n += len(d.inet.addrs)
		}
	}
	return int64(n)
}

// queueCheckLifetime charges the check_lifetime run that every IPv4
// address add and change queues at once (cancel_delayed_work and
// queue_delayed_work(..., 0) in __inet_insert_ifa and inet_rtm_newaddr):
// a walk of every IPv4 address of the namespace, which finds nothing to do
// while no address has a finite lifetime. It runs in a kworker of the
// CPU that queued it, which preempts the requester: its time is the
// requester's. The lifetime events themselves are armInet4Lifetimes'.
func (d *Device) queueCheckLifetime(t *sim.Task) {
	n := d.tbl.inet4Count()
	t.ChargeIn(sim.Inet4HashVisit, n, hashFootprint(n, inIfaddrBytes))
}

var allHosts4 = netip.AddrFrom4([4]byte{224, 0, 0, 1}) // IGMP_ALL_HOSTS

// ipv4MulticastMAC maps an IPv4 group to its Ethernet address,
// 01:00:5e and the group's low 23 bits.
//
// Kernel: ip_eth_mc_map (include/net/ip.h).
func ipv4MulticastMAC(g netip.Addr) MAC {
	a := g.As4()
	return MAC{0x01, 0x00, 0x5e, a[1] & 0x7f, a[2], a[3]}
}

// ipv4McInc joins group g: a new group goes first in the list, and its MAC
// into the device's mc list.
//
// Kernel: ip_mc_inc_group → igmp_group_added (net/ipv4/igmp.c).
func (d *Device) ipv4McInc(t *sim.Task, g netip.Addr) {
	if d.inet == nil {
		return
	}
	if m := mcJoin(t, &d.inet.mc, g); m != nil {
		d.ipv4McLoad(t, m)
	}
}

// ipv4McDec drops a user of group g, leaving it with the last.
//
// Kernel: __ip_mc_dec_group → igmp_group_dropped (net/ipv4/igmp.c).
func (d *Device) ipv4McDec(t *sim.Task, g netip.Addr) {
	if d.inet == nil {
		return
	}
	if m := mcLeave(t, &d.inet.mc, g); m != nil {
		d.ipv4McUnload(t, m)
	}
}

// ipv4McLoad and ipv4McUnload put a group's MAC in the device's mc list
// and take it out, once (ip_mc_filter_add / ip_mc_filter_del).
func (d *Device) ipv4McLoad(t *sim.Task, m *mcGroup) {
	if m.loaded {
		return
	}
	m.loaded = true
	if d.ethMulticast() {
		_ = d.MCAdd(t, ipv4MulticastMAC(m.addr))
	}
}

func (d *Device) ipv4McUnload(t *sim.Task, m *mcGroup) {
	if !m.loaded {
		return
	}
	m.loaded = false
	if d.ethMulticast() {
		_ = d.MCDel(t, ipv4MulticastMAC(m.addr))
	}
}

// Inet4GroupList returns the IPv4 multicast groups the device has joined,
// newest first (in_dev->mc_list, the order of /proc/net/igmp), or nil for
// a device without IPv4.
//
// Kernel: igmp_mc_seq_show (net/ipv4/igmp.c).
func (d *Device) Inet4GroupList() []Group {
	if d.inet == nil {
		return nil
	}
	return groupList(&d.inet.mc)
}

// ethMulticast reports whether d maps IP multicast groups to Ethernet
// multicast addresses (arp_mc_map / ndisc_mc_map accept the device type):
// every kind netsim models except loopback.
func (d *Device) ethMulticast() bool { return !d.isLoopback() }

// inetdevEvent is the IPv4 side of the netdev notifier chain.
//
// Kernel: inetdev_event (net/ipv4/devinet.c).
func inetdevEvent(t *sim.Task, ev Event, d *Device) error {
	defer t.Frame("inetdev_event")()
	switch ev {
	case EventRegister:
		// inetdev_init: the device starts with the default configuration.
		d.inet = &inDev{cnf: d.tbl.IPv4Default}
		d.Hold() // the in_device's reference
	case EventUp:
		in := d.inet
		if in == nil || d.mtu < 68 {
			return nil
		}
		if d.isLoopback() && len(in.addrs) == 0 {
			lo := Addr{Prefix: netip.MustParsePrefix("127.0.0.1/8"), Scope: ScopeHost, Label: d.name, Flags: AddrPermanent}
			lo.created(t.Now())
			_ = d.insertInet4(t, lo)
		}
		// ip_mc_up: join 224.0.0.1, reload the other groups.
		if !in.mcUp {
			in.mcUp = true
			d.ipv4McInc(t, allHosts4)
			for m := range in.mc.newestFirst() {
				d.ipv4McLoad(t, m)
			}
		}
	case EventChangeName:
		if d.inet != nil {
			d.inet.changeName(d.name)
		}
	case EventDown:
		// ip_mc_down: unload the groups and leave 224.0.0.1; addresses stay.
		if in := d.inet; in != nil && in.mcUp {
			in.mcUp = false
			for m := range in.mc.newestFirst() {
				d.ipv4McUnload(t, m)
			}
			d.ipv4McDec(t, allHosts4)
		}
	case EventUnregister:
		// inetdev_destroy: every address goes, first to last, each
		// alone (a dead in_device promotes and drops no secondaries with
		// their primary), and the in_device drops its device reference in
		// an RCU callback (in_dev_rcu_put).
		in := d.inet
		if in == nil {
			return nil
		}
		for len(in.addrs) > 0 {
			a := in.addrs[0]
			in.addrs = in.addrs[1:]
			in.unindex(a)
			d.tbl.s.addrMsg(t, d, *a, true, false)
			d.tbl.s.addrNotify(t, EventDown, d, *a)
		}
		d.inet = nil
		d.tbl.s.w.RCU().Call(t, func(*sim.Task) { d.Put() })
	}
	return nil
}

// changeName relabels the addresses of a device renamed to name: the
// first takes the name, each other keeps the part of its label from the
// colon on (or gets ":N", N its position from 1) after the new name, cut
// to fit IFNAMSIZ.
//
// Kernel: inetdev_changename (net/ipv4/devinet.c).
func (in *inDev) changeName(name string) {
	for i, a := range in.addrs {
		if i == 0 {
			a.Label = name
			continue
		}
		suffix := fmt.Sprintf(":%d", i+1)
		if c := strings.IndexByte(a.Label, ':'); c >= 0 {
			suffix = a.Label[c:]
		}
		keep := min(len(name), max(IFNAMSIZ-1-len(suffix), 0))
		a.Label = name[:keep] + suffix
	}
}

// IPv4Forwarding reports whether the device forwards IPv4
// (net.ipv4.conf.DEV.forwarding, IN_DEV_FORWARD).
func (d *Device) IPv4Forwarding() bool { return d.inet != nil && d.inet.cnf.Forwarding }

// SetIPv4Forwarding sets net.ipv4.conf.DEV.forwarding of dev, or with dev
// nil net.ipv4.conf.all.forwarding (net.ipv4.ip_forward), which sets the
// default and every device too. The caller holds RTNL.
//
// Kernel: devinet_sysctl_forward, inet_forward_change (net/ipv4/devinet.c).
func (tb *Table) SetIPv4Forwarding(dev *Device, on bool) {
	if dev != nil {
		if dev.inet != nil {
			dev.inet.cnf.Forwarding = on
		}
		return
	}
	tb.IPv4All.Forwarding, tb.IPv4Default.Forwarding = on, on
	for d := tb.head; d != nil; d = d.next {
		if d.inet != nil {
			d.inet.cnf.Forwarding = on
		}
	}
}

// Inet4Addrs returns the device's IPv4 addresses in kernel order.
func (d *Device) Inet4Addrs() []Addr {
	if d.inet == nil {
		return nil
	}
	out := make([]Addr, len(d.inet.addrs))
	for i, a := range d.inet.addrs {
		out[i] = *a
	}
	return out
}

// sameSubnet reports whether o is in a's subnet: the same prefix length and
// the same masked address (IFA_ADDRESS).
//
// Kernel: the ifa_mask and inet_ifa_match test of __inet_insert_ifa and
// find_matching_ifa (net/ipv4/devinet.c).
func sameSubnet(a, o Addr) bool {
	return a.Prefix.Bits() == o.Prefix.Bits() && a.Subnet() == o.Subnet()
}

// AddInet4 adds IPv4 address a to the device (`ip addr add`, NLM_F_EXCL).
// An address in the subnet of an existing primary address becomes
// secondary. Lifetimes, if a has any, start now. The address 0.0.0.0 is
// accepted and stores nothing.
//
// Kernel: inet_rtm_newaddr → __inet_insert_ifa (net/ipv4/devinet.c):
// EEXIST for the same local address in the same subnet, EINVAL for a scope
// that differs from the primary's.
func (d *Device) AddInet4(t *sim.Task, a Addr) error {
	defer t.Frame("inet_rtm_newaddr")()
	return d.newInet4(t, a, false)
}

// ReplaceInet4 adds IPv4 address a, or when the device has it (the same
// local address, prefix length and subnet) sets its lifetimes to a's (`ip
// addr replace` and `ip addr change`, NLM_F_REPLACE; the kernel creates a
// missing address with or without NLM_F_CREATE). Nothing else of an
// existing address changes: not its label, broadcast, scope or flags.
//
// Kernel: inet_rtm_newaddr (net/ipv4/devinet.c).
func (d *Device) ReplaceInet4(t *sim.Task, a Addr) error {
	defer t.Frame("inet_rtm_newaddr")()
	return d.newInet4(t, a, true)
}

// checkLabel applies the IFA_LABEL policy of ifa_ipv4_policy: at most
// IFNAMSIZ-1 bytes.
func checkLabel(l string) error {
	if len(l) > IFNAMSIZ-1 {
		return errno.New(syscall.ERANGE, "Attribute failed policy validation")
	}
	return nil
}

func (d *Device) newInet4(t *sim.Task, a Addr, replace bool) error {
	if err := checkLabel(a.Label); err != nil {
		return err
	}
	if !a.Prefix.IsValid() || !a.Prefix.Addr().Is4() || a.Peer.IsValid() && !a.Peer.Is4() {
		return errno.New(syscall.EINVAL, "ipv4: Invalid prefix length")
	}
	if d.inet == nil {
		return errno.New(syscall.ENODEV, "ipv4: Device not found")
	}
	if a.Broadcast.IsValid() && !a.Broadcast.Is4() {
		return errno.New(syscall.EINVAL, "ipv4: Invalid broadcast address")
	}
	if err := a.checkLifetimes(false); err != nil {
		return err
	}
	if a.Label == "" {
		a.Label = d.name
	}
	if a.Peer == a.Prefix.Addr() {
		a.Peer = netip.Addr{}
	}
	valid, preferred := a.lifetimes()
	if a.Prefix.Addr().IsUnspecified() {
		// find_matching_ifa and __inet_insert_ifa: no local address,
		// nothing to store, and no error.
		return nil
	}
	old, scanned := d.findInet4(a)
	t.ChargeIn(sim.IfaScan, scanned, d.ifaFootprint())
	if old != nil {
		if !replace {
			return errno.New(syscall.EEXIST, "ipv4: Address already assigned")
		}
		t.Charge(sim.AddrOp, 1)
		if old.Metric != a.Metric {
			// A replace without a metric resets it to 0.
			if h := d.tbl.s.addrMetric; h != nil {
				h(t, d, *old, a.Metric)
			}
			old.Metric = a.Metric
		}
		old.setLifetime(t.Now(), valid, preferred)
		d.queueCheckLifetime(t)
		d.armInet4Lifetimes(t)
		d.tbl.s.addrMsg(t, d, *old, false, true)
		return nil
	}
	// IPv6-only flags do not stay on an IPv4 address.
	a.Flags &= AddrNoPrefixRoute | AddrMcAutoJoin
	a.setLifetime(t.Now(), valid, preferred)
	a.created(t.Now())
	if err := d.insertInet4(t, a); err != nil {
		return err
	}
	if _, ok := a.nextEvent(); ok {
		// An address without lifetime events changes no check's time.
		d.armInet4Lifetimes(t)
	}
	return nil
}

// findInet4 returns the device's address with a's local address in a's
// subnet, or nil, and how many addresses the kernel's walk of the list
// examines to tell: up to the one found, else all.
//
// Kernel: find_matching_ifa (net/ipv4/devinet.c).
func (d *Device) findInet4(a Addr) (*Addr, int64) {
	in := d.inet
	if o := in.byKey[ifaKeyOf(&a)]; o != nil {
		return o, int64(in.pos(o) + 1)
	}
	return nil, int64(len(in.addrs))
}

// primaryPos is where a new primary address of scope s goes in addrs: after
// the last primary whose scope is as narrow or narrower (numerically not
// below s), else first. A global address added after a link-scope one
// follows it; a link-scope one added after a global one goes before it.
//
// Kernel: the last_primary walk of __inet_insert_ifa (net/ipv4/devinet.c).
func primaryPos(addrs []*Addr, s Scope) int {
	at := 0
	for i, o := range addrs {
		if o.Flags&AddrSecondary == 0 && s <= o.Scope {
			at = i + 1
		}
	}
	return at
}

// promotedPos is where the secondary at index p goes when it is promoted
// on the deletion of its primary at index v (v < p), in the list after
// that deletion: where it is, if it followed the primary directly; else
// after the last primary between the two whose scope is the deleted one's
// or narrower (numerically not below s), or else at the deleted primary's
// place.
//
// Kernel: __inet_del_ifa's last_prim and prev_prom (net/ipv4/devinet.c).
func promotedPos(addrs []*Addr, v, p int, s Scope) int {
	if p == v+1 {
		return v
	}
	at := v
	for i := v + 1; i < p; i++ {
		if o := addrs[i]; o.Flags&AddrSecondary == 0 && o.Scope >= s {
			at = i // after it, once the deleted primary is gone
		}
	}
	return at
}

// insertInet4 puts a new address in the device's list: after the
// primaries as a secondary if its subnet has a primary, else among the
// primaries (primaryPos). The kernel walks the whole list for that
// (counted, sim.IfaScan), stopping early only to refuse the address: at
// the first address of the subnet with the same local address (EEXIST) or
// another scope (EINVAL). Every address of a subnet has its primary's
// scope, and the primary comes first, so the indexes give the same answer.
//
// Kernel: __inet_insert_ifa (net/ipv4/devinet.c).
func (d *Device) insertInet4(t *sim.Task, a Addr) error {
	defer t.Frame("__inet_insert_ifa")()
	in := d.inet
	a.Flags &^= AddrSecondary
	if p := in.primary[a.Subnet()]; p != nil {
		var stop *Addr
		var err error
		switch o := in.byKey[ifaKeyOf(&a)]; {
		case p.Scope != a.Scope && p.Prefix.Addr() == a.Prefix.Addr():
			stop, err = p, errno.New(syscall.EEXIST, "ipv4: Address already assigned")
		case p.Scope != a.Scope:
			stop, err = p, errno.New(syscall.EINVAL, "ipv4: Invalid scope value")
		case o != nil:
			stop, err = o, errno.New(syscall.EEXIST, "ipv4: Address already assigned")
		}
		if err != nil {
			t.ChargeIn(sim.IfaScan, int64(in.pos(stop)+1), d.ifaFootprint())
			return err
		}
		a.Flags |= AddrSecondary
	}
	t.ChargeIn(sim.IfaScan, int64(len(in.addrs)), d.ifaFootprint())
	t.Charge(sim.AddrOp, 1)
	na := a
	if a.Flags&AddrSecondary == 0 {
		at := len(in.addrs) - in.nSec
		if at > 0 && in.addrs[at-1].Scope < a.Scope {
			// Not simply after the last primary: find the place.
			at = primaryPos(in.addrs, a.Scope)
			in.walked += int64(len(in.addrs))
		}
		in.addrs = slices.Insert(in.addrs, at, &na)
	} else {
		in.addrs = append(in.addrs, &na)
	}
	in.index(&na)
	d.queueCheckLifetime(t)
	d.tbl.s.addrMsg(t, d, na, false, true)
	d.tbl.s.addrNotify(t, EventUp, d, na)
	return nil
}

// DelInet4 removes the IPv4 address p (local address and prefix length).
// Removing a primary address removes the secondaries of its subnet, or
// promotes the first of them when promote_secondaries is set.
//
// Kernel: inet_rtm_deladdr → __inet_del_ifa (net/ipv4/devinet.c):
// EADDRNOTAVAIL when no address matches.
func (d *Device) DelInet4(t *sim.Task, p netip.Prefix) error {
	defer t.Frame("inet_rtm_deladdr")()
	return d.DelInet4Match(t, Addr{Prefix: p})
}

// DelInet4Match removes the first IPv4 address that matches m: its local
// address; its label if m has one; and its prefix length and subnet
// (IFA_ADDRESS: m.Peer, else m's local address), unless m.Prefix has no
// length (Bits -1: the wildcard deletion of `ip addr del A` without one).
//
// Kernel: inet_rtm_deladdr (net/ipv4/devinet.c): "ipv4: Address not found"
// (EADDRNOTAVAIL) when no address matches.
func (d *Device) DelInet4Match(t *sim.Task, m Addr) error {
	defer t.Frame("inet_rtm_deladdr")()
	if err := checkLabel(m.Label); err != nil {
		return err
	}
	return d.DelInet4First(t, func(o Addr) bool {
		if o.Prefix.Addr() != m.Prefix.Addr() || m.Label != "" && o.Label != m.Label {
			return false
		}
		return m.Prefix.Bits() < 0 || o.Prefix.Bits() == m.Prefix.Bits() &&
			netip.PrefixFrom(m.Address(), o.Prefix.Bits()).Masked() == o.Subnet()
	})
}

// DelInet4First removes the first IPv4 address, in the device's list
// order (primaries first), that match accepts.
//
// Kernel: inet_rtm_deladdr's walk of ifa_list (net/ipv4/devinet.c):
// "ipv4: Address not found" (EADDRNOTAVAIL) when none is accepted.
func (d *Device) DelInet4First(t *sim.Task, match func(Addr) bool) error {
	if d.inet == nil {
		return errno.New(syscall.ENODEV, "ipv4: Device not found")
	}
	for i, o := range d.inet.addrs {
		if match(*o) {
			t.ChargeIn(sim.IfaScan, int64(i+1), d.ifaFootprint())
			d.inet.walked += int64(i + 1)
			d.delInet4(t, o)
			return nil
		}
	}
	t.ChargeIn(sim.IfaScan, int64(len(d.inet.addrs)), d.ifaFootprint())
	d.inet.walked += int64(len(d.inet.addrs))
	return errno.New(syscall.EADDRNOTAVAIL, "ipv4: Address not found")
}

// delInet4 removes victim, one of the device's addresses.
//
// Kernel: __inet_del_ifa (net/ipv4/devinet.c).
func (d *Device) delInet4(t *sim.Task, victim *Addr) {
	defer t.Frame("__inet_del_ifa")()
	in := d.inet
	t.Charge(sim.AddrOp, 1)
	var promoted *Addr
	if victim.Flags&AddrSecondary == 0 {
		// __inet_del_ifa: the secondaries of the subnet go (or the first
		// is promoted) while the primary is still listed, so listeners
		// still find it.
		promote := d.tbl.IPv4All.PromoteSecondaries || d.tbl.IPv4Default.PromoteSecondaries
		for j := 0; j < len(in.addrs); {
			o := in.addrs[j]
			if o == victim || o.Flags&AddrSecondary == 0 || !sameSubnet(*o, *victim) {
				j++
				continue
			}
			if promote {
				// The first secondary is promoted; the others stay, as
				// its secondaries.
				if promoted == nil {
					promoted = o
				}
				j++
				continue
			}
			in.addrs = slices.Delete(in.addrs, j, j+1)
			in.unindex(o)
			d.tbl.s.addrMsg(t, d, *o, true, true)
			d.tbl.s.addrNotify(t, EventDown, d, *o)
		}
	}
	v := slices.Index(in.addrs, victim)
	to := 0
	if promoted != nil {
		to = promotedPos(in.addrs, v, slices.Index(in.addrs, promoted), victim.Scope)
	}
	in.addrs = slices.Delete(in.addrs, v, v+1)
	in.unindex(victim)
	d.tbl.s.addrMsg(t, d, *victim, true, true)
	d.tbl.s.addrNotify(t, EventDown, d, *victim)
	if promoted != nil {
		// The promoted address moves to the primaries.
		k := slices.Index(in.addrs, promoted)
		in.addrs = slices.Delete(in.addrs, k, k+1)
		in.unindex(promoted)
		promoted.Flags &^= AddrSecondary
		in.addrs = slices.Insert(in.addrs, to, promoted)
		in.index(promoted)
		d.tbl.s.addrMsg(t, d, *promoted, false, true)
		d.tbl.s.addrNotify(t, EventUp, d, *promoted)
	}
}
