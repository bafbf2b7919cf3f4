package fibrules_test

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// env is one namespace: devices, an IPv4 FIB and its rules, driven by one
// direct task.
type env struct {
	tb   testing.TB
	w    *sim.World
	rtnl *sim.Mutex
	t    *sim.Task
	s    *netdev.Stack
	devs *netdev.Table
	f    *fib.FIB
	o    *fibrules.Ops
}

func newEnv(tb testing.TB, p fibrules.LockPolicy) *env {
	tb.Helper()
	w := sim.MustNewWorld(sim.Options{})
	e := &env{tb: tb, w: w, rtnl: w.NewMutex("RTNL"), t: w.NewTask("ip")}
	var err error
	if e.s, err = netdev.NewStack(w, e.rtnl, netdev.Config{}); err != nil {
		tb.Fatal(err)
	}
	e.f = fib.New(nil)
	e.s.RegisterNotifier(e.f)
	e.s.RegisterAddrNotifier(e.f.InetAddrEvent)
	e.rtnl.Lock(e.t)
	e.devs, err = e.s.NewTable(e.t, "")
	e.rtnl.Unlock(e.t)
	if err != nil {
		tb.Fatal(err)
	}
	if e.o, err = fibrules.NewIPv4(w, fibrules.Config{Policy: p, Devices: e.devs}, e.f); err != nil {
		tb.Fatal(err)
	}
	e.s.RegisterNotifier(e.o)
	return e
}

// do runs fn under RTNL and finishes unregistered devices afterwards.
func (e *env) do(fn func() error) error {
	e.rtnl.Lock(e.t)
	err := fn()
	todo := e.s.TakeTodo()
	e.rtnl.Unlock(e.t)
	e.s.RunTodo(e.t, todo)
	return err
}

func (e *env) must(err error) {
	e.tb.Helper()
	if err != nil {
		e.tb.Fatal(err)
	}
}

// dummy creates an up dummy device with address a (a prefix like
// "10.0.0.1/24"), or none when a is "".
func (e *env) dummy(name, a string) *netdev.Device {
	e.tb.Helper()
	var d *netdev.Device
	e.must(e.do(func() error {
		ds, err := e.devs.NewLink(e.t, netdev.Dummy{Name: name})
		if err != nil {
			return err
		}
		d = ds[0]
		if err := d.SetUp(e.t, true); err != nil {
			return err
		}
		if a != "" {
			return d.AddInet4(e.t, netdev.Addr{Prefix: netip.MustParsePrefix(a)})
		}
		return nil
	}))
	return d
}

func (e *env) route(table uint32, dst string, typ fib.Type, dev *netdev.Device) {
	e.tb.Helper()
	e.must(e.do(func() error {
		return e.f.Add(e.t, fib.Route{Table: table, Dst: netip.MustParsePrefix(dst), Type: typ, Dev: dev}, rt.ModeAdd)
	}))
}

func (e *env) add(r fibrules.Rule) error { return e.o.Add(e.t, e.rtnl, r, true) }
func (e *env) del(r fibrules.Rule) error { return e.o.Del(e.t, e.rtnl, r) }

func (e *env) lookup(dst string) (fib.Result, error) {
	var res fib.Result
	err := e.do(func() error {
		var err error
		res, err = e.f.Lookup(e.t, fib.Flow{Dst: netip.MustParseAddr(dst)})
		return err
	})
	return res, err
}

// rv is what the tests compare of a dumped rule: its pref, its source
// selector ("" for all), what it does and its flags.
type rv struct {
	Pref        uint32
	Src         string
	Action      fibrules.Action
	Table, Goto uint32
	Flags       fibrules.Flags
}

// rules returns the dump of o as rv values.
func rules(o *fibrules.Ops) []rv {
	var out []rv
	for _, r := range o.Rules() {
		x := rv{Pref: r.Pref, Action: r.Action, Table: r.Table, Goto: r.Goto, Flags: r.Flags}
		if r.Src.IsValid() && r.Src.Bits() > 0 {
			x.Src = r.Src.String()
		}
		out = append(out, x)
	}
	return out
}

// lookupRule is a rule that looks up table id.
func lookupRule(pref, id uint32) rv { return rv{Pref: pref, Action: fibrules.ActToTable, Table: id} }

// show is the whole dump of o, for failure messages and for comparing
// before and after.
func show(o *fibrules.Ops) string { return fmt.Sprintf("%+v", o.Rules()) }

func pref(p uint32) fibrules.Rule {
	return fibrules.Rule{Pref: p, Attrs: fibrules.AttrPriority}
}

func newOps(tb testing.TB, fam rt.Family, p fibrules.LockPolicy) (*sim.World, *fibrules.Ops) {
	tb.Helper()
	w := sim.MustNewWorld(sim.Options{})
	o, err := fibrules.NewOps(w, fibrules.Config{Family: fam, Policy: p})
	if err != nil {
		tb.Fatal(err)
	}
	return w, o
}
