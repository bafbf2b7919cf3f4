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

// IPv6User is an IPv6 route that uses a nexthop object (a fib6_info on
// nh->f6i_list). Removing the nexthop deletes the route.
//
// Kernel: __remove_nexthop_fib (net/ipv4/nexthop.c).
type IPv6User interface {
	// NexthopRemoved deletes the route from its table (ip6_del_rt). It
	// may call RemoveIPv6User.
	NexthopRemoved(t *sim.Task)
}

// f6iNode is one entry of nh->f6i_list.
type f6iNode struct {
	u IPv6User
	listLinks[f6iNode]
}

// f6iList is nh->f6i_list: newest first (fib6_add links with list_add),
// with an index for O(1) removal.
type f6iList struct {
	head *f6iNode
	idx  map[IPv6User]*f6iNode
}

// AddIPv6User links an IPv6 route to the nexthop (fib6_add's list_add on
// nh->f6i_list). Adding a user twice, or a nil user, does nothing.
func (nh *Nexthop) AddIPv6User(u IPv6User) {
	if u == nil {
		return
	}
	l := &nh.f6iList
	if l.idx == nil {
		l.idx = make(map[IPv6User]*f6iNode)
	} else if l.idx[u] != nil {
		return
	}
	n := &f6iNode{u: u}
	listAdd(&l.head, n)
	l.idx[u] = n
}

// RemoveIPv6User unlinks an IPv6 route from the nexthop (fib6_del_route's
// list_del of nh_list); removing a route that is not linked does nothing.
func (nh *Nexthop) RemoveIPv6User(u IPv6User) {
	l := &nh.f6iList
	n := l.idx[u]
	if n == nil {
		return
	}
	listDel(&l.head, n)
	delete(l.idx, u)
}

// IPv6Users returns the number of IPv6 routes linked to the nexthop.
func (nh *Nexthop) IPv6Users() int { return len(nh.f6iList.idx) }

// IPv6UserList returns the IPv6 routes linked to the nexthop in the order
// of nh->f6i_list, newest first.
func (nh *Nexthop) IPv6UserList() []IPv6User {
	var out []IPv6User
	for n := nh.f6iList.head; n != nil; n = n.next {
		out = append(out, n.u)
	}
	return out
}

// deleteIPv6Users deletes the IPv6 routes using nh, newest first; each
// leaves the list whether or not its NexthopRemoved unlinks it.
//
// Kernel: __remove_nexthop_fib (net/ipv4/nexthop.c).
func (nh *Nexthop) deleteIPv6Users(t *sim.Task) {
	defer t.Frame("ip6_del_rt")()
	for nh.f6iList.head != nil {
		u := nh.f6iList.head.u
		nh.RemoveIPv6User(u)
		u.NexthopRemoved(t)
	}
}
