package scenario_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/netsimlab/netsim/machine"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

func phase(t *testing.T, r *scenario.Report, name string) scenario.Phase {
	t.Helper()
	p, ok := r.Phase(name)
	require.True(t, ok, "no phase %q", name)
	return p
}

func TestSeed002WaitPolicies(t *testing.T) {
	const n = 20
	before, err := scenario.Seed002(rtnl.Before, scenario.Seed002Params{Interfaces: n})
	require.NoError(t, err)
	after, err := scenario.Seed002(rtnl.After, scenario.Seed002Params{Interfaces: n})
	require.NoError(t, err)
	db, da := phase(t, before, "delete"), phase(t, after, "delete")

	// One rcu_barrier and exactly one poll per device in both modes: the
	// barrier absorbs the first chained callback, never the second.
	for _, p := range []scenario.Phase{db, da} {
		require.EqualValues(t, n, p.Counters.Get(sim.RCUBarrier))
		require.EqualValues(t, n, p.Counters.Get(sim.Sleep))
	}
	// The only difference is the poll: msleep(250) = 251 ms against
	// msleep(16) = 17 ms at HZ=1000.
	require.Equal(t, time.Duration(n)*234*time.Millisecond, db.Virtual-da.Virtual)
	require.Equal(t, phase(t, before, "create").Virtual, phase(t, after, "create").Virtual)
}

func TestSeed002BackoffStopsAtFirstPollAfterGracePeriods(t *testing.T) {
	// With a grace period longer than the first polls, WaitBackoff polls at
	// 16, 48 (16+32), 112 (+64) ... ms after the barrier and stops at the
	// first poll point after the second chained callback ran; WaitFixed
	// still needs only its one 251 ms poll. On seed 002's machine, whose
	// grace periods all last GracePeriod.
	m, err := machine.Load("seed002")
	require.NoError(t, err)
	for _, tc := range []struct {
		gp     time.Duration
		sleeps int64
	}{
		{10 * time.Millisecond, 1}, // second callback within 16 ms
		{30 * time.Millisecond, 2}, // within 16+32
		{90 * time.Millisecond, 3}, // within 16+32+64
	} {
		c := m.Costs
		c.GracePeriod = tc.gp
		r, err := scenario.Seed002(rtnl.After, scenario.Seed002Params{Interfaces: 5, Costs: &c})
		require.NoError(t, err)
		require.EqualValues(t, 5*tc.sleeps, phase(t, r, "delete").Counters.Get(sim.Sleep), "gp=%v", tc.gp)
		r, err = scenario.Seed002(rtnl.Before, scenario.Seed002Params{Interfaces: 5, Costs: &c})
		require.NoError(t, err)
		require.EqualValues(t, 5, phase(t, r, "delete").Counters.Get(sim.Sleep), "gp=%v", tc.gp)
	}
}

func TestSeed004Barriers(t *testing.T) {
	const n = 300
	one, err := scenario.Seed004(rtnl.Before, scenario.Seed004Params{Devices: n, Threads: 1})
	require.NoError(t, err)
	p := phase(t, one, "one-by-one/1")
	require.EqualValues(t, n, p.Counters.Get(sim.RCUBarrier), "one barrier per request")
	require.EqualValues(t, 2*n, p.Counters.Get(sim.SyncExpedited), "two synchronize_net per request")
	// RTNL twice per device (the request, then 5.x's dev_unreg_count
	// update in netdev_run_todo) and rcu_barrier's mutex once.
	require.EqualValues(t, 3*n, p.Counters.Get(sim.LockAcquire))

	for _, m := range []scenario.Seed004Method{scenario.ByGroup, scenario.ByList} {
		r, err := scenario.Seed004(rtnl.After, scenario.Seed004Params{Devices: n, Method: m})
		require.NoError(t, err)
		g := phase(t, r, m.String())
		require.EqualValues(t, 1, g.Counters.Get(sim.RCUBarrier), m)
		require.EqualValues(t, 2, g.Counters.Get(sim.SyncExpedited), m)
		require.EqualValues(t, n, g.Counters.Get(sim.DevUnregister), m)
		require.Less(t, g.Virtual, p.Virtual/3, m)
	}

	// Threads share barriers (rcu_barrier's sequence check): fewer barriers
	// run than are asked for, and the makespan shrinks towards the RTNL-bound
	// floor.
	ten, err := scenario.Seed004(rtnl.Before, scenario.Seed004Params{Devices: n, Threads: 10})
	require.NoError(t, err)
	p10 := phase(t, ten, "one-by-one/10")
	require.EqualValues(t, n, p10.Counters.Get(sim.RCUBarrier)+p10.Counters.Get(sim.RCUBarrierShared))
	require.Less(t, p10.Counters.Get(sim.RCUBarrier), int64(n/2))
	require.Less(t, p10.Virtual, p.Virtual/2)

	// The list needs the patch.
	_, err = scenario.Seed004(rtnl.Before, scenario.Seed004Params{Devices: 10, Method: scenario.ByList})
	require.ErrorContains(t, err, "IFLA_IFINDEX_LIST")
}

func TestSeed004GroupIsQuadratic(t *testing.T) {
	// Each device's NETDEV_DOWN walks every IPv6 route left in the
	// namespace (three per device): group deletion visits ~1.5·N² routes.
	visits := func(n int) int64 {
		r, err := scenario.Seed004(rtnl.Before, scenario.Seed004Params{Devices: n, Method: scenario.ByGroup})
		require.NoError(t, err)
		return phase(t, r, "group").Counters.Get(sim.Fib6Visit)
	}
	a, b := visits(200), visits(400)
	require.InDelta(t, 4.0, float64(b)/float64(a), 0.1)
}

func TestRunSeedsIsDeterministic(t *testing.T) {
	a, err := scenario.RunSeeds([]string{"002", "004"})
	require.NoError(t, err)
	b, err := scenario.RunSeeds([]string{"002", "004"})
	require.NoError(t, err)
	require.Equal(t, len(a), len(b))
	for i := range a {
		require.Equal(t, a[i].Virtual, b[i].Virtual, "%s %s %s", a[i].Seed, a[i].Phase, a[i].Mode)
		require.Equal(t, a[i].Report.Counters, b[i].Report.Counters)
	}
	// Seed 001 at reduced scale, both modes.
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		x, err := scenario.Seed001(cfg, scenario.Seed001Params{VLANs: 120})
		require.NoError(t, err)
		y, err := scenario.Seed001(cfg, scenario.Seed001Params{VLANs: 120})
		require.NoError(t, err)
		for i := range x.Phases {
			require.Equal(t, x.Phases[i].Virtual, y.Phases[i].Virtual, "%s %s", cfg, x.Phases[i].Name)
			require.Equal(t, x.Phases[i].Counters, y.Phases[i].Counters)
		}
	}
	_, err = scenario.RunSeeds([]string{"009"})
	require.ErrorContains(t, err, `unknown or unimplemented seed "009"`)
}

func TestSeed001Growth(t *testing.T) {
	// Per address added (and per VRF enslave), ListOnly compares grow as the
	// square of the VLAN count — each of the two bond re-syncs searches the
	// slave's list once per entry of the bond's — and TreeIndexed as n log n.
	perOp := func(cfg rtnl.Config, n int, name string) float64 {
		r, err := scenario.Seed001(cfg, scenario.Seed001Params{VLANs: n})
		require.NoError(t, err)
		return float64(phase(t, r, name).Counters.Get(sim.HWAddrCompare)) / float64(n)
	}
	for _, name := range []string{"assign addresses", "attach to vrf"} {
		l1, l2 := perOp(rtnl.Before, 150, name), perOp(rtnl.Before, 300, name)
		require.InDelta(t, 4.0, l2/l1, 0.5, "%s: ListOnly per op", name)
		t1, t2 := perOp(rtnl.After, 150, name), perOp(rtnl.After, 300, name)
		require.Greater(t, t2/t1, 1.9, "%s: TreeIndexed per op", name)
		require.Less(t, t2/t1, 2.7, "%s: TreeIndexed per op", name)
		require.Greater(t, l2, 5*t2, name)
	}
	// Creating VLANs touches no growing list at all, in either mode.
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		r, err := scenario.Seed001(cfg, scenario.Seed001Params{VLANs: 150, Phases: 1})
		require.NoError(t, err)
		require.Zero(t, phase(t, r, "create vlans").Counters.Get(sim.HWAddrCompare))
		require.Zero(t, phase(t, r, "create vlans").Counters.Get(sim.RxModeSync))
	}
}

func TestSeed001Syncs(t *testing.T) {
	// Every change of an up VLAN's lists reloads its rx mode, which syncs
	// its lists to b1 twice (dev_mc_sync, dev_uc_sync), each reloading b1,
	// whose bond_set_rx_mode syncs both lists to bar: 1 + 2×(1+2) = 7
	// reloads. mechanisms/SEED001.md §2 counts per VLAN 3 such changes when
	// it comes up, 1 per address and 10 per VRF enslave (20 bond syncs).
	const n = 100
	r, err := scenario.Seed001(rtnl.After, scenario.Seed001Params{VLANs: n})
	require.NoError(t, err)
	changes := func(name string) float64 {
		return float64(phase(t, r, name).Counters.Get(sim.RxModeSync)) / n / 7
	}
	require.InDelta(t, 3, changes("bring up"), 0.05)
	require.InDelta(t, 1, changes("assign addresses"), 0.05)
	require.InDelta(t, 10, changes("attach to vrf"), 0.2)
}

func TestSeed001PreviousRunStallsSetupNotCreate(t *testing.T) {
	// The hypothesis for seed 001's unexplained 108 s: the previous run's
	// namespace being dismantled under RTNL. In the model its cleanup
	// (cleanup_net) holds RTNL in one stretch, so the set-up commands wait
	// for it and the timed VLAN creation does not.
	const n = 200
	fresh, err := scenario.Seed001(rtnl.Before, scenario.Seed001Params{VLANs: n, Phases: 1})
	require.NoError(t, err)
	prev, err := scenario.Seed001(rtnl.Before, scenario.Seed001Params{VLANs: n, Phases: 1, PreviousRun: true})
	require.NoError(t, err)
	require.Equal(t, phase(t, fresh, "create vlans").Virtual, phase(t, prev, "create vlans").Virtual)
	require.Greater(t, phase(t, prev, "setup").Virtual, 5*phase(t, fresh, "setup").Virtual)
	require.Greater(t, prev.RTNL.HoldMax, 100*fresh.RTNL.HoldMax)
}

func TestSeed000(t *testing.T) {
	// At reduced scale: one FIB flush per nexthop before (plus the FIB's own
	// on NETDEV_DOWN), one in all after; the same routes are left; RTNL is
	// held for the whole command and a bystander asking for it in the
	// meantime waits for all of it.
	const n = 256
	res := map[string]*scenario.Seed000Result{}
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		r, err := scenario.Seed000(cfg, scenario.Seed000Params{Nexthops: n, Bystander: 100 * time.Microsecond})
		require.NoError(t, err)
		res[cfg.String()] = r
		p := phase(t, r.Report, "link down")
		require.Greater(t, r.Hold, time.Duration(0))
		require.LessOrEqual(t, r.Hold, p.Virtual)
		require.InDelta(t, float64(r.Hold), float64(r.BystanderMax), float64(r.Hold)/5, "the bystander waits about the whole hold")
		require.Zero(t, p.Counters.Get(sim.Sleep), "nothing sleeps on this path")
	}
	b, a := res["before"], res["after"]
	require.EqualValues(t, n+1, b.Flushes)
	require.EqualValues(t, 2, a.Flushes)
	require.Greater(t, b.LeafVisits, int64(n*n))
	require.Less(t, a.LeafVisits, int64(3*n))
	require.Greater(t, b.Hold, a.Hold)
}

// TestScoreRows: calibrated rows are not counted as predictions, and the
// bands are ±35% and ±15% of the published time.
func TestScoreRows(t *testing.T) {
	rows := []scenario.SeedRow{
		{Published: 10, Virtual: 10 * time.Second, Calibrated: true},
		{Published: 10, Virtual: 11 * time.Second},   // +10%
		{Published: 10, Virtual: 7 * time.Second},    // -30%
		{Published: 10, Virtual: 14 * time.Second},   // +40%
		{Published: 0, Virtual: 3 * time.Second},     // no published time
		{Published: 100, Virtual: 85 * time.Second},  // -15%: in both bands
		{Published: 100, Virtual: 135 * time.Second}, // +35%
	}
	require.Equal(t, scenario.Score{Published: 6, Calibrated: 1, Predicted: 5, Within35: 4, Within15: 2}, scenario.ScoreRows(rows))
}

func TestSeed000ListenerHearsNothingPerObject(t *testing.T) {
	// The bystander (systemd-networkd) listens during the link down. The
	// kernel tells it of the device and of its IPv6 link-local address and
	// routes, and of nothing per nexthop or IPv4 route: nexthop_flush_dev
	// removes nexthops without an nl_info (no RTM_DELNEXTHOP) and
	// fib_table_flush sends no RTM_DELROUTE for routes a device took down.
	// So what a listener is told does not grow with the nexthops, and
	// listening costs the link down nothing (the development VM's 6.18
	// kernel: internal/measure/listeners.sh -s seed000).
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		var heard []int
		for _, n := range []int{64, 256} {
			p := scenario.Seed000Params{Nexthops: n, Bystander: 100 * time.Microsecond}
			r, err := scenario.Seed000(cfg, p)
			require.NoError(t, err)
			links := 0
			for _, m := range r.Heard {
				require.NotEqual(t, rt.RTMDelNexthop, m.Type, "%v N=%d", cfg, n)
				require.False(t, m.Type == rt.RTMDelRoute && m.Family == rt.FamilyInet, "%v N=%d: an IPv4 route deletion told", cfg, n)
				if m.Type == rt.RTMNewLink {
					links++
					require.Equal(t, "testnh0", m.Link.Name)
				}
			}
			require.Equal(t, 1, links, "%v N=%d", cfg, n)
			heard = append(heard, len(r.Heard))
			// What `ip monitor all` shows on the development VM's 6.18
			// kernel, in its order (but the neighbours, not modelled):
			// the link, fe80::/64, the link-local's local route,
			// ff00::/8, the link-local address.
			var got []string
			for _, m := range r.Heard {
				w := fmt.Sprint(m.Type, " ", m.Family)
				switch {
				case m.Route != nil:
					w += " " + m.Route.Dst.String()
				case m.Addr != nil:
					w += " " + m.Addr.Addr.Prefix.Masked().String()
				}
				got = append(got, w)
			}
			require.Len(t, got, 5, "%v N=%d: %q", cfg, n, got)
			require.Equal(t, fmt.Sprint(rt.RTMNewLink, " ", rt.Family(0)), got[0])
			require.Equal(t, fmt.Sprint(rt.RTMDelRoute, " ", rt.FamilyInet6, " fe80::/64"), got[1])
			require.Regexp(t, `^`+fmt.Sprint(rt.RTMDelRoute, " ", rt.FamilyInet6)+` fe80::[0-9a-f:]+/128$`, got[2])
			require.Equal(t, fmt.Sprint(rt.RTMDelRoute, " ", rt.FamilyInet6, " ff00::/8"), got[3])
			require.Equal(t, fmt.Sprint(rt.RTMDelAddr, " ", rt.FamilyInet6, " fe80::/64"), got[4])

			p.Deaf = true
			deaf, err := scenario.Seed000(cfg, p)
			require.NoError(t, err)
			require.Empty(t, deaf.Heard)
			d, l := phase(t, deaf.Report, "link down"), phase(t, r.Report, "link down")
			require.Equal(t, d.Virtual, l.Virtual, "%v N=%d: a listener costs the link down nothing", cfg, n)
			require.Equal(t, d.Counters, l.Counters, "%v N=%d", cfg, n)
		}
		require.Equal(t, heard[0], heard[1], "%v: what a listener hears does not grow with N", cfg)
		require.LessOrEqual(t, heard[0], 6, "%v", cfg)
	}
}
