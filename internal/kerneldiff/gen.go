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
	"dummy, vlan, bond and vrf devices: the real kernel the harness runs on may lack their modules (veth and macvlan only)",
	"bridge devices: linkwatch applies a bridge's operstate up to a second after its carrier changes, past the harness's wait",
	"IPv6 routes and addresses: netsim has no IPv6 routing (a non-goal), and the kernel's IPv6 multicast joins finish in workqueues",
	"route encapsulations: netsim's iproute refuses them by name; route metrics (mtu, advmss, rtt, ...) are not generated (iproute's testdata/route_metrics.txt has the kernel's answers)",
	"changing the loopback device's address: netsim refuses it (testdata/differences.txt in iproute)",
	"several primary IPv4 addresses of different scopes on one device: their order (__inet_insert_ifa) is not netsim's",
	"the loopback device: the harness's dump separators are `ip link show dev lo`",
}

// Generate returns a random command sequence of about n steps, a
// deterministic function of seed: devices (veth pairs and macvlans on
// them), addresses, routes, nexthops and groups, rules, device up/down and
// deletion, with a share of deliberately invalid commands (gateways not
// reachable, duplicates, deletions of missing objects, groups with missing
// members, non-canonical prefixes).
func Generate(seed uint64, n int) []Step {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x6b65726e656c)), devs: map[string]bool{}}
	g.emit("link add a0 type veth peer name b0")
	g.emit("link set a0 up")
	g.emit("link set b0 up")
	g.emit("addr add 10.0.0.1/24 dev a0")
	g.devs["a0"], g.devs["b0"] = true, true
	g.subnets = []int{0}
	for len(g.steps) < n {
		g.step()
	}
	return g.steps
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
	steps   []Step
	devs    map[string]bool // devices believed to exist
	routes  []string        // route specs added ("PFX [table T]"), for deletion
	rules   []string        // rule specs added, for deletion
	subnets []int           // S of the 10.0.S.0/24 subnets addresses were added in
}

func (g *gen) emit(format string, a ...any) {
	g.steps = append(g.steps, Step{Args: strings.Fields(fmt.Sprintf(format, a...))})
}

func (g *gen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// dev returns a device name, usually one believed to exist.
func (g *gen) dev() string {
	all := []string{"a0", "b0", "a1", "b1", "m0", "m1"}
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
	switch k := g.r.IntN(106); {
	case k < 6:
		g.link()
	case k < 14:
		g.upDown()
	case k < 24:
		g.addr()
	case k < 52:
		g.route()
	case k < 70:
		g.nexthop()
	case k < 90:
		g.rule()
	case k < 92:
		g.rule6()
	case k < 100:
		g.routeDel()
	default:
		g.routeGet()
	}
}

// routeGet asks for the route to an address near the routes and subnets
// used, or to a special address: the output route, now and then with a
// source, an output device, a mark or a TOS, or the input route of a
// packet from a given source on a given device.
func (g *gen) routeGet() {
	var dst string
	switch k := g.r.IntN(10); {
	case k < 4 && len(g.routes) > 0:
		p := strings.Fields(g.routes[g.r.IntN(len(g.routes))])[0]
		if i := strings.IndexByte(p, '/'); i >= 0 {
			p = p[:i]
		}
		dst = p
	case k < 8:
		dst = g.host()
	default:
		dst = g.pick("0.0.0.0", "127.0.0.1", "255.255.255.255", "224.0.0.1", "10.0.0.255", "192.0.2.77")
	}
	spec := dst
	if g.chance(0.2) {
		// An input route: of a packet from a neighbour, one of this
		// host's addresses or a martian.
		spec += " from " + g.pick("10.0.0.2", "10.0.1.9", "10.0.0.1", "192.0.2.5", "127.0.0.1", "224.0.0.9") + " iif " + g.dev()
	} else if g.chance(0.2) {
		spec += " from " + g.pick("10.0.0.1", "10.0.1.1", "10.0.0.2", "127.0.0.1", "0.0.0.0")
	}
	if g.chance(0.2) {
		spec += " oif " + g.dev()
	}
	if g.chance(0.1) {
		spec += fmt.Sprintf(" mark %d", g.r.IntN(16))
	}
	if g.chance(0.05) {
		spec += " tos " + g.pick("0x10", "0x08")
	}
	g.emit("route get %s", spec)
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
		g.emit("link add a%d type veth peer name b%d", i, i)
		g.devs[fmt.Sprintf("a%d", i)], g.devs[fmt.Sprintf("b%d", i)] = true, true
	case 1:
		i := g.r.IntN(2)
		g.emit("link add m%d link a%d type macvlan mode %s", i, i, g.pick("bridge", "private", "vepa"))
		if g.devs[fmt.Sprintf("a%d", i)] {
			g.devs[fmt.Sprintf("m%d", i)] = true
		}
	default:
		d := g.dev()
		g.emit("link del %s", d)
		delete(g.devs, d)
		// A veth takes its peer along; a macvlan goes with its lower.
		switch d[0] {
		case 'a':
			delete(g.devs, "b"+d[1:])
			delete(g.devs, "m"+d[1:])
		case 'b':
			delete(g.devs, "a"+d[1:])
			delete(g.devs, "m"+d[1:])
		}
	}
}

func (g *gen) upDown() {
	g.emit("link set %s %s", g.dev(), g.pick("up", "up", "down"))
}

func (g *gen) addr() {
	s, h := g.r.IntN(4), 1+g.r.IntN(6)
	l := []int{24, 24, 24, 16, 28, 32}[g.r.IntN(6)]
	if g.chance(0.05) {
		g.emit("addr flush dev %s", g.dev())
		return
	}
	op := g.pick("add", "add", "add", "del")
	if op == "add" {
		g.subnets = append(g.subnets, s)
	}
	g.emit("addr %s 10.0.%d.%d/%d dev %s", op, s, h, l, g.dev())
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
		pfx = strings.Fields(g.routes[g.r.IntN(len(g.routes))])[0]
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
		var m []string
		for range 1 + g.r.IntN(3) {
			s := fmt.Sprint(g.nhid())
			if g.chance(0.3) {
				s += fmt.Sprintf(",%d", 1+g.r.IntN(4))
			}
			m = append(m, s)
		}
		g.emit("nexthop %s id %d group %s", g.pick("add", "add", "replace"), id, strings.Join(m, "/"))
	case k < 11:
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

// rule6 adds or deletes an IPv6 rule: the rule lists are per family, and
// the IPv6 one is dumped only for sequences that have one.
func (g *gen) rule6() {
	pref := []int{100, 200, 32765}[g.r.IntN(3)]
	switch g.r.IntN(3) {
	case 0:
		g.emit("-6 rule del pref %d", pref)
	case 1:
		g.emit("-6 rule add pref %d from 2001:db8:%x::/48 table %s", pref, g.r.IntN(4), g.pick("100", "main"))
	default:
		g.emit("-6 rule add pref %d %s", pref, g.pick("table 100", "goto 200", "blackhole", "fwmark 0x1 table main"))
	}
}
