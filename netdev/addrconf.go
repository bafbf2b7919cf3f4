// IPv6 addrconf-lite: the per-device IPv6 state (struct inet6_dev), link-local
// address generation, duplicate address detection as deferred work, the
// multicast groups a device joins (all-nodes, all-routers, solicited-node),
// subnet-router anycast addresses when forwarding, and the IPv6 routes that
// addresses and devices bring (local, anycast and prefix routes, fe80::/64,
// ff00::/8), made and removed through the namespace's IPv6FIB. Follows
// net/ipv6/addrconf.c, mcast.c and anycast.c.

package netdev

import (
	"net/netip"
	"slices"
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// IPv6MinMTU is the smallest MTU on which a device gets IPv6 (IPV6_MIN_MTU).
const IPv6MinMTU = 1280

// DAD timing (net/ipv6/addrconf.c defaults): one probe (dad_transmits),
// retrans_time 1 s, and a random initial delay below rtr_solicit_delay 1 s.
const (
	dadRetrans      = time.Second
	dadInitialDelay = time.Second
)

type dadState uint8

const (
	dadPre  dadState = iota // INET6_IFADDR_STATE_PREDAD: DAD work queued
	dadRun                  // INET6_IFADDR_STATE_DAD: probing (or waiting for the link)
	dadPost                 // INET6_IFADDR_STATE_POSTDAD / ERRDAD: done
	dadDead                 // INET6_IFADDR_STATE_DEAD: removed
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

// mcGroup is one IPv6 multicast group membership, struct ifmcaddr6.
// acAddr is one anycast address, struct ifacaddr6, with its anycast route.
type acAddr struct {
	addr  netip.Addr
	users int
	rt    Route6 // aca_rt: the anycast route, held by the ifacaddr6
}

// inet6Dev is a device's IPv6 state, struct inet6_dev.
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

var (
	ipv6AllNodesIface   = netip.MustParseAddr("ff01::1")
	ipv6AllNodesLink    = netip.MustParseAddr("ff02::1")
	ipv6AllRoutersLink  = netip.MustParseAddr("ff02::2")
	ipv6MulticastPrefix = netip.MustParsePrefix("ff00::/8")
)

// ipv6MulticastMAC maps an IPv6 multicast group to its Ethernet address:
// 33:33 and the group's last four bytes.
//
// Kernel: ipv6_eth_mc_map (include/net/if_inet6.h).
func ipv6MulticastMAC(a netip.Addr) MAC {
	b := a.As16()
	return MAC{0x33, 0x33, b[12], b[13], b[14], b[15]}
}

// solicitedNode returns the solicited-node group of a: ff02::1:ff00:0/104
// with a's low 24 bits.
//
// Kernel: addrconf_addr_solict_mult (include/net/addrconf.h).
func solicitedNode(a netip.Addr) netip.Addr {
	b := a.As16()
	return netip.AddrFrom16([16]byte{0xff, 0x02, 10: 0, 11: 0x01, 12: 0xff, 13: b[13], 14: b[14], 15: b[15]})
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

// addrconfAddMroute adds the device's ff00::/8 multicast route in table
// local (or its VRF's table).
//
// Kernel: addrconf_add_mroute (net/ipv6/addrconf.c).
func (d *Device) addrconfAddMroute(t *sim.Task) {
	_, _ = d.tbl.fib6.AddAddrconfRoute(t, AddrconfRoute{Kind: AddrconfMulticast, Dev: d, Prefix: ipv6MulticastPrefix})
}

// addrconfPrefixRoute adds the prefix route of p via the device, proto
// kernel, with metric (IFA_RT_PRIORITY; 0 is 256), expiring at expires
// (0: never). A failure (the device is down, the route exists) is ignored,
// as the kernel ignores it.
//
// Kernel: addrconf_prefix_route (net/ipv6/addrconf.c). Addresses' prefix
// routes have no RTF_PREFIX_RT (only router advertisements' do).
func (d *Device) addrconfPrefixRoute(t *sim.Task, p netip.Prefix, metric uint32, expires sim.Time) {
	_, _ = d.tbl.fib6.AddAddrconfRoute(t, AddrconfRoute{
		Kind: AddrconfPrefix, Dev: d, Prefix: p.Masked(), Metric: metric, Expires: expires, NoPrefixFlag: true,
	})
}

func (idev *inet6Dev) find(a netip.Addr) *ifaddr6 {
	if ifa := idev.byAddr[a]; ifa != nil && ifa.state != dadDead {
		return ifa
	}
	return nil
}

// inet6Count is the number of IPv6 addresses in the namespace: the length
// of addrconf_verify_rtnl's walk of inet6_addr_lst.
func (tb *Table) inet6Count() int64 {
	n := 0
	for d := tb.head; d != nil; d = d.next {
		if d.inet6 != nil {
			n += len(d.inet6.addrs)
		}
	}
	return int64(n)
}

// verifyAddrs charges the addrconf_verify_rtnl run that ends every
// address add and change made by a request (inet6_addr_add,
// inet6_addr_modify): a walk of every IPv6 address of the namespace, which
// finds nothing to do while no address has a finite lifetime. The
// lifetime events themselves are armInet6Lifetimes'.
func (d *Device) verifyAddrs(t *sim.Task) {
	t.Charge(sim.Inet6HashVisit, d.tbl.inet6Count())
}

// ipv6HeldRoutes counts the local and anycast routes the device's
// addresses hold that are out of the tables (each keeps its device
// reference until released).
func (d *Device) ipv6HeldRoutes() int64 {
	n := int64(0)
	if d.inet6 != nil {
		for _, ifa := range d.inet6.addrs {
			if ifa.rt != nil && !ifa.rt.Linked() {
				n++
			}
		}
		for _, ac := range d.inet6.ac {
			if ac.rt != nil && !ac.rt.Linked() {
				n++
			}
		}
	}
	return n
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

// Inet6Groups returns the IPv6 multicast groups the device has joined, with
// their user counts.
func (d *Device) Inet6Groups() map[netip.Addr]int {
	m := map[netip.Addr]int{}
	if d.inet6 != nil {
		for g := range d.inet6.mc.oldestFirst() {
			m[g.addr] = g.users
		}
	}
	return m
}

// Inet6Anycast returns the device's anycast addresses, newest first.
func (d *Device) Inet6Anycast() []netip.Addr {
	var out []netip.Addr
	if d.inet6 != nil {
		for _, a := range d.inet6.ac {
			out = append(out, a.addr)
		}
	}
	return out
}

// IPv6Routes returns the number of IPv6 routes in the namespace's tables
// whose nexthop is this device, as the namespace's IPv6FIB counts them (0
// if it does not count: see IPv6FIBCounts).
func (d *Device) IPv6Routes() int {
	if c, ok := d.tbl.fib6.(IPv6FIBCounts); ok {
		return c.DevRoutes(d)
	}
	return 0
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

// prefixExpires is when an address's prefix route expires if the address
// is given valid lifetime valid now: the end of that lifetime, or never
// (0) for a permanent address.
//
// Kernel: inet6_addr_add, inet6_addr_modify (net/ipv6/addrconf.c): RTF_EXPIRES
// with a finite valid lifetime.
func prefixExpires(now sim.Time, valid uint32) sim.Time {
	if valid == LifetimeForever {
		return 0
	}
	return now.Add(time.Duration(valid) * time.Second)
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

// rtPriority6 is the metric of a prefix route for an address's
// IFA_RT_PRIORITY: IP6_RT_PRIO_ADDRCONF (256) for none.
func rtPriority6(m uint32) uint32 {
	if m == 0 {
		return 256
	}
	return m
}

// cleanupPrefixRouteNeeded reports whether removing ifa's prefix route is
// due: no other address of the device has the same prefix and prefix
// length. Another permanent one (or one without a prefix route) keeps the
// route; another with a finite lifetime would have the kernel give the
// route that lifetime (CLEANUP_PREFIX_RT_EXPIRE), which is not modelled:
// the route stays.
//
// Kernel: check_cleanup_prefix_route (net/ipv6/addrconf.c).
func (d *Device) cleanupPrefixRouteNeeded(ifa *ifaddr6) bool {
	for _, o := range d.inet6.addrs {
		if o != ifa && o.Prefix.Bits() == ifa.Prefix.Bits() && o.Prefix.Masked() == ifa.Prefix.Masked() {
			return false
		}
	}
	return true
}

// ipv6AddAddr adds a validated address to the device's list, tentative;
// the caller adds its prefix route and starts DAD.
//
// Kernel: ipv6_add_addr (net/ipv6/addrconf.c).
func (d *Device) ipv6AddAddr(t *sim.Task, a Addr, linkLocal bool) *ifaddr6 {
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
	idev.addrs = slices.Delete(idev.addrs, i, i+1)
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
}

// ipv6DropLocalRoute deletes the address's local route and drops the
// address's reference to it (ip6_del_rt).
func (d *Device) ipv6DropLocalRoute(t *sim.Task, ifa *ifaddr6) {
	if r := ifa.rt; r != nil {
		ifa.rt = nil
		d.tbl.fib6.DelRoute(t, r)
		d.tbl.fib6.Release(t, r)
	}
}

// ipv6LeaveAddrGroups leaves the anycast and solicited-node groups of an
// address.
func (d *Device) ipv6LeaveAddrGroups(t *sim.Task, ifa *ifaddr6) {
	if ifa.anycast {
		ifa.anycast = false
		d.ipv6AcDec(t, ifa.Prefix.Masked().Addr())
	}
	if ifa.solicit {
		ifa.solicit = false
		d.ipv6LeaveSolicit(t, ifa.Prefix.Addr())
	}
}

// dadStart queues DAD for ifa.
//
// Kernel: addrconf_dad_start → addrconf_mod_dad_work(ifp, 0).
func (d *Device) dadStart(t *sim.Task, ifa *ifaddr6) {
	ifa.state = dadPre
	gen := ifa.generation
	d.tbl.s.wq.Queue(t, 0, "addrconf_dad_work", func(kw *sim.Task) { d.dadBegin(kw, ifa, gen) })
}

// dadBegin runs in the DAD worker with RTNL held.
//
// Kernel: addrconf_dad_work → addrconf_dad_begin (net/ipv6/addrconf.c): the
// solicited-node join first; immediate completion on NOARP and loopback
// devices, with DAD disabled or for NODAD addresses; otherwise probing after
// a random delay.
func (d *Device) dadBegin(t *sim.Task, ifa *ifaddr6, gen int) {
	idev := d.inet6
	if idev == nil || idev.dead || ifa.generation != gen || ifa.state != dadPre {
		return
	}
	if !ifa.solicit {
		ifa.solicit = d.ipv6JoinSolicit(t, ifa.Prefix.Addr())
	}
	ifa.state = dadRun
	if d.flags&(FlagNoARP|FlagLoopback) != 0 || (d.tbl.IPv6All.AcceptDAD < 1 && idev.cnf.AcceptDAD < 1) ||
		ifa.Flags&AddrTentative == 0 || ifa.Flags&AddrNoDAD != 0 {
		d.dadCompleted(t, ifa)
		return
	}
	if !idev.ready {
		return // addrconf_dad_stop: stays tentative until the link is ready
	}
	delay := dadRetrans + time.Duration(d.tbl.s.rng.Int64N(int64(dadInitialDelay)))
	d.tbl.s.wq.Queue(t, delay, "addrconf_dad_work", func(kw *sim.Task) {
		if ifa.generation == gen && ifa.state == dadRun && d.inet6 == idev && !idev.dead && idev.ready {
			d.dadCompleted(kw, ifa)
		}
	})
}

// dadCompleted marks ifa usable and announces it: its local route goes in
// (made anew if the address has none in a table), its peer gets a /128
// route and, when forwarding, its subnet-router anycast address is joined.
//
// Kernel: addrconf_dad_completed → ipv6_ifa_notify(RTM_NEWADDR) →
// __ipv6_ifa_notify (net/ipv6/addrconf.c). The kernel allocates the local
// route with the address (ipv6_add_addr, fixup_permanent_addr) and inserts
// it here; netsim makes it here.
func (d *Device) dadCompleted(t *sim.Task, ifa *ifaddr6) {
	ifa.state = dadPost
	ifa.Flags &^= AddrTentative
	d.tbl.s.addrMsg(t, d, ifa.Addr, false, false) // before its local route
	if ifa.rt != nil && !ifa.rt.Linked() {
		d.ipv6DropLocalRoute(t, ifa)
	}
	if ifa.rt == nil {
		// The address keeps the route even if ip6_ins_rt failed.
		ifa.rt, _ = d.tbl.fib6.AddAddrconfRoute(t, AddrconfRoute{Kind: AddrconfLocal, Dev: d, Prefix: netip.PrefixFrom(ifa.Prefix.Addr(), 128)})
	}
	if d.inet6.cnf.Forwarding {
		d.ipv6JoinAnycast(t, ifa)
	}
	if ifa.Peer.IsValid() && !ifa.Peer.IsUnspecified() {
		d.addrconfPrefixRoute(t, netip.PrefixFrom(ifa.Peer, 128), ifa.Metric, 0)
	}
	d.tbl.s.addrNotify(t, EventUp, d, ifa.Addr)
}

// ipv6JoinAnycast joins the subnet-router anycast address of ifa's prefix,
// unless ifa has already joined it or the prefix has none (a /127 or /128,
// or ::/n).
//
// Kernel: addrconf_join_anycast (net/ipv6/addrconf.c).
func (d *Device) ipv6JoinAnycast(t *sim.Task, ifa *ifaddr6) {
	p := ifa.Prefix
	if ifa.anycast || p.Bits() >= 127 || p.Masked().Addr().IsUnspecified() {
		return
	}
	if d.ipv6AcInc(t, p.Masked().Addr()) == nil {
		ifa.anycast = true
	}
}

// ipv6JoinSolicit joins a's solicited-node group; NOARP and loopback
// devices join none.
//
// Kernel: addrconf_join_solict (net/ipv6/addrconf.c).
func (d *Device) ipv6JoinSolicit(t *sim.Task, a netip.Addr) bool {
	if d.flags&(FlagNoARP|FlagLoopback) != 0 {
		return false
	}
	d.ipv6McInc(t, solicitedNode(a))
	return true
}

// ipv6LeaveSolicit leaves a's solicited-node group.
//
// Kernel: addrconf_leave_solict (net/ipv6/addrconf.c).
func (d *Device) ipv6LeaveSolicit(t *sim.Task, a netip.Addr) {
	d.ipv6McDec(t, solicitedNode(a))
}

// ipv6McInc joins group g, loading its MAC into the device's mc list the
// first time (groups of interface-local scope have no MAC).
//
// Kernel: ipv6_dev_mc_inc → igmp6_group_added (net/ipv6/mcast.c).
func (d *Device) ipv6McInc(t *sim.Task, g netip.Addr) {
	if m := mcJoin(t, &d.inet6.mc, g); m != nil {
		d.ipv6McLoad(t, m)
	}
}

// ipv6McHasMAC reports whether group g is in the device's mc list while
// loaded: not for groups of interface-local scope, nor on devices that map
// no multicast MACs.
func (d *Device) ipv6McHasMAC(g netip.Addr) bool {
	return g.As16()[1]&0x0f >= 2 && d.ethMulticast()
}

// ipv6McLoad puts a group's MAC in the device's mc list, once.
//
// Kernel: igmp6_group_added (net/ipv6/mcast.c).
func (d *Device) ipv6McLoad(t *sim.Task, m *mcGroup) {
	if m.loaded {
		return
	}
	m.loaded = true
	if d.ipv6McHasMAC(m.addr) {
		_ = d.MCAdd(t, ipv6MulticastMAC(m.addr))
	}
}

// ipv6McUnload takes a loaded group's MAC out of the device's mc list.
//
// Kernel: igmp6_group_dropped (net/ipv6/mcast.c).
func (d *Device) ipv6McUnload(t *sim.Task, m *mcGroup) {
	if !m.loaded {
		return
	}
	m.loaded = false
	if d.ipv6McHasMAC(m.addr) {
		_ = d.MCDel(t, ipv6MulticastMAC(m.addr))
	}
}

// ipv6McDec drops a user of group g, leaving it with the last.
//
// Kernel: __ipv6_dev_mc_dec → igmp6_group_dropped (net/ipv6/mcast.c).
func (d *Device) ipv6McDec(t *sim.Task, g netip.Addr) {
	if m := mcLeave(t, &d.inet6.mc, g); m != nil {
		d.ipv6McUnload(t, m)
	}
}

// ipv6McUp reloads every group (ipv6_mc_up); ipv6McDown unloads them
// (ipv6_mc_down), keeping the memberships.
func (d *Device) ipv6McUp(t *sim.Task) {
	for m := range d.inet6.mc.oldestFirst() {
		d.ipv6McLoad(t, m)
	}
}

func (d *Device) ipv6McDown(t *sim.Task) {
	for m := range d.inet6.mc.newestFirst() {
		d.ipv6McUnload(t, m)
	}
}

// ipv6AcInc joins anycast address a. A new anycast address gets an anycast
// route whose nexthop holds a device reference, and joins its
// solicited-node group.
//
// Kernel: __ipv6_dev_ac_inc (net/ipv6/anycast.c).
func (d *Device) ipv6AcInc(t *sim.Task, a netip.Addr) error {
	idev := d.inet6
	if idev.dead {
		return errno.New(syscall.ENODEV, "device is going away")
	}
	for _, ac := range idev.ac {
		if ac.addr == a {
			ac.users++
			return nil
		}
	}
	// The ifacaddr6 keeps the route even if ip6_ins_rt failed; only
	// failing to make one fails.
	r, err := d.tbl.fib6.AddAddrconfRoute(t, AddrconfRoute{Kind: AddrconfAnycast, Dev: d, Prefix: netip.PrefixFrom(a, 128)})
	if r == nil {
		return err
	}
	idev.ac = slices.Insert(idev.ac, 0, &acAddr{addr: a, users: 1, rt: r})
	d.ipv6JoinSolicit(t, a)
	return nil
}

// ipv6AcDec drops a user of anycast address a; the last user removes it.
//
// Kernel: __ipv6_dev_ac_dec (net/ipv6/anycast.c).
func (d *Device) ipv6AcDec(t *sim.Task, a netip.Addr) {
	idev := d.inet6
	i := slices.IndexFunc(idev.ac, func(ac *acAddr) bool { return ac.addr == a })
	if i < 0 {
		return
	}
	ac := idev.ac[i]
	if ac.users--; ac.users > 0 {
		return
	}
	idev.ac = slices.Delete(idev.ac, i, i+1)
	d.ipv6AcFree(t, ac)
}

// ipv6AcFree removes an anycast address: leave its solicited-node group,
// delete its route, and drop the ifacaddr6 — whose memory goes in one RCU
// callback that drops the anycast route, whose own memory and device
// reference go in a second RCU callback queued by the first.
//
// Kernel: __ipv6_dev_ac_dec / ipv6_ac_destroy_dev → aca_put →
// call_rcu(aca_free_rcu) → fib6_info_release → call_rcu(fib6_info_destroy_rcu)
// → fib6_nh_release → dev_put.
func (d *Device) ipv6AcFree(t *sim.Task, ac *acAddr) {
	if d.flags&(FlagNoARP|FlagLoopback) == 0 {
		d.ipv6LeaveSolicit(t, ac.addr)
	}
	f := d.tbl.fib6
	f.DelRoute(t, ac.rt)
	d.tbl.s.w.RCU().Call(t, func(k *sim.Task) { // aca_free_rcu
		f.Release(k, ac.rt)
	})
}

// addrconfIfdown tears IPv6 down on a device going down (unregister=false)
// or away. Every IPv6 route of the namespace is walked once
// (rt6_disable_ip → fib6_clean_all). With keep_addr_on_down, permanent
// global addresses survive a down, tentative again.
//
// Kernel: addrconf_ifdown (net/ipv6/addrconf.c).
func (d *Device) addrconfIfdown(t *sim.Task, unregister bool) {
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
	idev.addrs = kept
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
