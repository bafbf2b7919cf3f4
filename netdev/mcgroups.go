package netdev

import (
	"net/netip"
	"slices"
)

// Group is one IPv4 or IPv6 multicast group membership of a device, as
// /proc/net/igmp and /proc/net/igmp6 list it.
type Group struct {
	Addr  netip.Addr
	Users int
}

// Inet6GroupList returns the IPv6 multicast groups the device has joined,
// newest first (the order of idev->mc_list, which /proc/net/igmp6 and `ip
// maddr show` print), or nil for a device without IPv6.
//
// Kernel: igmp6_mc_seq_show (net/ipv6/mcast.c).
func (d *Device) Inet6GroupList() []Group {
	if d.inet6 == nil {
		return nil
	}
	return groupList(d.inet6.mc)
}

// mcGroup is one multicast membership of a device's IPv4 or IPv6 side
// (struct ip_mc_list, struct ifmcaddr6).
type mcGroup struct {
	addr   netip.Addr
	users  int
	loaded bool // its MAC is in the device's mc list (im->loaded, MAF_LOADED)
}

// mcJoin adds a user to group g of list mc. A new group goes first in the
// list and is returned, for the caller to load its MAC; nil when g was
// already joined.
//
// Kernel: ____ip_mc_inc_group (net/ipv4/igmp.c), __ipv6_dev_mc_inc
// (net/ipv6/mcast.c).
func mcJoin(mc *[]*mcGroup, g netip.Addr) *mcGroup {
	for _, m := range *mc {
		if m.addr == g {
			m.users++
			return nil
		}
	}
	m := &mcGroup{addr: g, users: 1}
	*mc = slices.Insert(*mc, 0, m)
	return m
}

// mcLeave drops a user of group g from list mc. The group leaves the list
// with its last user and is returned, for the caller to unload its MAC;
// nil otherwise.
//
// Kernel: __ip_mc_dec_group (net/ipv4/igmp.c), __ipv6_dev_mc_dec
// (net/ipv6/mcast.c).
func mcLeave(mc *[]*mcGroup, g netip.Addr) *mcGroup {
	i := slices.IndexFunc(*mc, func(m *mcGroup) bool { return m.addr == g })
	if i < 0 {
		return nil
	}
	m := (*mc)[i]
	if m.users--; m.users > 0 {
		return nil
	}
	*mc = slices.Delete(*mc, i, i+1)
	return m
}

// groupList lists mc's memberships in order.
func groupList(mc []*mcGroup) []Group {
	out := make([]Group, 0, len(mc))
	for _, m := range mc {
		out = append(out, Group{Addr: m.addr, Users: m.users})
	}
	return out
}
