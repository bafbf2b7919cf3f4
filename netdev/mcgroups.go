// Multicast group memberships of a device's IPv4 and IPv6 sides: the
// kernel's newest-first lists (struct ip_mc_list, struct ifmcaddr6), joins
// and leaves with their counted walks, and the lists /proc/net/igmp and
// /proc/net/igmp6 show (____ip_mc_inc_group, __ip_mc_dec_group:
// net/ipv4/igmp.c; __ipv6_dev_mc_inc, __ipv6_dev_mc_dec, igmp6_mc_seq_show:
// net/ipv6/mcast.c).

package netdev

import (
	"iter"
	"net/netip"
	"slices"

	"github.com/netsimlab/netsim/sim"
)

// Group is one IPv4 or IPv6 multicast group membership of a device, as
// /proc/net/igmp and /proc/net/igmp6 list it.
type Group struct {
	Addr  netip.Addr
	Users int
}

// Inet6GroupList returns the IPv6 multicast groups the device has joined,
// newest first (the order of idev->mc_list, which /proc/net/igmp6 and `ip
// maddr show` print), or nil for a device without IPv6.
//
// Kernel: igmp6_mc_seq_show (net/ipv6/mcast.c).
func (d *Device) Inet6GroupList() []Group {
	if d.inet6 == nil {
		return nil
	}
	return groupList(&d.inet6.mc)
}

// mcGroup is one multicast membership of a device's IPv4 or IPv6 side
// (struct ip_mc_list, struct ifmcaddr6).
type mcGroup struct {
	addr   netip.Addr
	users  int
	loaded bool // its MAC is in the device's mc list (im->loaded, MAF_LOADED)
}

// mcList is a device's IPv4 or IPv6 group list (mc_list), newest first.
// It is kept oldest first, so that a new group is appended, with an index
// by group address. The kernel has no index: it walks the list, newest
// first, to find a group (counted, sim.McListScan). The zero mcList is
// empty.
type mcList struct {
	old []*mcGroup // oldest first
	by  map[netip.Addr]*mcGroup
	// walked counts the groups netsim itself examined walking old (to
	// place a group found, to remove one): joining new groups walks none.
	walked int64
}

// newestFirst yields the groups in the kernel's list order.
func (l *mcList) newestFirst() iter.Seq[*mcGroup] {
	return func(yield func(*mcGroup) bool) {
		for _, m := range slices.Backward(l.old) {
			if !yield(m) {
				return
			}
		}
	}
}

// oldestFirst yields the groups in the reverse of the kernel's list order.
func (l *mcList) oldestFirst() iter.Seq[*mcGroup] { return slices.Values(l.old) }

// scanned is how many groups the kernel's walk examines to reach m (its
// place from the newest, counting m), or the whole list for nil; a walk
// of the list only when m is there (a join of a group already joined, a
// leave).
func (l *mcList) scanned(m *mcGroup) int64 {
	if m == nil {
		return int64(len(l.old))
	}
	n := int64(len(l.old) - slices.Index(l.old, m))
	l.walked += n
	return n
}

// mcJoin adds a user to group g of list l. A new group goes first in the
// list and is returned, for the caller to load its MAC; nil when g was
// already joined.
//
// Kernel: ____ip_mc_inc_group (net/ipv4/igmp.c), __ipv6_dev_mc_inc
// (net/ipv6/mcast.c).
func mcJoin(t *sim.Task, l *mcList, g netip.Addr) *mcGroup {
	defer t.Frame("____ip_mc_inc_group")()
	m := l.by[g]
	t.ChargeIn(sim.McListScan, l.scanned(m), l.footprint())
	if m != nil {
		m.users++
		return nil
	}
	m = &mcGroup{addr: g, users: 1}
	if l.by == nil {
		l.by = map[netip.Addr]*mcGroup{}
	}
	l.by[g] = m
	l.old = append(l.old, m)
	return m
}

// mcLeave drops a user of group g from list l. The group leaves the list
// with its last user and is returned, for the caller to unload its MAC;
// nil otherwise.
//
// Kernel: __ip_mc_dec_group (net/ipv4/igmp.c), __ipv6_dev_mc_dec
// (net/ipv6/mcast.c).
func mcLeave(t *sim.Task, l *mcList, g netip.Addr) *mcGroup {
	defer t.Frame("__ip_mc_dec_group")()
	m := l.by[g]
	t.ChargeIn(sim.McListScan, l.scanned(m), l.footprint())
	if m == nil {
		return nil
	}
	if m.users--; m.users > 0 {
		return nil
	}
	i := slices.Index(l.old, m)
	l.old = slices.Delete(l.old, i, i+1)
	delete(l.by, g)
	return m
}

// groupList returns the groups of l, newest first.
func groupList(l *mcList) []Group {
	out := make([]Group, 0, len(l.old))
	for m := range l.newestFirst() {
		out = append(out, Group{Addr: m.addr, Users: m.users})
	}
	return out
}
