package rtnl_test

import (
	"fmt"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/netsimlab/netsim/neigh"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// neighWatch records the namespace's neighbour notifications as
// "+1.000s RTM_NEWNEIGH 10.0.0.2 0x10 probes 1", the time relative to
// start.
func neighWatch(r *rig, start sim.Time) (*[]string, func()) {
	got, _, cancel := neighWatchAt(r, start)
	return got, cancel
}

// neighWatchAt is neighWatch with the notifications' times.
func neighWatchAt(r *rig, start sim.Time) (*[]string, *[]sim.Time, func()) {
	var got []string
	var at []sim.Time
	cancel := r.k.InitNet().Subscribe(func(n rtnl.Notification) {
		if n.Neigh == nil {
			return
		}
		typ := map[rt.MsgType]string{rt.RTMNewNeigh: "RTM_NEWNEIGH", rt.RTMDelNeigh: "RTM_DELNEIGH"}[n.Type]
		now := r.k.World().Now()
		got = append(got, fmt.Sprintf("+%v %s %s %#x probes %d", now.Sub(start), typ, n.Neigh.Dst, uint16(n.Neigh.State), n.Neigh.Probes))
		at = append(at, now)
	})
	return &got, &at, cancel
}

func neighGet(r *rig, addr string) rtnl.NeighInfo {
	r.tb.Helper()
	l, err := r.h.NeighList(rt.FamilyUnspec)
	r.ok(err)
	for _, n := range l {
		if n.Dst == netip.MustParseAddr(addr) {
			return n
		}
	}
	r.tb.Fatalf("no neighbour %s", addr)
	return rtnl.NeighInfo{}
}

// TestNeighTimersProbeAndFail follows what Linux 6.18 did with entries
// nobody answers (`ip -ts monitor neigh` in a namespace, HZ 250): DELAY
// turned PROBE at the next tick and FAILED three seconds later with three
// probes sent; "use" on an entry without an address went INCOMPLETE
// unnotified and FAILED after 3 s with six probes (three unicast, three
// multicast); an administrative INCOMPLETE entry runs no timer. netsim's
// tick is the cost profile's jiffy (1 ms).
func TestNeighTimersProbeAndFail(t *testing.T) {
	r := neighRig(t)
	start := r.t.Now()
	got, cancel := neighWatch(r, start)
	defer cancel()
	r.ok(r.h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.12", "02:00:00:00:00:12", neigh.StateDelay, 0)))
	r.ok(r.h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.19", "", neigh.StatePermanent, neigh.FlagUse)))
	r.ok(r.h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.15", "", neigh.StateIncomplete, 0)))
	n := neighGet(r, "10.0.0.19")
	require.Equal(t, neigh.StateIncomplete, n.State)
	require.EqualValues(t, 4, n.Probes) // ucast_solicit, and the one sent at once
	require.EqualValues(t, 1, n.Cache.Refcnt)
	require.EqualValues(t, 0, neighGet(r, "10.0.0.15").Cache.Refcnt)
	r.k.SettleFor(r.t, 10*time.Second)
	for _, a := range []string{"10.0.0.12", "10.0.0.19"} {
		n := neighGet(r, a)
		require.Equal(t, neigh.StateFailed, n.State, a)
		require.Zero(t, n.Cache.Refcnt, a)
	}
	require.EqualValues(t, 3, neighGet(r, "10.0.0.12").Probes)
	require.EqualValues(t, 6, neighGet(r, "10.0.0.19").Probes)
	require.Equal(t, neigh.StateIncomplete, neighGet(r, "10.0.0.15").State)
	// Notifications: the add's (delay), PROBE a tick later with no probe
	// sent yet, FAILED after three retransmission times. The times are
	// from the first add; each request takes some microseconds.
	require.Len(t, *got, 4)
	require.Regexp(t, `^\+[\d.]+µs RTM_NEWNEIGH 10.0.0.12 0x8 probes 0$`, (*got)[0])
	require.Regexp(t, `^\+1\.\d+ms RTM_NEWNEIGH 10.0.0.12 0x10 probes 0$`, (*got)[1])
	require.Regexp(t, `^\+3\.00\d+s RTM_NEWNEIGH 10.0.0.19 0x20 probes 6$`, (*got)[2])
	require.Regexp(t, `^\+3\.001\d*s RTM_NEWNEIGH 10.0.0.12 0x20 probes 3$`, (*got)[3])
}

// TestNeighTimersReachable: a REACHABLE entry turns STALE (notified) once
// its reachable time has passed since it was confirmed; one used in the
// last delay_first_probe_time turns DELAY first. The reachable time is a
// draw in [base/2, 3·base/2) from the table's seeded generator: the same
// on every run, and a new one when the base changes.
func TestNeighTimersReachable(t *testing.T) {
	r := neighRig(t)
	arp := r.k.NeighTable(rt.FamilyInet)
	rt0 := arp.ReachableTime()
	require.GreaterOrEqual(t, rt0, 15*time.Second)
	require.Less(t, rt0, 45*time.Second)
	require.Equal(t, rt0, neighRig(t).k.NeighTable(rt.FamilyInet).ReachableTime())
	start := r.t.Now()
	got, at, cancel := neighWatchAt(r, start)
	defer cancel()
	r.ok(r.h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.11", "02:00:00:00:00:11", neigh.StateReachable, 0)))
	r.k.SettleFor(r.t, rt0-time.Millisecond)
	require.Equal(t, neigh.StateReachable, neighGet(r, "10.0.0.11").State, "%q %v", *got, rt0)
	// Confirmed again (an administrative REACHABLE): the timer finds it
	// still alive and waits for the new confirmation's reachable time.
	r.ok(r.h.NewNeigh(neighReq(r, nlmChange, "veth0", "10.0.0.11", "02:00:00:00:00:11", neigh.StateReachable, 0)))
	confirmed := r.t.Now()
	r.k.SettleFor(r.t, rt0)
	require.Equal(t, neigh.StateReachable, neighGet(r, "10.0.0.11").State)
	r.k.SettleFor(r.t, 20*time.Millisecond)
	require.Equal(t, neigh.StateStale, neighGet(r, "10.0.0.11").State)
	require.Len(t, *got, 2)
	stale := (*at)[1]
	require.GreaterOrEqual(t, stale.Sub(confirmed), rt0)
	require.Less(t, stale.Sub(confirmed), rt0+11*time.Millisecond)

	r.ok(r.h.Sysctl("net.ipv4.neigh.default.base_reachable_time_ms", "2000"))
	rt1 := arp.ReachableTime()
	require.GreaterOrEqual(t, rt1, time.Second)
	require.Less(t, rt1, 3*time.Second)
	// Used within delay_first_probe_time when the reachable time ends:
	// DELAY (not notified), then, unconfirmed, PROBE and FAILED.
	r.ok(r.h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.21", "02:00:00:00:00:21", neigh.StateReachable, 0)))
	r.k.SettleFor(r.t, rt1+20*time.Millisecond)
	require.Equal(t, neigh.StateDelay, neighGet(r, "10.0.0.21").State)
	r.k.SettleFor(r.t, 10*time.Second)
	require.Equal(t, neigh.StateFailed, neighGet(r, "10.0.0.21").State)
}

// TestNeighPeriodicGC: with gc_thresh1 entries in the tables, the
// periodic work (every base_reachable_time/2) removes the failed entries
// and those unused for gc_stale_time, each with its RTM_DELNEIGH, but not a
// permanent, extern_learn or timerless INCOMPLETE one; below gc_thresh1 it
// removes nothing, as Linux 6.18 keeps a namespace's few stale entries.
func TestNeighPeriodicGC(t *testing.T) {
	r := neighRig(t)
	mac := "02:00:00:00:00:09"
	add := func(a string, s neigh.State, f neigh.Flags) {
		m := mac
		if s == neigh.StateIncomplete {
			m = ""
		}
		r.ok(r.h.NewNeigh(neighReq(r, nlmAdd, "veth0", a, m, s, f)))
	}
	add("10.0.0.2", neigh.StateStale, 0)
	add("10.0.0.3", neigh.StateFailed, 0)
	add("10.0.0.4", neigh.StatePermanent, 0)
	add("10.0.0.5", neigh.StateStale, neigh.FlagExtLearned)
	add("10.0.0.6", neigh.StateIncomplete, 0)
	arp := r.k.NeighTable(rt.FamilyInet)
	r.k.SettleFor(r.t, 10*time.Minute)
	require.Equal(t, 5, arp.Len(), "below gc_thresh1 nothing goes")
	start := r.t.Now()
	got, cancel := neighWatch(r, start)
	defer cancel()
	r.ok(r.h.Sysctl("net.ipv4.neigh.default.gc_thresh1", "3"))
	r.k.SettleFor(r.t, 16*time.Second)
	require.Equal(t, 3, arp.Len())
	require.Len(t, *got, 2)
	require.Regexp(t, `RTM_DELNEIGH 10.0.0.2 0x4`, (*got)[0])
	require.Regexp(t, `RTM_DELNEIGH 10.0.0.3 0x20`, (*got)[1])
	runs := arp.Stats().PeriodicGCRuns
	require.NotZero(t, runs)
	// Three entries, none collectable: the work no longer runs.
	r.k.SettleFor(r.t, time.Hour)
	require.Equal(t, runs, arp.Stats().PeriodicGCRuns)
	// A stale entry is kept for gc_stale_time (60 s) after its use.
	add("10.0.0.7", neigh.StateStale, 0)
	r.k.SettleFor(r.t, 45*time.Second)
	require.Equal(t, 4, arp.Len())
	r.k.SettleFor(r.t, 31*time.Second)
	require.Equal(t, 3, arp.Len())
	r.k.Settle(r.t) // nothing left to collect: settling ends
}

// TestNeighManaged: a managed entry is probed at once when added and
// again by the managed work every interval_probe_time_ms (5 s), failing
// three seconds after each start, notified each time, as Linux 6.18 did;
// settling does not wait for that work, and a scheduled World whose tasks
// have finished ends although it repeats.
func TestNeighManaged(t *testing.T) {
	r := neighRig(t)
	start := r.t.Now()
	got, cancel := neighWatch(r, start)
	defer cancel()
	r.ok(r.h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.16", "", neigh.StateNone, neigh.FlagManaged)))
	r.k.SettleFor(r.t, 21*time.Second)
	var failed int
	for _, s := range *got {
		require.Contains(t, s, "RTM_NEWNEIGH 10.0.0.16 0x20 probes 6")
		failed++
	}
	require.Equal(t, 4, failed, "%q", *got) // at 3 s, then after the work at 5, 10 and 15 s
	r.k.Settle(r.t)
	require.Less(t, r.t.Now().Sub(start), 30*time.Second)
	r.ok(r.h.NewNeigh(neighReq(r, nlmChange, "veth0", "10.0.0.16", "02:00:00:00:00:16", neigh.StateStale, 0)))
	before := len(*got)
	r.k.SettleFor(r.t, 30*time.Second)
	require.Len(t, *got, before, "no longer managed: no more probes")

	w := sim.MustNewWorld(sim.Options{})
	k, err := rtnl.NewKernelIn(w, rtnl.Config{RefWaitLimit: testRefWaitLimit})
	require.NoError(t, err)
	w.Spawn("ip", func(task *sim.Task) {
		h := k.InitNet().Handle(task)
		rs := &rig{tb: t, k: k, t: task, h: h}
		rs.ok(h.LinkAdd(netdev.Veth{Name: "veth0", Peer: "veth1"}))
		rs.up("veth0", "veth1")
		rs.ok(h.AddrAdd("veth0", netip.MustParsePrefix("10.0.0.1/24")))
		rs.ok(h.NewNeigh(neighReq(rs, nlmAdd, "veth0", "10.0.0.16", "", neigh.StateNone, neigh.FlagManaged)))
		task.Sleep(12 * time.Second)
	})
	end := w.Run()
	require.Less(t, end, sim.Time(0).Add(time.Minute))
}

// TestNeighParmsSysctls: the default parms each sysctl sets, in its unit,
// in the initial namespace only; out-of-range values are refused.
func TestNeighParmsSysctls(t *testing.T) {
	r := neighRig(t)
	nd := r.k.NeighTable(rt.FamilyInet6)
	for _, c := range [][2]string{
		{"retrans_time", "150"}, {"retrans_time_ms", "1500"}, {"delay_first_probe_time", "7"},
		{"gc_stale_time", "90"}, {"interval_probe_time_ms", "2500"}, {"ucast_solicit", "1"},
		{"mcast_solicit", "0"}, {"mcast_resolicit", "2"}, {"app_solicit", "4"}, {"base_reachable_time", "10"},
	} {
		r.ok(r.h.Sysctl("net.ipv6.neigh.default."+c[0], c[1]))
	}
	require.Equal(t, neigh.Parms{
		BaseReachableTime: 10 * time.Second, RetransTime: 1500 * time.Millisecond,
		DelayProbeTime: 7 * time.Second, GCStaleTime: 90 * time.Second,
		IntervalProbeTime: 2500 * time.Millisecond, UcastProbes: 1, McastReprobes: 2, AppProbes: 4,
	}, nd.Parms)
	require.Equal(t, neigh.DefaultParms, r.k.NeighTable(rt.FamilyInet).Parms)
	require.ErrorIs(t, r.h.Sysctl("net.ipv6.neigh.default.interval_probe_time_ms", "0"), syscall.EINVAL)
	require.ErrorIs(t, r.h.Sysctl("net.ipv6.neigh.default.ucast_solicit", "-1"), syscall.EINVAL)
	require.ErrorIs(t, r.h.Sysctl("net.ipv6.neigh.veth0.ucast_solicit", "1"), syscall.ENOENT)
	ns, err := r.k.NewNet(r.t, "other")
	r.ok(err)
	require.ErrorIs(t, ns.Handle(r.t).Sysctl("net.ipv6.neigh.default.ucast_solicit", "1"), syscall.ENOENT)
}
