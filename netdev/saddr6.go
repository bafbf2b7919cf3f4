// IPv6 source address selection: the address the kernel picks as the
// source of a packet to a destination (RFC 6724's rules as
// net/ipv6/addrconf.c implements them), for `ip -6 route get`'s "src".

package netdev

import (
	"math/bits"
	"net/netip"
)

// IPv6 address scopes (IPV6_ADDR_SCOPE_*, include/net/ipv6.h).
const (
	v6ScopeNode   = 0x01
	v6ScopeLink   = 0x02
	v6ScopeSite   = 0x05
	v6ScopeGlobal = 0x0e
)

// v6SrcScope is the scope of a as a source or destination
// (__ipv6_addr_src_scope): a multicast group's own, link for link-local
// and loopback addresses, site for site-local, global otherwise.
func v6SrcScope(a netip.Addr) int {
	b := a.As16()
	switch {
	case b[0] == 0xff:
		return int(b[1] & 0x0f)
	case a.IsLoopback(), b[0] == 0xfe && b[1]&0xc0 == 0x80:
		return v6ScopeLink
	case b[0] == 0xfe && b[1]&0xc0 == 0xc0:
		return v6ScopeSite
	}
	return v6ScopeGlobal
}

// v6Labels is the default address label table (RFC 6724 section 2.1).
//
// Kernel: ip6addrlbl_init_table (net/ipv6/addrlabel.c).
var v6Labels = []struct {
	p     netip.Prefix
	label int
}{
	{netip.MustParsePrefix("::1/128"), 0},
	{netip.MustParsePrefix("::ffff:0:0/96"), 4},
	{netip.MustParsePrefix("::/96"), 3},
	{v6OrchidPrefix, 7},
	{netip.MustParsePrefix("2001::/32"), 6},
	{netip.MustParsePrefix("2002::/16"), 2},
	{netip.MustParsePrefix("3ffe::/16"), 12},
	{netip.MustParsePrefix("fec0::/10"), 11},
	{netip.MustParsePrefix("fc00::/7"), 5},
	{netip.MustParsePrefix("::/0"), 1},
}

// v6Label is a's label: the longest matching prefix's (the table is in
// that order).
//
// Kernel: ipv6_addr_label (net/ipv6/addrlabel.c).
func v6Label(a netip.Addr) int {
	for _, l := range v6Labels {
		if l.p.Contains(a) {
			return l.label
		}
	}
	return 1
}

// v6OrchidPrefix is the ORCHID prefix (RFC 4843).
var v6OrchidPrefix = netip.MustParsePrefix("2001:10::/28")

func v6Orchid(a netip.Addr) bool { return v6OrchidPrefix.Contains(a) }

// commonPrefix is the number of leading bits a and b share (ipv6_addr_diff).
func commonPrefix(a, b netip.Addr) int {
	x, y := a.As16(), b.As16()
	for i := range 16 {
		if d := x[i] ^ y[i]; d != 0 {
			return i*8 + bits.LeadingZeros8(d)
		}
	}
	return 128
}

// saddrScore is one candidate's values for the rules of source address
// selection, the earlier rules first; a larger value is preferred.
type saddrScore [9]int

// saddrScore6 evaluates candidate a, an address of dev, for dst through device dstDev's ifindex
// (0: none).
//
// Kernel: ipv6_get_saddr_eval (net/ipv6/addrconf.c): rules 1 (same
// address), 2 (appropriate scope), 3 (avoid deprecated and optimistic
// addresses), 4 (home addresses, none in netsim), 5 (outgoing
// interface), 6 (matching label), 7 (temporary addresses, none in netsim),
// 8 (ORCHID), 9 (longest matching prefix, up to the candidate's prefix
// length).
func saddrScore6(a Addr, dev *Device, dst netip.Addr, oif IfIndex) saddrScore {
	var s saddrScore
	addr := a.Prefix.Addr()
	if addr == dst {
		s[0] = 1
	}
	sc, dsc := v6SrcScope(addr), v6SrcScope(dst)
	if sc >= dsc {
		s[1] = -sc
	} else {
		s[1] = sc - 128
	}
	if addr.IsLoopback() || a.Flags&(AddrDeprecated|AddrOptimistic) == 0 {
		s[2] = 1
	}
	if oif == 0 || oif == dev.ifindex {
		s[4] = 1
	}
	if v6Label(addr) == v6Label(dst) {
		s[5] = 1
	}
	s[6] = 1
	if v6Orchid(addr) == v6Orchid(dst) {
		s[7] = 1
	}
	s[8] = min(commonPrefix(addr, dst), a.Prefix.Bits())
	return s
}

// IPv6SourceAddr returns the source address the kernel picks for a packet
// to dst leaving by dev (nil: none known), and false when the namespace
// has no candidate. Tentative addresses are no candidates. A multicast or
// link-local destination (or loopback) takes dev's addresses only;
// otherwise every device's count, dev's L3 domain only (the devices
// enslaved to the same VRF, or to none), in registration order, each
// device's addresses in list order, the first of equal candidates winning.
//
// Kernel: ipv6_dev_get_saddr, __ipv6_dev_get_saddr (net/ipv6/addrconf.c).
// The caller holds RTNL.
func (tb *Table) IPv6SourceAddr(dev *Device, dst netip.Addr) (netip.Addr, bool) {
	var oif IfIndex
	onlyDev := false
	if dev != nil {
		oif = dev.ifindex
		onlyDev = dst.IsMulticast() || v6SrcScope(dst) <= v6ScopeLink
	}
	var best netip.Addr
	var hi saddrScore
	found := false
	consider := func(d *Device) {
		if d.inet6 == nil {
			return
		}
		for _, ifa := range d.inet6.addrs {
			if ifa.Flags&AddrTentative != 0 && ifa.Flags&AddrOptimistic == 0 {
				continue
			}
			s := saddrScore6(ifa.Addr, d, dst, oif)
			if !found || greater(s, hi) {
				best, hi, found = ifa.Prefix.Addr(), s, true
			}
		}
	}
	if onlyDev {
		consider(dev)
		return best, found
	}
	domain := l3Domain(dev)
	for d := tb.head; d != nil; d = d.next {
		if l3Domain(d) == domain {
			consider(d)
		}
	}
	return best, found
}

// l3Domain is the L3 master (vrf) d is, or is enslaved to, or nil
// (l3mdev_master_ifindex).
func l3Domain(d *Device) *Device {
	switch {
	case d == nil:
		return nil
	case d.isL3Master():
		return d
	case d.master != nil && d.master.isL3Master():
		return d.master
	}
	return nil
}

func greater(a, b saddrScore) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return false
}
