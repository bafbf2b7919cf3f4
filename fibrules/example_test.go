package fibrules_test

import (
	"fmt"
	"net/netip"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/sim"
)

// Example adds rules to a namespace's IPv4 list under the per-ops lock,
// shows them as `ip rule show` does, and hits the errors `ip rule add`
// reports.
func Example() {
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	t := w.NewTask("ip")
	o, _ := fibrules.NewOps(w, fibrules.Config{Family: fibrules.FamilyIPv4, Policy: fibrules.LockPerOps})

	// ip rule add from 10.0.0.0/8 table 100
	_ = o.Add(t, rtnl, fibrules.Rule{Src: netip.MustParsePrefix("10.0.0.0/8"), Action: fibrules.ActToTable, Table: 100}, true)
	// ip rule add pref 10 fwmark 7 goto 20
	_ = o.Add(t, rtnl, fibrules.Rule{Pref: 10, Attrs: fibrules.AttrPriority, FwMark: 7, Action: fibrules.ActGoto, Goto: 20}, true)
	for _, r := range o.Rules() {
		fmt.Println(r)
	}
	// The same rule again: NLM_F_EXCL.
	fmt.Println(o.Add(t, rtnl, fibrules.Rule{Src: netip.MustParsePrefix("10.0.0.0/8"), Action: fibrules.ActToTable, Table: 100, Pref: 32765, Attrs: fibrules.AttrPriority}, true))
	fmt.Println(o.Add(t, rtnl, fibrules.Rule{Pref: 30, Attrs: fibrules.AttrPriority, Action: fibrules.ActGoto, Goto: 20}, true))
	fmt.Println("RTNL taken:", o.RTNLAcquires())
	// Output:
	// 0:	from all lookup local
	// 10:	from all fwmark 0x7 goto 20 [unresolved]
	// 32765:	from 10.0.0.0/8 lookup 100
	// 32766:	from all lookup main
	// 32767:	from all lookup default
	// file exists
	// invalid argument: Backward goto not supported
	// RTNL taken: 1
}
