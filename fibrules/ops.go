// The per-namespace, per-family rule list and its requests. Modelled on
// net/core/fib_rules.c (fib_nl_newrule, fib_nl_delrule, fib_rules_event)
// with the configure/compare hooks of net/ipv4/fib_rules.c and
// net/ipv6/fib6_rules.c.

package fibrules

import (
	"net/netip"
	"sync/atomic"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// LockPolicy is how RTM_NEWRULE and RTM_DELRULE serialise (seed 003). The
// zero LockPolicy is LockRTNL.
type LockPolicy uint8

const (
	// LockRTNL holds the global RTNL for every rule added or deleted, as
	// kernels up to 6.19 do (rtnl_net_lock is rtnl_lock).
	LockRTNL LockPolicy = iota
	// LockPerOps holds the ops' own mutex (fib_rules_ops.lock) and takes
	// RTNL only for an IPv4 add or delete while the namespace has no custom
	// rule yet, because that change calls fib_unmerge ("net: fib_rules:
	// RTNL-less RTM_NEWRULE and RTM_DELRULE").
	LockPerOps
)

// String returns "rtnl" or "per-ops".
func (p LockPolicy) String() string {
	if p == LockPerOps {
		return "per-ops"
	}
	return "rtnl"
}

// DeviceLookup finds a namespace's device by name without RTNL (the
// kernel's dev_get_by_name_rcu); *netdev.Table is one.
type DeviceLookup interface {
	ByNameRCU(name string) *netdev.Device
}

// Config describes one Ops: its family, locking policy and the hooks into
// the rest of the namespace. The zero Config is not valid: Family is needed.
type Config struct {
	Family rt.Family
	Policy LockPolicy
	// Devices resolves IIF/OIF names when a rule is added; nil means no
	// device exists. Under LockPerOps it is called without RTNL, as the
	// kernel's RCU name lookup is.
	Devices DeviceLookup
	// Unmerge is fib_unmerge (IPv4): called, with RTNL held, by the first
	// add or delete of a rule (while the namespace has no custom rule).
	// May be nil.
	Unmerge func(t *sim.Task) error
	// HasTable reports whether table id exists (IPv4 fib_empty_table,
	// which gives a to_tbl rule of table 0 the lowest unused table). May be
	// nil. Under LockPerOps it is called without RTNL, as the kernel's RCU
	// table lookup is.
	HasTable func(id uint32) bool
	// NewTable is fib6_new_table (IPv6): called for the table of every
	// to_tbl rule added. May be nil.
	NewTable func(t *sim.Task, id uint32) error
	// FlushCache is flush_route_cache: called after every successful add
	// and delete, outside the locks. May be nil.
	FlushCache func(t *sim.Task)
	// CountedWalks is a simulation-speed option: rule_exists walks only the
	// rules up to the new rule's pref (an equal rule has the same pref, and
	// the list is sorted by pref) and counts the rest of the kernel's walk
	// without doing it. Results, counters and virtual times are those of
	// the whole walk.
	CountedWalks bool
	// Notify is notify_rule_change: called with each rule added (del
	// false) or deleted, as a dump shows it, under the lock the change
	// holds. May be nil. Wanted, if set, says whether it would be heard:
	// the rule is built only then (rtnl_notify_needed).
	Notify func(t *sim.Task, r Rule, del bool)
	Wanted func() bool
}

// entry is a rule in an Ops list. Its fields are immutable once published
// but for the device indexes and the goto target, which change under the
// writers' lock and are read locklessly by lookups (the kernel's
// READ_ONCE/RCU).
//
// The fields every rule sets (pref, table, goto target pref, action, flags,
// protocol) are the entry's own; the selectors and options most rules
// leave at their defaults are in opts, which rules without any share
// (optsNone). An entry is 64 bytes where a whole Rule would be over 200.
type entry struct {
	next    atomic.Pointer[entry] // list_head.next, read by lookups
	prev    *entry                // list_head.prev, writers only
	ctarget atomic.Pointer[entry]
	opts    *ruleOpts // never nil; optsNone for a rule of no option

	pref, table, gotoPref uint32
	iif, oif              atomic.Int32
	flags                 Flags
	action                Action
	protocol              uint8
	// iifNamed, oifNamed: the request gave FRA_IIFNAME / FRA_OIFNAME, even
	// "", which binds the rule to a device of that name or to none (-1);
	// without one the index is 0 (any device).
	iifNamed, oifNamed bool
}

// ruleOpts are a rule's fields that are not the entry's own: its
// selectors and suppressors, as Rule has them (Src/Dst normalised).
type ruleOpts struct {
	Src, Dst          netip.Prefix
	IIF, OIF          string
	FwMark, FwMask    uint32
	SuppressPrefixLen int32
	SuppressIfGroup   int32
	UID               UIDRange
	Sport, Dport      PortRange
	TunID             uint64
	TOS               uint8
	IPProto           uint8
	L3MDev            bool
}

// optsNone is the options of a rule that sets none (`from all`): shared by
// every such rule.
var optsNone = &ruleOpts{SuppressPrefixLen: -1, SuppressIfGroup: -1, UID: uidUnset}

// newEntry builds the entry of r (as nl2rule and configure left it), its
// device indexes from r's IIFIndex and OIFIndex.
func newEntry(r *Rule) *entry {
	op := ruleOpts{
		Src: r.Src, Dst: r.Dst, IIF: r.IIF, OIF: r.OIF, FwMark: r.FwMark, FwMask: r.FwMask,
		SuppressPrefixLen: r.SuppressPrefixLen, SuppressIfGroup: r.SuppressIfGroup,
		UID: r.UID, Sport: r.Sport, Dport: r.Dport, TunID: r.TunID, TOS: r.TOS,
		IPProto: r.IPProto, L3MDev: r.L3MDev,
	}
	e := &entry{
		opts: optsNone, pref: r.Pref, table: r.Table, gotoPref: r.Goto,
		flags: r.Flags, action: r.Action, protocol: r.Protocol,
		iifNamed: r.IIFIndex != 0, oifNamed: r.OIFIndex != 0,
	}
	if op != *optsNone {
		e.opts = new(ruleOpts)
		*e.opts = op
	}
	e.iif.Store(int32(r.IIFIndex))
	e.oif.Store(int32(r.OIFIndex))
	return e
}

// rule returns the entry as a Rule, IIFIndex/OIFIndex, Family and Attrs
// unset.
func (x *entry) rule() Rule {
	op := x.opts
	return Rule{
		Src: op.Src, Dst: op.Dst, IIF: op.IIF, OIF: op.OIF,
		Pref: x.pref, Table: x.table, Goto: x.gotoPref, FwMark: op.FwMark, FwMask: op.FwMask,
		SuppressPrefixLen: op.SuppressPrefixLen, SuppressIfGroup: op.SuppressIfGroup,
		UID: op.UID, Sport: op.Sport, Dport: op.Dport, Flags: x.flags, Action: x.action,
		TOS: op.TOS, IPProto: op.IPProto, TunID: op.TunID, Protocol: x.protocol, L3MDev: op.L3MDev,
	}
}

// Ops is the rule list of one network namespace and family (struct
// fib_rules_ops): the rules ordered by pref, a new rule after the existing
// rules of equal pref.
//
// Lookups run without locks, on an RCU-style list. Writers serialise on the
// policy's lock: RTNL under LockRTNL, the ops lock under LockPerOps. Device
// events (NetdevEvent) run under RTNL, and under LockPerOps take the ops
// lock too; they touch only the atomics of rules. Lock order: RTNL → ops
// lock.
//
// The zero Ops is not usable; call NewOps.
type Ops struct {
	// The fields a change touches come first (the counters and the
	// policy, then cfg's hooks and the list head): with thousands of
	// namespaces changed in turn (seed 003), each change finds its Ops
	// out of the CPU's caches.
	family rt.Family
	policy LockPolicy
	custom atomic.Bool // net->ipv4.fib_has_custom_rules (IPv4)

	rtnlAcquires atomic.Int64
	lockAcquires atomic.Int64
	n            atomic.Int64  // rules in the list
	seq          atomic.Uint64 // fib_rules_seq

	// Guarded by the policy's lock.
	unresolved int // unresolved_rules: goto rules without ctarget
	nrGoto     int // nr_goto_rules

	lock *sim.Mutex // fib_rules_ops.lock; nil under LockRTNL

	cfg  Config
	list entry // sentinel: list.next is the first rule
}

// NewOps returns the rule list of a new namespace for cfg.Family with its
// default rules: for IPv4 0 local, 32766 main, 32767 default; for IPv6 0
// local and 32766 main. w is needed under LockPerOps for the ops lock.
//
// Kernel: fib_rules_register, fib_default_rules_init
// (net/ipv4/fib_rules.c), fib6_rules_net_init (net/ipv6/fib6_rules.c).
func NewOps(w *sim.World, cfg Config) (*Ops, error) {
	if cfg.Family != rt.FamilyInet && cfg.Family != rt.FamilyInet6 {
		return nil, errno.New(syscall.EAFNOSUPPORT, "Rule family not supported")
	}
	if cfg.Policy > LockPerOps {
		return nil, errno.Errorf(syscall.EINVAL, "unknown lock policy %d", cfg.Policy)
	}
	o := &Ops{family: cfg.Family, policy: cfg.Policy, cfg: cfg}
	if cfg.Policy == LockPerOps {
		if w == nil {
			return nil, errno.New(syscall.EINVAL, "LockPerOps needs a World")
		}
		o.lock = w.NewMutex("fib_rules_ops." + cfg.Family.String())
	}
	o.list.prev = &o.list
	o.defaultRule(0, tableLocal)
	o.defaultRule(0x7FFE, tableMain)
	if cfg.Family == rt.FamilyInet {
		o.defaultRule(0x7FFF, tableDefault)
	}
	return o, nil
}

// defaultRule is fib_default_rule_add: append a to_tbl rule of the kernel.
func (o *Ops) defaultRule(pref, table uint32) {
	o.insertAfter(o.list.prev, &entry{
		opts: optsNone, pref: pref, table: table, action: ActToTable, protocol: protoKernel,
	})
}

// Family returns the ops' family.
func (o *Ops) Family() rt.Family { return o.family }

// Policy returns the ops' locking policy.
func (o *Ops) Policy() LockPolicy { return o.policy }

// Len returns the number of rules.
func (o *Ops) Len() int { return int(o.n.Load()) }

// Seq returns the change counter, bumped by every add and delete.
//
// Kernel: fib_rules_seq_read (net/core/fib_rules.c).
func (o *Ops) Seq() uint64 { return o.seq.Load() }

// Mutex returns the ops' own lock (fib_rules_ops.lock) under LockPerOps,
// nil under LockRTNL.
func (o *Ops) Mutex() *sim.Mutex { return o.lock }

// RTNLAcquires returns how many times Add and Del took RTNL for this ops.
func (o *Ops) RTNLAcquires() int64 { return o.rtnlAcquires.Load() }

// LockAcquires returns how many times Add and Del took the ops lock.
func (o *Ops) LockAcquires() int64 { return o.lockAcquires.Load() }

// HasCustomRules reports whether an IPv4 rule has been added to the ops
// (net->ipv4.fib_has_custom_rules; never cleared).
func (o *Ops) HasCustomRules() bool { return o.custom.Load() }

// Unresolved returns the number of goto rules whose target pref has no
// rule (unresolved_rules). The caller holds the policy's lock or knows no
// writer runs.
func (o *Ops) Unresolved() int { return o.unresolved }

func (o *Ops) first() *entry { return o.list.next.Load() }

// insertAfter is list_add_rcu(&e.list, &at.list): e is fully built before
// the store that publishes it.
func (o *Ops) insertAfter(at, e *entry) {
	nx := at.next.Load()
	e.next.Store(nx)
	e.prev = at
	if nx != nil {
		nx.prev = e
	} else {
		o.list.prev = e
	}
	at.next.Store(e)
	o.n.Add(1)
}

// unlink is list_del_rcu: e keeps its next pointer for lookups still on it.
func (o *Ops) unlink(e *entry) {
	nx := e.next.Load()
	e.prev.next.Store(nx)
	if nx != nil {
		nx.prev = e.prev
	} else {
		o.list.prev = e.prev
	}
	o.n.Add(-1)
}

// lockChange takes the locks an add (or delete) needs under the policy and
// reports whether it took RTNL.
func (o *Ops) lockChange(t *sim.Task, rtnl *sim.Mutex) bool {
	if o.policy == LockRTNL {
		rtnlLock(t, rtnl)
		o.rtnlAcquires.Add(1)
		return true
	}
	held := false
	// Deletes too: fib4_rule_delete unmerges as fib4_rule_configure does.
	if o.family == rt.FamilyInet && !o.custom.Load() {
		rtnlLock(t, rtnl)
		o.rtnlAcquires.Add(1)
		held = true
	}
	o.lock.Lock(t)
	o.lockAcquires.Add(1)
	return held
}

// rtnlLock takes RTNL.
//
// Kernel: rtnl_lock (net/core/rtnetlink.c).
func rtnlLock(t *sim.Task, rtnl *sim.Mutex) {
	defer t.Frame("rtnl_lock")()
	rtnl.Lock(t)
}

func (o *Ops) unlockChange(t *sim.Task, rtnl *sim.Mutex, rtnlHeld bool) {
	if o.lock != nil {
		o.lock.Unlock(t)
	}
	if rtnlHeld {
		rtnl.Unlock(t)
	}
}

// Add adds rule r, taking the locks the policy asks for: RTNL (rtnl) for
// every add under LockRTNL; under LockPerOps the ops lock, and RTNL too for
// the IPv4 adds made while the namespace has no custom rule. With excl
// (NLM_F_EXCL, which `ip rule add` sets) an equal rule fails the add with
// EEXIST. Rejected requests change nothing.
//
// Kernel: fib_nl_newrule (net/core/fib_rules.c).
func (o *Ops) Add(t *sim.Task, rtnl *sim.Mutex, r Rule, excl bool) error {
	return o.AddRequest(t, rtnl, &r, excl)
}

// AddRequest is Add for a request the caller holds: r is read, not kept
// or changed. A request handler that already has the rule in its own
// request passes it on this way without copying it onto the stack again.
//
// Kernel: fib_nl_newrule (net/core/fib_rules.c).
func (o *Ops) AddRequest(t *sim.Task, rtnl *sim.Mutex, r *Rule, excl bool) error {
	defer t.Frame("fib_nl_newrule")()
	held := o.lockChange(t, rtnl)
	err := o.addLocked(t, r, excl, held)
	o.unlockChange(t, rtnl, held)
	if err == nil && o.cfg.FlushCache != nil {
		o.cfg.FlushCache(t)
	}
	return err
}

// AddLocked is Add for a caller that holds the policy's locks itself
// (RTNL under LockRTNL; the ops lock, plus RTNL for IPv4 while
// HasCustomRules is false, under LockPerOps). It does not flush the cache.
func (o *Ops) AddLocked(t *sim.Task, r Rule, excl bool) error {
	return o.addLocked(t, &r, excl, o.policy == LockRTNL || o.family == rt.FamilyInet && !o.custom.Load())
}

// addLocked takes the request by pointer and builds the rule in its own
// frame (nl2rule's r): a rule is about 180 bytes, and with thousands of
// tasks taking turns every byte of stack a request writes is a cache line
// to fetch again on the task's next turn.
func (o *Ops) addLocked(t *sim.Task, req *Rule, excl, rtnlHeld bool) error {
	var r Rule
	if _, err := o.nl2rule(req, &r); err != nil {
		return err
	}
	if excl {
		found, scanned := o.ruleExists(&r)
		t.Charge(sim.RuleScan, scanned)
		if found {
			return errno.New(syscall.EEXIST, "")
		}
	}
	if err := o.configure(t, &r, rtnlHeld); err != nil {
		return err
	}
	t.Charge(sim.RuleChange, 1)
	e := newEntry(&r)
	unresolved := false
	if r.Action == ActGoto {
		for x := o.first(); x != nil; x = x.next.Load() {
			if x.pref == r.Goto {
				e.ctarget.Store(x)
				break
			}
		}
		unresolved = e.ctarget.Load() == nil
	}
	last := &o.list
	for x := o.first(); x != nil && x.pref <= r.Pref; x = x.next.Load() {
		last = x
	}
	o.insertAfter(last, e)
	if o.unresolved > 0 {
		for x := o.first(); x != nil; x = x.next.Load() {
			if x.action == ActGoto && x.gotoPref == r.Pref && x.ctarget.Load() == nil {
				x.ctarget.Store(e)
				if o.unresolved--; o.unresolved == 0 {
					break
				}
			}
		}
	}
	if r.Action == ActGoto {
		o.nrGoto++
	}
	if unresolved {
		o.unresolved++
	}
	o.seq.Add(1)
	o.notify(t, e, false)
	return nil
}

// notify sends the message of a rule added or deleted.
//
// Kernel: notify_rule_change (net/core/fib_rules.c).
func (o *Ops) notify(t *sim.Task, e *entry, del bool) {
	defer t.Frame("notify_rule_change")()
	if o.cfg.Notify != nil && (o.cfg.Wanted == nil || o.cfg.Wanted()) {
		o.send(t, e, del)
	}
}

// send builds and sends the message of notify. It is kept out of line so
// that notify's frame, on the stack of every change, does not hold a rule
// that is built only when someone listens.
//
//go:noinline
func (o *Ops) send(t *sim.Task, e *entry, del bool) {
	o.cfg.Notify(t, e.dump(o.family), del)
}

// nl2rule checks a request and builds in r, which is zero, the rule it
// describes, with the kernel's defaults, and reports whether the pref was
// given; on an error r is partly built and to be dropped. Its messages,
// and those of configure, were checked against fib_nl2rule,
// fib_nl_newrule, fib4_rule_configure and fib6_rule_configure.
//
// Kernel: fib_nl2rule (net/core/fib_rules.c).
func (o *Ops) nl2rule(req, r *Rule) (bool, error) {
	einval := func(msg string) (bool, error) { return false, errno.New(syscall.EINVAL, msg) }
	if len(req.IIF) > 15 || len(req.OIF) > 15 {
		return einval("Error parsing msg")
	}
	var ok bool
	if r.Src, ok = o.prefix(req.Src); !ok {
		return einval("Invalid source address")
	}
	if r.Dst, ok = o.prefix(req.Dst); !ok {
		return einval("Invalid dst address")
	}
	user := req.Attrs&AttrPriority != 0
	if user {
		r.Pref = req.Pref
	} else {
		r.Pref = o.defaultPref()
	}
	r.Protocol = req.Protocol
	r.IIF, r.OIF = req.IIF, req.OIF
	// A name given, even "", binds the rule to its device, or to none
	// (-1) until one of that name registers; no device is named "".
	if r.IIF != "" || req.Attrs&AttrIIFName != 0 {
		r.IIFIndex = o.ifindex(r.IIF)
	}
	if r.OIF != "" || req.Attrs&AttrOIFName != 0 {
		r.OIFIndex = o.ifindex(r.OIF)
	}
	r.FwMark = req.FwMark
	if r.FwMark != 0 {
		r.FwMask = ^uint32(0)
	}
	if req.Attrs&AttrFwMask != 0 || req.FwMask != 0 {
		r.FwMask = req.FwMask
	}
	r.L3MDev = req.L3MDev
	r.Action = req.Action
	r.Flags = req.Flags
	r.Table = req.Table
	r.TOS = req.TOS
	r.SuppressPrefixLen, r.SuppressIfGroup = -1, -1
	if req.Attrs&AttrSuppressPrefixLen != 0 {
		r.SuppressPrefixLen = req.SuppressPrefixLen
	}
	if req.Attrs&AttrSuppressIfGroup != 0 {
		r.SuppressIfGroup = req.SuppressIfGroup
	}
	if req.Goto != 0 || req.Attrs&AttrGoto != 0 {
		if r.Action != ActGoto {
			return einval("Unexpected goto")
		}
		r.Goto = req.Goto
		if r.Goto <= r.Pref {
			return einval("Backward goto not supported")
		}
	} else if r.Action == ActGoto {
		return einval("Missing goto target for action goto")
	}
	if r.L3MDev && r.Table != 0 {
		return einval("l3mdev and table are mutually exclusive")
	}
	r.UID = uidUnset
	if req.Attrs&AttrUIDRange != 0 {
		if !req.UID.set() || req.UID.Start > req.UID.End {
			return einval("Invalid uid range")
		}
		r.UID = req.UID
	}
	r.IPProto = req.IPProto
	r.TunID = req.TunID
	if req.Attrs&AttrSportRange != 0 || req.Sport != (PortRange{}) {
		if !req.Sport.valid() {
			return einval("Invalid sport range")
		}
		r.Sport = req.Sport
	}
	if req.Attrs&AttrDportRange != 0 || req.Dport != (PortRange{}) {
		if !req.Dport.valid() {
			return einval("Invalid dport range")
		}
		r.Dport = req.Dport
	}
	return user, nil
}

// prefix checks a FRA_SRC/FRA_DST: a prefix of length 0 (or none) is "all";
// otherwise its address must be of the ops' family. The address is kept as
// given, unmasked, as the kernel keeps it.
func (o *Ops) prefix(p netip.Prefix) (netip.Prefix, bool) {
	if !p.IsValid() || p.Bits() == 0 {
		return netip.Prefix{}, true
	}
	if o.family == rt.FamilyInet {
		return p, p.Addr().Is4()
	}
	return p, p.Addr().Is6()
}

func (o *Ops) ifindex(name string) netdev.IfIndex {
	if o.cfg.Devices != nil {
		if d := o.cfg.Devices.ByNameRCU(name); d != nil {
			return d.Index()
		}
	}
	return -1
}

// defaultPref is fib_default_rule_pref: one less than the second rule's
// pref (the first is normally the local rule at 0), or 0.
func (o *Ops) defaultPref() uint32 {
	if f := o.first(); f != nil {
		if s := f.next.Load(); s != nil && s.pref != 0 {
			return s.pref - 1
		}
	}
	return 0
}

// ruleExists is rule_exists: a rule equal to r in every field the kernel
// compares. The family part (ops->compare) compares addresses, prefix
// lengths and TOS only when the request sets them, so `from all` equals
// any source. It returns the rules examined.
func (o *Ops) ruleExists(r *Rule) (bool, int64) {
	var n int64
	for x := o.first(); x != nil; x = x.next.Load() {
		n++
		if o.cfg.CountedWalks && x.pref > r.Pref {
			return false, o.n.Load() // the rest cannot be equal: count it
		}
		if x.action != r.Action || x.table != r.Table || x.pref != r.Pref || x.protocol != r.Protocol {
			continue
		}
		y := x.opts
		if y.IIF != r.IIF || y.OIF != r.OIF || y.FwMark != r.FwMark ||
			y.SuppressIfGroup != r.SuppressIfGroup || y.SuppressPrefixLen != r.SuppressPrefixLen ||
			y.FwMask != r.FwMask || y.L3MDev != r.L3MDev || y.UID != r.UID ||
			y.IPProto != r.IPProto || y.Sport != r.Sport || y.Dport != r.Dport || y.TunID != r.TunID {
			continue
		}
		if compare(y, r) {
			return true, n
		}
	}
	return false, n
}

// compare is fib4_rule_compare / fib6_rule_compare: the family fields the
// request sets must be equal.
func compare(y *ruleOpts, req *Rule) bool {
	if req.Src.IsValid() && y.Src != req.Src {
		return false
	}
	if req.Dst.IsValid() && y.Dst != req.Dst {
		return false
	}
	return req.TOS == 0 || y.TOS == req.TOS
}

// firstChange is what the first change of the IPv4 rules, add
// (fib4_rule_configure) or delete (fib4_rule_delete), does: split local
// from main (fib_unmerge), with RTNL held, and mark the namespace as having
// custom rules.
func (o *Ops) firstChange(t *sim.Task, rtnlHeld bool) error {
	if o.family != rt.FamilyInet || o.custom.Load() {
		return nil
	}
	if !rtnlHeld {
		panic("fibrules: fib_unmerge without RTNL")
	}
	if o.cfg.Unmerge != nil {
		if err := o.cfg.Unmerge(t); err != nil {
			return err
		}
	}
	o.custom.Store(true)
	return nil
}

// configure is fib4_rule_configure / fib6_rule_configure.
func (o *Ops) configure(t *sim.Task, r *Rule, rtnlHeld bool) error {
	if o.family == rt.FamilyInet {
		if r.TOS&3 != 0 {
			return errno.New(syscall.EINVAL, "Invalid dsfield (tos): ECN bits must be 0")
		}
		if err := o.firstChange(t, rtnlHeld); err != nil {
			return err
		}
		if r.Table == 0 && !r.L3MDev && r.Action == ActToTable {
			r.Table = o.emptyTable()
		}
		return nil
	}
	if r.TOS&3 != 0 {
		// fib6_rule_configure words it as IPv4 does, "tos", not "tclass".
		return errno.New(syscall.EINVAL, "Invalid dsfield (tos): ECN bits must be 0")
	}
	if r.Action == ActToTable && !r.L3MDev {
		if r.Table == 0 {
			return errno.New(syscall.EINVAL, "Invalid table")
		}
		if o.cfg.NewTable != nil {
			if err := o.cfg.NewTable(t, r.Table); err != nil {
				return err
			}
		}
	}
	return nil
}

// emptyTable approximates fib_empty_table: the lowest table id that
// neither exists in the FIB nor is named by a rule (the kernel creates the
// table at once; netsim's FIB creates it with its first route).
func (o *Ops) emptyTable() uint32 {
	used := make(map[uint32]bool)
	for x := o.first(); x != nil; x = x.next.Load() {
		used[x.table] = true
	}
	for id := uint32(1); ; id++ {
		if !used[id] && (o.cfg.HasTable == nil || !o.cfg.HasTable(id)) {
			return id
		}
	}
}

// Del deletes the first rule that matches r, taking the locks the policy
// asks for (RTNL under LockRTNL; under LockPerOps the ops lock, and RTNL too
// for IPv4 while the namespace has no custom rule, since the delete then
// unmerges the FIB tables as an add does).
// Zero fields of r are wildcards; Pref is compared only with AttrPriority.
// It fails with ENOENT when no rule matches and EPERM for a permanent
// rule. The default rules can be deleted like any other.
//
// Kernel: fib_nl_delrule (net/core/fib_rules.c).
func (o *Ops) Del(t *sim.Task, rtnl *sim.Mutex, r Rule) error {
	defer t.Frame("fib_nl_delrule")()
	held := o.lockChange(t, rtnl)
	err := o.delLocked(t, r, held)
	o.unlockChange(t, rtnl, held)
	if err == nil && o.cfg.FlushCache != nil {
		o.cfg.FlushCache(t)
	}
	return err
}

// DelLocked is Del for a caller that holds the policy's locks itself (as
// for AddLocked). It does not flush the cache.
func (o *Ops) DelLocked(t *sim.Task, r Rule) error {
	return o.delLocked(t, r, o.policy == LockRTNL || o.family == rt.FamilyInet && !o.custom.Load())
}

func (o *Ops) delLocked(t *sim.Task, req Rule, rtnlHeld bool) error {
	var nr Rule
	user, err := o.nl2rule(&req, &nr)
	if err != nil {
		return err
	}
	e, scanned := o.ruleFind(&nr, user)
	t.Charge(sim.RuleScan, scanned)
	if e == nil {
		return errno.New(syscall.ENOENT, "")
	}
	if e.flags&FlagPermanent != 0 {
		return errno.New(syscall.EPERM, "")
	}
	if err := o.firstChange(t, rtnlHeld); err != nil {
		return err
	}
	t.Charge(sim.RuleChange, 1)
	o.unlink(e)
	if e.action == ActGoto {
		o.nrGoto--
		if e.ctarget.Load() == nil {
			o.unresolved--
		}
	}
	if o.nrGoto > 0 {
		n := e.next.Load()
		if n != nil && n.pref != e.pref {
			n = nil
		}
		for x := o.first(); x != nil; x = x.next.Load() {
			if x.ctarget.Load() != e {
				continue
			}
			x.ctarget.Store(n)
			if n == nil {
				o.unresolved++
			}
		}
	}
	o.seq.Add(1)
	o.notify(t, e, true)
	return nil
}

// ruleFind is rule_find: the first rule equal to r in the fields the
// request sets.
func (o *Ops) ruleFind(r *Rule, user bool) (*entry, int64) {
	var n int64
	for x := o.first(); x != nil; x = x.next.Load() {
		n++
		y := x.opts
		switch {
		case r.Action != 0 && x.action != r.Action,
			r.Table != 0 && x.table != r.Table,
			user && x.pref != r.Pref,
			r.IIF != "" && y.IIF != r.IIF,
			r.OIF != "" && y.OIF != r.OIF,
			r.FwMark != 0 && y.FwMark != r.FwMark,
			r.SuppressIfGroup != -1 && y.SuppressIfGroup != r.SuppressIfGroup,
			r.SuppressPrefixLen != -1 && y.SuppressPrefixLen != r.SuppressPrefixLen,
			r.FwMask != 0 && y.FwMask != r.FwMask,
			r.L3MDev && !y.L3MDev,
			r.UID.set() && y.UID != r.UID,
			r.IPProto != 0 && y.IPProto != r.IPProto,
			r.Protocol != 0 && x.protocol != r.Protocol,
			r.Sport.set() && y.Sport != r.Sport,
			r.Dport.set() && y.Dport != r.Dport,
			r.TunID != 0 && y.TunID != r.TunID,
			!compare(y, r):
			continue
		}
		return x, n
	}
	return nil, n
}
