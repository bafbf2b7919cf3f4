package rtnl_test

import (
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

var (
	flagAtomSeed  = flag.Uint64("rtnl.atomseed", 0, "run TestFailureAtomicity with this seed only")
	flagAtomSeeds = flag.Int("rtnl.atomseeds", 200, "sequences TestFailureAtomicity runs (a quarter with -short)")
	flagAtomSteps = flag.Int("rtnl.atomsteps", 120, "requests per sequence in TestFailureAtomicity")
	flagAtomFrom  = flag.Uint64("rtnl.atomfrom", 1, "first seed of TestFailureAtomicity")
)

// TestFailureAtomicity drives seeded random sequences of requests, valid and
// invalid, through a Handle: links (add of every kind, delete by name,
// index, group and list, up and down, master, name, MTU, group, address),
// addresses, routes (add, append, prepend, replace, change, delete),
// nexthops and groups (add, replace, delete) and rules of both families.
// Around every request that fails it compares a full dump of the kernel
// (devices with their flags, addresses, IPv6 state and hardware address
// lists; the routes of all tables; fib_triestat; nexthops; rules) taken
// before and after, the kernel settled both times: the two must be
// byte-identical. After every request it runs Kernel.CheckInvariants, and
// checks that every device that went away was released (no reference, no
// address left). Counters are not compared. Rerun a failing sequence with
// -rtnl.atomseed=N.
func TestFailureAtomicity(t *testing.T) {
	seeds := *flagAtomSeeds
	if testing.Short() {
		seeds /= 4
	}
	list := make([]uint64, 0, seeds)
	for s := range seeds {
		list = append(list, *flagAtomFrom+uint64(s))
	}
	if *flagAtomSeed != 0 {
		list = []uint64{*flagAtomSeed}
	}
	failed, total := 0, 0
	byOp := map[string][2]int{} // requests and failures by request kind
	for _, seed := range list {
		f, n := runAtomicity(t, seed, *flagAtomSteps, byOp)
		failed += f
		total += n
		if t.Failed() {
			return
		}
	}
	t.Logf("%d sequences, %d requests, %d failed", len(list), total, failed)
	for _, op := range slices.Sorted(maps.Keys(byOp)) {
		t.Logf("  %-20s %6d requests, %6d failed", op, byOp[op][0], byOp[op][1])
	}
	// The sequences must exercise both outcomes, or the test proves little.
	if len(list) > 10 && (failed < total/10 || failed > total*9/10) {
		t.Fatalf("%d of %d requests failed: the generator is off balance", failed, total)
	}
}

// atomDump is the state compared around a failed request.
func atomDump(tb testing.TB, k *rtnl.Kernel, t *sim.Task) string {
	tb.Helper()
	s := snapshot(tb, k, t) // settles
	s.Counters = nil
	var b strings.Builder
	// The kinds' data are pointers: printed by value, then left out.
	for _, name := range append([]string{""}, s.Names...) {
		for i := range s.Nets[name].Links {
			l := &s.Nets[name].Links[i]
			fmt.Fprintf(&b, "kind data %q %d:", name, l.Index)
			for _, v := range []any{l.Bridge, l.BridgePort, l.Bond, l.BondSlave, l.Vlan, l.Macvlan} {
				if rv := reflect.ValueOf(v); !rv.IsNil() {
					fmt.Fprintf(&b, " %+v", rv.Elem().Interface())
				}
			}
			b.WriteString("\n")
			l.Bridge, l.BridgePort, l.Bond, l.BondSlave, l.Vlan, l.Macvlan = nil, nil, nil, nil, nil, nil
		}
	}
	fmt.Fprintf(&b, "%+v\n", s)
	for _, name := range append([]string{""}, s.Names...) {
		fmt.Fprintf(&b, "netns %q\n", name)
		h := k.Net(name).Handle(t)
		routes, err := h.RouteList(rt.FamilyInet, 0)
		if err != nil {
			tb.Fatal(err)
		}
		for _, r := range routes {
			fmt.Fprintf(&b, "route %+v\n", r)
		}
		ts, err := h.TrieStat()
		if err != nil {
			tb.Fatal(err)
		}
		b.WriteString(dropEmptyTables(ts, routes))
		routes6, err := h.RouteList(rt.FamilyInet6, 0)
		if err != nil {
			tb.Fatal(err)
		}
		for _, r := range routes6 {
			fmt.Fprintf(&b, "route6 %+v\n", r)
		}
		rs6, err := h.RT6Stats()
		if err != nil {
			tb.Fatal(err)
		}
		b.WriteString(rs6)
		nhs, err := h.NexthopList()
		if err != nil {
			tb.Fatal(err)
		}
		for _, nh := range nhs {
			fmt.Fprintf(&b, "nexthop %+v\n", nh)
		}
		for _, fam := range []rt.Family{rt.FamilyInet, rt.FamilyInet6} {
			rules, err := h.RuleList(fam)
			if err != nil {
				tb.Fatal(err)
			}
			for _, r := range rules {
				fmt.Fprintf(&b, "rule %d %+v\n", fam, r)
			}
		}
	}
	return b.String()
}

// dropEmptyTables removes from fib_triestat the tables without a route of
// their own (local, while it shares main's trie, shows main's). A route
// request creates its table before it can fail, and the table stays, in the
// kernel too (inet_rtm_newroute calls fib_new_table before
// fib_table_insert): that one change of a failed request is not compared.
func dropEmptyTables(ts string, routes []rtnl.RouteInfo) string {
	used := map[string]bool{}
	for _, r := range routes {
		switch r.Table {
		case 254:
			used["Main:"] = true
		case 255:
			used["Local:"] = true
		default:
			used[fmt.Sprintf("Id %d:", r.Table)] = true
		}
	}
	var out, block []string
	keep := true
	flush := func() {
		if keep {
			out = append(out, block...)
		}
		block, keep = nil, true
	}
	for _, l := range strings.Split(ts, "\n") {
		if strings.HasPrefix(l, "Id ") || l == "Main:" || l == "Local:" {
			flush()
			keep = used[l]
		}
		block = append(block, l)
	}
	flush()
	return strings.TrimRight(strings.Join(out, "\n"), "\n") + "\n"
}

// atomGen draws requests from small pools of names, ids and prefixes, so
// that requests meet each other's objects, with a share of bad values.
type atomGen struct {
	rng *rand.Rand
	h   *rtnl.Handle // init_net's
	k   *rtnl.Kernel
	// ns is the handle of the other namespace ("ns1"), nil before the
	// first is created; it stays, dead, when the namespace is deleted.
	ns *rtnl.Handle
}

var (
	atomNames   = []string{"d0", "d1", "d2", "va", "vb", "mv0", "vl5", "b0", "vrf0", "lo", "nope", "", "bad/name", "sixteen-bytes-xx"}
	atomNewName = []string{"d0", "d1", "d2", "d3", "va", "vb", "mv0", "mv1", "vl5", "vl6", "b0", "vrf0", "x%d", "lo", "", "a:b", "sixteen-bytes-xx"}
	atomV4      = []string{"192.0.2.1/24", "192.0.2.2/24", "192.0.2.1/25", "198.51.100.1/24", "10.0.0.1/8", "10.1.2.3/32", "0.0.0.0/0", "224.0.0.5/24"}
	atomV6      = []string{"2001:db8::1/64", "2001:db8::2/64", "2001:db8:1::1/48", "fe80::5/64", "::1/128"}
	atomDst     = []string{"10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24", "10.1.2.3/32", "0.0.0.0/0", "203.0.113.0/24", "10.1.2.0/16", "192.0.2.0/24", "2001:db8::/64", "2001:db8:1::/48", "::/0", "2001:db8::5/128", "fe80::/64"}
	atomGW      = []string{"", "", "192.0.2.9", "198.51.100.7", "192.0.2.9", "198.51.100.7", "10.9.9.9", "2001:db8::9", "192.0.2.1", "fe80::1", "2001:db8::2"}
	atomTables  = []uint32{0, 0, 254, 255, 253, 100, 200}
)

func (g *atomGen) pick(s []string) string { return s[g.rng.IntN(len(s))] }

// name is mostly a device of the kind the sequence creates, sometimes a
// missing or invalid one.
func (g *atomGen) name() string {
	if g.rng.IntN(5) == 0 {
		return g.pick(atomNames)
	}
	return atomNames[g.rng.IntN(10)]
}

func (g *atomGen) attrs() netdev.Attrs {
	var a netdev.Attrs
	switch g.rng.IntN(12) {
	case 0:
		a.MTU = []int{0, 67, 1280, 9000, 70000}[g.rng.IntN(5)]
	case 1:
		a.Index = netdev.IfIndex(g.rng.IntN(8) - 1)
	case 2:
		a.Group = uint32(g.rng.IntN(3))
	case 3:
		a.Addr = netdev.MAC{byte(g.rng.IntN(2)), 0, 0x5e, 0, 0, byte(g.rng.IntN(4))}
	}
	return a
}

func (g *atomGen) linkSpec() netdev.LinkSpec {
	n := g.pick(atomNewName)
	switch g.rng.IntN(8) {
	case 0, 1:
		return netdev.Dummy{Name: n, Attrs: g.attrs()}
	case 2:
		return netdev.Veth{Name: n, Peer: g.pick(atomNewName), Attrs: g.attrs(), PeerAttrs: g.attrs()}
	case 3:
		mode := []netdev.MacvlanMode{0, netdev.MacvlanBridge, netdev.MacvlanPassthru, netdev.MacvlanPrivate, 3}[g.rng.IntN(5)]
		return netdev.Macvlan{Name: n, Link: g.name(), Mode: mode, Attrs: g.attrs()}
	case 4:
		return netdev.Vlan{Name: n, Link: g.name(), ID: []uint16{5, 6, 0, 4095, 7}[g.rng.IntN(5)], Attrs: g.attrs()}
	case 5:
		return netdev.Bond{Name: n, Mode: netdev.BondMode(g.rng.IntN(8)), Attrs: g.attrs()}
	case 6:
		return netdev.VRF{Name: n, Table: []uint32{10, 0, 254, 100}[g.rng.IntN(4)], Attrs: g.attrs()}
	}
	return nil
}

func (g *atomGen) prefix(pool []string) netip.Prefix {
	if g.rng.IntN(12) == 0 {
		return netip.Prefix{}
	}
	return netip.MustParsePrefix(g.pick(pool))
}

func (g *atomGen) addr(s string) netip.Addr {
	if s == "" {
		return netip.Addr{}
	}
	return netip.MustParseAddr(s)
}

func (g *atomGen) route() rtnl.Route {
	r := rtnl.Route{Dst: g.prefix(atomDst), Table: atomTables[g.rng.IntN(len(atomTables))]}
	switch g.rng.IntN(10) {
	case 0:
		r.Type = []fib.Type{fib.TypeBlackhole, fib.TypeUnreachable, fib.TypeProhibit, fib.TypeLocal, fib.TypeThrow, fib.TypeNAT, 42}[g.rng.IntN(7)]
	case 1, 2:
		r.NexthopID = nexthop.ID(g.rng.IntN(10))
	case 3:
		r.Multipath = []rtnl.RoutePath{
			{Gateway: g.addr(g.pick(atomGW)), Dev: g.name(), Weight: g.rng.IntN(3)},
			{Gateway: g.addr(g.pick(atomGW)), Dev: g.name(), Weight: []int{1, 0, 256, 257}[g.rng.IntN(4)]},
		}
	default:
		r.Gateway = g.addr(g.pick(atomGW))
		if !r.Gateway.IsValid() || g.rng.IntN(3) == 0 {
			r.Dev = g.name()
		}
		r.OnLink = g.rng.IntN(8) == 0
	}
	if g.rng.IntN(8) == 0 {
		r.Scope = []fib.Scope{fib.ScopeLink, fib.ScopeHost, fib.ScopeUniverse, fib.ScopeNowhere}[g.rng.IntN(4)]
	}
	if g.rng.IntN(8) == 0 {
		r.TOS = []uint8{0x10, 0x03, 0x08}[g.rng.IntN(3)]
	}
	if g.rng.IntN(3) == 0 {
		r.Priority = uint32(g.rng.IntN(3))
	}
	if g.rng.IntN(10) == 0 {
		r.PrefSrc = g.addr([]string{"192.0.2.1", "10.7.7.7", "2001:db8::1"}[g.rng.IntN(3)])
	}
	if g.rng.IntN(6) == 0 {
		r.Protocol = fib.ProtoStatic
	}
	return r
}

func (g *atomGen) nexthop() rtnl.NexthopRequest {
	nh := rtnl.NexthopRequest{ID: nexthop.ID(g.rng.IntN(10))}
	switch g.rng.IntN(6) {
	case 0:
		nh.Blackhole = true
		if g.rng.IntN(4) == 0 {
			nh.Dev = g.name()
		}
	case 1, 2:
		for range g.rng.IntN(4) {
			nh.Group = append(nh.Group, nexthop.GroupEntry{ID: nexthop.ID(g.rng.IntN(10)), Weight: []uint32{0, 1, 5, 255, 256}[g.rng.IntN(5)]})
		}
		if nh.Group == nil {
			nh.Group = []nexthop.GroupEntry{}
		}
		if g.rng.IntN(4) == 0 {
			nh.GroupType = nexthop.GroupResilient
			if k := g.rng.IntN(6); k > 0 {
				nh.Resilient = &nexthop.ResilientConfig{Buckets: uint16(k - 1), HasBuckets: g.rng.IntN(4) > 0,
					IdleTimer: time.Duration(g.rng.IntN(3)) * time.Second, HasIdleTimer: g.rng.IntN(2) == 0}
			}
		}
	default:
		nh.Gateway = g.addr(g.pick(atomGW))
		nh.Dev = g.name()
		if g.rng.IntN(8) == 0 {
			nh.NHFlags = rt.FlagOnLink
		}
		if g.rng.IntN(8) == 0 {
			nh.Family = syscall.AF_INET6
		}
	}
	if g.rng.IntN(4) == 0 {
		nh.Protocol = 4
	}
	if g.rng.IntN(8) == 0 {
		// An fdb nexthop or group; with a device, blackhole or onlink the
		// kernel refuses it.
		nh.FDB = true
		if g.rng.IntN(3) > 0 {
			nh.Dev = ""
		}
	}
	return nh
}

func (g *atomGen) rule(fam rt.Family) fibrules.Rule {
	r := fibrules.Rule{Action: fibrules.ActToTable, Table: []uint32{0, 100, 200, 254}[g.rng.IntN(4)]}
	if g.rng.IntN(4) != 0 {
		r.Pref, r.Attrs = uint32(10*g.rng.IntN(6)), fibrules.AttrPriority
	}
	switch g.rng.IntN(10) {
	case 0, 1:
		r.Action, r.Table, r.Goto = fibrules.ActGoto, 0, uint32(10*g.rng.IntN(7))
	case 2:
		r.Action = []fibrules.Action{fibrules.ActNop, fibrules.ActBlackhole, fibrules.ActUnreachable, fibrules.ActProhibit, fibrules.ActUnspec, 42}[g.rng.IntN(6)]
		r.Table = 0
	case 3:
		r.Goto = 50 // a goto target without the goto action
	}
	if g.rng.IntN(3) == 0 {
		r.IIF = g.name()
	}
	if g.rng.IntN(4) == 0 {
		r.OIF = g.name()
	}
	if g.rng.IntN(4) == 0 {
		r.Src = g.prefix(append(append([]string{}, atomDst...), atomV6...))
	}
	if g.rng.IntN(6) == 0 {
		r.TOS = []uint8{0x10, 0x01}[g.rng.IntN(2)]
	}
	if g.rng.IntN(6) == 0 {
		r.FwMark = uint32(g.rng.IntN(3))
	}
	if g.rng.IntN(10) == 0 {
		r.Attrs |= fibrules.AttrUIDRange
		r.UID = fibrules.UIDRange{Start: uint32(g.rng.IntN(3)), End: uint32(g.rng.IntN(3))}
	}
	if g.rng.IntN(10) == 0 {
		r.L3MDev = true
	}
	return r
}

// request draws one request and returns its description and the call.
// One in ten requests goes to the other namespace, if there is one.
func (g *atomGen) request() (string, func() error) {
	if g.rng.IntN(30) == 0 {
		return g.netnsRequest()
	}
	h, where := g.h, ""
	if g.ns != nil && g.rng.IntN(10) == 0 {
		h, where = g.ns, "ns1: "
	}
	desc, fn := g.requestOn(h)
	return where + desc, fn
}

// netnsRequest draws the creation or deletion of a namespace.
func (g *atomGen) netnsRequest() (string, func() error) {
	name := g.pick([]string{"ns1", "ns1", "ns2", "", "a/b"})
	t := g.h.Task()
	if g.rng.IntN(3) == 0 {
		return fmt.Sprintf("DelNet(%q)", name), func() error { return g.k.DelNet(t, name) }
	}
	return fmt.Sprintf("NewNet(%q)", name), func() error {
		n, err := g.k.NewNet(t, name)
		if err == nil && name == "ns1" {
			g.ns = n.Handle(t)
		}
		return err
	}
}

// requestOn draws one request made through h.
func (g *atomGen) requestOn(h *rtnl.Handle) (string, func() error) {
	switch k := g.rng.IntN(100); {
	case k < 12:
		s := g.linkSpec()
		return fmt.Sprintf("LinkAdd(%#v)", s), func() error { return h.LinkAdd(s) }
	case k < 16:
		n := g.name()
		return fmt.Sprintf("LinkDel(%q)", n), func() error { return h.LinkDel(n) }
	case k < 18:
		i := netdev.IfIndex(g.rng.IntN(12) - 1)
		return fmt.Sprintf("DelLink(index %d)", i), func() error { return h.DelLink(rtnl.LinkRequest{Index: i}) }
	case k < 19:
		grp := uint32(g.rng.IntN(3))
		return fmt.Sprintf("LinkDelGroup(%d)", grp), func() error { return h.LinkDelGroup(grp) }
	case k < 21:
		var idx []netdev.IfIndex
		for range g.rng.IntN(4) {
			idx = append(idx, netdev.IfIndex(g.rng.IntN(12)))
		}
		return fmt.Sprintf("LinkDelList(%v)", idx), func() error { return h.LinkDelList(idx) }
	case k < 30:
		n, up := g.name(), g.rng.IntN(3) != 0
		if up {
			return fmt.Sprintf("LinkSetUp(%q)", n), func() error { return h.LinkSetUp(n) }
		}
		return fmt.Sprintf("LinkSetDown(%q)", n), func() error { return h.LinkSetDown(n) }
	case k < 35:
		n, m := g.name(), g.pick([]string{"b0", "vrf0", "b0", "vrf0", "b0", "vrf0", "d0", "nope", "mv0", "lo"})
		if g.rng.IntN(4) == 0 {
			return fmt.Sprintf("LinkSetNoMaster(%q)", n), func() error { return h.LinkSetNoMaster(n) }
		}
		return fmt.Sprintf("LinkSetMaster(%q, %q)", n, m), func() error { return h.LinkSetMaster(n, m) }
	case k < 37:
		n, nn := g.name(), g.pick(atomNewName)
		return fmt.Sprintf("LinkSetName(%q, %q)", n, nn), func() error { return h.LinkSetName(n, nn) }
	case k < 40:
		n, mtu := g.name(), []int{0, 67, 68, 1280, 1500, 9000, 65535, 65536}[g.rng.IntN(8)]
		return fmt.Sprintf("LinkSetMTU(%q, %d)", n, mtu), func() error { return h.LinkSetMTU(n, mtu) }
	case k < 41:
		n, grp := g.name(), uint32(g.rng.IntN(3))
		return fmt.Sprintf("LinkSetGroup(%q, %d)", n, grp), func() error { return h.LinkSetGroup(n, grp) }
	case k < 43:
		n := g.name()
		mac := netdev.MAC{byte(g.rng.IntN(2)) * 2, 0x11, 0x22, 0x33, 0x44, byte(g.rng.IntN(3))}
		if g.rng.IntN(4) == 0 {
			mac[0] |= 1 // multicast: refused
		}
		return fmt.Sprintf("LinkSetHardwareAddr(%q, %v)", n, mac), func() error { return h.LinkSetHardwareAddr(n, mac) }
	case k < 53:
		n := g.name()
		p := g.prefix(atomV4)
		if g.rng.IntN(3) == 0 {
			p = g.prefix(atomV6)
		}
		if g.rng.IntN(3) == 0 {
			return fmt.Sprintf("AddrDel(%q, %v)", n, p), func() error { return h.AddrDel(n, p) }
		}
		return fmt.Sprintf("AddrAdd(%q, %v)", n, p), func() error { return h.AddrAdd(n, p) }
	case k < 70:
		r := g.route()
		mode := g.rng.IntN(7)
		name := []string{"RouteAdd", "RouteAdd", "RouteAppend", "RoutePrepend", "RouteReplace", "RouteChange", "RouteDel"}[mode]
		fn := []func(rtnl.Route) error{h.RouteAdd, h.RouteAdd, h.RouteAppend, h.RoutePrepend, h.RouteReplace, h.RouteChange, h.RouteDel}[mode]
		if mode == 6 && g.rng.IntN(2) == 0 {
			r = rtnl.Route{Dst: r.Dst, Table: r.Table, TOS: r.TOS} // `ip route del PREFIX [table T]`
		}
		return fmt.Sprintf("%s(%+v)", name, r), func() error { return fn(r) }
	case k < 82:
		if g.rng.IntN(4) == 0 {
			id := nexthop.ID(g.rng.IntN(10))
			if g.rng.IntN(3) == 0 {
				// RTM_DELNEXTHOP with what else ip nexthop del may send.
				r := rtnl.NexthopDelRequest{ID: id, HasID: g.rng.IntN(6) > 0, Other: g.rng.IntN(4) == 0}
				if g.rng.IntN(4) == 0 {
					r.Header.Protocol = 4
				}
				return fmt.Sprintf("DelNexthop(%+v)", r), func() error { return h.DelNexthop(r) }
			}
			return fmt.Sprintf("NexthopDel(%d)", id), func() error { return h.NexthopDel(id) }
		}
		nh := g.nexthop()
		if g.rng.IntN(3) == 0 {
			return fmt.Sprintf("NexthopReplace(%+v)", nh), func() error { return h.NexthopReplace(nh) }
		}
		return fmt.Sprintf("NexthopAdd(%+v)", nh), func() error { return h.NexthopAdd(nh) }
	case k < 97:
		fam := []rt.Family{rt.FamilyInet, rt.FamilyInet6, rt.FamilyInet, 7}[g.rng.IntN(4)]
		r := g.rule(fam)
		if g.rng.IntN(3) == 0 {
			return fmt.Sprintf("RuleDel(%d, %+v)", fam, r), func() error { return h.RuleDel(fam, r) }
		}
		return fmt.Sprintf("RuleAdd(%d, %+v)", fam, r), func() error { return h.RuleAdd(fam, r) }
	}
	key := g.pick([]string{"net.ipv6.conf.all.forwarding", "net.ipv6.conf.d0.forwarding", "net.ipv4.conf.all.promote_secondaries", "net.ipv6.conf.nope.forwarding", "net.core.nothing"})
	val := g.pick([]string{"1", "0", "2", "x"})
	return fmt.Sprintf("Sysctl(%q, %q)", key, val), func() error { return h.Sysctl(key, val) }
}

// runAtomicity runs one sequence and returns how many of its requests
// failed and how many ran.
func runAtomicity(t *testing.T, seed uint64, steps int, byOp map[string][2]int) (failed, total int) {
	t.Helper()
	cfg := rtnl.Before
	if seed%2 == 0 {
		cfg = rtnl.After
	}
	k := rtnl.MustNewKernel(cfg)
	tk := k.World().NewTask("ip")
	g := &atomGen{rng: rand.New(rand.NewPCG(seed, 0xa70)), h: k.InitNet().Handle(tk), k: k}
	// A start that gives the requests something to meet.
	for i, f := range []func() error{
		func() error { return g.h.LinkAdd(netdev.Dummy{Name: "d0"}) },
		func() error { return g.h.LinkAdd(netdev.Dummy{Name: "d1"}) },
		func() error { return g.h.LinkAdd(netdev.Dummy{Name: "d2"}) },
		func() error { return g.h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb"}) },
		func() error { return g.h.LinkSetUp("lo") },
		func() error { return g.h.LinkSetUp("d0") },
		func() error { return g.h.LinkSetUp("va") },
		func() error { return g.h.LinkSetUp("vb") },
		func() error { return g.h.AddrAdd("d0", netip.MustParsePrefix("192.0.2.1/24")) },
		func() error { return g.h.AddrAdd("va", netip.MustParsePrefix("198.51.100.1/24")) },
		func() error { return g.h.LinkAdd(netdev.Bond{Name: "b0"}) },
		func() error { return g.h.LinkAdd(netdev.VRF{Name: "vrf0", Table: 10}) },
		func() error { return g.h.LinkAdd(netdev.Macvlan{Name: "mv0", Link: "d0", Mode: netdev.MacvlanBridge}) },
		func() error { return g.h.LinkAdd(netdev.Vlan{Name: "vl5", Link: "d1", ID: 5}) },
		func() error { return g.h.LinkSetMaster("d2", "b0") },
		func() error { return g.h.LinkSetUp("mv0") },
		func() error {
			return g.h.NexthopAdd(rtnl.NexthopRequest{ID: 1, Gateway: netip.MustParseAddr("192.0.2.9"), Dev: "d0"})
		},
		func() error {
			return g.h.NexthopAdd(rtnl.NexthopRequest{ID: 2, Gateway: netip.MustParseAddr("198.51.100.7"), Dev: "va"})
		},
		func() error {
			return g.h.NexthopAdd(rtnl.NexthopRequest{ID: 3, Group: []nexthop.GroupEntry{{ID: 1}, {ID: 2, Weight: 3}}})
		},
		func() error { return g.h.NexthopAdd(rtnl.NexthopRequest{ID: 4, Blackhole: true}) },
		func() error {
			return g.h.RouteAdd(rtnl.Route{Dst: netip.MustParsePrefix("10.0.0.0/8"), Gateway: netip.MustParseAddr("192.0.2.9")})
		},
		func() error { return g.h.RouteAdd(rtnl.Route{Dst: netip.MustParsePrefix("10.1.0.0/16"), NexthopID: 3}) },
		func() error {
			return g.h.RouteAdd(rtnl.Route{Table: 100, Dst: netip.MustParsePrefix("10.1.2.0/24"), NexthopID: 2})
		},
		func() error {
			return g.h.RuleAdd(rt.FamilyInet, fibrules.Rule{Pref: 20, Attrs: fibrules.AttrPriority, Action: fibrules.ActToTable, Table: 100})
		},
	} {
		if err := f(); err != nil {
			t.Fatalf("seed %d: setup step %d: %v", seed, i, err)
		}
	}
	seen := map[*netdev.Device]bool{}
	var log []string
	fail := func(step int, format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d (%s) step %d: %s\nlast requests:\n  %s\nrerun with -rtnl.atomseed=%d",
			seed, cfg, step, fmt.Sprintf(format, args...), strings.Join(log[max(0, len(log)-12):], "\n  "), seed)
	}
	check := func(step int, when string) {
		t.Helper()
		if err := k.CheckInvariants(); err != nil {
			fail(step, "invariants %s: %v", when, err)
		}
		live := map[*netdev.Device]bool{}
		for _, name := range append([]string{""}, k.NetNames()...) {
			for _, d := range k.Net(name).Devices().Devices() {
				live[d] = true
				seen[d] = true
			}
		}
		for d := range seen {
			if !live[d] && !d.Registered() {
				if err := netdev.CheckReleased(d); err != nil {
					fail(step, "%s: %v", when, err)
				}
				delete(seen, d)
			}
		}
	}
	check(-1, "after setup")
	before := atomDump(t, k, tk)
	for step := range steps {
		desc, do := g.request()
		err := do()
		log = append(log, fmt.Sprintf("%s = %v", desc, err))
		total++
		kind := desc[:strings.IndexByte(desc, '(')]
		c := byOp[kind]
		c[0]++
		if err != nil {
			c[1]++
		}
		byOp[kind] = c
		check(step, "after the request")
		after := atomDump(t, k, tk) // settles the kernel
		check(step, "settled")
		if err != nil {
			failed++
			if after != before {
				fail(step, "%s failed with %v and changed the kernel:\n%s", desc, err, lineDiff(before, after))
			}
		}
		before = after
	}
	return failed, total
}

// lineDiff shows the lines only a has ("-") and only b has ("+"), from
// a longest common subsequence of their lines.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	// lcs[i][j] is the LCS length of al[i:] and bl[j:].
	lcs := make([][]int, len(al)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(bl)+1)
	}
	for i := len(al) - 1; i >= 0; i-- {
		for j := len(bl) - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < len(al) || j < len(bl) {
		switch {
		case i < len(al) && j < len(bl) && al[i] == bl[j]:
			i, j = i+1, j+1
		case j < len(bl) && (i == len(al) || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, "+ "+bl[j])
			j++
		default:
			out = append(out, "- "+al[i])
			i++
		}
	}
	return strings.Join(out, "\n")
}
