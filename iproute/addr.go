// `ip address`: iproute2's ip/ipaddress.c (ipaddr_modify,
// ipaddr_list_flush_or_save, print_addrinfo).

package iproute

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"path"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
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
       ip address {showdump|restore}
IFADDR := PREFIX | ADDR peer PREFIX
          [ broadcast ADDR ] [ anycast ADDR ]
          [ label IFNAME ] [ scope SCOPE-ID ] [ metric METRIC ]
SCOPE-ID := [ host | link | global | NUMBER ]
FLAG-LIST := [ FLAG-LIST ] FLAG
FLAG  := [ permanent | dynamic | secondary | primary |
           [-]tentative | [-]deprecated | [-]dadfailed | temporary |
           CONFFLAG-LIST ]
CONFFLAG-LIST := [ CONFFLAG-LIST ] CONFFLAG
CONFFLAG  := [ home | nodad | mngtmpaddr | noprefixroute | autojoin ]
LIFETIME := [ valid_lft LFT ] [ preferred_lft LFT ]
LFT := forever | SECONDS
` + linkTypesUsage

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

// addrObject is do_ipaddr's table, in its order of comparison.
var addrObject = object{
	name:  "address",
	short: "address",
	usage: addrUsage,
	empty: func(ip *IP, h *handle, argv []string) error { return ip.addrShow(h, argv, false) },
	commands: []command{
		{names: []string{"add*"}, run: addrModifyCmd(addrAdd), keywords: addrModelled(), refusedKeywords: keywordRefusals(addrModifyKeywords)},
		{names: []string{"change*", "chg"}, run: addrModifyCmd(addrChange), keywords: addrModelled(), refusedKeywords: keywordRefusals(addrModifyKeywords)},
		{names: []string{"replace*"}, run: addrModifyCmd(addrReplace), keywords: addrModelled(), refusedKeywords: keywordRefusals(addrModifyKeywords)},
		{names: []string{"delete*"}, run: addrModifyCmd(addrDel), keywords: addrModelled()},
		{names: []string{"list*", "show*", "lst*"}, run: func(ip *IP, h *handle, argv []string) error { return ip.addrShow(h, argv, false) },
			keywords: keywordNames(addrFilterKeywords)},
		{names: []string{"flush*"}, run: func(ip *IP, h *handle, argv []string) error { return ip.addrShow(h, argv, true) },
			keywords: keywordNames(addrFilterKeywords)},
		{names: []string{"save*"}, refused: noAddrDumps},
		{names: []string{"showdump*"}, refused: noAddrDumps},
		{names: []string{"restore*"}, refused: noAddrDumps},
	},
}

const noAddrDumps = "netsim writes and reads no binary dumps of netlink messages"

func addrModifyCmd(op addrOp) func(ip *IP, h *handle, argv []string) error {
	return func(ip *IP, h *handle, argv []string) error { return ip.addrModify(h, argv, op) }
}

// addrReq is ipaddr_modify's request being built.
type addrReq struct {
	stderr                 io.Writer // ip's, for the flags' warnings
	a                      netdev.Addr
	dev, label             string
	local, brd             string
	scoped, hasLocal       bool
	hasPeer, hasAny        bool
	validArg, preferredArg string
	valid, preferred       uint32
	family                 rt.Family
	localBits              int
	v6only                 string // a modelled IPv6-only flag given
	unsupportedFlag        string // a flag netsim does not model
	refused                string // another keyword netsim does not model
}

// addrModifyKeywords are ipaddr_modify's keywords in its order of
// comparison, the flags of ifa_flag_data last; any other word is [local]
// IFADDR (addrLocal).
var addrModifyKeywords = append([]keyword[*addrReq]{
	exact("peer", func(a *args, q *addrReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if q.hasPeer {
			return duparg("peer", v)
		}
		pp, err := getPrefix(v, q.family)
		if err != nil {
			return err
		}
		if q.family == 0 {
			q.family = addrFamily(pp.Addr())
		}
		q.a.Peer, q.hasPeer = pp.Addr(), true
		q.localBits = pp.Bits()
		return nil
	}).or("remote"),
	kw("broadcast", func(a *args, q *addrReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if q.brd != "" {
			return duparg("broadcast", v)
		}
		q.brd = v
		if v != "+" && v != "-" {
			b, err := getAddr(v, q.family)
			if err != nil {
				return err
			}
			if q.family == 0 {
				q.family = addrFamily(b)
			}
			q.a.Broadcast = b
		}
		return nil
	}).or("brd"),
	exact("anycast", func(a *args, q *addrReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if q.hasAny {
			return duparg("anycast", v)
		}
		b, err := getAddr(v, q.family)
		if err != nil {
			return err
		}
		if q.family == 0 {
			q.family = addrFamily(b)
		}
		q.hasAny = true
		q.refuse("anycast")
		return nil
	}).unmodelled("netsim models no anycast addresses"),
	exact("scope", func(a *args, q *addrReq) error {
		s, err := nextValue(a, scopeID, "invalid scope value.")
		q.a.Scope, q.scoped = s, true
		return err
	}),
	exact("dev", word(func(q *addrReq, v string) { q.dev = v })),
	exact("label", word(func(q *addrReq, v string) { q.label = v })),
	kw("metric", func(a *args, q *addrReq) error {
		v, err := nextValue(a, uint32Value, "\"metric\" value is invalid\n")
		q.a.Metric = uint32(v)
		return err
	}).or("priority*", "preference*"),
	kw("valid_lft", func(a *args, q *addrReq) error {
		if q.validArg != "" {
			return duparg("valid_lft", a.peek())
		}
		n, err := nextValue(a, parseLifetime, "valid_lft value")
		q.validArg, q.valid = a.peek(), n
		return err
	}),
	kw("preferred_lft", func(a *args, q *addrReq) error {
		if q.preferredArg != "" {
			return duparg("preferred_lft", a.peek())
		}
		n, err := nextValue(a, parseLifetime, "preferred_lft value")
		q.preferredArg, q.preferred = a.peek(), n
		return err
	}),
}, addrFlagKeywords()...)

// refuse records the first keyword netsim does not model.
func (q *addrReq) refuse(kw string) {
	if q.refused == "" {
		q.refused = kw
	}
}

// addrFlagKeywords are ifa_flag_data's names as ipaddr_modify takes them.
func addrFlagKeywords() []keyword[*addrReq] {
	var out []keyword[*addrReq]
	for _, f := range addrFlagArgs {
		out = append(out, exact(f.name, func(_ *args, q *addrReq) error {
			switch {
			case f.readonly:
				fmt.Fprintf(q.stderr, "Warning: %s option is not mutable from userspace\n", f.name)
			case f.v6only && q.family != rt.FamilyInet6:
				fmt.Fprintf(q.stderr, "Warning: %s option can be set only for IPv6 addresses\n", f.name)
			case f.flag == netdev.AddrNoDAD || f.flag == netdev.AddrNoPrefixRoute:
				q.a.Flags |= f.flag
				if f.v6only {
					q.v6only = f.name
				}
			default:
				q.unsupportedFlag = f.name
			}
			return nil
		}).unmodelled(addrFlagUnmodelled[f.name]))
	}
	return out
}

// addrFlagUnmodelled says why netsim refuses the flags of ipaddr_modify
// that it does not model.
var addrFlagUnmodelled = map[string]string{
	"home":       "netsim models no Mobile IPv6 home addresses",
	"mngtmpaddr": "netsim models no IPv6 temporary addresses",
	"optimistic": "netsim models no optimistic DAD",
	"autojoin":   "netsim joins no multicast groups for addresses",
}

// addrModelled lists the keywords of ipaddr_modify that netsim models.
func addrModelled() []string {
	var out []string
	for _, k := range keywordModelled(addrModifyKeywords) {
		if f, ok := lookupAddrFlag(k); !ok || !f.readonly {
			out = append(out, k)
		}
	}
	return out
}

// addrLocal is ipaddr_modify's last branch: [local] IFADDR, or help.
func addrLocal(a *args, q *addrReq) error {
	w, err := a.optional(func(w string) bool { return w == "local" })
	if err != nil {
		return err
	}
	if matches(w, "help") {
		return usageErr(addrUsage)
	}
	if q.hasLocal {
		return duparg2("local", w)
	}
	pfx, err := getPrefix(w, q.family)
	if err != nil {
		return err
	}
	if q.family == 0 {
		q.family = addrFamily(pfx.Addr())
	}
	q.a.Prefix, q.local, q.hasLocal = pfx, w, true
	return nil
}

// addrModify is iproute2's ipaddr_modify.
func (ip *IP) addrModify(h *handle, argv []string, op addrOp) error {
	q := &addrReq{stderr: ip.Stderr, valid: netdev.LifetimeForever, preferred: netdev.LifetimeForever, family: ip.family}
	if err := walk(&args{w: argv}, addrModifyKeywords, q, addrLocal); err != nil {
		return err
	}
	a, family, hasLocal, hasPeer, localBits := &q.a, q.family, q.hasLocal, q.hasPeer, q.localBits
	if q.dev == "" {
		return failf("Not enough information: \"dev\" argument is required.\n")
	}
	if hasLocal && !hasPeer {
		localBits = a.Prefix.Bits()
	}
	if hasLocal && hasPeer && localBits != 0 {
		// With a peer, the prefix length is the peer's.
		a.Prefix = netip.PrefixFrom(a.Prefix.Addr(), localBits)
	}
	if q.brd == "+" || q.brd == "-" {
		if op != addrDel {
			if family != rt.FamilyInet {
				return failf("Broadcast can be set only for IPv4 addresses\n")
			}
			base := a.Prefix
			if hasPeer {
				base = netip.PrefixFrom(a.Peer, localBits)
			}
			if base.Bits() <= 30 {
				a.Broadcast = ipv4Broadcast(base, q.brd == "+")
			}
		}
	}
	if !q.scoped && op != addrDel && hasLocal && a.Prefix.Addr().Is4() && a.Prefix.Addr().As4()[0] == 127 {
		// default_scope: loopback addresses are host scope.
		a.Scope = netdev.ScopeHost
	}
	idx := h.LinkIndex(q.dev)
	if idx == 0 {
		return nodev(q.dev)
	}
	if q.validArg != "" || q.preferredArg != "" {
		if q.valid == 0 {
			return failf("valid_lft is zero\n")
		}
		if q.valid < q.preferred {
			return failf("preferred_lft is greater than valid_lft\n")
		}
		a.ValidLft, a.PreferredLft = q.valid, q.preferred
	}
	if q.unsupportedFlag == "autojoin" && !(hasLocal && a.Prefix.Addr().IsMulticast()) {
		return failf("autojoin needs multicast address\n")
	}
	for _, kw := range []string{q.unsupportedFlag, q.refused} {
		// inet_rtm_deladdr and inet6_rtm_deladdr find the address by
		// its local address, prefix and label: the rest is ignored
		// (IFA_F_MANAGETEMPADDR cleans up temporary addresses, which
		// netsim has none of).
		if kw != "" && op != addrDel {
			return failf("ip address: \"%s\" is not supported by netsim: %s.\n", kw, lookup(addrModifyKeywords, kw).refused)
		}
	}
	if op == addrDel && !hasLocal && !hasPeer {
		// A delete that names no address: inet_rtm_deladdr takes the
		// device's first IPv4 address (with the label, if one is given).
		// Sent without a family it meets no handler in
		// rtnetlink_rcv_msg, which a Go request has no form of.
		if family == rt.FamilyUnspec {
			return errno.New(syscall.EOPNOTSUPP, "")
		}
		req := rtnl.AddrRequest{LinkIndex: idx, Family: family}
		if family == rt.FamilyInet && q.label != "" {
			req.Match4 = &rtnl.Inet4DelMatch{Label: &q.label}
		}
		return noAddrDev(h.DelAddr(req), family == rt.FamilyInet6)
	}
	if !hasLocal {
		// No IFA_LOCAL: without a family no protocol takes the request;
		// inet_rtm_newaddr and inet6_rtm_newaddr refuse it.
		switch family {
		case 0:
			return errno.New(syscall.EOPNOTSUPP, "")
		case rt.FamilyInet:
			return errno.New(syscall.EINVAL, "ipv4: Local address is not supplied")
		}
		return errno.New(syscall.EINVAL, "")
	}
	if q.v6only != "" && !a.Prefix.Addr().Is6() {
		return failf("ip address: %s on an IPv4 address is not supported by netsim.\n", q.v6only)
	}
	a.Label = q.label
	if op == addrDel {
		if !strings.Contains(q.local, "/") && !hasPeer && a.Prefix.Addr().Is4() {
			fmt.Fprintf(ip.Stderr, "Warning: Executing wildcard deletion to stay compatible with old scripts.\n"+
				"         Explicitly specify the prefix length (%s/32) to avoid this warning.\n"+
				"         This special behaviour is likely to disappear in further releases,\n"+
				"         fix your scripts!\n", q.local)
			a.Prefix = netip.PrefixFrom(a.Prefix.Addr(), -1)
		}
		return noAddrDev(h.DelAddr(rtnl.AddrRequest{LinkIndex: idx, Addr: *a}), a.Prefix.Addr().Is6())
	}
	// ipaddr_modify's NLM flags: add is NLM_F_CREATE|NLM_F_EXCL, change
	// NLM_F_REPLACE, replace NLM_F_CREATE|NLM_F_REPLACE.
	flags := rt.NLMCreate | rt.NLMExcl
	switch op {
	case addrChange:
		flags = rt.NLMReplace
	case addrReplace:
		flags = rt.NLMCreate | rt.NLMReplace
	}
	return noAddrDev(h.NewAddr(rtnl.AddrRequest{Flags: flags, LinkIndex: idx, Addr: *a}), a.Prefix.Addr().Is6())
}

// noAddrDev gives the extack message inet_rtm_newaddr, inet_rtm_deladdr
// (IPv4) and inet6_rtm_newaddr, inet6_rtm_deladdr (IPv6) answer for an
// ifa_index no device has: the index ip took from its cache, where the
// device has gone since.
func noAddrDev(err error, inet6 bool) error {
	var e *errno.Error
	if !errors.As(err, &e) || e.Errno != syscall.ENODEV || e.Msg != "" {
		return err
	}
	if inet6 {
		return errno.New(syscall.ENODEV, "ipv6: Unable to find the interface")
	}
	return errno.New(syscall.ENODEV, "ipv4: Device not found")
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

// delMatch is the RTM_DELADDR request that names a dumped address: its
// local address, prefix length, peer and label.
func delMatch(a rtnl.AddrInfo) netdev.Addr {
	return netdev.Addr{Prefix: a.Prefix, Peer: a.Peer, Label: a.Label}
}

// addrFilter is the selection of `ip addr show/flush`.
type addrFilter struct {
	linkFilter
	h               *handle
	family          rt.Family      // -4, -6 or 0: the family of "to"
	link            bool           // `ip link show` (ipaddr_list_link)
	devIndex        netdev.IfIndex // filter.ifindex: dev's index (ll_name_to_index)
	usage           string         // the object's usage, for help
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

// addrFilterKeywords are ipaddr_list_flush_or_save's keywords in its order
// of comparison (`ip addr show/flush` and `ip link show`); any other word
// is [dev] DEVICE (filterDev).
var addrFilterKeywords = append([]keyword[*addrFilter]{
	exact("to", func(a *args, f *addrFilter) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if f.link {
			// ipaddr_list_link asks for AF_PACKET, which get_prefix refuses.
			return &argError{msg: fmt.Sprintf("Error: \"%s\" may be inet prefix, but it is not allowed in this context.\n", v), status: exitFailure}
		}
		p, err := getPrefix(v, f.family)
		f.to = p
		return err
	}),
	exact("scope", func(a *args, f *addrFilter) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		s, ok := scopeID(v)
		if !ok && v != "all" {
			return invarg("invalid \"scope\"\n", v)
		}
		f.scope, f.hasScope = s, v != "all"
		return nil
	}),
	exact("up", func(_ *args, f *addrFilter) error { f.up = true; return nil }),
}, append(addrFlagFilterKeywords(), []keyword[*addrFilter]{
	exact("label", word(func(f *addrFilter, v string) { f.label = v })),
	exact("group", func(a *args, f *addrFilter) error {
		g, err := nextValue(a, groupID, "Invalid \"group\" value\n")
		f.group, f.hasGroup = g, true
		return err
	}),
	exact("master", func(a *args, f *addrFilter) error {
		v, err := nextMaster(a, f.h)
		f.master, f.nomaster = v, false
		return err
	}),
	exact("vrf", func(a *args, f *addrFilter) error {
		v, err := nextVRF(a, f.h)
		f.master, f.nomaster = v, false
		return err
	}),
	exact("nomaster", func(_ *args, f *addrFilter) error { f.master, f.nomaster = "", true; return nil }),
	exact("type", func(a *args, f *addrFilter) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if k, ok := strings.CutSuffix(v, "_slave"); ok {
			f.slaveKind = k
		} else {
			f.kind = v
		}
		return nil
	}),
}...)...)

// addrFlagFilterKeywords are get_filter's words: the names of
// ifa_flag_data, "dynamic" and "primary", each also with a leading "-".
func addrFlagFilterKeywords() []keyword[*addrFilter] {
	var out []keyword[*addrFilter]
	names := []string{}
	for _, fl := range addrFlagArgs {
		names = append(names, fl.name)
	}
	names = append(names, "dynamic", "primary")
	for _, n := range names {
		out = append(out, exact(n, func(a *args, f *addrFilter) error {
			f.addrFlagFilter(a.peek())
			return nil
		}).or("-"+n))
	}
	return out
}

// filterDev is ipaddr_list_flush_or_save's last branch: [dev] DEVICE, or
// help.
func filterDev(a *args, f *addrFilter) error {
	return devSelector(a, &f.dev, f.usage)
}

// devSelector reads a list selector's [dev] DEVICE word into *dev: "dev"
// takes the next word, "help" prints usage, a second device is a duplicate
// (ipaddr_list_flush_or_save and multiaddr_list share this branch).
func devSelector(a *args, dev *string, usage string) error {
	w := a.peek()
	if w == "dev" {
		v, err := a.next()
		if err != nil {
			return err
		}
		w = v
	} else if matches(w, "help") {
		return usageErr(usage)
	}
	if *dev != "" {
		return duparg2("dev", w)
	}
	*dev = w
	return nil
}

// parseAddrFilter reads the selectors of `ip addr show/flush` (link
// false) or `ip link show` (link true).
func (ip *IP) parseAddrFilter(h *handle, argv []string, link bool) (*addrFilter, error) {
	f := &addrFilter{h: h, family: ip.family, link: link, usage: addrUsage}
	if link {
		f.usage = linkUsage
	}
	if err := walk(&args{w: argv}, addrFilterKeywords, f, filterDev); err != nil {
		return nil, err
	}
	if f.dev != "" {
		if f.devIndex = h.LinkIndex(f.dev); f.devIndex == 0 {
			return nil, failf("Device \"%s\" does not exist.\n", f.dev)
		}
	}
	return f, nil
}

func (ip *IP) addrShow(h *handle, argv []string, flush bool) error {
	if flush && len(argv) == 0 {
		return failf("Flush requires arguments.\n")
	}
	f, err := ip.parseAddrFilter(h, argv, false)
	if err != nil {
		return err
	}
	fam := ip.family // -4, -6 or neither
	if flush {
		return ip.addrFlush(h, f, fam)
	}
	links, err := h.LinkList()
	if err != nil {
		return err
	}
	if f.dev != "" && !f.hasGroup && ip.doLink {
		// After an `ip link show`, a device alone with no group is
		// fetched with RTM_GETLINK (iplink_get) and printed as `ip link`
		// prints it, in the addr command's family, without its
		// addresses.
		ip.linkList(&f.linkFilter, f.label != "", links, linkView{doLink: true, family: ip.family, h: h})
		return nil
	}
	h.rememberListed(f, links)
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
	filtered := fam != rt.FamilyUnspec || f.to.IsValid()
	keep := func(l rtnl.LinkInfo) bool {
		return selected[l.Index] || !filtered && len(byIndex[l.Index]) == 0
	}
	ip.addrList(h, f, links, keep, byIndex)
	return nil
}

// addrFlush deletes every selected address, repeating the dump until none
// is left (deleting a primary IPv4 address may delete or promote its
// secondaries), as ipaddr_flush does; with -s it says how many rounds it
// took, and with -s -s it lists each address it deletes. Asked for primary
// addresses only, it stops after one round.
func (ip *IP) addrFlush(h *handle, f *addrFilter, fam rt.Family) error {
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
