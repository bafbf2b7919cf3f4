// The IPv6 routes addrconf installs, through the namespace's IPv6FIB:
// prefix routes of addresses and their expiry, the multicast route
// ff00::/8, local routes dropped with their address, and the metric of a
// prefix route (addrconf_prefix_route, addrconf_add_mroute,
// modify_prefix_route, check_cleanup_prefix_route: net/ipv6/addrconf.c).

package netdev

import (
	"net/netip"
	"time"

	"github.com/netsimlab/netsim/sim"
)

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
	defer t.Frame("addrconf_prefix_route")()
	_, _ = d.tbl.fib6.AddAddrconfRoute(t, AddrconfRoute{
		Kind: AddrconfPrefix, Dev: d, Prefix: p.Masked(), Metric: metric, Expires: expires, NoPrefixFlag: true,
	})
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

// IPv6Routes returns the number of IPv6 routes in the namespace's tables
// whose nexthop is this device, as the namespace's IPv6FIB counts them (0
// if it does not count: see IPv6FIBCounts).
func (d *Device) IPv6Routes() int {
	if c, ok := d.tbl.fib6.(IPv6FIBCounts); ok {
		return c.DevRoutes(d)
	}
	return 0
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

// ipv6DropLocalRoute deletes the address's local route and drops the
// address's reference to it (ip6_del_rt).
func (d *Device) ipv6DropLocalRoute(t *sim.Task, ifa *ifaddr6) {
	if r := ifa.rt; r != nil {
		ifa.rt = nil
		d.tbl.fib6.DelRoute(t, r)
		d.tbl.fib6.Release(t, r)
	}
}
