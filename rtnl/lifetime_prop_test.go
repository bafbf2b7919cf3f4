package rtnl_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// lftFuzz is ADDRCONF_TIMER_FUZZ_MINUS (HZ/50): a lifetime check counts an
// address whose lifetime ends within it as run out, so an event may come
// that much early when a check runs for another address.
const lftFuzz = 20 * time.Millisecond

// lftModel is what a property test knows of one address it added.
type lftModel struct {
	p                netip.Prefix
	valid, preferred uint32 // as requested (LifetimeForever: none)
	stamp            sim.Time
}

// end returns when a lifetime of lft seconds from the stamp runs out:
// sim.End for an infinite one or one past the end of virtual time.
func (m *lftModel) end(lft uint32) sim.Time {
	if lft == netdev.LifetimeForever {
		return sim.End
	}
	d := time.Duration(lft) * time.Second
	if m.stamp > sim.End-sim.Time(d) {
		return sim.End
	}
	return m.stamp.Add(d)
}

// lftEvent tells whether an event due at end has happened at now: yes, no, or
// either within the check's fuzz before it.
func lftEvent(now, end sim.Time) (happened, sure bool) {
	if end == sim.End {
		return false, true
	}
	if now >= end {
		return true, true
	}
	return false, now < end-sim.Time(lftFuzz)
}

// shown returns the lifetimes a dump reports at now. Kernel:
// inet_fill_ifaddr (net/ipv4/devinet.c), inet6_fill_ifaddr
// (net/ipv6/addrconf.c).
func (m *lftModel) shown(now sim.Time) (valid, preferred uint32) {
	inf := netdev.LifetimeForever
	if m.valid == inf && (m.p.Addr().Is4() || m.preferred == inf) {
		return inf, inf
	}
	el := int64(now.Sub(m.stamp) / time.Second)
	left := func(l uint32) uint32 {
		if l == inf {
			return inf
		}
		return uint32(max(int64(l)-el, 0))
	}
	return left(m.valid), left(m.preferred)
}

// randLft draws a lifetime in seconds from 0 … 4294967295, weighted to the
// edges: small values, the largest finite one and infinity.
func randLft(rng *rand.Rand) uint32 {
	switch rng.IntN(8) {
	case 0:
		return uint32(rng.IntN(3))
	case 1, 2:
		return uint32(rng.IntN(300))
	case 3:
		return uint32(rng.Int64N(1 << 31))
	case 4:
		return netdev.LifetimeForever - 1
	case 5:
		return netdev.LifetimeForever
	case 6:
		return netdev.LifetimeForever - uint32(rng.IntN(1000))
	default:
		return rng.Uint32()
	}
}

// randWait draws a wait: from a millisecond to years, or with late to past
// the end of virtual time.
func randWait(rng *rand.Rand, late bool) time.Duration {
	n := 4
	if late {
		n = 6
	}
	switch rng.IntN(n) {
	case 0:
		return time.Duration(rng.Int64N(int64(time.Second)))
	case 1, 2:
		return time.Duration(rng.Int64N(int64(300 * time.Second)))
	case 3:
		return time.Duration(rng.Int64N(int64(10 * 365 * 24 * time.Hour)))
	case 4:
		return time.Duration(rng.Int64N(int64(netdev.LifetimeForever) * int64(time.Second)))
	default:
		return time.Duration(rng.Int64N(1 << 62))
	}
}

// Random lifetimes of IPv4 and IPv6 addresses, at every value ip accepts
// and more, through adds, replaces, Settle and SettleFor (to random times,
// to just before an event and to it, past the end of virtual time): every
// address with a finite valid lifetime is gone exactly when it runs out
// (or up to the check's 20 ms fuzz before), an infinite one stays, the
// preferred lifetime's end deprecates, a dump shows the time left as the
// kernel's does, invalid pairs are refused with nothing added, the clocks
// never go back, and nothing spins.
// Kernel: set_ifa_lifetime, check_lifetime, inet_fill_ifaddr
// (net/ipv4/devinet.c); inet6_addr_add, inet6_addr_modify,
// addrconf_verify_rtnl, inet6_fill_ifaddr (net/ipv6/addrconf.c).
func TestAddrLifetimesProperty(t *testing.T) {
	steps := 400
	if testing.Short() {
		steps = 150
	}
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := addrRig(t)
			r.settle()
			noHang(t, "the lifetimes property", func() { lifetimesProperty(t, r, seed, steps) })
		})
	}
}

// lifetimesProperty runs the property on r (in a goroutine of its own: it
// reports with t.Errorf only).
func lifetimesProperty(t *testing.T, r *rig, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 22))
	live := map[netip.Prefix]*lftModel{}
	var serial int
	var added, refused, expired, deprecated, beyondEnd int
	lastTask, lastWorld := r.t.Now(), r.k.World().Now()
	fail := func(format string, args ...any) {
		t.Errorf("seed %d at %v: "+format, append([]any{seed, r.t.Now()}, args...)...)
	}

	// find returns the device's address p.
	find := func(p netip.Prefix) (rtnl.AddrInfo, bool) {
		l, err := r.h.AddrList("va", rt.FamilyUnspec)
		if err != nil {
			fail("list: %v", err)
		}
		for _, a := range l {
			if a.Prefix == p {
				return a, true
			}
		}
		return rtnl.AddrInfo{}, false
	}

	// check compares the device's addresses with the model.
	check := func(step string) {
		now := r.t.Now()
		if now < lastTask || r.k.World().Now() < lastWorld || now < 0 || r.k.World().Now() < 0 {
			fail("%s: a clock went back: task %v after %v, World %v after %v", step, now, lastTask, r.k.World().Now(), lastWorld)
		}
		lastTask, lastWorld = now, r.k.World().Now()
		l, err := r.h.AddrList("va", rt.FamilyUnspec)
		if err != nil {
			fail("%s: %v", step, err)
			return
		}
		now = r.t.Now()
		listed := map[netip.Prefix]rtnl.AddrInfo{}
		for _, a := range l {
			if !a.Prefix.Addr().IsLinkLocalUnicast() {
				listed[a.Prefix] = a
			}
		}
		for p, m := range live {
			a, ok := listed[p]
			gone, sure := lftEvent(now, m.end(m.valid))
			if gone && sure {
				if ok {
					fail("%s: %v (valid %d, preferred %d, set at %v) is still there", step, p, m.valid, m.preferred, m.stamp)
				}
				expired++
				delete(live, p)
				continue
			}
			if !ok {
				if sure {
					fail("%s: %v (valid %d, preferred %d, set at %v) is gone early", step, p, m.valid, m.preferred, m.stamp)
				}
				delete(live, p)
				continue
			}
			delete(listed, p)
			if a.Stamp() != m.stamp {
				fail("%s: %v stamped %v, set at %v", step, p, a.Stamp(), m.stamp)
			}
			v, pr := m.shown(now)
			if a.ValidLft != v || a.PreferredLft != pr {
				fail("%s: %v (valid %d, preferred %d, set at %v) shows valid %d preferred %d, want %d %d",
					step, p, m.valid, m.preferred, m.stamp, a.ValidLft, a.PreferredLft, v, pr)
			}
			if perm := a.Flags&netdev.AddrPermanent != 0; perm != (m.valid == netdev.LifetimeForever) {
				fail("%s: %v permanent %v, valid %d", step, p, perm, m.valid)
			}
			depr, sure := m.preferred == 0, true
			if !depr && m.preferred != netdev.LifetimeForever && (p.Addr().Is6() || m.valid != netdev.LifetimeForever) {
				depr, sure = lftEvent(now, m.end(m.preferred))
			}
			if depr && sure && m.preferred != 0 {
				deprecated++
			}
			if m.valid != netdev.LifetimeForever && m.end(m.valid) == sim.End {
				beyondEnd++
			}
			if got := a.Flags&netdev.AddrDeprecated != 0; got != depr && sure {
				fail("%s: %v (valid %d, preferred %d, set at %v) deprecated %v, want %v", step, p, m.valid, m.preferred, m.stamp, got, depr)
			}
		}
		for p := range listed {
			fail("%s: %v is listed but was never added (or is gone)", step, p)
		}
	}

	for i := range steps {
		if t.Failed() {
			return
		}
		late := i >= steps*3/4 // the clock may run to the end of virtual time
		switch op := rng.IntN(40); {
		case op < 14, len(live) == 0: // add
			valid, preferred := randLft(rng), randLft(rng)
			if rng.IntN(10) > 0 && preferred > valid {
				valid, preferred = preferred, valid
			}
			serial++
			p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(serial >> 8), byte(serial), 1}), 32)
			flags := netdev.AddrFlags(0)
			if rng.IntN(2) == 0 {
				p = netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, byte(serial >> 8), byte(serial), 15: 1}), 64)
				flags = netdev.AddrNoDAD
			}
			err := r.h.AddrAddWith("va", netdev.Addr{Prefix: p, Flags: flags, ValidLft: valid, PreferredLft: preferred})
			invalid := (valid == 0 && preferred != 0) || preferred > valid
			if invalid {
				if !errors.Is(err, syscall.EINVAL) {
					fail("add %v valid %d preferred %d: %v, want EINVAL", p, valid, preferred, err)
				}
				refused++
				check(fmt.Sprintf("step %d: refused add", i))
				continue
			}
			if err != nil {
				fail("add %v valid %d preferred %d: %v", p, valid, preferred, err)
				return
			}
			if valid == 0 && preferred == 0 { // none given: forever
				valid, preferred = netdev.LifetimeForever, netdev.LifetimeForever
			}
			a, ok := find(p)
			if !ok {
				fail("add %v valid %d preferred %d: not listed", p, valid, preferred)
				return
			}
			added++
			live[p] = &lftModel{p: p, valid: valid, preferred: preferred, stamp: a.Stamp()}
			check(fmt.Sprintf("step %d: add %v valid %d preferred %d", i, p, valid, preferred))
		case op < 18: // replace an address's lifetimes
			m := pick(rng, live)
			valid, preferred := randLft(rng), randLft(rng)
			if preferred > valid {
				valid, preferred = preferred, valid
			}
			if valid == 0 {
				valid = 1
			}
			var flags netdev.AddrFlags
			if m.p.Addr().Is6() {
				flags = netdev.AddrNoDAD
			}
			if err := r.h.AddrReplace("va", netdev.Addr{Prefix: m.p, Flags: flags, ValidLft: valid, PreferredLft: preferred}); err != nil {
				fail("replace %v: %v", m.p, err)
				return
			}
			a, ok := find(m.p)
			if !ok {
				fail("replace %v valid %d preferred %d: not listed", m.p, valid, preferred)
				return
			}
			m.valid, m.preferred, m.stamp = valid, preferred, a.Stamp()
			check(fmt.Sprintf("step %d: replace %v valid %d preferred %d", i, m.p, valid, preferred))
		case op < 19 && late:
			r.k.Settle(r.t)
			check(fmt.Sprintf("step %d: Settle", i))
		case op < 25:
			d := randWait(rng, late)
			r.k.SettleFor(r.t, d)
			check(fmt.Sprintf("step %d: SettleFor %v", i, d))
		case op < 29:
			d := randWait(rng, late)
			r.t.Sleep(d) // the next request runs the work due
			check(fmt.Sprintf("step %d: Sleep %v", i, d))
		default: // to just before an address's next event, then to it
			m := pick(rng, live)
			ev := m.end(m.valid)
			if m.preferred != 0 && m.end(m.preferred) > r.t.Now() {
				ev = min(ev, m.end(m.preferred))
			}
			if ev == sim.End || ev-sim.Time(lftFuzz) <= r.t.Now() || !late && ev.Sub(r.t.Now()) > 365*24*time.Hour {
				continue
			}
			r.k.SettleFor(r.t, (ev - sim.Time(lftFuzz) - 1).Sub(r.t.Now()))
			check(fmt.Sprintf("step %d: just before %v's event at %v", i, m.p, ev))
			r.k.SettleFor(r.t, ev.Sub(r.t.Now()))
			check(fmt.Sprintf("step %d: at %v's event at %v", i, m.p, ev))
		}
	}
	t.Logf("seed %d: %d added, %d refused, %d expired; seen deprecated %d times, past the end of virtual time %d times; clock at %v",
		seed, added, refused, expired, deprecated, beyondEnd, r.t.Now())
}

// pick returns one of the models, chosen by rng in address order.
func pick(rng *rand.Rand, live map[netip.Prefix]*lftModel) *lftModel {
	ms := make([]*lftModel, 0, len(live))
	for _, m := range live {
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b *lftModel) int { return a.p.Addr().Compare(b.p.Addr()) })
	return ms[rng.IntN(len(ms))]
}
