// IPv6 addresses (struct inet6_ifaddr): adding, replacing and deleting
// an address as RTM_NEWADDR and RTM_DELADDR ask, the per-device address
// list in kernel order, and what an address brings and takes away
// (inet6_addr_add, inet6_addr_modify, inet6_addr_del, ipv6_add_addr,
// ipv6_del_addr, __ipv6_ifa_notify: net/ipv6/addrconf.c).

package netdev

import (
	"net/netip"
	"slices"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// ifaddr6 is one IPv6 address, struct inet6_ifaddr.
type ifaddr6 struct {
	Addr
	state   dadState
	solicit bool // joined its solicited-node group
	anycast bool // joined its subnet-router anycast address
	// rt is the address's local route (ifa->rt), held by the address. It
	// is made when DAD completes and inserted then; a device going down
	// removes it from its table.
	rt         Route6
	linkLocal  bool   // autoconfigured link-local
	generation int    // bumps when the address is reset; stale DAD work checks it
	hashSeq    uint64 // when it entered inet6_addr_lst (see Table.Inet6AddrLookup)
}

func (idev *inet6Dev) find(a netip.Addr) *ifaddr6 {
	if ifa := idev.byAddr[a]; ifa != nil && ifa.state != dadDead {
		return ifa
	}
	return nil
}

// Inet6Addrs returns the device's IPv6 addresses in kernel order (global
// scope first, newest first within a scope).
func (d *Device) Inet6Addrs() []Addr {
	if d.inet6 == nil {
		return nil
	}
	out := make([]Addr, len(d.inet6.addrs))
	for i, a := range d.inet6.addrs {
		out[i] = a.Addr
	}
	return out
}

// AddInet6 adds IPv6 address a (`ip addr add`, NLM_F_EXCL). Of a.Flags,
// AddrNoDAD, AddrNoPrefixRoute, AddrHomeAddress and AddrManageTempAddr are
// taken. Duplicate address detection and the solicited-node join run later,
// as deferred work (see Stack.SetWorkQueue); lifetimes, if a has any, start
// now.
//
// Kernel: inet6_rtm_newaddr → inet6_addr_add → ipv6_add_addr
// (net/ipv6/addrconf.c): EEXIST for an address the device has (whatever the
// prefix length), EADDRNOTAVAIL for ::, multicast or a loopback address on
// another device, EACCES with disable_ipv6.
func (d *Device) AddInet6(t *sim.Task, a Addr) error {
	defer t.Frame("inet6_rtm_newaddr")()
	return d.newInet6(t, a, false)
}

// ReplaceInet6 adds IPv6 address a, or when the device has its address
// (whatever the prefix length) modifies it: its lifetimes, its flags
// AddrNoDAD, AddrHomeAddress, AddrManageTempAddr and AddrNoPrefixRoute
// become a's (adding or removing its prefix route), and its peer if a has
// one (`ip addr replace` and `ip addr change`, NLM_F_REPLACE).
//
// Kernel: inet6_rtm_newaddr → inet6_addr_modify (net/ipv6/addrconf.c).
func (d *Device) ReplaceInet6(t *sim.Task, a Addr) error {
	defer t.Frame("inet6_rtm_newaddr")()
	return d.newInet6(t, a, true)
}

// inet6CfgFlags are the flags a request may set (inet6_rtm_newaddr).
const inet6CfgFlags = AddrNoDAD | AddrHomeAddress | AddrManageTempAddr | AddrNoPrefixRoute

func (d *Device) newInet6(t *sim.Task, a Addr, replace bool) error {
	p := a.Prefix
	if !p.IsValid() || !p.Addr().Is6() || p.Addr().Is4In6() || a.Peer.IsValid() && (!a.Peer.Is6() || a.Peer.Is4In6()) {
		return errno.New(syscall.EINVAL, "ipv6: Invalid prefix")
	}
	if p.Addr().Zone() != "" {
		return errno.New(syscall.EINVAL, "ipv6: Zones are not allowed")
	}
	if err := a.checkLifetimes(true); err != nil {
		return err
	}
	if a.Peer == p.Addr() {
		a.Peer = netip.Addr{}
	}
	valid, preferred := a.lifetimes()
	a.Flags &= inet6CfgFlags
	idev := d.inet6
	if replace && idev != nil && !idev.dead && !idev.cnf.DisableIPv6 {
		if ifa := idev.find(p.Addr()); ifa != nil {
			d.ipv6ModifyAddr(t, ifa, a, valid, preferred)
			return nil
		}
	}
	switch {
	case idev == nil && d.mtu < IPv6MinMTU:
		// addrconf_add_dev → ipv6_add_dev refuses a device below IPV6_MIN_MTU.
		return errno.New(syscall.EINVAL, "IPv6 needs an MTU of at least 1280")
	case idev == nil:
		// The kernel would create the inet6_dev here, with disable_ipv6
		// from net.ipv6.conf.default, and refuse the address with EACCES.
		return errno.New(syscall.EACCES, "IPv6 is disabled on this device")
	case idev.dead:
		return errno.New(syscall.ENODEV, "IPv6 is disabled on this device")
	case idev.cnf.DisableIPv6:
		return errno.New(syscall.EACCES, "IPv6 is disabled on this device")
	case p.Addr().IsUnspecified():
		return errno.New(syscall.EADDRNOTAVAIL, "Invalid address")
	case p.Addr().IsMulticast():
		return errno.New(syscall.EADDRNOTAVAIL, "Cannot assign multicast address without \"IFA_F_MCAUTOJOIN\" flag")
	case p.Addr().IsLoopback() && !d.isLoopback() && !d.isL3Master():
		return errno.New(syscall.EADDRNOTAVAIL, "Cannot assign loopback address on this device")
	case idev.find(p.Addr()) != nil:
		return errno.New(syscall.EEXIST, "ipv6: address already assigned")
	}
	// addrconf_add_dev: the device's ff00::/8, which a device that is up
	// without carrier has not had yet (on a device that is down the route
	// fails, ENETDOWN, silently). The kernel adds it before ipv6_add_addr
	// checks the address, so that a refused address leaves it behind;
	// netsim adds it once the address is accepted, a refused request
	// changing nothing.
	if d.IsUp() && !d.isLoopback() && !d.isL3Master() {
		d.addrconfAddMroute(t)
	}
	a.Scope = ipv6Scope(p.Addr())
	a.Broadcast, a.Label = netip.Addr{}, ""
	a.setLifetime(t.Now(), valid, preferred)
	ifa := d.ipv6AddAddr(t, a, false)
	if a.Flags&AddrNoPrefixRoute == 0 {
		d.addrconfPrefixRoute(t, p, a.Metric, prefixExpires(t.Now(), valid))
	}
	// inet6_addr_add announces a tentative address at once; one that
	// needs no DAD is announced when DAD completes.
	if ifa.Flags&AddrNoDAD == 0 {
		d.tbl.s.addrMsg(t, d, ifa.Addr, false, false)
	}
	d.dadStart(t, ifa)
	d.verifyAddrs(t)
	if _, ok := ifa.nextEvent(); ok {
		// An address without lifetime events changes no check's time.
		d.armInet6Lifetimes(t)
	}
	return nil
}

// ipv6ModifyAddr gives an existing address the lifetimes, flags and
// metric of a request (a metric of 0 keeps the address's), moves its prefix
// route to the new metric, adds it back if it is gone, or removes it with
// AddrNoPrefixRoute.
//
// Kernel: inet6_addr_modify, modify_prefix_route (net/ipv6/addrconf.c).
func (d *Device) ipv6ModifyAddr(t *sim.Task, ifa *ifaddr6, a Addr, valid, preferred uint32) {
	t.Charge(sim.AddrOp, 1)
	hadPrefixRoute := ifa.Flags&AddrPermanent != 0 && ifa.Flags&AddrNoPrefixRoute == 0
	oldMetric := ifa.Metric
	ifa.Flags = ifa.Flags&^inet6CfgFlags | a.Flags
	ifa.setLifetime(t.Now(), valid, preferred)
	ifa.Proto = a.Proto // the request's, 0 if it sent none
	if a.Metric != 0 {
		ifa.Metric = a.Metric
	}
	if a.Peer.IsValid() {
		ifa.Peer = a.Peer
	}
	if ifa.Flags&AddrTentative == 0 {
		d.tbl.s.addrMsg(t, d, ifa.Addr, false, false) // ipv6_ifa_notify(0, ifp)
	}
	if ifa.Flags&AddrNoPrefixRoute == 0 {
		if hadPrefixRoute && rtPriority6(oldMetric) != rtPriority6(ifa.Metric) {
			// modify_prefix_route: the route moves to the new metric.
			d.tbl.fib6.DelPrefixRoute(t, d, ifa.Prefix.Masked(), 0)
		}
		// A prefix route that exists is kept (EEXIST); one deleted is
		// restored.
		d.addrconfPrefixRoute(t, ifa.Prefix, ifa.Metric, prefixExpires(t.Now(), valid))
	} else if hadPrefixRoute && d.cleanupPrefixRouteNeeded(ifa) {
		d.tbl.fib6.DelPrefixRoute(t, d, ifa.Prefix.Masked(), 0)
	}
	d.verifyAddrs(t)
	d.armInet6Lifetimes(t)
}

// ipv6AddAddr adds a validated address to the device's list, tentative;
// the caller adds its prefix route and starts DAD.
//
// Kernel: ipv6_add_addr (net/ipv6/addrconf.c).
func (d *Device) ipv6AddAddr(t *sim.Task, a Addr, linkLocal bool) *ifaddr6 {
	defer t.Frame("ipv6_add_addr")()
	t.Charge(sim.AddrOp, 1)
	idev := d.inet6
	a.Flags |= AddrTentative
	a.created(t.Now())
	d.tbl.s.addr6Seq++
	ifa := &ifaddr6{Addr: a, linkLocal: linkLocal, hashSeq: d.tbl.s.addr6Seq}
	// ipv6_link_dev_addr: before the first address of the same or a larger scope.
	at := len(idev.addrs)
	for i, o := range idev.addrs {
		if o.Scope >= a.Scope {
			at = i
			break
		}
	}
	if at == 0 {
		idev.pushFront(ifa)
	} else {
		idev.addrs = slices.Insert(idev.addrs, at, ifa)
	}
	if d.listed {
		d.tbl.inet6Addrs++
	}
	if idev.byAddr == nil {
		idev.byAddr = map[netip.Addr]*ifaddr6{}
	}
	idev.byAddr[a.Prefix.Addr()] = ifa
	return ifa
}

// pushFront puts ifa first in addrs, in constant amortized time: addrs is
// the tail of front, which keeps room before it. A removal that rebuilt
// addrs elsewhere is noticed, and addrs moved back.
func (idev *inet6Dev) pushFront(ifa *ifaddr6) {
	n := len(idev.addrs)
	view := n == 0 || idev.head > 0 && idev.head+n <= len(idev.front) && &idev.front[idev.head] == &idev.addrs[0]
	if !view || idev.head == 0 {
		front := make([]*ifaddr6, 2*n+8)
		idev.head = len(front) - n
		copy(front[idev.head:], idev.addrs)
		idev.front = front
	}
	idev.head--
	idev.front[idev.head] = ifa
	idev.addrs = idev.front[idev.head : idev.head+n+1]
}

// DelInet6 removes the IPv6 address p (address and prefix length).
//
// Kernel: inet6_rtm_deladdr → inet6_addr_del (net/ipv6/addrconf.c):
// EADDRNOTAVAIL when no address matches both.
func (d *Device) DelInet6(t *sim.Task, p netip.Prefix) error {
	defer t.Frame("inet6_rtm_deladdr")()
	idev := d.inet6
	if idev == nil {
		return errno.New(syscall.ENXIO, "IPv6 is disabled on this device")
	}
	i := slices.IndexFunc(idev.addrs, func(a *ifaddr6) bool { return a.Prefix == p })
	if i < 0 {
		return errno.New(syscall.EADDRNOTAVAIL, "ipv6: address not found")
	}
	t.Charge(sim.AddrOp, 1)
	ifa := idev.addrs[i]
	d.setInet6Addrs(slices.Delete(idev.addrs, i, i+1))
	d.ipv6DelAddr(t, ifa)
	return nil
}

// ipv6DelAddr removes an address already taken off the device's list: its
// routes and groups go (__ipv6_ifa_notify(RTM_DELADDR)), and a permanent
// address with a prefix route takes it along unless another address of the
// device has the same prefix.
//
// Kernel: ipv6_del_addr (net/ipv6/addrconf.c).
func (d *Device) ipv6DelAddr(t *sim.Task, ifa *ifaddr6) {
	defer t.Frame("ipv6_del_addr")()
	ifa.state = dadDead
	ifa.generation++
	d.tbl.s.addrMsg(t, d, ifa.Addr, true, false)
	d.ipv6IfaDelAddr(t, ifa)
	d.tbl.s.addrNotify(t, EventDown, d, ifa.Addr)
	if ifa.Flags&AddrPermanent != 0 && ifa.Flags&AddrNoPrefixRoute == 0 && d.cleanupPrefixRouteNeeded(ifa) {
		d.tbl.fib6.DelPrefixRoute(t, d, ifa.Prefix.Masked(), 0) // cleanup_prefix_route
	}
	// rt6_remove_prefsrc: a walk of every table (fib6_clean_all).
	d.tbl.fib6.RemovePrefsrc(t, d, ifa.Prefix.Addr())
}

// ipv6IfaDelAddr takes an address out of service: it leaves the address's
// anycast and solicited-node groups and deletes its peer route and its
// local route, whose memory (and device reference) goes one grace period
// later.
//
// Kernel: __ipv6_ifa_notify(RTM_DELADDR) (net/ipv6/addrconf.c).
func (d *Device) ipv6IfaDelAddr(t *sim.Task, ifa *ifaddr6) {
	d.ipv6LeaveAddrGroups(t, ifa)
	if ifa.Peer.IsValid() && !ifa.Peer.IsUnspecified() {
		d.tbl.fib6.DelPrefixRoute(t, d, netip.PrefixFrom(ifa.Peer, 128), 0)
	}
	d.ipv6DropLocalRoute(t, ifa)
	d.tbl.fib6.FlushTrees(t) // rt_genid_bump_ipv6
}
