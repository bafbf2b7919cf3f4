// The memory the address walks touch: in_ifaddr (net/ipv4/devinet.c),
// inet6_ifaddr (net/ipv6/addrconf.c), ip_mc_list (net/ipv4/igmp.c) and
// ifmcaddr6 (net/ipv6/mcast.c) objects, for the cost model's memory stall
// (sim.Footprint).

package netdev

import "github.com/netsimlab/netsim/sim"

// The kernel's allocation sizes of the objects the walks read. A walk
// makes one dependent load per entry (the next pointer; the compare reads
// beside it): in allocation order along a device's lists (ifa_list, added
// at the tail; the group lists, newest first, against it), out of order
// along the namespace's address hashes (256 chains, each newest first).
const (
	// inIfaddrBytes is one IPv4 address: inet_alloc_ifa's kzalloc of an
	// in_ifaddr, from kmalloc-128.
	inIfaddrBytes = 128
	// inet6IfaddrBytes is one IPv6 address: ipv6_add_addr's kzalloc of an
	// inet6_ifaddr, from kmalloc-512.
	inet6IfaddrBytes = 512
	// mcGroupBytes is one multicast group: an ifmcaddr6 from kmalloc-256
	// (an ip_mc_list from kmalloc-192).
	mcGroupBytes = 256
)

// footprint is a walk of a device list over n objects of size bytes.
func footprint(n int64, bytes int64) sim.Footprint {
	return sim.Footprint{Bytes: n * bytes, SeqLoads: 1, Obj: bytes}
}

// hashFootprint is a walk of a namespace address hash over n objects of
// size bytes.
func hashFootprint(n int64, bytes int64) sim.Footprint {
	return sim.Footprint{Bytes: n * bytes, Loads: 1}
}

// ifaFootprint is a walk of d's IPv4 address list.
func (d *Device) ifaFootprint() sim.Footprint {
	if d.inet == nil {
		return sim.Footprint{}
	}
	return footprint(int64(len(d.inet.addrs)), inIfaddrBytes)
}

// mcFootprint is a walk of group list l.
func (l *mcList) footprint() sim.Footprint {
	return footprint(int64(len(l.old)), mcGroupBytes)
}
