package fibrules_test

import (
	"fmt"
	"net/netip"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Example adds rules to a namespace's IPv4 list under the per-ops lock,
// lists their values (which iproute prints as `ip rule show`), and hits
// the errors `ip rule add` reports.
func Example() {
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	t := w.NewTask("ip")
	o, _ := fibrules.NewOps(w, fibrules.Config{Family: rt.FamilyInet, Policy: fibrules.LockPerOps})

	// ip rule add from 10.0.0.0/8 table 100
	_ = o.Add(t, rtnl, fibrules.Rule{Src: netip.MustParsePrefix("10.0.0.0/8"), Action: fibrules.ActToTable, Table: 100}, true)
	// ip rule add pref 10 fwmark 7 goto 20
	_ = o.Add(t, rtnl, fibrules.Rule{Pref: 10, Attrs: fibrules.AttrPriority, FwMark: 7, Action: fibrules.ActGoto, Goto: 20}, true)
	for _, r := range o.Rules() {
		src := "all"
		if r.Src.IsValid() {
			src = r.Src.String()
		}
		fmt.Println(r.Pref, src, r.Action, r.Table, r.Goto, r.Flags&fibrules.FlagUnresolved != 0)
	}
	// The same rule again: NLM_F_EXCL.
	fmt.Println(o.Add(t, rtnl, fibrules.Rule{Src: netip.MustParsePrefix("10.0.0.0/8"), Action: fibrules.ActToTable, Table: 100, Pref: 32765, Attrs: fibrules.AttrPriority}, true))
	fmt.Println(o.Add(t, rtnl, fibrules.Rule{Pref: 30, Attrs: fibrules.AttrPriority, Action: fibrules.ActGoto, Goto: 20}, true))
	fmt.Println("RTNL taken:", o.RTNLAcquires())
	// Output:
	// 0 all lookup 255 0 false
	// 10 all goto 0 20 true
	// 32765 10.0.0.0/8 lookup 100 0 false
	// 32766 all lookup 254 0 false
	// 32767 all lookup 253 0 false
	// file exists
	// invalid argument: Backward goto not supported
	// RTNL taken: 1
}
