// The IPv6 multicast groups and anycast addresses of a device: all-nodes,
// solicited-node and subnet-router anycast joined and left as addresses
// come and go, groups loaded into the device's hardware multicast list
// while it is up (ipv6_dev_mc_inc, __ipv6_dev_mc_dec, igmp6_group_added,
// igmp6_group_dropped, ipv6_mc_up, ipv6_mc_down: net/ipv6/mcast.c;
// __ipv6_dev_ac_inc, __ipv6_dev_ac_dec: net/ipv6/anycast.c;
// addrconf_join_solict, addrconf_join_anycast: net/ipv6/addrconf.c).

package netdev

import (
	"net/netip"
	"slices"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// acAddr is one anycast address, struct ifacaddr6, with its anycast route.
type acAddr struct {
	addr  netip.Addr
	users int
	rt    Route6 // aca_rt: the anycast route, held by the ifacaddr6
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
	defer t.Frame("ipv6_dev_mc_inc")()
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
	defer t.Frame("__ipv6_dev_mc_dec")()
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
	defer t.Frame("__ipv6_dev_ac_inc")()
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
	defer t.Frame("__ipv6_dev_ac_dec")()
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
