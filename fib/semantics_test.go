package fib

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// TestFibInfoSharing checks fib_create_info's sharing: routes with the same
// nexthops, priority, prefsrc, protocol, scope, type and table share one
// fib_info, anything else makes a new one, and the count returns to where
// it was when the routes go.
func TestFibInfoSharing(t *testing.T) {
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	e.mustIP("nexthop add id 1 via 198.51.100.2 dev vethA")
	base := e.f.InfoCount()
	var lines []string
	for i := range 100 {
		lines = append(lines, fmt.Sprintf("route add 10.0.%d.0/24 via 198.51.100.2", i))
	}
	e.mustIP(lines...)
	if got := e.f.InfoCount() - base; got != 1 {
		t.Errorf("100 routes via one gateway: %d fib_infos, want 1", got)
	}
	for _, c := range []struct {
		line string
		new  int
	}{
		{"route add 10.1.0.0/16 via 198.51.100.2 dev vethA", 0}, // same resolved device: shared
		{"route add 10.2.0.0/16 via 198.51.100.2 metric 5", 1},  // priority
		{"route add 10.3.0.0/16 via 198.51.100.2 proto static", 1},
		{"route add 10.4.0.0/16 via 198.51.100.2 src 198.51.100.1", 1},
		{"route add 10.5.0.0/16 via 198.51.100.2 table 100", 1}, // table (fib_tb_id)
		{"route add 10.6.0.0/16 via 198.51.100.3", 1},
		{"route add 10.7.0.0/16 nhid 1", 1},
		{"route add 10.8.0.0/16 nhid 1", 0},
		{"route add 10.9.0.0/16 nhid 1 metric 5", 1},
		{"route add unreachable 10.10.0.0/16", 1},
		{"route add unreachable 10.11.0.0/16", 0},
		{"route add blackhole 10.12.0.0/16", 1}, // type (fib_type)
	} {
		n := e.f.InfoCount()
		e.mustIP(c.line)
		if got := e.f.InfoCount() - n; got != c.new {
			t.Errorf("%s: %d new fib_infos, want %d", c.line, got, c.new)
		}
	}
	if got := e.nh.Get(1).FIBUsers(); got != 2 {
		t.Errorf("nexthop 1 has %d FIB users, want 2 (two fib_infos)", got)
	}
	// Replacing a route moves its reference.
	n := e.f.InfoCount()
	e.mustIP("route replace 10.11.0.0/16 via 198.51.100.3")
	if got := e.f.InfoCount(); got != n {
		t.Errorf("replace: %d fib_infos, want %d (one unreachable left, via .3 shared)", got, n)
	}
	if err := e.f.check(); err != nil {
		t.Fatal(err)
	}
	// Everything goes: the count returns to the address's routes.
	for _, r := range e.f.AllRoutes() {
		if r.Protocol == ProtoKernel {
			continue
		}
		r.Flags = 0
		if r.NexthopID != 0 {
			// Dumps show the nexthop's gateway and device, which a
			// delete must not send back (as with the kernel's).
			r.Gateway, r.Dev = netip.Addr{}, nil
		}
		if err := e.do(func() error { return e.f.Del(e.t, r) }); err != nil {
			t.Fatalf("del %s: %v", routeString(r), err)
		}
	}
	if got := e.f.InfoCount(); got != base {
		t.Errorf("after deleting every route: %d fib_infos, want %d", got, base)
	}
	if got := e.nh.Get(1).FIBUsers(); got != 0 {
		t.Errorf("nexthop 1 keeps %d FIB users", got)
	}
	if err := e.f.check(); err != nil {
		t.Fatal(err)
	}
	// Exit releases the rest.
	e.rtnl.Lock(e.t)
	e.f.Exit(e.t)
	e.rtnl.Unlock(e.t)
	if got := e.f.InfoCount(); got != 0 || len(e.f.Tables()) != 0 || len(e.f.devNH) != 0 || len(e.f.laddr) != 0 {
		t.Errorf("after Exit: %d fib_infos, %d tables, %d devices, %d prefsrcs hashed", got,
			len(e.f.Tables()), len(e.f.devNH), len(e.f.laddr))
	}
}

// TestAliasOrder checks fib_find_alias / fib_insert_alias order within a
// leaf: several prefix lengths on one key, TOS descending, priority
// ascending, append after equals, prepend before, replace in place.
func TestAliasOrder(t *testing.T) {
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	e.mustIP(
		"route add 10.0.0.0/16 via 198.51.100.2 metric 2",
		"route add 10.0.0.0/8 via 198.51.100.2",
		"route add 10.0.0.0/24 via 198.51.100.2",
		"route add 10.0.0.0/16 via 198.51.100.3 metric 1",
		"route add 10.0.0.0/16 via 198.51.100.4 tos 0x10 metric 3",
		"route append 10.0.0.0/16 via 198.51.100.5 metric 1",
		"route prepend 10.0.0.0/16 via 198.51.100.6 metric 1",
		"route replace 10.0.0.0/16 via 198.51.100.7 metric 2",
	)
	var got []string
	for _, r := range e.f.Routes(TableMain) {
		if strings.HasPrefix(r.Dst.String(), "10.") {
			got = append(got, routeString(r))
		}
	}
	want := []string{
		"10.0.0.0/24 via 198.51.100.2 dev vethA",
		"10.0.0.0/16 tos 0x10 via 198.51.100.4 dev vethA metric 3",
		"10.0.0.0/16 via 198.51.100.6 dev vethA metric 1",
		"10.0.0.0/16 via 198.51.100.3 dev vethA metric 1",
		"10.0.0.0/16 via 198.51.100.5 dev vethA metric 1",
		"10.0.0.0/16 via 198.51.100.7 dev vethA metric 2",
		"10.0.0.0/8 via 198.51.100.2 dev vethA",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("order:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Lookups take the first of the longest: with TOS 0x10 the TOS route.
	res, _ := e.f.Lookup(e.t, Flow{Dst: netip.MustParseAddr("10.0.1.1")})
	if res.Gateway.String() != "198.51.100.6" {
		t.Errorf("lookup took %v, want the prepended route", res.Gateway)
	}
	res, _ = e.f.Lookup(e.t, Flow{Dst: netip.MustParseAddr("10.0.1.1"), TOS: 0x10})
	if res.Gateway.String() != "198.51.100.4" {
		t.Errorf("TOS lookup took %v", res.Gateway)
	}
	// A delete naming only the prefix takes the first route of TOS 0.
	e.mustIP("route del 10.0.0.0/16")
	if rs := e.f.Routes(TableMain); hasRoute(rs, "10.0.0.0/16 via 198.51.100.6 dev vethA metric 1") {
		t.Errorf("del removed the wrong route")
	}
	if err := e.f.check(); err != nil {
		t.Fatal(err)
	}
}

// TestUnmerge checks that unmerging changes no route, lookup or dump, gives
// local its own trie, and is idempotent.
func TestUnmerge(t *testing.T) {
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	e.mustIP("route add 10.0.0.0/8 via 198.51.100.2", "route add local 10.1.1.1 dev vethA table local",
		"route add 198.51.100.128/25 via 198.51.100.3")
	before := e.show()
	look := func() string {
		var b strings.Builder
		for _, a := range []string{"198.51.100.1", "198.51.100.130", "10.1.1.1", "10.2.2.2", "198.51.100.255"} {
			res, err := e.f.Lookup(e.t, Flow{Dst: netip.MustParseAddr(a)})
			fmt.Fprintf(&b, "%s %s %v %v\n", a, res.Prefix, res.Type, err)
		}
		return b.String()
	}
	lb := look()
	main, local := e.f.Table(TableMain), e.f.Table(TableLocal)
	if main.t != local.t {
		t.Fatal("local and main should share a trie before the first rule")
	}
	e.mustIP("rule add from 1.2.3.4 table 100")
	if got := e.show(); got != before {
		t.Errorf("routes changed:\n%s\nwant\n%s", got, before)
	}
	if got := look(); got != lb {
		t.Errorf("lookups changed:\n%s\nwant\n%s", got, lb)
	}
	if e.f.Table(TableMain).t == e.f.Table(TableLocal).t {
		t.Fatal("still merged")
	}
	if ms, ls := e.f.Table(TableMain).Stats(), e.f.Table(TableLocal).Stats(); ms.Prefixes != 3 || ls.Prefixes != 3 {
		t.Errorf("prefixes: main %d, local %d; want 3 and 3", ms.Prefixes, ls.Prefixes)
	}
	e.mustIP("rule add from 1.2.3.5 table 100")
	if err := e.f.check(); err != nil {
		t.Fatal(err)
	}
	// A new netns whose first route comes after the first rule never
	// merges.
	e2 := newEnv(t, nexthop.FlushDeferred)
	e2.mustIP("rule add from 1.2.3.4 table 100")
	e2.mustIP(setupLines()...)
	if e2.f.Table(TableMain).t == e2.f.Table(TableLocal).t {
		t.Error("tables created after the first rule are merged")
	}
}

// TestFlushVisitsEachLeafOnce marks every route dead and flushes: each table
// walk visits each leaf once; unmerged, local's walk visits only its own.
func TestFlushVisitsEachLeafOnce(t *testing.T) {
	for _, unmerged := range []bool{false, true} {
		e := newEnv(t, nexthop.FlushDeferred)
		const n = 4096
		e.mustIP(seed000Lines(n, true)...)
		if unmerged {
			e.mustIP("rule add from 1.2.3.4 table 100")
		}
		leaves := e.f.Table(TableMain).Stats().Leaves
		for fi := range e.f.fis.all() {
			if fi.nh != nil {
				fi.MarkDead()
			}
		}
		before := e.t.Counters()
		e.rtnl.Lock(e.t)
		e.f.FlushFIB(e.t)
		e.rtnl.Unlock(e.t)
		w := e.t.Counters().Sub(before)
		// Merged: main visits all leaves and removes n, local visits the 3
		// left. Unmerged: main visits its n+1, local its 2.
		want := int64(leaves + 3)
		if unmerged {
			want = int64(n+1) + 2
		}
		if got := w.Get(sim.TrieLeafVisit); got != want {
			t.Errorf("unmerged=%v: %d leaf visits, want %d", unmerged, got, want)
		}
		if got := w.Get(sim.FibAliasRemove); got != n {
			t.Errorf("unmerged=%v: %d routes removed, want %d", unmerged, got, n)
		}
		if err := e.f.check(); err != nil {
			t.Fatal(err)
		}
	}
}
