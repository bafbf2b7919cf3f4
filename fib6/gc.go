// gc.go follows the expiry of IPv6 routes (RTA_EXPIRES, RTF_EXPIRES): the
// garbage collector timer of net/ipv6/ip6_fib.c (fib6_start_gc,
// fib6_gc_timer_cb, fib6_run_gc, fib6_age) in virtual time. An expired
// route stops matching lookups at once (fib6_check_expired) but stays in
// its table, its dump showing a negative time left, until the collector
// runs: ip6_rt_gc_interval (30 s) after the first route with a lifetime
// was added, then every interval (rounded to a whole second) while routes
// with a lifetime remain.

package fib6

import (
	"time"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// gcInterval is net.ipv6.route.gc_interval (ip6_rt_gc_interval).
const gcInterval = 30 * time.Second

// routeState is the FIB's route-layer state (net/ipv6/route.c's part of
// struct netns_ipv6).
type routeState struct {
	lo     *netdev.Device // loopback_dev: reject routes and the null entry use it
	rules  RuleLookup     // fib6_rule_lookup with custom rules
	mpSeed uint32         // the flow hash key
	gcAt   sim.Time       // ip6_fib_timer's expiry; 0 when not pending
	gcRuns int64          // fib6_run_gc runs
}

// startGC is fib6_start_gc: arm the collector for a route with a lifetime.
func (f *FIB) startGC(t *sim.Task) {
	if f.rs.gcAt == 0 {
		f.rs.gcAt = t.Now().Add(gcInterval)
		if f.rs.gcAt == 0 {
			f.rs.gcAt = 1
		}
	}
}

// roundSecond is round_jiffies: to the nearest whole second, down only
// within the first quarter of a second, never into the past.
func roundSecond(at, now sim.Time) sim.Time {
	rem := time.Duration(at) % time.Second
	r := at - sim.Time(rem)
	if rem >= time.Second/4 {
		r = r.Add(time.Second)
	}
	if r <= now {
		return at
	}
	return r
}

// GCRuns returns how many times the route garbage collector has run in
// this namespace: each run is one walk of the routes.
func (f *FIB) GCRuns() int64 { return f.rs.gcRuns }

// RunTimers runs the route garbage collector if its timer has expired by
// t's time (rtnl calls it before each request, as the nexthop table's).
//
// Kernel: fib6_gc_timer_cb, fib6_run_gc, fib6_age (net/ipv6/ip6_fib.c).
func (f *FIB) RunTimers(t *sim.Task) { f.runTimers(t) }

// runTimers runs the collector once if its timer has expired by t's time.
// The kernel's timer fires every interval while routes with a lifetime
// remain; when the clock has passed several of those expiries (a Settle
// that ran a lifetime's end years on), the collector runs once, at the last
// of them: every run deletes the routes expired by its time and re-arms
// while routes with a lifetime remain, so that one run leaves the table,
// and the timer, as all of them would. A timer due at the end of virtual
// time (sim.End) never fires.
func (f *FIB) runTimers(t *sim.Task) {
	if at := f.rs.gcAt; at == 0 || at > t.Now() || at >= sim.End {
		return
	}
	f.runGC(t)
}

// runGC is runTimers once its timer has expired: the collector's run.
func (f *FIB) runGC(t *sim.Task) {
	at := lastGCExpiry(f.rs.gcAt, t.Now())
	f.rs.gcRuns++
	more := 0
	var dead []*Info
	f.eachTable(func(tb *Table) {
		tb.eachRoute(func(r *Info) {
			if r == f.nullEntry || r.flags&rtfExpires == 0 {
				return
			}
			if at > r.expires {
				dead = append(dead, r)
			} else {
				more++
			}
		})
	})
	for _, r := range dead {
		if r.node != nil {
			_ = f.delRT(t, r)
		}
	}
	f.rs.gcAt = 0
	if more > 0 {
		f.rs.gcAt = roundSecond(at.Add(gcInterval), at)
	}
}

// lastGCExpiry returns the last expiry at or before now of the collector's
// timer first due at at, were it to fire every interval: the first rearming
// rounds to a whole second, and from there the expiries are gcInterval
// apart.
func lastGCExpiry(at, now sim.Time) sim.Time {
	next := roundSecond(at.Add(gcInterval), at)
	if next > now {
		return at
	}
	return next.Add(now.Sub(next) / gcInterval * gcInterval)
}
