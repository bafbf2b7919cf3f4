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
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// AddrInfo is one address as `ip addr show` lists it. Its ValidLft and
// PreferredLft are the lifetimes left when it was listed
// (netdev.LifetimeForever when unlimited), as IFA_CACHEINFO reports them.
type AddrInfo struct {
	Index netdev.IfIndex
	Link  string
	netdev.Addr
	// TargetNetnsID is the id a request for another namespace's
	// addresses named it by (IFA_TARGET_NETNSID), sent back in each of
	// their messages; nil otherwise.
	TargetNetnsID *int32
}

// AddrRequest is the body of RTM_NEWADDR and RTM_DELADDR: the device
// (ifa_index when not 0, else by name), the request's NLM flags
// (RTM_NEWADDR) and the address.
type AddrRequest struct {
	Origin
	// Flags are RTM_NEWADDR's: NLM_F_REPLACE without NLM_F_EXCL updates
	// an existing address, anything else adds one (EEXIST if the device
	// has it). NLM_F_CREATE is not looked at.
	Flags     rt.NLMFlags
	LinkIndex netdev.IfIndex // ifa_index: the device, when not 0
	Link      string         // the device by name, when LinkIndex is 0
	// Addr is the address. RTM_NEWADDR: with its optional fields, Peer,
	// Broadcast and Label (IPv4), Scope, the lifetimes, Metric and the
	// flags. RTM_DELADDR: for IPv6 its address and prefix length; for
	// IPv4, unless Match4 is set, the first address with its local
	// address, its label if it has one, and its prefix length and subnet
	// (of Peer if set; Prefix.Bits() -1: any prefix length), as ip sends
	// them (see netdev.Device.DelInet4Match).
	Addr netdev.Addr
	// Match4 is an IPv4 RTM_DELADDR by the attributes it carries (see
	// Inet4DelMatch): the first address that matches every one goes.
	Match4 *Inet4DelMatch
	// Family is ifa_family, read only by an RTM_DELADDR that names no
	// address (neither Addr nor Match4): inet6_rtm_deladdr refuses it
	// (EINVAL), inet_rtm_deladdr deletes the device's first IPv4 address.
	// Without a family such a request is a zero Addr: "Invalid prefix".
	Family rt.Family
}

// addrDev returns the device an address request names: by ifindex when
// index is not 0 (ENODEV without a message when none has it), else by
// name; none named is ENODEV.
//
// Kernel: __dev_get_by_index (inet_rtm_newaddr, inet6_rtm_newaddr, ...).
func addrDev(tb *netdev.Table, index netdev.IfIndex, name string) (*netdev.Device, error) {
	if index == 0 && name == "" {
		return nil, errno.New(syscall.ENODEV, "Device name is required")
	}
	if index != 0 {
		return tb.Find(index, "")
	}
	return lookup(tb, name)
}

// NewAddr serves an RTM_NEWADDR request: it adds r.Addr to the device, an
// IPv4 address (primary, or secondary in the subnet of an existing one)
// or an IPv6 one (with duplicate address detection run later by a
// kworker), or with NLM_F_REPLACE and without NLM_F_EXCL updates it if
// the device has it: an IPv4 address's lifetimes, an IPv6 address's
// lifetimes and flags (see netdev.Device.ReplaceInet6).
//
// Kernel: inet_rtm_newaddr (net/ipv4/devinet.c), inet6_rtm_newaddr
// (net/ipv6/addrconf.c).
func (h *Handle) NewAddr(r AddrRequest) error {
	replace := r.Flags&rt.NLMReplace != 0 && r.Flags&rt.NLMExcl == 0
	a := r.Addr
	return h.doFrom(r.Origin, "RTM_NEWADDR", func(t *sim.Task, tb *netdev.Table) error {
		d, err := addrDev(tb, r.LinkIndex, r.Link)
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

// DelAddr serves an RTM_DELADDR request: it removes the address r selects
// (see AddrRequest): ENODEV "ipv4: Device not found" for a device without
// IPv4, EADDRNOTAVAIL when no address matches.
//
// Kernel: inet_rtm_deladdr (net/ipv4/devinet.c), inet6_rtm_deladdr →
// inet6_addr_del (net/ipv6/addrconf.c).
func (h *Handle) DelAddr(r AddrRequest) error {
	m := r.Addr
	return h.doFrom(r.Origin, "RTM_DELADDR", func(t *sim.Task, tb *netdev.Table) error {
		if r.Match4 == nil && !m.Prefix.Addr().IsValid() && r.Family == rt.FamilyInet6 {
			// inet6_rtm_deladdr refuses a delete that names no address
			// before it looks for the device.
			return errno.New(syscall.EINVAL, "")
		}
		d, err := addrDev(tb, r.LinkIndex, r.Link)
		if err != nil {
			return err
		}
		if r.Match4 != nil {
			return d.DelInet4First(t, r.Match4.matches)
		}
		if !m.Prefix.Addr().IsValid() {
			if r.Family == rt.FamilyInet {
				return d.DelInet4First(t, Inet4DelMatch{}.matches)
			}
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

// AddrGetRequest is an RTM_GETADDR request without NLM_F_DUMP: the
// address (IFA_LOCAL, else IFA_ADDRESS) and the device to look on, if any,
// and what the kernel checks of a strict request (NETLINK_GET_STRICT_CHK).
type AddrGetRequest struct {
	Origin
	LinkIndex netdev.IfIndex // ifa_index; 0 or an unknown one: any device
	Link      string         // the device by name, when LinkIndex is 0
	Addr      netip.Addr     // the zero Addr: the request carries none (EINVAL)
	// GetChecks: a strict request may carry no ifa_prefixlen, ifa_flags
	// or ifa_scope, and no attribute but IFA_ADDRESS, IFA_LOCAL and
	// IFA_TARGET_NETNSID.
	GetChecks
	// TargetNSID is IFA_TARGET_NETNSID: an id the requester's namespace
	// has for the namespace the address is looked up in; nil for the
	// requester's own.
	TargetNSID *int32
}

// GetAddr finds the IPv6 address r.Addr on the device r names, or, when
// it names none (an ifindex of 0 or an unknown one), on any device, where
// of several devices with the address the one added last answers; in the
// namespace r.TargetNSID names, if any (an id the requester has not given
// is a bare EINVAL). It fails with EADDRNOTAVAIL when none has it. IPv4
// has no such request: its RTM_GETADDR is a dump only.
//
// Kernel: inet6_rtm_getaddr, inet6_rtm_valid_getaddr_req →
// ipv6_get_ifaddr (net/ipv6/addrconf.c).
func (h *Handle) GetAddr(r AddrGetRequest) (AddrInfo, error) {
	var out AddrInfo
	if err := r.err("ipv6: Invalid values in header for get address request", "ipv6: Unsupported attribute in get address request"); err != nil {
		return out, err
	}
	if !r.Addr.IsValid() {
		return out, errno.New(syscall.EINVAL, "")
	}
	err := h.doFrom(r.Origin, "RTM_GETADDR", func(t *sim.Task, tb *netdev.Table) error {
		n, err := h.targetOf(r.TargetNSID)
		if err != nil {
			return err
		}
		tb = n.devs
		var dev *netdev.Device
		if r.LinkIndex != 0 || r.Link != "" {
			dev, _ = addrDev(tb, r.LinkIndex, r.Link)
		}
		d, a, ok := tb.Inet6AddrLookup(r.Addr, dev)
		if !ok {
			return errno.New(syscall.EADDRNOTAVAIL, "")
		}
		out = addrInfo(t, d, a)
		out.TargetNetnsID = r.TargetNSID
		return nil
	})
	return out, err
}

// AddrDumpRequest is an RTM_GETADDR request with NLM_F_DUMP: the family
// (rt.FamilyInet, rt.FamilyInet6, or rt.FamilyUnspec for both, IPv4
// first), a strict request's filter by device, and what a strict request
// (NETLINK_GET_STRICT_CHK) has the kernel check.
type AddrDumpRequest struct {
	Origin
	Family rt.Family
	Strict bool
	// BadHeader: the ifaddrmsg has a non-zero ifa_prefixlen, ifa_flags
	// or ifa_scope.
	BadHeader bool
	// AttrErr is the attributes' parse error.
	AttrErr error
	// TargetNetnsIDAt and UnsupportedAt are the positions (from 1, in
	// type order, 0 for none) of an IFA_TARGET_NETNSID and of the first
	// other attribute, which is refused; the checks go in type order.
	// TargetNSID is IFA_TARGET_NETNSID's value: an id the requester's
	// namespace has for the namespace whose addresses a strict dump lists.
	TargetNetnsIDAt, UnsupportedAt int
	TargetNSID                     int32
	// LinkIndex is ifa_index: a strict dump lists only this device's
	// addresses (ENODEV if there is none).
	LinkIndex netdev.IfIndex
}

// AddrDump is an address dump in progress: the families still to dump
// (rtnl_dump_all's, for AF_UNSPEC), and in the first of them the device
// and the position in its address list (ctx->ifindex, ctx->ip_idx), as
// the kernel keeps them: an address added or removed before the position
// shifts the rest, and the part's Seq tells.
type AddrDump struct {
	h         *Handle
	families  []rt.Family
	index     netdev.IfIndex
	dev       netdev.IfIndex
	pos       int
	target    int32 // the namespace listed, an id of the requester's, when hasTarget
	hasTarget bool
}

// DumpAddrs checks an address dump request and returns its cursor;
// nothing is walked until Next. A strict request is refused (EINVAL, with
// the family's "ipv4: " or "ipv6: " prefix) for a header with values, its
// attributes' parse error, an IFA_TARGET_NETNSID that names no namespace,
// or another attribute; one that is not strict is not checked, filters
// nothing and lists the requester's own namespace. With a target, the
// dump lists the target's addresses, each message carrying the id.
//
// Kernel: inet_dump_ifaddr, inet_valid_dump_ifaddr_req
// (net/ipv4/devinet.c); inet6_dump_addr, inet6_valid_dump_ifaddr_req
// (net/ipv6/addrconf.c); rtnl_dump_all (net/core/rtnetlink.c).
func (h *Handle) DumpAddrs(r AddrDumpRequest) (*AddrDump, error) {
	d := &AddrDump{h: h}
	prefix := "ipv4: "
	switch r.Family {
	case rt.FamilyInet:
		d.families = []rt.Family{rt.FamilyInet}
	case rt.FamilyInet6:
		d.families, prefix = []rt.Family{rt.FamilyInet6}, "ipv6: "
	case rt.FamilyUnspec:
		// Each family's dumpit checks the request; IPv4's comes first.
		d.families = []rt.Family{rt.FamilyInet, rt.FamilyInet6}
	default:
		return nil, errno.Errorf(syscall.EAFNOSUPPORT, "Unknown address family %d", r.Family)
	}
	if !r.Strict {
		return d, nil
	}
	switch {
	case r.BadHeader:
		return nil, errno.New(syscall.EINVAL, prefix+"Invalid values in header for address dump request")
	case r.AttrErr != nil:
		return nil, r.AttrErr
	case r.TargetNetnsIDAt != 0 && (r.UnsupportedAt == 0 || r.TargetNetnsIDAt < r.UnsupportedAt) && h.targetNet(r.TargetNSID) == nil:
		return nil, errBadTarget(prefix + "Invalid target network namespace id")
	case r.UnsupportedAt != 0:
		return nil, errno.New(syscall.EINVAL, prefix+"Unsupported attribute in dump request")
	}
	d.index = r.LinkIndex
	d.target, d.hasTarget = r.TargetNSID, r.TargetNetnsIDAt != 0
	return d, nil
}

// Filtered reports whether the dump filters by device
// (NLM_F_DUMP_FILTERED).
func (d *AddrDump) Filtered() bool { return d.index != 0 }

// Done reports whether every family of the dump is done.
func (d *AddrDump) Done() bool { return len(d.families) == 0 }

// Next is one part of the dump of its current family: with RTNL held, it
// calls fn for the addresses from the cursor on, device by device in
// ifindex order, until fn returns false, and leaves the cursor at the
// address fn refused. The part's Seq is the kernel's inet_base_seq or
// inet6_base_seq, and Done says the family is done: the dump then goes on
// with the next family, if any (see Done). fn runs with RTNL held: it
// must not call the Handle.
//
// Kernel: inet_dump_ifaddr, in_dev_dump_addr (net/ipv4/devinet.c);
// inet6_dump_addr, in6_dump_addrs (net/ipv6/addrconf.c).
func (d *AddrDump) Next(fn func(*AddrInfo) bool) (DumpSeq, error) {
	if d.Done() {
		return DumpSeq{Done: true}, nil
	}
	h, v6 := d.h, d.families[0] == rt.FamilyInet6
	var ds DumpSeq
	err := h.do("RTM_GETADDR", func(t *sim.Task, tb *netdev.Table) error {
		n := h.n
		if d.hasTarget {
			// Each part finds the target again, as each call of the
			// kernel's dumpit parses the request again.
			if n = h.targetNet(d.target); n == nil {
				prefix := "ipv4: "
				if v6 {
					prefix = "ipv6: "
				}
				return errBadTarget(prefix + "Invalid target network namespace id")
			}
			tb = n.devs
		}
		g := &n.gens
		if v6 {
			ds.Seq = baseSeq(g.addr6, g.devBase)
		} else {
			ds.Seq = baseSeq(g.addr4, g.devBase)
		}
		devs := tb.DevicesByIndex()
		if d.index != 0 {
			dev := tb.ByIndex(d.index)
			if dev == nil {
				return errno.New(syscall.ENODEV, "")
			}
			devs = []*netdev.Device{dev}
		}
		for _, dev := range devs {
			if dev.Index() < d.dev {
				continue
			}
			if dev.Index() > d.dev {
				d.dev, d.pos = dev.Index(), 0
			}
			stopped := false
			dev.AddrsFrom(v6, d.pos, func(pos int, a netdev.Addr) bool {
				ai := addrInfo(t, dev, a)
				if d.hasTarget {
					ai.TargetNetnsID = &d.target
				}
				if !fn(&ai) {
					d.pos, stopped = pos, true
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
	if err == nil && ds.Done {
		d.families, d.dev, d.pos = d.families[1:], 0, 0
	}
	return ds, err
}

// Close ends the dump; an address dump holds nothing between its parts.
func (d *AddrDump) Close() {}

// addrInfo is address a of device d as a dump or a get reports it at t's
// time: with the lifetimes it has left (inet_fill_ifaddr, inet6_fill_ifaddr).
func addrInfo(t *sim.Task, d *netdev.Device, a netdev.Addr) AddrInfo {
	a.ValidLft, a.PreferredLft = a.Remaining(t.Now())
	return AddrInfo{Index: d.Index(), Link: d.Name(), Addr: a}
}

// AddrList returns the addresses of the device named link (every device if
// link is ""), of family rt.FamilyInet, rt.FamilyInet6 or rt.FamilyUnspec
// (both), in one request and as `ip addr show` joins its dumps: device by
// device in ifindex order, IPv4 first for each.
//
// Kernel: inet_dump_ifaddr / inet6_dump_ifaddr, joined per device as
// iproute2's ipaddr_list does.
func (h *Handle) AddrList(link string, family rt.Family) ([]AddrInfo, error) {
	if family != rt.FamilyUnspec && family != rt.FamilyInet && family != rt.FamilyInet6 {
		return nil, errno.Errorf(syscall.EAFNOSUPPORT, "Unknown address family %d", family)
	}
	var out []AddrInfo
	err := h.do("RTM_GETADDR", func(t *sim.Task, tb *netdev.Table) error {
		devs := tb.DevicesByIndex()
		if link != "" {
			d, err := lookup(tb, link)
			if err != nil {
				return err
			}
			devs = []*netdev.Device{d}
		}
		for _, d := range devs {
			var as []netdev.Addr
			if family != rt.FamilyInet6 {
				as = append(as, d.Inet4Addrs()...)
			}
			if family != rt.FamilyInet {
				as = append(as, d.Inet6Addrs()...)
			}
			for _, a := range as {
				out = append(out, addrInfo(t, d, a))
			}
		}
		return nil
	})
	return out, err
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
