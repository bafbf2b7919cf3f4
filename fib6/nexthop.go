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

// nhLinked puts a route that joined its table on its nexthop object's user
// list (fib6_add's list_add on nh->f6i_list).
func nhLinked(r *Info) {
	if r.nhObj != nil {
		r.nhObj.AddIPv6User(r)
	}
}

// nhUnlink takes a route that left its table off its nexthop object's user
// list (fib6_purge_rt's list_del of nh_list).
func nhUnlink(_ *sim.Task, r *Info) {
	if r.nhObj != nil {
		r.nhObj.RemoveIPv6User(r)
	}
}
