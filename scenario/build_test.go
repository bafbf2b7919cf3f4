package scenario_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

var small = scenario.BuildParams{Dummies: 60, VLANs: 40, OneByOne: 10}

func TestBuildIsDeterministic(t *testing.T) {
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		a, err := scenario.Build(cfg, small)
		require.NoError(t, err)
		b, err := scenario.Build(cfg, small)
		require.NoError(t, err)
		require.Equal(t, len(a.Phases), len(b.Phases))
		for i := range a.Phases {
			require.Equal(t, a.Phases[i].Virtual, b.Phases[i].Virtual, "%s %s", cfg, a.Phases[i].Name)
			require.Equal(t, a.Phases[i].Counters, b.Phases[i].Counters, "%s %s", cfg, a.Phases[i].Name)
		}
		require.Equal(t, a.Counters, b.Counters)
		require.Equal(t, a.RTNL.HoldTotal, b.RTNL.HoldTotal)
	}
}

func TestBuildShowsEachPatch(t *testing.T) {
	// On seed 002's machine (HZ=1000, every grace period GracePeriod long),
	// where its deletions poll once.
	p := small
	p.Machine = "seed002"
	before, err := scenario.Build(rtnl.Before, p)
	require.NoError(t, err)
	after, err := scenario.Build(rtnl.After, p)
	require.NoError(t, err)
	phase := func(r *scenario.Report, name string) scenario.Phase {
		p, ok := r.Phase(name)
		require.True(t, ok, name)
		return p
	}

	// Seed 001: the same multicast lists, searched linearly or through the tree.
	vb, va := phase(before, "vlans"), phase(after, "vlans")
	require.Equal(t, vb.Counters.Get(sim.RxModeSync), va.Counters.Get(sim.RxModeSync))
	require.Greater(t, vb.Counters.Get(sim.HWAddrCompare), 3*va.Counters.Get(sim.HWAddrCompare))

	// Seed 002: one msleep per device, 251 ms before and 17 ms after.
	ob, oa := phase(before, "delete one by one"), phase(after, "delete one by one")
	n := int64(small.OneByOne)
	require.Equal(t, n, ob.Counters.Get(sim.Sleep))
	require.Equal(t, n, oa.Counters.Get(sim.Sleep))
	require.Equal(t, n, ob.Counters.Get(sim.RCUBarrier))
	require.GreaterOrEqual(t, ob.Virtual, time.Duration(n)*251*time.Millisecond)
	require.Less(t, oa.Virtual, time.Duration(n)*60*time.Millisecond)

	// Seed 004: one barrier per request; the ifindex list is one request.
	rb, ra := phase(before, "delete the rest"), phase(after, "delete the rest")
	rest := int64(small.Dummies - small.OneByOne)
	require.Equal(t, rest, rb.Counters.Get(sim.RCUBarrier))
	require.Equal(t, int64(1), ra.Counters.Get(sim.RCUBarrier))
	require.Equal(t, rest, ra.Counters.Get(sim.DevUnregister))
	require.Less(t, ra.Virtual, rb.Virtual/10)
}

func TestWriteTable(t *testing.T) {
	r, err := scenario.Build(rtnl.After, scenario.BuildParams{Dummies: 5, VLANs: 2, OneByOne: 2})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, scenario.WriteTable(&buf, []*scenario.Report{r}, sim.RCUBarrier))
	require.Contains(t, buf.String(), "delete the rest")
	require.Contains(t, buf.String(), "rcu_barriers")
	require.Equal(t, 5, bytes.Count(buf.Bytes(), []byte("\n")))
}
