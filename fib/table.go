// FIB tables: route insertion, deletion, lookup, dump and flush on an
// LC-trie, modelled on the fib_table_* functions of net/ipv4/fib_trie.c.

package fib

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// faAccessed is FA_S_ACCESSED: a lookup returned the route.
const faAccessed = 1

// Table is one routing table (struct fib_table). Main and local share one
// trie until the first custom IPv4 rule (Unmerge), each seeing only its own
// routes in dumps and flushes; lookups in main see local's routes too, as
// the kernel's do. The zero Table is not usable; tables come from a FIB.
//
// A Table is guarded by RTNL, like the FIB it belongs to.
type Table struct {
	f      *FIB
	id     uint32
	t      *trie
	routes int // fib_aliases with this table's id
}

// ID returns the table id.
func (tb *Table) ID() uint32 { return tb.id }

// Len returns the number of routes in the table.
func (tb *Table) Len() int { return tb.routes }

// Stats returns the shape of the table's trie, as /proc/net/fib_triestat
// reports it (main and local report the same trie while merged).
//
// Kernel: trie_collect_stats (net/ipv4/fib_trie.c).
func (tb *Table) Stats() Stats { return tb.t.collectStats() }

// findAlias is fib_find_alias: in the alias list starting at head, the first
// alias of the section (slen, tbID) with a tos not above tos and either a
// priority at or above prio or a lower tos; with findFirst, the first alias
// of the section.
func (t *trie) findAlias(head uint32, slen, tos uint8, prio, tbID uint32, findFirst bool) uint32 {
	for a := head; a != 0; a = t.al(a).next {
		t.work.aliases++
		fa := t.al(a)
		if fa.slen < slen {
			continue
		}
		if fa.slen != slen {
			break
		}
		if fa.tbID > tbID {
			continue
		}
		if fa.tbID != tbID {
			break
		}
		if findFirst {
			return a
		}
		if fa.tos > tos {
			continue
		}
		t.work.infos++
		t.work.leafInfos++
		if t.fiOf(fa).priority >= prio || fa.tos < tos {
			return a
		}
	}
	return 0
}

// prevAlias returns the alias before a in leaf l's list (0 if a is first).
func (t *trie) prevAlias(l, a uint32) uint32 {
	var p uint32
	for x := t.lf[l].head; x != a; x = t.al(x).next {
		p = x
	}
	return p
}

// setNext makes next follow prev in leaf l's alias list, or head the list
// when prev is 0. The caller refreshes the leaf's slot summary (resum)
// once its change to the leaf is done.
func (t *trie) setNext(l, prev, next uint32) {
	if prev != 0 {
		t.al(prev).next = next
	} else {
		t.lf[l].head = next
	}
}

// insertAlias is fib_insert_alias: link alias a into leaf l before fa, or
// at the end of its (slen, table) section when fa is 0; a new leaf when l is
// 0.
func (t *trie) insertAlias(tp, l uint32, a alias, fa, key uint32) {
	if l == 0 {
		t.insertNode(tp, key, a)
		return
	}
	nfa := t.newAlias(l, a)
	n := t.al(nfa)
	if fa != 0 {
		n.next = fa
		t.setNext(l, t.prevAlias(l, fa), nfa)
	} else {
		for last := t.lf[l].head; last != 0; last = t.al(last).next {
			x := t.al(last)
			if n.slen < x.slen {
				break
			}
			if n.slen == x.slen && n.tbID > x.tbID {
				break
			}
			fa = last
		}
		if fa != 0 {
			n.next = t.al(fa).next
			t.al(fa).next = nfa
		} else {
			n.next = t.lf[l].head
			t.lf[l].head = nfa
		}
	}
	if t.lf[l].slen < n.slen {
		t.setLeafSlen(l, n.slen)
		t.nodePushSuffix(tp, n.slen)
	}
	t.resum(l)
}

// removeAlias is fib_remove_alias: unlink alias old from leaf l (below tp),
// removing the leaf when it empties. It does not free old.
func (t *trie) removeAlias(tp, l, old uint32) {
	p := t.prevAlias(l, old)
	next := t.al(old).next
	t.setNext(l, p, next)
	if t.lf[l].head == 0 {
		t.removeLeaf(tp, l)
		return
	}
	if next == 0 {
		// old was the last alias: the leaf's suffix is now the previous
		// one's.
		s := t.al(p).slen
		t.setLeafSlen(l, s)
		t.nodePullSuffix(tp, s)
	}
	t.resum(l)
}

// insert is fib_table_insert (the request is valid and in this table).
func (tb *Table) insert(t *sim.Task, cfg *config) error {
	f := tb.f
	fi, err := f.createInfo(t, cfg)
	if err != nil {
		return err
	}
	tr := tb.t
	key, slen, tos := cfg.dst, keyLength-cfg.dstLen, cfg.tos
	l, tp := tr.findNode(key)
	var fa uint32
	if l != 0 {
		fa = tr.findAlias(tr.lf[l].head, slen, tos, fi.priority, tb.id, false)
	}
	nlflags := rt.NLMExcl
	if fa != 0 && tr.al(fa).tos == tos && tr.fiOf(tr.al(fa)).priority == fi.priority {
		if cfg.mode&rt.NLMExcl != 0 {
			f.releaseInfo(fi)
			return errno.New(syscall.EEXIST, "")
		}
		nlflags &^= rt.NLMExcl
		faFirst, faMatch := fa, uint32(0)
		for ; fa != 0; fa = tr.al(fa).next {
			tr.work.aliases++
			x := tr.al(fa)
			if x.slen != slen || x.tbID != tb.id || x.tos != tos || tr.fiOf(x).priority != fi.priority {
				break
			}
			if x.typ == cfg.typ && x.info == fi.idx {
				faMatch = fa
				break
			}
		}
		if cfg.mode&rt.NLMReplace != 0 {
			fa = faFirst
			if faMatch != 0 {
				f.releaseInfo(fi)
				if fa == faMatch {
					return nil
				}
				return errno.New(syscall.EEXIST, "")
			}
			// The kernel links a new fib_alias in the old one's place;
			// rewriting it in place is the same.
			x := tr.al(fa)
			drop := tr.fiOf(x)
			*x = alias{info: fi.idx, tos: x.tos, typ: cfg.typ, slen: x.slen,
				tbID: tb.id, state: x.state &^ faAccessed, next: x.next}
			tr.siteDel(drop.idx, key)
			tr.siteAdd(fi.idx, key)
			f.releaseInfo(drop)
			t.Charge(sim.FibAliasInsert, 1)
			tb.routeMsg(t, cfg, false, nlflags|rt.NLMReplace, key, slen, cfg.typ, tos, fi)
			return nil
		}
		if faMatch != 0 {
			f.releaseInfo(fi)
			return errno.New(syscall.EEXIST, "")
		}
		if cfg.mode&rt.NLMAppend == 0 {
			fa = faFirst
		} else {
			nlflags |= rt.NLMAppend
		}
	}
	if cfg.mode&rt.NLMCreate == 0 {
		f.releaseInfo(fi)
		return errno.New(syscall.ENOENT, "")
	}
	tr.insertAlias(tp, l, alias{info: fi.idx, tos: tos, typ: cfg.typ, slen: slen, tbID: tb.id}, fa, key)
	tb.routes++
	t.Charge(sim.FibAliasInsert, 1)
	tb.routeMsg(t, cfg, false, nlflags|rt.NLMCreate, key, slen, cfg.typ, tos, fi)
	return nil
}

// delete is fib_table_delete: remove the first route of the (prefix, tos)
// section that matches every attribute the request sets.
func (tb *Table) delete(t *sim.Task, cfg *config) error {
	tr := tb.t
	key, slen, tos := cfg.dst, keyLength-cfg.dstLen, cfg.tos
	l, tp := tr.findNode(key)
	if l == 0 {
		return errno.New(syscall.ESRCH, "")
	}
	fa := tr.findAlias(tr.lf[l].head, slen, tos, 0, tb.id, false)
	if fa == 0 {
		return errno.New(syscall.ESRCH, "")
	}
	var del uint32
	for ; fa != 0; fa = tr.al(fa).next {
		tr.work.aliases++
		x := tr.al(fa)
		if x.slen != slen || x.tbID != tb.id || x.tos != tos {
			break
		}
		fi := tr.fiOf(x)
		tr.work.infos++
		tr.work.leafInfos++
		if (cfg.typ == TypeUnspec || x.typ == cfg.typ) &&
			(cfg.scope == ScopeNowhere || fi.scope == cfg.scope) &&
			(!cfg.prefsrc.IsValid() || fi.prefsrc == cfg.prefsrc) &&
			(cfg.protocol == ProtoUnspec || fi.protocol == cfg.protocol) &&
			nhMatch(cfg, fi) && metricsMatch(cfg.mx, fi.mx) {
			del = fa
			break
		}
	}
	if del == 0 {
		return errno.New(syscall.ESRCH, "")
	}
	fi := tr.fiOf(tr.al(del))
	tb.routeMsg(t, cfg, true, 0, key, slen, tr.al(del).typ, tos, fi)
	tr.removeAlias(tp, l, del)
	tr.siteDel(fi.idx, key)
	tr.freeAlias(del)
	tb.routes--
	tb.f.releaseInfo(fi)
	t.Charge(sim.FibRouteDelete, 1)
	return nil
}

// Flow is a lookup key: the parts of struct flowi4 a FIB lookup reads. The
// zero Flow looks up 0.0.0.0 with any TOS, any scope and any device.
// A table lookup reads Dst, TOS, Scope and OIF; the policy rules (once the
// namespace has custom ones) read all of it.
type Flow struct {
	Dst   netip.Addr     // flowi4_daddr
	Src   netip.Addr     // flowi4_saddr (invalid: unspecified)
	TOS   uint8          // flowi4_tos: routes with a TOS must match it
	Scope Scope          // flowi4_scope: routes of a wider scope (lower value) are skipped
	OIF   netdev.IfIndex // flowi4_oif: only paths through this device
	IIF   netdev.IfIndex // flowi4_iif: LOOPBACK_IFINDEX for locally generated packets
	Mark  uint32         // flowi4_mark
	UID   uint32         // flowi4_uid
	Proto uint8          // flowi4_proto
	Sport uint16         // fl4_sport
	Dport uint16         // fl4_dport
}

// Result is what a lookup found (struct fib_result). For a route type that
// rejects (blackhole, unreachable, prohibit, throw) the lookup returns its
// error with Prefix, Type, Scope and Table set.
type Result struct {
	Prefix    netip.Prefix   // the matching route's prefix
	Type      Type           // its type
	Scope     Scope          // its scope (fib_scope)
	Table     uint32         // the table it is in
	Priority  uint32         // its metric
	PrefSrc   netip.Addr     // its preferred source, if any
	TOS       uint8          // its TOS (fa_dscp as a dsfield byte; res->dscp)
	NHSel     int            // the path chosen (nh_sel)
	Gateway   netip.Addr     // the path's gateway (none for a direct route)
	Dev       *netdev.Device // the path's device
	NHScope   Scope          // the path's scope (nhc_scope)
	NexthopID nexthop.ID     // the route's nexthop object, if any

	fi *fibInfo // the route's fib_info (res->fi), for fib_select_multipath
}

// Metrics returns the metrics of the matching route's fib_info, which a
// route built from it carries (rt_set_nexthop).
func (r Result) Metrics() Metrics {
	if r.fi == nil || r.fi.mx == nil {
		return Metrics{}
	}
	return *r.fi.mx
}

func prefixMismatch(key, pkey uint32) uint32 { return (key ^ pkey) & (pkey | -pkey) }

// backtrack is the "backtrace" of fib_table_lookup: strip the lowest set
// bit of cindex, climbing while it is zero, and return the next non-empty
// child to examine with its slot's summary and the key a leaf in that slot
// has unless the summary says sumDead; false when the trie is exhausted.
func (t *trie) backtrack(pn, cindex *uint32) (ref, slotSum, uint32, bool) {
	for {
		for *cindex == 0 {
			if *pn == 0 {
				return 0, 0, 0, false
			}
			pkey := t.tn[*pn].key
			*pn = t.tn[*pn].parent
			*cindex = getIndex(pkey, &t.tn[*pn])
		}
		*cindex &= *cindex - 1
		tn := &t.tn[*pn]
		if n := t.kid(tn, *cindex); n != 0 {
			return n, n.sum(), tn.key | *cindex<<tn.pos, true
		}
	}
}

var errAgain = errno.New(syscall.EAGAIN, "")

// isAgain reports whether err is EAGAIN (no route in the table, or a
// throw route), without the reflection of errors.As.
func isAgain(err error) bool {
	if err == errAgain {
		return true
	}
	e, ok := err.(*errno.Error)
	return ok && e.Errno == syscall.EAGAIN
}

// lookup is fib_table_lookup: the longest prefix that covers fl.Dst with a
// route that fits the flow, backtracking to shorter prefixes when a leaf's
// routes are all dead, of the wrong TOS or scope, or use other devices. It
// fails with EAGAIN when nothing matches.
func (tb *Table) lookup(t *sim.Task, fl Flow) (Result, error) {
	tr := tb.t
	w := tr.work
	key := addr4(fl.Dst)
	var pn, cindex uint32
	n := tr.kid(&tr.tn[0], 0)
	if n == 0 {
		return Result{}, errAgain
	}
	var ok bool
	var res Result // filled in by leafLookup, not copied out of it
	atLeaf := false
	// The summary of the slot n came from and the key a leaf there has
	// (slotSum).
	var nsum slotSum
	var skey uint32
	// Step 1: travel to the longest prefix match in the trie.
	for {
		if n.isLeaf() {
			if nsum > sumDead {
				atLeaf = skey == key
			} else {
				// sumDead holds for slots other than the key's own.
				nsum = 0
				atLeaf = tr.lf[n.leafIdx()].key == key
			}
			break
		}
		w.nodes++
		tn := &tr.tn[n.tnodeIdx()]
		index := (key ^ tn.key) >> tn.pos
		if index>>tn.bits != 0 {
			break
		}
		if tn.slen > tn.pos {
			pn, cindex = n.tnodeIdx(), index
		}
		n = tr.kid(tn, index)
		nsum = n.sum()
		skey = tn.key | index<<tn.pos
		if n == 0 {
			if n, nsum, skey, ok = tr.backtrack(&pn, &cindex); !ok {
				return Result{}, errAgain
			}
			break
		}
	}
	// Step 2: sort out leaves and backtrack for the longest prefix.
	for {
		if !atLeaf {
			// A leaf the summary of its slot rules out is passed over
			// unread, with the work of reading it charged: the test
			// below fails for it (sumDead, prefixMismatch), or step 3
			// rejects each of its aliases on its length.
			if nsum != 0 {
				if nsum == sumDead || prefixMismatch(key, skey) != 0 {
					if n, nsum, skey, ok = tr.backtrack(&pn, &cindex); !ok {
						return Result{}, errAgain
					}
					continue
				}
				if na := nsum >> sumAliases; na != 0 && (key^skey)>>nsum.slen() != 0 {
					w.leaves++
					w.aliases += int64(na)
					if n, nsum, skey, ok = tr.backtrack(&pn, &cindex); !ok {
						return Result{}, errAgain
					}
					continue
				}
			}
			var nkey uint32
			var nslen, npos uint8
			if n.isLeaf() {
				l := &tr.lf[n.leafIdx()]
				nkey, nslen = l.key, l.slen
			} else {
				w.nodes++
				tn := &tr.tn[n.tnodeIdx()]
				nkey, nslen, npos = tn.key, tn.slen, tn.pos
			}
			if prefixMismatch(key, nkey) != 0 || nslen == npos {
				if n, nsum, skey, ok = tr.backtrack(&pn, &cindex); !ok {
					return Result{}, errAgain
				}
				continue
			}
			if !n.isLeaf() {
				// Child 0 of a tnode reached this way differs from the
				// key above the tnode's pos too; its key is the tnode's.
				tn := &tr.tn[n.tnodeIdx()]
				n = tr.kid(tn, 0)
				nsum, skey = n.sum(), tn.key
				if n == 0 {
					if n, nsum, skey, ok = tr.backtrack(&pn, &cindex); !ok {
						return Result{}, errAgain
					}
				}
				continue
			}
		}
		atLeaf = false
		// Step 3: process the leaf; fall back to backtracking on a miss.
		if hit, err := tb.leafLookup(n.leafIdx(), key, &fl, &res); hit {
			return res, err
		}
		if n, nsum, skey, ok = tr.backtrack(&pn, &cindex); !ok {
			return Result{}, errAgain
		}
	}
}

// legacyTOSMask is INET_DSCP_LEGACY_TOS_MASK: the DSCP bits a route
// lookup compares with a route's TOS.
const legacyTOSMask = 0x1c

// leafLookup is step 3 of fib_table_lookup: the first route of leaf l that
// covers key and fits the flow, with a live path, into *res.
func (tb *Table) leafLookup(l, key uint32, fl *Flow, res *Result) (bool, error) {
	tr := tb.t
	tr.work.leaves++
	lf := &tr.lf[l]
	index := uint64(key ^ lf.key)
	for a := lf.head; a != 0; a = tr.al(a).next {
		tr.work.aliases++
		fa := tr.al(a)
		if index >= 1<<fa.slen {
			continue
		}
		// fib_dscp_masked_match: the flow's DSCP counts only in the
		// bits of the old IPv4 TOS (INET_DSCP_LEGACY_TOS_MASK), so a
		// route with another bit of its DSCP set matches no flow.
		if fa.tos != 0 && fa.tos != fl.TOS&legacyTOSMask {
			continue
		}
		fi := tr.fiOf(fa)
		tr.work.infos++
		tr.work.leafInfos++
		if fi.released() || fi.scope < fl.Scope {
			continue
		}
		fa.state |= faAccessed
		*res = Result{
			Prefix: netip.PrefixFrom(addrFrom4(lf.key), int(keyLength-fa.slen)),
			Type:   fa.typ, Scope: fi.scope, Table: tb.id, Priority: fi.priority, PrefSrc: fi.prefsrc,
			TOS: fa.tos, fi: fi,
		}
		if e := typeProps[fa.typ].err; e != 0 {
			return true, errno.New(e, "")
		}
		if fi.flags&FlagDead != 0 {
			continue
		}
		if fi.nh != nil {
			res.NexthopID = fi.nh.ID()
			if fi.nh.IsBlackhole() {
				res.Type = TypeBlackhole
				return true, errno.New(typeProps[TypeBlackhole].err, "")
			}
			if sel, nh := nexthopLookup(fi.nh, fl); nh != nil {
				res.NHSel, res.Gateway, res.Dev, res.NHScope = sel, nh.Gateway(), nh.Dev(), Scope(nh.Scope())
				return true, nil
			}
			continue
		}
		for i := range fi.nhs {
			nh := &fi.nhs[i]
			if nh.flags&FlagDead != 0 {
				continue
			}
			if fl.OIF != 0 && fl.OIF != nh.oif {
				continue
			}
			res.NHSel, res.Gateway, res.Dev, res.NHScope = i, nh.gw, nh.dev, nh.scope
			return true, nil
		}
	}
	return false, nil
}

// nexthopLookup is nexthop_get_nhc_lookup: the first live path of a nexthop
// object that fits the flow.
func nexthopLookup(nh *nexthop.Nexthop, fl *Flow) (int, *nexthop.Nexthop) {
	good := func(x *nexthop.Nexthop) bool {
		return x != nil && !x.Dead() && (fl.OIF == 0 || fl.OIF == ifindex(x.Dev()))
	}
	if nh.IsGroup() {
		for i := range nh.NumMembers() {
			if m := nh.Member(i); good(m) {
				return i, m
			}
		}
		return 0, nil
	}
	if good(nh) {
		return 0, nh
	}
	return 0, nil
}

// Lookup is fib_table_lookup on this table alone: the longest matching
// prefix with a route that fits the flow. It fails with EAGAIN when no route
// matches, and with the route type's error for blackhole (EINVAL),
// unreachable (EHOSTUNREACH), prohibit (EACCES) and throw (EAGAIN) routes.
// The caller holds RTNL.
//
// Kernel: fib_table_lookup (net/ipv4/fib_trie.c).
func (tb *Table) Lookup(t *sim.Task, fl Flow) (Result, error) {
	res, err := tb.lookup(t, fl)
	tb.f.charge(t)
	return res, err
}

// flush is fib_table_flush: remove this table's routes whose fib_info is
// dead (and, with flushAll, its error routes), resizing the trie on the way
// back up. It returns the number of routes removed.
func (tb *Table) flush(t *sim.Task, flushAll bool) int {
	if !flushAll && tb.f.fis.counted && !tb.t.manyDead() {
		return tb.flushCounted(t)
	}
	defer t.Frame("fib_table_flush")()
	// This is flushWalk with the leaf's work written out: seed 000 before
	// its patch runs N flushes of N leaves that each remove one route, so
	// this loop is what a simulation of it spends its real time in. A
	// tnode's child slots are scanned as one array, and a leaf whose only
	// route stays (one alias held in the leaf, its fib_info live: nearly
	// every leaf, nearly every time) is passed over after reading the leaf
	// and one byte of infoTable.dead; anything else goes to flushLeaf.
	tb.f.noteWalk()
	tr, id := tb.t, tb.id
	lfs, dead := tr.lf, tr.fis.dead
	var c flushCount
	var pn uint32 // the trie
	cindex := uint32(1)
	for {
		if cindex == 0 {
			if pn == 0 {
				break
			}
			pkey := tr.tn[pn].key
			if tr.tn[pn].slen > tr.tn[pn].pos {
				tr.updateSuffix(pn)
			}
			pn = tr.resize(pn)
			cindex = getIndex(pkey, &tr.tn[pn])
			continue
		}
		// Nothing below allocates a tnode, a leaf or child slots until
		// the scan ends, so kids, lfs and dead stay put meanwhile.
		kids := tr.slots(&tr.tn[pn])[:cindex]
		var down ref
		for i := len(kids) - 1; i >= 0; i-- {
			n := kids[i]
			if n == 0 {
				continue
			}
			if !n.isLeaf() {
				down = n
				break
			}
			l := n.leafIdx()
			lf := &lfs[l]
			if fa := &lf.first; lf.head == l|inlineAlias && fa.next == 0 && lf.slen == fa.slen {
				if fa.tbID != id {
					c.leaves++
					c.aliases++
					continue
				}
				if !dead[fa.info] && !typeErr[fa.typ] {
					c.leaves++
					c.aliases++
					c.infos++
					continue
				}
			}
			tb.flushLeaf(pn, l, flushAll, &c)
		}
		if down == 0 {
			cindex = 0
			continue
		}
		pn = down.idx()
		cindex = 1 << tr.tn[pn].bits
		c.nodes++
	}
	w := tr.work
	w.aliases += c.aliases
	w.infos += c.infos
	w.leafInfos += c.infos
	w.leaves += c.leaves
	w.nodes += c.nodes
	t.Charge(sim.FibAliasRemove, c.found)
	return int(c.found)
}

// flushCount is the work of one fib_table_flush, kept in its locals and
// added to the trie's once at the end.
type flushCount struct {
	nodes, leaves, aliases, infos, found int64
}

// typeErr tells the route types whose lookups fail (fib_props[type].error
// set): the error routes a flush leaves alone unless it flushes all or
// their fib_info is dead.
var typeErr = func() (e [typeMax + 1]bool) {
	for typ, p := range typeProps {
		e[typ] = p.err != 0
	}
	return e
}()

// flushLeaf is fib_table_flush's work on leaf l below pn: unlink and free
// the table's routes with a dead fib_info (and, with flushAll, its error
// routes), fix the leaf's suffix length, and remove the leaf if it emptied.
func (tb *Table) flushLeaf(pn, l uint32, flushAll bool, c *flushCount) {
	tr := tb.t
	c.leaves++
	found := c.found
	var slen uint8
	var prev uint32
	for a := tr.lf[l].head; a != 0; {
		c.aliases++
		fa := tr.al(a)
		next := fa.next
		if fa.tbID != tb.id {
			slen, prev, a = fa.slen, a, next
			continue
		}
		c.infos++
		// An error route stays unless the whole table goes or its
		// fib_info is dead ("ipv4: Fix reference count leak when using
		// error routes with nexthop objects", in 6.18.y).
		te, dead := typeErr[fa.typ], tr.fis.dead[fa.info]
		if !dead && (!te || !flushAll) {
			slen, prev, a = fa.slen, a, next
			continue
		}
		fi := tr.fis.at(fa.info)
		tr.setNext(l, prev, next)
		tr.siteDel(fa.info, tr.lf[l].key)
		tr.freeAlias(a)
		tb.routes--
		tb.f.releaseInfo(fi)
		c.found++
		a = next
	}
	tr.setLeafSlen(l, slen)
	if tr.lf[l].head == 0 {
		tr.putChildRoot(pn, tr.lf[l].key, 0)
		tr.freeLeaf(l)
	} else if c.found != found {
		tr.resum(l)
	}
}

// flushExternal is fib_table_flush_external: drop from main's trie the
// routes of other tables (local's, copied to its own trie by unmerge).
func (tb *Table) flushExternal() {
	tr := tb.t
	tr.flushWalk(func(l uint32) {
		var slen uint8
		var prev uint32
		removed := false
		for a := tr.lf[l].head; a != 0; {
			fa := tr.al(a)
			next := fa.next
			if fa.tbID != tb.id {
				tr.setNext(l, prev, next)
				tr.siteDel(fa.info, tr.lf[l].key)
				tr.freeAlias(a)
				a, removed = next, true
				continue
			}
			slen, prev, a = fa.slen, a, next
		}
		tr.setLeafSlen(l, slen)
		if removed {
			tr.resum(l)
		}
	})
}

// route builds the dump of one alias (fib_dump_info with the nexthop
// compatibility mode on, its default).
func (tb *Table) route(key uint32, fa *alias) Route {
	return dumpInfo(tb.id, netip.PrefixFrom(addrFrom4(key), int(keyLength-fa.slen)), fa.typ, fa.tos, tb.t.fiOf(fa))
}

// Entry returns the FIB entry the lookup matched as a dump shows it, with
// type typ (an `ip route get fibmatch` answer gives the type of the route
// built, rt_type, with the fib_info of the entry that matched), and false
// if the result has no fib_info.
//
// Kernel: inet_rtm_getroute with RTM_F_FIB_MATCH → fib_dump_info
// (net/ipv4/route.c, net/ipv4/fib_semantics.c).
func (r Result) Entry(typ Type) (Route, bool) {
	if r.fi == nil {
		return Route{}, false
	}
	return dumpInfo(r.Table, r.Prefix, typ, r.TOS, r.fi), true
}

// dumpInfo is fib_dump_info: the route of an alias of table tbID with
// prefix dst, type typ, TOS tos and fib_info fi.
func dumpInfo(tbID uint32, dst netip.Prefix, typ Type, tos uint8, fi *fibInfo) Route {
	r := Route{
		Table: tbID, Dst: dst,
		Type: typ, Scope: fi.scope, Protocol: fi.protocol, Priority: fi.priority,
		TOS: tos, PrefSrc: fi.prefsrc, Flags: fi.flags,
	}
	if fi.mx != nil {
		r.Metrics = *fi.mx
	}
	const shown = FlagDead | FlagLinkDown | FlagOnLink | FlagOffload | FlagTrap
	switch {
	case fi.nh != nil:
		nh := fi.nh
		r.NexthopID = nh.ID()
		if nh.IsGroup() && nh.NumMembers() == 1 {
			nh = nh.Member(0) // one path: dumped as a single nexthop
		}
		if nh.Blackhole() { // nexthop_is_blackhole
			r.Type = TypeBlackhole
		}
		if nh.IsGroup() {
			for i, m := range nh.Members() {
				x := nh.Member(i)
				// fib_add_nexthop: rtnh_hops is weight-1 in a byte, so a
				// member's 16-bit weight is dumped modulo 256.
				p := Path{Weight: int(uint8(m.Weight-1)) + 1}
				if x != nil {
					p.Gateway, p.Dev, p.OnLink = x.Gateway(), x.Dev(), x.OnLink()
					if p.OnLink {
						p.Flags |= FlagOnLink
					}
				}
				r.Multipath = append(r.Multipath, p)
			}
		} else {
			r.Gateway, r.Dev = nh.Gateway(), nh.Dev()
			r.Flags = 0
			if nh.OnLink() {
				r.Flags = FlagOnLink
			}
		}
	case len(fi.nhs) == 1:
		nh := &fi.nhs[0]
		r.Gateway, r.Dev, r.Flags = nh.gw, nh.dev, nh.flags&shown
	default:
		for i := range fi.nhs {
			nh := &fi.nhs[i]
			r.Multipath = append(r.Multipath, Path{Gateway: nh.gw, Dev: nh.dev,
				Weight: nh.weight, OnLink: nh.flags&FlagOnLink != 0, Flags: nh.flags & shown})
		}
	}
	r.OnLink = r.Flags&FlagOnLink != 0
	return r
}

// Routes returns the table's routes in the order `ip route show table ID`
// lists them: by key, then in each leaf's alias order.
//
// Kernel: fib_table_dump (net/ipv4/fib_trie.c).
func (tb *Table) Routes() []Route {
	var out []Route
	tr := tb.t
	for l := range tr.leaves() {
		lk := tr.lf[l].key
		for a := tr.lf[l].head; a != 0; a = tr.al(a).next {
			if tr.al(a).tbID == tb.id {
				out = append(out, tb.route(lk, tr.al(a)))
			}
		}
	}
	return out
}
