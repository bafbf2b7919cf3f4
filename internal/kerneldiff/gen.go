// The script generator: seeded random ip command sequences (devices,
// addresses, routes, nexthops, rules) that netsim and the real kernel run
// side by side, and the constructs it avoids with the reason for each.

package kerneldiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Avoided lists the constructs the generator leaves out because netsim
// knowingly models them otherwise than the kernel (the reason in each
// entry), so that a generated difference is always news.
var Avoided = []string{
	"dummy, vlan, bond and vrf devices: the real kernel the harness runs on may lack their modules (veth, macvlan and bridge only)",
	"bridges with STP on that are up: their ports' states follow the forward delay's timers, in real time",
	"IPv6 addresses in duplicate address detection that ends: link-local addresses stay tentative (dad_transmits 3600), others are added with nodad or stay tentative",
	"IPv6 forwarding (and with it subnet-router anycast routes): ip cannot set sysctls",
	"IPv6 multicast memberships (ip -6 maddr): the kernel joins IPv6 groups from workqueues",
	"route encapsulations: netsim's iproute refuses them by name",
	"address proto and anycast addresses: netsim's iproute refuses them by name",
	"address metrics (IFA_RT_PRIORITY): not drawn; iproute's script test addr_metric compares them with the kernel",
	"ip -0 (and -f link): netsim's iproute refuses families other than inet and inet6",
	"congctl algorithms other than reno and cubic: which ones the real kernel has depends on its modules",
	"statistics of devices (-s on link and addr): the real kernel's devices send IPv6 packets, and their counters move",
	"changing the loopback device's address: netsim refuses it (testdata/differences.txt in iproute)",
	"the loopback device, but for setting it up at the start: the harness's dump separators are `ip link show dev lo`",
}

// Generate returns a random command sequence of about n steps, a
// deterministic function of seed (and of what netsim's ip accepts, see
// features): devices (veth pairs, macvlans on them, a bridge with
// ports), addresses with lifetimes, peers and labels, routes with metrics,
// nexthops and groups, rules, device up/down and deletion, multicast
// addresses, show commands with filters and output options, and a share of
// deliberately invalid commands (gateways not reachable, duplicates,
// deletions of missing objects, groups with missing members,
// non-canonical prefixes); and their IPv6 counterparts (see gen6.go):
// addresses, routes of every mode and type with metrics, preferences,
// sources, lifetimes, multipath and nexthop objects, rules sending lookups
// to the routes' tables, route get and show filters, and invalid input
// (prefixes longer than 128, IPv4 gateways, link-local gateways without
// their device, unknown tables and devices). Every device is given its MAC address, since
// show commands print them.
func Generate(seed uint64, n int) []Step {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x6b65726e656c)), devs: map[string]bool{}, feat: features()}
	g.emit("link add a0 address %s type veth peer name b0 address %s", mac("a0"), mac("b0"))
	g.emit("link set a0 up")
	g.emit("link set b0 up")
	g.emit("addr add 10.0.0.1/24 dev a0")
	if g.chance(0.4) {
		// Blackhole nexthops are on lo: only with lo up can they be.
		g.emit("link set lo up")
	}
	if g.chance(0.6) {
		g.emit("-6 addr add 2001:db8::1/64 dev a0 nodad")
		g.subnets6 = []int{0}
	}
	g.devs["a0"], g.devs["b0"] = true, true
	g.subnets = []int{0}
	for len(g.steps) < n {
		g.step()
	}
	return g.steps
}

// mac returns the MAC address a generated device is created with.
func mac(dev string) string {
	var n int
	switch dev {
	case "a0":
		n = 0xa0
	case "b0":
		n = 0xb0
	case "a1":
		n = 0xa1
	case "b1":
		n = 0xb1
	case "m0":
		n = 0xc0
	case "m1":
		n = 0xc1
	case "br0":
		n = 0xf0
	}
	return fmt.Sprintf("02:00:00:00:00:%02x", n)
}

// Script renders steps as a script that Parse reads back.
func Script(steps []Step) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(strings.Join(s.Args, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

type gen struct {
	r       *rand.Rand
	feat    *featureSet // what netsim's ip accepts
	steps   []Step
	devs    map[string]bool // devices believed to exist
	brUp    bool            // br0 believed up
	brSTP   bool            // br0 believed to run STP
	routes  []string        // route specs added ("PFX [table T]"), for deletion
	rules   []string        // rule specs added, for deletion
	subnets []int           // S of the 10.0.S.0/24 subnets addresses were added in
	addrs   []string        // addresses added ("PFX dev D"), for deletion
	maddrs  []string        // multicast addresses added ("MAC dev D"), for deletion
	// IPv6
	routes6  []string // route specs added ("PFX [from SRC] [table T]"), for deletion
	subnets6 []int    // S of the 2001:db8:S::/64 subnets addresses were added in
	addrs6   []string // addresses added ("ADDR/LEN dev D"), for deletion
}

func (g *gen) emit(format string, a ...any) {
	g.steps = append(g.steps, Step{Args: strings.Fields(fmt.Sprintf(format, a...))})
}

func (g *gen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// dev returns a device name, usually one believed to exist.
func (g *gen) dev() string {
	all := []string{"a0", "b0", "a1", "b1", "m0", "m1", "br0"}
	if g.chance(0.9) {
		var live []string
		for _, d := range all {
			if g.devs[d] {
				live = append(live, d)
			}
		}
		if len(live) > 0 {
			return live[g.r.IntN(len(live))]
		}
	}
	return all[g.r.IntN(len(all))]
}

// host returns a gateway: mostly in a subnet an address was added in, else
// in one of the subnets 10.0.S.0/24 addresses are drawn from, now and then
// outside them.
func (g *gen) host() string {
	switch {
	case g.chance(0.08):
		return g.pick("10.9.9.9", "192.0.2.1", "10.0.0.0")
	case len(g.subnets) > 0 && g.chance(0.7):
		return fmt.Sprintf("10.0.%d.%d", g.subnets[g.r.IntN(len(g.subnets))], 1+g.r.IntN(6))
	}
	return fmt.Sprintf("10.0.%d.%d", g.r.IntN(4), 1+g.r.IntN(6))
}

func (g *gen) table() string {
	switch g.r.IntN(10) {
	case 0, 1, 2, 3:
		return ""
	case 4:
		return " table main"
	case 5:
		return " table local"
	case 6, 7:
		return " table 100"
	case 8:
		return " table 200"
	}
	return " table 300"
}

// prefix returns a random IPv4 prefix, canonical except now and then.
func (g *gen) prefix() string {
	var l int
	switch g.r.IntN(6) {
	case 0:
		l = g.r.IntN(33)
	case 1:
		l = 32
	case 2:
		l = 24
	default:
		l = 8 + g.r.IntN(25)
	}
	first := []uint32{10, 10, 10, 172, 192, 198}[g.r.IntN(6)]
	a := first<<24 | g.r.Uint32()&0x00ffffff
	if !g.chance(0.04) && l < 32 {
		a &^= (1<<(32-l) - 1)
	}
	if l == 0 && !g.chance(0.04) {
		a = 0
	}
	return fmt.Sprintf("%d.%d.%d.%d/%d", a>>24, a>>16&255, a>>8&255, a&255, l)
}

func (g *gen) nhid() int { return 1 + g.r.IntN(8) }

func (g *gen) step() {
	switch k := g.r.IntN(190); {
	case k >= 124:
		g.step6(k - 124)
	case k < 6:
		g.link()
	case k < 14:
		g.upDown()
	case k < 26:
		g.addr()
	case k < 30:
		g.bridge()
	case k < 54:
		g.route()
	case k < 70:
		g.nexthop()
	case k < 90:
		g.rule()
	case k < 98:
		g.routeDel()
	case k < 104:
		g.routeGet()
	case k < 108:
		g.maddr()
	default:
		g.show()
	}
}

// usedPrefix returns the prefix (the first field) of one of routes, the
// requests' route specs, drawn at random.
func (g *gen) usedPrefix(routes []string) string {
	return strings.Fields(routes[g.r.IntN(len(routes))])[0]
}

// routeGetDraws is what a route get of one family draws from.
type routeGetDraws struct {
	special   []string // special destinations
	inFrom    []string // sources of an input route (with iif)
	outFrom   []string // sources of an output route
	markP     float64  // how often a mark, below markN, is given
	markN     int
	tosP      float64 // how often a TOS is given (0: never, no draw)
	fibmatchP float64 // how often the matched route is asked for
}

// getDraws4 is what an IPv4 route get draws from: input routes of a
// packet from a neighbour, one of this host's addresses or a martian.
var getDraws4 = routeGetDraws{
	special:   []string{"0.0.0.0", "127.0.0.1", "255.255.255.255", "224.0.0.1", "10.0.0.255", "192.0.2.77"},
	inFrom:    []string{"10.0.0.2", "10.0.1.9", "10.0.0.1", "192.0.2.5", "127.0.0.1", "224.0.0.9"},
	outFrom:   []string{"10.0.0.1", "10.0.1.1", "10.0.0.2", "127.0.0.1", "0.0.0.0"},
	markP:     0.1,
	markN:     16,
	tosP:      0.05,
	fibmatchP: 0.15,
}

// routeGet asks for the route to an address near the routes and subnets
// used, or to a special address: the output route, now and then with a
// source, an output device, a mark or a TOS, or the input route of a
// packet from a given source on a given device.
func (g *gen) routeGet() {
	g.emit("route get %s", g.routeGetSpec(g.routes, g.host, getDraws4))
}

// routeGetSpec draws the arguments of a route get: a destination among
// routes' prefixes, a host or a special address, then the options of d.
func (g *gen) routeGetSpec(routes []string, host func() string, d routeGetDraws) string {
	var dst string
	switch k := g.r.IntN(10); {
	case k < 4 && len(routes) > 0:
		dst, _, _ = strings.Cut(g.usedPrefix(routes), "/")
	case k < 8:
		dst = host()
	default:
		dst = g.pick(d.special...)
	}
	spec := dst
	if g.chance(0.2) {
		spec += " from " + g.pick(d.inFrom...) + " iif " + g.dev()
	} else if g.chance(0.2) {
		spec += " from " + g.pick(d.outFrom...)
	}
	if g.chance(0.2) {
		spec += " oif " + g.dev()
	}
	if g.chance(d.markP) {
		spec += fmt.Sprintf(" mark %d", g.r.IntN(d.markN))
	}
	if d.tosP > 0 && g.chance(d.tosP) {
		spec += " tos " + g.pick("0x10", "0x08")
	}
	if g.chance(d.fibmatchP) {
		// The route that matched, as the FIB holds it.
		spec = "fibmatch " + spec
	}
	return spec
}

func (g *gen) link() {
	switch g.r.IntN(6) {
	case 5:
		// Attributes do_setlink changes in place, including values it
		// refuses (an MTU out of range, above a macvlan's lower's).
		d := g.dev()
		switch g.r.IntN(3) {
		case 0:
			g.emit("link set %s alias %s", d, g.pick("uplink", "x"))
		case 1:
			g.emit("link set %s txqueuelen %s", d, g.pick("0", "5", "1000", "-1"))
		default:
			g.emit("link set %s mtu %s", d, g.pick("0", "67", "1400", "1500", "9000", "65536"))
		}
	case 4:
		// A rename and back: the addresses' labels follow the name.
		d := g.dev()
		g.emit("link set %s name r%s", d, d)
		g.emit("link set r%s name %s", d, d)
	case 0:
		i := g.r.IntN(2)
		a, b := fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)
		g.emit("link add %s address %s type veth peer name %s address %s", a, mac(a), b, mac(b))
		g.devs[a], g.devs[b] = true, true
	case 1:
		i := g.r.IntN(2)
		m := fmt.Sprintf("m%d", i)
		g.emit("link add %s link a%d address %s type macvlan mode %s", m, i, mac(m), g.pick("bridge", "private", "vepa"))
		if g.devs[fmt.Sprintf("a%d", i)] {
			g.devs[m] = true
		}
	default:
		g.del(g.dev())
	}
}

// del deletes a device and forgets what goes with it.
func (g *gen) del(d string) {
	g.emit("link del %s", d)
	delete(g.devs, d)
	// A veth takes its peer along; a macvlan goes with its lower.
	switch d[0] {
	case 'a':
		delete(g.devs, "b"+d[1:])
		delete(g.devs, "m"+d[1:])
	case 'b':
		if d == "br0" {
			g.brUp, g.brSTP = false, false
			break
		}
		delete(g.devs, "a"+d[1:])
		delete(g.devs, "m"+d[1:])
	}
}

// upDown sets a device up or down. A bridge running STP is never set up:
// its ports would then pass through the listening and learning states on
// the real kernel's timers.
func (g *gen) upDown() {
	d, op := g.dev(), g.pick("up", "up", "down")
	if d == "br0" {
		if op == "up" && g.brSTP {
			op = "down"
		}
		g.brUp = op == "up"
	}
	g.emit("link set %s %s", d, op)
}

// bridge creates br0 (with some of its attributes), deletes it, changes
// its attributes, enslaves devices to it and releases them, and sets its
// ports' attributes. Bridges are created with their address, since show
// commands print it.
func (g *gen) bridge() {
	switch g.r.IntN(9) {
	case 0, 1:
		var attrs []string
		stp := false
		for range g.r.IntN(3) {
			a := g.bridgeAttr(false)
			stp = stp || a == "stp_state 1"
			attrs = append(attrs, a)
		}
		g.emit("link add br0 address %s type bridge %s", mac("br0"), strings.Join(attrs, " "))
		if !g.devs["br0"] {
			g.devs["br0"], g.brUp, g.brSTP = true, false, stp
		}
	case 2:
		g.del("br0")
	case 3, 4:
		d := g.dev()
		if d == "br0" && g.chance(0.7) {
			d = "a0"
		}
		g.emit("link set %s master br0", d)
	case 5:
		g.emit("link set %s nomaster", g.dev())
	case 6:
		a := g.bridgeAttr(g.brUp)
		g.emit("link set br0 type bridge %s", a)
		if g.devs["br0"] && a == "stp_state 1" {
			g.brSTP = true
		} else if a == "stp_state 0" {
			g.brSTP = false
		}
	case 7:
		g.emit("link set %s type bridge_slave %s", g.dev(), g.pick("cost 5", "priority 12", "learning off", "flood off",
			"hairpin on", "guard on", "state 3", "mcast_router 2", "neigh_suppress on", "group_fwd_mask 8", "cost 0"))
	default:
		op := g.pick("up", "down")
		if op == "up" && g.brSTP {
			op = "down"
		}
		g.emit("link set br0 %s", op)
		if g.devs["br0"] {
			g.brUp = op == "up"
		}
	}
}

// bridgeAttr returns one of a bridge's attributes with a value, now and
// then one the kernel or ip refuses. With up, not STP (see upDown).
func (g *gen) bridgeAttr(up bool) string {
	a := g.pick("stp_state 1", "stp_state 0", "forward_delay 400", "forward_delay 100", "hello_time 300",
		"max_age 1000", "ageing_time 3000", "priority 100", "mcast_snooping 0", "mcast_snooping 1",
		"vlan_filtering 1", "group_fwd_mask 0x8", "group_fwd_mask 0x1", "mcast_router 2")
	if up && a == "stp_state 1" {
		a = "stp_state 0"
	}
	return a
}

// lifetimes are the address lifetimes drawn: forever, 0 or multiples of
// 100 s, which the harness's dumps show rounded up to a multiple of 100 s
// (see normalize), so that the seconds passing during a run do not show.
var lifetimes = []string{
	"valid_lft forever", "preferred_lft forever", "valid_lft forever preferred_lft forever",
	"valid_lft 86400 preferred_lft 3600", "valid_lft 604800", "preferred_lft 0",
	"valid_lft forever preferred_lft 0", "valid_lft 3600 preferred_lft 7200", "valid_lft 0",
	"valid_lft 7200 preferred_lft 7200",
}

// addr adds, replaces, changes or deletes an IPv4 address (with a peer,
// label, scope, broadcast, noprefixroute and lifetimes now and
// then), flushes addresses by a selector, or shows them through a filter.
func (g *gen) addr() {
	switch k := g.r.IntN(20); {
	case k < 1:
		g.emit("%saddr flush %s", g.pick("-4 ", "-4 ", ""), g.addrFilter(true))
		return
	case k < 4:
		g.emit("%saddr show %s", g.pick("-4 ", "-4 ", ""), g.addrFilter(false))
		return
	}
	s, h := g.r.IntN(4), 1+g.r.IntN(6)
	l := []int{24, 24, 24, 16, 28, 32}[g.r.IntN(6)]
	op := g.pick("add", "add", "add", "del", "replace", "change")
	if op == "del" && len(g.addrs) > 0 && g.chance(0.7) {
		// One added before (which may be gone).
		i := g.r.IntN(len(g.addrs))
		g.emit("addr del %s", g.addrs[i])
		g.addrs = append(g.addrs[:i], g.addrs[i+1:]...)
		return
	}
	if op != "del" {
		g.subnets = append(g.subnets, s)
	}
	d := g.dev()
	spec := fmt.Sprintf("10.0.%d.%d/%d", s, h, l)
	if op != "del" {
		g.addrs = append(g.addrs, spec+" dev "+d)
	}
	if g.chance(0.08) {
		// A point-to-point address: the prefix route goes to the peer's.
		spec = fmt.Sprintf("10.0.%d.%d peer 10.0.%d.%d/%d", s, h, g.r.IntN(4), 1+g.r.IntN(6), l)
	}
	if g.chance(0.1) {
		spec += " label " + g.pick(d+":1", d+":x", d, "zz:1")
	}
	if g.chance(0.12) {
		spec += " scope " + g.pick("link", "host", "global", "200")
	}
	if g.chance(0.05) {
		spec += " brd " + g.pick("+", "-", "10.0.0.255")
	}
	if g.chance(0.08) {
		spec += " noprefixroute"
	}
	if op != "del" && g.chance(0.25) {
		spec += " " + lifetimes[g.r.IntN(len(lifetimes))]
	}
	g.emit("addr %s %s dev %s", op, spec, d)
}

// addrFilter returns the selectors of an addr show or flush: a device, a
// prefix, flags, a label pattern, a scope, or (show only) link filters.
func (g *gen) addrFilter(flush bool) string {
	var f []string
	if g.chance(0.5) {
		f = append(f, "dev "+g.dev())
	}
	n := 1
	if !flush {
		n = g.r.IntN(3)
	}
	for range n {
		c := g.pick("secondary", "primary", "-secondary", "dynamic", "permanent", "-dynamic", "deprecated",
			"noprefixroute", "label a0:*", "label b?", "label *", "scope link", "scope host", "scope global",
			"to 10.0.1.0/24", "to 10.0.0.0/16", "up", "master br0", "type veth", "type bridge", "group default")
		if flush && (c == "up" || strings.HasPrefix(c, "master") || strings.HasPrefix(c, "type") || c == "group default") {
			c = "secondary"
		}
		f = append(f, c)
	}
	return strings.Join(f, " ")
}

// fwd returns a route's forwarding part: via a gateway, a device,
// a nexthop object or several nexthops.
func (g *gen) fwd() string {
	switch g.r.IntN(10) {
	case 0, 1, 2:
		if g.chance(0.6) {
			return fmt.Sprintf("via %s dev %s", g.host(), g.dev())
		}
		return "via " + g.host()
	case 3, 4:
		return "dev " + g.dev()
	case 5:
		return "dev " + g.dev() + " scope link"
	case 6, 7:
		return fmt.Sprintf("nhid %d", g.nhid())
	case 8:
		return fmt.Sprintf("nexthop via %s dev %s nexthop via %s dev %s weight %d",
			g.host(), g.dev(), g.host(), g.dev(), 1+g.r.IntN(3))
	}
	return "via " + g.host() + " dev " + g.dev() + " onlink"
}

func (g *gen) route() {
	op := g.pick("add", "add", "add", "add", "append", "replace", "prepend", "change")
	pfx := g.prefix()
	if len(g.routes) > 0 && g.chance(0.2) {
		// The same prefix again: duplicates, replaces, appends.
		pfx = g.usedPrefix(g.routes)
	}
	tbl := g.table()
	// The options come before the forwarding part: ip takes nothing but
	// "nexthop" after a multipath route's first nexthop.
	spec := pfx + tbl
	if g.chance(0.1) {
		spec = g.pick("blackhole", "unreachable", "prohibit") + " " + spec
	} else if g.chance(0.03) {
		spec = g.pick("local", "broadcast") + " " + spec
	}
	if g.chance(0.1) {
		spec += " src " + g.host()
	}
	if g.chance(0.05) {
		spec += " tos " + g.pick("0x10", "0x08")
	}
	if g.chance(0.25) {
		spec += fmt.Sprintf(" metric %d", g.pick3(0, 10, 100))
	}
	if g.chance(0.1) {
		spec += " proto " + g.pick("static", "boot", "42")
	}
	for g.chance(0.15) {
		spec += " " + g.pick(routeMetrics...)
	}
	if !strings.HasPrefix(spec, "blackhole") && !strings.HasPrefix(spec, "unreachable") && !strings.HasPrefix(spec, "prohibit") {
		if strings.HasPrefix(spec, "local") || strings.HasPrefix(spec, "broadcast") {
			spec += " dev " + g.dev()
		} else {
			spec += " " + g.fwd()
		}
	}
	g.emit("route %s %s", op, spec)
	g.routes = append(g.routes, pfx+tbl)
}

// routeMetrics are route metrics ip and the kernel take, and some they
// refuse (out of range, a value ip cannot read).
var routeMetrics = []string{
	"mtu 1400", "mtu lock 1300", "mtu 100000", "advmss 1200", "advmss lock 900", "hoplimit 32", "hoplimit 256",
	"initcwnd 10", "initrwnd 20", "rto_min 200ms", "window 1000", "rtt 100ms", "rttvar lock 50ms",
	"ssthresh 30", "cwnd 40", "reordering 5", "features ecn", "quickack 1", "congctl reno", "congctl lock cubic",
	"fastopen_no_cookie 1", "mtu 1x",
}

func (g *gen) pick3(a, b, c int) int { return []int{a, b, c}[g.r.IntN(3)] }

func (g *gen) routeDel() {
	switch {
	case len(g.routes) > 0 && g.chance(0.8):
		i := g.r.IntN(len(g.routes))
		g.emit("route del %s", g.routes[i])
		g.routes = append(g.routes[:i], g.routes[i+1:]...)
	case g.chance(0.5):
		g.emit("route del %s%s", g.prefix(), g.table())
	default:
		g.emit("route flush table %s", g.pick("100", "200", "main"))
	}
}

// groupMembers draws one to three members of a nexthop group, ids drawn
// by id, now and then with a weight ("ID" or "ID,WEIGHT").
func (g *gen) groupMembers(id func() int) []string {
	var m []string
	for range 1 + g.r.IntN(3) {
		s := fmt.Sprint(id())
		if g.chance(0.3) {
			s += fmt.Sprintf(",%d", 1+g.r.IntN(4))
		}
		m = append(m, s)
	}
	return m
}

func (g *gen) nexthop() {
	id := g.nhid()
	switch k := g.r.IntN(12); {
	case k < 3:
		extra := ""
		if g.chance(0.15) {
			extra = " onlink"
		}
		if g.chance(0.1) {
			extra += " proto " + g.pick("static", "99")
		}
		g.emit("nexthop %s id %d via %s dev %s%s", g.pick("add", "add", "replace"), id, g.host(), g.dev(), extra)
	case k < 4:
		g.emit("nexthop add id %d dev %s", id, g.dev())
	case k < 5:
		g.emit("nexthop %s id %d blackhole", g.pick("add", "replace"), id)
	case k < 8:
		m := g.groupMembers(g.nhid)
		typ := ""
		if g.feat.resilient && g.chance(0.4) {
			if g.chance(0.5) {
				// Members that are likely to exist.
				for _, x := range m {
					id, _, _ := strings.Cut(x, ",")
					g.emit("nexthop replace id %s via 10.0.0.%d dev a0", id, 2+g.r.IntN(3))
				}
			}
			// Timers of 0 (or of minutes, and then the group shows
			// its unbalanced time, which normalize hides).
			typ = fmt.Sprintf(" type resilient buckets %d", []int{4, 8, 16, 6}[g.r.IntN(4)])
			if g.chance(0.7) {
				typ += " idle_timer " + g.pick("0", "0", "120")
			}
			if g.chance(0.5) {
				typ += " unbalanced_timer " + g.pick("0", "300")
			}
		}
		g.emit("nexthop %s id %d group %s%s", g.pick("add", "add", "replace"), id, strings.Join(m, "/"), typ)
	case k < 11:
		if g.feat.resilient && g.chance(0.3) {
			g.nexthopBucket()
			return
		}
		g.emit("nexthop del id %d", id)
	default:
		// With a family, the kernel's dump leaves groups out
		// (nh_dump_filtered).
		g.emit("%snexthop flush", g.pick("", "", "-4 "))
	}
}

func (g *gen) rule() {
	if len(g.rules) > 0 && g.chance(0.3) {
		i := g.r.IntN(len(g.rules))
		g.emit("rule del %s", g.rules[i])
		g.rules = append(g.rules[:i], g.rules[i+1:]...)
		return
	}
	if g.chance(0.02) {
		g.emit("rule flush")
		g.rules = nil
		return
	}
	var sel []string
	if g.chance(0.05) {
		sel = append(sel, "not")
	}
	if g.chance(0.7) {
		sel = append(sel, fmt.Sprintf("pref %d", []int{100, 200, 300, 1000, 32765}[g.r.IntN(5)]))
	}
	if g.chance(0.4) {
		sel = append(sel, "from "+g.prefix())
	}
	if g.chance(0.3) {
		sel = append(sel, "to "+g.prefix())
	}
	if g.chance(0.15) {
		sel = append(sel, "iif "+g.dev())
	}
	if g.chance(0.05) {
		sel = append(sel, "tos "+g.pick("0x10", "0x04"))
	}
	if g.chance(0.15) {
		sel = append(sel, "oif "+g.dev())
	}
	if g.chance(0.2) {
		if g.chance(0.5) {
			sel = append(sel, fmt.Sprintf("fwmark %#x/%#x", g.r.IntN(16), 0xff))
		} else {
			sel = append(sel, fmt.Sprintf("fwmark %d", g.r.IntN(16)))
		}
	}
	var action string
	switch g.r.IntN(10) {
	case 0, 1, 2, 3:
		action = "table " + g.pick("100", "200", "main", "300")
	case 4:
		action = "lookup " + g.pick("100", "local", "default")
	case 5, 6:
		action = fmt.Sprintf("goto %d", []int{200, 300, 1000, 5000}[g.r.IntN(4)])
	case 7:
		action = g.pick("blackhole", "unreachable", "prohibit")
	case 8:
		action = "nop"
	default:
		action = ""
	}
	spec := strings.TrimSpace(strings.Join(sel, " ") + " " + action)
	g.emit("rule add %s", spec)
	if spec != "" {
		g.rules = append(g.rules, spec)
	}
}

// nexthopBucket lists or gets the buckets of resilient groups; the idle
// times they show are hidden by normalize.
func (g *gen) nexthopBucket() {
	switch g.r.IntN(4) {
	case 0:
		g.emit("nexthop bucket get id %d index %d", g.nhid(), g.r.IntN(10))
	default:
		f := g.pick("", "", fmt.Sprintf(" id %d", g.nhid()), fmt.Sprintf(" nhid %d", g.nhid()), " dev "+g.dev())
		g.emit("nexthop bucket show%s", f)
	}
}

// maddr adds or deletes a link-layer multicast address, or lists a
// device's groups.
func (g *gen) maddr() {
	d := g.dev()
	switch g.r.IntN(4) {
	case 0, 1:
		if len(g.maddrs) > 0 && g.chance(0.4) {
			i := g.r.IntN(len(g.maddrs))
			g.emit("maddr del %s", g.maddrs[i])
			g.maddrs = append(g.maddrs[:i], g.maddrs[i+1:]...)
			return
		}
		a := fmt.Sprintf("01:00:5e:00:00:%02x dev %s", 1+g.r.IntN(3), d)
		g.maddrs = append(g.maddrs, a)
		g.emit("maddr add %s", a)
	case 2:
		g.emit("maddr %s %s dev %s", g.pick("add", "del"), g.pick("33:33:00:00:00:09", "02:00:00:00:00:01", "01:00:5e:00:00:01"), d)
	default:
		g.emit("maddr show dev %s", d)
	}
}

// show runs one of the show commands, with a filter now and then, under
// output options netsim's ip has for it (features).
func (g *gen) show() {
	if len(g.feat.show) == 0 {
		return
	}
	c := g.feat.show[g.r.IntN(len(g.feat.show))]
	opt := ""
	if len(c.opts) > 0 && g.chance(0.8) {
		opt = c.opts[g.r.IntN(len(c.opts))] + " "
	}
	args := c.args
	if c.devFilter != "" && g.chance(0.3) {
		args += " " + c.devFilter + " " + g.dev()
	}
	g.emit("%s%s", opt, args)
}
