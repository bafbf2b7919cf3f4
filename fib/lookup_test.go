package fib

import (
	"errors"
	"net/netip"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/nexthop"
)

// TestLookup covers fib_lookup's semantics: longest prefix first, backtracking
// past routes that do not fit the flow (TOS, scope, device) or whose paths
// are dead, reject route types and their errors, and ENETUNREACH.
func TestLookup(t *testing.T) {
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	e.mustIP("link add vethC type veth peer name vethD", "link set vethC up", "link set vethD up",
		"addr add 192.0.2.1/24 dev vethC",
		"route add 10.0.0.0/8 via 198.51.100.2",
		"route add 10.1.0.0/16 via 192.0.2.2",
		"route add 10.1.2.0/24 via 198.51.100.3 tos 0x10",
	)
	must := func(dst string, fl Flow, wantPrefix string, wantGW string) {
		t.Helper()
		fl.Dst = netip.MustParseAddr(dst)
		res, err := e.f.Lookup(e.t, fl)
		if err != nil {
			t.Fatalf("lookup %s: %v", dst, err)
		}
		if res.Prefix.String() != wantPrefix || res.Gateway.String() != wantGW {
			t.Errorf("lookup %s %+v: %s via %s, want %s via %s", dst, fl, res.Prefix, res.Gateway, wantPrefix, wantGW)
		}
	}
	fails := func(dst string, fl Flow, want syscall.Errno) {
		t.Helper()
		fl.Dst = netip.MustParseAddr(dst)
		if _, err := e.f.Lookup(e.t, fl); !errors.Is(err, want) {
			t.Errorf("lookup %s: %v, want %v", dst, err, want)
		}
	}
	must("10.9.9.9", Flow{}, "10.0.0.0/8", "198.51.100.2")
	must("10.1.9.9", Flow{}, "10.1.0.0/16", "192.0.2.2")
	// A TOS route only serves its TOS; other flows fall back to the /16.
	must("10.1.2.9", Flow{}, "10.1.0.0/16", "192.0.2.2")
	must("10.1.2.9", Flow{TOS: 0x10}, "10.1.2.0/24", "198.51.100.3")
	// A link-scope flow skips universe routes and finds the connected one.
	must("198.51.100.9", Flow{Scope: ScopeLink}, "198.51.100.0/24", "invalid IP")
	fails("10.1.2.9", Flow{Scope: ScopeLink}, syscall.ENETUNREACH)
	// Local routes (local table, merged) answer first.
	res, err := e.f.Lookup(e.t, Flow{Dst: netip.MustParseAddr("198.51.100.1")})
	if err != nil || res.Type != TypeLocal || res.Table != TableMain {
		t.Errorf("local address: %+v %v", res, err)
	}
	// An output device restricts the paths.
	must("10.1.9.9", Flow{OIF: e.dev("vethC").Index()}, "10.1.0.0/16", "192.0.2.2")
	must("10.1.9.9", Flow{OIF: e.dev("vethA").Index()}, "10.0.0.0/8", "198.51.100.2")

	// Reject types.
	e.mustIP("route add unreachable 10.2.0.0/16", "route add prohibit 10.3.0.0/16", "route add blackhole 10.4.0.0/16",
		"route add throw 10.5.0.0/16")
	fails("10.2.0.1", Flow{}, syscall.EHOSTUNREACH)
	fails("10.3.0.1", Flow{}, syscall.EACCES)
	fails("10.4.0.1", Flow{}, syscall.EINVAL)
	// throw ends the table (EAGAIN), so fib_lookup tries default, then gives up.
	fails("10.5.0.1", Flow{}, syscall.ENETUNREACH)
	fails("11.0.0.1", Flow{}, syscall.ENETUNREACH)
	if _, err := e.f.Table(TableMain).Lookup(e.t, Flow{Dst: netip.MustParseAddr("11.0.0.1")}); !errors.Is(err, syscall.EAGAIN) {
		t.Errorf("table lookup miss: %v, want EAGAIN", err)
	}
	// The default table is consulted after main.
	e.mustIP("route add default via 192.0.2.9 table default")
	must("11.0.0.1", Flow{}, "0.0.0.0/0", "192.0.2.9")

	// A multipath route keeps working on its live path when a device
	// goes down, and dies with the last one.
	e.mustIP("route add 10.6.0.0/16 nexthop via 192.0.2.5 nexthop via 198.51.100.5")
	must("10.6.0.1", Flow{}, "10.6.0.0/16", "192.0.2.5")
	e.mustIP("link set vethC down")
	must("10.6.0.1", Flow{}, "10.6.0.0/16", "198.51.100.5")
	must("10.1.9.9", Flow{}, "10.0.0.0/8", "198.51.100.2") // the /16 via vethC was flushed
	if got := e.f.Routes(TableMain); len(got) == 0 || !hasRoute(got, "10.6.0.0/16\n\tnexthop via 192.0.2.5 dev vethC weight 1 dead linkdown\n\tnexthop via 198.51.100.5 dev vethA weight 1") {
		t.Errorf("multipath route after vethC down:\n%v", got)
	}
	// The default route (in table default) went with vethC.
	fails("11.0.0.1", Flow{}, syscall.ENETUNREACH)
	e.mustIP("link set vethA down")
	fails("10.6.0.1", Flow{}, syscall.ENETUNREACH)
	if err := e.f.check(); err != nil {
		t.Fatal(err)
	}
}

func hasRoute(rs []Route, s string) bool {
	for _, r := range rs {
		if routeString(r) == s {
			return true
		}
	}
	return false
}

// TestLookupNexthopObjects checks routes using nexthop objects: a group uses
// its first live member, a blackhole nexthop rejects with EINVAL, and a
// removed nexthop takes its routes with it.
func TestLookupNexthopObjects(t *testing.T) {
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	e.mustIP("nexthop add id 1 via 198.51.100.2 dev vethA", "nexthop add id 2 via 198.51.100.3 dev vethA",
		"nexthop add id 3 group 1/2", "nexthop add id 4 blackhole",
		"route add 10.0.0.0/8 nhid 3", "route add 10.1.0.0/16 nhid 4", "route add 10.2.0.0/16 nhid 2")
	look := func(dst string) (Result, error) {
		return e.f.Lookup(e.t, Flow{Dst: netip.MustParseAddr(dst)})
	}
	if res, err := look("10.9.0.1"); err != nil || res.Gateway.String() != "198.51.100.2" || res.NexthopID != 3 {
		t.Errorf("group: %+v %v", res, err)
	}
	if _, err := look("10.1.0.1"); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("blackhole nexthop: %v", err)
	}
	if got := e.nh.Get(3).FIBUsers(); got != 1 {
		t.Errorf("group has %d FIB users", got)
	}
	e.mustIP("nexthop del id 1")
	if res, err := look("10.9.0.1"); err != nil || res.Gateway.String() != "198.51.100.3" {
		t.Errorf("group after removing member 1: %+v %v", res, err)
	}
	e.mustIP("nexthop del id 2") // the group loses its last member and goes too
	if _, err := look("10.9.0.1"); !errors.Is(err, syscall.ENETUNREACH) {
		t.Errorf("after removing the group: %v", err)
	}
	if got := e.show(); got != "blackhole 10.1.0.0/16 nhid 4 \n"+
		"198.51.100.0/24 dev vethA proto kernel scope link src 198.51.100.1 \n"+
		"local 198.51.100.1 dev vethA table local proto kernel scope host src 198.51.100.1 \n"+
		"broadcast 198.51.100.255 dev vethA table local proto kernel scope link src 198.51.100.1 \n" {
		t.Errorf("routes left:\n%s", got)
	}
	if err := e.f.check(); err != nil {
		t.Fatal(err)
	}
}
