package fib6

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/fib"
)

// A multipath request refused on insertion (EEXIST: a device route of the
// same metric is there) releases every path it created, the ones after the
// refused path too: their devices can then be unregistered (Linux 6.18:
// ip link del of the last path's device returns at once).
func TestMultipathRefusedReleasesAllPaths(t *testing.T) {
	e := newRouteEnv(t)
	v0, v2 := e.d["v0"], e.d["v2"]
	e.w.RCU().Barrier(e.t)
	b0, b2 := v0.RefCount(), v2.RefCount()
	p := "2001:db8:40::/64"
	require.NoError(t, e.f.Add(e.t, Route{Dst: pfx(p), Dev: v0, Priority: 100}, fib.ModeAdd))
	e.w.RCU().Barrier(e.t)
	require.Equal(t, b0+1, v0.RefCount())
	requireErr(t, e.f.Add(e.t, Route{Dst: pfx(p), Priority: 100, Multipath: []fib.NextHop{
		{Gateway: addr("2001:db8::1"), Dev: v0}, {Gateway: addr("2001:db8:2::1"), Dev: v2}, {Gateway: addr("2001:db8:2::3"), Dev: v2}}},
		fib.ModeAdd), syscall.EEXIST, "")
	e.w.RCU().Barrier(e.t)
	assert.Equal(t, b0+1, v0.RefCount(), "only the device route holds v0")
	assert.Equal(t, b2, v2.RefCount(), "no path of the refused route holds v2")
	require.NoError(t, e.f.CheckInvariants())
}
