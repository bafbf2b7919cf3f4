// Invariant checking for nexthop tables, for tests of this package and of
// the packages built on it. The kernel has no counterpart; the checks state
// what net/ipv4/nexthop.c keeps true between requests: the id tree, the
// per-device hash and the group lists (nh->grp_list, nhg->nh_entries) agree,
// and nh->fi_list holds each FIB user once.

package nexthop

import (
	"fmt"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
)

// CheckInvariants verifies the table and returns the first broken invariant:
//
//   - the id tree holds live nexthops under their own ids, and the dense
//     index below it holds exactly the tree's nexthops of small ids;
//   - every live single nexthop but the fdb ones is hashed once, in the
//     bucket of its device's ifindex (loopback's for blackholes), with
//     consistent links, and the hash holds nothing else;
//   - group membership goes both ways: each entry of a group names the
//     group as its parent and a live single nexthop that is not used twice
//     in the group, and is linked on that member's list of groups; each
//     entry on a nexthop's list of groups names it as the member and is in
//     its live parent's entries; a group has at least one member, weights
//     in 1..MaxWeight, and its IPv4 flag is set only with an IPv4 member;
//   - each nexthop's list of FIB users has each user once, its count and
//     its index agree with it;
//   - a resilient group's buckets are all occupied by its members, whose
//     bucket counts, wanted shares and underweight list agree with them
//     (checkRes), and the table runs the upkeep of exactly the live
//     resilient groups.
//
// The caller holds RTNL or has a quiescent simulation. CheckInvariants only
// reads; it is meant for tests, after every operation.
func (tb *Table) CheckInvariants() error {
	if tb == nil {
		return fmt.Errorf("nil nexthop table")
	}
	var err error
	inTree := make(map[*Nexthop]bool, tb.tree.Len())
	prevID, first := ID(0), true
	tb.tree.Ascend(func(it treeItem) bool {
		nh := it.nh
		switch {
		case nh == nil:
			err = fmt.Errorf("id %d: nil nexthop in the tree", it.id)
		case nh.id != it.id || it.id == 0:
			err = fmt.Errorf("id %d: nexthop %d under it", it.id, nh.id)
		case !first && it.id <= prevID:
			err = fmt.Errorf("id %d after %d in the tree", it.id, prevID)
		case nh.dead:
			err = fmt.Errorf("id %d: dead nexthop in the tree", it.id)
		case (nh.info == nil) == (nh.grp == nil):
			err = fmt.Errorf("id %d: neither or both single and group", it.id)
		case inTree[nh]:
			err = fmt.Errorf("id %d: nexthop under two ids", it.id)
		case it.id < denseMax && (int(it.id) >= len(tb.dense) || tb.dense[it.id] != nh):
			err = fmt.Errorf("id %d: not in the dense index", it.id)
		}
		inTree[nh] = true
		prevID, first = it.id, false
		return err == nil
	})
	if err != nil {
		return err
	}
	for id, nh := range tb.dense {
		if nh != nil && (!inTree[nh] || nh.id != ID(id)) {
			return fmt.Errorf("dense index: id %d holds nexthop %d not in the tree under it", id, nh.id)
		}
	}

	hashed := 0
	for bi := range tb.devhash {
		b := &tb.devhash[bi]
		holes := 0
		for i, nh := range b.nhs {
			if nh == nil {
				holes++
				continue
			}
			hashed++
			info := nh.info
			switch {
			case info == nil:
				return fmt.Errorf("device hash bucket %d: group %d in it", bi, nh.id)
			case !inTree[nh]:
				return fmt.Errorf("device hash bucket %d: nexthop %d is not in the table", bi, nh.id)
			case !nh.hashed || nh.hpos != uint32(i):
				return fmt.Errorf("device hash bucket %d: nexthop %d: slot %d, it says %d (hashed %v)", bi, nh.id, i, nh.hpos, nh.hashed)
			case devHashFn(info.ifindex) != uint32(bi):
				return fmt.Errorf("nexthop %d: in bucket %d, its ifindex %d hashes elsewhere", nh.id, bi, info.ifindex)
			}
			want := netdev.LoopbackIfIndex
			if info.dev != nil {
				want = info.dev.Index()
			}
			if info.ifindex != want {
				return fmt.Errorf("nexthop %d: hashed under ifindex %d, its device has %d", nh.id, info.ifindex, want)
			}
		}
		switch {
		case holes != b.holes:
			return fmt.Errorf("device hash bucket %d: %d empty slots, counted %d", bi, holes, b.holes)
		case len(b.nhs) > 0 && b.nhs[len(b.nhs)-1] == nil:
			return fmt.Errorf("device hash bucket %d: ends with an empty slot", bi)
		}
	}

	singles := 0
	for nh := range inTree {
		if nh.info != nil {
			if nh.hashed == nh.info.fdb {
				return fmt.Errorf("nexthop %d: in the device hash %v, fdb %v", nh.id, nh.hashed, nh.info.fdb)
			}
			if nh.hashed {
				singles++
			}
			if err := checkGroupList(nh, inTree); err != nil {
				return err
			}
		} else if err := checkGroup(nh, inTree); err != nil {
			return err
		}
		if err := nh.fiList.check(); err != nil {
			return fmt.Errorf("nexthop %d: FIB users: %w", nh.id, err)
		}
	}
	if hashed != singles {
		return fmt.Errorf("%d nexthops hashed, %d single nexthops", hashed, singles)
	}
	// The tables whose upkeep the Table runs are those of its live
	// resilient groups, once each.
	live := 0
	for nh := range inTree {
		if nh.IsResilient() {
			live++
		}
	}
	listed := make(map[*resTable]bool, len(tb.resTables))
	for _, rt := range tb.resTables {
		if listed[rt] {
			return fmt.Errorf("a resilient table listed twice")
		}
		listed[rt] = true
		if rt.upkeepPending && (!tb.upkeepQueued || rt.upkeepAt < tb.upkeepDue) {
			return fmt.Errorf("a resilient table's upkeep at %d is before the table's earliest deadline", rt.upkeepAt)
		}
	}
	for nh := range inTree {
		if nh.IsResilient() && !listed[nh.grp.res] {
			return fmt.Errorf("group %d: its resilient table's upkeep is not run", nh.id)
		}
	}
	if live != len(tb.resTables) {
		return fmt.Errorf("%d resilient tables listed, %d resilient groups", len(tb.resTables), live)
	}
	return nil
}

// checkGroup verifies a group's entries.
func checkGroup(nh *Nexthop, inTree map[*Nexthop]bool) error {
	g := nh.grp
	if len(g.entries) == 0 {
		return fmt.Errorf("group %d: no members", nh.id)
	}
	if nh.grpList.head != nil {
		return fmt.Errorf("group %d: member of a group", nh.id)
	}
	members := make(map[*Nexthop]bool, len(g.entries))
	v4 := false
	for _, e := range g.entries {
		m := e.nh
		switch {
		case e.parent != nh:
			return fmt.Errorf("group %d: an entry names group %d", nh.id, e.parent.id)
		case m == nil || !inTree[m]:
			return fmt.Errorf("group %d: a member is not in the table", nh.id)
		case m.info == nil:
			return fmt.Errorf("group %d: member %d is a group", nh.id, m.id)
		case members[m]:
			return fmt.Errorf("group %d: member %d twice", nh.id, m.id)
		case e.weight < 1:
			return fmt.Errorf("group %d: member %d has weight %d", nh.id, m.id, e.weight)
		case !e.linked || !m.grpList.has(e):
			return fmt.Errorf("group %d: entry of member %d not on its list of groups", nh.id, m.id)
		}
		members[m] = true
		v4 = v4 || m.info.family == rt.FamilyInet
	}
	if g.res != nil {
		if err := checkRes(nh); err != nil {
			return err
		}
	}
	// The flag is recomputed whenever a member leaves or an IPv4 member
	// becomes IPv6, but not when an IPv6 member becomes IPv4 (see HasV4):
	// it may be missing, never set without an IPv4 member.
	if g.hasV4 && !v4 {
		return fmt.Errorf("group %d: has_v4 set without an IPv4 member", nh.id)
	}
	return nil
}

// checkGroupList verifies a single nexthop's list of group entries.
func checkGroupList(nh *Nexthop, inTree map[*Nexthop]bool) error {
	var prev *grpEntry
	n := 0
	for e := nh.grpList.head; e != nil; e = e.next {
		if n++; n > len(inTree) {
			return fmt.Errorf("nexthop %d: list of groups too long (a cycle?)", nh.id)
		}
		p := e.parent
		switch {
		case e.prev != prev || !e.linked:
			return fmt.Errorf("nexthop %d: list of groups: links broken", nh.id)
		case e.nh != nh:
			return fmt.Errorf("nexthop %d: list of groups holds an entry of member %d", nh.id, e.nh.id)
		case p == nil || !inTree[p] || p.grp == nil:
			return fmt.Errorf("nexthop %d: in a group that is not in the table", nh.id)
		}
		found := false
		for _, x := range p.grp.entries {
			found = found || x == e
		}
		if !found {
			return fmt.Errorf("nexthop %d: entry on its list of groups is not in group %d", nh.id, p.id)
		}
		prev = e
	}
	return nil
}

// has reports whether e is on the list.
func (l *entryList) has(e *grpEntry) bool {
	for x := l.head; x != nil; x = x.next {
		if x == e {
			return true
		}
	}
	return false
}

// check verifies a list of FIB users.
func (l *userList) check() error {
	seen := make(map[FIBUser]bool, l.n)
	var prev *userNode
	n, inl := 0, false
	if l.inlFirst() && l.more != nil && l.more.head != nil {
		return fmt.Errorf("first node both inline and %p", l.more.head)
	}
	idx := l.index()
	for x := l.first(); x != nil; x = x.next {
		if n++; n > int(l.n) {
			return fmt.Errorf("more users listed than the count %d", l.n)
		}
		switch {
		case x.prev != prev:
			return fmt.Errorf("user %d: links broken", n)
		case x.u == nil || seen[x.u]:
			return fmt.Errorf("user %d: nil or listed twice", n)
		case idx != nil && idx[x.u] != x:
			return fmt.Errorf("user %d: index does not point at it", n)
		}
		seen[x.u] = true
		inl = inl || x == &l.inl
		prev = x
	}
	switch {
	case n != int(l.n):
		return fmt.Errorf("%d users listed, count %d", n, l.n)
	case idx != nil && len(idx) != n:
		return fmt.Errorf("index holds %d users, list %d", len(idx), n)
	case inl != l.inlUse:
		return fmt.Errorf("inline node in the list: %v, in use: %v", inl, l.inlUse)
	}
	return nil
}

// HasFIBUser reports whether u is on the nexthop's list of FIB users, for
// checks that the FIB's fib_info and the nexthops they use agree.
func (nh *Nexthop) HasFIBUser(u FIBUser) bool {
	for x := nh.fiList.first(); x != nil; x = x.next {
		if x.u == u {
			return true
		}
	}
	return false
}

// FIBUserList returns the nexthop's FIB users, newest first (nh->fi_list).
func (nh *Nexthop) FIBUserList() []FIBUser {
	out := make([]FIBUser, 0, nh.fiList.n)
	for x := nh.fiList.first(); x != nil; x = x.next {
		out = append(out, x.u)
	}
	return out
}

// checkRes verifies a resilient group's table: every bucket is occupied by
// one of the group's entries, each entry's bucket count is what the
// buckets say and its wanted share is nh_res_group_rebalance's, the shares
// add up to the bucket count, the underweight list holds exactly the
// entries below their share, once each, and an unbalanced group has its
// upkeep queued.
func checkRes(nh *Nexthop) error {
	g := nh.grp
	rt := g.res
	if len(rt.buckets) == 0 {
		return fmt.Errorf("group %d: resilient without buckets", nh.id)
	}
	count := make(map[*grpEntry]int, len(g.entries))
	in := make(map[*grpEntry]bool, len(g.entries))
	for _, e := range g.entries {
		in[e] = true
	}
	for i := range rt.buckets {
		b := &rt.buckets[i]
		switch {
		case !b.occupied:
			return fmt.Errorf("group %d: bucket %d not occupied", nh.id, i)
		case !in[b.entry]:
			return fmt.Errorf("group %d: bucket %d points outside the group", nh.id, i)
		case b.usedTime < b.migratedAt:
			return fmt.Errorf("group %d: bucket %d used before it was migrated", nh.id, i)
		}
		count[b.entry]++
	}
	total := 0
	for _, e := range g.entries {
		total += int(e.weight)
	}
	w, prev, wants := 0, 0, 0
	uw := make(map[*grpEntry]bool, len(rt.uw))
	for _, e := range rt.uw {
		if uw[e] || !in[e] {
			return fmt.Errorf("group %d: underweight list holds member %d twice or from elsewhere", nh.id, e.nh.id)
		}
		uw[e] = true
	}
	for _, e := range g.entries {
		w += int(e.weight)
		upper := (len(rt.buckets)*w + total/2) / total
		switch {
		case e.res.countBuckets != count[e]:
			return fmt.Errorf("group %d: member %d counts %d buckets, holds %d", nh.id, e.nh.id, e.res.countBuckets, count[e])
		case e.res.wantsBuckets != upper-prev:
			return fmt.Errorf("group %d: member %d wants %d buckets, its share is %d", nh.id, e.nh.id, e.res.wantsBuckets, upper-prev)
		case uw[e] != e.isUnderweight():
			return fmt.Errorf("group %d: member %d underweight %v, listed %v", nh.id, e.nh.id, e.isUnderweight(), uw[e])
		}
		wants += e.res.wantsBuckets
		prev = upper
	}
	if wants != len(rt.buckets) {
		return fmt.Errorf("group %d: members want %d buckets of %d", nh.id, wants, len(rt.buckets))
	}
	if !rt.balanced() && !rt.upkeepPending {
		return fmt.Errorf("group %d: unbalanced with no upkeep queued", nh.id)
	}
	return nil
}
