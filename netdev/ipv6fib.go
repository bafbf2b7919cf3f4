// The IPv6 FIB as addrconf drives it. netdev never imports the FIB (package
// fib6); the namespace's FIB implements IPv6FIB and is installed on the
// device table with Table.SetIPv6FIB.

package netdev

import (
	"net/netip"

	"github.com/netsimlab/netsim/sim"
)

// Route6 is one IPv6 route that addrconf keeps a reference to (struct
// fib6_info, as held by inet6_ifaddr.rt and ifacaddr6.aca_rt). The
// reference keeps the route's memory, and so its device reference, alive
// until IPv6FIB.Release drops it.
type Route6 interface {
	// Linked reports whether the route is in a table (rt->fib6_node != NULL).
	Linked() bool
}

// AddrconfRoute describes a route addrconf creates.
type AddrconfRoute struct {
	Kind   AddrconfKind
	Dev    *Device
	Prefix netip.Prefix // the address (/128) for local and anycast routes
	Table  uint32       // 0: the kind's table (local, or main / the device's VRF)
	Metric uint32       // prefix routes: IFA_RT_PRIORITY, 0 = IP6_RT_PRIO_ADDRCONF (256)
	// Expires is when a prefix route expires (RTF_EXPIRES); 0 is never.
	Expires sim.Time
	// NoPrefixFlag leaves RTF_PREFIX_RT off a prefix route (fe80::/64 and a
	// route for an address with a peer).
	NoPrefixFlag bool
}

// AddrconfKind is which of addrconf's routes an AddrconfRoute is.
type AddrconfKind uint8

// The kinds of addrconf routes.
const (
	// AddrconfLocal is an address's local route in table local
	// (addrconf_f6i_alloc, anycast false).
	AddrconfLocal AddrconfKind = iota
	// AddrconfAnycast is a subnet-router anycast route in table local
	// (addrconf_f6i_alloc, anycast true).
	AddrconfAnycast
	// AddrconfPrefix is a prefix route, proto kernel (addrconf_prefix_route).
	AddrconfPrefix
	// AddrconfMulticast is ff00::/8, type multicast, in table local
	// (addrconf_add_mroute).
	AddrconfMulticast
)

// IPv6FIB is what addrconf calls in net/ipv6/route.c and ip6_fib.c.
// Every method runs with RTNL held.
type IPv6FIB interface {
	// AddAddrconfRoute adds route r (ip6_ins_rt). For the local and
	// anycast kinds it returns the route with a reference the caller owns;
	// for the others it returns nil.
	AddAddrconfRoute(t *sim.Task, r AddrconfRoute) (Route6, error)
	// DelRoute removes rt from its table if it is still in one (ip6_del_rt).
	DelRoute(t *sim.Task, rt Route6)
	// Release drops the caller's reference to rt (fib6_info_release); the
	// last one frees it one RCU grace period later, dropping its device
	// reference.
	Release(t *sim.Task, rt Route6)
	// DelPrefixRoute removes dev's addrconf prefix route for p, if any
	// (addrconf_get_prefix_route + ip6_del_rt, as cleanup_prefix_route).
	DelPrefixRoute(t *sim.Task, dev *Device, p netip.Prefix, table uint32)
	// SyncUp clears flags (RTNH_F_DEAD, RTNH_F_LINKDOWN) on dev's routes
	// (rt6_sync_up).
	SyncUp(t *sim.Task, dev *Device, flags uint8)
	// SyncDownDev removes or marks dev's routes for event ev
	// (rt6_sync_down_dev); DisableIP is rt6_disable_ip.
	SyncDownDev(t *sim.Task, dev *Device, ev Event)
	DisableIP(t *sim.Task, dev *Device, ev Event)
	// RemovePrefsrc clears the preferred source a, a deleted address of
	// dev, from the routes through dev (rt6_remove_prefsrc).
	RemovePrefsrc(t *sim.Task, dev *Device, a netip.Addr)
	// FlushTrees walks every node of every table to renew its serial
	// number (fib6_flush_trees, after rt_genid_bump_ipv6).
	FlushTrees(t *sim.Task)
	// MTUChange gives the routes through dev its new MTU mtu, the device's
	// IPv6 MTU having been oldMTU (rt6_mtu_change).
	MTUChange(t *sim.Task, dev *Device, oldMTU, mtu int)
}

// IPv6FIBCounts is implemented by an IPv6FIB that can say what its routes
// hold, for inspection and for the device table's invariants
// (Table.CheckInvariants): the routes via a device, and the device
// references its routes' nexthops (fib6_nh) hold.
type IPv6FIBCounts interface {
	// DevRoutes is the number of routes in the tables whose nexthop is
	// dev, or every route in the tables for dev nil.
	DevRoutes(dev *Device) int
	// DevRefs is the number of references to dev held by the routes in
	// the tables (fib6_nh_init's netdev_hold). The routes addrconf holds
	// out of the tables are addrconf's to count, and those whose
	// destruction waits for an RCU grace period are not counted.
	DevRefs(dev *Device) int64
}

// noIPv6FIB is the IPv6FIB of a namespace that has none installed: it keeps
// no routes.
type noIPv6FIB struct{}

// noRoute6 is a route noIPv6FIB hands out. It holds no device reference
// and reports itself linked, so that addrconf neither makes it again nor
// counts it as held out of the tables.
type noRoute6 struct{}

func (noRoute6) Linked() bool { return true }

func (noIPv6FIB) AddAddrconfRoute(_ *sim.Task, r AddrconfRoute) (Route6, error) {
	if r.Kind == AddrconfLocal || r.Kind == AddrconfAnycast {
		return noRoute6{}, nil
	}
	return nil, nil
}
func (noIPv6FIB) DelRoute(*sim.Task, Route6)                              {}
func (noIPv6FIB) Release(*sim.Task, Route6)                               {}
func (noIPv6FIB) DelPrefixRoute(*sim.Task, *Device, netip.Prefix, uint32) {}
func (noIPv6FIB) SyncUp(*sim.Task, *Device, uint8)                        {}
func (noIPv6FIB) SyncDownDev(*sim.Task, *Device, Event)                   {}
func (noIPv6FIB) DisableIP(*sim.Task, *Device, Event)                     {}
func (noIPv6FIB) RemovePrefsrc(*sim.Task, *Device, netip.Addr)            {}
func (noIPv6FIB) FlushTrees(*sim.Task)                                    {}
func (noIPv6FIB) MTUChange(*sim.Task, *Device, int, int)                  {}

func (noIPv6FIB) DevRoutes(*Device) int { return 0 }
func (noIPv6FIB) DevRefs(*Device) int64 { return 0 }
