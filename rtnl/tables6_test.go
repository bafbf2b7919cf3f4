package rtnl_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// A rule for a table that a route created finds it (fib6_new_table returns
// the existing table): one table created, not two.
func TestRuleFindsTableARouteCreated6(t *testing.T) {
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		r := newRig(t, cfg)
		r.ok(r.h.RouteAdd(rtnl.Route{Table: 100, Dst: netip.MustParsePrefix("2001:db8::/64"), Type: fib.TypeBlackhole}))
		created := r.k.Counters().Get(sim.Fib6NewTable)
		r.ok(r.h.RuleAdd(rt.FamilyInet6, fibrules.Rule{Table: 100, Action: fibrules.ActToTable}))
		require.Equal(t, created, r.k.Counters().Get(sim.Fib6NewTable), "%s: the rule created table 100 again", cfg)
		r.ok(r.h.RuleAdd(rt.FamilyInet6, fibrules.Rule{Table: 101, Action: fibrules.ActToTable}))
		require.Equal(t, created+1, r.k.Counters().Get(sim.Fib6NewTable), "%s: a new table for the rule", cfg)
	}
}
