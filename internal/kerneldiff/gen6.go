// The generator's IPv6 part: addresses, gateways, tables and prefixes for
// IPv6 routes and addresses.

package kerneldiff

import (
	"fmt"
	"strings"
)

// The IPv6 half of the generator. Addresses are drawn from the subnets
// 2001:db8:S::/64 (S from 0 to 3), hosts 2001:db8:S::H (H from 1 to 6),
// mostly with nodad, so that their local routes appear as on a host whose
// duplicate address detection has ended (the harness waits for the
// kernel's work queue after every IPv6 address command); link-local
// addresses derive from the MAC addresses the generator sets
// (fe80::ff:fe00:a0 for a0's 02:00:00:00:00:a0), so that no run depends on
// the kernel's randomness, and stay tentative (dad_transmits 3600). Which
// path of a multipath route `ip -6 route get` reports depends on the
// multipath hash, which net.ipv4.fib_multipath_hash_seed seeds for IPv6 as
// for IPv4 (rt6_multipath_hash → fib_multipath_hash_from_keys), and the
// harness sets it on both sides.

// linkLocal returns a generated device's link-local address (EUI-64 of
// its MAC address, the universal/local bit flipped).
func linkLocal(dev string) string {
	m := mac(dev)
	return "fe80::ff:fe00:" + strings.TrimLeft(m[len(m)-2:], "0")
}

// host6 returns an IPv6 gateway: mostly a host in a subnet an address was
// added in, else in one of the subnets addresses are drawn from, a
// device's link-local address, now and then outside them all.
func (g *gen) host6() string {
	switch {
	case g.chance(0.06):
		return g.pick("2001:db8:99::1", "2001:db8::", "::1", "ff02::1")
	case g.chance(0.12):
		return linkLocal(g.pick("a0", "b0", "a1", "b1"))
	case len(g.subnets6) > 0 && g.chance(0.7):
		return fmt.Sprintf("2001:db8:%x::%x", g.subnets6[g.r.IntN(len(g.subnets6))], 1+g.r.IntN(6))
	}
	return fmt.Sprintf("2001:db8:%x::%x", g.r.IntN(4), 1+g.r.IntN(6))
}

// table6 returns a route's table option: main and local, the tables the
// IPv6 rules look up (100, 200, 300), now and then one no rule names.
func (g *gen) table6() string {
	switch g.r.IntN(12) {
	case 0, 1, 2, 3, 4:
		return ""
	case 5:
		return " table main"
	case 6:
		return " table local"
	case 7, 8:
		return " table 100"
	case 9:
		return " table 200"
	case 10:
		return " table 300"
	}
	return " table 1234"
}

// prefix6 returns a random IPv6 prefix: lengths from /0 to /128 with the
// usual ones more often, clustered around the subnets addresses are drawn
// from or random inside 2001:db8::/32, canonical except now and then, and
// rarely longer than 128.
func (g *gen) prefix6() string {
	if g.chance(0.03) {
		return g.pick("2001:db8::/129", "2001:db8::/200", "2001:db8::/-1", "2001:db8::1::/64")
	}
	if g.chance(0.3) {
		// Near the subnets: a subnet itself, a host in it, a sibling.
		s := g.r.IntN(4)
		switch g.r.IntN(4) {
		case 0:
			return fmt.Sprintf("2001:db8:%x::/64", s)
		case 1:
			return fmt.Sprintf("2001:db8:%x::%x/128", s, 1+g.r.IntN(9))
		case 2:
			return fmt.Sprintf("2001:db8:%x:%x::/64", s, 1+g.r.IntN(3))
		}
		return fmt.Sprintf("2001:db8:%x::/%d", s, []int{48, 56, 60, 63}[g.r.IntN(4)])
	}
	var l int
	switch g.r.IntN(8) {
	case 0:
		l = g.r.IntN(129)
	case 1:
		l = 16 + g.r.IntN(113)
	case 2:
		l = 128
	case 3, 4:
		l = 64
	default:
		l = []int{0, 32, 48, 56, 96, 120, 127}[g.r.IntN(7)]
	}
	var a [16]byte
	a[0], a[1], a[2], a[3] = 0x20, 0x01, 0x0d, 0xb8
	for i := 4; i < 16; i++ {
		if g.chance(0.5) {
			a[i] = byte(g.r.IntN(256))
		}
	}
	if !g.chance(0.04) {
		for i := range a {
			switch {
			case i*8 >= l:
				a[i] = 0
			case i*8+8 > l:
				a[i] &= byte(0xff << (8 - (l - i*8)))
			}
		}
	}
	return fmt.Sprintf("%s/%d", fmtAddr6(a), l)
}

// fmtAddr6 writes an IPv6 address in its canonical text form (RFC 5952).
func fmtAddr6(a [16]byte) string {
	var w [8]uint16
	for i := range w {
		w[i] = uint16(a[2*i])<<8 | uint16(a[2*i+1])
	}
	// The longest run of two or more zero words goes.
	best, bestLen := -1, 1
	for i := 0; i < 8; {
		if w[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && w[j] == 0 {
			j++
		}
		if j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = j
	}
	var b strings.Builder
	for i := 0; i < 8; i++ {
		if i == best {
			b.WriteString("::")
			i += bestLen - 1
			continue
		}
		if i > 0 && i != best+bestLen {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%x", w[i])
	}
	return b.String()
}

// ip6 returns how an IPv6 command names its family: with -6, or through
// its addresses alone.
func (g *gen) ip6() string { return g.pick("-6 ", "-6 ", "") }

// addr6 adds, replaces, changes or deletes an IPv6 address (mostly nodad;
// with a metric for its prefix route, noprefixroute, lifetimes now and
// then), or flushes a device's IPv6 addresses.
func (g *gen) addr6() {
	if g.chance(0.05) {
		g.emit("-6 addr flush dev %s%s", g.dev(), g.pick("", " scope global"))
		return
	}
	op := g.pick("add", "add", "add", "del", "replace", "change")
	if op == "del" && len(g.addrs6) > 0 && g.chance(0.7) {
		i := g.r.IntN(len(g.addrs6))
		g.emit("%saddr del %s", g.ip6(), g.addrs6[i])
		g.addrs6 = append(g.addrs6[:i], g.addrs6[i+1:]...)
		return
	}
	s, h := g.r.IntN(4), 1+g.r.IntN(6)
	l := []int{64, 64, 64, 48, 120, 128}[g.r.IntN(6)]
	d := g.dev()
	spec := fmt.Sprintf("2001:db8:%x::%x/%d", s, h, l)
	if op != "del" {
		g.subnets6 = append(g.subnets6, s)
		g.addrs6 = append(g.addrs6, spec+" dev "+d)
	}
	spec += " dev " + d
	if op == "del" {
		g.emit("%saddr del %s", g.ip6(), spec)
		return
	}
	if g.chance(0.8) {
		spec += " nodad"
	}
	if g.chance(0.15) {
		spec += fmt.Sprintf(" metric %d", []int{0, 10, 256, 1024}[g.r.IntN(4)])
	}
	if g.chance(0.08) {
		spec += " noprefixroute"
	}
	if g.chance(0.15) {
		spec += " " + lifetimes[g.r.IntN(len(lifetimes))]
	}
	g.emit("%saddr %s %s", g.ip6(), op, spec)
}

// fwd6 returns an IPv6 route's forwarding part: via a gateway (with or
// without its device, now and then a link-local one without, an IPv4 one,
// or through RTA_VIA), a device, a nexthop object or several nexthops.
func (g *gen) fwd6() string {
	switch g.r.IntN(14) {
	case 0, 1, 2:
		return fmt.Sprintf("via %s dev %s", g.host6(), g.dev())
	case 3:
		return "via " + g.host6()
	case 4:
		// A link-local gateway on its device; rarely without it.
		d := g.pick("a0", "b0", "a1", "b1")
		peer := map[string]string{"a0": "b0", "b0": "a0", "a1": "b1", "b1": "a1"}[d]
		if g.chance(0.2) {
			return "via " + linkLocal(peer)
		}
		return fmt.Sprintf("via %s dev %s", linkLocal(peer), d)
	case 5, 6:
		return "dev " + g.dev()
	case 7, 8:
		return fmt.Sprintf("nhid %d", g.nhid6())
	case 9, 10:
		s := fmt.Sprintf("nexthop via %s dev %s", g.host6(), g.dev())
		if g.chance(0.3) {
			s += fmt.Sprintf(" weight %d", 1+g.r.IntN(3))
		}
		for range 1 + g.r.IntN(2) {
			if g.chance(0.15) {
				s += " nexthop dev " + g.dev()
				continue
			}
			s += fmt.Sprintf(" nexthop via %s dev %s", g.host6(), g.dev())
			if g.chance(0.5) {
				s += fmt.Sprintf(" weight %d", 1+g.r.IntN(3))
			}
		}
		return s
	case 11:
		return "via " + g.host6() + " dev " + g.dev() + " onlink"
	case 12:
		return g.pick("via 10.0.0.2", "via inet 10.0.0.2 dev a0", "via 10.0.0.2 dev a0")
	}
	return "dev " + g.pick("zz0", "lo")
}

// nhid6 returns a nexthop id: the IPv6 ones share 5 to 8 with the IPv4
// ones (an IPv6 route cannot use an IPv4 nexthop), 9 to 12 are theirs.
func (g *gen) nhid6() int { return 5 + g.r.IntN(8) }

// routeType6 returns a route type for an IPv6 route, or "".
func (g *gen) routeType6() string {
	switch {
	case g.chance(0.12):
		return g.pick("blackhole", "unreachable", "prohibit", "throw")
	case g.chance(0.04):
		return g.pick("local", "anycast", "multicast", "unicast", "broadcast", "nat")
	}
	return ""
}

// route6 adds, appends, prepends, replaces, changes or tests an IPv6 route.
func (g *gen) route6() {
	op := g.pick("add", "add", "add", "add", "append", "append", "replace", "prepend", "change", "test")
	pfx := g.prefix6()
	if len(g.routes6) > 0 && g.chance(0.25) {
		// The same route again: duplicates, replaces, appends, siblings.
		pfx = g.usedPrefix(g.routes6)
	}
	tbl := g.table6()
	from := ""
	if g.chance(0.08) {
		from = " from " + g.pick("2001:db8:1::/64", "2001:db8:2::/48", "2001:db8::1/128", "::/0", "2001:db8:1::1/64")
	}
	typ := g.routeType6()
	spec := pfx + from + tbl
	if typ != "" {
		spec = typ + " " + spec
	}
	if g.chance(0.05) {
		spec += " src " + g.pick("2001:db8::1", "2001:db8:1::1", "2001:db8:3::9", "10.0.0.1")
	}
	if g.chance(0.25) {
		spec += fmt.Sprintf(" metric %d", []int{0, 1, 256, 1024, 2048}[g.r.IntN(5)])
	}
	if g.chance(0.15) {
		spec += " pref " + g.pick("low", "medium", "high", "high", "bogus")
	}
	if g.chance(0.1) {
		spec += " proto " + g.pick("static", "boot", "ra", "42")
	}
	if g.chance(0.06) {
		spec += " expires " + g.pick("300", "600", "0")
	}
	if g.chance(0.06) {
		spec += " " + g.pick("mtu 1400", "hoplimit 32", "mtu lock 1300", "advmss 1200", "mtu 100")
	}
	switch typ {
	case "blackhole", "unreachable", "prohibit", "throw":
		if g.chance(0.15) {
			spec += " dev " + g.dev()
		}
	default:
		spec += " " + g.fwd6()
	}
	g.emit("%sroute %s %s", g.ip6(), op, spec)
	g.routes6 = append(g.routes6, pfx+from+tbl)
}

// routeDel6 deletes an IPv6 route added before, or one that may not
// exist, or flushes routes by a selector.
func (g *gen) routeDel6() {
	switch k := g.r.IntN(10); {
	case k < 6 && len(g.routes6) > 0:
		i := g.r.IntN(len(g.routes6))
		spec := g.routes6[i]
		if g.chance(0.25) {
			spec += " " + g.pick("via "+g.host6(), "dev "+g.dev(), "metric 1024", "proto static", "type blackhole", "nhid 5")
		}
		g.emit("%sroute del %s", g.ip6(), spec)
		g.routes6 = append(g.routes6[:i], g.routes6[i+1:]...)
	case k < 8:
		g.emit("%sroute del %s%s", g.ip6(), g.prefix6(), g.table6())
	default:
		g.emit("-6 route flush %s", g.pick("table 100", "table 200", "table main", "dev "+g.dev(), "proto static",
			"table 100 proto boot", "2001:db8:1::/48", "root 2001:db8::/32 table 100", "table 1234", "table all type blackhole"))
	}
}

// routeGet6 asks for the IPv6 route to an address near the routes and
// subnets used or to a special one: the output route, now and then from
// a source, through an output device or with a mark, the input route of a
// packet on a device, or the route that matched (fibmatch).
func (g *gen) routeGet6() {
	spec := g.routeGetSpec(g.routes6, g.host6, getDraws6)
	g.emit("%sroute get %s", g.ip6(), spec)
}

// getDraws6 is what an IPv6 route get draws from; it gives no TOS.
var getDraws6 = routeGetDraws{
	special:   []string{"::", "::1", "ff02::1", "2001:db8::1", "fe80::1", "2001:db8:ffff::1", "64:ff9b::1"},
	inFrom:    []string{"2001:db8::2", "2001:db8:1::9", "2001:db8::1", "fe80::ff:fe00:b0", "::1"},
	outFrom:   []string{"2001:db8::1", "2001:db8:1::1", "2001:db8:2::5", "::", "2001:db8:1::"},
	markP:     0.12,
	markN:     4,
	fibmatchP: 0.2,
}

// nexthop6 adds or replaces an IPv6 nexthop (a gateway with its device, a
// device, a blackhole) or a group of them (now and then with an IPv4
// member, which the kernel refuses), or deletes one.
func (g *gen) nexthop6() {
	id := g.nhid6()
	switch k := g.r.IntN(10); {
	case k < 4:
		extra := ""
		if g.chance(0.1) {
			extra = " onlink"
		}
		gw := g.host6()
		if g.chance(0.1) {
			g.emit("nexthop %s id %d via %s", g.pick("add", "replace"), id, gw)
			return
		}
		g.emit("%snexthop %s id %d via %s dev %s%s", g.pick("-6 ", ""), g.pick("add", "add", "replace"), id, gw, g.dev(), extra)
	case k < 5:
		g.emit("-6 nexthop %s id %d %s", g.pick("add", "replace"), id, g.pick("dev "+g.dev(), "blackhole"))
	case k < 8:
		m := g.groupMembers(g.nhid6)
		g.emit("nexthop %s id %d group %s", g.pick("add", "add", "replace"), 13+g.r.IntN(3), strings.Join(m, "/"))
	case k < 9:
		g.emit("nexthop del id %s", g.pick(fmt.Sprint(id), fmt.Sprint(13+g.r.IntN(3))))
	default:
		g.emit("-6 nexthop %s", g.pick("flush", "show", "show dev a0", "show groups"))
	}
}

// rule6 adds or deletes an IPv6 rule, mostly one that sends lookups to
// the tables IPv6 routes are added to: the rule lists are per family, and
// the IPv6 one is dumped only for sequences that have one.
func (g *gen) rule6() {
	pref := []int{100, 200, 300, 32765}[g.r.IntN(4)]
	if g.chance(0.25) {
		g.emit("-6 rule del pref %d", pref)
		return
	}
	var sel []string
	if g.chance(0.4) {
		sel = append(sel, "from "+g.pick("2001:db8::/48", "2001:db8:1::/64", "2001:db8:2::5", "::/0", "2001:db8::1/64"))
	}
	if g.chance(0.3) {
		sel = append(sel, "to "+g.pick("2001:db8:1::/48", "2001:db8:3::/64", "2001:db8::/32"))
	}
	if g.chance(0.15) {
		sel = append(sel, "iif "+g.dev())
	}
	if g.chance(0.15) {
		sel = append(sel, "oif "+g.dev())
	}
	if g.chance(0.2) {
		sel = append(sel, fmt.Sprintf("fwmark %d", g.r.IntN(4)))
	}
	var action string
	switch g.r.IntN(10) {
	case 0, 1, 2, 3, 4:
		action = "table " + g.pick("100", "200", "300", "main", "local")
	case 5:
		action = fmt.Sprintf("goto %d", []int{200, 300, 1000}[g.r.IntN(3)])
	case 6:
		action = g.pick("blackhole", "unreachable", "prohibit")
	case 7:
		action = "table 100 suppress_prefixlength 0"
	default:
		action = "lookup " + g.pick("100", "200")
	}
	g.emit("-6 rule add pref %d %s %s", pref, strings.Join(sel, " "), action)
}

// show6 lists IPv6 routes through one of ip's filters.
func (g *gen) show6() {
	f := g.pick("", "table all", "table 100", "table local", "table 1234", "dev "+g.dev(), "proto kernel",
		"proto static", "type unreachable", "type local table all", "match 2001:db8:1::1", "root 2001:db8::/32",
		"exact 2001:db8:1::/64", "from 2001:db8:1::/64", "table all dev lo", "cached", "table main match ::/0")
	g.emit("%s-6 route show %s", g.pick("", "", "-j "), f)
}

// step6 draws one IPv6 command; k is below 66.
func (g *gen) step6(k int) {
	switch {
	case k < 10:
		g.addr6()
	case k < 32:
		g.route6()
	case k < 40:
		g.routeDel6()
	case k < 48:
		g.routeGet6()
	case k < 55:
		g.nexthop6()
	case k < 62:
		g.rule6()
	default:
		g.show6()
	}
}
