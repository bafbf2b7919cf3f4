// `ip route`: iproute2's ip/iproute.c (iproute_modify,
// iproute_list_flush_or_save, iproute_get, print_route).

package iproute

import (
	"fmt"
	"github.com/netsimlab/netsim/rt"
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
)

const routeUsage = `Usage: ip route { list | flush } SELECTOR
       ip route get ADDRESS
       ip route { add | del | change | append | replace | prepend } ROUTE
SELECTOR := [ root PREFIX ] [ match PREFIX ] [ exact PREFIX ]
            [ table TABLE_ID ] [ proto RTPROTO ]
            [ type TYPE ] [ scope SCOPE ] [ dev STRING ] [ via ADDRESS ]
ROUTE := NODE_SPEC [ INFO_SPEC ]
NODE_SPEC := [ TYPE ] PREFIX [ tos TOS ]
             [ table TABLE_ID ] [ proto RTPROTO ]
             [ scope SCOPE ] [ metric METRIC ]
INFO_SPEC := { NH | nhid ID } OPTIONS FLAGS [ nexthop NH ]...
NH := [ via [ FAMILY ] ADDRESS ] [ dev STRING ] [ weight NUMBER ] NHFLAGS
OPTIONS := FLAGS [ src ADDRESS ]
TYPE := { unicast | local | broadcast | multicast | throw |
          unreachable | prohibit | blackhole | nat }
TABLE_ID := [ local | main | default | all | NUMBER ]
SCOPE := [ host | link | global | NUMBER ]
NHFLAGS := [ onlink | pervasive ]
RTPROTO := [ kernel | boot | static | NUMBER ]
`

func (ip *IP) doRoute(h *rtnl.Handle, argv []string) error {
	if len(argv) == 0 {
		return ip.routeList(h, nil, false)
	}
	cmd, rest := argv[0], argv[1:]
	switch {
	case matches(cmd, "add"):
		return ip.routeModify(h, rest, fib.ModeAdd, false)
	case matches(cmd, "change"), cmd == "chg":
		return ip.routeModify(h, rest, fib.ModeChange, false)
	case matches(cmd, "replace"):
		return ip.routeModify(h, rest, fib.ModeReplace, false)
	case matches(cmd, "prepend"):
		return ip.routeModify(h, rest, fib.ModePrepend, false)
	case matches(cmd, "append"):
		return ip.routeModify(h, rest, fib.ModeAppend, false)
	case matches(cmd, "delete"):
		return ip.routeModify(h, rest, 0, true)
	case matches(cmd, "list"), matches(cmd, "show"), matches(cmd, "lst"):
		return ip.routeList(h, rest, false)
	case matches(cmd, "get"):
		return ip.routeGet(h, rest)
	case matches(cmd, "flush"):
		return ip.routeList(h, rest, true)
	case matches(cmd, "help"):
		return usageErr(routeUsage)
	}
	return unknownCmd(cmd, "route")
}

// routeTypeID is iproute2's rtnl_rtntype_a2n.
func routeTypeID(s string) (fib.Type, bool) { return rt.ParseType(s) }

// parseVia reads `via [FAMILY] ADDRESS`; a is at "via". Without FAMILY the
// address must be of family, the request's so far (rtm_family), if given.
func parseVia(a *args, family int) (netip.Addr, error) {
	v, err := a.next()
	if err != nil {
		return netip.Addr{}, err
	}
	fam := family
	switch v {
	case "inet":
		fam = syscall.AF_INET
		if v, err = a.next(); err != nil {
			return netip.Addr{}, err
		}
	case "inet6":
		fam = syscall.AF_INET6
		if v, err = a.next(); err != nil {
			return netip.Addr{}, err
		}
	}
	return getAddr(v, fam)
}

func (ip *IP) routeModify(h *rtnl.Handle, argv []string, mode fib.Mode, del bool) error {
	var (
		r                     rtnl.Route
		dstOK, scopeOK, gwOK  bool
		typeOK                bool
		tableOK               bool
		devs                  []string
		family                = ip.family
		scope                 netdev.Scope
		hasMultipath, hasNhid bool
		mx                    mxBuf
		// msgLen is the request's nlmsg_len before RTA_OIF, RTA_METRICS
		// and RTA_MULTIPATH: header, rtmsg and the attributes so far.
		msgLen = 16 + 12
		mpArgs []string // from the first "nexthop" on
	)
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case w == "src":
			v, err := a.next()
			if err != nil {
				return err
			}
			s, err := getAddr(v, family)
			if err != nil {
				return err
			}
			r.PrefSrc = s
			msgLen += attrLen(s.BitLen() / 8)
		case w == "via":
			if gwOK {
				return invarg("use nexthop syntax to specify multiple via\n", w)
			}
			gw, err := parseVia(a, family)
			if err != nil {
				return err
			}
			if family == 0 {
				family = addrFamily(gw)
			}
			r.Gateway, gwOK = gw, true
			msgLen += viaLen(gw, family)
		case w == "tos" || matches(w, "dsfield"):
			tos, err := nextValue(a, dsfieldID, "\"tos\" value is invalid\n")
			if err != nil {
				return err
			}
			r.TOS = tos
		case w == "metric" || w == "priority" || matches(w, "preference"):
			m, err := nextValue(a, uint32Value, "\"metric\" value is invalid\n")
			if err != nil {
				return err
			}
			r.Priority = uint32(m)
			msgLen += attrLen(4)
		case w == "scope":
			s, err := nextValue(a, scopeID, "invalid \"scope\" value\n")
			if err != nil {
				return err
			}
			scope, scopeOK = s, true
		case w == "dev" || w == "oif":
			v, err := a.next()
			if err != nil {
				return err
			}
			devs = append(devs, v)
			r.Dev = v
		case routeMetricKey(w) != nil:
			if err := ip.parseMetric(a, routeMetricKey(w), &mx); err != nil {
				return err
			}
		case w == "nexthop":
			// parse_nexthops reads the rest after the request's own
			// checks.
			mpArgs, hasMultipath = a.w, true
			a.w = a.w[:1]
		case w == "nhid":
			id, err := nextValue(a, uint32Value, "\"id\" value is invalid\n")
			if err != nil {
				return err
			}
			r.NexthopID, hasNhid = nexthop.ID(id), true
			msgLen += attrLen(4)
		case matches(w, "protocol"):
			p, err := nextValue(a, protoID, "\"protocol\" value is invalid\n")
			if err != nil {
				return err
			}
			r.Protocol = fib.Protocol(p)
		case matches(w, "table"):
			id, err := nextValue(a, tableID, "\"table\" value is invalid\n")
			if err != nil {
				return err
			}
			r.Table, tableOK = id, true
			if id >= 256 {
				msgLen += attrLen(4) // RTA_TABLE; a smaller id goes in rtm_table
			}
		case w == "onlink":
			r.OnLink = true
		case unsupportedRouteAttr[w]:
			return notSupported("ip route", w)
		default:
			if matches(w, "to") {
				v, err := a.next()
				if err != nil {
					return err
				}
				w = v
			}
			if w != "" && (w[0] < '0' || w[0] > '9') && !typeOK {
				if ty, ok := routeTypeID(w); ok {
					r.Type, typeOK = ty, true
					a.skip()
					if !a.more() {
						return incomplete()
					}
					w = a.peek()
				}
			}
			if matches(w, "help") {
				return usageErr(routeUsage)
			}
			if dstOK {
				return duparg2("to", w)
			}
			p, err := getPrefix(w, family)
			if err != nil {
				return err
			}
			if family == 0 {
				family = syscall.AF_INET
				if p.Addr().Is6() {
					family = syscall.AF_INET6
				}
			}
			r.Dst, dstOK = p, true
			if w != "default" && w != "any" && w != "all" {
				msgLen += attrLen(p.Addr().BitLen() / 8)
			}
		}
	}
	if !dstOK {
		return usageErr(routeUsage)
	}
	r.Metrics = ip.endMetrics(&mx)
	if len(devs) > 0 {
		msgLen += attrLen(4)
	}
	msgLen += mx.n
	for _, d := range devs {
		if h.LinkIndex(d) == 0 {
			return nodev(d)
		}
	}
	if hasMultipath {
		mp, n, err := ip.parseMultipath(h, mpArgs, family)
		if err != nil {
			return err
		}
		if msgLen+n > mpBufSize {
			// parse_nexthops adds RTA_MULTIPATH with a bound of 4096
			// bytes for the whole request, and iproute_modify gives up.
			return failf("addattr_l ERROR: message exceeded bound of %d\n", mpBufSize)
		}
		r.Multipath = mp
	}
	if !r.Dst.Addr().Is4() {
		return failf("IPv6 routes are not modelled by netsim.\n")
	}
	if !tableOK {
		// iproute_modify puts these types in the local table by default.
		switch r.Type {
		case fib.TypeLocal, fib.TypeBroadcast, fib.TypeNAT, fib.TypeAnycast:
			r.Table = fib.TableLocal
		}
	}
	if del {
		if scopeOK {
			r.Scope = scope
		}
		return h.RouteDel(r)
	}
	if !typeOK {
		r.Type = fib.TypeUnicast
	}
	if !scopeOK {
		switch r.Type {
		case fib.TypeLocal, fib.TypeNAT:
			scope = netdev.ScopeHost
		case fib.TypeBroadcast, fib.TypeMulticast, fib.TypeAnycast:
			scope = netdev.ScopeLink
		case fib.TypeUnicast, fib.TypeUnspec:
			if !gwOK && !hasMultipath && !hasNhid {
				scope = netdev.ScopeLink
			}
		}
	}
	r.Scope = scope
	switch mode {
	case fib.ModeAdd:
		return h.RouteAdd(r)
	case fib.ModeChange:
		return h.RouteChange(r)
	case fib.ModeReplace:
		return h.RouteReplace(r)
	case fib.ModePrepend:
		return h.RoutePrepend(r)
	default:
		return h.RouteAppend(r)
	}
}

// unsupportedRouteAttr are the route attributes of iproute_modify that
// netsim does not model: encapsulations, realms, IPv6 options.
var unsupportedRouteAttr = map[string]bool{
	"as": true, "from": true, "expires": true, "realms": true, "realm": true, "pref": true,
	"encap": true, "ttl-propagate": true, "vrf": true,
	"pervasive": true, "mpath": true, "metrics": true,
}

// mpBufSize is the size of parse_nexthops' buffer for RTA_MULTIPATH, and
// the bound it gives addattr_l for the whole request: a route's paths
// must fit in 4096 bytes with the rest of the request. A path takes 8
// bytes (struct rtnexthop) and 8 more with an IPv4 gateway (24 with an
// IPv6 one): an `ip route add PREFIX nexthop via ...` takes at most 253
// paths with gateways, 507 without (and a batch line, of at most 511
// words, 169 with gateways).
const mpBufSize = 4096

// attrLen is RTA_SPACE(n): an attribute with n bytes of data.
func attrLen(n int) int { return (4 + n + 3) &^ 3 }

// viaLen is the attribute a gateway takes in a request of family:
// RTA_GATEWAY, or RTA_VIA (with the address family) for another family.
func viaLen(gw netip.Addr, family int) int {
	if addrFamily(gw) == family || family == 0 {
		return attrLen(gw.BitLen() / 8)
	}
	return attrLen(2 + gw.BitLen()/8)
}

// parseMultipath is parse_nexthops: `nexthop via A dev D weight W onlink`
// repeated. It returns the paths and the length of their RTA_MULTIPATH
// attribute; a gateway that does not fit in the 4096-byte buffer is an
// error (rta_addattr_l's). A path without a gateway is not checked: past
// 511 of them iproute2 6.1 writes beyond its buffer (and aborts), where
// netsim goes on to the request's bound (addattr_l's error).
func (ip *IP) parseMultipath(h *rtnl.Handle, argv []string, family int) ([]rtnl.NextHop, int, error) {
	var out []rtnl.NextHop
	n := 4 // rta_len of the RTA_MULTIPATH being built
	a := &args{w: argv}
	for a.more() {
		if a.peek() != "nexthop" {
			return nil, 0, &argError{msg: fmt.Sprintf("Error: \"nexthop\" or end of line is expected instead of \"%s\"\n", a.peek()), status: exitArg}
		}
		if len(a.w) == 1 {
			return nil, 0, &argError{msg: "Error: unexpected end of line after \"nexthop\"\n", status: exitArg}
		}
		a.skip()
		n += 8 // struct rtnexthop
		var nh rtnl.NextHop
		for ; a.more() && a.peek() != "nexthop"; a.skip() {
			switch w := a.peek(); {
			case w == "via":
				gw, err := parseVia(a, family)
				if err != nil {
					return nil, 0, err
				}
				if family == 0 {
					family = addrFamily(gw)
				}
				if l := viaLen(gw, family); n+l <= mpBufSize {
					n += l
				} else {
					return nil, 0, &argError{msg: fmt.Sprintf("rta_addattr_l: Error! max allowed bound %d exceeded\nError: cannot parse nexthop\n", mpBufSize), status: exitArg}
				}
				nh.Gateway = gw
			case w == "dev":
				v, err := a.next()
				if err != nil {
					return nil, 0, err
				}
				if h.LinkIndex(v) == 0 {
					// parse_one_nh fails, and iproute_modify exits.
					return nil, 0, &argError{msg: "Cannot find device \"" + v + "\"\nError: cannot parse nexthop\n", status: exitArg}
				}
				nh.Dev = v
			case matches(w, "weight"):
				v, err := a.next()
				if err != nil {
					return nil, 0, err
				}
				wt, ok := getUnsigned(v, 32)
				if !ok || wt == 0 || wt > 256 {
					return nil, 0, invarg("\"weight\" is invalid\n", v)
				}
				nh.Weight = int(wt)
			case w == "onlink":
				nh.OnLink = true
			default:
				// parse_one_nh stops at a word it does not know, which
				// parse_nexthops then refuses.
				return nil, 0, &argError{msg: fmt.Sprintf("Error: \"nexthop\" or end of line is expected instead of \"%s\"\n", w), status: exitArg}
			}
		}
		out = append(out, nh)
	}
	return out, n, nil
}

// routeFilter is iproute_list_flush_or_save's filter.
type routeFilter struct {
	table      uint32 // 0: all tables
	typ        fib.Type
	hasType    bool
	proto      fib.Protocol
	hasProto   bool
	scope      netdev.Scope
	scopeMask  netdev.Scope
	dev        string
	via        netip.Addr
	root, mtch netip.Prefix
	hasRoot    bool
	hasMatch   bool
}

func (ip *IP) parseRouteFilter(h *rtnl.Handle, argv []string) (*routeFilter, error) {
	f := &routeFilter{table: fib.TableMain}
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case matches(w, "table"):
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			id, ok := tableID(v)
			switch {
			case v == "all":
				f.table = 0
			case !ok:
				return nil, invarg("table id value is invalid\n", v)
			default:
				f.table = id
			}
		case matches(w, "protocol"):
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			p, ok := protoID(v)
			if !ok {
				return nil, invarg("invalid \"protocol\"\n", v)
			}
			f.proto, f.hasProto = fib.Protocol(p), true
		case matches(w, "scope"):
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			s, ok := scopeID(v)
			if !ok && v != "all" {
				return nil, invarg("invalid \"scope\"\n", v)
			}
			if v != "all" {
				f.scope, f.scopeMask = s, 0xff
			}
		case matches(w, "type"):
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			ty, ok := routeTypeID(v)
			if !ok {
				return nil, invarg("node type value is invalid\n", v)
			}
			f.typ, f.hasType = ty, true
		case w == "dev" || w == "oif":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			if h.LinkIndex(v) == 0 {
				return nil, nodev(v)
			}
			f.dev = v
		case w == "via":
			gw, err := parseVia(a, ip.family)
			if err != nil {
				return nil, err
			}
			f.via = gw
		default:
			if matches(w, "to") {
				v, err := a.next()
				if err != nil {
					return nil, err
				}
				w = v
			}
			switch {
			case matches(w, "root"):
				v, err := a.next()
				if err != nil {
					return nil, err
				}
				p, err := getPrefix(v, ip.family)
				if err != nil {
					return nil, err
				}
				f.root, f.hasRoot = p, true
			case matches(w, "match"):
				v, err := a.next()
				if err != nil {
					return nil, err
				}
				p, err := getPrefix(v, ip.family)
				if err != nil {
					return nil, err
				}
				f.mtch, f.hasMatch = p, true
			default:
				if matches(w, "exact") {
					v, err := a.next()
					if err != nil {
						return nil, err
					}
					w = v
				}
				p, err := getPrefix(w, ip.family)
				if err != nil {
					return nil, err
				}
				f.root, f.mtch, f.hasRoot, f.hasMatch = p, p, true, true
			}
		}
	}
	return f, nil
}

func (f *routeFilter) keep(r rtnl.RouteInfo) bool {
	if f.hasType && r.Type != f.typ {
		return false
	}
	if f.hasProto && r.Protocol != f.proto {
		return false
	}
	if f.scopeMask != 0 && r.Scope != f.scope {
		return false
	}
	if f.dev != "" && r.Dev != f.dev {
		return false
	}
	if f.via.IsValid() && r.Gateway != f.via {
		return false
	}
	if f.hasRoot && f.root.Addr().Is4() {
		// The route lies within root: at least as long, inside it.
		if r.Dst.Bits() < f.root.Bits() || !f.root.Masked().Contains(r.Dst.Addr()) {
			return false
		}
	}
	if f.hasMatch && f.mtch.Addr().Is4() {
		// The route covers match: at most as long, containing it.
		if r.Dst.Bits() > f.mtch.Bits() || !r.Dst.Masked().Contains(f.mtch.Addr()) {
			return false
		}
	}
	return true
}

func (ip *IP) routeList(h *rtnl.Handle, argv []string, flush bool) error {
	if flush && len(argv) == 0 {
		return failf("\"ip route flush\" requires arguments.\n")
	}
	f, err := ip.parseRouteFilter(h, argv)
	if err != nil {
		return err
	}
	if ip.family == syscall.AF_INET6 {
		// netsim has no IPv6 routing: nothing to show or flush.
		return nil
	}
	rs, err := h.RouteList(f.table)
	if err != nil {
		return err
	}
	if f.table != 0 && len(rs) == 0 && !tableExists(h, f.table) {
		// The kernel's strict dump of a table that does not exist
		// (inet_dump_fib with a table filter).
		msg := "Dump terminated\n"
		if flush {
			msg = "Flush terminated\n"
		}
		return &cmdError{msg: "Error: ipv4: FIB table does not exist.\n" + msg, status: exitNetlink}
	}
	rs = rs[:dumpCut(rs, f)]
	if flush {
		return ip.routeFlush(h, rs, f)
	}
	p := &ip.p
	p.startJSON(ip.opts.json, ip.opts.pretty, true)
	for _, r := range rs {
		if f.keep(r) {
			ip.printRoute(dumpedRoute(r), f)
		}
	}
	p.endJSON(true)
	return nil
}

// routeFlush is iproute_flush: each route of the dump that the filter
// keeps is sent back as a delete, printed first with -s -s; with -s the
// rounds are counted ("*** Round 1, deleting N entries ***"). A second
// round finds nothing left.
func (ip *IP) routeFlush(h *rtnl.Handle, rs []rtnl.RouteInfo, f *routeFilter) error {
	flushFailed := false
	n := 0
	for _, r := range rs {
		if !f.keep(r) {
			continue
		}
		n++
		if ip.opts.stats >= 2 {
			ip.printRoute(dumpedRoute(r), f)
		}
		if r.NexthopID != 0 {
			// ip sends the dumped route back, whose nexthop object comes
			// with its gateway and device: the kernel refuses that
			// (rtm_to_fib_config), and ip reports it after the round.
			flushFailed = true
			continue
		}
		del := rtnl.Route{Table: r.Table, Dst: r.Dst, TOS: r.TOS, Priority: r.Priority,
			Type: r.Type, Protocol: r.Protocol, Gateway: r.Gateway, Dev: r.Dev, Metrics: r.Metrics}
		if err := h.RouteDel(del); err != nil && !isGone(err) {
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
const (
	dumpSkbSmall = 3776
	dumpSkbLarge = 32768 - 320
)

// dumpCut returns how many of the dumped routes rs reach ip. A route that
// does not fit in what is left of a dump skb goes to the next; one that
// does not fit in an empty skb ends the dump without an error
// (inet_dump_fib's EMSGSIZE, which rtnl_dumpit turns into the end of an
// RTNL_FLAG_DUMP_SPLIT_NLM_DONE dump): with ip's receive pattern, a route
// of more than 3776 bytes (233 paths with gateways) that is not in the
// first two skbs' worth of the dump, or not after routes that filled
// them, cuts the dump short. Routes the kernel's own filter drops (another
// protocol, a single path on another device) take no room. (ip's flush of such a table then fails with
// "Failed to send flush request: No data available"; netsim deletes the
// routes before the cut and reports nothing.)
//
// Kernel: inet_dump_fib (net/ipv4/fib_frontend.c), netlink_dump
// (net/netlink/af_netlink.c); iproute2: rtnl_recvmsg.
func dumpCut(rs []rtnl.RouteInfo, f *routeFilter) int {
	skb, used := 0, 0
	for i, r := range rs {
		if f.hasProto && r.Protocol != f.proto || f.dev != "" && len(r.Multipath) == 0 && r.Dev != f.dev {
			continue
		}
		for {
			room := dumpSkbLarge
			if skb < 2 {
				room = dumpSkbSmall
			}
			if used+r.Size <= room {
				used += r.Size
				break
			}
			if used == 0 {
				return i
			}
			skb, used = skb+1, 0
		}
	}
	return len(rs)
}

// tableExists reports whether table id exists.
func tableExists(h *rtnl.Handle, id uint32) bool { return h.TableExists(id) }

// routeGet is iproute_get: the route a locally generated packet takes, or
// with iif the input route of a received one, printed as the kernel's
// answer.
func (ip *IP) routeGet(h *rtnl.Handle, argv []string) error {
	var q rtnl.RouteQuery
	has := false
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case matches(w, "from"):
			v, err := a.next()
			if err != nil {
				return err
			}
			p, err := getPrefix(v, ip.family)
			if err != nil {
				return err
			}
			q.Src, q.SrcLen = p.Addr(), p.Bits()
			continue
		case matches(w, "oif") || w == "dev":
			v, err := a.next()
			if err != nil {
				return err
			}
			q.OIF = v
			continue
		case matches(w, "mark"):
			v, err := nextValue(a, uint32Value, "invalid mark value")
			if err != nil {
				return err
			}
			q.Mark = uint32(v)
			continue
		case w == "uid":
			v, err := nextValue(a, uint32Value, "invalid UID\n")
			if err != nil {
				return err
			}
			q.UID = uint32(v)
			continue
		case w == "tos" || matches(w, "dsfield"):
			v, err := nextValue(a, dsfieldID, "TOS value is invalid\n")
			if err != nil {
				return err
			}
			q.TOS = v
			continue
		}
		switch w {
		case "ipproto":
			v, err := nextValue(a, ipProtoValue, "Invalid \"ipproto\" value\n")
			if err != nil {
				return err
			}
			q.IPProto, q.HasIPProto = v, true
			continue
		case "sport", "dport":
			v, err := nextValue(a, uint16Value, "invalid "+w+"\n")
			if err != nil {
				return err
			}
			if w == "sport" {
				q.Sport = uint16(v)
			} else {
				q.Dport = uint16(v)
			}
			continue
		case "iif":
			v, err := a.next()
			if err != nil {
				return err
			}
			q.IIF = v
			continue
		case "vrf", "connected", "as", "flowlabel":
			return notSupported("ip route get", w)
		}
		if matches(w, "fibmatch") {
			q.FIBMatch = true
			continue
		}
		if matches(w, "to") {
			v, err := a.next()
			if err != nil {
				return err
			}
			w = v
		}
		if has {
			return duparg2("to", w)
		}
		if matches(w, "help") {
			return usageErr(routeUsage)
		}
		p, err := getPrefix(w, ip.family)
		if err != nil {
			return err
		}
		if n := p.Addr().BitLen(); p.Bits() != n {
			// ip asks for the address alone.
			fmt.Fprintf(ip.Stderr, "Warning: /%d as prefix is invalid, only /%d (or none) is supported.\n", p.Bits(), n)
		}
		q.Dst, has = p.Addr(), true
	}
	if !has {
		return failf("need at least a destination address\n")
	}
	if !q.Dst.Is4() {
		return failf("IPv6 routes are not modelled by netsim.\n")
	}
	for _, d := range []string{q.IIF, q.OIF} {
		if d == "" {
			continue
		}
		if _, err := h.LinkByName(d); err != nil {
			return nodev(d)
		}
	}
	rr, err := h.RouteGetFlow(q)
	if err != nil {
		if ke, ok := err.(*errno.Error); ok {
			return &cmdError{msg: kernelMessage(ke.Errno, ke.Msg), status: exitNetlink}
		}
		return err
	}
	m := routeAnswer(q, rr)
	if rr.Entry != nil {
		// inet_rtm_getroute answers a fibmatch with fib_dump_info, which
		// ip prints as a dumped route.
		m = dumpedRoute(*rr.Entry)
	}
	ip.p.startJSON(ip.opts.json, ip.opts.pretty, true)
	ip.printRoute(m, nil)
	ip.p.endJSON(true)
	return nil
}

// errnoOf returns the errno an error carries, or 0.
func errnoOf(err error) syscall.Errno { return errno.Of(err) }

// addrFamily is the address family of a.
func addrFamily(a netip.Addr) int {
	if a.Is6() {
		return syscall.AF_INET6
	}
	return syscall.AF_INET
}
