// `ip route get`: iproute2's iproute_get (ip/iproute.c), answered by the
// kernel's inet_rtm_getroute (net/ipv4/route.c) and inet6_rtm_getroute
// (net/ipv6/route.c).

package iproute

import (
	"fmt"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// routeGetReq is iproute_get's request as its keywords build it.
type routeGetReq struct {
	q      rtnl.RouteGetRequest
	family rt.Family
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
func (ip *IP) routeGet(h *handle, argv []string) error {
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
	rr, err := h.GetRoute(q)
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
