package netdev_test

import (
	"net/netip"
	"testing"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// env is a netdev Stack used without package rtnl: one task, an RTNL
// mutex it takes around every operation (as rtnl's Handle does), deferred
// work run inline, and a recorder of notifier events.
type env struct {
	tb   testing.TB
	w    *sim.World
	rtnl *sim.Mutex
	s    *netdev.Stack
	t    *sim.Task
	tbl  *netdev.Table
	rec  *recorder
	fib  *fakeFIB // tbl's IPv6 FIB
}

// testRefWaitLimit bounds netdev_wait_allrefs in tests: a leaked device
// reference fails the test (a panic naming the device) instead of hanging
// it. A minute of virtual time is far beyond any reference a test holds on
// purpose.
const testRefWaitLimit = 60_000_000_000

func newEnv(tb testing.TB, cfg netdev.Config) *env {
	tb.Helper()
	w := sim.MustNewWorld(sim.Options{})
	e := &env{tb: tb, w: w, rtnl: w.NewMutex("RTNL"), t: w.NewTask("ip"), rec: &recorder{}}
	var err error
	if cfg.RefWaitLimit == 0 {
		cfg.RefWaitLimit = testRefWaitLimit
	}
	if e.s, err = netdev.NewStack(w, e.rtnl, cfg); err != nil {
		panic(err)
	}
	e.s.RegisterNotifier(e.rec)
	e.tbl = e.table("")
	return e
}

// table creates a namespace's device table.
func (e *env) table(name string) *netdev.Table {
	e.tb.Helper()
	var tbl *netdev.Table
	e.do(func() error {
		var err error
		tbl, err = e.s.NewTable(e.t, name)
		return err
	})
	f := newFakeFIB(e.w)
	tbl.SetIPv6FIB(f)
	if e.fib == nil {
		e.fib = f
	}
	return tbl
}

// try runs fn with RTNL held, then finishes unregistered devices after
// releasing it, as rtnl_unlock does, and returns fn's error.
func (e *env) try(fn func() error) error {
	e.rtnl.Lock(e.t)
	err := fn()
	todo := e.s.TakeTodo()
	e.rtnl.Unlock(e.t)
	e.s.RunTodo(e.t, todo)
	return err
}

// do is try that fails the test on error.
func (e *env) do(fn func() error) {
	e.tb.Helper()
	require.NoError(e.tb, e.try(fn))
}

// add creates the devices specs describe.
func (e *env) add(specs ...netdev.LinkSpec) {
	e.tb.Helper()
	for _, s := range specs {
		e.do(func() error { _, err := e.tbl.NewLink(e.t, s); return err })
	}
}

// dev returns the registered device named name.
func (e *env) dev(name string) *netdev.Device {
	e.tb.Helper()
	d := e.tbl.ByName(name)
	require.NotNil(e.tb, d, "no device %s", name)
	return d
}

func (e *env) up(names ...string) {
	e.tb.Helper()
	for _, n := range names {
		d := e.dev(n)
		e.do(func() error { return d.SetUp(e.t, true) })
	}
}

func (e *env) down(names ...string) {
	e.tb.Helper()
	for _, n := range names {
		d := e.dev(n)
		e.do(func() error { return d.SetUp(e.t, false) })
	}
}

func (e *env) del(name string) {
	e.tb.Helper()
	d := e.dev(name)
	e.do(func() error { return e.tbl.DelLink(e.t, d) })
}

func (e *env) master(name, master string) {
	e.tb.Helper()
	d := e.dev(name)
	var m *netdev.Device
	if master != "" {
		m = e.dev(master)
	}
	e.do(func() error { return d.SetMaster(e.t, m) })
}

func (e *env) addAddr(name, p string) {
	e.tb.Helper()
	d := e.dev(name)
	a := netdev.Addr{Prefix: netip.MustParsePrefix(p)}
	e.do(func() error {
		if a.Prefix.Addr().Is4() {
			return d.AddInet4(e.t, a)
		}
		return d.AddInet6(e.t, a)
	})
}

func (e *env) delAddr(name, p string) {
	e.tb.Helper()
	d := e.dev(name)
	pr := netip.MustParsePrefix(p)
	e.do(func() error {
		if pr.Addr().Is4() {
			return d.DelInet4(e.t, pr)
		}
		return d.DelInet6(e.t, pr)
	})
}

// names lists the table's devices.
func (e *env) names() []string {
	var out []string
	for _, d := range e.tbl.Devices() {
		out = append(out, d.Name())
	}
	return out
}

// v4 and v6 list a device's addresses as prefix strings, in kernel order.
func v4(d *netdev.Device) []string { return prefixes(d.Inet4Addrs()) }
func v6(d *netdev.Device) []string { return prefixes(d.Inet6Addrs()) }

func prefixes(as []netdev.Addr) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Prefix.String())
	}
	return out
}

// macs lists an address list's addresses in list order.
func macs(l *hwaddr.List) []string {
	var out []string
	for e := range l.All() {
		out = append(out, e.Addr.String())
	}
	return out
}

// entry returns the list's entry for mac.
func entry(l *hwaddr.List, mac string) (hwaddr.Entry, bool) {
	m := hwaddr.MustParseAddr(mac)
	for e := range l.All() {
		if e.Addr == m {
			return e, true
		}
	}
	return hwaddr.Entry{}, false
}

func has(l *hwaddr.List, mac string) bool { _, ok := entry(l, mac); return ok }

func mac(s string) netdev.MAC { return hwaddr.MustParseAddr(s) }

// recorder records notifier events as "NETDEV_UP d0".
type recorder struct {
	events []string
}

func (r *recorder) NetdevEvent(_ *sim.Task, ev netdev.Event, d *netdev.Device) error {
	r.events = append(r.events, ev.String()+" "+d.Name())
	return nil
}

// take returns the events recorded since the last take, keeping only
// those of the listed devices when any are given.
func (r *recorder) take(only ...string) []string {
	ev := r.events
	r.events = nil
	if len(only) == 0 {
		return ev
	}
	keep := map[string]bool{}
	for _, n := range only {
		keep[n] = true
	}
	var out []string
	for _, e := range ev {
		for i := len(e) - 1; i >= 0; i-- {
			if e[i] == ' ' {
				if keep[e[i+1:]] {
					out = append(out, e)
				}
				break
			}
		}
	}
	return out
}
