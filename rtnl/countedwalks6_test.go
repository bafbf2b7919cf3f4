package rtnl_test

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

// fib6WalkOps drives a namespace through random device, address, nexthop
// and IPv6 route changes and returns a transcript: each request's result,
// the World's counters and the virtual times after it, and the IPv6 FIB's
// dumps every few requests and at the end. With check, the kernel's
// invariants (the counted walks' index among them) are verified after
// every request.
func fib6WalkOps(t *testing.T, cfg rtnl.Config, seed uint64, n int, check bool) []string {
	r := newRig(t, cfg)
	rng := rand.New(rand.NewPCG(seed, 0x6f1b))
	devs := []string{"va0", "vb0", "va1", "vb1", "d0", "d1"}
	peer := map[string]string{"va0": "vb0", "vb0": "va0", "va1": "vb1", "vb1": "va1"}
	exists := func(name string) bool { return r.k.InitNet().Devices().ByName(name) != nil }
	create := func(name string) error {
		if p, ok := peer[name]; ok {
			a, b := name, p
			if a[1] == 'b' {
				a, b = b, a
			}
			return r.h.LinkAdd(netdev.Veth{Name: a, Peer: b})
		}
		return r.h.LinkAdd(netdev.Dummy{Name: name})
	}
	for _, d := range devs {
		if !exists(d) {
			r.ok(create(d))
		}
	}
	r.up("lo")
	r.up(devs...)
	pick := func(l []string) string { return l[rng.IntN(len(l))] }
	prefixes := []string{"2001:db8:9::/64", "2001:db8::/64", "2001:db8:1::/48", "2001:db8:1:2::/64", "2001:db8:1:2::/80", "::/0", "2001:db8:1:2::5/128", "fd00::/8", "2001:db8::/32", "2001:db8:8000::/33"}
	addrs := []string{"2001:db8::1/64", "2001:db8::2/64", "2001:db8:1:2::1/64", "2001:db8:1:2::9/80", "fd00::1/8", "2001:db8:1:2::5/128"}
	gws := []string{"2001:db8::9", "2001:db8:1:2::7", "fe80::1", "fe80::2", "fd00::9"}
	srcs := []string{"", "", "", "2001:db8:5::/48", "2001:db8:6::/64"}
	tables := []uint32{0, 0, 0, 100, 255}
	route := func() rtnl.Route {
		rr := rtnl.Route{Dst: netip.MustParsePrefix(pick(prefixes)), Table: tables[rng.IntN(len(tables))], Priority: uint32(rng.IntN(3)) * 512}
		if s := pick(srcs); s != "" {
			rr.Src = netip.MustParsePrefix(s)
		}
		switch rng.IntN(6) {
		case 0:
			rr.Dev = pick(devs)
		case 1, 2:
			rr.Gateway, rr.Dev = netip.MustParseAddr(pick(gws)), pick(devs)
		case 3:
			// Two or three paths, any of them through the same device
			// (a refused request must release them all).
			for range 2 + rng.IntN(2) {
				rr.Multipath = append(rr.Multipath, rtnl.RoutePath{Gateway: netip.MustParseAddr(pick(gws)), Dev: pick(devs), Weight: 1 + rng.IntN(3)})
			}
		case 4:
			rr.NexthopID = nexthop.ID(1 + rng.IntN(4))
		case 5:
			rr.Type = fib.TypeBlackhole
		}
		return rr
	}
	var out []string
	dump := func(what string) {
		r.settle()
		out = append(out, what+" routes:")
		out = append(out, r.routes6()...)
		f := r.k.InitNet().FIB6()
		out = append(out, f.IPv6Route(), f.RT6Stats())
	}
	// A long leaf list: one prefix through every device at many metrics,
	// appended, prepended and added (duplicates refused).
	for i := range 4 * n / 3 {
		rr := rtnl.Route{Dst: netip.MustParsePrefix("2001:db8:9::/64"), Dev: pick(devs), Priority: uint32(1 + i/5 + rng.IntN(3))}
		var err error
		switch rng.IntN(3) {
		case 0:
			err = r.h.RouteAppend(rr)
		case 1:
			err = r.h.RoutePrepend(rr)
		default:
			err = r.h.RouteAdd(rr)
		}
		out = append(out, fmt.Sprintf("fill %d %+v: %v", i, rr, err))
	}
	for i := range n {
		var what string
		var err error
		switch op := rng.IntN(20); {
		case op < 3:
			d := pick(devs)
			what = "up " + d
			err = r.h.LinkSetUp(d)
		case op < 6:
			d := pick(devs)
			what = "down " + d
			err = r.h.LinkSetDown(d)
		case op < 7:
			d := pick(devs)
			if exists(d) {
				what = "del " + d
				err = r.h.LinkDel(d)
			} else {
				what = "add " + d
				err = create(d)
			}
		case op < 10:
			d, a := pick(devs), netip.MustParsePrefix(pick(addrs))
			what = fmt.Sprintf("addr add %s %s", d, a)
			err = r.h.AddrAddWith(d, netdev.Addr{Prefix: a, Metric: uint32(rng.IntN(2)) * 300})
		case op < 12:
			d, a := pick(devs), netip.MustParsePrefix(pick(addrs))
			what = fmt.Sprintf("addr del %s %s", d, a)
			err = r.h.AddrDel(d, a)
		case op < 13:
			id := nexthop.ID(1 + rng.IntN(4))
			if rng.IntN(3) == 0 {
				what = fmt.Sprintf("nexthop del %d", id)
				err = r.h.NexthopDel(id)
			} else {
				nh := rtnl.NexthopRequest{ID: id, Gateway: netip.MustParseAddr(pick(gws)), Dev: pick(devs)}
				what = fmt.Sprintf("nexthop add %+v", nh)
				err = r.h.NexthopAdd(nh)
			}
		case op < 17:
			rr := route()
			switch rng.IntN(4) {
			case 0:
				what, err = fmt.Sprintf("route append %+v", rr), r.h.RouteAppend(rr)
			case 1:
				what, err = fmt.Sprintf("route replace %+v", rr), r.h.RouteReplace(rr)
			default:
				what, err = fmt.Sprintf("route add %+v", rr), r.h.RouteAdd(rr)
			}
		case op < 19:
			rr := route()
			rr.Priority, rr.Type = 0, 0
			if rng.IntN(2) == 0 {
				rr.Gateway, rr.Dev, rr.Multipath, rr.NexthopID = netip.Addr{}, "", nil, 0
			}
			what, err = fmt.Sprintf("route del %+v", rr), r.h.RouteDel(rr)
		default:
			dump(fmt.Sprint("op ", i))
			continue
		}
		r.settle()
		out = append(out, fmt.Sprintf("%d %s: %v; %v at %d, task at %d", i, what, err, r.counters(), r.k.World().Now(), r.t.Now()))
		if check {
			require.NoError(t, r.k.CheckInvariants(), "after %d %s", i, what)
		}
	}
	dump("end")
	out = append(out, fmt.Sprintf("end: %v at %d", r.counters(), r.k.World().Now()))
	return out
}

// TestCountedFib6WalksSimulateTheSame: the IPv6 FIB's counted device walks
// (CountedWalks) give the same results, dumps, counters and virtual times
// as the real walks, over random device down/up/delete and carrier
// changes, addresses, nexthop objects and IPv6 routes (multipath, source
// routes, several tables) — and the index they keep stays exact.
func TestCountedFib6WalksSimulateTheSame(t *testing.T) {
	seeds := 16
	if testing.Short() {
		seeds = 4
	}
	for seed := range uint64(seeds) {
		base := rtnl.Before
		if seed%2 == 1 {
			base = rtnl.After
		}
		counted := base
		counted.CountedWalks = true
		require.True(t, newRig(t, counted).k.InitNet().FIB6().CountedWalks())
		require.False(t, newRig(t, base).k.InitNet().FIB6().CountedWalks())
		walked := fib6WalkOps(t, base, seed, 300, false)
		fast := fib6WalkOps(t, counted, seed, 300, true)
		require.Equal(t, walked, fast, "seed %d", seed)
	}
}
