package rtnl_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/machine"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// tracedRig is a rig on seed 002's machine whose World records a trace,
// to read the sleeps of netdev_wait_allrefs from.
func tracedRig(tb testing.TB, cfg rtnl.Config) (*rig, *sim.ChromeTrace) {
	tr := &sim.ChromeTrace{}
	return newRigIn(tb, sim.MustNewWorld(sim.Options{Tracer: tr, Costs: seed002Costs(tb)}), cfg), tr
}

// seed002Costs is seed 002's machine, the clock these tests state their
// sleeps and grace periods in: HZ=1000 and every grace period GracePeriod
// long, with no tick for RCU's callbacks (machine/profiles/seed002.profile).
func seed002Costs(tb testing.TB) *sim.Costs {
	p, err := machine.Load("seed002")
	require.NoError(tb, err)
	return &p.Costs
}

// msleeps returns the msleep events of task t recorded after index from,
// as "msleep(N)=D" strings (D the virtual duration).
func msleeps(tr *sim.ChromeTrace, t *sim.Task, from int) []string {
	var out []string
	for _, e := range tr.Events()[from:] {
		if e.TID == t.ID() && strings.HasPrefix(e.Name, "msleep(") {
			out = append(out, fmt.Sprintf("%s=%v", e.Name, e.Dur))
		}
	}
	return out
}

// seed002 builds seed 002's devices: n dummies, up, each with an IPv6
// address, with net.ipv6.conf.all.forwarding as given. With forwarding
// each device has two subnet-router anycast addresses (its /64 and
// fe80::), whose routes hold device references that only a chain of two RCU
// callbacks drops.
func seed002(r *rig, n int, forwarding bool) {
	r.tb.Helper()
	if forwarding {
		r.ok(r.h.Sysctl("net.ipv6.conf.all.forwarding", "1"))
	}
	for i := range n {
		name := fmt.Sprintf("d%d", i)
		r.ok(r.h.LinkAdd(netdev.Dummy{Name: name, Attrs: netdev.Attrs{Group: 1}}))
		r.ok(r.h.LinkSetUp(name))
		r.ok(r.h.AddrAdd(name, pfx(fmt.Sprintf("2021:%x::1/120", i+1))))
	}
	r.settle()
	if forwarding {
		require.Len(r.tb, r.dev("d0").Inet6Anycast(), 2)
	}
}

// TestUnregisterOneByOne: deleting n devices with n requests runs n
// netdev_run_todo, so n rcu_barriers. With forwarding each device's anycast
// route reference outlives the barrier by a grace period, so
// netdev_wait_allrefs sleeps exactly once per device: one msleep(250) (251
// ms at HZ=1000) with WaitFixed, one msleep(16) (17 ms) with WaitBackoff.
// Without forwarding the barrier suffices and nothing sleeps.
//
// Kernel: netdev_run_todo, netdev_wait_allrefs (net/core/dev.c); seed 002.
func TestUnregisterOneByOne(t *testing.T) {
	const n = 8
	cases := []struct {
		name       string
		wait       netdev.WaitPolicy
		forwarding bool
		sleep      string // each device's sleep, "" for none
	}{
		{"fixed", netdev.WaitFixed, true, "msleep(250)=251ms"},   // before seed 002
		{"backoff", netdev.WaitBackoff, true, "msleep(16)=17ms"}, // after seed 002
		{"fixed-no-forwarding", netdev.WaitFixed, false, ""},     // single-callback releases only
		{"backoff-no-forwarding", netdev.WaitBackoff, false, ""}, // idem
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, tr := tracedRig(t, rtnl.Config{Wait: c.wait})
			seed002(r, n, c.forwarding)
			before, mark, start := r.counters(), len(tr.Events()), r.t.Now()
			for i := range n {
				r.ok(r.h.LinkDel(fmt.Sprintf("d%d", i)))
			}
			d := r.counters().Sub(before)
			require.Equal(t, int64(n), d.Get(sim.RCUBarrier), "one rcu_barrier per request")
			require.Equal(t, int64(n), d.Get(sim.DevUnregister))
			var want []string
			if c.sleep != "" {
				for range n {
					want = append(want, c.sleep)
				}
			}
			require.Equal(t, want, msleeps(tr, r.t, mark))
			require.Equal(t, int64(len(want)), d.Get(sim.Sleep))
			require.Zero(t, r.k.InitNet().Devices().UnregisteringCount())
			t.Logf("%s: %d deletions took %v virtual", c.name, n, r.t.Now().Sub(start))
		})
	}
}

// TestUnregisterBulk: deleting the n devices in one request — by group or by
// ifindex list — runs one netdev_run_todo: one rcu_barrier, and one sleep
// (the first device's; the others' references are gone by then).
//
// Kernel: rtnl_group_dellink; seed 004's rtnl_list_dellink.
func TestUnregisterBulk(t *testing.T) {
	const n = 8
	cases := []struct {
		name string
		del  func(r *rig) error
	}{
		{"group", func(r *rig) error { return r.h.LinkDelGroup(1) }}, // ip link del group 1
		{"list", func(r *rig) error { // ip link del ifindex-list ...
			var idx []netdev.IfIndex
			for i := range n {
				idx = append(idx, r.dev(fmt.Sprintf("d%d", i)).Index())
			}
			return r.h.LinkDelList(idx)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := rtnl.Before // WaitFixed
			cfg.IfindexList = true
			r, tr := tracedRig(t, cfg)
			seed002(r, n, true)
			before, mark := r.counters(), len(tr.Events())
			r.ok(c.del(r))
			d := r.counters().Sub(before)
			require.Equal(t, int64(1), d.Get(sim.RCUBarrier))
			require.Equal(t, int64(n), d.Get(sim.DevUnregister))
			require.Equal(t, int64(2), d.Get(sim.SyncExpedited), "one unregister_netdevice_many: two synchronize_net")
			require.Equal(t, []string{"msleep(250)=251ms"}, msleeps(tr, r.t, mark))
			require.Equal(t, []string{"lo"}, linkNames(t, r.h))
		})
	}
}

func linkNames(tb testing.TB, h *rtnl.Handle) []string {
	tb.Helper()
	l, err := h.LinkList()
	require.NoError(tb, err)
	var out []string
	for _, li := range l {
		out = append(out, li.Name)
	}
	return out
}

// holdFor takes a reference to d and drops it from the last of a chain of
// depth RCU callbacks, each queued by the one before: rcu_barrier waits for
// the first only, so the reference outlives it by about depth-1 grace
// periods (10 ms each by default).
func holdFor(r *rig, d *netdev.Device, depth int) {
	d.Hold()
	rcu := r.k.World().RCU()
	var link func(k *sim.Task, left int)
	link = func(k *sim.Task, left int) {
		if left == 0 {
			d.Put()
			return
		}
		rcu.Call(k, func(k *sim.Task) { link(k, left-1) })
	}
	link(r.t, depth)
}

// TestWaitAllRefsPolicies holds a reference for about 600 ms, then 1.3 s,
// past the unregistration and reads netdev_wait_allrefs's sleeps from the
// trace. WaitBackoff sleeps 16, 32, 64, 128, then 250 ms; WaitFixed always
// 250 ms, and after a second of waiting rebroadcasts NETDEV_UNREGISTER and
// runs another rcu_barrier.
func TestWaitAllRefsPolicies(t *testing.T) {
	cases := []struct {
		name     string
		wait     netdev.WaitPolicy
		depth    int      // grace periods the reference outlives the barrier by, about
		sleeps   []string // msleep(N)=duration, in order
		barriers int64    // run_todo's, plus rebroadcasts'
	}{
		// 17+33+65+129+251 = 495 ms < 600 ms < 746 ms: six polls.
		{"backoff", netdev.WaitBackoff, 60, []string{
			"msleep(16)=17ms", "msleep(32)=33ms", "msleep(64)=65ms", "msleep(128)=129ms", "msleep(250)=251ms", "msleep(250)=251ms",
		}, 1},
		// 2×251 = 502 ms < 600 ms < 753 ms: three polls.
		{"fixed", netdev.WaitFixed, 60, []string{
			"msleep(250)=251ms", "msleep(250)=251ms", "msleep(250)=251ms",
		}, 1},
		// Past 1 s (after the fourth poll) the notifier rebroadcast and a
		// second barrier; 1255 ms < 1.3 s < 1506 ms: six polls.
		{"fixed-rebroadcast", netdev.WaitFixed, 130, []string{
			"msleep(250)=251ms", "msleep(250)=251ms", "msleep(250)=251ms",
			"msleep(250)=251ms", "msleep(250)=251ms", "msleep(250)=251ms",
		}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, tr := tracedRig(t, rtnl.Config{Wait: c.wait})
			rec := r.watch("d0")
			r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d0"}))
			r.settle()
			holdFor(r, r.dev("d0"), c.depth)
			rec.take()
			before, mark := r.counters(), len(tr.Events())
			r.ok(r.h.LinkDel("d0"))
			d := r.counters().Sub(before)
			require.Equal(t, c.sleeps, msleeps(tr, r.t, mark))
			require.Equal(t, c.barriers, d.Get(sim.RCUBarrier))
			unreg := 0
			for _, ev := range rec.take() {
				if ev == "NETDEV_UNREGISTER d0" {
					unreg++
				}
			}
			require.Equal(t, int(c.barriers), unreg, "one NETDEV_UNREGISTER, plus one per rebroadcast")
		})
	}
}

// TestWaitFixedIsSlowerPerDevice puts the two policies side by side on
// seed 002's setup: the same work, the same barriers and sleeps, but each
// device waits 251 ms instead of 17 ms.
func TestWaitFixedIsSlowerPerDevice(t *testing.T) {
	const n = 5
	took := map[netdev.WaitPolicy]time.Duration{}
	for _, w := range []netdev.WaitPolicy{netdev.WaitFixed, netdev.WaitBackoff} {
		r := newRigIn(t, sim.MustNewWorld(sim.Options{Costs: seed002Costs(t)}), rtnl.Config{Wait: w})
		seed002(r, n, true)
		start := r.t.Now()
		for i := range n {
			r.ok(r.h.LinkDel(fmt.Sprintf("d%d", i)))
		}
		took[w] = r.t.Now().Sub(start)
	}
	require.Equal(t, time.Duration(n)*(251-17)*time.Millisecond, took[netdev.WaitFixed]-took[netdev.WaitBackoff])
}

// seed001 builds seed 001's shape: a bond with one slave and m vlans on it,
// each with one IPv6 address whose solicited-node group is distinct. Every
// group lands in the bond's multicast list and, by dev_mc_sync_multiple, in
// the slave's.
func seed001(tb testing.TB, p hwaddr.Policy, m int) *rig {
	r := newRig(tb, rtnl.Config{HWAddr: p})
	r.ok(r.h.LinkAdd(netdev.Bond{Name: "bond0"}))
	r.ok(r.h.LinkAdd(netdev.Dummy{Name: "s0"}))
	r.ok(r.h.LinkSetMaster("s0", "bond0"))
	r.ok(r.h.LinkSetUp("bond0"))
	for i := range m {
		name := fmt.Sprintf("bond0.%d", i+1)
		r.ok(r.h.LinkAdd(netdev.Vlan{Name: name, Link: "bond0", ID: uint16(i + 1)}))
		r.ok(r.h.LinkSetUp(name))
		r.ok(r.h.AddrAdd(name, solicitPrefix(i)))
	}
	r.settle()
	return r
}

// solicitPrefix returns an address whose low 24 bits are i+1, so that
// distinct i give distinct solicited-node groups.
func solicitPrefix(i int) netip.Prefix {
	v := i + 1
	return netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 13: byte(v >> 16), 14: byte(v >> 8), 15: byte(v)}), 64)
}

// TestHWAddrPolicyGrowth adds one IPv6 address to a vlan of seed 001's bond
// with m vlans (m distinct groups already in the bond's and the slave's
// lists) and counts the address-list work it causes, once DAD has joined
// the solicited-node group: the vlan's list is synced to the bond, then
// the bond's (about m entries) to the slave, each entry searched for in the
// slave's list. A ListOnly search walks the list, so the compares per entry
// searched grow linearly with m; a TreeIndexed one descends a red-black
// tree, so they grow logarithmically. The entries walked are the same.
//
// Kernel: dev_mc_sync_multiple → __hw_addr_sync_multiple; commit
// 406f42fa0d3c (seed 001).
func TestHWAddrPolicyGrowth(t *testing.T) {
	sizes := []int{16, 64, 256}
	perSearch := map[hwaddr.Policy][]float64{}
	iterated := map[hwaddr.Policy][]int64{}
	for _, p := range []hwaddr.Policy{hwaddr.ListOnly, hwaddr.TreeIndexed} {
		for _, m := range sizes {
			r := seed001(t, p, m)
			require.Equal(t, m+3, r.dev("s0").MC().Len(), "m groups, ff02::1, 224.0.0.1 and the link-local's group (shared by bond and vlans)")
			before := r.counters()
			r.ok(r.h.AddrAdd("bond0.1", solicitPrefix(m)))
			r.settle()
			d := r.counters().Sub(before)
			cmp, it := d.Get(sim.HWAddrCompare), d.Get(sim.HWAddrIterate)
			require.Positive(t, it)
			perSearch[p] = append(perSearch[p], float64(cmp)/float64(it))
			iterated[p] = append(iterated[p], it)
			t.Logf("%v m=%d: %d compares, %d entries walked, %.1f per entry", p, m, cmp, it, float64(cmp)/float64(it))
		}
	}
	require.Equal(t, iterated[hwaddr.ListOnly], iterated[hwaddr.TreeIndexed], "the policies walk the same entries")
	for i := 1; i < len(sizes); i++ {
		// m grows 4×: ListOnly's cost per entry about 4× (linear), the
		// tree's by about log2(4) = 2 compares (logarithmic).
		lin := perSearch[hwaddr.ListOnly][i] / perSearch[hwaddr.ListOnly][i-1]
		require.InDelta(t, 4, lin, 1, "ListOnly per-entry compares, m %d → %d", sizes[i-1], sizes[i])
		log := perSearch[hwaddr.TreeIndexed][i] - perSearch[hwaddr.TreeIndexed][i-1]
		require.InDelta(t, 2, log, 1, "TreeIndexed per-entry compares, m %d → %d", sizes[i-1], sizes[i])
	}
}
