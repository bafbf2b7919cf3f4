// stats.go renders the IPv6 FIB's /proc files: /proc/net/rt6_stats
// (rt6_stats_seq_show, net/ipv6/route.c) and /proc/net/ipv6_route
// (ipv6_route_native_seq_show, net/ipv6/ip6_fib.c).

package fib6

import (
	"fmt"
	"strings"
)

// rt6Stats returns /proc/net/rt6_stats's line: fib_nodes, fib_route_nodes,
// fib_rt_alloc, fib_rt_entries, fib_rt_cache, the dst entries in use and
// fib_discarded_routes.
//
// Kernel: rt6_stats_seq_show (net/ipv6/route.c).
func (f *FIB) rt6Stats() string {
	s := &f.stats
	return fmt.Sprintf("%04x %04x %04x %04x %04x %04x %04x\n",
		uint32(s.FibNodes), uint32(s.FibRouteNodes), uint32(s.FibRtAlloc),
		uint32(s.FibRtEntries), uint32(s.FibRtCache), uint32(s.DstEntries),
		uint32(s.FibDiscardedRoute))
}

// ipv6Route returns /proc/net/ipv6_route's text: every route of every
// table (the null entry of an empty root included), tables in hash order,
// routes in walk order.
//
// Kernel: ipv6_route_seq_start/next, ipv6_route_native_seq_show
// (net/ipv6/ip6_fib.c).
func (f *FIB) ipv6Route() string {
	var b strings.Builder
	f.eachTable(func(tb *Table) {
		tb.eachRoute(func(rt *Info) { writeIPv6Route(&b, rt) })
	})
	return b.String()
}

func writeHex16(b *strings.Builder, a *[16]byte) {
	const hexd = "0123456789abcdef"
	for _, c := range a {
		b.WriteByte(hexd[c>>4])
		b.WriteByte(hexd[c&15])
	}
}

// writeIPv6Route writes one line of /proc/net/ipv6_route.
func writeIPv6Route(b *strings.Builder, rt *Info) {
	flags := rt.flags
	gw, dev := rt.fnh.gw, rt.fnh.dev
	hasGW := rt.fnh.hasGW
	if rt.nhObj != nil {
		// A nexthop object's first fib6_nh (nexthop_fib6_nh).
		nh := rt.nhObj
		for nh.IsGroup() && nh.NumMembers() > 0 {
			nh = nh.Member(0)
		}
		if g := nh.Gateway(); g.Is6() {
			gw, hasGW = g.As16(), true
		} else {
			gw, hasGW = [16]byte{}, false
		}
		dev = nh.Dev()
	}
	writeHex16(b, &rt.dst.addr)
	fmt.Fprintf(b, " %02x ", rt.dst.plen)
	writeHex16(b, &rt.src.addr)
	fmt.Fprintf(b, " %02x ", rt.src.plen)
	if hasGW {
		flags |= rtfGateway
		writeHex16(b, &gw)
	} else {
		b.WriteString("00000000000000000000000000000000")
	}
	name := ""
	if dev != nil {
		name = dev.Name()
	}
	fmt.Fprintf(b, " %08x %08x %08x %08x %8s\n", rt.metric, uint32(rt.ref), 0, flags, name)
}
