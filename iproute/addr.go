// `ip address`: iproute2's ip/ipaddress.c (ipaddr_modify,
// ipaddr_list_flush_or_save, print_addrinfo).

package iproute

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
)

const addrUsage = `Usage: ip address {add|change|replace} IFADDR dev IFNAME [ LIFETIME ]
                                                      [ CONFFLAG-LIST ]
       ip address del IFADDR dev IFNAME [mngtmpaddr]
       ip address {save|flush} [ dev IFNAME ] [ scope SCOPE-ID ]
                            [ to PREFIX ] [ FLAG-LIST ] [ label LABEL ] [up]
       ip address [ show [ dev IFNAME ] [ scope SCOPE-ID ] [ master DEVICE ]
                         [ nomaster ]
                         [ type TYPE ] [ to PREFIX ] [ FLAG-LIST ]
                         [ label LABEL ] [up] [ vrf NAME ] ]
IFADDR := PREFIX | ADDR peer PREFIX
          [ broadcast ADDR ] [ anycast ADDR ]
          [ label IFNAME ] [ scope SCOPE-ID ] [ metric METRIC ]
SCOPE-ID := [ host | link | global | NUMBER ]
`

func (ip *IP) doAddr(h *rtnl.Handle, argv []string) error {
	if len(argv) == 0 {
		return ip.addrShow(h, nil, false)
	}
	cmd, rest := argv[0], argv[1:]
	switch {
	case matches(cmd, "add"):
		return ip.addrModify(h, rest, false)
	case matches(cmd, "delete"):
		return ip.addrModify(h, rest, true)
	case matches(cmd, "list"), matches(cmd, "show"), matches(cmd, "lst"):
		return ip.addrShow(h, rest, false)
	case matches(cmd, "flush"):
		return ip.addrShow(h, rest, true)
	case matches(cmd, "help"):
		return usageErr(addrUsage)
	}
	return unknownCmd(cmd, "address")
}

func (ip *IP) addrModify(h *rtnl.Handle, argv []string, del bool) error {
	var (
		a                netdev.Addr
		dev, label       string
		local            string
		brd              string
		scoped, hasLocal bool
	)
	p := &args{w: argv}
	for ; p.more(); p.skip() {
		w := p.peek()
		switch {
		case matches(w, "broadcast"), w == "brd":
			v, err := p.next()
			if err != nil {
				return err
			}
			if brd != "" {
				return duparg("broadcast", v)
			}
			brd = v
		case w == "scope":
			s, err := nextValue(p, scopeID, "invalid scope value.")
			if err != nil {
				return err
			}
			a.Scope, scoped = s, true
		case w == "dev":
			v, err := p.next()
			if err != nil {
				return err
			}
			dev = v
		case w == "label":
			v, err := p.next()
			if err != nil {
				return err
			}
			label = v
		case w == "nodad":
			a.Flags |= netdev.AddrNoDAD
		case w == "peer", w == "remote", w == "anycast", matches(w, "metric"), matches(w, "priority"),
			matches(w, "preference"), matches(w, "valid_lft"), matches(w, "preferred_lft"),
			w == "home", w == "noprefixroute", w == "autojoin", w == "mngtmpaddr", w == "proto":
			return notSupported("ip address", w)
		default:
			if matches(w, "local") {
				v, err := p.next()
				if err != nil {
					return err
				}
				w = v
			}
			if hasLocal {
				return duparg2("local", w)
			}
			if matches(w, "help") {
				return usageErr(addrUsage)
			}
			pfx, err := getPrefix(w, ip.family)
			if err != nil {
				return err
			}
			a.Prefix, local, hasLocal = pfx, w, true
		}
	}
	if dev == "" {
		return failf("Not enough information: \"dev\" argument is required.\n")
	}
	if label != "" && !matches(dev, label) {
		return &argError{msg: "\"dev\" (" + dev + ") must match \"label\" (" + label + ").\n", status: exitFailure}
	}
	if !hasLocal {
		if del {
			// A delete without an address: the kernel deletes the first.
			return ip.addrDelFirst(h, dev)
		}
		return failf("Not enough information: \"local\" argument is required.\n")
	}
	if h.LinkIndex(dev) == 0 {
		return nodev(dev)
	}
	a.Label = label
	if brd != "" && a.Prefix.Addr().Is4() {
		switch brd {
		case "+", "-":
			if a.Prefix.Bits() < 31 {
				a.Broadcast = ipv4Broadcast(a.Prefix, brd == "+")
			}
		default:
			b, err := getAddr(brd, syscall.AF_INET)
			if err != nil {
				return err
			}
			a.Broadcast = b
		}
	}
	if !scoped && !del && a.Prefix.Addr().Is4() && a.Prefix.Addr().As4()[0] == 127 {
		// default_scope: loopback addresses are host scope.
		a.Scope = netdev.ScopeHost
	}
	if del {
		if !strings.Contains(local, "/") && a.Prefix.Addr().Is4() {
			fmt.Fprintf(ip.Stderr, "Warning: Executing wildcard deletion to stay compatible with old scripts.\n"+
				"         Explicitly specify the prefix length (%s/32) to avoid this warning.\n"+
				"         This special behaviour is likely to disappear in further releases,\n"+
				"         fix your scripts!\n", local)
			return ip.addrDelWildcard(h, dev, a.Prefix.Addr())
		}
		return h.AddrDel(dev, a.Prefix)
	}
	return h.AddrAddWith(dev, a)
}

// ipv4Broadcast is the "brd +" (all ones) or "brd -" (all zeros) host part.
func ipv4Broadcast(p netip.Prefix, ones bool) netip.Addr {
	b := p.Addr().As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	host := uint32(1)<<(32-p.Bits()) - 1
	if ones {
		v |= host
	} else {
		v &^= host
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// addrDelWildcard deletes the first IPv4 address of dev whose local
// address is a, whatever its prefix length (ifa_prefixlen of an `ip addr
// del` without a length does not have to match, inet_rtm_deladdr).
func (ip *IP) addrDelWildcard(h *rtnl.Handle, dev string, a netip.Addr) error {
	as, err := h.AddrList(dev, rtnl.FamilyV4)
	if err != nil {
		return err
	}
	for _, x := range as {
		if x.Prefix.Addr() == a {
			return h.AddrDel(dev, x.Prefix)
		}
	}
	return h.AddrDel(dev, netip.PrefixFrom(a, 32))
}

// addrDelFirst deletes the device's first address of the family.
func (ip *IP) addrDelFirst(h *rtnl.Handle, dev string) error {
	if h.LinkIndex(dev) == 0 {
		return nodev(dev)
	}
	fam := rtnl.FamilyV4
	if ip.family == syscall.AF_INET6 {
		fam = rtnl.FamilyV6
	}
	as, err := h.AddrList(dev, fam)
	if err != nil {
		return err
	}
	if len(as) == 0 {
		return h.AddrDel(dev, netip.Prefix{})
	}
	return h.AddrDel(dev, as[0].Prefix)
}

// addrFilter is the selection of `ip addr show/flush`.
type addrFilter struct {
	linkFilter
	scope    netdev.Scope
	hasScope bool
	to       netip.Prefix
	label    string
}

func (f *addrFilter) keepAddr(a rtnl.AddrInfo) bool {
	if f.hasScope && a.Scope != f.scope {
		return false
	}
	if f.to.IsValid() && (a.Prefix.Addr().Is4() != f.to.Addr().Is4() || !f.to.Masked().Contains(a.Prefix.Addr())) {
		return false
	}
	if f.label != "" && a.Label != f.label {
		return false
	}
	return true
}

func (ip *IP) parseAddrFilter(h *rtnl.Handle, argv []string) (*addrFilter, error) {
	f := &addrFilter{}
	var rest []string
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case matches(w, "to"):
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			p, err := getPrefix(v, ip.family)
			if err != nil {
				return nil, err
			}
			f.to = p
		case w == "scope":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			s, ok := scopeID(v)
			if !ok && v != "all" {
				return nil, invarg("invalid \"scope\"\n", v)
			}
			f.scope, f.hasScope = s, v != "all"
		case w == "label":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			f.label = v
		case w == "permanent", w == "dynamic", w == "secondary", w == "primary", w == "tentative", w == "nodad":
			return nil, failf("Address flag filter \"%s\" is not supported by netsim.\n", w)
		default:
			rest = append(rest, w)
			if w == "dev" || matches(w, "group") || w == "master" || w == "type" {
				a.skip()
				if !a.more() {
					return nil, incomplete()
				}
				rest = append(rest, a.peek())
			}
		}
	}
	lf, err := parseLinkFilter(h, rest, addrUsage)
	if err != nil {
		return nil, err
	}
	f.linkFilter = *lf
	return f, nil
}

func (ip *IP) addrShow(h *rtnl.Handle, argv []string, flush bool) error {
	if flush && len(argv) == 0 {
		return failf("Flush requires arguments.\n")
	}
	f, err := ip.parseAddrFilter(h, argv)
	if err != nil {
		return err
	}
	fam := rtnl.FamilyAll
	switch ip.family {
	case syscall.AF_INET:
		fam = rtnl.FamilyV4
	case syscall.AF_INET6:
		fam = rtnl.FamilyV6
	}
	if flush {
		return ip.addrFlush(h, f, fam)
	}
	links, err := h.LinkList()
	if err != nil {
		return err
	}
	var addrs []rtnl.AddrInfo
	if f.dev != "" {
		addrs, err = h.AddrList(f.dev, fam)
	} else {
		addrs, err = h.AddrList("", fam)
	}
	if err != nil {
		return err
	}
	byIndex := map[netdev.IfIndex][]rtnl.AddrInfo{}
	hasAddrs := map[netdev.IfIndex]bool{}
	for _, a := range addrs {
		hasAddrs[a.Index] = true
		if f.keepAddr(a) {
			byIndex[a.Index] = append(byIndex[a.Index], a)
		}
	}
	up := linkUp(links)
	// What iproute2 prints of each device depends on the filter: with an
	// address family or a prefix, only devices that have a selected
	// address, without their hardware address line; with a label, the
	// addresses alone; with a scope alone, devices in full.
	filtered := fam != rtnl.FamilyAll || f.to.IsValid()
	for _, l := range links {
		if !f.keep(l) {
			continue
		}
		as := byIndex[l.Index]
		if (filtered || f.label != "") && len(as) == 0 {
			continue
		}
		if f.hasScope && len(as) == 0 && hasAddrs[l.Index] {
			// ipaddr_filter drops a device whose addresses were all
			// filtered out, and keeps one that had none.
			continue
		}
		if f.label == "" {
			ip.printLink(l, up, false, !filtered)
		}
		for _, a := range as {
			ip.printAddr(a)
		}
	}
	return nil
}

// printAddr is print_addrinfo for the fields netsim keeps.
func (ip *IP) printAddr(a rtnl.AddrInfo) {
	var b strings.Builder
	v4 := a.Prefix.Addr().Is4()
	if v4 {
		b.WriteString("    inet ")
	} else {
		b.WriteString("    inet6 ")
	}
	b.WriteString(a.Prefix.Addr().String() + "/" + strconv.Itoa(a.Prefix.Bits()) + " ")
	if v4 && a.Broadcast.IsValid() {
		b.WriteString("brd " + a.Broadcast.String() + " ")
	}
	b.WriteString("scope " + a.Scope.String() + " ")
	if a.Flags&netdev.AddrSecondary != 0 {
		if v4 {
			b.WriteString("secondary ")
		} else {
			b.WriteString("temporary ")
		}
	}
	if !v4 {
		if a.Flags&netdev.AddrNoDAD != 0 {
			b.WriteString("nodad ")
		}
		if a.Flags&netdev.AddrTentative != 0 {
			b.WriteString("tentative ")
		}
		if a.Flags&netdev.AddrPermanent == 0 {
			b.WriteString("dynamic ")
		}
	}
	if v4 {
		label := a.Label
		if label == "" {
			label = a.Link
		}
		b.WriteString(label)
	}
	b.WriteString("\n       valid_lft forever preferred_lft forever\n")
	ip.out.WriteString(b.String())
}

// addrFlush deletes every selected address, repeating the dump until none
// is left (deleting a primary IPv4 address may delete or promote its
// secondaries), as ipaddr_flush does.
func (ip *IP) addrFlush(h *rtnl.Handle, f *addrFilter, fam int) error {
	for round := 0; round < 10; round++ {
		links, err := h.LinkList()
		if err != nil {
			return err
		}
		addrs, err := h.AddrList("", fam)
		if err != nil {
			return err
		}
		keepLink := map[netdev.IfIndex]bool{}
		for _, l := range links {
			keepLink[l.Index] = f.keep(l)
		}
		n := 0
		for _, a := range addrs {
			if !keepLink[a.Index] || !f.keepAddr(a) {
				continue
			}
			n++
			if err := h.AddrDel(a.Link, a.Prefix); err != nil {
				if e := err; isGone(e) {
					continue
				}
				return err
			}
		}
		if n == 0 {
			return nil
		}
	}
	return failf("*** Flush remains incomplete after 10 rounds. ***\n")
}

// isGone reports whether a delete failed because the object had already
// gone (a secondary deleted with its primary).
func isGone(err error) bool {
	return errnoOf(err) == syscall.EADDRNOTAVAIL || errnoOf(err) == syscall.ENOENT || errnoOf(err) == syscall.ESRCH
}
