// group.go follows the nexthop groups of net/ipv4/nexthop.c: struct
// nh_group and nh_grp_entry, nexthop_create_group, remove_nh_grp_entry,
// remove_nexthop_from_groups and remove_nexthop_group.

package nexthop

import (
	"fmt"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// GroupType is a nexthop group's type (NHA_GROUP_TYPE). The zero value is
// GroupMultipath.
type GroupType uint16

const (
	// GroupMultipath is a hash-threshold multipath group
	// (NEXTHOP_GRP_TYPE_MPATH), the default.
	GroupMultipath GroupType = 0
	// GroupResilient is a resilient group (NEXTHOP_GRP_TYPE_RES): a
	// fixed number of buckets over its members (resilient.go).
	GroupResilient GroupType = 1

	// GroupTypeMax is the last type there is (NEXTHOP_GRP_TYPE_MAX).
	GroupTypeMax = GroupResilient
)

// String returns "mpath", "resilient" or "GroupType(N)".
func (g GroupType) String() string {
	switch g {
	case GroupMultipath:
		return "mpath"
	case GroupResilient:
		return "resilient"
	}
	return fmt.Sprintf("GroupType(%d)", uint16(g))
}

// MaxWeight is the largest weight of a group member. struct nexthop_grp
// carries weight-1 in two bytes (weight and, since Linux 6.12, weight_high);
// nexthop_grp_weight adds 1 in 16 bits, so the one encoding above
// MaxWeight, 0xffff, reads as weight 0 and nh_check_attr_group refuses it
// with "Invalid value for weight". GroupMember's uint16 cannot express it.
// iproute2 6.1 sends only the low byte (weights up to 256) and reads only
// the low byte back.
const MaxWeight = 65535

// nhGroup is a group's member array, struct nh_group. The kernel swaps in a
// spare array on every member removal; here the entries slice is rebuilt.
type nhGroup struct {
	entries []*grpEntry
	hasV4   bool      // an IPv4 member (nhg->has_v4)
	res     *resTable // a resilient group's buckets (nhg->res_table); nil for hash-threshold
	fdb     bool      // a group of fdb nexthops (nhg->fdb_nh)
}

// grpEntry is one member of a group, struct nh_grp_entry. It is linked on
// its member's grpList (nhge->nh_list on nh->grp_list).
type grpEntry struct {
	nh     *Nexthop // the member
	parent *Nexthop // the group (nh_parent)
	weight uint16   // 1..MaxWeight
	res    resEntry // a resilient group's bucket counts (nhge->res)

	listLinks[grpEntry]
	linked bool
}

// entryList is nh->grp_list. list_add links at the head, so a member meets
// the group that linked it most recently first.
type entryList struct {
	head *grpEntry
}

func (l *entryList) pushFront(e *grpEntry) {
	listAdd(&l.head, e)
	e.linked = true
}

func (l *entryList) remove(e *grpEntry) {
	if !e.linked {
		return
	}
	listDel(&l.head, e)
	e.linked = false
}

// listLinks are the prev and next pointers of a struct list_head in a
// node of type T, for a list known by its first node.
type listLinks[T any] struct {
	prev, next *T
}

func (l *listLinks[T]) links() *listLinks[T] { return l }

// listNode is a pointer to a node holding listLinks.
type listNode[T any] interface {
	*T
	links() *listLinks[T]
}

// listAdd links n first on the list whose first node is *head (list_add).
func listAdd[T any, P listNode[T]](head **T, n P) {
	l := n.links()
	l.prev, l.next = nil, *head
	if *head != nil {
		P(*head).links().prev = n
	}
	*head = n
}

// listDel unlinks n from the list whose first node is *head (list_del).
func listDel[T any, P listNode[T]](head **T, n P) {
	l := n.links()
	if l.prev != nil {
		P(l.prev).links().next = l.next
	} else {
		*head = l.next
	}
	if l.next != nil {
		P(l.next).links().prev = l.prev
	}
	l.prev, l.next = nil, nil
}

// linkEntries links a group's entries on their members' lists, in member
// order, as nexthop_create_group does.
func linkEntries(g *nhGroup) {
	for _, e := range g.entries {
		e.nh.grpList.pushFront(e)
	}
}

// computeHasV4 models nh_group_v4_update.
func computeHasV4(entries []*grpEntry) bool {
	for _, e := range entries {
		if e.nh.info != nil && e.nh.info.family == rt.FamilyInet {
			return true
		}
	}
	return false
}

// removeNhGrpEntry takes e's member out of e's group. A group losing its
// last member is removed itself (and its FIB users marked dead); the result
// says whether that removal left a FIB flush to do.
//
// Kernel: remove_nh_grp_entry (net/ipv4/nexthop.c).
func (op *removal) removeNhGrpEntry(e *grpEntry) bool {
	parent := e.parent
	g := parent.grp
	if len(g.entries) == 1 {
		// The last entry stays visible; removing the parent unlinks it.
		return op.removeNexthop(parent)
	}
	entries := make([]*grpEntry, 0, len(g.entries)-1)
	for _, x := range g.entries {
		if x.nh == e.nh {
			continue
		}
		// The kernel copies every other entry into the spare array and
		// relinks it (list_del, list_add): it moves to the head of its
		// member's grp_list.
		x.nh.grpList.remove(x)
		x.nh.grpList.pushFront(x)
		entries = append(entries, x)
	}
	if g.res != nil {
		g.res.replaceRes(entries, op.tb.jiffies())
	}
	g.entries = entries
	g.hasV4 = computeHasV4(entries)
	e.nh.grpList.remove(e)
	return false
}

// removeNexthopFromGroups takes a single nexthop out of every group it is in.
//
// Kernel: remove_nexthop_from_groups (net/ipv4/nexthop.c).
func (op *removal) removeNexthopFromGroups(nh *Nexthop) bool {
	defer op.t.Frame("remove_nexthop_from_groups")()
	if nh.grpList.head == nil {
		// Nothing to do: the kernel skips the costly synchronize_net.
		return false
	}
	need := false
	for e := nh.grpList.head; e != nil; {
		next := e.next
		if op.removeNhGrpEntry(e) {
			need = true
		}
		e = next
	}
	// Make every reader see the new member arrays before RTNL is released.
	synchronizeNet(op.t)
	return need
}

// removeNexthopGroup unlinks a removed group's entries from its members.
//
// Kernel: remove_nexthop_group (net/ipv4/nexthop.c).
func (tb *Table) removeNexthopGroup(nh *Nexthop) {
	for _, e := range nh.grp.entries {
		e.nh.grpList.remove(e)
	}
	if nh.grp.res != nil {
		tb.removeResTable(nh.grp.res)
	}
}

// synchronizeNet models synchronize_net under RTNL: an expedited grace period.
func synchronizeNet(t *sim.Task) {
	if t != nil {
		t.World().RCU().SynchronizeExpedited(t)
	}
}
