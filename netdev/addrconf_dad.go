// IPv6 duplicate address detection as deferred work: the DAD states of an
// address, the probe scheduled after a random delay, and the completion
// that makes the address usable and announces it (addrconf_dad_start,
// addrconf_dad_work, addrconf_dad_begin, addrconf_dad_completed:
// net/ipv6/addrconf.c).

package netdev

import (
	"net/netip"
	"time"

	"github.com/netsimlab/netsim/sim"
)

// DAD timing (net/ipv6/addrconf.c defaults): a probe every retrans_time
// (1 s), dad_transmits of them (one by default; the count is kept in a
// byte, ifp->dad_probes, so 3600 probes are 16), after a random initial
// delay below rtr_solicit_delay (1 s).
const (
	dadRetrans      = time.Second
	dadInitialDelay = time.Second
)

type dadState uint8

const (
	dadPre  dadState = iota // INET6_IFADDR_STATE_PREDAD: DAD work queued
	dadRun                  // INET6_IFADDR_STATE_DAD: probing (or waiting for the link)
	dadPost                 // INET6_IFADDR_STATE_POSTDAD / ERRDAD: done
	dadDead                 // INET6_IFADDR_STATE_DEAD: removed
)

// dadStart queues DAD for ifa.
//
// Kernel: addrconf_dad_start → addrconf_mod_dad_work(ifp, 0).
func (d *Device) dadStart(t *sim.Task, ifa *ifaddr6) {
	defer t.Frame("addrconf_dad_start")()
	ifa.state = dadPre
	gen := ifa.generation
	d.tbl.s.wq.Queue(t, 0, "addrconf_dad_work", func(kw *sim.Task) { d.dadBegin(kw, ifa, gen) })
}

// dadBegin runs in the DAD worker with RTNL held.
//
// Kernel: addrconf_dad_work → addrconf_dad_begin (net/ipv6/addrconf.c): the
// solicited-node join first; immediate completion on NOARP and loopback
// devices, with DAD disabled or for NODAD addresses; otherwise probing after
// a random delay.
func (d *Device) dadBegin(t *sim.Task, ifa *ifaddr6, gen int) {
	idev := d.inet6
	if idev == nil || idev.dead || ifa.generation != gen || ifa.state != dadPre {
		return
	}
	if !ifa.solicit {
		ifa.solicit = d.ipv6JoinSolicit(t, ifa.Prefix.Addr())
	}
	ifa.state = dadRun
	if d.flags&(FlagNoARP|FlagLoopback) != 0 || (d.tbl.IPv6All.AcceptDAD < 1 && idev.cnf.AcceptDAD < 1) ||
		ifa.Flags&AddrTentative == 0 || ifa.Flags&AddrNoDAD != 0 {
		d.dadCompleted(t, ifa)
		return
	}
	if !idev.ready {
		return // addrconf_dad_stop: stays tentative until the link is ready
	}
	probes := time.Duration(uint8(idev.cnf.DADTransmits))
	delay := probes*dadRetrans + time.Duration(d.tbl.s.rng.Int64N(int64(dadInitialDelay)))
	d.tbl.s.wq.Queue(t, delay, "addrconf_dad_work", func(kw *sim.Task) {
		if ifa.generation == gen && ifa.state == dadRun && d.inet6 == idev && !idev.dead && idev.ready {
			d.dadCompleted(kw, ifa)
		}
	})
}

// dadCompleted marks ifa usable and announces it: its local route goes in
// (made anew if the address has none in a table), its peer gets a /128
// route and, when forwarding, its subnet-router anycast address is joined.
//
// Kernel: addrconf_dad_completed → ipv6_ifa_notify(RTM_NEWADDR) →
// __ipv6_ifa_notify (net/ipv6/addrconf.c). The kernel allocates the local
// route with the address (ipv6_add_addr, fixup_permanent_addr) and inserts
// it here; netsim makes it here.
func (d *Device) dadCompleted(t *sim.Task, ifa *ifaddr6) {
	defer t.Frame("addrconf_dad_completed")()
	ifa.state = dadPost
	ifa.Flags &^= AddrTentative
	d.tbl.s.addrMsg(t, d, ifa.Addr, false, false) // before its local route
	if ifa.rt != nil && !ifa.rt.Linked() {
		d.ipv6DropLocalRoute(t, ifa)
	}
	if ifa.rt == nil {
		// The address keeps the route even if ip6_ins_rt failed.
		ifa.rt, _ = d.tbl.fib6.AddAddrconfRoute(t, AddrconfRoute{Kind: AddrconfLocal, Dev: d, Prefix: netip.PrefixFrom(ifa.Prefix.Addr(), 128)})
	}
	if d.inet6.cnf.Forwarding {
		d.ipv6JoinAnycast(t, ifa)
	}
	if ifa.Peer.IsValid() && !ifa.Peer.IsUnspecified() {
		d.addrconfPrefixRoute(t, netip.PrefixFrom(ifa.Peer, 128), ifa.Metric, 0)
	}
	d.tbl.s.addrNotify(t, EventUp, d, ifa.Addr)
}
