package rtnl_test

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// kind is the counter named name.
func kind(t *testing.T, name string) sim.Kind {
	t.Helper()
	k, ok := sim.ParseKind(name)
	require.True(t, ok, "no counter %s", name)
	return k
}

// addrCount is the number of addresses of a family in the rig's namespace.
func (r *rig) addrCount(family int) int64 {
	n := int64(0)
	for _, d := range r.k.InitNet().Devices().Devices() {
		if family == 4 {
			n += int64(len(d.Inet4Addrs()))
		} else {
			n += int64(len(d.Inet6Addrs()))
		}
	}
	return n
}

// TestAddrAddWalksIPv4: every add of a new IPv4 address walks the device's
// whole address list twice (find_matching_ifa, then __inet_insert_ifa) and
// queues check_lifetime, which walks every IPv4 address of the namespace.
// N adds to one device charge N(N-1) list scans and N(N+1)/2 + N·m hash
// visits (m the namespace's other addresses), and an add costs more
// virtual time the longer the list: two scans and a visit more per address
// already there.
//
// Kernel: inet_rtm_newaddr, find_matching_ifa, __inet_insert_ifa,
// check_lifetime (net/ipv4/devinet.c).
func TestAddrAddWalksIPv4(t *testing.T) {
	const n = 400
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}))
	m := r.addrCount(4)
	before := r.counters()
	cost := make([]time.Duration, n)
	for i := range n {
		t0 := r.t.Now()
		r.ok(r.h.AddrAdd("v0", netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 32)))
		cost[i] = r.t.Now().Sub(t0)
	}
	require.Greater(t, cost[n-1]-cost[0], time.Duration(n-1)*10*time.Nanosecond, "an add costs more the longer the list")
	ifaScan, hashVisit := kind(t, "ifa_scans"), kind(t, "inet4_hash_visits")
	d := r.counters().Sub(before)
	require.Equal(t, int64(n*(n-1)), d.Get(ifaScan), "two whole walks of the list an add")
	require.Equal(t, int64(n*(n+1)/2)+n*m, d.Get(hashVisit), "check_lifetime walks the namespace's addresses after each add")
	// The walks make the difference; the local route's trie insert varies
	// by a few node visits.
	c := sim.DefaultCosts
	grow := time.Duration(n-1) * (2*c.PerUnit(ifaScan) + c.PerUnit(hashVisit))
	require.InDelta(t, float64(grow), float64(cost[n-1]-cost[0]), float64(100*c.TrieNodeVisit),
		"the last add walks n-1 more addresses, three times, than the first")

	// A refused add stops at the address that refuses it: the same local
	// address in the same subnet is found by find_matching_ifa.
	before = r.counters()
	err := r.h.AddrAdd("v0", pfx("10.0.0.9/32"))
	require.Error(t, err)
	require.Equal(t, int64(10), r.counters().Sub(before).Get(ifaScan), "10.0.0.9 is 10th in the list (primaries of one scope in the order added)")
}

// TestAddrAddWalksIPv6: every add of a new IPv6 address runs
// addrconf_verify_rtnl, a walk of every IPv6 address of the namespace, and
// its DAD work joins the address's solicited-node group, walking the
// device's group list: N adds to one device that is down (whose list holds
// g groups to start with) charge N(N+1)/2 + N·m hash visits and N·g +
// N(N-1)/2 group scans.
//
// Kernel: inet6_addr_add, addrconf_verify_rtnl (net/ipv6/addrconf.c),
// __ipv6_dev_mc_inc (net/ipv6/mcast.c).
func TestAddrAddWalksIPv6(t *testing.T) {
	const n = 300
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}))
	r.settle()
	m, g := r.addrCount(6), int64(len(r.dev("v0").Inet6GroupList()))
	before := r.counters()
	cost := make([]time.Duration, n)
	for i := range n {
		t0 := r.t.Now()
		r.ok(r.h.AddrAdd("v0", pfx(fmt.Sprintf("2001:db8::1:%x/128", i))))
		cost[i] = r.t.Now().Sub(t0)
	}
	r.settle()
	hashVisit, mcScan := kind(t, "inet6_hash_visits"), kind(t, "mc_list_scans")
	require.GreaterOrEqual(t, cost[n-1]-cost[0], time.Duration(n-1)*sim.DefaultCosts.PerUnit(hashVisit), "an add costs more the longer the list")
	d := r.counters().Sub(before)
	require.Equal(t, int64(n*(n+1)/2)+n*m, d.Get(hashVisit))
	require.Equal(t, n*g+int64(n*(n-1)/2), d.Get(mcScan))
	require.Len(t, r.dev("v0").Inet6GroupList(), int(g)+n)
	require.GreaterOrEqual(t, cost[n-1]-cost[0], time.Duration(n-1)*sim.DefaultCosts.PerUnit(hashVisit),
		"the last add walks n-1 more addresses than the first")
}
