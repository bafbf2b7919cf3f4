// The route messages of the IPv6 FIB: inet6_rt_notify (net/ipv6/route.c)
// as fib6_add_rt2node and fib6_del_route (net/ipv6/ip6_fib.c),
// ip6_route_multipath_add and __ip6_del_rt_siblings (net/ipv6/route.c)
// send it.

package fib6

import (
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Announcer receives the IPv6 FIB's route messages. The routes addrconf
// adds and removes, and those a device event or an expiry removes, carry
// no request header.
type Announcer = fib.RouteAnnouncer[Route]

// notifyState is what the FIB knows of the messages of the change under
// way (guarded by RTNL).
type notifyState struct {
	announce Announcer
	req      bool        // a route request (inet6_rtm_newroute / delroute) is under way
	skip     int         // > 0: info->skip_notify, the caller sends one message itself
	nlflags  rt.NLMFlags // the flags fib6_add_rt2node chose for its message
}

// SetAnnouncer installs a; nil sends nothing (the default). The caller
// holds RTNL.
func (f *FIB) SetAnnouncer(a Announcer) { f.ns.announce = a }

// wanted reports whether a message would reach anyone.
func (f *FIB) wanted() bool { return f.ns.announce != nil && f.ns.announce.Wanted() }

// routeMsg sends the message of r (with its siblings, r first).
//
// Kernel: inet6_rt_notify (net/ipv6/route.c).
func (f *FIB) routeMsg(t *sim.Task, r *Info, del bool, flags rt.NLMFlags) {
	if f.ns.skip > 0 || !f.wanted() {
		return
	}
	f.ns.announce.RouteMsg(t, f.fill(t.Now(), r), del, flags, f.ns.req)
}

// request marks a route request under way until the returned function is
// called.
func (f *FIB) request() func() {
	f.ns.req = true
	return func() { f.ns.req = false }
}

// NexthopReplaced sends the RTM_NEWROUTE (NLM_F_REPLACE) of every IPv6
// route that uses nexthop object nh, newest first, after a replace changed
// nh's definition; the messages carry the header of the request under way
// (the nexthop request's), whatever skip_notify says.
//
// Kernel: __nexthop_replace_notify (net/ipv4/nexthop.c), fib6_rt_update
// (net/ipv6/route.c).
func (f *FIB) NexthopReplaced(t *sim.Task, nh *nexthop.Nexthop) {
	if nh == nil || nh.IPv6Users() == 0 || !f.wanted() {
		return
	}
	for _, u := range nh.IPv6UserList() {
		if r, ok := u.(*Info); ok && r.table != nil {
			f.ns.announce.RouteMsg(t, f.fill(t.Now(), r), false, rt.NLMReplace, true)
		}
	}
}
