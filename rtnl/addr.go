// Addresses: the RTM_NEWADDR, RTM_DELADDR and RTM_GETADDR requests and
// the address dump. Kernel: inet_rtm_newaddr, inet_rtm_deladdr,
// inet_dump_ifaddr (net/ipv4/devinet.c); inet6_rtm_newaddr,
// inet6_rtm_deladdr, inet6_rtm_getaddr, inet6_dump_ifaddr
// (net/ipv6/addrconf.c).

package rtnl

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// Address families for AddrList.
const (
	FamilyAll = 0
	FamilyV4  = syscall.AF_INET
	FamilyV6  = syscall.AF_INET6
)

// AddrInfo is one address as `ip addr show` lists it. Its ValidLft and
// PreferredLft are the lifetimes left when it was listed
// (netdev.LifetimeForever when unlimited), as IFA_CACHEINFO reports them.
type AddrInfo struct {
	Index netdev.IfIndex
	Link  string
	netdev.Addr
}

// AddrAdd adds address p to the device named link: IPv4 (primary, or
// secondary in the subnet of an existing one) or IPv6 (with duplicate
// address detection run later by a kworker).
//
// Kernel: inet_rtm_newaddr / inet6_rtm_newaddr (`ip addr add P dev LINK`).
func (h *Handle) AddrAdd(link string, p netip.Prefix) error {
	return h.AddrAddWith(link, netdev.Addr{Prefix: p})
}

// AddrAddWith adds a with its optional fields: Peer, Broadcast and Label
// (IPv4), Scope, the lifetimes, and the flags AddrNoPrefixRoute and
// AddrNoDAD (IPv6). EEXIST if the device has the address.
//
// Kernel: inet_rtm_newaddr / inet6_rtm_newaddr with NLM_F_CREATE|NLM_F_EXCL.
func (h *Handle) AddrAddWith(link string, a netdev.Addr) error {
	return h.newAddr(link, a, false)
}

// AddrReplace adds a, or if the device has it, updates it: an IPv4
// address's lifetimes; an IPv6 address's lifetimes and flags (see
// netdev.Device.ReplaceInet6).
//
// Kernel: inet_rtm_newaddr / inet6_rtm_newaddr with
// NLM_F_CREATE|NLM_F_REPLACE (`ip addr replace`).
func (h *Handle) AddrReplace(link string, a netdev.Addr) error {
	return h.newAddr(link, a, true)
}

// AddrChange is `ip addr change`: NLM_F_REPLACE without NLM_F_CREATE. The
// kernel does not look at NLM_F_CREATE for addresses, so a missing address
// is created, as by AddrReplace.
//
// Kernel: inet_rtm_newaddr / inet6_rtm_newaddr with NLM_F_REPLACE.
func (h *Handle) AddrChange(link string, a netdev.Addr) error {
	return h.newAddr(link, a, true)
}

func (h *Handle) newAddr(link string, a netdev.Addr, replace bool) error {
	return h.do("RTM_NEWADDR", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, link)
		if err != nil {
			return err
		}
		if !a.Prefix.IsValid() {
			return errno.New(syscall.EINVAL, "Invalid prefix")
		}
		switch {
		case a.Prefix.Addr().Is4() && replace:
			return d.ReplaceInet4(t, a)
		case a.Prefix.Addr().Is4():
			return d.AddInet4(t, a)
		case replace:
			return d.ReplaceInet6(t, a)
		}
		return d.AddInet6(t, a)
	})
}

// AddrDel removes address p (address and prefix length) from the device.
//
// Kernel: inet_rtm_deladdr / inet6_rtm_deladdr (`ip addr del P dev LINK`).
func (h *Handle) AddrDel(link string, p netip.Prefix) error {
	return h.AddrDelWith(link, netdev.Addr{Prefix: p})
}

// AddrDelWith removes the address that matches m: for IPv4 the first with
// m's local address, m's label if it has one, and m's prefix length and
// subnet (of m.Peer if set); with m.Prefix.Bits() -1, any prefix length
// (see netdev.Device.DelInet4Match). For IPv6, m's address and prefix
// length.
//
// Kernel: inet_rtm_deladdr / inet6_rtm_deladdr.
func (h *Handle) AddrDelWith(link string, m netdev.Addr) error {
	return h.do("RTM_DELADDR", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, link)
		if err != nil {
			return err
		}
		if !m.Prefix.Addr().IsValid() {
			return errno.New(syscall.EINVAL, "Invalid prefix")
		}
		if m.Prefix.Addr().Is4() {
			return d.DelInet4Match(t, m)
		}
		if !m.Prefix.IsValid() {
			return errno.New(syscall.EINVAL, "Invalid prefix")
		}
		return d.DelInet6(t, m.Prefix)
	})
}

// AddrList returns the addresses of the device named link (every device if
// link is ""), of family FamilyV4, FamilyV6 or FamilyAll, IPv4 first for
// each device.
//
// Kernel: inet_dump_ifaddr / inet6_dump_ifaddr.
func (h *Handle) AddrList(link string, family int) ([]AddrInfo, error) {
	if family != FamilyAll && family != FamilyV4 && family != FamilyV6 {
		return nil, errno.Errorf(syscall.EAFNOSUPPORT, "Unknown address family %d", family)
	}
	var out []AddrInfo
	err := h.do("RTM_GETADDR", func(t *sim.Task, tb *netdev.Table) error {
		devs := tb.Devices()
		if link != "" {
			d, err := lookup(tb, link)
			if err != nil {
				return err
			}
			devs = []*netdev.Device{d}
		}
		for _, d := range devs {
			var as []netdev.Addr
			if family != FamilyV6 {
				as = append(as, d.Inet4Addrs()...)
			}
			if family != FamilyV4 {
				as = append(as, d.Inet6Addrs()...)
			}
			for _, a := range as {
				a.ValidLft, a.PreferredLft = a.Remaining(t.Now())
				out = append(out, AddrInfo{Index: d.Index(), Link: d.Name(), Addr: a})
			}
		}
		return nil
	})
	return out, err
}

// AddrCursor is where an address dump of one family stopped: the device
// (ctx->ifindex) and the position in its address list (ctx->ip_idx), as
// the kernel keeps them; an address added or removed before the position
// shifts the rest, and the dump's Seq tells.
type AddrCursor struct {
	Index netdev.IfIndex
	Pos   int
}

// AddrDump is one part of an address dump of family (FamilyV4 or
// FamilyV6), of the device with ifindex index (0: every device): with
// RTNL held, it calls fn for the addresses from the cursor on, device by
// device in ifindex order, until fn returns false, and leaves the cursor at
// the address fn refused. The part's Seq is the kernel's inet_base_seq or
// inet6_base_seq.
//
// Kernel: inet_dump_ifaddr, in_dev_dump_addr (net/ipv4/devinet.c);
// inet6_dump_addr, in6_dump_addrs (net/ipv6/addrconf.c).
func (h *Handle) AddrDump(family int, index netdev.IfIndex, c *AddrCursor, fn func(*AddrInfo) bool) (DumpSeq, error) {
	if family != FamilyV4 && family != FamilyV6 {
		return DumpSeq{}, errno.Errorf(syscall.EAFNOSUPPORT, "Unknown address family %d", family)
	}
	var ds DumpSeq
	err := h.do("RTM_GETADDR", func(t *sim.Task, tb *netdev.Table) error {
		g := &h.n.gens
		if family == FamilyV4 {
			ds.Seq = baseSeq(g.addr4, g.devBase)
		} else {
			ds.Seq = baseSeq(g.addr6, g.devBase)
		}
		devs := tb.Devices()
		if index != 0 {
			d := tb.ByIndex(index)
			if d == nil {
				return errno.New(syscall.ENODEV, "")
			}
			devs = []*netdev.Device{d}
		}
		for _, d := range devs {
			if d.Index() < c.Index {
				continue
			}
			if d.Index() > c.Index {
				c.Index, c.Pos = d.Index(), 0
			}
			stopped := false
			d.AddrsFrom(family == FamilyV6, c.Pos, func(pos int, a netdev.Addr) bool {
				a.ValidLft, a.PreferredLft = a.Remaining(t.Now())
				if !fn(&AddrInfo{Index: d.Index(), Link: d.Name(), Addr: a}) {
					c.Pos, stopped = pos, true
					return false
				}
				return true
			})
			if stopped {
				return nil
			}
		}
		ds.Done = true
		return nil
	})
	return ds, err
}

// Inet4DelMatch is what an IPv4 RTM_DELADDR request selects the address to
// delete by; a nil field is an attribute the request does not carry, and
// the first address that matches every given one is deleted.
type Inet4DelMatch struct {
	Local   *netip.Addr // IFA_LOCAL: the address's local address
	Label   *string     // IFA_LABEL: its label, compared whole
	Address *netip.Addr // IFA_ADDRESS: with PrefixLen, its prefix
	// PrefixLen is ifa_prefixlen, looked at only with Address: the
	// address's prefix length must equal it and Address must lie in the
	// address's subnet (that of its peer, if it has one).
	PrefixLen int
}

// matches reports whether a is selected by m.
//
// Kernel: the tests of inet_rtm_deladdr's loop, inet_ifa_match.
func (m Inet4DelMatch) matches(a netdev.Addr) bool {
	if m.Local != nil && a.Prefix.Addr() != *m.Local {
		return false
	}
	if m.Label != nil && *m.Label != a.Label {
		return false
	}
	if m.Address != nil {
		if a.Prefix.Bits() != m.PrefixLen {
			return false
		}
		if p, err := m.Address.Prefix(a.Prefix.Bits()); err != nil || p != a.Subnet() {
			return false
		}
	}
	return true
}

// AddrDelMatch4 deletes the first IPv4 address of the device named link
// that m selects: ENODEV "ipv4: Device not found" without such a device
// (or one without IPv4), EADDRNOTAVAIL "ipv4: Address not found" when no
// address matches.
//
// Kernel: inet_rtm_deladdr (net/ipv4/devinet.c).
func (h *Handle) AddrDelMatch4(link string, m Inet4DelMatch) error {
	return h.do("RTM_DELADDR", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, link)
		if err != nil {
			return err
		}
		return d.DelInet4First(t, m.matches)
	})
}

// AddrGet6 finds the IPv6 address addr as an RTM_GETADDR without
// NLM_F_DUMP does: on the device link names, or, when link is "" or names
// no device (an ifindex of 0 or an unknown one), on any device, where of
// several devices with the address the one added last answers. It fails
// with EADDRNOTAVAIL when none has it.
//
// Kernel: inet6_rtm_getaddr → ipv6_get_ifaddr (net/ipv6/addrconf.c).
func (h *Handle) AddrGet6(link string, addr netip.Addr) (AddrInfo, error) {
	var out AddrInfo
	err := h.do("RTM_GETADDR", func(t *sim.Task, tb *netdev.Table) error {
		var dev *netdev.Device
		if link != "" {
			dev, _ = lookup(tb, link)
		}
		d, a, ok := tb.Inet6AddrLookup(addr, dev)
		if !ok {
			return errno.New(syscall.EADDRNOTAVAIL, "")
		}
		a.ValidLft, a.PreferredLft = a.Remaining(t.Now())
		out = AddrInfo{Index: d.Index(), Link: d.Name(), Addr: a}
		return nil
	})
	return out, err
}
