package netdev

import "net/netip"

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
	out := make([]Group, 0, len(d.inet6.mc))
	for _, m := range d.inet6.mc {
		out = append(out, Group{Addr: m.addr, Users: m.users})
	}
	return out
}
