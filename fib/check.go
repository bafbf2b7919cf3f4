// Invariant checking for the FIB, for tests of this package and of the
// packages built on it. The kernel has no counterpart; the checks state what
// net/ipv4/fib_trie.c and fib_semantics.c keep true between requests.

package fib

import (
	"fmt"
	"slices"
)

// checkShape verifies the trie's structural invariants: key vectors
// consistent with their position in the parent (key, pos, bits), parent
// pointers, empty and full child counts, suffix lengths, alias order within
// leaves, no tnode without children (one can stay, see below), and the
// arena's accounting.
// Tnodes that resize would still inflate or halve are allowed: the kernel
// does not promise there are none (max_work, resizing only the path of a
// change, and collapses that make a tnode the root can leave some).
func (t *trie) checkShape() error {
	leaves, tnodes, aliases := 0, 0, 0
	var walk func(r ref, parent uint32, lo uint32, known uint8) error
	// known is the number of leading key bits fixed by the path (32-pos of
	// the parent); lo is their value.
	walk = func(r ref, parent uint32, lo uint32, known uint8) error {
		if r.isLeaf() {
			leaves++
			l := &t.lf[r.idx()]
			if l.parent != parent {
				return fmt.Errorf("leaf %#x: parent %d, want %d", l.key, l.parent, parent)
			}
			if known > 0 && (l.key^lo)&mask(int(known)) != 0 {
				return fmt.Errorf("leaf %#x below %#x/%d", l.key, lo, known)
			}
			if l.head == 0 {
				return fmt.Errorf("leaf %#x has no alias", l.key)
			}
			var last *alias
			for a := l.head; a != 0; a = t.al(a).next {
				aliases++
				fa := t.al(a)
				if fa.slen > keyLength {
					return fmt.Errorf("leaf %#x: slen %d", l.key, fa.slen)
				}
				if fa.slen < keyLength && l.key&(1<<fa.slen-1) != 0 {
					return fmt.Errorf("leaf %#x: host bits under /%d", l.key, keyLength-fa.slen)
				}
				if fi := t.fiOf(fa); fi == nil || fi.released() || fi.treeref <= 0 || fi.idx != fa.info {
					return fmt.Errorf("leaf %#x: alias with a released fib_info", l.key)
				}
				if last != nil {
					if fa.slen < last.slen || fa.slen == last.slen && fa.tbID > last.tbID {
						return fmt.Errorf("leaf %#x: aliases out of order", l.key)
					}
					if fa.slen == last.slen && fa.tbID == last.tbID &&
						(fa.tos > last.tos || fa.tos == last.tos && t.fiOf(fa).priority < t.fiOf(last).priority) {
						return fmt.Errorf("leaf %#x: aliases out of tos/priority order", l.key)
					}
				}
				last = fa
			}
			if l.slen != last.slen {
				return fmt.Errorf("leaf %#x: slen %d, last alias %d", l.key, l.slen, last.slen)
			}
			return nil
		}
		tnodes++
		i := r.idx()
		n := &t.tn[i]
		if n.parent != parent {
			return fmt.Errorf("tnode %d: parent %d, want %d", i, n.parent, parent)
		}
		if n.bits == 0 || uint(n.pos)+uint(n.bits) > keyLength {
			return fmt.Errorf("tnode %d: pos %d bits %d", i, n.pos, n.bits)
		}
		if keyLength-n.pos-n.bits < known {
			return fmt.Errorf("tnode %d: pos %d bits %d under %d known bits", i, n.pos, n.bits, known)
		}
		top := n.pos + n.bits
		if top < keyLength && n.key&(1<<top-1) != 0 {
			return fmt.Errorf("tnode %d: key %#x has bits below %d", i, n.key, top)
		}
		if known > 0 && (n.key^lo)&mask(int(known)) != 0 {
			return fmt.Errorf("tnode %d: key %#x below %#x/%d", i, n.key, lo, known)
		}
		if n.bits > inlineBits && int(n.off)+1<<n.bits > len(t.kids) {
			return fmt.Errorf("tnode %d: slots %d+%d beyond %d", i, n.off, 1<<n.bits, len(t.kids))
		}
		slots := t.slots(n)
		empty, full, used := uint32(0), uint32(0), 0
		slen := n.pos
		for ci, c := range slots {
			if c.isLeaf() && c != t.leafSlot(c.idx(), n.pos) {
				return fmt.Errorf("tnode %d: child %d's ref %#x, want %#x", i, ci, c, t.leafSlot(c.idx(), n.pos))
			}
			if c == 0 {
				empty++
				continue
			}
			used++
			if t.tnodeFull(n, c) {
				full++
			}
			ck := t.kvKey(c)
			if ck&mask(int(keyLength-top)) != n.key&mask(int(keyLength-top)) || (ck>>n.pos)&(1<<n.bits-1) != uint32(ci) {
				return fmt.Errorf("tnode %d: child %d has key %#x", i, ci, ck)
			}
			if !c.isLeaf() && t.tn[c.idx()].pos+t.tn[c.idx()].bits > n.pos {
				return fmt.Errorf("tnode %d: child %d overlaps", i, ci)
			}
			slen = max(slen, t.kvSlen(c))
			if err := walk(c, i, ck&mask(int(keyLength-n.pos)), keyLength-n.pos); err != nil {
				return err
			}
		}
		if empty != n.empty || full != n.full {
			return fmt.Errorf("tnode %d: empty %d full %d, counted %d %d", i, n.empty, n.full, empty, full)
		}
		// One child can stay: resize returns after an inflate before it
		// would collapse (TestInflateMayLeaveOneChild); none cannot.
		if used < 1 {
			return fmt.Errorf("tnode %d has no children", i)
		}
		// The suffix length bounds the children's; it may stay above them:
		// fib_remove_alias pulls the parent's suffix before unlinking an
		// emptied leaf, so update_suffix still sees the leaf, as in the
		// kernel. Lookups only backtrack a little more.
		if n.slen < slen || n.slen > keyLength {
			return fmt.Errorf("tnode %d: slen %d, children say %d", i, n.slen, slen)
		}
		return nil
	}
	if r := t.root(); r != 0 {
		if err := walk(r, 0, 0, 0); err != nil {
			return err
		}
	}
	if leaves != t.nLeaves || tnodes != t.nTnodes || aliases != t.nAliases {
		return fmt.Errorf("counted %d leaves %d tnodes %d aliases, arena says %d %d %d",
			leaves, tnodes, aliases, t.nLeaves, t.nTnodes, t.nAliases)
	}
	inline := 0
	for i := 1; i < len(t.lf); i++ {
		if t.lf[i].inUse {
			inline++
		}
	}
	if inline != t.nInline || len(t.lf)-1-len(t.lfFree) != t.nLeaves || len(t.tn)-1-len(t.tnFree) != t.nTnodes ||
		len(t.fa)-1-len(t.faFree) != t.nAliases-t.nInline {
		return fmt.Errorf("arena free lists out of step")
	}
	return nil
}

// CheckInvariants verifies every table of the FIB and returns the first
// broken invariant: the shape of each trie (key order and key vectors, pos
// and bits, parent links, suffix lengths, the empty and full child counts
// of every tnode, alias order in leaves, node accounting); that every alias
// uses a live fib_info and each live fib_info's reference count (fib_treeref)
// is the number of aliases using it, that it is hashed under its own key and
// counted in fib_info_cnt, and that its dead flag is the one table walks
// read; that each table's route count is its aliases; and that every
// fib_info using a nexthop object is on that nexthop's list of FIB users
// (marked dead if the nexthop was removed), while the users of the table's
// nexthops that are fib_infos of this FIB are live ones.
//
// The caller holds RTNL or has a quiescent simulation. CheckInvariants only
// reads; it is meant for tests, after every operation.
func (f *FIB) CheckInvariants() error {
	refs := make(map[*fibInfo]int)
	seen := make(map[*trie]bool)
	for _, tb := range f.Tables() {
		if seen[tb.t] {
			continue
		}
		seen[tb.t] = true
		if err := tb.t.checkShape(); err != nil {
			return fmt.Errorf("table %d: %w", tb.id, err)
		}
		tb.t.checkEachAlias(func(_ uint32, fa *alias) { refs[tb.t.fiOf(fa)]++ })
	}
	n := 0
	check := func(fi *fibInfo) error {
		n++
		if refs[fi] != fi.treeref {
			return fmt.Errorf("fib_info %p: treeref %d, %d aliases", fi, fi.treeref, refs[fi])
		}
		if fi.released() || f.fis.at(fi.idx) != fi {
			return fmt.Errorf("released fib_info still hashed")
		}
		if f.fis.dead[fi.idx] != (fi.flags&FlagDead != 0) {
			return fmt.Errorf("fib_info %p: flags %v, walks see dead=%v", fi, fi.flags, f.fis.dead[fi.idx])
		}
		if fi.nh != nil {
			if !fi.nh.HasFIBUser(fi) {
				return fmt.Errorf("fib_info %p: not a FIB user of nexthop %d", fi, fi.nh.ID())
			}
			if fi.nh.Dead() && fi.flags&FlagDead == 0 {
				return fmt.Errorf("fib_info %p: nexthop %d removed, fib_info not marked dead", fi, fi.nh.ID())
			}
		}
		return nil
	}
	for h, chain := range f.infos {
		for fi := chain; fi != nil; fi = f.fis.get(fi.hashNext) {
			if err := check(fi); err != nil {
				return err
			}
			if fi.infoHash() != h {
				return fmt.Errorf("fib_info hashed under another key")
			}
		}
	}
	for k, chain := range f.nhInfos.all() {
		for fi := chain; fi != nil; fi = f.fis.get(fi.hashNext) {
			if err := check(fi); err != nil {
				return err
			}
			if fi.nh.ID() != k {
				return fmt.Errorf("fib_info hashed under another nexthop id")
			}
		}
	}
	if n != len(refs) || n != f.infoCount {
		return fmt.Errorf("%d fib_infos hashed, %d used, fib_info_cnt %d", n, len(refs), f.infoCount)
	}
	for _, tb := range f.Tables() {
		cnt := 0
		tb.t.checkEachAlias(func(_ uint32, fa *alias) {
			if fa.tbID == tb.id {
				cnt++
			}
		})
		if cnt != tb.routes {
			return fmt.Errorf("table %d: %d routes counted, %d recorded", tb.id, cnt, tb.routes)
		}
	}
	if err := f.checkDevChains(); err != nil {
		return err
	}
	if f.nh != nil {
		for _, nh := range f.nh.List() {
			for _, u := range nh.FIBUserList() {
				if fi, ok := u.(*fibInfo); ok && fi.f == f && (fi.released() || fi.nh != nh) {
					return fmt.Errorf("nexthop %d: FIB user %p is released or uses another nexthop", nh.ID(), fi)
				}
			}
		}
	}
	if err := f.checkCounted(); err != nil {
		return err
	}
	return nil
}

// checkEachAlias calls fn for every alias of every leaf.
func (t *trie) checkEachAlias(fn func(l uint32, fa *alias)) {
	for l := uint32(1); l < uint32(len(t.lf)); l++ {
		for a := t.lf[l].head; a != 0; a = t.al(a).next {
			fn(l, t.al(a))
		}
	}
}

// Unmerged reports whether local and main have their own tries: the
// namespace had a custom IPv4 rule (fib_has_custom_rules, see Unmerge).
func (f *FIB) Unmerged() bool { return f.customRules }

// checkDevChains verifies fib_info_devhash: every chain holds only its
// device's nexthops, linked both ways, each fib_info's paths on the device
// side by side; its count of fib_infos is what a walk visits; and a chain
// marked clean has nothing flagged dead or link-down.
func (f *FIB) checkDevChains() error {
	for dev, c := range f.devNH {
		if c.head == nil || c.head.devPrev != nil {
			return fmt.Errorf("devhash %s: empty chain or head with a predecessor", dev.Name())
		}
		var infos int64
		done := make(map[*fibInfo]bool)
		var prev *fibInfo
		for nh := c.head; nh != nil; nh = nh.devNext {
			if nh.dev != dev || !nh.hashed || nh.parent == nil || nh.parent.released() {
				return fmt.Errorf("devhash %s: a nexthop of another device, unhashed or of a released fib_info", dev.Name())
			}
			if nh.devNext != nil && nh.devNext.devPrev != nh {
				return fmt.Errorf("devhash %s: broken back link", dev.Name())
			}
			fi := nh.parent
			if fi == prev {
				continue
			}
			if done[fi] {
				return fmt.Errorf("devhash %s: fib_info %p's paths not side by side", dev.Name(), fi)
			}
			done[fi], prev = true, fi
			infos++
			if c.clean == f.flagGen+1 && (fi.flags&(FlagDead|FlagLinkDown) != 0 || nh.flags&(FlagDead|FlagLinkDown) != 0) {
				return fmt.Errorf("devhash %s: marked clean, fib_info %p flagged %v, path %v", dev.Name(), fi, fi.flags, nh.flags)
			}
		}
		if infos != c.infos {
			return fmt.Errorf("devhash %s: %d fib_infos on the chain, %d counted", dev.Name(), infos, c.infos)
		}
	}
	return nil
}

// checkCounted verifies the index of counted flushes (counted.go): every
// route's leaf listed under its fib_info in its trie, each list at most
// twice the fib_info's routes there with at most half of it stale, the
// dead list holding every dead fib_info, and every tnode not marked dirty
// settled (a flush's update_suffix and resize would change nothing at it).
func (f *FIB) checkCounted() error {
	if !f.fis.counted {
		return nil
	}
	seen := make(map[*trie]bool)
	for _, tb := range f.Tables() {
		tr := tb.t
		if seen[tr] {
			continue
		}
		seen[tr] = true
		if !tr.cf.track {
			return fmt.Errorf("table %d: trie not tracked", tb.id)
		}
		routes := make(map[uint32]int) // by fib_info
		for l := range tr.leaves() {
			for a := tr.lf[l].head; a != 0; a = tr.al(a).next {
				info, key := tr.al(a).info, tr.lf[l].key
				routes[info]++
				if int(info) >= len(tr.cf.sites) || !slices.Contains(tr.cf.sites[info], key) {
					return fmt.Errorf("table %d: alias index: fib_info %d at %#x not listed", tb.id, info, key)
				}
			}
		}
		for i, keys := range tr.cf.sites {
			if n := len(keys); n > 2*routes[uint32(i)] || 2*int(tr.cf.stale[i]) > n {
				return fmt.Errorf("table %d: alias index: fib_info %d: %d keys, %d stale, %d routes", tb.id, i, n, tr.cf.stale[i], routes[uint32(i)])
			}
		}
		listed := make(map[uint32]bool)
		for _, i := range tr.cf.dirty {
			listed[i] = true
		}
		for i := 1; i < len(tr.tn); i++ {
			n := &tr.tn[i]
			if n.bits == 0 {
				continue
			}
			if n.dirty && !listed[uint32(i)] {
				return fmt.Errorf("table %d: tnode %d marked dirty, not listed", tb.id, i)
			}
			if !n.dirty && !tr.settled(uint32(i)) {
				return fmt.Errorf("table %d: tnode %d (%#x pos %d bits %d) not settled, not marked dirty", tb.id, i, n.key, n.pos, n.bits)
			}
		}
	}
	for i := uint32(1); i < f.fis.next; i++ {
		if f.fis.dead[i] && (int(i) >= len(f.fis.inDead) || !f.fis.inDead[i]) {
			return fmt.Errorf("fib_info %d dead, not in the dead list", i)
		}
	}
	return nil
}
