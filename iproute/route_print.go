// `ip route`'s printer: iproute2's print_route and its helpers
// (print_rta_multipath, print_rta_metrics, print_rt_flags,
// print_cache_flags, print_rta_cacheinfo, print_rt_pref) in ip/iproute.c,
// for both families, on ip.p, and ip/ipnexthop.c's
// print_cache_nexthop_id for the nh_info -d adds to a route with a nexthop
// id. Not printed, and refused by ip route: route get's RTA_CACHEINFO with
// -s (print_rta_cacheinfo's users, used and age of the kernel's cached
// route, which netsim does not keep).

package iproute

import (
	"net/netip"
	"time"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// routeMsg is the RTM_NEWROUTE message print_route reads: a dumped route
// (fib_dump_info) or the answer to a route get (rt_fill_info).
type routeMsg struct {
	family   rt.Family // rtm_family: AF_INET or AF_INET6
	typ      fib.Type
	dst      netip.Prefix // RTA_DST (none for a default route) and rtm_dst_len
	src      netip.Prefix // RTA_SRC and rtm_src_len: a query's source, an IPv6 route's "from"
	nhid     nexthop.ID   // RTA_NH_ID
	tos      uint8        // rtm_tos
	gateway  netip.Addr   // RTA_GATEWAY
	dev      string       // RTA_OIF
	table    uint32       // rtm_get_table
	protocol fib.Protocol
	scope    fib.Scope
	prefsrc  netip.Addr // RTA_PREFSRC
	// priority is RTA_PRIORITY, sent when hasPriority: by IPv4 for a
	// nonzero metric, by IPv6 always (rt6_fill_node).
	priority    uint32
	hasPriority bool
	flags       uint32  // rtm_flags, with an answer's RTCF_* flags above 0xffff
	mark        uint32  // RTA_MARK
	uid         *uint32 // RTA_UID
	// expires is RTA_CACHEINFO's rta_expires, the time an IPv6 route has
	// left; 0 is none (rt6_fill_node sends RTA_CACHEINFO with every IPv6
	// route; IPv4 dumps send none).
	expires time.Duration
	metrics fib.Metrics
	iif     string   // RTA_IIF
	pref    *rt.Pref // RTA_PREF (IPv6)
	paths   []rtnl.RoutePath
}

// dumpedRoute is fib_dump_info's (IPv4) or rt6_fill_node's (IPv6) message
// for r.
func dumpedRoute(r rtnl.RouteInfo) routeMsg {
	m := routeMsg{
		family: rt.FamilyInet, typ: r.Type, dst: r.Dst, nhid: r.NexthopID, tos: r.TOS, gateway: r.Gateway, dev: r.Dev,
		table: r.Table, protocol: r.Protocol, scope: r.Scope, prefsrc: r.PrefSrc, priority: r.Priority,
		hasPriority: r.Priority != 0, flags: uint32(r.Flags), metrics: r.Metrics, paths: r.Multipath,
		iif: r.IIF,
	}
	if r.Family == rt.FamilyInet6 {
		// rt6_fill_node: RTA_SRC only for a source prefix, RTA_PRIORITY,
		// RTA_CACHEINFO and RTA_PREF always.
		m.family, m.hasPriority, m.expires = rt.FamilyInet6, true, r.Expires
		if r.Src.IsValid() && r.Src.Bits() != 0 {
			m.src = r.Src
		}
		pref := r.Pref
		m.pref = &pref
	}
	return m
}

// routeAnswer is rt_fill_info's message for the answer rr to query q: the
// destination as a host, the query's source, the gateway and device, the
// chosen source of an output route (RTA_PREFSRC when the query had none),
// the mark, the uid of an output route, the route's flags, the metrics
// and an input route's device.
func routeAnswer(q rtnl.RouteGetRequest, rr rtnl.RouteResult) routeMsg {
	m := routeMsg{
		family: rt.FamilyInet, typ: rr.Type, dst: netip.PrefixFrom(q.Dst, 32), tos: rr.TOS, gateway: rr.Gateway,
		dev: rr.Dev, table: rr.Table, flags: uint32(rr.Flags)&^0xffff | rt.RTMFCloned,
		mark: q.Mark, metrics: rr.Metrics, iif: rr.IIF,
	}
	if q.Src.IsValid() && !q.Src.IsUnspecified() {
		m.src = netip.PrefixFrom(q.Src, 32)
	}
	if rr.IIF == "" {
		if rr.Src.IsValid() && rr.Src != q.Src {
			m.prefsrc = rr.Src
		}
		uid := q.UID
		m.uid = &uid
	}
	return m
}

// routeAnswer6 is rt6_fill_node's message for the answer rr to an IPv6
// query q: the destination and the flow's source as hosts (rr.From, which
// rtnl makes :: for a query without one), the chosen path's gateway and device, the route's table,
// protocol, metric and preference, the source address selection picked
// (RTA_PREFSRC, for an output route), the metrics and an input route's
// device. Unlike IPv4's, the answer has no mark, no uid and no cache line.
func routeAnswer6(q rtnl.RouteGetRequest, rr rtnl.RouteResult) routeMsg {
	pref := rr.Pref
	m := routeMsg{
		family: rt.FamilyInet6, typ: rr.Type, dst: netip.PrefixFrom(q.Dst, 128), src: netip.PrefixFrom(rr.From, 128),
		gateway: rr.Gateway, dev: rr.Dev, table: rr.Table, protocol: rr.Protocol,
		priority: rr.Priority, hasPriority: true, flags: uint32(rr.Flags) & 0xffff,
		metrics: rr.Metrics, iif: rr.IIF, pref: &pref,
	}
	if rr.IIF == "" {
		m.prefsrc = rr.Src
	}
	return m
}

// hostLen is af_bit_len: the bits of an address of family.
func hostLen(family rt.Family) int {
	if family == rt.FamilyInet6 {
		return 128
	}
	return 32
}

// routeHost is how print_route writes a prefix of family: the address
// alone for a host, ADDR/LEN otherwise.
func routeHost(p netip.Prefix, family rt.Family) string {
	if p.Bits() == hostLen(family) {
		return p.Addr().String()
	}
	return p.String()
}

// printRoute is print_route for m; f is the dump's filter (nil for the
// answer to route get), whose fixed fields are left out.
func (ip *IP) printRoute(h *handle, m routeMsg, f *routeFilter) {
	p := &ip.p
	details := ip.opts.details > 0
	var oneTable, devFixed, protoFixed, scopeFixed, viaFixed, srcFixed, tosFixed, metricFixed bool
	if f != nil {
		oneTable = f.table != 0
		devFixed = f.dev != ""
		protoFixed = f.hasProto
		scopeFixed = f.scopeMask != 0
		viaFixed = f.via.hostBits() == hostLen(m.family)
		srcFixed = f.prefsrc.hostBits() == hostLen(m.family)
		tosFixed = f.hasTOS
		metricFixed = f.hasMetric
	}
	cloned := m.flags&rt.RTMFCloned != 0
	p.openObject("")
	if m.typ != fib.TypeUnicast || details {
		p.str(printAny, "type", "%s ", m.typ.String())
	}
	dst := "default"
	if m.dst.Bits() != 0 {
		dst = routeHost(m.dst, m.family)
	}
	p.str(printAny, "dst", "%s ", dst)
	if m.src.IsValid() {
		p.str(printAny, "from", "from %s ", routeHost(m.src, m.family))
	}
	if m.nhid != 0 {
		p.uint(printAny, "nhid", "nhid %d ", uint64(m.nhid))
	}
	if m.tos != 0 && !tosFixed {
		p.str(printAny, "tos", "tos %s ", rt.DSFieldName(m.tos))
	}
	switch {
	case !m.gateway.IsValid():
	case addrFamily(m.gateway) != m.family:
		// A gateway of the other family is RTA_VIA (fib_nexthop_info,
		// rt_fill_info), printed whatever the filter's via.
		ip.printVia(m.gateway)
	case !viaFixed:
		ip.printGateway(m.gateway)
	}
	if m.dev != "" && !devFixed {
		ip.printIfidx(m.dev, "dev")
	}
	if m.table != 0 && (m.table != fib.TableMain || details) && !oneTable {
		p.str(printAny, "table", "table %s ", rt.TableName(m.table))
	}
	if !cloned {
		if (m.protocol != fib.ProtoBoot || details) && !protoFixed {
			p.str(printAny, "protocol", "proto %s ", m.protocol.String())
		}
		if (m.scope != fib.ScopeUniverse || details) && !scopeFixed {
			p.str(printAny, "scope", "scope %s ", m.scope.String())
		}
	}
	if m.prefsrc.IsValid() && !srcFixed {
		p.str(printAny, "prefsrc", "src %s ", m.prefsrc.String())
	}
	if m.hasPriority && !metricFixed {
		p.uint(printAny, "metric", "metric %d ", uint64(m.priority))
	}
	printRtFlags(p, rt.RouteFlagNames(m.flags))
	if m.mark != 0 {
		switch {
		case p.isJSON():
			p.uint(printJSON, "mark", "", uint64(m.mark))
		case m.mark >= 16:
			p.hex0x(printFP, "", "mark %#x ", uint64(m.mark))
		default:
			p.uint(printFP, "", "mark %d ", uint64(m.mark))
		}
	}
	if m.uid != nil {
		p.uint(printAny, "uid", "uid %d ", uint64(*m.uid))
	}
	if cloned && m.family == rt.FamilyInet {
		ip.printCacheFlags(m.flags)
	}
	if ticks := int64(m.expires / (time.Second / userHZ)); ticks > 0 {
		// print_rta_cacheinfo: rta_expires in clock_t, printed when not
		// 0, divided by USER_HZ ("expires 0sec" for less than a second).
		p.int(printAny, "expires", "expires %dsec ", ticks/userHZ)
	}
	if !m.metrics.IsZero() {
		ip.printRtaMetrics(m.metrics)
	}
	if m.iif != "" {
		ip.printIfidx(m.iif, "iif")
	}
	if m.pref != nil {
		printRtPref(p, *m.pref)
	}
	if m.nhid != 0 && details {
		ip.printCacheNexthopID(h, "\n\tnh_info ", "nh_info", m.nhid)
	}
	if len(m.paths) > 0 {
		ip.printRtaMultipath(m.paths, m.family)
	}
	p.str(printFP, "", "\n", "")
	p.closeObject()
}

// userHZ is USER_HZ, the clock_t ticks per second of RTA_CACHEINFO.
const userHZ = 100

// printRtPref is print_rt_pref: "pref low|medium|high", a number for
// another value (with no "pref " before it), and no space after either.
func printRtPref(p *printer, pref rt.Pref) {
	switch pref {
	case rt.PrefLow, rt.PrefMedium, rt.PrefHigh:
		p.str(printAny, "pref", "pref %s", pref.String())
	default:
		p.uint(printAny, "pref", "%d", uint64(pref))
	}
}

// printGateway is __print_rta_gateway.
func (ip *IP) printGateway(gw netip.Addr) {
	ip.p.str(printAny, "gateway", "via %s ", inetNtop(gw))
}

// printVia is print_rta_via: RTA_VIA (struct rtvia) as "via FAMILY ADDR ",
// in JSON a "via" object with the family's name and the address.
func (ip *IP) printVia(gw netip.Addr) {
	p := &ip.p
	fam := familyName(addrFamily(gw))
	if p.isJSON() {
		p.openObject("via")
		p.str(printJSON, "family", "", fam)
		p.str(printJSON, "host", "", inetNtop(gw))
		p.closeObject()
		return
	}
	p.str(printFP, "", "via %s ", fam)
	p.str(printFP, "", "%s ", inetNtop(gw))
}

// printIfidx is print_rta_ifidx: "dev NAME " or "iif NAME ".
func (ip *IP) printIfidx(name, prefix string) {
	ip.p.str(printAny, prefix, prefix+" %s ", name)
}

// printRtFlags is print_rt_flags for the names of a route's, a path's, a
// nexthop's or a bucket's flags: a JSON array "flags", in text each name
// and a space.
func printRtFlags(p *printer, names []string) {
	p.openArray(printJSON, "flags")
	for _, name := range names {
		p.str(printAny, "", "%s ", name)
	}
	p.closeArray(printJSON, "")
}

// printCacheFlags is print_cache_flags: the answer's "cache" line with its
// RTCF_* flags, a JSON array "cache".
func (ip *IP) printCacheFlags(flags uint32) {
	p := &ip.p
	flags &^= 0xffff
	if p.isJSON() {
		p.name("cache")
		p.openArray(printJSON, "")
	} else {
		p.text("%s    cache ", p.sl)
		if flags == 0 {
			return
		}
		p.text("<")
	}
	names, rest := rt.CacheFlagNames(flags)
	for i, name := range names {
		switch {
		case p.isJSON():
			p.str(printJSON, "", "", name)
		case i < len(names)-1 || rest != 0:
			p.text("%s,", name)
		default:
			p.text("%s> ", name)
		}
	}
	if rest != 0 {
		p.hex(printAny, "flags", "%x>", uint64(rest))
	}
	if p.isJSON() {
		p.closeArray(printJSON, "")
	}
}

// printRtaMetrics is print_rta_metrics: each metric set or locked, by
// name, "lock" for a locked one, RTT, RTTVar and RTO_MIN in ms (or s from
// 1000 ms on), in JSON an array "metrics" of one object.
func (ip *IP) printRtaMetrics(mx fib.Metrics) {
	p := &ip.p
	p.openArray(printJSON, "metrics")
	p.openObject("")
	for k := rt.MetricMTU; k <= rt.MetricMax; k++ {
		v := mx.Values[k]
		locked := mx.Lock&(1<<k) != 0
		set := v != 0
		switch k {
		case rt.MetricCongCtl:
			set = mx.CongCtl != ""
		case rt.MetricFeatures:
			// DST_FEATURE_ECN_CA is the kernel's own, never dumped.
			v &^= 1 << 31
			set = v != 0
		}
		if !set && !locked {
			continue
		}
		if !p.isJSON() {
			p.text("%s ", k.String())
			if locked {
				p.text("lock ")
			}
		}
		switch k {
		case rt.MetricFeatures:
			of := v
			if v&fib.FeatureECN != 0 {
				p.null(printAny, "ecn", "ecn ", "")
				v &^= fib.FeatureECN
			}
			if v != 0 {
				p.hex0x(printAny, "features", "%#x ", uint64(of))
			}
		case rt.MetricRTT, rt.MetricRTTVar, rt.MetricRTOMin:
			switch k {
			case rt.MetricRTT:
				v /= 8
			case rt.MetricRTTVar:
				v /= 4
			}
			switch {
			case p.isJSON():
				p.uint(printJSON, k.String(), "", uint64(v))
			case v >= 1000:
				p.text("%ss ", formatG(float64(v)/1e3))
			default:
				p.text("%dms ", v)
			}
		case rt.MetricCongCtl:
			p.str(printAny, "congestion", "%s ", mx.CongCtl)
		default:
			p.uint(printAny, k.String(), "%d ", uint64(v))
		}
	}
	p.closeObject()
	p.closeArray(printJSON, "")
}

// printRtaMultipath is print_rta_multipath for the paths of a route.
func (ip *IP) printRtaMultipath(paths []rtnl.RoutePath, family rt.Family) {
	p := &ip.p
	p.openArray(printJSON, "nexthops")
	for _, nh := range paths {
		p.openObject("")
		p.str(printFP, "", "%s\tnexthop ", p.sl)
		switch {
		case !nh.Gateway.IsValid():
		case addrFamily(nh.Gateway) != family:
			ip.printVia(nh.Gateway) // the path's RTA_VIA
		default:
			ip.printGateway(nh.Gateway)
		}
		p.str(printAny, "dev", "dev %s ", nh.Dev)
		p.int(printAny, "weight", "weight %d ", int64(nh.Weight))
		printRtFlags(p, rt.RouteFlagNames(uint32(nh.Flags)))
		p.closeObject()
	}
	p.closeArray(printJSON, "")
}
