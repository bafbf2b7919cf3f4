// `ip address`: iproute2's ip/ipaddress.c (ipaddr_modify,
// ipaddr_list_flush_or_save, print_addrinfo).

package iproute

import (
	"fmt"
	"net/netip"
	"path"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/errno"
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
		return ip.addrModify(h, rest, addrAdd)
	case matches(cmd, "change"), cmd == "chg":
		return ip.addrModify(h, rest, addrChange)
	case matches(cmd, "replace"):
		return ip.addrModify(h, rest, addrReplace)
	case matches(cmd, "delete"):
		return ip.addrModify(h, rest, addrDel)
	case matches(cmd, "list"), matches(cmd, "show"), matches(cmd, "lst"):
		return ip.addrShow(h, rest, false)
	case matches(cmd, "flush"):
		return ip.addrShow(h, rest, true)
	case matches(cmd, "help"):
		return usageErr(addrUsage)
	}
	return unknownCmd(cmd, "address")
}

// addrOp is the request ipaddr_modify sends: RTM_NEWADDR with
// NLM_F_CREATE|NLM_F_EXCL (add), NLM_F_REPLACE (change) or
// NLM_F_CREATE|NLM_F_REPLACE (replace), or RTM_DELADDR.
type addrOp int

const (
	addrAdd addrOp = iota
	addrChange
	addrReplace
	addrDel
)

// addrFlagArg is one of iproute2's ifa_flag_data entries: an address flag
// by name, whether it is read-only, and whether it is IPv6 only.
type addrFlagArg struct {
	name     string
	flag     netdev.AddrFlags
	readonly bool
	v6only   bool
}

// addrFlagArgs is iproute2's ifa_flag_data (ip/ipaddress.c), in its order:
// the names a command takes and the order `ip addr` prints them in.
var addrFlagArgs = []addrFlagArg{
	{"secondary", netdev.AddrSecondary, true, false},
	{"temporary", netdev.AddrSecondary, true, false},
	{"nodad", netdev.AddrNoDAD, false, true},
	{"optimistic", netdev.AddrOptimistic, false, true},
	{"dadfailed", netdev.AddrDADFailed, true, true},
	{"home", netdev.AddrHomeAddress, false, true},
	{"deprecated", netdev.AddrDeprecated, true, true},
	{"tentative", netdev.AddrTentative, true, true},
	{"permanent", netdev.AddrPermanent, true, true},
	{"mngtmpaddr", netdev.AddrManageTempAddr, false, true},
	{"noprefixroute", netdev.AddrNoPrefixRoute, false, false},
	{"autojoin", netdev.AddrMcAutoJoin, false, false},
	{"stable-privacy", netdev.AddrStablePrivacy, true, true},
}

func lookupAddrFlag(name string) (addrFlagArg, bool) {
	for _, f := range addrFlagArgs {
		if f.name == name {
			return f, true
		}
	}
	return addrFlagArg{}, false
}

// parseLifetime is iproute2's set_lifetime: seconds or "forever".
func parseLifetime(v string) (uint32, bool) {
	if v == "forever" {
		return netdev.LifetimeForever, true
	}
	n, ok := getUnsigned(v, 32)
	return uint32(n), ok
}

// addrModify is iproute2's ipaddr_modify.
func (ip *IP) addrModify(h *rtnl.Handle, argv []string, op addrOp) error {
	var (
		a                       netdev.Addr
		dev, label              string
		local, brd              string
		scoped, hasLocal        bool
		hasPeer                 bool
		validArg, preferredArg  string
		valid, preferred        = netdev.LifetimeForever, netdev.LifetimeForever
		family                  = ip.family
		localBits               int
		v6only, unsupportedFlag string
	)
	p := &args{w: argv}
	for ; p.more(); p.skip() {
		w := p.peek()
		if f, ok := lookupAddrFlag(w); ok {
			switch {
			case f.readonly:
				fmt.Fprintf(ip.Stderr, "Warning: %s option is not mutable from userspace\n", f.name)
			case f.v6only && family != syscall.AF_INET6:
				fmt.Fprintf(ip.Stderr, "Warning: %s option can be set only for IPv6 addresses\n", f.name)
			case f.flag == netdev.AddrNoDAD || f.flag == netdev.AddrNoPrefixRoute:
				a.Flags |= f.flag
				if f.v6only {
					v6only = f.name
				}
			default:
				unsupportedFlag = f.name
			}
			continue
		}
		switch {
		case w == "peer", w == "remote":
			v, err := p.next()
			if err != nil {
				return err
			}
			if hasPeer {
				return duparg("peer", v)
			}
			pp, err := getPrefix(v, family)
			if err != nil {
				return err
			}
			if family == 0 {
				family = addrFamily(pp.Addr())
			}
			a.Peer, hasPeer = pp.Addr(), true
			localBits = pp.Bits()
		case matches(w, "broadcast"), w == "brd":
			v, err := p.next()
			if err != nil {
				return err
			}
			if brd != "" {
				return duparg("broadcast", v)
			}
			brd = v
			if v != "+" && v != "-" {
				b, err := getAddr(v, family)
				if err != nil {
					return err
				}
				if family == 0 {
					family = addrFamily(b)
				}
				a.Broadcast = b
			}
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
		case matches(w, "valid_lft"):
			if validArg != "" {
				return duparg("valid_lft", w)
			}
			v, err := p.next()
			if err != nil {
				return err
			}
			validArg = v
			n, ok := parseLifetime(v)
			if !ok {
				return invarg("valid_lft value", v)
			}
			valid = n
		case matches(w, "preferred_lft"):
			if preferredArg != "" {
				return duparg("preferred_lft", w)
			}
			v, err := p.next()
			if err != nil {
				return err
			}
			preferredArg = v
			n, ok := parseLifetime(v)
			if !ok {
				return invarg("preferred_lft value", v)
			}
			preferred = n
		case w == "anycast", matches(w, "metric"), matches(w, "priority"), matches(w, "preference"), w == "proto":
			return notSupported("ip address", w)
		default:
			if w == "local" {
				v, err := p.next()
				if err != nil {
					return err
				}
				w = v
			}
			if matches(w, "help") {
				return usageErr(addrUsage)
			}
			if hasLocal {
				return duparg2("local", w)
			}
			pfx, err := getPrefix(w, family)
			if err != nil {
				return err
			}
			if family == 0 {
				family = addrFamily(pfx.Addr())
			}
			a.Prefix, local, hasLocal = pfx, w, true
		}
	}
	if dev == "" {
		return failf("Not enough information: \"dev\" argument is required.\n")
	}
	if hasLocal && !hasPeer {
		localBits = a.Prefix.Bits()
	}
	if hasLocal && hasPeer && localBits != 0 {
		// With a peer, the prefix length is the peer's.
		a.Prefix = netip.PrefixFrom(a.Prefix.Addr(), localBits)
	}
	if brd == "+" || brd == "-" {
		if op != addrDel {
			if family != syscall.AF_INET {
				return failf("Broadcast can be set only for IPv4 addresses\n")
			}
			base := a.Prefix
			if hasPeer {
				base = netip.PrefixFrom(a.Peer, localBits)
			}
			if base.Bits() <= 30 {
				a.Broadcast = ipv4Broadcast(base, brd == "+")
			}
		}
	}
	if !scoped && op != addrDel && hasLocal && a.Prefix.Addr().Is4() && a.Prefix.Addr().As4()[0] == 127 {
		// default_scope: loopback addresses are host scope.
		a.Scope = netdev.ScopeHost
	}
	if h.LinkIndex(dev) == 0 {
		return nodev(dev)
	}
	if op == addrDel && !hasLocal && !hasPeer {
		return ip.addrDelFirst(h, dev, family, label)
	}
	if validArg != "" || preferredArg != "" {
		if valid == 0 {
			return failf("valid_lft is zero\n")
		}
		if valid < preferred {
			return failf("preferred_lft is greater than valid_lft\n")
		}
		a.ValidLft, a.PreferredLft = valid, preferred
	}
	if !hasLocal {
		// No IFA_LOCAL: without a family no protocol takes the request;
		// inet_rtm_newaddr and inet6_rtm_newaddr refuse it.
		switch family {
		case 0:
			return errno.New(syscall.EOPNOTSUPP, "")
		case syscall.AF_INET:
			return errno.New(syscall.EINVAL, "ipv4: Local address is not supplied")
		}
		return errno.New(syscall.EINVAL, "")
	}
	if unsupportedFlag == "autojoin" && !a.Prefix.Addr().IsMulticast() {
		return failf("autojoin needs multicast address\n")
	}
	if unsupportedFlag != "" {
		return notSupported("ip address", unsupportedFlag)
	}
	if v6only != "" && !a.Prefix.Addr().Is6() {
		return failf("ip address: %s on an IPv4 address is not supported by netsim.\n", v6only)
	}
	a.Label = label
	if op == addrDel {
		if !strings.Contains(local, "/") && !hasPeer && a.Prefix.Addr().Is4() {
			fmt.Fprintf(ip.Stderr, "Warning: Executing wildcard deletion to stay compatible with old scripts.\n"+
				"         Explicitly specify the prefix length (%s/32) to avoid this warning.\n"+
				"         This special behaviour is likely to disappear in further releases,\n"+
				"         fix your scripts!\n", local)
			a.Prefix = netip.PrefixFrom(a.Prefix.Addr(), -1)
		}
		return h.AddrDelWith(dev, a)
	}
	switch op {
	case addrChange:
		return h.AddrChange(dev, a)
	case addrReplace:
		return h.AddrReplace(dev, a)
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

// addrDelFirst is a delete that names no address: without a family no
// protocol takes it (EOPNOTSUPP); inet_rtm_deladdr deletes the device's
// first IPv4 address (with the label, if one is given); inet6_rtm_deladdr
// refuses it.
func (ip *IP) addrDelFirst(h *rtnl.Handle, dev string, family int, label string) error {
	switch family {
	case 0:
		return errno.New(syscall.EOPNOTSUPP, "")
	case syscall.AF_INET6:
		return errno.New(syscall.EINVAL, "")
	}
	as, err := h.AddrList(dev, rtnl.FamilyV4)
	if err != nil {
		return err
	}
	for _, a := range as {
		if label == "" || a.Label == label {
			return h.AddrDelWith(dev, delMatch(a))
		}
	}
	return errno.New(syscall.EADDRNOTAVAIL, "ipv4: Address not found")
}

// delMatch is the RTM_DELADDR request that names a dumped address: its
// local address, prefix length, peer and label.
func delMatch(a rtnl.AddrInfo) netdev.Addr {
	return netdev.Addr{Prefix: a.Prefix, Peer: a.Peer, Label: a.Label}
}

// addrFilter is the selection of `ip addr show/flush`.
type addrFilter struct {
	linkFilter
	scope           netdev.Scope
	hasScope        bool
	to              netip.Prefix
	label           string
	flags, flagmask netdev.AddrFlags // (flags ^ address flags) & flagmask must be 0
}

// keepAddr is print_addrinfo's and ipaddr_filter's test of one address.
func (f *addrFilter) keepAddr(a rtnl.AddrInfo) bool {
	if f.hasScope && a.Scope != f.scope {
		return false
	}
	if (f.flags^a.Flags)&f.flagmask != 0 {
		return false
	}
	if f.to.IsValid() && (a.Prefix.Addr().Is4() != f.to.Addr().Is4() || !f.to.Masked().Contains(a.Prefix.Addr())) {
		return false
	}
	if f.label != "" {
		// ifa_label_match_rta: fnmatch on the label, or on the device
		// name for an address without one (IPv6).
		l := a.Label
		if !a.Prefix.Addr().Is4() || l == "" {
			l = a.Link
		}
		if !fnmatch(f.label, l) {
			return false
		}
	}
	return true
}

// fnmatch is fnmatch(3) without flags, for labels and device names (which
// hold no '/'): *, ? and [...] wildcards, a backslash quoting the next
// character. A malformed pattern matches only itself.
func fnmatch(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	if err != nil {
		return pattern == name
	}
	return ok
}

// addrFlagFilter is iproute2's get_filter: a flag name from ifa_flag_data,
// "dynamic" (not permanent) or "primary" (not secondary), each negated by a
// leading "-".
func (f *addrFilter) addrFlagFilter(arg string) bool {
	inv := false
	if strings.HasPrefix(arg, "-") {
		inv, arg = true, arg[1:]
	}
	switch arg {
	case "dynamic":
		inv, arg = !inv, "permanent"
	case "primary":
		inv, arg = !inv, "secondary"
	}
	fl, ok := lookupAddrFlag(arg)
	if !ok {
		return false
	}
	if inv {
		f.flags &^= fl.flag
	} else {
		f.flags |= fl.flag
	}
	f.flagmask |= fl.flag
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
		case w != "up" && f.addrFlagFilter(w):
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
	selected := map[netdev.IfIndex]bool{}
	for _, a := range addrs {
		byIndex[a.Index] = append(byIndex[a.Index], a)
		if f.keepAddr(a) {
			selected[a.Index] = true
		}
	}
	// ipaddr_filter: with an address family (-4, -6, or that of "to"),
	// only devices that have a selected address; without one, also the
	// devices that have no address at all.
	filtered := fam != rtnl.FamilyAll || f.to.IsValid()
	keep := func(l rtnl.LinkInfo) bool {
		return selected[l.Index] || !filtered && len(byIndex[l.Index]) == 0
	}
	ip.addrList(f, links, keep, byIndex)
	return nil
}

// addrFlush deletes every selected address, repeating the dump until none
// is left (deleting a primary IPv4 address may delete or promote its
// secondaries), as ipaddr_flush does; with -s it says how many rounds it
// took, and with -s -s it lists each address it deletes. Asked for primary
// addresses only, it stops after one round.
func (ip *IP) addrFlush(h *rtnl.Handle, f *addrFilter, fam int) error {
	p := &ip.p
	primaryOnly := f.flagmask&netdev.AddrSecondary != 0 && f.flags&netdev.AddrSecondary == 0
	done := func(round int) error {
		if ip.opts.stats > 0 {
			if round == 0 {
				p.text("Nothing to flush.\n")
			} else {
				s := ""
				if round > 1 {
					s = "s"
				}
				p.text("*** Flush is complete after %d round%s ***\n", round, s)
			}
		}
		return nil
	}
	for round := 0; round < 10; {
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
		var sel []rtnl.AddrInfo
		for _, a := range addrs {
			if !keepLink[a.Index] || !f.keepAddr(a) {
				continue
			}
			sel = append(sel, a)
			if ip.opts.stats > 1 {
				ip.printAddrInfo(a, true)
			}
		}
		if len(sel) == 0 {
			return done(round)
		}
		for _, a := range sel {
			// ipaddr_flush sends each dumped address back as RTM_DELADDR,
			// with its peer and label.
			if err := h.AddrDelWith(a.Link, delMatch(a)); err != nil {
				if isGone(err) {
					continue
				}
				return err
			}
		}
		round++
		if ip.opts.stats > 0 {
			p.text("\n*** Round %d, deleting %d addresses ***\n", round, len(sel))
		}
		if primaryOnly {
			return done(round)
		}
	}
	return failf("*** Flush remains incomplete after 10 rounds. ***\n")
}

// isGone reports whether a delete failed because the object had already
// gone (a secondary deleted with its primary).
func isGone(err error) bool {
	return errnoOf(err) == syscall.EADDRNOTAVAIL || errnoOf(err) == syscall.ENOENT || errnoOf(err) == syscall.ESRCH
}
