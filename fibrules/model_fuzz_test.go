package fibrules_test

import (
	"net/netip"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/internal/fuzzops"
	"github.com/netsimlab/netsim/netdev"
)

// FuzzRules decodes its input into a sequence of rule requests — adds of
// every action (gotos to present and missing targets included), deletes,
// nop rules on interfaces, and the creation, renaming and deletion of the
// interfaces they name — and after every step compares the dump and eight
// lookups with the reference model (modelLookup) and runs
// Ops.CheckInvariants. It is TestRandomAgainstModel with the choices read
// from the input, and device events added.
func FuzzRules(f *testing.F) {
	f.Add([]byte("\x02\x10\x03\x01\x02\x03\x04\x05\x06\x07\x03\x02\x01\x00\x10\x20\x30"))
	f.Add([]byte("\x00\x00\x01\x00\x01\x02\x05\x03\x04\x03\x00\x01\x02\x03\x04\x05\x06\x07\x00\x00"))
	f.Fuzz(fuzzRun)
}

// fuzzRun is randomRun (model_test.go) reading its choices from data.
func fuzzRun(t *testing.T, data []byte) {
	rng := fuzzops.New(data)
	seed := 0 // messages keep randomRun's shape
	e := newEnv(t, fibrules.LockPerOps)
	eth0 := e.dummy("eth0", "192.0.2.1/24")
	// A few tables with routes, throw and reject routes.
	e.route(10, "10.0.0.0/8", 0, eth0)
	e.route(10, "10.1.0.0/16", fib.TypeThrow, nil)
	e.route(20, "10.1.0.0/16", 0, eth0)
	e.route(20, "0.0.0.0/0", 0, eth0)
	e.route(30, "10.1.2.0/24", fib.TypeProhibit, nil)
	e.route(30, "10.0.0.0/8", fib.TypeUnreachable, nil)
	e.route(254, "0.0.0.0/0", 0, eth0)
	model := []mrule{
		{pref: 0, table: 255, action: fibrules.ActToTable, suppress: -1},
		{pref: 32766, table: 254, action: fibrules.ActToTable, suppress: -1},
		{pref: 32767, table: 253, action: fibrules.ActToTable, suppress: -1},
	}
	prefixes := []netip.Prefix{{}, netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("192.0.2.0/24")}
	addrs := []string{"10.1.2.3", "10.2.0.1", "10.1.9.9", "192.0.2.1", "192.0.2.77", "203.0.113.1"}
	actions := []fibrules.Action{fibrules.ActToTable, fibrules.ActToTable, fibrules.ActToTable, fibrules.ActGoto, fibrules.ActGoto, fibrules.ActNop, fibrules.ActBlackhole, fibrules.ActUnreachable, fibrules.ActProhibit}
	tables := []uint32{10, 20, 30, 254, 99}
	devNames := []string{"eth1", "eth2"}
	for step := 0; step < 300 && !rng.Exhausted(); step++ {
		if k := rng.IntN(8); k == 0 {
			// Device events: a device named by iif/oif rules comes, is
			// renamed, or goes; the rules attach and detach.
			name := devNames[rng.IntN(2)]
			d := e.devs.ByName(name)
			switch {
			case d == nil:
				e.must(e.do(func() error { _, err := e.devs.NewLink(e.t, netdev.Dummy{Name: name}); return err }))
			case rng.IntN(2) == 0:
				e.must(e.do(func() error { return e.devs.DelLink(e.t, d) }))
			default:
				other := devNames[0]
				if other == name {
					other = devNames[1]
				}
				err := e.do(func() error { return d.SetName(e.t, other) })
				if (err == nil) != (e.devs.ByName(name) == nil) {
					t.Fatalf("step %d: rename %s to %s: %v", step, name, other, err)
				}
			}
		} else if k == 1 {
			// A nop rule on an interface: lookups pass it by, as the
			// model does with every nop rule.
			m := mrule{pref: uint32(10 * (1 + rng.IntN(6))), action: fibrules.ActNop, suppress: -1}
			req := fibrules.Rule{Pref: m.pref, Attrs: fibrules.AttrPriority, Action: m.action}
			if rng.IntN(2) == 0 {
				req.IIF = devNames[rng.IntN(2)]
			} else {
				req.OIF = devNames[rng.IntN(2)]
			}
			if err := e.o.Add(e.t, e.rtnl, req, false); err != nil {
				t.Fatalf("step %d: add %+v: %v", step, req, err)
			}
			i := 0
			for i < len(model) && model[i].pref <= m.pref {
				i++
			}
			model = append(model[:i], append([]mrule{m}, model[i:]...)...)
		} else if len(model) > 3 && rng.IntN(3) == 0 {
			m := model[rng.IntN(len(model))]
			// fib_nl2rule checks a delete too: a goto needs its target.
			req := fibrules.Rule{Pref: m.pref, Attrs: fibrules.AttrPriority, Table: m.table, Action: m.action, Goto: m.target}
			if err := e.del(req); err != nil {
				t.Fatalf("seed %d step %d: del %+v: %v", seed, step, m, err)
			}
			for i := range model {
				if model[i].pref == m.pref && model[i].table == m.table && model[i].action == m.action {
					model = append(model[:i], model[i+1:]...)
					break
				}
			}
		} else {
			m := mrule{pref: uint32(10 * (1 + rng.IntN(6))), action: actions[rng.IntN(len(actions))], suppress: -1,
				src: prefixes[rng.IntN(len(prefixes))], dst: prefixes[rng.IntN(len(prefixes))], invert: rng.IntN(5) == 0}
			if rng.IntN(3) == 0 {
				m.mark = uint32(1 + rng.IntN(2))
			}
			req := fibrules.Rule{Pref: m.pref, Attrs: fibrules.AttrPriority, Action: m.action, Src: m.src, Dst: m.dst, FwMark: m.mark}
			if m.invert {
				req.Flags = fibrules.FlagInvert
			}
			switch m.action {
			case fibrules.ActToTable:
				m.table = tables[rng.IntN(len(tables))]
				req.Table = m.table
				if rng.IntN(3) == 0 {
					m.suppress = int32(rng.IntN(3)) * 8
					req.SuppressPrefixLen = m.suppress
					req.Attrs |= fibrules.AttrSuppressPrefixLen
				}
			case fibrules.ActGoto:
				m.target = m.pref + uint32(10*(1+rng.IntN(6)))
				req.Goto = m.target
			}
			if err := e.o.Add(e.t, e.rtnl, req, false); err != nil {
				t.Fatalf("seed %d step %d: add %+v: %v", seed, step, m, err)
			}
			i := 0
			for i < len(model) && model[i].pref <= m.pref {
				i++
			}
			model = append(model[:i], append([]mrule{m}, model[i:]...)...)
		}
		if err := e.o.CheckInvariants(); err != nil {
			t.Fatalf("step %d: %v\n%s", step, err, show(e.o))
		}
		if err := e.f.CheckInvariants(); err != nil {
			t.Fatalf("step %d: FIB: %v", step, err)
		}
		// The dump follows the model, unresolved gotos included.
		got := e.o.Rules()
		if len(got) != len(model) {
			t.Fatalf("seed %d step %d: %d rules, model %d\n%s", seed, step, len(got), len(model), show(e.o))
		}
		for i, r := range got {
			m := model[i]
			unres := m.action == fibrules.ActGoto
			for _, x := range model {
				if x.pref == m.target {
					unres = false
				}
			}
			if r.Pref != m.pref || r.Table != m.table || r.Action != m.action || (r.Flags&fibrules.FlagUnresolved != 0) != unres {
				t.Fatalf("seed %d step %d: rule %d is %v, model %+v", seed, step, i, r, m)
			}
		}
		// Lookups follow the model.
		for range 8 {
			fl := fibrules.Flow{Src: netip.MustParseAddr(addrs[rng.IntN(len(addrs))]), Dst: netip.MustParseAddr(addrs[rng.IntN(len(addrs))]), Mark: uint32(rng.IntN(3))}
			var wp uint32
			var wres, gres fib.Result
			var werr, gerr error
			var gr fibrules.Rule
			e.must(e.do(func() error {
				wp, wres, werr = modelLookup(e.t, e.f, model, fl)
				gres, gr, gerr = e.o.LookupFIB(e.t, e.f, fl)
				return nil
			}))
			if errno.Of(gerr) != werr || gr.Pref != wp || gres.Prefix != wres.Prefix || gres.Table != wres.Table {
				t.Fatalf("seed %d step %d: %+v: got rule %d %v %v, model rule %d %v %v\n%s", seed, step, fl, gr.Pref, gres.Prefix, gerr, wp, wres.Prefix, werr, show(e.o))
			}
		}
	}
}
