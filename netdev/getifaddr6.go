// The lookup of a local IPv6 address in a namespace, optionally on one
// device (ipv6_get_ifaddr: net/ipv6/addrconf.c).

package netdev

import "net/netip"

// Inet6AddrLookup finds the IPv6 address a: on dev, or when dev is nil on
// any device of the namespace, the one added last, as the kernel's walk of
// its address hash chain (newest first) meets it. ok is false when no
// device has it. The caller holds RTNL.
//
// Kernel: ipv6_get_ifaddr with strict set (net/ipv6/addrconf.c).
func (tb *Table) Inet6AddrLookup(a netip.Addr, dev *Device) (d *Device, ifa Addr, ok bool) {
	var seq uint64
	for o := tb.head; o != nil; o = o.next {
		if o.inet6 == nil || dev != nil && o != dev {
			continue
		}
		for _, x := range o.inet6.addrs {
			if x.Prefix.Addr() == a && (!ok || x.hashSeq > seq) {
				d, ifa, ok, seq = o, x.Addr, true, x.hashSeq
			}
		}
	}
	return d, ifa, ok
}
