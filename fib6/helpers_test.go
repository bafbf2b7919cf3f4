package fib6

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// treeEnv is a namespace with devices and a FIB driven directly through
// the tree's functions, as the route layer drives them.
type treeEnv struct {
	w    *sim.World
	t    *sim.Task
	f    *FIB
	devs *netdev.Table
	lo   *netdev.Device
	d    map[string]*netdev.Device
}

func newTreeEnv(tb testing.TB) *treeEnv {
	tb.Helper()
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	s, err := netdev.NewStack(w, rtnl, netdev.Config{})
	require.NoError(tb, err)
	e := &treeEnv{w: w, t: w.NewTask("ip"), d: map[string]*netdev.Device{}}
	rtnl.Lock(e.t)
	defer rtnl.Unlock(e.t)
	e.devs, err = s.NewTable(e.t, "")
	require.NoError(tb, err)
	e.lo = e.devs.ByName("lo")
	for _, n := range []string{"d0", "d1", "d2", "v0", "v1"} {
		devs, err := e.devs.NewLink(e.t, netdev.Dummy{Name: n})
		require.NoError(tb, err)
		e.d[n] = devs[0]
	}
	e.f = newFIB(w, nil)
	return e
}

func mustKey(s string) key {
	if s == "" {
		return key{}
	}
	p := netip.MustParsePrefix(s)
	return key{addr: p.Masked().Addr().As16(), plen: uint8(p.Bits())}
}

// routeSpec is a route as the tests give it.
type routeSpec struct {
	dst, src string
	metric   uint32
	gw       string // "" for a reject route through lo
	dev      string
	table    uint32
}

// newRoute makes a route as ip6_route_info_create does: one reference
// (the creator's) and its device held.
func (e *treeEnv) newRoute(r routeSpec) *Info {
	rt := newInfo()
	rt.dst, rt.src = mustKey(r.dst), mustKey(r.src)
	rt.metric = r.metric
	if rt.metric == 0 {
		rt.metric = 1024
	}
	if r.gw == "" && r.dev == "" {
		rt.flags = rtfReject | rtfNonexthop
		rt.fnh.dev = e.lo
	} else {
		rt.flags = rtfUp
		rt.fnh.dev = e.d[r.dev]
		if r.gw != "" {
			rt.fnh.gw, rt.fnh.hasGW = netip.MustParseAddr(r.gw).As16(), true
			rt.flags |= rtfGateway
		}
	}
	rt.fnh.dev.Hold()
	return rt
}

// add is ip6_route_add: create, fib6_add, drop the creator's reference.
func (e *treeEnv) add(r routeSpec, mode rt.NLMFlags) error {
	rt := e.newRoute(r)
	tb := e.f.newTable(r.table)
	err := tb.add(e.t, rt, mode)
	e.f.release(e.t, rt)
	return err
}

// del is ip6_route_del for a dst/src and optional metric and gateway: the
// first route of the exact node that matches.
func (e *treeEnv) del(r routeSpec) bool { return e.delMatch(r, false) }

// delMatch is ip6_route_del: the first route of the node fib6_locate finds
// exactly that matches the metric and gateway given (zero: any); reject
// asks for a route without a gateway.
func (e *treeEnv) delMatch(r routeSpec, reject bool) bool {
	tb := e.f.getTable(r.table)
	if tb == nil {
		return false
	}
	fn := tb.locate(mustKey(r.dst), mustKey(r.src), true)
	if fn == nil {
		return false
	}
	for rt := fn.leaf; rt != nil; rt = rt.next {
		if r.metric != 0 && rt.metric != r.metric {
			continue
		}
		if reject && rt.fnh.hasGW {
			continue
		}
		if r.gw != "" && (!rt.fnh.hasGW || rt.fnh.gw != netip.MustParseAddr(r.gw).As16()) {
			continue
		}
		rt.hold()
		err := e.f.del(e.t, rt)
		e.f.release(e.t, rt)
		return err == nil
	}
	return false
}
