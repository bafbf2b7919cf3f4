// resilient.go follows the resilient nexthop groups of net/ipv4/nexthop.c:
// struct nh_res_table and nh_res_bucket (include/net/nexthop.h),
// nexthop_res_table_alloc, nh_res_group_rebalance, nh_res_table_upkeep with
// nh_res_bucket_should_migrate and nh_res_bucket_migrate, the upkeep delayed
// work, nh_res_table_migrate_buckets, replace_nexthop_grp_res and
// nexthop_select_path_res.
//
// A resilient group spreads its traffic over a fixed array of buckets, each
// pointing at one member. Weights say how many buckets each member wants
// (wants_buckets, DIV_ROUND_CLOSEST of the bucket count in proportion to
// the weights); a member holding fewer than it wants is underweight, one
// holding more is overweight. When the members change, only the buckets of
// removed members move at once (they are "not occupied"); the buckets of
// an overweight member move to an underweight one only once they have been
// idle for idle_timer (no packet hashed to them), or, when unbalanced_timer
// is set, once the group has been unbalanced that long. Flows therefore
// keep their path across membership changes wherever possible.
//
// Time. The kernel counts in jiffies (HZ = 250 on the reference machine,
// see sim/costs.go) and reports clock_t (USER_HZ = 100). Timers arrive as
// clock_t, are kept as u32 jiffies (struct nh_res_table's idle_timer and
// unbalanced_timer; a larger value wraps, as in the kernel) and are
// reported back as clock_t. The upkeep delayed work runs in virtual time:
// a Table remembers each group's next upkeep deadline, and every request
// (Table methods and RunTimers, which package rtnl calls under RTNL before
// each request) first runs, in order, the upkeeps whose deadline has come,
// each at its own deadline. Nothing can observe a group between a deadline
// and the next request, so this is the kernel's behaviour with a timer that
// fires exactly on time (the kernel's timer wheel may fire a long timeout a
// few jiffies late).

package nexthop

import (
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// Kernel time units of the model.
const (
	hz     = 250                  // CONFIG_HZ of the reference kernel
	userHZ = 100                  // USER_HZ: clock_t ticks per second
	jiffy  = time.Second / hz     // one jiffy, 4 ms
	clockT = time.Second / userHZ // one clock_t tick, 10 ms
	resDW  = hz / 2               // NH_RES_UPKEEP_DW_MINIMUM_INTERVAL, in jiffies
)

// MaxResilientTimer is the first timer NHA_RES_GROUP_IDLE_TIMER and
// NHA_RES_GROUP_UNBALANCED_TIMER cannot carry: they are a u32 of clock_t
// (about 497 days).
const MaxResilientTimer = (1 << 32) * clockT

// Default timers of a resilient group (NH_RES_DEFAULT_IDLE_TIMER and
// NH_RES_DEFAULT_UNBALANCED_TIMER).
const (
	DefaultIdleTimer       = 120 * time.Second
	DefaultUnbalancedTimer = 0 // no forced rebalancing
)

// ResilientConfig holds the parameters of a resilient group
// (NHA_RES_GROUP). Each Has field says whether the attribute is present:
// a new group needs the number of buckets; a replace may leave out any of
// them, keeping the group's values. Timers have clock_t precision (10 ms);
// finer parts are dropped. The zero ResilientConfig is an empty
// NHA_RES_GROUP nest.
type ResilientConfig struct {
	Buckets            uint16        // NHA_RES_GROUP_BUCKETS; 0 is refused
	HasBuckets         bool          //
	IdleTimer          time.Duration // NHA_RES_GROUP_IDLE_TIMER; default 120 s
	HasIdleTimer       bool          //
	UnbalancedTimer    time.Duration // NHA_RES_GROUP_UNBALANCED_TIMER; default 0 (never force)
	HasUnbalancedTimer bool          //
}

// ResilientInfo is what a dump reports of a resilient group
// (nla_put_nh_group_res): the bucket count, the two timers, and how long
// the group has been unbalanced (0 when balanced), each with clock_t
// precision. A resilient group has at least one bucket: the zero
// ResilientInfo stands for a nexthop that is not one.
type ResilientInfo struct {
	Buckets         uint16
	IdleTimer       time.Duration
	UnbalancedTimer time.Duration
	UnbalancedTime  time.Duration
}

// Bucket is one bucket of a resilient group as RTM_GETNEXTHOPBUCKET reports
// it (nh_fill_res_bucket): its index, the member it points at and how long
// since a flow last used it (or since it was migrated), with clock_t
// precision.
type Bucket struct {
	Index     uint16
	NexthopID ID
	IdleTime  time.Duration
}

// resTable is a resilient group's bucket array and state, struct
// nh_res_table. It outlives replaces and member removals of its group:
// those migrate its buckets to the new member array.
type resTable struct {
	tb      *Table
	nhgID   ID // the group's id (nhg_id)
	buckets []resBucket

	idleTimer       uint32 // jiffies
	unbalancedTimer uint32 // jiffies

	// uw is the list of underweight entries, uw_nh_entries: list_add puts
	// an entry at its head (index 0), migration takes the head.
	uw              []*grpEntry
	unbalancedSince int64 // jiffies

	upkeepPending bool  // the upkeep delayed work is queued
	upkeepAt      int64 // when it runs, in jiffies

	// The candidate's view of the request (nh_config), for a replace.
	hasBuckets, hasIdle, hasUnbalanced bool
}

// resBucket is struct nh_res_bucket. entry stays set when the bucket stops
// being occupied (its member left): migration by id may occupy it again.
type resBucket struct {
	entry      *grpEntry
	occupied   bool
	usedTime   int64 // jiffies
	migratedAt int64 // jiffies
}

// resEntry is a member's resilient state, nh_grp_entry's res.
type resEntry struct {
	countBuckets int
	wantsBuckets int
}

// toJiffies converts a duration given in clock_t units into jiffies, as
// clock_t_to_jiffies does, truncated to the u32 the table keeps.
func toJiffies(d time.Duration) uint32 {
	ct := uint64(d / clockT)
	return uint32(ct * hz / userHZ)
}

// jiffiesToClock converts jiffies to a duration of whole clock_t ticks
// (jiffies_to_clock_t).
func jiffiesToClock(j int64) time.Duration {
	if j < 0 {
		j = 0
	}
	return time.Duration(j*int64(jiffy)/int64(clockT)) * clockT
}

// jiffies returns the table's clock in jiffies.
func (tb *Table) jiffies() int64 { return int64(tb.clock) / int64(jiffy) }

// advance moves the table's clock to t's virtual time (never back: the
// kernel's jiffies are global) and runs the upkeeps that are due.
func (tb *Table) advance(t *sim.Task) {
	if t != nil && t.Now() > tb.clock {
		tb.clock = t.Now()
	}
	now := tb.jiffies()
	if !tb.upkeepQueued || now < tb.upkeepDue {
		return // nothing due: every request passes here
	}
	tb.upkeepQueued = false
	for _, rt := range tb.resTables {
		for rt.upkeepPending && rt.upkeepAt <= now {
			// nh_res_table_upkeep_dw, run at its deadline.
			rt.upkeepPending = false
			rt.upkeep(rt.upkeepAt, true)
		}
		if rt.upkeepPending {
			tb.noteUpkeep(rt.upkeepAt)
		}
	}
}

// noteUpkeep lowers the table's earliest upkeep deadline to at, for an
// upkeep just queued for then.
func (tb *Table) noteUpkeep(at int64) {
	if !tb.upkeepQueued || at < tb.upkeepDue {
		tb.upkeepQueued, tb.upkeepDue = true, at
	}
}

// RunTimers runs the resilient groups' upkeep work that is due at t's
// virtual time, each at its own deadline. Package rtnl calls it under RTNL
// before every request; the Table's own methods call it too.
//
// Kernel: nh_res_table_upkeep_dw (net/ipv4/nexthop.c).
func (tb *Table) RunTimers(t *sim.Task) { tb.advance(t) }

// newResTable models nexthop_res_table_alloc for a new group's config.
func (tb *Table) newResTable(rc *ResilientConfig) *resTable {
	rt := &resTable{tb: tb, idleTimer: toJiffies(DefaultIdleTimer), unbalancedTimer: toJiffies(DefaultUnbalancedTimer)}
	if rc == nil {
		return rt
	}
	if rc.HasBuckets {
		rt.buckets = make([]resBucket, rc.Buckets)
		rt.hasBuckets = true
	}
	if rc.HasIdleTimer {
		rt.idleTimer, rt.hasIdle = toJiffies(rc.IdleTimer), true
	}
	if rc.HasUnbalancedTimer {
		rt.unbalancedTimer, rt.hasUnbalanced = toJiffies(rc.UnbalancedTimer), true
	}
	return rt
}

func (e *grpEntry) isOverweight() bool  { return e.res.countBuckets > e.res.wantsBuckets }
func (e *grpEntry) isUnderweight() bool { return e.res.countBuckets < e.res.wantsBuckets }
func (e *grpEntry) isBalanced() bool    { return e.res.countBuckets == e.res.wantsBuckets }

// balanced models nh_res_table_is_balanced.
func (rt *resTable) balanced() bool { return len(rt.uw) == 0 }

// unsetNh models nh_res_bucket_unset_nh.
func (b *resBucket) unsetNh() {
	if b.occupied {
		b.entry.res.countBuckets--
		b.occupied = false
	}
}

// setNh models nh_res_bucket_set_nh.
func (b *resBucket) setNh(e *grpEntry) {
	b.unsetNh()
	b.occupied = true
	b.entry = e
	e.res.countBuckets++
}

// idlePoint models nh_res_bucket_idle_point: a bucket not used since it
// was migrated is idle now.
func (rt *resTable) idlePoint(b *resBucket, now int64) int64 {
	if b.usedTime == b.migratedAt {
		return now
	}
	return b.usedTime + int64(rt.idleTimer)
}

// shouldMigrate models nh_res_bucket_should_migrate: whether bucket b moves
// now, whether by force, and the earliest time it might otherwise
// (lowering *deadline).
func (rt *resTable) shouldMigrate(b *resBucket, now int64, deadline *int64) (migrate, force bool) {
	if !b.occupied {
		return true, true
	}
	if !b.entry.isOverweight() {
		return false, false
	}
	idle := rt.idlePoint(b, now)
	if now >= idle {
		return true, false
	}
	if rt.unbalancedTimer != 0 {
		unb := rt.unbalancedSince + int64(rt.unbalancedTimer)
		if now > unb {
			return true, true
		}
		*deadline = min(*deadline, unb)
	}
	*deadline = min(*deadline, idle)
	return false, false
}

// migrate models nh_res_bucket_migrate: bucket i goes to the first
// underweight entry and is idle from now. There are no offloading drivers
// to veto it. With notify (the upkeep work's migrations) the bucket's new
// state is announced (nexthop_bucket_notify).
func (rt *resTable) migrate(i int, now int64, notify bool) bool {
	if len(rt.uw) == 0 {
		// An unoccupied or overweight bucket implies an underweight
		// entry; the kernel warns once and leaves the bucket.
		return false
	}
	e := rt.uw[0]
	b := &rt.buckets[i]
	b.setNh(e)
	b.usedTime, b.migratedAt = now, now // nh_res_bucket_set_idle
	if a := rt.tb.buckets; notify && a != nil && a.Wanted() {
		if g := rt.tb.Get(rt.nhgID); g != nil {
			a.BucketMsg(g, Bucket{Index: uint16(i), NexthopID: e.nh.id})
		}
	}
	if e.isBalanced() {
		rt.uw = rt.uw[1:]
	}
	return true
}

// upkeep models nh_res_table_upkeep at jiffy now: migrate every bucket
// that should move, and while the group stays unbalanced queue the next
// run for the earliest time a bucket might move, at least half a second
// on. Only the delayed work's run announces its migrations (notify); a
// group's insertion, replace or member removal is announced whole.
func (rt *resTable) upkeep(now int64, notify bool) {
	var deadline int64
	if rt.unbalancedTimer != 0 {
		deadline = now + int64(rt.unbalancedTimer)
	} else {
		deadline = now + int64(rt.idleTimer)
	}
	for i := range rt.buckets {
		b := &rt.buckets[i]
		if ok, _ := rt.shouldMigrate(b, now, &deadline); ok && !rt.migrate(i, now, notify) {
			b.usedTime = now // nh_res_bucket_set_busy
			deadline = min(deadline, rt.idlePoint(b, now))
		}
	}
	if !rt.balanced() {
		deadline = max(deadline, now+resDW)
		if !rt.upkeepPending {
			rt.upkeepPending, rt.upkeepAt = true, deadline
			rt.tb.noteUpkeep(deadline)
		}
	}
}

// cancelUpkeep models nh_res_table_cancel_upkeep.
func (rt *resTable) cancelUpkeep() { rt.upkeepPending = false }

// rebalance models nh_res_group_rebalance: each entry's wanted share of
// the buckets, and the list of underweight entries.
func (rt *resTable) rebalance(entries []*grpEntry, now int64) {
	rt.uw = rt.uw[:0:0]
	total := 0
	for _, e := range entries {
		total += int(e.weight)
	}
	n := len(rt.buckets)
	w, prev := 0, 0
	for _, e := range entries {
		w += int(e.weight)
		upper := (n*w + total/2) / total // DIV_ROUND_CLOSEST
		e.res.wantsBuckets = upper - prev
		prev = upper
		if e.isUnderweight() {
			if len(rt.uw) == 0 {
				rt.unbalancedSince = now
			}
			rt.uw = append([]*grpEntry{e}, rt.uw...)
		}
	}
}

// migrateBuckets models nh_res_table_migrate_buckets: every bucket points
// at the entry of the new array with its member's id, or is no longer
// occupied.
func (rt *resTable) migrateBuckets(entries []*grpEntry) {
	for i := range rt.buckets {
		b := &rt.buckets[i]
		var found *grpEntry
		if b.entry != nil {
			for _, e := range entries {
				if e.nh.id == b.entry.nh.id {
					found = e
					break
				}
			}
		}
		if found != nil {
			b.setNh(found)
		} else {
			b.unsetNh()
		}
	}
}

// replaceRes models replace_nexthop_grp_res: the table rt moves to a new
// member array (a replace of the group, or a member's removal).
func (rt *resTable) replaceRes(entries []*grpEntry, now int64) {
	prevSince, prevUW := rt.unbalancedSince, !rt.balanced()
	rt.cancelUpkeep()
	rt.migrateBuckets(entries)
	rt.rebalance(entries, now)
	if prevUW && !rt.balanced() {
		rt.unbalancedSince = prevSince
	}
	rt.upkeep(now, false)
}

// insertRes is the part of insert_nexthop for a new resilient group: the
// bucket count is required; the buckets are filled at once.
func (tb *Table) insertRes(nh *Nexthop) error {
	rt := nh.grp.res
	if !rt.hasBuckets {
		return einval("Number of buckets not specified for nexthop group insertion")
	}
	rt.nhgID = nh.id
	now := tb.jiffies()
	rt.rebalance(nh.grp.entries, now)
	rt.upkeep(now, false)
	return nil
}

// replaceGroupResCheck is the part of replace_nexthop_grp that may refuse
// a replace, before anything changes.
func replaceGroupResCheck(old, cand *nhGroup) error {
	if (old.res == nil) != (cand.res == nil) {
		return einval("Can not replace a nexthop group with one of a different type.")
	}
	if old.res != nil && cand.res.hasBuckets && len(cand.res.buckets) != len(old.res.buckets) {
		return einval("Can not change number of buckets of a resilient nexthop group.")
	}
	return nil
}

// replaceGroupRes is the resilient part of replace_nexthop_grp: the group
// keeps its table, takes the new timers given, and migrates to the new
// members.
func (tb *Table) replaceGroupRes(old, cand *nhGroup) {
	rt, c := old.res, cand.res
	if c.hasIdle {
		rt.idleTimer = c.idleTimer
	}
	if c.hasUnbalanced {
		rt.unbalancedTimer = c.unbalancedTimer
	}
	rt.replaceRes(cand.entries, tb.jiffies())
	cand.res = rt
}

// removeResTable forgets a removed group's table (remove_nexthop_group's
// cancel of the upkeep).
func (tb *Table) removeResTable(rt *resTable) {
	rt.cancelUpkeep()
	for i, x := range tb.resTables {
		if x == rt {
			tb.resTables = append(tb.resTables[:i:i], tb.resTables[i+1:]...)
			return
		}
	}
}

// selectPathRes models nexthop_select_path_res: the bucket of the hash
// gives the member, and is marked busy now.
func (g *nhGroup) selectPathRes(hash uint32) (int, *Nexthop) {
	rt := g.res
	b := &rt.buckets[hash%uint32(len(rt.buckets))]
	b.usedTime = rt.tb.jiffies() // nh_res_bucket_set_busy
	for i, e := range g.entries {
		if e == b.entry {
			return i, e.nh
		}
	}
	return 0, b.entry.nh
}

// BucketAnnouncer is told of every bucket of a resilient group that the
// group's upkeep work migrates, as the kernel multicasts an
// RTM_NEWNEXTHOPBUCKET for each; Wanted reports whether anyone listens,
// and the message is built only then.
//
// Kernel: nexthop_bucket_notify from nh_res_table_upkeep_dw
// (net/ipv4/nexthop.c).
type BucketAnnouncer interface {
	Wanted() bool
	// BucketMsg announces bucket b of group g just after its migration:
	// its idle time is 0.
	BucketMsg(g *Nexthop, b Bucket)
}

// SetBucketAnnouncer sets the listener of the upkeep work's bucket
// migrations; nil (the default) announces none.
func (tb *Table) SetBucketAnnouncer(a BucketAnnouncer) { tb.buckets = a }

// IsResilient reports whether the nexthop is a resilient group.
func (nh *Nexthop) IsResilient() bool { return nh.grp != nil && nh.grp.res != nil }

// GroupType returns a group's type (GroupMultipath for a single nexthop).
func (nh *Nexthop) GroupType() GroupType {
	if nh.IsResilient() {
		return GroupResilient
	}
	return GroupMultipath
}

// Resilient returns a resilient group's parameters and how long it has
// been unbalanced at the table's current time; ok is false for any other
// nexthop.
//
// Kernel: nla_put_nh_group_res, nh_res_table_unbalanced_time
// (net/ipv4/nexthop.c).
func (nh *Nexthop) Resilient() (ri ResilientInfo, ok bool) {
	if !nh.IsResilient() {
		return ri, false
	}
	rt := nh.grp.res
	ri = ResilientInfo{
		Buckets:         uint16(len(rt.buckets)),
		IdleTimer:       jiffiesToClock(int64(rt.idleTimer)),
		UnbalancedTimer: jiffiesToClock(int64(rt.unbalancedTimer)),
	}
	if !rt.balanced() {
		ri.UnbalancedTime = jiffiesToClock(rt.tb.jiffies() - rt.unbalancedSince)
	}
	return ri, true
}

// Buckets returns a resilient group's buckets in index order, with their
// idle times at the table's current time; nil for any other nexthop.
//
// Kernel: nh_fill_res_bucket, nh_res_bucket_idle_time (net/ipv4/nexthop.c).
func (nh *Nexthop) Buckets() []Bucket {
	if !nh.IsResilient() {
		return nil
	}
	rt := nh.grp.res
	now := rt.tb.jiffies()
	out := make([]Bucket, len(rt.buckets))
	for i := range rt.buckets {
		b := &rt.buckets[i]
		out[i] = Bucket{Index: uint16(i), NexthopID: b.entry.nh.id, IdleTime: jiffiesToClock(now - b.usedTime)}
	}
	return out
}

// FindResilient returns the resilient group id for a bucket request, with
// the kernel's errors: ENOENT (no message) for an unknown id, EINVAL for a
// nexthop that is not a group or a group of another type. It runs the
// upkeep due at t's time first.
//
// Kernel: nexthop_find_group_resilient (net/ipv4/nexthop.c).
func (tb *Table) FindResilient(t *sim.Task, id ID) (*Nexthop, error) {
	tb.advance(t)
	nh := tb.Get(id)
	switch {
	case nh == nil:
		return nil, errno.New(syscall.ENOENT, "")
	case nh.grp == nil:
		return nil, einval("Not a nexthop group")
	case nh.grp.res == nil:
		return nil, einval("Nexthop group not of type resilient")
	}
	return nh, nil
}
