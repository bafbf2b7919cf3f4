// `ip route { show | flush }`: iproute2's iproute_list_flush_or_save,
// filter_nlmsg and iproute_flush (ip/iproute.c), over the kernel's route
// dump (inet_dump_fib in net/ipv4/fib_frontend.c, inet6_dump_fib in
// net/ipv6/ip6_fib.c).

package iproute

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// inetPrefix is a prefix as iproute2's get_prefix reads it into an
// inet_prefix: given (a family or PREFIXLEN_SPECIFIED), and of family 0
// when it is "default", "any" or "all" read without a family, which
// matches routes of either.
type inetPrefix struct {
	p      netip.Prefix
	family rt.Family
	given  bool
}

// getInetPrefix is get_prefix into an inet_prefix.
func getInetPrefix(s string, family rt.Family) (inetPrefix, error) {
	p, err := getPrefix(s, family)
	if err != nil {
		return inetPrefix{}, err
	}
	fam := family
	if !isAnyPrefix(s) {
		fam = addrFamily(p.Addr())
	}
	return inetPrefix{p: p, family: fam, given: true}, nil
}

// hostBits is the prefix's length when it names a host of the route's
// family: filter.rvia.bitlen and filter.rprefsrc.bitlen, which
// print_route compares with the route's host length.
func (x inetPrefix) hostBits() int {
	if !x.given {
		return -1
	}
	return x.p.Bits()
}

// routeFilter is iproute_list_flush_or_save's filter (iproute2's struct
// filter as it sets it).
type routeFilter struct {
	// family is preferred_family: a route of another family is left out.
	family rt.Family
	// multi is filter_nlmsg's static ip6_multiple_tables, kept over a
	// batch's lines: set once an IPv6 route of a table other than main
	// was dumped; until then `table main` and `table local` tell IPv6
	// routes apart by type.
	multi *bool

	table     uint32 // filter.tb; 0: all tables
	cloned    bool   // "cached", "cloned", "table cache": the route cache
	typ       fib.Type
	hasType   bool
	proto     fib.Protocol
	hasProto  bool // protocolmask: a protocol other than "all" given
	scope     netdev.Scope
	scopeMask netdev.Scope
	tos       uint8
	hasTOS    bool
	dev, iif  string         // od and id, resolved after the words
	devIndex  netdev.IfIndex // od's ifindex
	mark      uint32
	hasMark   bool
	metric    uint32
	hasMetric bool
	via       inetPrefix // rvia
	prefsrc   inetPrefix // rprefsrc
	// root and mtch are rdst and mdst; srcRoot and srcMatch rsrc and msrc.
	root, mtch, srcRoot, srcMatch inetPrefix
}

// routeFilterReq is the filter while its words are read.
type routeFilterReq struct {
	f      *routeFilter
	family rt.Family // dump_family
}

// routeFilterKeywords are iproute_list_flush_or_save's keywords in its
// order.
var routeFilterKeywords = []keyword[*routeFilterReq]{
	kw("table", func(a *args, q *routeFilterReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if id, ok := tableID(v); ok {
			q.f.table = id
			return nil
		}
		switch v {
		case "all":
			q.f.table = 0
		case "cache":
			q.f.cloned = true
		case "help":
			return usageErr(routeUsage)
		default:
			return invarg("table id value is invalid\n", v)
		}
		return nil
	}),
	routeRefused(kw[*routeFilterReq]("vrf", nil), "ip route", true),
	kw("cached", func(a *args, q *routeFilterReq) error {
		q.f.cloned = true
		return nil
	}).or("cloned*"),
	exact("tos", func(a *args, q *routeFilterReq) error {
		tos, err := nextValue(a, dsfieldID, "TOS value is invalid\n")
		q.f.tos, q.f.hasTOS = tos, true
		return err
	}).or("dsfield*"),
	kw("protocol", func(a *args, q *routeFilterReq) error {
		p, set, err := nextProtoFilter(a)
		q.f.proto, q.f.hasProto = fib.Protocol(p), set
		return err
	}),
	kw("scope", func(a *args, q *routeFilterReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		s, ok := scopeID(v)
		switch {
		case ok:
			q.f.scope, q.f.scopeMask = s, 0xff
		case v == "all":
			q.f.scope, q.f.scopeMask = netdev.ScopeNowhere, 0
		default:
			return invarg("invalid \"scope\"\n", v)
		}
		return nil
	}),
	kw("type", func(a *args, q *routeFilterReq) error {
		ty, err := nextValue(a, routeTypeID, "node type value is invalid\n")
		q.f.typ, q.f.hasType = ty, true
		return err
	}),
	exact("dev", word(func(q *routeFilterReq, v string) { q.f.dev = v })).or("oif"),
	exact("iif", word(func(q *routeFilterReq, v string) { q.f.iif = v })),
	exact("mark", func(a *args, q *routeFilterReq) error {
		m, err := nextValue(a, uint32Value, "invalid mark value")
		q.f.mark, q.f.hasMark = uint32(m), true
		return err
	}),
	kw("metric", func(a *args, q *routeFilterReq) error {
		m, err := nextValue(a, uint32Value, "\"metric\" value is invalid\n")
		q.f.metric, q.f.hasMetric = uint32(m), true
		return err
	}).or("priority*", "preference"),
	exact("via", func(a *args, q *routeFilterReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		fam := q.family
		if f := readFamily(v); f != 0 {
			fam = f
			if v, err = a.next(); err != nil {
				return err
			}
		}
		q.f.via, err = getInetPrefix(v, fam)
		return err
	}),
	exact("src", func(a *args, q *routeFilterReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		q.f.prefsrc, err = getInetPrefix(v, q.family)
		return err
	}),
	routeRefused(kw[*routeFilterReq]("realms", nil), "ip route", true),
	kw("from", func(a *args, q *routeFilterReq) error {
		if _, err := a.next(); err != nil {
			return err
		}
		return q.prefixes(a, &q.f.srcRoot, &q.f.srcMatch)
	}),
}

// routeFilterDst is the last branch: [to] { root | match | [exact] } PREFIX.
func routeFilterDst(a *args, q *routeFilterReq) error {
	if matches(a.peek(), "to") {
		if _, err := a.next(); err != nil {
			return err
		}
	}
	return q.prefixes(a, &q.f.root, &q.f.mtch)
}

// prefixes reads `root P`, `match P` or `[exact] P` into root and match.
func (q *routeFilterReq) prefixes(a *args, root, match *inetPrefix) error {
	w := a.peek()
	var dst []*inetPrefix
	switch {
	case matches(w, "root"):
		dst = []*inetPrefix{root}
	case matches(w, "match"):
		dst = []*inetPrefix{match}
	default:
		dst = []*inetPrefix{root, match}
	}
	if len(dst) == 1 || matches(w, "exact") {
		v, err := a.next()
		if err != nil {
			return err
		}
		w = v
	}
	p, err := getInetPrefix(w, q.family)
	if err != nil {
		return err
	}
	for _, d := range dst {
		*d = p
	}
	return nil
}

// readFamily is iproute2's read_family: "inet", "inet6", ... or 0.
func readFamily(s string) rt.Family {
	switch s {
	case "inet":
		return rt.FamilyInet
	case "inet6":
		return rt.FamilyInet6
	}
	return 0
}

func (ip *IP) parseRouteFilter(h *handle, argv []string) (*routeFilter, error) {
	q := &routeFilterReq{f: &routeFilter{table: fib.TableMain, family: ip.family, multi: &ip.ip6MultipleTables}, family: ip.family}
	if err := walk(&args{w: argv}, routeFilterKeywords, q, routeFilterDst); err != nil {
		return nil, err
	}
	for _, d := range []string{q.f.iif, q.f.dev} {
		i := netdev.IfIndex(0)
		if d != "" {
			if i = h.LinkIndex(d); i == 0 {
				return nil, nodev(d)
			}
		}
		if d == q.f.dev {
			q.f.devIndex = i
		}
	}
	return q.f, nil
}

// addrMatch is inet_addr_match: the first bits of a and b agree. An
// invalid a is the zero address of b's family (an attribute the route
// does not have).
func addrMatch(a, b netip.Addr, bits int) bool {
	if bits == 0 {
		return true
	}
	if !a.IsValid() {
		a = netip.IPv6Unspecified()
		if b.Is4() {
			a = netip.IPv4Unspecified()
		}
	}
	if a.BitLen() != b.BitLen() || bits > a.BitLen() {
		return false
	}
	x, _ := a.Prefix(bits)
	y, _ := b.Prefix(bits)
	return x == y
}

// routeFamily is a dumped route's rtm_family.
func routeFamily(r rtnl.RouteInfo) rt.Family {
	if r.Family != 0 {
		return r.Family
	}
	return addrFamily(r.Dst.Addr())
}

// rootMatch is filter_nlmsg's test of an rdst or rsrc filter x against
// the route's prefix p (of length plen, addr invalid when absent).
func rootMatch(x inetPrefix, family rt.Family, addr netip.Addr, plen int) bool {
	if !x.given {
		return true
	}
	if x.family != 0 && x.family != family || x.p.Bits() > plen {
		return false
	}
	return addrMatch(addr, x.p.Addr(), x.p.Bits())
}

// matchMatch is filter_nlmsg's test of an mdst or msrc filter x.
func matchMatch(x inetPrefix, family rt.Family, addr netip.Addr, plen int) bool {
	if !x.given {
		return true
	}
	if x.family != 0 && x.family != family || x.p.Bits() < plen {
		return false
	}
	return addrMatch(addr, x.p.Addr(), plen)
}

// keep is filter_nlmsg for a dumped route.
func (f *routeFilter) keep(r rtnl.RouteInfo) bool {
	family := routeFamily(r)
	if f.family != 0 && family != f.family {
		return false
	}
	if family == rt.FamilyInet6 && r.Table != fib.TableMain && f.multi != nil {
		*f.multi = true
	}
	if f.cloned {
		// A dumped FIB entry is not a cached route.
		return false
	}
	if family == rt.FamilyInet6 && (f.multi == nil || !*f.multi) {
		switch {
		case f.table == 0:
		case f.table == fib.TableLocal:
			if r.Type != fib.TypeLocal {
				return false
			}
		case f.table == fib.TableMain:
			if r.Type == fib.TypeLocal {
				return false
			}
		default:
			return false
		}
	} else if f.table != 0 && r.Table != f.table {
		return false
	}
	switch {
	case f.hasProto && r.Protocol != f.proto,
		f.scopeMask != 0 && r.Scope != f.scope,
		f.hasType && r.Type != f.typ,
		f.hasTOS && r.TOS != f.tos:
		return false
	}
	srcLen := 0
	var src netip.Addr
	if r.Src.IsValid() {
		srcLen, src = r.Src.Bits(), r.Src.Addr()
	}
	if !rootMatch(f.root, family, r.Dst.Addr(), r.Dst.Bits()) ||
		!matchMatch(f.mtch, family, r.Dst.Addr(), r.Dst.Bits()) ||
		!rootMatch(f.srcRoot, family, src, srcLen) ||
		!matchMatch(f.srcMatch, family, src, srcLen) {
		return false
	}
	if f.via.given && f.via.family != 0 {
		// An IPv4 route's IPv6 gateway is its RTA_VIA, of that family.
		viaFamily := family
		if r.Gateway.IsValid() {
			viaFamily = addrFamily(r.Gateway)
		}
		if viaFamily != f.via.family || !addrMatch(r.Gateway, f.via.p.Addr(), f.via.p.Bits()) {
			return false
		}
	}
	if f.prefsrc.given && f.prefsrc.family != 0 {
		if family != f.prefsrc.family || !addrMatch(r.PrefSrc, f.prefsrc.p.Addr(), f.prefsrc.p.Bits()) {
			return false
		}
	}
	if f.iif != "" {
		return false // no dumped route has RTA_IIF
	}
	if f.dev != "" && r.Dev != f.dev {
		return false
	}
	if f.hasMark && f.mark != 0 {
		return false // nor RTA_MARK
	}
	if f.hasMetric && r.Priority != f.metric {
		return false
	}
	return true
}

func (ip *IP) routeList(h *handle, argv []string, flush bool) error {
	if flush && len(argv) == 0 {
		return failf("\"ip route flush\" requires arguments.\n")
	}
	f, err := ip.parseRouteFilter(h, argv)
	if err != nil {
		return err
	}
	// dump_family: IPv4 for a table of no family given, both families
	// (IPv4's dump, then IPv6's: rtnl_dump_all) for `table all`.
	dumpFamily := ip.family
	if dumpFamily == 0 && f.table != 0 {
		dumpFamily = rt.FamilyInet
	}
	if flush && f.cloned && dumpFamily != rt.FamilyInet6 {
		// iproute_flush_cache: /proc/sys/net/ipv4/route/flush, which
		// netsim, keeping no route cache, has nothing for. With both
		// families the IPv6 dump of cached routes follows, and finds
		// none.
		if ip.opts.stats > 0 {
			ip.p.text("*** IPv4 routing cache is flushed.\n")
		}
		if dumpFamily == rt.FamilyInet {
			return nil
		}
		if ip.opts.stats > 0 {
			ip.p.text("*** Flush is complete after 0 round ***\n")
		}
		return nil
	}
	families := []rt.Family{dumpFamily}
	if dumpFamily == rt.FamilyUnspec {
		families = []rt.Family{rt.FamilyInet, rt.FamilyInet6}
	}
	// ip asks for a strict dump (the kernel filters by table, device and
	// protocol, and refuses a table that does not exist) but in a batch,
	// whose socket does not set NETLINK_GET_STRICT_CHK: the kernel then
	// dumps every table, and ip's filter alone picks.
	var rs []rtnl.RouteInfo
	for _, fam := range families {
		frs, err := ip.dumpRoutes(h, fam, f)
		if err != nil {
			if errno.Of(err) != syscall.ENOENT {
				return err
			}
			// The kernel's strict dump of a table that does not exist
			// (inet_dump_fib, inet6_dump_fib with a table filter). A
			// listing of main, which a namespace lacks until its first
			// route, shows nothing instead (save_route_errhndlr).
			if !flush && f.table == fib.TableMain {
				continue
			}
			msg := "Dump terminated\n"
			if flush {
				msg = "Flush terminated\n"
			} else {
				// new_json_obj ran before the dump failed, and its "["
				// stays on stdout.
				ip.p.startJSON(ip.opts.json, ip.opts.pretty, true)
				ip.p.flushJSON()
				ip.p.jw = nil
			}
			return &cmdError{msg: Message(err) + msg, status: exitNetlink}
		}
		rs = append(rs, frs...)
	}
	if flush {
		return ip.routeFlush(h, rs, f)
	}
	p := &ip.p
	p.startJSON(ip.opts.json, ip.opts.pretty, true)
	for _, r := range rs {
		if f.keep(r) {
			ip.printRoute(h, dumpedRoute(r), f)
		}
	}
	p.endJSON(true)
	return nil
}

// routeFlush is iproute_flush: each route of the dump that the filter
// keeps is sent back as a delete, printed first with -s -s; with -s the
// rounds are counted ("*** Round 1, deleting N entries ***"). A second
// round finds nothing left.
func (ip *IP) routeFlush(h *handle, rs []rtnl.RouteInfo, f *routeFilter) error {
	flushFailed := false
	n := 0
	for _, r := range rs {
		if !f.keep(r) {
			continue
		}
		n++
		if ip.opts.stats >= 2 {
			ip.printRoute(h, dumpedRoute(r), f)
		}
		if r.NexthopID != 0 {
			// ip sends the dumped route back, whose nexthop object comes
			// with its gateway and device: the kernel refuses that
			// (rtm_to_fib_config), and ip reports it after the round.
			flushFailed = true
			continue
		}
		// A multipath route goes back without its paths: the IPv6
		// kernel then deletes it with all its siblings
		// (__ip6_del_rt_siblings), as for ip's RTA_MULTIPATH. The
		// route's own rtm_scope and RTA_PREFSRC go back with it, and
		// fib_table_delete matches them exactly.
		del := rtnl.Route{Table: r.Table, Dst: r.Dst, Src: r.Src, TOS: r.TOS, Priority: r.Priority,
			Type: r.Type, Scope: r.Scope, Protocol: r.Protocol, Gateway: r.Gateway, Dev: r.Dev,
			PrefSrc: r.PrefSrc, Metrics: r.Metrics, Pref: r.Pref}
		if err := h.DelRoute(rtnl.RouteRequest{Route: del}); err != nil && !isGone(err) {
			return err
		}
	}
	if flushFailed {
		return &cmdError{msg: "Failed to send flush request: " + Strerror(syscall.EINVAL) + "\n", status: exitNetlink}
	}
	if ip.opts.stats > 0 {
		if n == 0 {
			ip.p.text("Nothing to flush.\n")
		} else {
			ip.p.text("\n*** Round 1, deleting %d entries ***\n*** Flush is complete after 1 round ***\n", n)
		}
	}
	return nil
}

// Dump buffers: the kernel fills one skb per dump round, of NLMSG_GOODSIZE
// (3776 bytes on x86-64) for the round at the request and the one a
// recvmsg peek starts, then, once ip has read with its 32 KiB buffer, of
// SKB_WITH_OVERHEAD(32768).
//
// iproute2: rtnl_recvmsg (lib/libnetlink.c); kernel: netlink_dump
// (net/netlink/af_netlink.c).
const (
	dumpSkbSmall = 3776
	dumpSkbLarge = 32768 - 320
)

// dumpRoom is the room of the dump's part i as ip's reads leave it.
func dumpRoom(i int) int {
	if i < 2 {
		return dumpSkbSmall
	}
	return dumpSkbLarge
}

// dumpRoutes is iproute_list_flush_or_save's dump of family's routes, in
// the kernel's order: the request iproute_dump_filter builds (the table,
// protocol, device and RTM_F_CLONED of the filter; strict unless in a
// batch), read with ip's buffers. A route the kernel cannot fit in a
// part ends the dump (see rtnl.RouteDump.Next): with ip's reads, a route of
// more than 3776 bytes (233 IPv4 paths with gateways) that is not in the
// first two parts' worth of the dump, or not after routes that filled
// them. (ip's flush of such a table then fails with "Failed to send flush
// request: No data available"; netsim deletes the routes before the cut
// and reports nothing.)
func (ip *IP) dumpRoutes(h *handle, family rt.Family, f *routeFilter) ([]rtnl.RouteInfo, error) {
	req := rtnl.RouteDumpRequest{Family: family, Strict: !ip.inBatch, Table: f.table, DevIndex: f.devIndex}
	if f.table != 0 {
		req.Attrs = append(req.Attrs, rt.RTATable)
	}
	if f.devIndex != 0 {
		req.Attrs = append(req.Attrs, rt.RTAOIF)
	}
	if f.hasProto {
		req.Protocol = f.proto
	}
	if f.cloned {
		req.Flags = rt.RTMFCloned
	}
	d, err := h.DumpRoutes(req)
	if err != nil {
		return nil, err
	}
	var rs []rtnl.RouteInfo
	err = d.Drain(dumpRoom, func(ri *rtnl.RouteInfo) { rs = append(rs, *ri) })
	return rs, err
}
