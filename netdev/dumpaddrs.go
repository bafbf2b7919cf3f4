// The per-device part of an address dump, resumable at a position
// (in_dev_dump_addr: net/ipv4/devinet.c; in6_dump_addrs:
// net/ipv6/addrconf.c).

package netdev

// AddrsFrom calls fn for d's addresses of one family (IPv6 if v6, else
// IPv4), in list order from position pos on, until fn returns false: an
// address dump resuming at its cursor (ctx->ip_idx) without copying the
// addresses before it.
//
// Kernel: in_dev_dump_addr (net/ipv4/devinet.c), in6_dump_addrs
// (net/ipv6/addrconf.c).
func (d *Device) AddrsFrom(v6 bool, pos int, fn func(pos int, a Addr) bool) {
	if v6 {
		if d.inet6 == nil {
			return
		}
		for i := pos; i < len(d.inet6.addrs); i++ {
			if !fn(i, d.inet6.addrs[i].Addr) {
				return
			}
		}
		return
	}
	if d.inet == nil {
		return
	}
	for i := pos; i < len(d.inet.addrs); i++ {
		if !fn(i, *d.inet.addrs[i]) {
			return
		}
	}
}
