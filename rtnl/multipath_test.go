package rtnl_test

import (
	"net/netip"
	"strconv"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

// multipathRig is the set-up the kernel's answers below were taken on
// (Linux 6.18, `sysctl net.ipv4.fib_multipath_hash_seed=SEED` in a fresh
// namespace): a group 1/2,2/3,3 behind 10.0.0.0/8 and a classic multipath
// route of weights 1, 3, 1 for 11.0.0.0/8, over two veth ends (here two
// pairs, so that one can go down alone; the answers do not depend on it).
func multipathRig(t *testing.T, seed uint32) *rig {
	r := newRig(t, rtnl.After)
	r.ok(r.h.Sysctl("net.ipv4.fib_multipath_hash_seed", strconv.FormatUint(uint64(seed), 10)))
	r.vethNexthops()
	ip := netip.MustParseAddr
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 10, Group: []nexthop.GroupEntry{{ID: 1}, {ID: 2, Weight: 2}, {ID: 3, Weight: 3}}}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.0.0/8"), NexthopID: 10}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("11.0.0.0/8"), Multipath: []rtnl.RoutePath{
		{Gateway: ip("172.16.1.2"), Dev: "veth1", Weight: 1},
		{Gateway: ip("172.16.2.3"), Dev: "veth2", Weight: 3},
		{Gateway: ip("172.16.1.9"), Dev: "veth1"},
	}}))
	return r
}

// TestMultipathHashAgreesWithKernel: the path `ip route get` reports for a
// nexthop group and for a weighted multipath route is the one the real
// kernel reported for the same destination, source and hash seed
// (fib_multipath_hash policy 0, nexthop_select_path_hthr,
// fib_select_multipath). With a source, a classic multipath route prefers
// a path whose own source address it is.
func TestMultipathHashAgreesWithKernel(t *testing.T) {
	for _, tc := range []struct {
		seed      uint32
		dst, from string
		via       string // the kernel's answer
	}{
		{1, "10.130.183.14", "", "172.16.1.3"},
		{1, "11.238.127.26", "", "172.16.1.9"},
		{1, "10.80.57.190", "", "172.16.2.4"},
		{1, "11.240.126.194", "", "172.16.2.3"},
		{1, "10.52.127.6", "", "172.16.2.4"},
		{1, "11.110.208.143", "", "172.16.1.2"},
		{1, "10.93.199.81", "", "172.16.1.3"},
		{1, "10.64.67.0", "", "172.16.1.2"},
		{1, "11.2.107.110", "", "172.16.1.9"},
		{12345, "10.130.183.14", "", "172.16.2.4"},
		{12345, "11.238.127.26", "", "172.16.2.3"},
		{12345, "10.80.57.190", "", "172.16.1.3"},
		{12345, "11.110.208.143", "", "172.16.1.9"},
		{12345, "10.93.199.81", "", "172.16.1.2"},
		// From 172.16.1.1, the source of paths 1 and 3: the hash's path
		// if it is one of them, else the first of them whose range is
		// above the hash (fib_select_multipath's score).
		{99, "11.165.77.202", "172.16.1.1", "172.16.1.9"},
		{99, "11.24.37.48", "172.16.1.1", "172.16.1.9"},
		{99, "11.203.25.113", "172.16.1.1", "172.16.1.2"},
		{99, "11.96.190.49", "172.16.1.1", "172.16.1.2"},
	} {
		r := multipathRig(t, tc.seed)
		q := rtnl.RouteGetRequest{Dst: netip.MustParseAddr(tc.dst)}
		if tc.from != "" {
			q.Src = netip.MustParseAddr(tc.from)
		}
		got, err := r.h.GetRoute(q)
		require.NoError(t, err)
		require.Equal(t, tc.via, got.Gateway.String(), "seed %d, %s from %q", tc.seed, tc.dst, tc.from)
	}
}

// TestMultipathSpreadsByWeight: over many destinations the paths are
// taken in proportion to their weights; a dead path takes none, and an
// output device turns the hash off (the first path by that device).
func TestMultipathSpreadsByWeight(t *testing.T) {
	r := multipathRig(t, 7)
	count := func(pfx byte, q rtnl.RouteGetRequest) map[string]int {
		n := map[string]int{}
		for i := range 6000 {
			q.Dst = netip.AddrFrom4([4]byte{pfx, byte(i >> 8), byte(i), byte(i * 7)})
			got, err := r.h.GetRoute(q)
			require.NoError(t, err)
			n[got.Gateway.String()]++
		}
		return n
	}
	g := count(10, rtnl.RouteGetRequest{})
	require.InDelta(t, 1000, g["172.16.1.2"], 150)
	require.InDelta(t, 2000, g["172.16.1.3"], 200)
	require.InDelta(t, 3000, g["172.16.2.4"], 200)
	m := count(11, rtnl.RouteGetRequest{})
	require.InDelta(t, 1200, m["172.16.1.2"], 150)
	require.InDelta(t, 3600, m["172.16.2.3"], 200)
	require.InDelta(t, 1200, m["172.16.1.9"], 150)
	require.Equal(t, map[string]int{"172.16.2.3": 6000}, count(11, rtnl.RouteGetRequest{OIF: "veth2"}))

	// veth2 down: its path is dead (fib_sync_down_dev), its nexthop gone
	// (nexthop_flush_dev); the others share the hash space.
	r.ok(r.h.LinkSetDown("veth2"))
	m = count(11, rtnl.RouteGetRequest{})
	require.Len(t, m, 2)
	require.InDelta(t, 3000, m["172.16.1.2"], 200)
	require.InDelta(t, 3000, m["172.16.1.9"], 200)
	g = count(10, rtnl.RouteGetRequest{})
	require.Len(t, g, 2)
	require.InDelta(t, 2000, g["172.16.1.2"], 200)
}

// TestMultipathHashSeedSysctl: the seed picks the paths; every namespace
// starts with a random one drawn from the World's seeded randomness, so
// the same World seed gives the same choices, and setting 0 draws anew.
func TestMultipathHashSeedSysctl(t *testing.T) {
	choices := func(r *rig) (s string) {
		for i := range 64 {
			got, err := r.h.GetRoute(rtnl.RouteGetRequest{Dst: netip.AddrFrom4([4]byte{11, byte(i), 1, byte(i)})})
			require.NoError(t, err)
			s += got.Gateway.String() + " "
		}
		return s
	}
	a, b := multipathRig(t, 5), multipathRig(t, 5)
	require.Equal(t, choices(a), choices(b))
	c := multipathRig(t, 6)
	require.NotEqual(t, choices(a), choices(c))

	// Seed 0: random, the same in the same World.
	x, y := multipathRig(t, 0), multipathRig(t, 0)
	require.Equal(t, choices(x), choices(y))
	before := choices(x)
	x.ok(x.h.Sysctl("net.ipv4.fib_multipath_hash_seed", "0"))
	require.NotEqual(t, before, choices(x), "a new random seed chose the same 64 paths")

	// Bad values change nothing.
	for _, tc := range []struct {
		key, value string
		err        syscall.Errno
	}{
		{"net.ipv4.fib_multipath_hash_seed", "-1", syscall.EINVAL},
		{"net.ipv4.fib_multipath_hash_seed", "4294967296", syscall.EINVAL},
		{"net.ipv4.fib_multipath_hash_seed", "x", syscall.EINVAL},
		{"net.ipv4.fib_multipath_hash_policy", "4", syscall.EINVAL},
		{"net.ipv4.fib_multipath_hash_policy", "1", syscall.EOPNOTSUPP},
		{"net.ipv4.fib_multipath_hash_fields", "1", syscall.ENOENT},
	} {
		before := choices(a)
		require.ErrorIs(t, a.h.Sysctl(tc.key, tc.value), tc.err, "%s=%s", tc.key, tc.value)
		require.Equal(t, before, choices(a))
	}
	a.ok(a.h.Sysctl("net/ipv4/fib_multipath_hash_policy", "0"))
}

// TestNexthopGroupWeightAboveAByte: a group keeps 16-bit weights
// (nexthop_grp's weight and weight_high), while a route on it dumps each
// member's weight-1 in rtnh_hops, one byte (fib_add_nexthop): 256 is 256,
// 300 reads back as 44.
func TestNexthopGroupWeightAboveAByte(t *testing.T) {
	r := multipathRig(t, 1)
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 11, Group: []nexthop.GroupEntry{{ID: 1, Weight: 256}, {ID: 2, Weight: 300}}}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("12.0.0.0/8"), NexthopID: 11}))

	nhs, err := r.h.NexthopList()
	r.ok(err)
	var group []nexthop.GroupMember
	for _, nh := range nhs {
		if nh.ID == 11 {
			group = nh.Group
		}
	}
	require.Equal(t, []nexthop.GroupMember{{ID: 1, Weight: 256}, {ID: 2, Weight: 300}}, group)

	routes, err := r.h.RouteList(rt.FamilyInet, 254)
	r.ok(err)
	var weights []int
	for _, ri := range routes {
		if ri.Dst == pfx("12.0.0.0/8") {
			for _, p := range ri.Multipath {
				weights = append(weights, p.Weight)
			}
		}
	}
	require.Equal(t, []int{256, 44}, weights)
}
