package rtnl_test

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// rules returns the dump of the family's rules.
func (r *rig) rules(family rt.Family) []fibrules.Rule {
	r.tb.Helper()
	l, err := r.h.RuleList(family)
	require.NoError(r.tb, err)
	return l
}

// prefTables returns the pref and table of each rule of the family.
func (r *rig) prefTables(family rt.Family) [][2]uint32 {
	var out [][2]uint32
	for _, x := range r.rules(family) {
		out = append(out, [2]uint32{x.Pref, x.Table})
	}
	return out
}

func TestRulesThroughHandle(t *testing.T) {
	r := routeRig(t, rtnl.After)
	// local, main, default; IPv6 has no default rule.
	require.Equal(t, [][2]uint32{{0, 255}, {32766, 254}, {32767, 253}}, r.prefTables(rt.FamilyInet))
	require.Equal(t, [][2]uint32{{0, 255}, {32766, 254}}, r.prefTables(rt.FamilyInet6))
	for _, x := range r.rules(rt.FamilyInet) {
		require.Equal(t, fibrules.ActToTable, x.Action)
		require.EqualValues(t, 2, x.Protocol) // kernel
		require.False(t, x.Src.IsValid() && x.Src.Bits() > 0)
	}

	// A route in table 10 is found only once a rule sends lookups there.
	r.ok(r.h.RouteAdd(rtnl.Route{Table: 10, Dst: pfx("10.0.0.0/8"), Gateway: netip.MustParseAddr("198.51.100.2"), Dev: "eth0"}))
	_, err := r.h.RouteGet(netip.MustParseAddr("10.1.1.1"))
	require.ErrorIs(t, err, syscall.ENETUNREACH)
	r.ok(r.h.RuleAdd(rt.FamilyInet, fibrules.Rule{Pref: 100, Table: 10, Action: fibrules.ActToTable, Attrs: fibrules.AttrPriority}))
	got, err := r.h.RouteGet(netip.MustParseAddr("10.1.1.1"))
	require.NoError(t, err)
	require.EqualValues(t, 10, got.Table)
	// Local and main still work after the tables split.
	got, err = r.h.RouteGet(netip.MustParseAddr("198.51.100.7"))
	require.NoError(t, err)
	require.Equal(t, "eth0", got.Dev)

	// The same rule again: EEXIST, nothing changes.
	before := r.rules(rt.FamilyInet)
	err = r.h.RuleAdd(rt.FamilyInet, fibrules.Rule{Pref: 100, Table: 10, Action: fibrules.ActToTable, Attrs: fibrules.AttrPriority})
	require.ErrorIs(t, err, syscall.EEXIST)
	require.Equal(t, before, r.rules(rt.FamilyInet))
	require.ErrorIs(t, r.h.RuleDel(rt.FamilyInet, fibrules.Rule{Pref: 555, Attrs: fibrules.AttrPriority}), syscall.ENOENT)
	_, err = r.h.RuleList(99)
	require.ErrorIs(t, err, syscall.EAFNOSUPPORT)
}

func TestRuleLocking(t *testing.T) {
	// LockRTNL takes RTNL for every rule; LockPerOps only for the first
	// IPv4 rule of a namespace (fib_unmerge) and never for IPv6.
	for _, tc := range []struct {
		cfg      rtnl.Config
		v4, v6   int64
		v6tables bool
	}{
		{rtnl.Before, 20, 20, true},
		{rtnl.After, 1, 0, true},
	} {
		r := newRig(t, tc.cfg)
		add := func(family rt.Family) int64 {
			before := r.k.RTNL().Stats().Acquires
			for i := 1; i <= 20; i++ {
				r.ok(r.h.RuleAdd(family, fibrules.Rule{Table: uint32(i), Action: fibrules.ActToTable}))
			}
			return r.k.RTNL().Stats().Acquires - before
		}
		require.Equal(t, tc.v4, add(rt.FamilyInet), tc.cfg)
		c0 := r.counters().Get(sim.Fib6TableWalk)
		require.Equal(t, tc.v6, add(rt.FamilyInet6), tc.cfg)
		// Every IPv6 rule creates its table, then walks every IPv6 table:
		// 3 + 4 + ... + 22.
		require.EqualValues(t, 250, r.counters().Get(sim.Fib6TableWalk)-c0)
		require.Len(t, r.rules(rt.FamilyInet), 23)
	}
}
