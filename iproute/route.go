// `ip route`: iproute2's ip/iproute.c (iproute_modify,
// iproute_list_flush_or_save, iproute_get, print_route).

package iproute

import (
	"fmt"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"github.com/netsimlab/netsim/rt"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
)

const routeUsage = `Usage: ip route { list | flush } SELECTOR
       ip route save SELECTOR
       ip route restore
       ip route showdump
       ip route get [ ROUTE_GET_FLAGS ] ADDRESS
                            [ from ADDRESS iif STRING ]
                            [ oif STRING ] [ tos TOS ]
                            [ mark NUMBER ] [ vrf NAME ]
                            [ uid NUMBER ] [ ipproto PROTOCOL ]
                            [ sport NUMBER ] [ dport NUMBER ]
       ip route { add | del | change | append | replace } ROUTE
SELECTOR := [ root PREFIX ] [ match PREFIX ] [ exact PREFIX ]
            [ table TABLE_ID ] [ vrf NAME ] [ proto RTPROTO ]
            [ type TYPE ] [ scope SCOPE ]
ROUTE := NODE_SPEC [ INFO_SPEC ]
NODE_SPEC := [ TYPE ] PREFIX [ tos TOS ]
             [ table TABLE_ID ] [ proto RTPROTO ]
             [ scope SCOPE ] [ metric METRIC ]
             [ ttl-propagate { enabled | disabled } ]
INFO_SPEC := { NH | nhid ID } OPTIONS FLAGS [ nexthop NH ]...
NH := [ encap ENCAPTYPE ENCAPHDR ] [ via [ FAMILY ] ADDRESS ]
      [ dev STRING ] [ weight NUMBER ] NHFLAGS
FAMILY := [ inet | inet6 | mpls | bridge | link ]
OPTIONS := FLAGS [ mtu NUMBER ] [ advmss NUMBER ] [ as [ to ] ADDRESS ]
           [ rtt TIME ] [ rttvar TIME ] [ reordering NUMBER ]
           [ window NUMBER ] [ cwnd NUMBER ] [ initcwnd NUMBER ]
           [ ssthresh NUMBER ] [ realms REALM ] [ src ADDRESS ]
           [ rto_min TIME ] [ hoplimit NUMBER ] [ initrwnd NUMBER ]
           [ features FEATURES ] [ quickack BOOL ] [ congctl NAME ]
           [ pref PREF ] [ expires TIME ] [ fastopen_no_cookie BOOL ]
TYPE := { unicast | local | broadcast | multicast | throw |
          unreachable | prohibit | blackhole | nat }
TABLE_ID := [ local | main | default | all | NUMBER ]
SCOPE := [ host | link | global | NUMBER ]
NHFLAGS := [ onlink | pervasive ]
RTPROTO := [ kernel | boot | static | NUMBER ]
PREF := [ low | medium | high ]
TIME := NUMBER[s|ms]
BOOL := [1|0]
FEATURES := ecn
ENCAPTYPE := [ mpls | ip | ip6 | seg6 | seg6local | rpl | ioam6 | xfrm ]
ENCAPHDR := [ MPLSLABEL | SEG6HDR | SEG6LOCAL | IOAM6HDR | XFRMINFO ]
SEG6HDR := [ mode SEGMODE ] segs ADDR1,ADDRi,ADDRn [hmac HMACKEYID] [cleanup]
SEGMODE := [ encap | encap.red | inline | l2encap | l2encap.red ]
SEG6LOCAL := action ACTION [ OPTIONS ] [ count ]
ACTION := { End | End.X | End.T | End.DX2 | End.DX6 | End.DX4 |
            End.DT6 | End.DT4 | End.DT46 | End.B6 | End.B6.Encaps |
            End.BM | End.S | End.AS | End.AM | End.BPF }
OPTIONS := OPTION [ OPTIONS ]
OPTION := { flavors FLAVORS | srh SEG6HDR | nh4 ADDR | nh6 ADDR | iif DEV | oif DEV |
            table TABLEID | vrftable TABLEID | endpoint PROGNAME }
FLAVORS := { FLAVOR[,FLAVOR] }
FLAVOR := { psp | usp | usd | next-csid }
IOAM6HDR := trace prealloc type IOAM6_TRACE_TYPE ns IOAM6_NAMESPACE size IOAM6_TRACE_SIZE
XFRMINFO := if_id IF_ID [ link_dev LINK ]
ROUTE_GET_FLAGS := [ fibmatch ]
`

// noRouteDumps is why netsim refuses ip route save, restore and showdump.
const noRouteDumps = "netsim reads and writes no binary route dumps"

var routeObject = object{
	name:  "route",
	short: "route",
	usage: routeUsage,
	empty: func(ip *IP, h *rtnl.Handle, argv []string) error { return ip.routeList(h, argv, false) },
	commands: []command{
		{names: []string{"add*"}, run: routeModifyCmd(rt.ModeAdd, false), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"change*", "chg"}, run: routeModifyCmd(rt.ModeChange, false), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"replace*"}, run: routeModifyCmd(rt.ModeReplace, false), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"prepend*"}, run: routeModifyCmd(rt.ModePrepend, false), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"append*"}, run: routeModifyCmd(rt.ModeAppend, false), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"test*"}, run: routeModifyCmd(rt.NLMExcl, false), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"delete*"}, run: routeModifyCmd(0, true), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"list*", "show*", "lst*"}, run: func(ip *IP, h *rtnl.Handle, argv []string) error { return ip.routeList(h, argv, false) },
			keywords: keywordModelled(routeFilterKeywords), refusedKeywords: keywordRefusals(routeFilterKeywords)},
		{names: []string{"get*"}, run: (*IP).routeGet, keywords: keywordModelled(routeGetKeywords), refusedKeywords: keywordRefusals(routeGetKeywords),
			// rta_cacheinfo's users, used and age count references to and
			// uses of the kernel's cached route, which netsim does not keep.
			unsupported: optStats, unsupportedWhy: "netsim keeps no route cache, whose references and last use -s shows"},
		{names: []string{"flush*"}, run: func(ip *IP, h *rtnl.Handle, argv []string) error { return ip.routeList(h, argv, true) },
			keywords: keywordModelled(routeFilterKeywords), refusedKeywords: keywordRefusals(routeFilterKeywords)},
		{names: []string{"save*"}, refused: noRouteDumps},
		{names: []string{"restore*"}, refused: noRouteDumps},
		{names: []string{"showdump*"}, refused: noRouteDumps},
	},
}

// routeModifyCmd is iproute_modify with the request's flags.
func routeModifyCmd(mode rt.NLMFlags, del bool) func(ip *IP, h *rtnl.Handle, argv []string) error {
	return func(ip *IP, h *rtnl.Handle, argv []string) error { return ip.routeModify(h, argv, mode, del) }
}

// routeModifyNames lists iproute_modify's keywords, with "nexthop"'s own
// (parse_one_nh's) after it.
func routeModifyNames() []string {
	return append(keywordModelled(routeModifyKeywords), "weight")
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

// routeReq is iproute_modify's request as its keywords build it.
type routeReq struct {
	ip      *IP
	r       rtnl.Route
	dstOK   bool
	scopeOK bool
	gwOK    bool
	typeOK  bool
	tableOK bool
	dev     string // the last "dev": the one ip resolves
	family  int    // rtm_family so far
	scope   netdev.Scope
	nhs     bool // "nexthop" given: mpArgs are the paths
	nhid    bool
	mx      mxBuf
	// msgLen is the request's nlmsg_len before RTA_OIF, RTA_METRICS and
	// RTA_MULTIPATH: header, rtmsg and the attributes so far.
	msgLen int
	mpArgs []string // from the first "nexthop" on
}

// routeUnmodelled are the keywords of ip route that netsim refuses by
// name, with what netsim does not model.
var routeUnmodelled = map[string]string{
	"as":            "NAT routes (RTA_NEWDST)",
	"realms":        "routing realms",
	"vrf":           "VRF tables by device name",
	"encap":         "route encapsulations",
	"ttl-propagate": "MPLS routes",
	"notify":        "route cache, whose entries notify marks",
	"connected":     "second lookup from the answer's source (route get connected)",
}

// routeRefused is keyword k of routeUnmodelled, which netsim knows but
// does not model: its value, if it takes one, is read first (ip's
// NEXT_ARG), then the command fails with what is not modelled.
func routeRefused[R any](k keyword[R], cmd string, value bool) keyword[R] {
	return refusedNow(k, cmd, "netsim models no "+routeUnmodelled[strings.TrimSuffix(k.names[0], "*")], value)
}

// routeModifyKeywords are iproute_modify's keywords in its order.
var routeModifyKeywords = func() []keyword[*routeReq] {
	refused := func(k keyword[*routeReq]) keyword[*routeReq] {
		return routeRefused(k, "ip route", true)
	}
	t := []keyword[*routeReq]{
		exact("src", func(a *args, q *routeReq) error {
			v, err := a.next()
			if err != nil {
				return err
			}
			s, err := getAddr(v, q.family)
			if err != nil {
				return err
			}
			if q.family == 0 {
				q.family = addrFamily(s)
			}
			q.r.PrefSrc = s
			q.msgLen += attrLen(s.BitLen() / 8)
			return nil
		}),
		refused(exact[*routeReq]("as", nil)),
		exact("via", func(a *args, q *routeReq) error {
			if q.gwOK {
				return invarg("use nexthop syntax to specify multiple via\n", a.peek())
			}
			gw, err := parseVia(a, q.family)
			if err != nil {
				return err
			}
			if q.family == 0 {
				q.family = addrFamily(gw)
			}
			q.r.Gateway, q.gwOK = gw, true
			q.msgLen += viaLen(gw, q.family)
			return nil
		}),
		exact("from", func(a *args, q *routeReq) error {
			// RTA_SRC and rtm_src_len: an IPv6 route's source prefix
			// (the IPv4 kernel ignores both).
			v, err := a.next()
			if err != nil {
				return err
			}
			p, err := getPrefix(v, q.family)
			if err != nil {
				return err
			}
			if q.family == 0 {
				q.family = addrFamily(p.Addr())
			}
			q.r.Src = p
			if !isAnyPrefix(v) {
				q.msgLen += attrLen(p.Addr().BitLen() / 8)
			}
			return nil
		}),
		exact("tos", func(a *args, q *routeReq) error {
			tos, err := nextValue(a, dsfieldID, "\"tos\" value is invalid\n")
			q.r.TOS = tos
			return err
		}).or("dsfield*"),
		exact("expires", func(a *args, q *routeReq) error {
			// RTA_EXPIRES, in seconds: an IPv6 route's lifetime (the
			// IPv4 kernel ignores it).
			v, err := nextValue(a, uint32Value, "\"expires\" value is invalid\n")
			q.r.Expires = time.Duration(v) * time.Second
			q.msgLen += attrLen(4)
			return err
		}),
		kw("metric", func(a *args, q *routeReq) error {
			m, err := nextValue(a, uint32Value, "\"metric\" value is invalid\n")
			q.r.Priority = uint32(m)
			q.msgLen += attrLen(4)
			return err
		}).or("priority*", "preference"),
		exact("scope", func(a *args, q *routeReq) error {
			s, err := nextValue(a, scopeID, "invalid \"scope\" value\n")
			q.scope, q.scopeOK = s, true
			return err
		}),
	}
	metric := func(k *metricKey) keyword[*routeReq] {
		name := k.name
		if k.abbrev {
			name += "*"
		}
		return keyword[*routeReq]{names: []string{name}, parse: func(a *args, q *routeReq) error {
			return q.ip.parseMetric(a, k, &q.mx)
		}}
	}
	for i := range routeMetricKeys {
		if routeMetricKeys[i].m != fib.MetricFastOpenNoCookie {
			t = append(t, metric(&routeMetricKeys[i]))
		}
	}
	t = append(t,
		refused(kw[*routeReq]("realms", nil)),
		exact("onlink", func(a *args, q *routeReq) error {
			q.r.OnLink = true
			return nil
		}),
		exact("nexthop", func(a *args, q *routeReq) error {
			// parse_nexthops reads the rest after the request's own
			// checks.
			q.mpArgs, q.nhs = a.w, true
			a.w = a.w[:1]
			return nil
		}),
		exact("nhid", func(a *args, q *routeReq) error {
			id, err := nextValue(a, uint32Value, "\"id\" value is invalid\n")
			q.r.NexthopID, q.nhid = nexthop.ID(id), true
			q.msgLen += attrLen(4)
			return err
		}),
		kw("protocol", func(a *args, q *routeReq) error {
			p, err := nextValue(a, protoID, "\"protocol\" value is invalid\n")
			q.r.Protocol = fib.Protocol(p)
			return err
		}),
		kw("table", func(a *args, q *routeReq) error {
			id, err := nextValue(a, tableID, "\"table\" value is invalid\n")
			if err != nil {
				return err
			}
			q.r.Table, q.tableOK = id, true
			if id >= 256 {
				q.msgLen += attrLen(4) // RTA_TABLE; a smaller id goes in rtm_table
			}
			return nil
		}),
		refused(kw[*routeReq]("vrf", nil)),
		exact("dev", word(func(q *routeReq, v string) { q.dev = v })).or("oif"),
		kw("pref", func(a *args, q *routeReq) error {
			// RTA_PREF, an IPv6 router preference: the IPv4 kernel
			// ignores it (rtm_to_fib_config).
			v, err := a.next()
			if err != nil {
				return err
			}
			switch v {
			case "low":
				q.r.Pref = rt.PrefLow
			case "medium":
				q.r.Pref = rt.PrefMedium
			case "high":
				q.r.Pref = rt.PrefHigh
			default:
				n, ok := getUnsigned(v, 8)
				if !ok {
					return invarg("\"pref\" value is invalid\n", v)
				}
				q.r.Pref = rt.Pref(n)
			}
			q.msgLen += attrLen(1)
			return nil
		}),
		refused(exact[*routeReq]("encap", nil)),
		refused(exact[*routeReq]("ttl-propagate", nil)),
	)
	for i := range routeMetricKeys {
		if routeMetricKeys[i].m == fib.MetricFastOpenNoCookie {
			t = append(t, metric(&routeMetricKeys[i]))
		}
	}
	return t
}()

// isTo is the optional keyword before a route's destination.
func isTo(w string) bool { return w == "to" }

// isAnyPrefix reports whether w is one of get_prefix's names of the
// zero-length prefix, which ip sends without an address.
func isAnyPrefix(w string) bool { return w == "default" || w == "any" || w == "all" }

// routeDst is iproute_modify's last branch: [to] [TYPE] PREFIX.
func routeDst(a *args, q *routeReq) error {
	w, err := a.optional(isTo)
	if err != nil {
		return err
	}
	if w != "" && (w[0] < '0' || w[0] > '9') {
		if ty, ok := routeTypeID(w); ok {
			v, err := a.next()
			if err != nil {
				return err
			}
			w = v
			q.r.Type, q.typeOK = ty, true
		}
	}
	if matches(w, "help") {
		return usageErr(routeUsage)
	}
	if q.dstOK {
		return duparg2("to", w)
	}
	p, err := getPrefix(w, q.family)
	if err != nil {
		return err
	}
	if q.family == 0 {
		q.family = addrFamily(p.Addr())
	}
	q.r.Dst, q.dstOK = p, true
	if !isAnyPrefix(w) {
		q.msgLen += attrLen(p.Addr().BitLen() / 8)
	}
	return nil
}

func (ip *IP) routeModify(h *rtnl.Handle, argv []string, mode rt.NLMFlags, del bool) error {
	q := &routeReq{ip: ip, family: ip.family, msgLen: 16 + 12}
	if err := walk(&args{w: argv}, routeModifyKeywords, q, routeDst); err != nil {
		return err
	}
	r := &q.r
	if !q.dstOK {
		return usageErr(routeUsage)
	}
	if q.dev != "" {
		if h.LinkIndex(q.dev) == 0 {
			return nodev(q.dev)
		}
		r.Dev = q.dev
		q.msgLen += attrLen(4)
	}
	r.Metrics = ip.endMetrics(&q.mx)
	q.msgLen += q.mx.n
	if q.nhs {
		mp, n, err := ip.parseMultipath(h, q.mpArgs, q.family)
		if err != nil {
			return err
		}
		if q.msgLen+n > mpBufSize {
			// parse_nexthops adds RTA_MULTIPATH with a bound of 4096
			// bytes for the whole request, and iproute_modify gives up.
			return failf("addattr_l ERROR: message exceeded bound of %d\n", mpBufSize)
		}
		r.Multipath = mp
	}
	if !q.tableOK {
		// iproute_modify puts these types in the local table by default.
		switch r.Type {
		case fib.TypeLocal, fib.TypeBroadcast, fib.TypeNAT, fib.TypeAnycast:
			r.Table = fib.TableLocal
		}
	}
	if del {
		// iproute_modify: a delete's rtm_scope is RT_SCOPE_NOWHERE, the
		// kernel's wildcard, unless given.
		r.Scope = netdev.ScopeNowhere
		if q.scopeOK {
			r.Scope = q.scope
		}
		return h.RouteDelRequest(*r)
	}
	if !q.typeOK {
		r.Type = fib.TypeUnicast
	}
	scope := q.scope
	if !q.scopeOK && q.family != syscall.AF_INET6 {
		switch r.Type {
		case fib.TypeLocal, fib.TypeNAT:
			scope = netdev.ScopeHost
		case fib.TypeBroadcast, fib.TypeMulticast, fib.TypeAnycast:
			scope = netdev.ScopeLink
		case fib.TypeUnicast, fib.TypeUnspec:
			if !q.gwOK && !q.nhs && !q.nhid {
				scope = netdev.ScopeLink
			}
		}
	}
	r.Scope = scope
	switch mode {
	case rt.ModeAdd:
		return h.RouteAdd(*r)
	case rt.ModeChange:
		return h.RouteChange(*r)
	case rt.ModeReplace:
		return h.RouteReplace(*r)
	case rt.ModePrepend:
		return h.RoutePrepend(*r)
	case rt.NLMExcl:
		return h.RouteTest(*r)
	default:
		return h.RouteAppend(*r)
	}
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

// inetPrefix is a prefix as iproute2's get_prefix reads it into an
// inet_prefix: given (a family or PREFIXLEN_SPECIFIED), and of family 0
// when it is "default", "any" or "all" read without a family, which
// matches routes of either.
type inetPrefix struct {
	p      netip.Prefix
	family int
	given  bool
}

// getInetPrefix is get_prefix into an inet_prefix.
func getInetPrefix(s string, family int) (inetPrefix, error) {
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
	family int
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
	dev, iif  string // od and id, resolved after the words
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
	family int // dump_family
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
func readFamily(s string) int {
	switch s {
	case "inet":
		return syscall.AF_INET
	case "inet6":
		return syscall.AF_INET6
	}
	return 0
}

func (ip *IP) parseRouteFilter(h *rtnl.Handle, argv []string) (*routeFilter, error) {
	q := &routeFilterReq{f: &routeFilter{table: fib.TableMain, family: ip.family, multi: &ip.ip6MultipleTables}, family: ip.family}
	if err := walk(&args{w: argv}, routeFilterKeywords, q, routeFilterDst); err != nil {
		return nil, err
	}
	for _, d := range []string{q.f.iif, q.f.dev} {
		if d != "" && h.LinkIndex(d) == 0 {
			return nil, nodev(d)
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
func routeFamily(r rtnl.RouteInfo) int {
	if r.Family != 0 {
		return r.Family
	}
	return addrFamily(r.Dst.Addr())
}

// rootMatch is filter_nlmsg's test of an rdst or rsrc filter x against
// the route's prefix p (of length plen, addr invalid when absent).
func rootMatch(x inetPrefix, family int, addr netip.Addr, plen int) bool {
	if !x.given {
		return true
	}
	if x.family != 0 && x.family != family || x.p.Bits() > plen {
		return false
	}
	return addrMatch(addr, x.p.Addr(), x.p.Bits())
}

// matchMatch is filter_nlmsg's test of an mdst or msrc filter x.
func matchMatch(x inetPrefix, family int, addr netip.Addr, plen int) bool {
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
	if family == syscall.AF_INET6 && r.Table != fib.TableMain && f.multi != nil {
		*f.multi = true
	}
	if f.cloned {
		// A dumped FIB entry is not a cached route.
		return false
	}
	if family == syscall.AF_INET6 && (f.multi == nil || !*f.multi) {
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

func (ip *IP) routeList(h *rtnl.Handle, argv []string, flush bool) error {
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
		dumpFamily = syscall.AF_INET
	}
	if flush && f.cloned && dumpFamily != syscall.AF_INET6 {
		// iproute_flush_cache: /proc/sys/net/ipv4/route/flush, which
		// netsim, keeping no route cache, has nothing for. With both
		// families the IPv6 dump of cached routes follows, and finds
		// none.
		if ip.opts.stats > 0 {
			ip.p.text("*** IPv4 routing cache is flushed.\n")
		}
		if dumpFamily == syscall.AF_INET {
			return nil
		}
		if ip.opts.stats > 0 {
			ip.p.text("*** Flush is complete after 0 round ***\n")
		}
		return nil
	}
	families := []int{dumpFamily}
	if dumpFamily == 0 {
		families = []int{syscall.AF_INET, syscall.AF_INET6}
	}
	// ip asks for a strict dump (the kernel filters by table, device and
	// protocol, and refuses a table that does not exist) but in a batch,
	// whose socket does not set NETLINK_GET_STRICT_CHK: the kernel then
	// dumps every table, and ip's filter alone picks.
	strict := !ip.inBatch
	var rs []rtnl.RouteInfo
	for _, fam := range families {
		table := f.table
		if !strict {
			table = 0
		}
		frs, err := listRoutes(h, fam, table)
		if err != nil {
			return err
		}
		if table != 0 && len(frs) == 0 && !tableExists(h, fam, table) {
			// The kernel's strict dump of a table that does not exist
			// (inet_dump_fib, inet6_dump_fib with a table filter).
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
			return &cmdError{msg: "Error: " + fibFamilyName(fam) + ": FIB table does not exist.\n" + msg, status: exitNetlink}
		}
		if fam == syscall.AF_INET {
			frs = frs[:dumpCut(frs, f, strict)]
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

// fibFamilyName is the name the kernel's dump errors give a family.
func fibFamilyName(family int) string {
	if family == syscall.AF_INET6 {
		return "ipv6"
	}
	return "ipv4"
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
		if err := h.RouteDelRequest(del); err != nil && !isGone(err) {
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
// them, cuts the dump short. Routes the kernel's own filter of a strict
// dump drops (another protocol, a single path on another device) take no
// room; a batch's dump is not strict. (ip's flush of such a table then fails with
// "Failed to send flush request: No data available"; netsim deletes the
// routes before the cut and reports nothing.)
//
// Kernel: inet_dump_fib (net/ipv4/fib_frontend.c), netlink_dump
// (net/netlink/af_netlink.c); iproute2: rtnl_recvmsg.
func dumpCut(rs []rtnl.RouteInfo, f *routeFilter, strict bool) int {
	skb, used := 0, 0
	for i, r := range rs {
		if strict && (f.hasProto && r.Protocol != f.proto || f.dev != "" && len(r.Multipath) == 0 && r.Dev != f.dev) {
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

// listRoutes is the kernel's dump of family's routes in table (0: every
// table), in its order.
func listRoutes(h *rtnl.Handle, family int, table uint32) ([]rtnl.RouteInfo, error) {
	return h.RouteList(family, table)
}

// tableExists reports whether family's table id exists.
func tableExists(h *rtnl.Handle, family int, id uint32) bool {
	if family == syscall.AF_INET6 {
		return h.TableExists6(id)
	}
	return h.TableExists(id)
}

// routeGetReq is iproute_get's request as its keywords build it.
type routeGetReq struct {
	q      rtnl.RouteQuery
	family int
	has    bool // address_found
	warn   func(format string, args ...any)
}

// routeGetKeywords are iproute_get's keywords in its order.
var routeGetKeywords = []keyword[*routeGetReq]{
	exact("tos", func(a *args, g *routeGetReq) error {
		v, err := nextValue(a, dsfieldID, "TOS value is invalid\n")
		g.q.TOS = v
		return err
	}).or("dsfield*"),
	kw("from", func(a *args, g *routeGetReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if matches(v, "help") {
			return usageErr(routeUsage)
		}
		p, err := getPrefix(v, g.family)
		if err != nil {
			return err
		}
		if g.family == 0 {
			g.family = addrFamily(p.Addr())
		}
		g.q.Src, g.q.SrcLen = p.Addr(), p.Bits()
		return nil
	}),
	kw("iif", word(func(g *routeGetReq, v string) { g.q.IIF = v })),
	kw("mark", func(a *args, g *routeGetReq) error {
		v, err := nextValue(a, uint32Value, "invalid mark value")
		g.q.Mark = uint32(v)
		return err
	}),
	kw("oif", word(func(g *routeGetReq, v string) { g.q.OIF = v })).or("dev"),
	// RTM_F_NOTIFY marks the cached route itself (RTCF_NOTIFY), which
	// later answers show; netsim keeps no route cache.
	routeRefused(kw[*routeGetReq]("notify", nil), "ip route get", false),
	routeRefused(kw[*routeGetReq]("connected", nil), "ip route get", false),
	routeRefused(kw[*routeGetReq]("vrf", nil), "ip route get", true),
	kw("uid", func(a *args, g *routeGetReq) error {
		v, err := nextValue(a, uint32Value, "invalid UID\n")
		g.q.UID = uint32(v)
		return err
	}),
	kw("fibmatch", func(a *args, g *routeGetReq) error {
		g.q.FIBMatch = true
		return nil
	}),
	routeRefused(exact[*routeGetReq]("as", nil), "ip route get", true),
	kw("sport", func(a *args, g *routeGetReq) error {
		v, err := nextValue(a, uint16Value, "invalid sport\n")
		g.q.Sport = uint16(v)
		return err
	}),
	kw("dport", func(a *args, g *routeGetReq) error {
		v, err := nextValue(a, uint16Value, "invalid dport\n")
		g.q.Dport = uint16(v)
		return err
	}),
	kw("ipproto", func(a *args, g *routeGetReq) error {
		v, err := nextValue(a, ipProtoValue, "Invalid \"ipproto\" value\n")
		g.q.IPProto, g.q.HasIPProto = v, true
		return err
	}),
}

// routeGetDst is iproute_get's last branch: [to] ADDRESS; a later
// address replaces an earlier one (the kernel reads the last RTA_DST).
func routeGetDst(a *args, g *routeGetReq) error {
	w, err := a.optional(isTo)
	if err != nil {
		return err
	}
	if matches(w, "help") {
		return usageErr(routeUsage)
	}
	p, err := getPrefix(w, g.family)
	if err != nil {
		return err
	}
	if g.family == 0 {
		g.family = addrFamily(p.Addr())
	}
	if n := p.Addr().BitLen(); p.Bits() != n {
		// ip asks for the address alone.
		g.warn("Warning: /%d as prefix is invalid, only /%d (or none) is supported.\n", p.Bits(), n)
	}
	g.q.Dst, g.has = p.Addr(), true
	return nil
}

// routeGet is iproute_get: the route a locally generated packet takes, or
// with iif the input route of a received one, printed as the kernel's
// answer.
func (ip *IP) routeGet(h *rtnl.Handle, argv []string) error {
	g := &routeGetReq{family: ip.family, warn: func(format string, args ...any) { fmt.Fprintf(ip.Stderr, format, args...) }}
	if err := walk(&args{w: argv}, routeGetKeywords, g, routeGetDst); err != nil {
		return err
	}
	q := g.q
	if !g.has {
		return failf("need at least a destination address\n")
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
	var m routeMsg
	if q.Dst.Is4() {
		m = routeAnswer(q, rr)
	} else {
		m = routeAnswer6(q, rr)
	}
	if rr.Entry != nil {
		// inet_rtm_getroute and inet6_rtm_getroute answer a fibmatch with
		// the FIB entry as a dump has it, which ip prints so.
		m = dumpedRoute(*rr.Entry)
	}
	ip.p.startJSON(ip.opts.json, ip.opts.pretty, true)
	ip.printRoute(h, m, nil)
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
