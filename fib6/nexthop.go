// nexthop.go joins IPv6 routes to nexthop objects: a route with `nhid` is
// on the object's IPv6 user list (nh->f6i_list) while it is in its table,
// and removing the object deletes it (__remove_nexthop_fib → ip6_del_rt).
// Replacing the object keeps the routes: they read its new definition.

package fib6

import "github.com/netsimlab/netsim/sim"

// NexthopRemoved implements nexthop.IPv6User: the route's nexthop object
// was removed, so the route is deleted.
//
// Kernel: __remove_nexthop_fib (net/ipv4/nexthop.c), ip6_del_rt.
func (r *Info) NexthopRemoved(t *sim.Task) {
	if r.node == nil || r.table == nil {
		return
	}
	_ = r.table.fib.delRT(t, r)
}

// nhUnlink takes a route that leaves its table off its nexthop object's
// user list (fib6_del_route's list_del of nh_list).
func nhUnlink(r *Info) {
	if r.nhObj != nil {
		r.nhObj.RemoveIPv6User(r)
	}
}
