// info.go follows the life of a route, struct fib6_info: allocation,
// references and the RCU-deferred free (fib6_info_alloc, fib6_info_hold,
// fib6_info_release, fib6_info_destroy_rcu in net/ipv6/ip6_fib.c and
// include/net/ip6_fib.h), and the sibling list of a multipath route
// (rt6_qualify_for_ecmp, rt6_duplicate_nexthop in include/net/ip6_route.h).

package fib6

import "github.com/netsimlab/netsim/sim"

// newInfo returns a new route with one reference, the creator's.
//
// Kernel: fib6_info_alloc (net/ipv6/ip6_fib.c). The kernel's fib_rt_alloc
// statistic does not count fib6_infos: ip6_dst_alloc counts the dst
// entries (rt6_info) made from them, which the route layer does.
func newInfo() *Info {
	return &Info{ref: 1}
}

// hold takes a reference to rt.
//
// Kernel: fib6_info_hold (include/net/ip6_fib.h).
func (rt *Info) hold() { rt.ref++ }

// release drops a reference to rt; the last one frees it one RCU grace
// period later (fib6_info_destroy_rcu), which drops the route's device
// reference.
//
// Kernel: fib6_info_release (include/net/ip6_fib.h).
func (f *FIB) release(t *sim.Task, rt *Info) {
	if rt == nil {
		return
	}
	rt.ref--
	if rt.ref < 0 {
		panic("fib6: fib6_info_release without a reference")
	}
	if rt.ref == 0 {
		f.w.RCU().Call(t, func(*sim.Task) { f.destroy(rt) })
	}
}

// destroy frees rt: it drops the device reference of its own nexthop.
//
// Kernel: fib6_info_destroy_rcu (net/ipv6/ip6_fib.c), fib6_nh_release
// (route.c).
func (f *FIB) destroy(rt *Info) {
	if rt.node != nil {
		panic("fib6: destroying a route still in the tree")
	}
	if rt.nhObj == nil && rt.fnh.dev != nil {
		rt.fnh.dev.Put()
		rt.fnh.dev = nil
	}
}

// qualifyForECMP reports whether rt may be a sibling of a multipath route:
// through a gateway of its own, not from a router advertisement.
//
// Kernel: rt6_qualify_for_ecmp (include/net/ip6_route.h).
func (rt *Info) qualifyForECMP() bool {
	return rt.flags&rtfAddrConf == 0 && rt.nhObj == nil && rt.fnh.hasGW
}

// duplicateNexthop reports whether a and b go the same way.
//
// Kernel: rt6_duplicate_nexthop (include/net/ip6_route.h).
func duplicateNexthop(a, b *Info) bool {
	if a.nhObj != nil || b.nhObj != nil {
		return a.nhObj == b.nhObj
	}
	return a.fnh.dev == b.fnh.dev && a.fnh.gw == b.fnh.gw
}

// lastSibling returns the last route of rt's sibling list (rt itself when
// it has none).
func (rt *Info) lastSibling() *Info {
	if rt.sibPrev == nil {
		return rt
	}
	return rt.sibPrev
}

// siblingAddTail links rt into head's sibling list, before head (at the
// list's tail).
//
// Kernel: list_add_tail (include/linux/list.h) on fib6_siblings.
func siblingAddTail(rt, head *Info) {
	if head.sibNext == nil {
		head.sibNext, head.sibPrev = head, head
	}
	prev := head.sibPrev
	rt.sibPrev, rt.sibNext = prev, head
	prev.sibNext = rt
	head.sibPrev = rt
}

// siblingDel unlinks rt from its sibling list.
//
// Kernel: list_del_init (include/linux/list.h) on fib6_siblings.
func siblingDel(rt *Info) {
	if rt.sibNext == nil {
		return
	}
	n, p := rt.sibNext, rt.sibPrev
	n.sibPrev, p.sibNext = p, n
	if n == p && n.sibNext == n { // one route left: a list of one is no list
		n.sibNext, n.sibPrev = nil, nil
	}
	rt.sibNext, rt.sibPrev = nil, nil
}

// eachSibling calls fn for each route of rt's sibling list but rt, in list
// order.
func (rt *Info) eachSibling(fn func(s *Info)) {
	if rt.sibNext == nil {
		return
	}
	for s := rt.sibNext; s != rt; {
		next := s.sibNext
		fn(s)
		s = next
	}
}
