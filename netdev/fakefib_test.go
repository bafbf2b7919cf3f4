package netdev_test

import (
	"fmt"
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// fakeFIB is a small IPv6FIB for this package's tests: a list of routes,
// each holding a reference to its device that an RCU callback drops once
// the route's last reference goes, with the kernel's rules for addrconf's
// routes (EEXIST for a duplicate, ENETDOWN for a prefix route via a device
// that is down, every route via a device removed when it goes down).
type fakeFIB struct {
	w      *sim.World
	routes []*fakeRoute // in the tables, in insertion order
	walks  []string     // the fib6_clean_all walks asked for (prefsrc, mtu)
}

type fakeRoute struct {
	kind   netdev.AddrconfKind
	dev    *netdev.Device
	prefix netip.Prefix
	table  uint32
	metric uint32
	flags  rt.NHFlags
	linked bool
	refs   int
}

func (r *fakeRoute) Linked() bool { return r.linked }

func (r *fakeRoute) String() string {
	kind := [...]string{"local", "anycast", "prefix", "multicast"}[r.kind]
	s := fmt.Sprintf("%s %s dev %s table %d metric %d", kind, r.prefix, r.dev.Name(), r.table, r.metric)
	if r.flags&rt.FlagLinkDown != 0 {
		s += " linkdown"
	}
	return s
}

func newFakeFIB(w *sim.World) *fakeFIB { return &fakeFIB{w: w} }

func (f *fakeFIB) AddAddrconfRoute(t *sim.Task, r netdev.AddrconfRoute) (netdev.Route6, error) {
	fr := &fakeRoute{kind: r.Kind, dev: r.Dev, prefix: r.Prefix, table: r.Table}
	switch r.Kind {
	case netdev.AddrconfPrefix:
		if fr.table == 0 {
			fr.table = 254
		}
		fr.metric = r.Metric
		if fr.metric == 0 {
			fr.metric = 256
		}
		if !r.Dev.IsUp() {
			return nil, errno.New(syscall.ENETDOWN, "Nexthop device is not up")
		}
	case netdev.AddrconfMulticast:
		fr.metric = 256
		if !r.Dev.IsUp() {
			return nil, errno.New(syscall.ENETDOWN, "Nexthop device is not up")
		}
		fallthrough
	default:
		if fr.table == 0 {
			fr.table = 255
		}
	}
	for _, o := range f.routes {
		if o.dev == fr.dev && o.prefix == fr.prefix && o.table == fr.table && o.metric == fr.metric {
			return nil, errno.New(syscall.EEXIST, "")
		}
	}
	r.Dev.Hold()
	fr.linked, fr.refs = true, 1
	f.routes = append(f.routes, fr)
	if r.Kind == netdev.AddrconfLocal || r.Kind == netdev.AddrconfAnycast {
		fr.refs++
		return fr, nil
	}
	return nil, nil
}

func (f *fakeFIB) unlink(t *sim.Task, r *fakeRoute) {
	for i, o := range f.routes {
		if o == r {
			f.routes = append(f.routes[:i:i], f.routes[i+1:]...)
			r.linked = false
			f.release(t, r)
			return
		}
	}
}

func (f *fakeFIB) release(t *sim.Task, r *fakeRoute) {
	if r.refs--; r.refs == 0 {
		f.w.RCU().Call(t, func(*sim.Task) { r.dev.Put() })
	}
}

func (f *fakeFIB) DelRoute(t *sim.Task, r netdev.Route6) { f.unlink(t, r.(*fakeRoute)) }
func (f *fakeFIB) Release(t *sim.Task, r netdev.Route6)  { f.release(t, r.(*fakeRoute)) }

func (f *fakeFIB) DelPrefixRoute(t *sim.Task, dev *netdev.Device, p netip.Prefix, _ uint32) {
	for _, r := range f.routes {
		if r.kind == netdev.AddrconfPrefix && r.dev == dev && r.prefix == p {
			f.unlink(t, r)
			return
		}
	}
}

func (f *fakeFIB) SyncUp(_ *sim.Task, dev *netdev.Device, flags uint8) {
	for _, r := range f.routes {
		if r.dev == dev {
			r.flags &^= rt.NHFlags(flags)
		}
	}
}

func (f *fakeFIB) SyncDownDev(t *sim.Task, dev *netdev.Device, ev netdev.Event) {
	for _, r := range append([]*fakeRoute(nil), f.routes...) {
		switch {
		case r.dev != dev:
		case ev == netdev.EventChange:
			if r.kind != netdev.AddrconfLocal && r.kind != netdev.AddrconfAnycast {
				r.flags |= rt.FlagLinkDown
			}
		default:
			f.unlink(t, r)
		}
	}
}

func (f *fakeFIB) DisableIP(t *sim.Task, dev *netdev.Device, ev netdev.Event) {
	f.SyncDownDev(t, dev, ev)
}

func (f *fakeFIB) FlushTrees(*sim.Task) {}

func (f *fakeFIB) RemovePrefsrc(_ *sim.Task, dev *netdev.Device, a netip.Addr) {
	f.walks = append(f.walks, fmt.Sprintf("prefsrc %s dev %s", a, dev.Name()))
}

func (f *fakeFIB) MTUChange(_ *sim.Task, dev *netdev.Device, oldMTU, mtu int) {
	f.walks = append(f.walks, fmt.Sprintf("mtu %d->%d dev %s", oldMTU, mtu, dev.Name()))
}

func (f *fakeFIB) DevRoutes(dev *netdev.Device) int {
	n := 0
	for _, r := range f.routes {
		if dev == nil || r.dev == dev {
			n++
		}
	}
	return n
}

func (f *fakeFIB) DevRefs(dev *netdev.Device) int64 { return int64(f.DevRoutes(dev)) }

// show lists the routes via dev (every route for dev nil), in insertion
// order.
func (f *fakeFIB) show(dev *netdev.Device) []string {
	var out []string
	for _, r := range f.routes {
		if dev == nil || r.dev == dev {
			out = append(out, r.String())
		}
	}
	return out
}

var (
	_ netdev.IPv6FIB       = (*fakeFIB)(nil)
	_ netdev.IPv6FIBCounts = (*fakeFIB)(nil)
)
