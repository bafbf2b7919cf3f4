// sync.go follows what net/ipv6/route.c does to routes when devices change:
// fib6_ifdown for a device going down, losing its carrier or going away
// (rt6_sync_down_dev, rt6_disable_ip), fib6_ifup for one coming back
// (rt6_sync_up), the weights of multipath siblings
// (rt6_multipath_rebalance), and the loopback device the reject routes and
// the null entry use (ip6_route_dev_notify). Every walk is fib6_clean_all;
// with counted walks (counted.go) the device walks visit the device's
// routes only and charge what fib6_clean_all would.

package fib6

import (
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// isDead is rt6_is_dead (ignore_routes_with_linkdown is not modelled).
func isDead(r *Info) bool { return r.fnh.flags&rt.FlagDead != 0 }

// multipathFirstSibling is rt6_multipath_first_sibling.
func multipathFirstSibling(r *Info) *Info {
	if r.node == nil {
		return nil
	}
	for it := r.node.leaf; it != nil; it = it.next {
		if it.metric == r.metric && it.qualifyForECMP() {
			return it
		}
	}
	return nil
}

// multipathRebalance is rt6_multipath_rebalance: the siblings' upper bounds
// for hash-threshold selection, from the first sibling on, in proportion
// to the live siblings' weights (a dead one gets -1).
//
// Kernel: rt6_multipath_rebalance (net/ipv6/route.c).
func multipathRebalance(r *Info) {
	if r == nil || r.nsiblings == 0 || r.shouldFlush {
		return
	}
	first := multipathFirstSibling(r)
	if first == nil {
		return
	}
	total := int64(0)
	each := func(fn func(s *Info)) {
		fn(first)
		for s := first.sibNext; s != first; s = s.sibNext {
			fn(s)
		}
	}
	each(func(s *Info) {
		if !isDead(s) {
			total += int64(s.fnh.weight)
		}
	})
	weight := int64(0)
	each(func(s *Info) {
		ub := int64(-1)
		if !isDead(s) {
			weight += int64(s.fnh.weight)
			ub = int64((uint64(weight)<<31+uint64(total)/2)/uint64(total)) - 1
		}
		s.fnh.upperBound = int32(ub)
	})
}

// multipathUsesDev is rt6_multipath_uses_dev.
func multipathUsesDev(r *Info, dev *netdev.Device) bool {
	if r.fnh.dev == dev {
		return true
	}
	for s := r.sibNext; s != r; s = s.sibNext {
		if s.fnh.dev == dev {
			return true
		}
	}
	return false
}

// multipathDeadCount is rt6_multipath_dead_count.
func multipathDeadCount(r *Info, down *netdev.Device) int {
	dead := 0
	count := func(s *Info) {
		if s.fnh.dev == down || s.fnh.flags&rt.FlagDead != 0 {
			dead++
		}
	}
	count(r)
	for s := r.sibNext; s != r; s = s.sibNext {
		count(s)
	}
	return dead
}

// ifdown is fib6_ifdown: the fib6_clean_all callback of rt6_sync_down_dev
// (0 keep, -1 delete, -2 skip the rest of a multipath route).
//
// Kernel: fib6_ifdown (net/ipv6/route.c).
func (f *FIB) ifdown(r *Info, dev *netdev.Device, ev netdev.Event) int {
	if r == f.nullEntry || r.nhObj != nil {
		return 0
	}
	switch ev {
	case netdev.EventUnregister:
		if r.fnh.dev == dev {
			return -1
		}
		return 0
	case netdev.EventDown:
		if r.shouldFlush {
			return -1
		}
		if r.nsiblings == 0 {
			if r.fnh.dev == dev {
				return -1
			}
			return 0
		}
		if multipathUsesDev(r, dev) {
			if r.nsiblings+1 == multipathDeadCount(r, dev) {
				r.shouldFlush = true
				for s := r.sibNext; s != r; s = s.sibNext {
					s.shouldFlush = true
				}
				return -1
			}
			set := func(s *Info) {
				if s.fnh.dev == dev {
					s.fnh.flags |= rt.FlagDead | rt.FlagLinkDown
				}
			}
			set(r)
			for s := r.sibNext; s != r; s = s.sibNext {
				set(s)
			}
			multipathRebalance(r)
		}
		return -2
	case netdev.EventChange:
		if r.fnh.dev != dev || r.flags&(rtfLocal|rtfAnycast) != 0 {
			return 0
		}
		r.fnh.flags |= rt.FlagLinkDown
		multipathRebalance(r)
	}
	return 0
}

// syncDownDev is rt6_sync_down_dev.
func (f *FIB) syncDownDev(t *sim.Task, dev *netdev.Device, ev netdev.Event) {
	f.devWalk(t, dev, ev == netdev.EventDown, ev != netdev.EventChange, func(r *Info) int { return f.ifdown(r, dev, ev) })
}

// syncUp is rt6_sync_up: fib6_ifup clears flags on dev's routes.
//
// Kernel: rt6_sync_up, fib6_ifup (net/ipv6/route.c).
func (f *FIB) syncUp(t *sim.Task, dev *netdev.Device, flags rt.NHFlags) {
	defer t.Frame("rt6_sync_up")()
	if flags&rt.FlagDead != 0 && dev.Carrier() {
		flags |= rt.FlagLinkDown
	}
	f.devWalk(t, dev, false, false, func(r *Info) int {
		if r != f.nullEntry && r.nhObj == nil && r.fnh.dev == dev {
			r.fnh.flags &^= flags
			multipathRebalance(r)
		}
		return 0
	})
}

// netdevEvent is ip6_route_dev_notify: the loopback device's registration
// gives the null entry (and the reject routes) their device.
func (f *FIB) netdevEvent(ev netdev.Event, dev *netdev.Device) {
	if dev.Flags()&netdev.FlagLoopback == 0 {
		return
	}
	switch ev {
	case netdev.EventRegister:
		f.SetLoopback(dev)
	}
}

// SetLoopback tells the FIB its namespace's loopback device: the device of
// reject routes, of blackhole nexthops and of the null entry.
//
// Kernel: ip6_route_dev_notify (NETDEV_REGISTER), ip6_route_init_special_entries.
func (f *FIB) SetLoopback(lo *netdev.Device) {
	f.rs.lo = lo
	if f.nullEntry != nil {
		f.nullEntry.fnh.dev = lo
	}
}

// MTUChange follows a device's new MTU (NETDEV_CHANGEMTU, before addrconf
// records it as mtu6): a route through dev with an MTU metric that is at
// least mtu, or equal to the device's previous IPv6 MTU oldMTU, takes mtu,
// unless its MTU is locked. It walks every table (fib6_clean_all).
//
// Kernel: rt6_mtu_change, rt6_mtu_change_route, fib6_nh_mtu_change
// (net/ipv6/route.c).
func (f *FIB) MTUChange(t *sim.Task, dev *netdev.Device, oldMTU, mtu int) {
	f.cleanAll(t, func(r *Info) int {
		if r == f.nullEntry {
			return 0
		}
		if r.metrics != nil && r.metrics.Lock&(1<<rt.MetricMTU) != 0 {
			return 0
		}
		uses := r.nhObj == nil && r.fnh.dev == dev
		if r.nhObj != nil {
			for _, m := range nhPaths(r.nhObj) {
				if m != nil && m.Dev() == dev {
					uses = true
				}
			}
		}
		if !uses {
			return 0
		}
		var cur uint32
		if r.metrics != nil {
			cur = r.metrics.Values[rt.MetricMTU]
		}
		if cur >= uint32(mtu) || cur < uint32(mtu) && cur == uint32(oldMTU) {
			m := fib.Metrics{}
			if r.metrics != nil {
				m = *r.metrics
			}
			m.Values[rt.MetricMTU] = uint32(mtu)
			r.metrics = &m
		}
		return 0
	})
}
