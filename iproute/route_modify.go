// `ip route { add | del | change | append | prepend | replace | test }`:
// iproute2's iproute_modify and parse_nexthops (ip/iproute.c), which build
// an RTM_NEWROUTE or RTM_DELROUTE for the kernel's inet_rtm_newroute /
// inet6_rtm_newroute and inet_rtm_delroute / inet6_rtm_delroute.

package iproute

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/netsimlab/netsim/rt"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
)

// routeModifyCmd is iproute_modify with the request's flags.
func routeModifyCmd(mode rt.NLMFlags, del bool) func(ip *IP, h *handle, argv []string) error {
	return func(ip *IP, h *handle, argv []string) error { return ip.routeModify(h, argv, mode, del) }
}

// routeModifyNames lists iproute_modify's keywords, with "nexthop"'s own
// (parse_one_nh's) after it.
func routeModifyNames() []string {
	return append(keywordModelled(routeModifyKeywords), "weight")
}

// parseVia reads `via [FAMILY] ADDRESS`; a is at "via". Without FAMILY the
// address must be of family, the request's so far (rtm_family), if given.
func parseVia(a *args, family rt.Family) (netip.Addr, error) {
	v, err := a.next()
	if err != nil {
		return netip.Addr{}, err
	}
	fam := family
	switch v {
	case "inet":
		fam = rt.FamilyInet
		if v, err = a.next(); err != nil {
			return netip.Addr{}, err
		}
	case "inet6":
		fam = rt.FamilyInet6
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
	dev     string    // the last "dev": the one ip resolves
	family  rt.Family // rtm_family so far
	// dstAny and srcAny: the destination or source was "default", "any"
	// or "all", which get_prefix gives the request's family, and no
	// family when it has none yet.
	dstAny, srcAny bool
	scope          netdev.Scope
	nhs            bool // "nexthop" given: mpArgs are the paths
	nhid           bool
	mx             mxBuf
	// msgLen is the request's nlmsg_len before RTA_OIF, RTA_METRICS and
	// RTA_MULTIPATH: header, rtmsg and the attributes so far.
	msgLen int
	mpArgs []string // from the first "nexthop" on
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
			q.srcAny = isAnyPrefix(v)
			if q.family == 0 && !q.srcAny {
				q.family = addrFamily(p.Addr())
			}
			q.r.Src = p
			if !q.srcAny {
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
		if routeMetricKeys[i].m != rt.MetricFastOpenNoCookie {
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
		if routeMetricKeys[i].m == rt.MetricFastOpenNoCookie {
			t = append(t, metric(&routeMetricKeys[i]))
		}
	}
	return t
}()

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
	q.dstAny = isAnyPrefix(w)
	if q.family == 0 && !q.dstAny {
		q.family = addrFamily(p.Addr())
	}
	q.r.Dst, q.dstOK = p, true
	if !q.dstAny {
		q.msgLen += attrLen(p.Addr().BitLen() / 8)
	}
	return nil
}

func (ip *IP) routeModify(h *handle, argv []string, mode rt.NLMFlags, del bool) error {
	q := &routeReq{ip: ip, family: ip.family, msgLen: 16 + 12}
	if err := walk(&args{w: argv}, routeModifyKeywords, q, routeDst); err != nil {
		return err
	}
	r := &q.r
	if !q.dstOK {
		return usageErr(routeUsage)
	}
	if q.dev != "" {
		// RTA_OIF: the index ip's cache holds.
		if r.DevIndex = h.LinkIndex(q.dev); r.DevIndex == 0 {
			return nodev(q.dev)
		}
		r.Dev = q.dev
		q.msgLen += attrLen(4)
	}
	r.Metrics = ip.endMetrics(&q.mx)
	q.msgLen += q.mx.n
	if q.nhs {
		mp, n, fam, err := ip.parseMultipath(h, q.mpArgs, q.family)
		if err != nil {
			return err
		}
		q.family = fam
		if q.msgLen+n > mpBufSize {
			// parse_nexthops adds RTA_MULTIPATH with a bound of 4096
			// bytes for the whole request, and iproute_modify gives up.
			return failf("addattr_l ERROR: message exceeded bound of %d\n", mpBufSize)
		}
		r.Multipath = mp
	}
	// A request whose words named no family is AF_INET's; a "default"
	// destination or source is the whole space of the family the request
	// ended with (a gateway's: `route add default via 2001:db8::2`).
	if q.family == 0 {
		q.family = rt.FamilyInet
	}
	if q.dstAny {
		r.Dst = anyPrefix(q.family)
	}
	if q.srcAny {
		r.Src = anyPrefix(q.family)
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
		return h.DelRoute(rtnl.RouteRequest{Route: *r})
	}
	if !q.typeOK {
		r.Type = fib.TypeUnicast
	}
	scope := q.scope
	if !q.scopeOK && q.family != rt.FamilyInet6 {
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
	if r.Protocol == fib.ProtoUnspec {
		// iproute_modify's RTPROT_BOOT, unless given a protocol.
		r.Protocol = fib.ProtoBoot
	}
	_, err := h.NewRoute(rtnl.RouteRequest{Flags: mode, Route: *r})
	return err
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

// anyPrefix is get_prefix's "default" in a family: 0.0.0.0/0 or ::/0.
func anyPrefix(family rt.Family) netip.Prefix {
	if family == rt.FamilyInet6 {
		return netip.PrefixFrom(netip.IPv6Unspecified(), 0)
	}
	return netip.PrefixFrom(netip.IPv4Unspecified(), 0)
}

// viaLen is the attribute a gateway takes in a request of family:
// RTA_GATEWAY, or RTA_VIA (with the address family) for another family.
func viaLen(gw netip.Addr, family rt.Family) int {
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
func (ip *IP) parseMultipath(h *handle, argv []string, family rt.Family) ([]rtnl.RoutePath, int, rt.Family, error) {
	var out []rtnl.RoutePath
	n := 4 // rta_len of the RTA_MULTIPATH being built
	a := &args{w: argv}
	for a.more() {
		if a.peek() != "nexthop" {
			return nil, 0, 0, &argError{msg: fmt.Sprintf("Error: \"nexthop\" or end of line is expected instead of \"%s\"\n", a.peek()), status: exitArg}
		}
		if len(a.w) == 1 {
			return nil, 0, 0, &argError{msg: "Error: unexpected end of line after \"nexthop\"\n", status: exitArg}
		}
		a.skip()
		n += 8 // struct rtnexthop
		var nh rtnl.RoutePath
		for ; a.more() && a.peek() != "nexthop"; a.skip() {
			switch w := a.peek(); {
			case w == "via":
				gw, err := parseVia(a, family)
				if err != nil {
					return nil, 0, 0, err
				}
				if family == 0 {
					family = addrFamily(gw)
				}
				if l := viaLen(gw, family); n+l <= mpBufSize {
					n += l
				} else {
					return nil, 0, 0, &argError{msg: fmt.Sprintf("rta_addattr_l: Error! max allowed bound %d exceeded\nError: cannot parse nexthop\n", mpBufSize), status: exitArg}
				}
				nh.Gateway = gw
			case w == "dev":
				v, err := a.next()
				if err != nil {
					return nil, 0, 0, err
				}
				if nh.DevIndex = h.LinkIndex(v); nh.DevIndex == 0 {
					// parse_one_nh fails, and iproute_modify exits.
					return nil, 0, 0, &argError{msg: "Cannot find device \"" + v + "\"\nError: cannot parse nexthop\n", status: exitArg}
				}
				nh.Dev = v
			case matches(w, "weight"):
				v, err := a.next()
				if err != nil {
					return nil, 0, 0, err
				}
				wt, ok := getUnsigned(v, 32)
				if !ok || wt == 0 || wt > 256 {
					return nil, 0, 0, invarg("\"weight\" is invalid\n", v)
				}
				nh.Weight = int(wt)
			case w == "onlink":
				nh.OnLink = true
			default:
				// parse_one_nh stops at a word it does not know, which
				// parse_nexthops then refuses.
				return nil, 0, 0, &argError{msg: fmt.Sprintf("Error: \"nexthop\" or end of line is expected instead of \"%s\"\n", w), status: exitArg}
			}
		}
		out = append(out, nh)
	}
	return out, n, family, nil
}
