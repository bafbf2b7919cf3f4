// The per-namespace IPv4 FIB: its tables, route requests, address and
// device events. Modelled on net/ipv4/fib_frontend.c.

package fib

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// tableHashSize is FIB_TABLE_HASHSZ (with CONFIG_IP_MULTIPLE_TABLES).
const tableHashSize = 256

// RuleLookup resolves a flow through the policy rules once the namespace has
// custom IPv4 rules (fib_has_custom_rules), the way __fib_lookup does. It is
// called with RTNL held and must not change the FIB.
type RuleLookup func(t *sim.Task, fl Flow) (Result, error)

// FIB is one network namespace's IPv4 forwarding information base: its
// routing tables (struct netns_ipv4's fib_table_hash), the fib_info hash
// tables, and the per-device lists of nexthops.
//
// Every method must be called with the namespace's RTNL held (rtnl's
// Handles do), as the kernel's writers hold it; lookups need it too, since
// netsim has no RCU readers. The zero FIB is not usable; call New.
type FIB struct {
	nh *nexthop.Table // the namespace's nexthop objects; may be nil

	buckets [tableHashSize][]*Table // fib_table_hash: newest first in a bucket
	tables  map[uint32]*Table
	// tableIDs holds the ids of tables, for readers without RTNL (a rule
	// request under the per-ops rules lock): the kernel's fib_get_table
	// walks the table hash under RCU. Written with tables.
	tableIDs    sync.Map // uint32 → struct{}
	main, deflt *Table
	customRules bool // fib_has_custom_rules
	// customLocal is fib_has_custom_local_routes: a local route was added
	// by request (never cleared).
	customLocal bool
	rules       RuleLookup
	ipv6        IPv6Stub // the IPv6 FIB an IPv6 gateway is resolved in; nil: none

	infos   map[uint64]*fibInfo          // fib_info_hash, classic nexthops, by infoKey.hash
	nhInfos nhInfoIndex                  // fib_info_hash, nexthop objects, by id
	laddr   map[netip.Addr]*fibInfo      // fib_info_laddrhash
	devNH   map[*netdev.Device]*devChain // fib_info_devhash, by device
	// flagGen counts the times a fib_info or classic nexthop was flagged
	// dead or link-down: a devChain clean at one generation may not be at
	// the next.
	flagGen uint64
	// devWalked counts the fib_infos netsim itself visited walking
	// fib_info_devhash chains (the counted-only visits are not in it).
	devWalked int64
	infoCount int       // fib_info_cnt
	infoBytes int64     // the live fib_infos' allocations (infoAlloc)
	fis       infoTable // live fib_infos by number, for aliases
	candNH    [1]fibNH  // scratch: the nexthop of the fib_info a request describes

	work trieWork
	mem  syncMem

	announce Announcer // rtmsg_fib's listener; nil: none
}

// New returns an empty FIB whose routes can use the nexthop objects of nh
// (nil for none). Like a new namespace's, it has no tables until a route
// needs one: local and main are created merged, local as an alias of main's
// trie, until Unmerge.
//
// Kernel: fib_net_init, fib4_rules_init (net/ipv4/fib_frontend.c).
func New(nh *nexthop.Table) *FIB {
	f := &FIB{
		nh:     nh,
		tables: make(map[uint32]*Table),
		infos:  make(map[uint64]*fibInfo),
		laddr:  make(map[netip.Addr]*fibInfo),
		devNH:  make(map[*netdev.Device]*devChain),
		mem:    syncMem{limit: defaultSyncMem},
	}
	f.nhInfos.fis = &f.fis
	return f
}

// SetRuleLookup installs the policy-rule lookup FIB lookups use once the
// namespace has custom rules (see Unmerge). Without one, such lookups try
// local, main and default, as the default rules do.
func (f *FIB) SetRuleLookup(fn RuleLookup) { f.rules = fn }

// SetSyncMem sets sysctl net.ipv4.fib_sync_mem: after this many bytes of
// trie nodes freed by resizes, a resize waits for an expedited RCU grace
// period (synchronize_net under RTNL).
// The default is 512 KB; the kernel accepts 64 KB to 64 MB.
//
// Kernel: tnode_free (net/ipv4/fib_trie.c).
func (f *FIB) SetSyncMem(bytes int) { f.mem.limit = bytes }

// charge charges the counted trie work of the operation to t and runs the
// grace-period waits tnode_free asked for. tnode_free calls synchronize_net,
// and every trie change holds RTNL, so each wait is an expedited grace
// period (since Linux 6.9; synchronize_rcu before).
func (f *FIB) charge(t *sim.Task) {
	w := &f.work
	if t != nil {
		// Only the kinds of work done: ChargeAll skips the others anyway.
		var buf [6]sim.Work
		ws := buf[:0]
		if w.nodes != 0 {
			ws = append(ws, sim.Work{Kind: sim.TrieNodeVisit, N: w.nodes})
		}
		if w.leaves != 0 {
			ws = append(ws, sim.Work{Kind: sim.TrieLeafVisit, N: w.leaves, In: f.trieFootprint(w.leaves, w.leafInfos)})
		}
		if w.aliases != 0 {
			ws = append(ws, sim.Work{Kind: sim.FibAliasScan, N: w.aliases})
		}
		if w.infos != 0 {
			ws = append(ws, sim.Work{Kind: sim.FibInfoExamine, N: w.infos})
		}
		if w.devhash != 0 {
			ws = append(ws, sim.Work{Kind: sim.FibDevhashVisit, N: w.devhash, In: devhashFootprint(w.devhashChain)})
		}
		if w.freed != 0 {
			ws = append(ws, sim.Work{Kind: sim.FibInfoFree, N: w.freed})
		}
		if len(ws) > 0 {
			t.ChargeAll(ws...)
		}
		for range w.syncs {
			t.World().RCU().SynchronizeExpedited(t)
		}
	}
	*w = trieWork{}
}

// Table returns table id (0 means main), or nil if it does not exist.
//
// Kernel: fib_get_table (net/ipv4/fib_frontend.c).
func (f *FIB) Table(id uint32) *Table {
	if id == 0 {
		id = TableMain
	}
	return f.tables[id]
}

// HasTable reports whether table id (0 means main) exists. Unlike Table it
// needs no lock: it may run beside a request that creates a table.
//
// Kernel: fib_get_table under rcu_read_lock (net/ipv4/fib_frontend.c).
func (f *FIB) HasTable(id uint32) bool {
	if id == 0 {
		id = TableMain
	}
	_, ok := f.tableIDs.Load(id)
	return ok
}

// Tables returns the tables in the kernel's hash order (the order of
// `ip route show table all` and /proc/net/fib_triestat): by id modulo 256,
// the newest first among equals.
//
// Kernel: fib_table_hash (include/net/netns/ipv4.h), fib_new_table.
func (f *FIB) Tables() []*Table {
	var out []*Table
	for _, b := range f.buckets {
		out = append(out, b...)
	}
	return out
}

// newTable is fib_new_table: the table, created if needed (local as an alias
// of main while there are no custom rules).
func (f *FIB) newTable(id uint32) *Table {
	if id == 0 || id == TableMain {
		if f.main != nil { // f.tables[TableMain], without the map
			return f.main
		}
		id = TableMain
	}
	if tb := f.tables[id]; tb != nil {
		return tb
	}
	var alias *Table
	if id == TableLocal && !f.customRules {
		alias = f.newTable(TableMain)
	}
	tb := &Table{f: f, id: id}
	if alias != nil {
		tb.t = alias.t
	} else {
		tb.t = newTrie(&f.work, &f.mem, &f.fis)
	}
	switch id {
	case TableMain:
		f.main = tb
	case TableDefault:
		f.deflt = tb
	}
	h := id & (tableHashSize - 1)
	f.buckets[h] = append([]*Table{tb}, f.buckets[h]...)
	f.tables[id] = tb
	f.tableIDs.Store(id, struct{}{})
	return tb
}

// toConfig is rtm_to_fib_config: validate a request and turn it into the
// fib_config *cfg.
func toConfig(r *Route, mode rt.NLMFlags, del bool, cfg *config) error {
	*cfg = config{
		tos: r.TOS, table: r.Table, protocol: r.Protocol, scope: r.Scope, typ: r.Type,
		oif: r.Dev, gw: r.Gateway, priority: r.Priority, prefsrc: r.PrefSrc,
		nhID: r.NexthopID, mp: r.Multipath, mode: mode,
	}
	if !r.Metrics.zero() {
		mx := r.Metrics
		cfg.mx = &mx
	}
	if r.OnLink {
		cfg.flags |= FlagOnLink
	}
	if err := CheckMultipathLen(r.Multipath, rt.FamilyInet); err != nil {
		return err
	}
	if cfg.tos&3 != 0 {
		return einval("Invalid dsfield (tos): ECN bits must be 0")
	}
	if !del && cfg.typ == TypeUnspec {
		cfg.typ = TypeUnicast
	}
	if del && cfg.scope == ScopeUniverse {
		cfg.scope = ScopeNowhere
	}
	if cfg.typ > typeMax {
		return einval("Invalid route type")
	}
	if !r.Dst.IsValid() || !r.Dst.Addr().Is4() {
		return errno.New(syscall.EAFNOSUPPORT, "IPv4 destination prefix required")
	}
	cfg.dst, cfg.dstLen = addr4(r.Dst.Addr()), uint8(r.Dst.Bits())
	if cfg.dstLen < keyLength && cfg.dst<<cfg.dstLen != 0 {
		return einval("Invalid prefix for given prefix length")
	}
	if cfg.nhID != 0 && (cfg.oif != nil || cfg.gw.IsValid() || len(cfg.mp) > 0) {
		return einval("Nexthop specification and nexthop id are mutually exclusive")
	}
	if cfg.prefsrc.IsValid() && !cfg.prefsrc.Is4() {
		return einval("Invalid prefsrc address")
	}
	if cfg.table == 0 {
		cfg.table = TableMain
	}
	return nil
}

// Add adds, replaces, appends or prepends a route, as mode says (ModeAdd,
// ModeReplace, ModeAppend, ModePrepend, ModeChange). Errors are the
// kernel's: EEXIST for an existing route with ModeAdd, ENOENT for a missing
// one without NLMCreate, EINVAL with "Invalid prefix for given prefix
// length", "Nexthop id does not exist", "Nexthop has invalid gateway"
// (ENETUNREACH when no connected route reaches the gateway), "Invalid
// prefsrc address", ENODEV for a route with neither gateway nor device,
// ENETDOWN for a device that is down. A failed request changes nothing. The
// caller holds RTNL.
//
// Kernel: inet_rtm_newroute, rtm_to_fib_config (net/ipv4/fib_frontend.c),
// fib_table_insert (net/ipv4/fib_trie.c), fib_create_info
// (net/ipv4/fib_semantics.c).
func (f *FIB) Add(t *sim.Task, r Route, mode rt.NLMFlags) error { return f.AddRoute(t, &r, mode) }

// AddRoute is Add of the route *r, which it reads and does not keep: a
// caller that builds a request in place passes it without a copy.
func (f *FIB) AddRoute(t *sim.Task, r *Route, mode rt.NLMFlags) error {
	defer t.Frame("inet_rtm_newroute")()
	var cfg config
	err := toConfig(r, mode, false, &cfg)
	if err == nil {
		err = f.newTable(cfg.table).insert(t, &cfg)
	}
	if err == nil && cfg.typ == TypeLocal {
		f.customLocal = true
	}
	f.charge(t)
	return err
}

// Del deletes the first route of the prefix and TOS that matches the
// attributes r sets (see Route). Errors: ESRCH when none matches (also
// "FIB table does not exist"), EINVAL "Nexthop id does not exist" for an
// unknown nexthop id. The caller holds RTNL.
//
// Kernel: inet_rtm_delroute (net/ipv4/fib_frontend.c), fib_table_delete
// (net/ipv4/fib_trie.c).
func (f *FIB) Del(t *sim.Task, r Route) error {
	defer t.Frame("inet_rtm_delroute")()
	err := f.del(t, r, false)
	f.charge(t)
	return err
}

// DelRequest is Del as an RTM_DELROUTE carries the scope: r.Scope is
// rtm_scope as sent, ScopeNowhere (what `ip route del` sends unless given
// a scope) matches any scope and ScopeUniverse only universe routes. Every
// other field is a wildcard when zero, as for Del. The caller holds RTNL.
//
// Kernel: rtm_to_fib_config (net/ipv4/fib_frontend.c), fib_table_delete
// (net/ipv4/fib_trie.c).
func (f *FIB) DelRequest(t *sim.Task, r Route) error {
	err := f.del(t, r, true)
	f.charge(t)
	return err
}

// del deletes the first route matching r; exactScope says r.Scope is the
// request's rtm_scope, else ScopeUniverse is a wildcard too.
func (f *FIB) del(t *sim.Task, r Route, exactScope bool) error {
	var cfg config
	if err := toConfig(&r, 0, true, &cfg); err != nil {
		return err
	}
	if exactScope {
		cfg.scope = r.Scope
	}
	if cfg.nhID != 0 && (f.nh == nil || f.nh.Get(cfg.nhID) == nil) {
		return einval("Nexthop id does not exist")
	}
	tb := f.Table(cfg.table)
	if tb == nil {
		return errno.New(syscall.ESRCH, "FIB table does not exist")
	}
	return tb.delete(t, &cfg)
}

// HasCustomLocalRoutes reports whether a local route was ever added by
// request (fib_has_custom_local_routes): source validation then checks
// sources against the FIB, not only against the interface addresses.
func (f *FIB) HasCustomLocalRoutes() bool { return f.customLocal }

// Lookup finds the route for a flow the way the kernel does without policy
// rules: in main (which sees local's routes while they are merged), then in
// default; with custom rules (after Unmerge) through the RuleLookup, or in
// local, main and default. It fails with ENETUNREACH when no route matches
// and with a reject route's error (EINVAL, EHOSTUNREACH, EACCES). The caller
// holds RTNL.
//
// Kernel: fib_lookup (include/net/ip_fib.h).
func (f *FIB) Lookup(t *sim.Task, fl Flow) (Result, error) {
	res, err := f.fibLookup(t, fl)
	f.charge(t)
	return res, err
}

func (f *FIB) fibLookup(t *sim.Task, fl Flow) (Result, error) {
	var tables []*Table
	if f.customRules {
		if f.rules != nil {
			return f.rules(t, fl)
		}
		tables = []*Table{f.tables[TableLocal], f.main, f.deflt}
	} else {
		tables = []*Table{f.main, f.deflt}
	}
	err := error(errAgain)
	var res Result
	for _, tb := range tables {
		if tb == nil {
			continue
		}
		res, err = tb.lookup(t, fl)
		if !isAgain(err) {
			break
		}
	}
	if isAgain(err) {
		return Result{}, errno.New(syscall.ENETUNREACH, "")
	}
	return res, err
}

// Routes returns the routes of table id (0 means main) in dump order, or nil
// if there is no such table.
//
// Kernel: fib_table_dump (net/ipv4/fib_trie.c).
func (f *FIB) Routes(id uint32) []Route {
	tb := f.Table(id)
	if tb == nil {
		return nil
	}
	return tb.Routes()
}

// AllRoutes returns every table's routes in the order of
// `ip -4 route show table all`: tables in hash order, each in dump order.
//
// Kernel: inet_dump_fib (net/ipv4/fib_frontend.c).
func (f *FIB) AllRoutes() []Route {
	var out []Route
	for _, tb := range f.Tables() {
		out = append(out, tb.Routes()...)
	}
	return out
}

// Len returns the number of routes in all tables.
func (f *FIB) Len() int {
	n := 0
	for _, tb := range f.tables {
		n += tb.routes
	}
	return n
}

// InfoCount returns the number of live fib_info structures.
//
// Kernel: fib_info_cnt (net/ipv4/fib_semantics.c).
func (f *FIB) InfoCount() int { return f.infoCount }

// FlushFIB removes the routes marked dead from every table, walking each
// table's trie once; it implements nexthop.Flusher. Main and local are
// walked separately even while they share a trie. The caller holds RTNL.
//
// Kernel: fib_flush (net/ipv4/fib_frontend.c), fib_table_flush
// (net/ipv4/fib_trie.c).
func (f *FIB) FlushFIB(t *sim.Task) {
	defer t.Frame("fib_flush")()
	f.flush(t)
	pop := t.Frame("fib_table_flush") // the walks' work, charged once they end
	f.charge(t)
	pop()
}

func (f *FIB) flush(t *sim.Task) int {
	defer t.Frame("fib_flush")()
	t.Charge(sim.FIBFlush, 1)
	n := 0
	for _, b := range f.buckets {
		for _, tb := range b {
			n += tb.flush(t, false)
		}
	}
	return n
}

// Exit removes every route of every table, error routes included, and the
// tables, as a namespace's teardown does; every fib_info is released. In
// the kernel the namespace's devices are gone by then, so every route but
// the error routes is already dead; Exit marks the survivors dead first.
// The caller holds RTNL.
//
// Kernel: ip_fib_net_exit (net/ipv4/fib_frontend.c).
func (f *FIB) Exit(t *sim.Task) {
	defer t.Frame("ip_fib_net_exit")()
	for fi := range f.fis.all() {
		fi.setFlags(fi.flags | FlagDead)
	}
	f.main, f.deflt = nil, nil
	for h := tableHashSize - 1; h >= 0; h-- {
		for _, tb := range f.buckets[h] {
			tb.flush(t, true)
			delete(f.tables, tb.id)
			f.tableIDs.Delete(tb.id)
		}
		f.buckets[h] = nil
	}
	f.charge(t)
}

// Unmerge gives local its own trie, copying local's routes out of the trie it
// shares with main and dropping them from main's, and records that the
// namespace has custom rules, so that local is never merged again. Routes,
// lookups and dumps are the same before and after. The rules layer calls it
// before the first custom IPv4 rule; calling it again does nothing. The
// caller holds RTNL.
//
// Kernel: fib_unmerge (net/ipv4/fib_frontend.c), fib_trie_unmerge and
// fib_table_flush_external (net/ipv4/fib_trie.c).
func (f *FIB) Unmerge(t *sim.Task) error {
	defer t.Frame("fib_unmerge")()
	f.customRules = true
	defer f.charge(t)
	old := f.tables[TableLocal]
	if old == nil || f.main == nil || old.t != f.main.t {
		return nil
	}
	ot := old.t
	lt := newTrie(&f.work, &f.mem, &f.fis)
	for l := range ot.leaves() {
		lk := ot.lf[l].key
		var nl, ntp uint32
		found := false
		for a := ot.lf[l].head; a != 0; a = ot.al(a).next {
			ot.work.aliases++
			if ot.al(a).tbID != TableLocal {
				continue
			}
			if !found {
				nl, ntp = lt.findNode(lk)
				found = true
			}
			c := *ot.al(a)
			c.next = 0
			lt.insertAlias(ntp, nl, c, 0, lk)
			if nl == 0 {
				nl, ntp = lt.findNode(lk)
			}
		}
	}
	local := &Table{f: f, id: TableLocal, t: lt, routes: old.routes}
	b := f.buckets[TableLocal&(tableHashSize-1)]
	for i, tb := range b {
		if tb == old {
			b[i] = local
		}
	}
	f.tables[TableLocal] = local
	f.main.flushExternal()
	return nil
}

// Stats returns the trie shape of table id (0 means main), and false if
// there is no such table.
//
// Kernel: trie_collect_stats (net/ipv4/fib_trie.c).
func (f *FIB) Stats(id uint32) (Stats, bool) {
	tb := f.Table(id)
	if tb == nil {
		return Stats{}, false
	}
	return tb.Stats(), true
}

// String renders the statistics block of one table as
// /proc/net/fib_triestat prints it.
//
// Kernel: trie_show_stats (net/ipv4/fib_trie.c).
func (s Stats) String() string {
	var b strings.Builder
	av := s.AverDepth()
	fmt.Fprintf(&b, "\tAver depth:     %d.%02d\n", av/100, av%100)
	fmt.Fprintf(&b, "\tMax depth:      %d\n", s.MaxDepth)
	fmt.Fprintf(&b, "\tLeaves:         %d\n", s.Leaves)
	fmt.Fprintf(&b, "\tPrefixes:       %d\n", s.Prefixes)
	fmt.Fprintf(&b, "\tInternal nodes: %d\n\t", s.Tnodes)
	top := len(s.NodeSizes)
	for top > 0 && s.NodeSizes[top-1] == 0 {
		top--
	}
	for i := 1; i < top; i++ {
		if s.NodeSizes[i] != 0 {
			fmt.Fprintf(&b, "  %d: %d", i, s.NodeSizes[i])
		}
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "\tPointers: %d\n", s.Pointers())
	fmt.Fprintf(&b, "Null ptrs: %d\n", s.NullPointers)
	fmt.Fprintf(&b, "Total size: %d  kB\n", (s.KernelBytes()+1023)/1024)
	return b.String()
}

// TrieStat renders /proc/net/fib_triestat for the namespace.
//
// Kernel: fib_triestat_seq_show (net/ipv4/fib_trie.c).
func (f *FIB) TrieStat() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Basic info: size of leaf: %d bytes, size of tnode: %d bytes.\n", kernelLeafSize, kernelTnodeSize)
	for _, tb := range f.Tables() {
		switch tb.id {
		case TableLocal:
			b.WriteString("Local:\n")
		case TableMain:
			b.WriteString("Main:\n")
		default:
			fmt.Fprintf(&b, "Id %d:\n", tb.id)
		}
		b.WriteString(tb.Stats().String())
	}
	return b.String()
}
