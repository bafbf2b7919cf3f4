// The neighbour state machine's timers, the table's periodic garbage
// collection and the probing of managed entries: neigh_timer_handler,
// __neigh_event_send, neigh_periodic_work, neigh_managed_work and
// neigh_rand_reach_time (net/core/neighbour.c), with the parameters of
// the tables' default neigh_parms (arp_tbl in net/ipv4/arp.c, nd_tbl in
// net/ipv6/ndisc.c).
//
// netsim moves no packets, so a probe (arp_solicit, ndisc_solicit) is
// counted but never answered: an entry that probes ends in NUD_FAILED, as
// it does on Linux when no neighbour answers.

package neigh

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/netsimlab/netsim/sim"
)

// Parms are a table's neighbour parameters: its default struct
// neigh_parms, which net.ipv4.neigh.default.* and net.ipv6.neigh.default.*
// set. Every entry uses them: netsim has no per-device parms.
type Parms struct {
	BaseReachableTime time.Duration // BASE_REACHABLE_TIME (base_reachable_time_ms)
	RetransTime       time.Duration // RETRANS_TIME (retrans_time_ms)
	DelayProbeTime    time.Duration // DELAY_PROBE_TIME (delay_first_probe_time)
	GCStaleTime       time.Duration // GC_STALETIME (gc_stale_time)
	IntervalProbeTime time.Duration // INTERVAL_PROBE_TIME_MS (interval_probe_time_ms)
	UcastProbes       int           // UCAST_PROBES (ucast_solicit)
	McastProbes       int           // MCAST_PROBES (mcast_solicit)
	McastReprobes     int           // MCAST_REPROBES (mcast_resolicit)
	AppProbes         int           // APP_PROBES (app_solicit)
}

// DefaultParms are arp_tbl's and nd_tbl's parameters, which are the same.
var DefaultParms = Parms{
	BaseReachableTime: DefaultBaseReachableTime,
	RetransTime:       time.Second,
	DelayProbeTime:    5 * time.Second,
	GCStaleTime:       60 * time.Second,
	IntervalProbeTime: 5 * time.Second,
	UcastProbes:       3,
	McastProbes:       3,
}

// minTimer is HZ/100, the shortest re-arming of an entry's timer.
const minTimer = 10 * time.Millisecond

// randInterval is how often the periodic work draws a new reachable time.
const randInterval = 300 * time.Second

// Timers runs a table's timers and delayed work. Package rtnl's work
// queue is one: its kworker runs each item at its due virtual time with
// RTNL held, which guards a table in netsim (the kernel takes the table's
// and the entry's own locks instead).
type Timers interface {
	// Queue runs fn delay after t's time.
	Queue(t *sim.Task, delay time.Duration, name string, fn func(kw *sim.Task))
	// QueueBackground is Queue for work that queues itself again for as
	// long as the machine runs, which must not keep a scheduled World
	// running (sim.WorkQueue.QueueBackground).
	QueueBackground(t *sim.Task, delay time.Duration, name string, fn func(kw *sim.Task))
}

// timerState is the table's timing state: the reachable time its parms
// hold now, and when its periodic and managed work next run.
type timerState struct {
	q   Timers
	rng *rand.Rand

	reachableTime time.Duration // parms->reachable_time
	lastRand      sim.Time      // tbl->last_rand
	gc            repeating     // neigh_periodic_work
	managedRun    repeating     // neigh_managed_work

	managed      []*Entry // tbl->managed_list; removed ones compacted away
	managedStale int
}

// repeating is a table's work that queues itself again: when it runs
// next, and whether it is queued.
type repeating struct {
	next  sim.Time
	armed bool
	gen   uint64 // bumps on every queueing; an older one does nothing
}

// pending reports whether the work is queued to run at or after now. A
// queueing whose run is overdue (its kworker stopped with the World that
// ran it) is not: it is replaced.
func (r *repeating) pending(now sim.Time) bool { return r.armed && r.next >= now }

// queue queues fn at r.next as background work on q.
func (r *repeating) queue(t *sim.Task, q Timers, name string, fn func(kw *sim.Task)) {
	r.armed = true
	r.gen++
	gen := r.gen
	q.QueueBackground(t, r.next.Sub(t.Now()), name, func(kw *sim.Task) {
		if r.gen == gen {
			r.armed = false
			fn(kw)
		}
	})
}

// initTimers sets the table's timing state as neigh_table_init leaves it at
// boot (virtual time 0): a reachable time drawn from the table's own seeded
// generator, the periodic work due after it and the first new draw twenty
// of it later (plus five minutes), the managed work due at once.
//
// Kernel: neigh_table_init (net/core/neighbour.c).
func (tb *Table) initTimers(seed uint64) {
	tb.Parms = DefaultParms
	tb.tm.rng = rand.New(rand.NewPCG(seed, 0x6e65696768)) // "neigh"
	tb.tm.reachableTime = tb.randReachTime()
	tb.tm.gc.next = sim.Time(0).Add(tb.tm.reachableTime)
	tb.tm.lastRand = sim.Time(0).Add(20 * tb.tm.reachableTime)
}

// SetTimers makes the table run its timers and delayed work on q. Without
// one (the zero state of NewARP and NewND), no timer fires: an entry stays
// in the state it was set to.
func (tb *Table) SetTimers(q Timers) { tb.tm.q = q }

// Retime queues the table's periodic and managed work again, as its
// parameters or thresholds now call for.
func (tb *Table) Retime(t *sim.Task) {
	tb.armPeriodic(t)
	if len(tb.tm.managed) > tb.tm.managedStale {
		tb.armManaged(t)
	}
}

// ReachableTime returns the reachable time the table's parms hold now: a
// draw, uniform in [base/2, 3·base/2), made at boot, whenever the base
// changes, and by the periodic work every five minutes or so.
func (tb *Table) ReachableTime() time.Duration { return tb.tm.reachableTime }

// randReachTime draws a reachable time from the table's base.
//
// Kernel: neigh_rand_reach_time (net/core/neighbour.c).
func (tb *Table) randReachTime() time.Duration {
	base := tb.Parms.BaseReachableTime.Milliseconds()
	if base <= 0 {
		return 0
	}
	return time.Duration(tb.tm.rng.Int64N(base)+base/2) * time.Millisecond
}

// SetBaseReachableTime sets the parms' base reachable time and draws a new
// reachable time from it at once.
//
// Kernel: neigh_proc_base_reachable_time, neightbl_set's
// NDTPA_BASE_REACHABLE_TIME (net/core/neighbour.c).
func (tb *Table) SetBaseReachableTime(d time.Duration) {
	tb.Parms.BaseReachableTime = d
	tb.tm.reachableTime = tb.randReachTime()
}

// maxProbes is how many probes an entry sends before it fails.
//
// Kernel: neigh_max_probes (net/core/neighbour.c).
func (tb *Table) maxProbes(e *Entry) uint32 {
	p := tb.Parms
	n := p.UcastProbes + p.AppProbes
	if e.State&StateProbe != 0 {
		n += p.McastReprobes
	} else {
		n += p.McastProbes
	}
	return uint32(max(n, 0))
}

// addTimer arms e's timer to expire at at (neigh_add_timer, mod_timer): it
// fires at the first tick at or after at, and a tick from now at the
// soonest.
func (tb *Table) addTimer(t *sim.Task, e *Entry, at sim.Time) {
	e.timerGen++
	e.timerArmed = true
	if tb.tm.q == nil {
		return
	}
	gen := e.timerGen
	d := max(at.Sub(t.Now()), t.World().Costs().Jiffy, 1)
	due := t.Now().Add(d)
	tb.tm.q.Queue(t, d, "neigh_timer_handler", func(kw *sim.Task) {
		// A queue that runs work early (at once) fires no timer.
		if e.timerGen != gen || e.dead || kw.Now() < due {
			return
		}
		e.timerArmed = false
		tb.timerHandler(kw, e, due)
	})
}

// delTimer stops e's timer (neigh_del_timer).
func (tb *Table) delTimer(e *Entry) {
	e.timerGen++
	e.timerArmed = false
}

// timerHandler is an entry's timer firing: a REACHABLE entry not confirmed
// for its reachable time turns STALE (or DELAY if used in the last
// delay_first_probe_time), a DELAY entry turns PROBE, and an INCOMPLETE or
// PROBE entry sends its next probe, or fails once it has sent them all.
// A change of state but to DELAY is notified (RTM_NEWNEIGH, no port id).
// now is the timer's expiry: a kernel timer runs in softirq context, at
// its tick, where netsim's kworker may have waited for RTNL.
//
// Kernel: neigh_timer_handler, neigh_probe, neigh_invalidate
// (net/core/neighbour.c).
func (tb *Table) timerHandler(t *sim.Task, e *Entry, now sim.Time) {
	t.Charge(sim.NeighVisit, 1)
	state := e.State
	if state&StateInTimer == 0 {
		return
	}
	p := tb.Parms
	next := now.Add(time.Second)
	notify := false
	switch {
	case state&StateReachable != 0:
		switch {
		case now <= e.Confirmed.Add(tb.tm.reachableTime):
			next = e.Confirmed.Add(tb.tm.reachableTime)
		case now <= e.Used.Add(p.DelayProbeTime):
			e.State, e.Updated = StateDelay, now
			next = now.Add(p.DelayProbeTime)
		default:
			e.State, e.Updated = StateStale, now
			notify = true
		}
	case state&StateDelay != 0:
		if now <= e.Confirmed.Add(p.DelayProbeTime) {
			e.State, e.Updated = StateReachable, now
			next = e.Confirmed.Add(tb.tm.reachableTime)
		} else {
			e.State, e.Updated, e.Probes = StateProbe, now, 0
			next = now.Add(max(p.RetransTime, minTimer))
		}
		notify = true
	default: // INCOMPLETE or PROBE
		next = now.Add(max(p.RetransTime, minTimer))
	}
	if e.State&(StateIncomplete|StateProbe) != 0 && e.Probes >= tb.maxProbes(e) {
		e.State, e.Updated = StateFailed, now
		tb.stats.ResFailed++
		tb.notifyUpdate(t, e)
		return
	}
	if notify {
		tb.notifyUpdate(t, e)
	}
	if e.State&StateInTimer != 0 {
		tb.addTimer(t, e, max(next, now.Add(minTimer)))
	}
	if e.State&(StateIncomplete|StateProbe) != 0 {
		e.Probes++ // the solicitation, which no neighbour answers
	}
}

func (tb *Table) notifyUpdate(t *sim.Task, e *Entry) {
	if tb.notify != nil {
		tb.notify.NeighMsg(t, e, false, false)
	}
}

// EventSend is a use of e that needs its link-layer address: it marks e
// used and starts a resolution where e has none under way, a STALE entry
// turning DELAY, an entry without an address INCOMPLETE, probing at once
// with immediate (a packet to send) or at the next tick (a managed
// entry's refresh), or, with no multicast or application probes to send,
// FAILED. Nothing is notified.
//
// Kernel: neigh_event_send_probe, __neigh_event_send
// (include/net/neighbour.h, net/core/neighbour.c).
func (tb *Table) EventSend(t *sim.Task, e *Entry, immediate bool) {
	now := t.Now()
	e.Used = now
	if e.State&(StateConnected|StateDelay|StateProbe) != 0 || e.dead {
		return
	}
	p := tb.Parms
	switch {
	case e.State&(StateStale|StateIncomplete) == 0:
		if p.McastProbes+p.AppProbes == 0 {
			e.State, e.Updated = StateFailed, now
			return
		}
		e.Probes = uint32(max(p.UcastProbes, 0))
		tb.delTimer(e)
		e.State, e.Updated = StateIncomplete, now
		if !immediate {
			tb.addTimer(t, e, now)
			return
		}
		tb.addTimer(t, e, now.Add(max(p.RetransTime, minTimer)))
		e.Probes++
	case e.State&StateStale != 0:
		tb.delTimer(e)
		e.State, e.Updated = StateDelay, now
		tb.addTimer(t, e, now.Add(p.DelayProbeTime))
	}
}

// armPeriodic queues the periodic work if it can change anything and is
// not queued. It runs every base_reachable_time/2 from its first run at
// boot's reachable time. netsim queues it only while the table holds
// gc_thresh1 entries (a run below that only draws a new reachable time)
// and one of them may one day be collected; the draws of the runs it
// skipped are made now, in their order, so that they are those of a work
// that never stopped. A queueing whose run is overdue (its kworker stopped
// with the World that ran it) is replaced.
func (tb *Table) armPeriodic(t *sim.Task) {
	now, gc := t.Now(), &tb.tm.gc
	if tb.tm.q == nil || gc.pending(now) || len(tb.byKey) < tb.GCThresh1 {
		return
	}
	for gc.next < now {
		tb.redraw(gc.next)
		gc.next = gc.next.Add(max(tb.Parms.BaseReachableTime/2, time.Millisecond))
	}
	gc.queue(t, tb.tm.q, "neigh_periodic_work", tb.periodicWork)
}

// redraw is the periodic work's new draw of the reachable time when five
// minutes have passed since the last.
func (tb *Table) redraw(now sim.Time) {
	if now > tb.tm.lastRand.Add(randInterval) {
		tb.tm.lastRand = now
		tb.tm.reachableTime = tb.randReachTime()
	}
}

// periodicWork removes, once the table holds gc_thresh1 entries, those
// neither permanent, nor in a timer, nor extern_learn that failed or were
// not used for gc_stale_time, each with its RTM_DELNEIGH. It queues itself
// again while it may collect an entry later.
//
// Kernel: neigh_periodic_work (net/core/neighbour.c).
func (tb *Table) periodicWork(t *sim.Task) {
	tb.stats.PeriodicGCRuns++
	now := t.Now()
	tb.redraw(now)
	later := false // an entry a later run may collect
	if len(tb.byKey) >= tb.GCThresh1 {
		visited := 0
		for _, e := range slices.Clone(tb.list) {
			if e.dead {
				continue
			}
			visited++
			if e.State&StatePermanent != 0 || e.Flags&FlagExtLearned != 0 {
				continue
			}
			if e.State&StateInTimer != 0 {
				later = later || e.timerArmed // it leaves the timer's states
				continue
			}
			if e.Used < e.Confirmed && e.Confirmed <= now {
				e.Used = e.Confirmed
			}
			if e.State == StateFailed || now >= e.Used.Add(tb.Parms.GCStaleTime) {
				tb.remove(t, e)
				continue
			}
			later = true
		}
		t.Charge(sim.NeighVisit, int64(visited))
	}
	tb.tm.gc.next = now.Add(max(tb.Parms.BaseReachableTime/2, time.Millisecond))
	if later {
		tb.armPeriodic(t)
	}
}

// updateManagedList puts e on the managed list or takes it off, as its
// NTF_MANAGED flag says.
//
// Kernel: neigh_update_managed_list (net/core/neighbour.c).
func (tb *Table) updateManagedList(t *sim.Task, e *Entry) {
	want := e.Flags&FlagManaged != 0 && !e.dead
	switch {
	case want && !e.onManaged:
		e.onManaged = true
		tb.tm.managed = append(tb.tm.managed, e)
		tb.armManaged(t)
	case !want && e.onManaged:
		e.onManaged = false
		tb.tm.managedStale++
		if tb.tm.managedStale > len(tb.tm.managed)/2 {
			tb.tm.managed = slices.DeleteFunc(tb.tm.managed, func(x *Entry) bool { return !x.onManaged })
			tb.tm.managedStale = 0
		}
	}
}

// armManaged queues the managed work, which runs every
// interval_probe_time_ms from boot, if it is not queued.
func (tb *Table) armManaged(t *sim.Task) {
	now, mw := t.Now(), &tb.tm.managedRun
	if tb.tm.q == nil || mw.pending(now) {
		return
	}
	if iv := max(tb.Parms.IntervalProbeTime, time.Millisecond); mw.next < now {
		n := (now.Sub(mw.next) + iv - 1) / iv
		mw.next = mw.next.Add(n * iv)
	}
	mw.queue(t, tb.tm.q, "neigh_managed_work", tb.managedWork)
}

// managedWork refreshes every managed entry (EventSend, probing at the
// next tick) and queues itself again while there are any.
//
// Kernel: neigh_managed_work (net/core/neighbour.c).
func (tb *Table) managedWork(t *sim.Task) {
	n := 0
	for _, e := range slices.Clone(tb.tm.managed) {
		if e.onManaged {
			n++
			tb.EventSend(t, e, false)
		}
	}
	t.Charge(sim.NeighVisit, int64(n))
	tb.tm.managedRun.next = t.Now().Add(max(tb.Parms.IntervalProbeTime, time.Millisecond))
	if n > 0 {
		tb.armManaged(t)
	}
}
