// users.go holds the optional interfaces a FIB entry may implement beyond
// FIBUser, for the parts of net/ipv4/nexthop.c that read or notify the
// fib_info on nh->fi_list other than by marking it dead.

package nexthop

import "github.com/netsimlab/netsim/sim"

// ScopedFIBUser is a FIBUser that reports its route's scope (fi->fib_scope).
// A replace checks the new definition against the scope of every such user
// of the nexthop and of the groups it is in, and is refused with the
// kernel's EINVAL when a route could not use it ("Route with host scope can
// not have a gateway", "Scope mismatch with nexthop"). Users that do not
// implement it are not checked.
//
// Kernel: fib_check_nh_list (net/ipv4/nexthop.c).
type ScopedFIBUser interface {
	FIBUser
	RouteScope() uint8 // RT_SCOPE_*
}

// UpdateNotifier is a FIBUser told that the nexthop it uses (nh: the
// nexthop itself or a group it is in) changed definition through a replace.
// The routes stay: the FIB entry keeps pointing at the same *Nexthop and
// reads its new gateway and device. The kernel only sends RTM_NEWROUTE
// notifications and bumps the route cache generation here.
//
// Kernel: nexthop_replace_notify, nh_rt_cache_flush (net/ipv4/nexthop.c).
type UpdateNotifier interface {
	FIBUser
	NexthopUpdated(t *sim.Task, nh *Nexthop)
}
