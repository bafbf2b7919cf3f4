package fibrules_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sync"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// mrule is the reference model's rule: the fields the random test varies.
type mrule struct {
	pref, table, target uint32
	action              fibrules.Action
	mark                uint32
	src, dst            netip.Prefix
	invert              bool
	suppress            int32
}

func (m mrule) matches(fl fibrules.Flow) bool {
	ok := (m.mark == 0 || m.mark == fl.Mark) &&
		(!m.src.IsValid() || m.src.Contains(fl.Src)) &&
		(!m.dst.IsValid() || m.dst.Contains(fl.Dst))
	return ok != m.invert
}

// modelLookup is the obvious evaluation: rules in order, the first match
// acts; a goto continues at the first rule of its target pref.
func modelLookup(t *sim.Task, f *fib.FIB, rules []mrule, fl fibrules.Flow) (uint32, fib.Result, error) {
	for i := 0; i < len(rules); i++ {
		m := rules[i]
		if !m.matches(fl) {
			continue
		}
		switch m.action {
		case fibrules.ActGoto:
			j := -1
			for k := range rules {
				if rules[k].pref == m.target {
					j = k
					break
				}
			}
			if j >= 0 {
				i = j - 1
			}
			continue
		case fibrules.ActNop:
			continue
		case fibrules.ActBlackhole:
			return m.pref, fib.Result{}, syscall.EINVAL
		case fibrules.ActUnreachable:
			return m.pref, fib.Result{}, syscall.ENETUNREACH
		case fibrules.ActProhibit:
			return m.pref, fib.Result{}, syscall.EACCES
		}
		tb := f.Table(m.table)
		if tb == nil {
			continue
		}
		res, err := tb.Lookup(t, fib.Flow{Dst: fl.Dst})
		if errors.Is(err, syscall.EAGAIN) {
			continue
		}
		if err == nil && res.Prefix.Bits() <= int(m.suppress) {
			continue
		}
		return m.pref, res, errno.Of(err)
	}
	return 0, fib.Result{}, syscall.ENETUNREACH
}

func TestRandomAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { randomRun(t, seed) })
	}
}

func randomRun(t *testing.T, seed uint64) {
	runWith(t, seed, rand.New(rand.NewPCG(seed, 3)), 300, nil)
}

// choices is where runWith takes its choices from: a seeded generator
// (TestRandomAgainstModel) or a fuzzer's input (FuzzRules).
type choices interface {
	IntN(n int) int
}

// runWith runs up to steps rule operations, lookups and device events
// chosen by rng on the ops and the model, until spent (if not nil) reports
// the choices used up.
func runWith(t *testing.T, seed uint64, rng choices, steps int, spent func() bool) {
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
	for step := 0; step < steps && (spent == nil || !spent()); step++ {
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

// TestConcurrent runs direct tasks on many goroutines at once: each adds and
// deletes rules in its own Ops, and several share one Ops, under both
// policies. Run with -race.
func TestConcurrent(t *testing.T) {
	for _, p := range []fibrules.LockPolicy{fibrules.LockRTNL, fibrules.LockPerOps} {
		t.Run(p.String(), func(t *testing.T) {
			w := sim.MustNewWorld(sim.Options{CPUs: 4})
			rtnl := w.NewMutex("RTNL")
			const netns, per = 16, 64
			ops := make([]*fibrules.Ops, netns)
			for i := range ops {
				fam := rt.FamilyInet
				if i%2 == 1 {
					fam = rt.FamilyInet6
				}
				ops[i], _ = fibrules.NewOps(w, fibrules.Config{Family: fam, Policy: p})
			}
			shared, _ := fibrules.NewOps(w, fibrules.Config{Family: rt.FamilyInet, Policy: p})
			var wg sync.WaitGroup
			errs := make(chan error, 2*netns)
			for i := range netns {
				wg.Go(func() {
					tk := w.NewTask(fmt.Sprint("ip", i))
					for j := 1; j <= per; j++ {
						if err := ops[i].Add(tk, rtnl, fibrules.Rule{Action: fibrules.ActToTable, Table: uint32(j)}, true); err != nil {
							errs <- err
							return
						}
					}
					for j := 1; j <= per; j += 2 {
						if err := ops[i].Del(tk, rtnl, fibrules.Rule{Table: uint32(j)}); err != nil {
							errs <- err
							return
						}
					}
				})
				wg.Go(func() {
					tk := w.NewTask(fmt.Sprint("shared", i))
					for j := 0; j < per; j++ {
						r := fibrules.Rule{Pref: uint32(1000 + i*per + j), Attrs: fibrules.AttrPriority, Action: fibrules.ActToTable, Table: uint32(1 + i)}
						if err := shared.Add(tk, rtnl, r, true); err != nil {
							errs <- err
							return
						}
						_, _ = shared.Lookup(tk, &fibrules.Flow{}, func(*sim.Task, uint32) (fibrules.Hit, error) {
							return fibrules.Hit{}, errno.New(syscall.EAGAIN, "")
						})
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			for i, o := range ops {
				if want := o.Family(); o.Len() != len(defaultsOf(want))+per/2 {
					t.Errorf("netns %d: %d rules", i, o.Len())
				}
			}
			if shared.Len() != 3+netns*per {
				t.Errorf("shared: %d rules", shared.Len())
			}
			prev := uint32(0)
			for _, r := range shared.Rules() {
				if r.Pref < prev {
					t.Fatalf("shared out of order:\n%s", show(shared))
				}
				prev = r.Pref
			}
			// Every add and delete, or the first rule of each IPv4 ops.
			rtnlWant := int64(netns*(per+per/2) + netns*per)
			if p == fibrules.LockPerOps {
				rtnlWant = netns/2 + 1
			}
			if got := rtnl.Stats().Acquires; got != rtnlWant {
				t.Errorf("RTNL acquired %d times, want %d", got, rtnlWant)
			}
		})
	}
}

func defaultsOf(f rt.Family) []uint32 {
	if f == rt.FamilyInet {
		return []uint32{0, 32766, 32767}
	}
	return []uint32{0, 32766}
}
