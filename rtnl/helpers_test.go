package rtnl_test

import (
	"net/netip"
	"testing"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// rig is a kernel driven directly by one task, with a Handle on init_net.
type rig struct {
	tb testing.TB
	k  *rtnl.Kernel
	t  *sim.Task
	h  *rtnl.Handle
}

// testRefWaitLimit bounds netdev_wait_allrefs in tests
// (Config.RefWaitLimit): a leaked device reference fails the test (a panic
// naming the device) instead of hanging it. A minute of virtual time is far
// beyond any reference a test holds on purpose.
const testRefWaitLimit = 60_000_000_000

func newRig(tb testing.TB, cfg rtnl.Config) *rig {
	tb.Helper()
	return newRigIn(tb, sim.MustNewWorld(sim.Options{}), cfg)
}

func newRigIn(tb testing.TB, w *sim.World, cfg rtnl.Config) *rig {
	tb.Helper()
	if cfg.RefWaitLimit == 0 {
		cfg.RefWaitLimit = testRefWaitLimit
	}
	k, err := rtnl.NewKernelIn(w, cfg)
	if err != nil {
		panic(err)
	}
	t := w.NewTask("ip")
	return &rig{tb: tb, k: k, t: t, h: k.InitNet().Handle(t)}
}

// ok fails the test if err is not nil.
func (r *rig) ok(err error) {
	r.tb.Helper()
	require.NoError(r.tb, err)
}

// dev returns the device named name in init_net, failing if there is none.
// Use it only while the kernel is quiescent (after the request returned).
func (r *rig) dev(name string) *netdev.Device {
	r.tb.Helper()
	d := r.k.InitNet().Devices().ByName(name)
	require.NotNil(r.tb, d, "no device %s", name)
	return d
}

// link returns the rtnl snapshot of the device named name.
func (r *rig) link(name string) rtnl.LinkInfo {
	r.tb.Helper()
	li, err := r.h.LinkByName(name)
	require.NoError(r.tb, err)
	return li
}

// up brings the named devices up, in order.
func (r *rig) up(names ...string) {
	r.tb.Helper()
	for _, n := range names {
		r.ok(r.h.LinkSetUp(n))
	}
}

// settle runs deferred work (DAD) and RCU callbacks to completion.
func (r *rig) settle() { r.k.Settle(r.t) }

// counters returns the World's counters.
func (r *rig) counters() sim.Counters { return r.k.Counters() }

// mcHas reports whether mac is in the device's multicast list.
func mcHas(d *netdev.Device, mac string) bool { return listHas(d.MC(), mustMAC(mac)) }

// ucHas reports whether mac is in the device's unicast list.
func ucHas(d *netdev.Device, mac netdev.MAC) bool { return listHas(d.UC(), mac) }

// listHas looks for mac by iterating, which, unlike List.Lookup, counts
// nothing.
func listHas(l *hwaddr.List, mac netdev.MAC) bool {
	for e := range l.All() {
		if e.Addr == mac {
			return true
		}
	}
	return false
}

func mustMAC(s string) netdev.MAC { return hwaddr.MustParseAddr(s) }

// addrs returns the addresses of the named device as prefix strings, in
// kernel order, IPv4 first.
func (r *rig) addrs(name string, family rt.Family) []string {
	r.tb.Helper()
	l, err := r.h.AddrList(name, family)
	require.NoError(r.tb, err)
	var out []string
	for _, a := range l {
		out = append(out, a.Prefix.String())
	}
	return out
}

// addrInfo returns the named device's address p.
func (r *rig) addrInfo(name string, p string) (rtnl.AddrInfo, bool) {
	r.tb.Helper()
	l, err := r.h.AddrList(name, rt.FamilyUnspec)
	require.NoError(r.tb, err)
	for _, a := range l {
		if a.Prefix == netip.MustParsePrefix(p) {
			return a, true
		}
	}
	return rtnl.AddrInfo{}, false
}

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// recorder is a netdev.Notifier that records the events it sees as
// "NETDEV_UP d0" strings, optionally only for some devices.
type recorder struct {
	only   map[string]bool
	events []string
}

func (rec *recorder) NetdevEvent(_ *sim.Task, ev netdev.Event, d *netdev.Device) error {
	if rec.only == nil || rec.only[d.Name()] {
		rec.events = append(rec.events, ev.String()+" "+d.Name())
	}
	return nil
}

// take returns the recorded events and forgets them.
func (rec *recorder) take() []string {
	e := rec.events
	rec.events = nil
	return e
}

// watch registers a recorder for the named devices (all if none).
func (r *rig) watch(names ...string) *recorder {
	rec := &recorder{}
	if len(names) > 0 {
		rec.only = map[string]bool{}
		for _, n := range names {
			rec.only[n] = true
		}
	}
	r.k.Stack().RegisterNotifier(rec)
	return rec
}
