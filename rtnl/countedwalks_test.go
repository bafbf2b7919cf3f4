package rtnl_test

import (
	"fmt"
	"testing"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

// countedWalksRun is what TestCountedWalksSimulateTheSame compares between
// the two runs: everything the simulation produces.
type countedWalksRun struct {
	phases   []string // phase name: counters and virtual time (ns) after it
	bondMC   []hwaddr.Entry
	slaveMC  []hwaddr.Entry
	vlanMC   []hwaddr.Entry
	counted  bool // whether the slave's list really counted its walks
	compares int64
}

// runSeed001Small builds seed 001's shape at a small scale (a bond, a veth
// slave, m vlans each with an IPv6 address), then takes part of it down
// again, recording the World's counters and virtual time after each phase.
func runSeed001Small(t *testing.T, cfg rtnl.Config, m int) countedWalksRun {
	r := newRig(t, cfg)
	var run countedWalksRun
	phase := func(name string) {
		r.settle()
		run.phases = append(run.phases, fmt.Sprintf("%s: %v at %dns, task at %dns", name, r.counters(), r.k.World().Now(), r.t.Now()))
	}
	r.ok(r.h.LinkAdd(netdev.Bond{Name: "bond0"}))
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "s0", Peer: "p0"}))
	r.ok(r.h.LinkSetMaster("s0", "bond0"))
	r.ok(r.h.LinkSetUp("bond0"))
	phase("bond")
	for i := range m {
		name := fmt.Sprintf("bond0.%d", i+1)
		r.ok(r.h.LinkAdd(netdev.Vlan{Name: name, Link: "bond0", ID: uint16(i + 1)}))
		r.ok(r.h.LinkSetUp(name))
		r.ok(r.h.AddrAdd(name, solicitPrefix(i)))
	}
	phase("vlans")
	run.bondMC, run.slaveMC, run.vlanMC = r.dev("bond0").MC().Entries(), r.dev("s0").MC().Entries(), r.dev("bond0.1").MC().Entries()
	// Deletes: addresses, vlans, and the slave's release (an unsync).
	for i := 0; i < m; i += 3 {
		r.ok(r.h.AddrDel(fmt.Sprintf("bond0.%d", i+1), solicitPrefix(i)))
	}
	phase("addr del")
	for i := 1; i < m; i += 3 {
		r.ok(r.h.LinkDel(fmt.Sprintf("bond0.%d", i+1)))
	}
	phase("vlan del")
	run.counted, run.compares = r.dev("s0").MC().CountedWalk(), r.dev("s0").MC().Compares()
	r.ok(r.h.LinkSetNoMaster("s0"))
	phase("release")
	return run
}

// TestCountedWalksSimulateTheSame: counted walks are a simulation-speed option
// only. Seed 001's shape with 100 vlans, built and partly taken down with and
// without them, gives the same address lists, the same World counters and the
// same virtual times after every phase, for every address-list policy (the
// option is a no-op for TreeIndexed).
func TestCountedWalksSimulateTheSame(t *testing.T) {
	const m = 100
	for _, base := range []rtnl.Config{rtnl.Before, rtnl.After} {
		t.Run(base.String(), func(t *testing.T) {
			counted := base
			counted.CountedWalks = true
			walked, fast := runSeed001Small(t, base, m), runSeed001Small(t, counted, m)
			require.Equal(t, walked.phases, fast.phases)
			require.Equal(t, walked.bondMC, fast.bondMC)
			require.Equal(t, walked.slaveMC, fast.slaveMC)
			require.Equal(t, walked.vlanMC, fast.vlanMC)
			require.Equal(t, walked.compares, fast.compares)
			require.Greater(t, len(walked.slaveMC), m, "every vlan's group reached the slave")
			require.False(t, walked.counted)
			require.Equal(t, base.HWAddr == hwaddr.ListOnly, fast.counted, "ListOnly lists count their walks")
			if base.HWAddr == hwaddr.ListOnly {
				require.Greater(t, walked.compares, int64(m*m/2), "the slave's searches walked about m²/2 entries per resync")
			}
		})
	}
}

// TestConfigCountedWalks: CountedWalks reaches the device lists, and it does
// not change a Config's name, which says what is simulated: the presets stay
// "before" and "after"; another Config says ",counted-walks".
func TestConfigCountedWalks(t *testing.T) {
	cases := []struct {
		cfg  rtnl.Config
		name string
	}{
		{rtnl.Before, "before"},
		{rtnl.Config{HWAddr: hwaddr.ListOnly, Wait: netdev.WaitFixed, CountedWalks: true}, "before"},
		{rtnl.Config{HWAddr: hwaddr.TreeIndexed, Wait: netdev.WaitBackoff, IfindexList: true, Nexthop: nexthop.FlushDeferred, Rules: fibrules.LockPerOps, CountedWalks: true}, "after"},
		{rtnl.Config{HWAddr: hwaddr.TreeIndexed, Wait: netdev.WaitFixed}, "hwaddr=TreeIndexed,wait=fixed,ifindex-list=false,nexthop=per-nexthop,rules=rtnl"},
		{rtnl.Config{Wait: netdev.WaitBackoff, CountedWalks: true}, "hwaddr=ListOnly,wait=backoff,ifindex-list=false,nexthop=per-nexthop,rules=rtnl,counted-walks"},
	}
	for _, c := range cases {
		require.Equal(t, c.name, c.cfg.String(), "%#v", c.cfg)
		require.NoError(t, c.cfg.Validate())
		r := newRig(t, c.cfg)
		got := r.k.Config()
		require.Equal(t, int64(testRefWaitLimit), got.RefWaitLimit, "the rig bounds netdev_wait_allrefs")
		got.RefWaitLimit = 0
		require.Equal(t, c.cfg, got)
		require.Equal(t, c.cfg.CountedWalks, r.k.Stack().Config().CountedWalks)
		r.ok(r.h.LinkAdd(netdev.Dummy{Name: "d0"}))
		d := r.dev("d0")
		want := c.cfg.CountedWalks && c.cfg.HWAddr == hwaddr.ListOnly
		require.Equal(t, want, d.UC().CountedWalk(), "%s uc", c.name)
		require.Equal(t, want, d.MC().CountedWalk(), "%s mc", c.name)
	}
}
