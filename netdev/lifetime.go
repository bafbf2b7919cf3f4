// Address lifetimes: valid_lft and preferred_lft of IPv4 and IPv6 addresses,
// the IFA_F_PERMANENT and IFA_F_DEPRECATED flags they set, and the delayed
// work that deprecates and removes addresses when they run out. Follows
// net/ipv4/devinet.c (set_ifa_lifetime, check_lifetime, inet_fill_ifaddr)
// and net/ipv6/addrconf.c (inet6_addr_add, inet6_addr_modify,
// addrconf_verify_rtnl, inet6_fill_ifaddr). Time is the simulation's
// virtual time.

package netdev

import (
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// LifetimeForever is the infinite lifetime (INFINITY_LIFE_TIME).
const LifetimeForever uint32 = 0xFFFFFFFF

// lifetimeFuzz lets a check batch events due within it
// (ADDRCONF_TIMER_FUZZ_MINUS, HZ/50).
const lifetimeFuzz = 20 * time.Millisecond

// lifetimes returns the lifetimes a request asks for: none given (both
// zero) is forever.
func (a Addr) lifetimes() (valid, preferred uint32) {
	if a.ValidLft == 0 && a.PreferredLft == 0 {
		return LifetimeForever, LifetimeForever
	}
	return a.ValidLft, a.PreferredLft
}

// checkLifetimes refuses a zero valid lifetime and a preferred lifetime
// longer than the valid one.
//
// Kernel: inet_validate_rtm (net/ipv4/devinet.c) and inet6_rtm_newaddr
// (net/ipv6/addrconf.c): "address lifetime invalid".
func (a Addr) checkLifetimes(v6 bool) error {
	valid, preferred := a.lifetimes()
	if valid != 0 && preferred <= valid {
		return nil
	}
	if v6 {
		return errno.New(syscall.EINVAL, "ipv6: address lifetime invalid")
	}
	return errno.New(syscall.EINVAL, "ipv4: address lifetime invalid")
}

// setLifetime stores the lifetimes of a request in a at time now: an
// infinite valid lifetime makes the address permanent, a zero preferred
// lifetime deprecates it at once. It moves the update stamp only; the
// creation stamp is set once, when the address is made (created).
//
// Kernel: set_ifa_lifetime (net/ipv4/devinet.c); the same rules in
// inet6_addr_add and inet6_addr_modify (net/ipv6/addrconf.c).
func (a *Addr) setLifetime(now sim.Time, valid, preferred uint32) {
	a.Flags &^= AddrPermanent | AddrDeprecated
	if valid == LifetimeForever {
		a.Flags |= AddrPermanent
	}
	if preferred == 0 {
		a.Flags |= AddrDeprecated
	}
	a.ValidLft, a.PreferredLft = valid, preferred
	a.tstamp = now
}

// created stamps a new address's creation time (ifa_cstamp) with its
// update time: an address being made has no creation time of its own yet,
// whatever the request's value carried.
//
// Kernel: set_ifa_lifetime's first call (net/ipv4/devinet.c),
// ipv6_add_addr (net/ipv6/addrconf.c).
func (a *Addr) created(now sim.Time) {
	a.tstamp, a.cstamp = now, now
}

// Remaining returns the lifetimes left at time now, as a dump reports them
// (IFA_CACHEINFO): LifetimeForever for both of a permanent address with an
// infinite preferred lifetime; otherwise the lifetimes less the whole
// seconds elapsed since they were set, not below zero — and the valid
// lifetime counts down only while the preferred one is finite, as the
// kernel computes it.
//
// Kernel: inet_fill_ifaddr (net/ipv4/devinet.c), inet6_fill_ifaddr
// (net/ipv6/addrconf.c).
func (a Addr) Remaining(now sim.Time) (valid, preferred uint32) {
	valid, preferred = a.lifetimes()
	if a.Flags&AddrPermanent != 0 && (a.Prefix.Addr().Is4() || preferred == LifetimeForever) {
		return LifetimeForever, LifetimeForever
	}
	if preferred == LifetimeForever {
		return valid, preferred
	}
	el := uint32(min(int64(now.Sub(a.tstamp)/time.Second), int64(LifetimeForever)))
	preferred = sub0(preferred, el)
	if valid != LifetimeForever {
		valid = sub0(valid, el)
	}
	return valid, preferred
}

func sub0(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return 0
}

// age is the whole seconds since a's lifetimes were set, with the check's
// fuzz.
func (a *Addr) age(now sim.Time) uint32 {
	return uint32(min(int64(now.Add(lifetimeFuzz).Sub(a.tstamp)/time.Second), int64(LifetimeForever)))
}

// lifetimeEnd is when a lifetime of lft seconds set at tstamp runs out, and
// false if that is past the end of virtual time (sim.End), where it never
// runs out. Every finite lifetime (at most 4294967294 s, about 136 years)
// ends within virtual time for an address set in its first 156 years.
//
// The kernel keeps the stamps in jiffies and computes an address's age in
// unsigned long (check_lifetime, addrconf_verify_rtnl), so the comparison
// age >= lifetime that deprecates or removes it is exact at every u32
// value. The time of its next run it plans with the u32 product
// lifetime*HZ, which wraps for lifetimes of 2^32/HZ seconds and more
// (about 199 days at HZ=250): once the wrapped time has passed, the check
// runs every second (ADDRCONF_TIMER_FUZZ_MAX) and meets the lifetime's end
// within a second. netsim runs the check at the end itself, as the kernel
// does for shorter lifetimes (to the jiffy; the kernel may round it up to
// the next whole second, by less than ADDRCONF_TIMER_FUZZ, HZ/4).
func lifetimeEnd(tstamp sim.Time, lft uint32) (sim.Time, bool) {
	at := tstamp.Add(time.Duration(lft) * time.Second)
	return at, at < sim.End
}

// nextEvent returns when a's next lifetime event (deprecation, removal) is
// due, and false if it has none within virtual time. The IPv4 check skips
// permanent addresses altogether; the IPv6 one deprecates a permanent
// address whose preferred lifetime is finite.
func (a *Addr) nextEvent() (sim.Time, bool) {
	valid, preferred := a.lifetimes()
	if a.Flags&AddrPermanent != 0 && (a.Prefix.Addr().Is4() || preferred == LifetimeForever) {
		return 0, false
	}
	if a.Flags&AddrDeprecated == 0 && preferred != LifetimeForever {
		return lifetimeEnd(a.tstamp, preferred)
	}
	if a.Flags&AddrPermanent == 0 && valid != LifetimeForever {
		return lifetimeEnd(a.tstamp, valid)
	}
	return 0, false
}

// nextLifetimeEvent returns the earliest lifetime event due among addrs,
// and false if none has one.
func nextLifetimeEvent[A interface{ nextEvent() (sim.Time, bool) }](addrs []A) (sim.Time, bool) {
	var next sim.Time
	found := false
	for _, a := range addrs {
		if at, ok := a.nextEvent(); ok && (!found || at < next) {
			next, found = at, true
		}
	}
	return next, found
}

// lftTimer is one family's delayed lifetime check on one device. Guarded by
// RTNL, as its device is.
type lftTimer struct {
	at    sim.Time // when the pending check is due
	armed bool
	gen   int // bumps on every arming; a check of an older arming does nothing
}

// arm makes sure a check runs at or before at, queueing fn as delayed work.
// A check runs in a kworker with RTNL held.
func (lt *lftTimer) arm(t *sim.Task, wq WorkQueue, at sim.Time, name string, fn func(kw *sim.Task)) {
	if lt.armed && lt.at <= at {
		return
	}
	lt.armed, lt.at = true, at
	lt.gen++
	gen := lt.gen
	wq.Queue(t, max(at.Sub(t.Now()), 0), name, func(kw *sim.Task) {
		// InlineWork runs work at once: a check it runs early does
		// nothing, and lifetimes then do not run out.
		if lt.gen != gen || kw.Now() < at {
			return
		}
		lt.armed = false
		fn(kw)
	})
}

// armInet4Lifetimes schedules the IPv4 lifetime check for the device's next
// lifetime event, if any.
//
// Kernel: queue_delayed_work(check_lifetime_work) in __inet_insert_ifa,
// inet_rtm_newaddr and check_lifetime (net/ipv4/devinet.c).
func (d *Device) armInet4Lifetimes(t *sim.Task) {
	in := d.inet
	if in == nil {
		return
	}
	if next, ok := nextLifetimeEvent(in.addrs); ok {
		in.lft.arm(t, d.tbl.s.wq, next, "check_lifetime", func(kw *sim.Task) { d.checkInet4Lifetimes(kw, in) })
	}
}

// checkInet4Lifetimes removes the IPv4 addresses whose valid lifetime is
// over and deprecates those whose preferred lifetime is, then schedules the
// next check.
//
// Kernel: check_lifetime (net/ipv4/devinet.c).
func (d *Device) checkInet4Lifetimes(t *sim.Task, in *inDev) {
	defer t.Frame("check_lifetime")()
	if d.inet != in {
		return
	}
	now := t.Now()
	for i := 0; i < len(in.addrs); {
		a := in.addrs[i]
		if a.Flags&AddrPermanent != 0 {
			i++
			continue
		}
		age := a.age(now)
		valid, preferred := a.lifetimes()
		switch {
		case valid != LifetimeForever && age >= valid:
			d.delInet4(t, a)
			i = 0 // deleting a primary may take secondaries with it
			continue
		case preferred != LifetimeForever && age >= preferred && a.Flags&AddrDeprecated == 0:
			a.Flags |= AddrDeprecated
			d.tbl.s.addrMsg(t, d, *a, false, false)
		}
		i++
	}
	d.armInet4Lifetimes(t)
}

// armInet6Lifetimes is armInet4Lifetimes for IPv6.
//
// Kernel: addrconf_verify_rtnl's rescheduling (net/ipv6/addrconf.c).
func (d *Device) armInet6Lifetimes(t *sim.Task) {
	idev := d.inet6
	if idev == nil {
		return
	}
	if next, ok := nextLifetimeEvent(idev.addrs); ok {
		idev.lft.arm(t, d.tbl.s.wq, next, "addrconf_verify", func(kw *sim.Task) { d.checkInet6Lifetimes(kw, idev) })
	}
}

// checkInet6Lifetimes removes the IPv6 addresses whose valid lifetime is
// over and deprecates those whose preferred lifetime is.
//
// Kernel: addrconf_verify_rtnl (net/ipv6/addrconf.c), without temporary
// addresses.
func (d *Device) checkInet6Lifetimes(t *sim.Task, idev *inet6Dev) {
	defer t.Frame("addrconf_verify_rtnl")()
	if d.inet6 != idev || idev.dead {
		return
	}
	now := t.Now()
	for i := 0; i < len(idev.addrs); {
		ifa := idev.addrs[i]
		valid, preferred := ifa.lifetimes()
		if ifa.Flags&AddrPermanent != 0 && preferred == LifetimeForever {
			i++
			continue
		}
		age := ifa.age(now)
		switch {
		case valid != LifetimeForever && age >= valid:
			t.Charge(sim.AddrOp, 1)
			d.setInet6Addrs(append(idev.addrs[:i:i], idev.addrs[i+1:]...))
			d.ipv6DelAddr(t, ifa)
			continue
		case preferred != LifetimeForever && age >= preferred && ifa.Flags&AddrDeprecated == 0:
			ifa.Flags |= AddrDeprecated
			d.tbl.s.addrMsg(t, d, ifa.Addr, false, false) // ipv6_ifa_notify(0, ifp)
		}
		i++
	}
	d.armInet6Lifetimes(t)
}
