// IPv6 addrconf-lite: the per-device IPv6 state (struct inet6_dev), how
// it follows the device (addrconf_notify: NETDEV_REGISTER, UP, CHANGE,
// DOWN, UNREGISTER; ipv6_add_dev, addrconf_ifdown), link-local address
// generation, and forwarding (addrconf_fixup_forwarding,
// dev_forward_change). Follows net/ipv6/addrconf.c. Addresses are in
// addrconf_addr.go, DAD in addrconf_dad.go, the routes addrconf installs in
// addrconf_route.go, multicast and anycast in mcast6.go.

package netdev

import (
	"net/netip"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// IPv6MinMTU is the smallest MTU on which a device gets IPv6 (IPV6_MIN_MTU).
const IPv6MinMTU = 1280

// inet6Dev is a device's IPv6 state, struct inet6_dev. Guarded by RTNL, as
// its device is.
type inet6Dev struct {
	cnf   IPv6Conf
	addrs []*ifaddr6 // addr_list, by scope: global first, newest first within a scope
	// byAddr indexes addrs by address (the kernel finds an address in the
	// namespace's hash, inet6_addr_lst); an address taken off addrs is
	// dadDead, and find skips it.
	byAddr map[netip.Addr]*ifaddr6
	// front holds addrs at its end, from head, with room before it for
	// the global addresses that go first (pushFront).
	front []*ifaddr6
	head  int
	mc    mcList    // mc_list
	ac    []*acAddr // ac_list, newest first
	mtu6  int       // cnf.mtu6: the MTU IPv6 last took from the device
	ready bool      // IF_READY
	dead  bool
	lft   lftTimer // the pending lifetime check (addrconf_verify_work)
}

// eui64LinkLocal returns fe80:: with the modified EUI-64 interface
// identifier of mac.
//
// Kernel: addrconf_ifid_eui48 (net/ipv6/addrconf.c).
func eui64LinkLocal(mac MAC) netip.Addr {
	return netip.AddrFrom16([16]byte{0xfe, 0x80, 8: mac[0] ^ 0x02, 9: mac[1], 10: mac[2], 11: 0xff, 12: 0xfe, 13: mac[3], 14: mac[4], 15: mac[5]})
}

func ipv6Scope(a netip.Addr) Scope {
	switch {
	case a.IsLoopback():
		return ScopeHost
	case a.IsLinkLocalUnicast():
		return ScopeLink
	}
	return ScopeUniverse
}

// addrconfNotify is the IPv6 side of the netdev notifier chain.
//
// Kernel: addrconf_notify (net/ipv6/addrconf.c).
func addrconfNotify(t *sim.Task, ev Event, d *Device) error {
	defer t.Frame("addrconf_notify")()
	tb := d.tbl
	switch ev {
	case EventRegister:
		if d.mtu >= IPv6MinMTU && !tb.IPv6Default.DisableIPv6 {
			d.ipv6AddDev(t)
		}
	case EventUp, EventChange:
		idev := d.inet6
		if idev != nil && idev.cnf.DisableIPv6 || !d.IsUp() {
			return nil
		}
		if d.flags&FlagSlave != 0 {
			// IFF_SLAVE (IFF_NO_ADDRCONF today): groups only, no addresses.
			if idev != nil {
				d.ipv6McUp(t)
			}
			return nil
		}
		if ev == EventUp && idev != nil {
			// addrconf_permanent_addr: kept addresses, and those added
			// while the device was down, get their routes back.
			d.addrconfPermanentAddr(t)
		}
		if !d.linkReady() {
			// The link is not ready: wait for NETDEV_CHANGE. A device
			// losing its carrier marks its routes linkdown.
			if ev == EventChange && idev != nil {
				tb.fib6.SyncDownDev(t, d, EventChange)
			}
			return nil
		}
		if idev == nil && d.mtu >= IPv6MinMTU && !tb.IPv6Default.DisableIPv6 {
			d.ipv6AddDev(t)
			idev = d.inet6
		}
		if idev == nil {
			return nil
		}
		if idev.ready {
			// Already configured: the carrier came back.
			d.ipv6McUp(t)
			tb.fib6.SyncUp(t, d, uint8(rt.FlagLinkDown))
			return nil
		}
		idev.ready = true
		d.addrconfUp(t)
	case EventDown:
		d.addrconfIfdown(t, false)
	case EventUnregister:
		d.addrconfIfdown(t, true)
	case EventChangeUpper:
		// Entering or leaving an L3 master domain flushes the addresses
		// and routes; the vrf then cycles the device.
		if u := d.changingUpper; u != nil && u.isL3Master() && d.inet6 != nil {
			d.addrconfIfdown(t, false)
		}
	case EventChangeMTU:
		// Below IPV6_MIN_MTU a device loses IPv6 (loopback only goes
		// down); back above it gets a new inet6_dev.
		if d.mtu < IPv6MinMTU {
			if d.inet6 != nil {
				d.addrconfIfdown(t, !d.isLoopback())
			}
			return nil
		}
		if idev := d.inet6; idev != nil {
			// rt6_mtu_change (a walk of every table), then mtu6.
			tb.fib6.MTUChange(t, d, idev.mtu6, d.mtu)
			idev.mtu6 = d.mtu
			return nil
		}
		if tb.IPv6Default.DisableIPv6 {
			return nil
		}
		d.ipv6AddDev(t)
		if d.IsUp() && d.linkReady() && d.flags&FlagSlave == 0 {
			d.inet6.ready = true
			d.addrconfUp(t)
		}
	}
	return nil
}

// linkReady reports whether addrconf may configure the device: its
// operstate, which linkwatch sets after a carrier change, is up (or
// unknown, for the kinds that never report one).
//
// Kernel: addrconf_link_ready → netif_oper_up (net/ipv6/addrconf.c).
func (d *Device) linkReady() bool {
	return d.operState == OperUp || d.operState == OperUnknown
}

// ipv6AddDev creates the device's IPv6 state and joins the all-nodes groups
// (and all-routers when forwarding). The inet6_dev holds a device reference.
//
// Kernel: ipv6_add_dev (net/ipv6/addrconf.c).
func (d *Device) ipv6AddDev(t *sim.Task) {
	defer t.Frame("ipv6_add_dev")()
	idev := &inet6Dev{cnf: d.tbl.IPv6Default, mtu6: d.mtu}
	if d.flags&(FlagNoARP|FlagLoopback) != 0 {
		idev.cnf.AcceptDAD = -1
	}
	d.inet6 = idev
	d.Hold()
	d.ipv6McInc(t, ipv6AllNodesIface)
	d.ipv6McInc(t, ipv6AllNodesLink)
	if idev.cnf.Forwarding && d.flags&FlagMulticast != 0 {
		d.ipv6McInc(t, ipv6AllRoutersLink)
	}
}

// addrconfPermanentAddr gives the permanent addresses of a device coming up
// their routes back: their prefix routes (which a device that is down
// cannot take), and DAD again for those addrconf_ifdown left in PREDAD
// (their local route goes in when it completes).
//
// Kernel: addrconf_permanent_addr → fixup_permanent_addr
// (net/ipv6/addrconf.c).
func (d *Device) addrconfPermanentAddr(t *sim.Task) {
	for _, ifa := range d.inet6.addrs {
		if ifa.Flags&AddrPermanent == 0 {
			continue
		}
		if ifa.Flags&AddrNoPrefixRoute == 0 {
			d.addrconfPrefixRoute(t, ifa.Prefix, ifa.Metric, 0)
		}
		if ifa.state == dadPre {
			d.dadStart(t, ifa)
		}
	}
}

// addrconfUp configures IPv6 on a device that came up with carrier.
//
// Kernel: addrconf_notify NETDEV_UP / NETDEV_CHANGE: init_loopback or
// addrconf_dev_config (ipv6_mc_up, addrconf_add_mroute,
// addrconf_add_linklocal with its fe80::/64 prefix route), addrconf_dad_run,
// rt6_sync_up(RTNH_F_DEAD).
func (d *Device) addrconfUp(t *sim.Task) {
	defer t.Frame("addrconf_dev_config")()
	idev := d.inet6
	d.ipv6McUp(t)
	if d.isLoopback() {
		if idev.find(netip.IPv6Loopback()) == nil {
			// init_loopback → add_addr: ::1 is usable at once, without
			// DAD, and has no prefix route (IFAPROT_KERNEL_LO).
			ifa := d.ipv6AddAddr(t, Addr{Prefix: netip.PrefixFrom(netip.IPv6Loopback(), 128), Scope: ScopeHost, Flags: AddrPermanent, Proto: AddrProtoKernelLo}, false)
			d.dadCompleted(t, ifa)
		}
	} else if !d.isL3Master() {
		d.addrconfAddMroute(t)
		if d.flags&FlagSlave == 0 {
			ll := eui64LinkLocal(d.addr)
			if idev.find(ll) == nil {
				// addrconf_add_linklocal: the address, then its
				// fe80::/64 prefix route.
				ifa := d.ipv6AddAddr(t, Addr{Prefix: netip.PrefixFrom(ll, 64), Scope: ScopeLink, Flags: AddrPermanent, Proto: AddrProtoKernelLL}, true)
				d.addrconfPrefixRoute(t, ifa.Prefix, 0, 0)
				d.dadStart(t, ifa)
			}
		}
	}
	// addrconf_dad_run: restart DAD of tentative addresses.
	for _, ifa := range idev.addrs {
		if ifa.Flags&AddrTentative != 0 && ifa.state == dadRun {
			d.dadStart(t, ifa)
		}
	}
	// rt6_sync_up: clear RTNH_F_DEAD (and RTNH_F_LINKDOWN, the device
	// having its carrier) on the device's routes.
	d.tbl.fib6.SyncUp(t, d, uint8(rt.FlagDead))
}

// inet6Count is the number of IPv6 addresses in the namespace: the length
// of addrconf_verify_rtnl's walk of inet6_addr_lst.
func (tb *Table) inet6Count() int64 { return int64(tb.inet6Addrs) }

// inet6Len is the number of the device's IPv6 addresses.
func (d *Device) inet6Len() int {
	if d.inet6 == nil {
		return 0
	}
	return len(d.inet6.addrs)
}

// setInet6Addrs replaces the device's IPv6 address list with addrs,
// keeping its table's count.
func (d *Device) setInet6Addrs(addrs []*ifaddr6) {
	if d.listed {
		d.tbl.inet6Addrs += len(addrs) - len(d.inet6.addrs)
	}
	d.inet6.addrs = addrs
}

// verifyAddrs charges the addrconf_verify_rtnl run that ends every
// address add and change made by a request (inet6_addr_add,
// inet6_addr_modify): a walk of every IPv6 address of the namespace, which
// finds nothing to do while no address has a finite lifetime. The
// lifetime events themselves are armInet6Lifetimes'.
func (d *Device) verifyAddrs(t *sim.Task) {
	n := d.tbl.inet6Count()
	t.ChargeIn(sim.Inet6HashVisit, n, hashFootprint(n, inet6IfaddrBytes))
}

// addrconfIfdown tears IPv6 down on a device going down (unregister=false)
// or away. Every IPv6 route of the namespace is walked once
// (rt6_disable_ip → fib6_clean_all). With keep_addr_on_down, permanent
// global addresses survive a down, tentative again.
//
// Kernel: addrconf_ifdown (net/ipv6/addrconf.c).
func (d *Device) addrconfIfdown(t *sim.Task, unregister bool) {
	defer t.Frame("addrconf_ifdown")()
	ev := EventDown
	if unregister {
		ev = EventUnregister
	}
	// rt6_disable_ip: every route via the device goes, whatever made it.
	d.tbl.fib6.DisableIP(t, d, ev)
	idev := d.inet6
	if idev == nil {
		return
	}
	keep := !unregister && !idev.cnf.DisableIPv6 && (d.tbl.IPv6All.KeepAddrOnDown || idev.cnf.KeepAddrOnDown)
	var kept []*ifaddr6
	for _, ifa := range idev.addrs {
		if keep && ifa.Flags&AddrPermanent != 0 && !ifa.linkLocal && !ifa.Prefix.Addr().IsLoopback() {
			// Kept, in PREDAD: its local route goes now, without the
			// RTM_DELADDR notification, and comes back after DAD.
			ifa.generation++
			ifa.state = dadPre
			if ifa.Flags&AddrNoDAD == 0 {
				ifa.Flags |= AddrTentative
			}
			d.ipv6DropLocalRoute(t, ifa)
			d.ipv6LeaveAddrGroups(t, ifa)
			kept = append(kept, ifa)
			continue
		}
		ifa.state = dadDead
		ifa.generation++
		d.tbl.s.addrMsg(t, d, ifa.Addr, true, false)
		d.ipv6IfaDelAddr(t, ifa)
		d.tbl.s.addrNotify(t, EventDown, d, ifa.Addr)
	}
	d.setInet6Addrs(kept)
	if unregister {
		idev.dead = true
		// ipv6_ac_destroy_dev
		for len(idev.ac) > 0 {
			ac := idev.ac[0]
			idev.ac = idev.ac[1:]
			d.ipv6AcFree(t, ac)
		}
		// ipv6_mc_destroy_dev
		d.ipv6McDown(t)
		idev.mc = mcList{}
		d.setInet6Addrs(nil)
		d.inet6 = nil
		d.Put() // in6_dev_put: the inet6_dev's reference
		return
	}
	if idev.ready {
		idev.ready = false
		d.ipv6McDown(t)
	}
}

var (
	ipv6AllRoutersIface = netip.MustParseAddr("ff01::2")
	ipv6AllRoutersSite  = netip.MustParseAddr("ff05::2")
)

// SetIPv6Forwarding sets IPv6 forwarding on device d, or with d nil on
// every device and as the default for new ones (net.ipv6.conf.all.forwarding).
//
// Kernel: addrconf_fixup_forwarding → dev_forward_change
// (net/ipv6/addrconf.c): join or leave the all-routers groups and the
// subnet-router anycast address of every address that finished DAD.
func (tb *Table) SetIPv6Forwarding(t *sim.Task, d *Device, on bool) {
	if d != nil {
		d.forwardChange(t, on)
		return
	}
	tb.IPv6All.Forwarding, tb.IPv6Default.Forwarding = on, on
	for dev := tb.head; dev != nil; dev = dev.next {
		dev.forwardChange(t, on)
	}
}

func (d *Device) forwardChange(t *sim.Task, on bool) {
	idev := d.inet6
	if idev == nil || idev.cnf.Forwarding == on {
		return
	}
	idev.cnf.Forwarding = on
	if d.flags&FlagMulticast != 0 {
		for _, g := range []netip.Addr{ipv6AllRoutersLink, ipv6AllRoutersIface, ipv6AllRoutersSite} {
			if on {
				d.ipv6McInc(t, g)
			} else {
				d.ipv6McDec(t, g)
			}
		}
	}
	for _, ifa := range idev.addrs {
		if ifa.Flags&AddrTentative != 0 {
			continue
		}
		if on {
			d.ipv6JoinAnycast(t, ifa)
		} else if ifa.anycast {
			ifa.anycast = false
			d.ipv6AcDec(t, ifa.Prefix.Masked().Addr())
		}
	}
}

// IPv6Conf returns the device's IPv6 configuration, and false if the device
// has no IPv6.
func (d *Device) IPv6Conf() (IPv6Conf, bool) {
	if d.inet6 == nil {
		return IPv6Conf{}, false
	}
	return d.inet6.cnf, true
}

// SetIPv6KeepAddrOnDown sets net.ipv6.conf.DEV.keep_addr_on_down.
func (d *Device) SetIPv6KeepAddrOnDown(on bool) {
	if d.inet6 != nil {
		d.inet6.cnf.KeepAddrOnDown = on
	}
}
