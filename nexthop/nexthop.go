// nexthop.go follows struct nexthop and struct nh_info of
// include/net/nexthop.h, and nh_fill_node of net/ipv4/nexthop.c for what a
// nexthop shows.

package nexthop

import (
	"fmt"
	"net/netip"
	"reflect"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Route scopes (RT_SCOPE_*) as nexthops and routes use them.
const (
	scopeUniverse uint8 = 0   // RT_SCOPE_UNIVERSE
	scopeLink     uint8 = 253 // RT_SCOPE_LINK
	scopeHost     uint8 = 254 // RT_SCOPE_HOST
)

// Nexthop is a nexthop object, struct nexthop: a single nexthop (a gateway
// and/or a device, or a blackhole) or a multipath group of single nexthops.
//
// A Nexthop keeps its identity for its whole life: a replace changes the
// object in place (the kernel swaps nh_info or nh_grp into the old struct
// nexthop), so FIB entries holding a *Nexthop see the new definition, as
// fib_info->nh does. After removal Dead reports true; the object stays
// readable (its last definition) for the FIB entries that still hold it.
//
// Every field is guarded by the owner of the Table (RTNL). The zero Nexthop
// is not usable; nexthops come from Table.Add and Table.Replace.
type Nexthop struct {
	id       ID
	protocol uint8
	dead     bool // removed from the table

	// A single nexthop's place in the per-device hash (nh_info->dev_hash):
	// its slot in its bucket, see devhash.go.
	hashed bool
	hpos   uint32

	info *nhInfo  // single nexthops (nh->nh_info); nil for groups
	grp  *nhGroup // groups (nh->nh_grp); nil for single nexthops

	grpList entryList // nh->grp_list: entries of the groups this nexthop is in, newest first
	fiList  userList  // nh->fi_list: the FIB entries using this nexthop, newest first
	f6iList f6iList   // nh->f6i_list: the IPv6 routes using this nexthop, newest first
}

// nhInfo is a single nexthop's definition, struct nh_info. Replacing a
// single nexthop installs a new nhInfo.
type nhInfo struct {
	gw        netip.Addr     // invalid when the nexthop has no gateway
	dev       *netdev.Device // nil for blackholes, which the kernel puts on loopback
	family    rt.Family      // AF_INET or AF_INET6
	onlink    bool           // RTNH_F_ONLINK
	blackhole bool           // reject_nh
	fdb       bool           // fdb_nh: no device, not in the device hash
	scope     uint8          // nhc_scope

	ifindex netdev.IfIndex // the per-device hash's key: dev's ifindex, or loopback's for blackholes
}

// ID returns the nexthop's id.
func (nh *Nexthop) ID() ID { return nh.id }

// Family returns AF_INET or AF_INET6 for a single nexthop (blackholes
// included) and 0 (AF_UNSPEC) for a group, as a dump reports nh_family.
func (nh *Nexthop) Family() rt.Family {
	if nh.info == nil {
		return rt.FamilyUnspec
	}
	return nh.info.family
}

// IsGroup reports whether the nexthop is a group.
func (nh *Nexthop) IsGroup() bool { return nh.grp != nil }

// Members returns a group's members in order with their weights (1..MaxWeight);
// it returns nil for a single nexthop.
func (nh *Nexthop) Members() []GroupMember {
	if nh.grp == nil {
		return nil
	}
	m := make([]GroupMember, len(nh.grp.entries))
	for i, e := range nh.grp.entries {
		m[i] = GroupMember{ID: e.nh.id, Weight: e.weight}
	}
	return m
}

// NumMembers returns the number of a group's members (nexthop_num_path
// counts paths: 1 for a single nexthop).
func (nh *Nexthop) NumMembers() int {
	if nh.grp == nil {
		return 0
	}
	return len(nh.grp.entries)
}

// Member returns a group's i-th member object, or nil when i is out of range
// or nh is not a group.
func (nh *Nexthop) Member(i int) *Nexthop {
	if nh.grp == nil || i < 0 || i >= len(nh.grp.entries) {
		return nil
	}
	return nh.grp.entries[i].nh
}

// Parents returns the groups the nexthop is a member of, in the order of
// nh->grp_list (the group that linked it most recently first).
func (nh *Nexthop) Parents() []*Nexthop {
	var p []*Nexthop
	for e := nh.grpList.head; e != nil; e = e.next {
		p = append(p, e.parent)
	}
	return p
}

// Gateway returns a single nexthop's gateway; the zero Addr when it has none
// (device-only nexthops, blackholes, groups).
func (nh *Nexthop) Gateway() netip.Addr {
	if nh.info == nil {
		return netip.Addr{}
	}
	return nh.info.gw
}

// Dev returns a single nexthop's device; nil for groups and for blackholes
// (the kernel points a blackhole at the loopback device).
func (nh *Nexthop) Dev() *netdev.Device {
	if nh.info == nil {
		return nil
	}
	return nh.info.dev
}

// OnLink reports whether a single nexthop has RTNH_F_ONLINK.
func (nh *Nexthop) OnLink() bool { return nh.info != nil && nh.info.onlink }

// FDB reports whether the nexthop is an fdb nexthop or a group of them
// (fdb_nh).
func (nh *Nexthop) FDB() bool {
	if nh.grp != nil {
		return nh.grp.fdb
	}
	return nh.info != nil && nh.info.fdb
}

// Blackhole reports whether the nexthop is a blackhole (reject_nh).
func (nh *Nexthop) Blackhole() bool { return nh.info != nil && nh.info.blackhole }

// IsBlackhole reports whether routes on nh are blackholes: nh is a
// blackhole, or a group whose only member is one (the state a group is in
// while it is replaced atomically by a real one).
//
// Kernel: nexthop_is_blackhole (include/net/nexthop.h).
func (nh *Nexthop) IsBlackhole() bool {
	if nh.grp != nil {
		if len(nh.grp.entries) != 1 {
			return false
		}
		nh = nh.grp.entries[0].nh
	}
	return nh.Blackhole()
}

// Scope returns a single nexthop's scope (nhc_scope): RT_SCOPE_LINK (253)
// for IPv4 nexthops with a gateway and for IPv6 nexthops, RT_SCOPE_HOST
// (254) for IPv4 device-only nexthops and blackholes (fib_check_nh_nongw);
// 0 for groups.
func (nh *Nexthop) Scope() uint8 {
	if nh.info == nil {
		return scopeUniverse
	}
	return nh.info.scope
}

// Protocol returns the nexthop's protocol (nh_protocol).
func (nh *Nexthop) Protocol() uint8 { return nh.protocol }

// HasV4 reports whether a group has an IPv4 member (nhg->has_v4), which an
// IPv6 route may not use. As in the kernel, replacing an IPv6 member by an
// IPv4 one does not set it again (only IPv4 → IPv6 replaces recompute it).
func (nh *Nexthop) HasV4() bool { return nh.grp != nil && nh.grp.hasV4 }

// Dead reports whether the nexthop has been removed from its table.
func (nh *Nexthop) Dead() bool { return nh.dead }

// CheckScope reports whether a route of the given scope (RT_SCOPE_*) may use
// the nexthop, with the kernel's EINVAL errors: no route may use an fdb
// nexthop or group, a host-scope route cannot use a group or a gateway,
// and an onlink nexthop needs a route scope below link.
//
// Kernel: fib_check_nexthop, nexthop_check_scope (net/ipv4/nexthop.c).
func (nh *Nexthop) CheckScope(scope uint8) error {
	if nh.FDB() {
		return einval("Route cannot point to a fdb nexthop")
	}
	info := nh.info
	if nh.grp != nil {
		if scope == scopeHost {
			return errno.New(syscall.EINVAL, "Route with host scope can not have multiple nexthops")
		}
		if len(nh.grp.entries) == 0 {
			return nil
		}
		// All members of a group have the same scope.
		info = nh.grp.entries[0].nh.info
	}
	return checkScope(info, scope)
}

// checkScope models nexthop_check_scope.
func checkScope(info *nhInfo, scope uint8) error {
	if info == nil {
		return nil
	}
	if scope == scopeHost && info.gw.IsValid() {
		return errno.New(syscall.EINVAL, "Route with host scope can not have a gateway")
	}
	if info.onlink && scope >= scopeLink {
		return errno.New(syscall.EINVAL, "Scope mismatch with nexthop")
	}
	return nil
}

// FIB users (nh->fi_list).

// userIndexMin is the list length from which a user list keeps a map index,
// so that RemoveFIBUser stays O(1) on long lists without giving every
// nexthop a map (most have one or two fib_info).
const userIndexMin = 8

type userNode struct {
	u          FIBUser
	prev, next *userNode
}

// userList is nh->fi_list: newest first (fib_create_info links with
// list_add), O(1) insertion and removal.
type userList struct {
	// inl is a node kept in the list itself, used for a user whenever it
	// is free (most nexthops have one FIB user): no allocation for it.
	inl    userNode
	more   *userMore // from the first user beyond one
	n      int32
	inlUse bool
}

// inlFirst reports whether inl is the first node (in use, nothing before
// it); otherwise more.head is. The common case, a single user, keeps no
// pointer to a node at all.
func (l *userList) inlFirst() bool { return l.inlUse && l.inl.prev == nil }

// userMore is what a list of more than one user needs besides its inline
// node.
type userMore struct {
	head *userNode             // the first node, unless inlFirst
	idx  map[FIBUser]*userNode // built once n exceeds userIndexMin
}

// first returns the list's first node, nil when it is empty.
func (l *userList) first() *userNode {
	switch {
	case l.inlFirst():
		return &l.inl
	case l.more != nil:
		return l.more.head
	}
	return nil
}

// setFirst makes n (possibly nil) the first node; for inl, its prev link
// says so.
func (l *userList) setFirst(n *userNode) {
	switch {
	case n == &l.inl || n == nil:
		if l.more != nil {
			l.more.head = nil
		}
	case l.more == nil:
		l.more = &userMore{head: n}
	default:
		l.more.head = n
	}
}

// index returns the list's map index, nil while it has none.
func (l *userList) index() map[FIBUser]*userNode {
	if l.more == nil {
		return nil
	}
	return l.more.idx
}

func (l *userList) find(u FIBUser) *userNode {
	if idx := l.index(); idx != nil {
		return idx[u]
	}
	for n := l.first(); n != nil; n = n.next {
		if n.u == u {
			return n
		}
	}
	return nil
}

func (l *userList) add(u FIBUser) {
	if l.find(u) != nil {
		return
	}
	first := l.first()
	var n *userNode
	if !l.inlUse {
		n = &l.inl
		l.inlUse = true
		*n = userNode{u: u, next: first}
	} else {
		n = &userNode{u: u, next: first}
	}
	if first != nil {
		first.prev = n
	}
	l.setFirst(n)
	l.n++
	switch idx := l.index(); {
	case idx != nil:
		idx[u] = n
	case l.n > userIndexMin:
		idx = make(map[FIBUser]*userNode, 2*l.n)
		for m := l.first(); m != nil; m = m.next {
			idx[m.u] = m
		}
		l.more.idx = idx // more exists: a list this long has a heap node
	}
}

func (l *userList) remove(u FIBUser) {
	n := l.find(u)
	if n == nil {
		return
	}
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		l.setFirst(n.next)
	}
	if n.next != nil {
		n.next.prev = n.prev
	}
	n.prev, n.next = nil, nil
	if n == &l.inl {
		n.u = nil
		l.inlUse = false
	}
	l.n--
	if idx := l.index(); idx != nil {
		delete(idx, u)
	}
}

// AddFIBUser links a FIB entry to the nexthop (fib_create_info's list_add on
// nh->fi_list). Adding a user twice, or a nil user, does nothing. The user
// must be of a comparable type (a pointer, typically); AddFIBUser panics
// otherwise, as a map key would.
func (nh *Nexthop) AddFIBUser(u FIBUser) {
	if u == nil {
		return
	}
	if !reflect.TypeOf(u).Comparable() {
		panic(fmt.Sprintf("nexthop: FIBUser of non-comparable type %T", u))
	}
	nh.fiList.add(u)
}

// RemoveFIBUser unlinks a FIB entry from the nexthop in O(1) (free_fib_info's
// list_del); it works on removed nexthops too, whose FIB entries are freed
// by the flush that follows. Removing a user that is not linked does nothing.
func (nh *Nexthop) RemoveFIBUser(u FIBUser) {
	// A non-comparable user cannot be linked (AddFIBUser refuses it), and
	// looking it up in the list's map index would panic.
	if u == nil || !reflect.TypeOf(u).Comparable() {
		return
	}
	nh.fiList.remove(u)
}

// FIBUsers returns the number of FIB entries linked to the nexthop.
func (nh *Nexthop) FIBUsers() int { return int(nh.fiList.n) }

// markFIBUsersDead marks every user RTNH_F_DEAD and reports whether there
// was any (the need for a flush).
//
// Kernel: __remove_nexthop_fib (net/ipv4/nexthop.c).
func (nh *Nexthop) markFIBUsersDead(t *sim.Task) bool {
	defer t.Frame("__remove_nexthop_fib")()
	if nh.fiList.n == 0 {
		return false
	}
	for n := nh.fiList.first(); n != nil; {
		next := n.next
		n.u.MarkDead()
		n = next
	}
	t.Charge(sim.NexthopFIBMark, int64(nh.fiList.n))
	return true
}

// notifyUpdated tells the users that implement UpdateNotifier that the
// nexthop's definition changed.
func (nh *Nexthop) notifyUpdated(t *sim.Task) {
	for n := nh.fiList.first(); n != nil; {
		next := n.next
		if un, ok := n.u.(UpdateNotifier); ok {
			un.NexthopUpdated(t, nh)
		}
		n = next
	}
}

// notifyReplaced models nexthop_replace_notify: the users of the nexthop
// and of every group it is in are told the definition changed.
func (nh *Nexthop) notifyReplaced(t *sim.Task) {
	nh.notifyUpdated(t)
	for e := nh.grpList.head; e != nil; e = e.next {
		e.parent.notifyUpdated(t)
	}
}

// checkUsersScope models fib_check_nh_list: every user that reports its
// route scope (ScopedFIBUser) must accept the candidate definition.
func (nh *Nexthop) checkUsersScope(cand *Nexthop) error {
	for n := nh.fiList.first(); n != nil; n = n.next {
		su, ok := n.u.(ScopedFIBUser)
		if !ok {
			continue
		}
		if err := cand.CheckScope(su.RouteScope()); err != nil {
			return err
		}
	}
	return nil
}
