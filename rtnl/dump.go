// Dumps that resume from a cursor, one part at a time, as a netlink dump's
// dumpit does between the reader's reads (netlink_dump,
// net/netlink/af_netlink.c): each part takes RTNL, walks on from where the
// last one stopped, and keeps keys and positions, not the objects, in
// between.

package rtnl

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fib6"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// RouteDump is a route dump in progress: the cursor of inet_dump_fib and
// inet6_dump_fib, and for both families rtnl_dump_all's (IPv4, then
// IPv6). Between its parts the tables may change; the dump then goes on as
// the kernel's would (see fib.DumpCursor and fib6.Dump). A RouteDump is
// used by its Handle's goroutine; Close releases it.
type RouteDump struct {
	h      *Handle
	family int
	table  uint32
	v4     fib.DumpCursor
	v6     *fib6.Dump // created when the IPv6 part starts
	phase  int        // 0: IPv4, 1: IPv6, 2: done
}

// RouteDump starts a dump of the routes of family (FamilyV4, FamilyV6, or
// FamilyAll for both, IPv4 first) in table (0: every table). A family
// without that table contributes nothing. Nothing is walked until Next.
//
// Kernel: inet_dump_fib (net/ipv4/fib_frontend.c), inet6_dump_fib
// (net/ipv6/ip6_fib.c), rtnl_dump_all (net/core/rtnetlink.c).
func (h *Handle) RouteDump(family int, table uint32) (*RouteDump, error) {
	d := &RouteDump{h: h, family: family, table: table}
	switch family {
	case FamilyV4, FamilyAll:
	case FamilyV6:
		d.phase = 1
	default:
		return nil, errno.Errorf(syscall.EAFNOSUPPORT, "Routes of address family %d are not modelled", family)
	}
	return d, nil
}

// Next is one part of the dump: with RTNL held, it calls fn for the
// routes from where the last part stopped, in the kernel's dump order,
// until fn returns false or the routes run out. The route fn refused
// comes first in the next part. It reports whether the dump is done
// (and then releases what the dump held, as Close does). fn runs with
// RTNL held: it must not call the Handle.
//
// A part enters the kernel as a request does (see Handle); resuming is
// charged as the kernel's walk back to its cursor (fib.FIB.Dump,
// fib6.Dump.Next).
//
// Kernel: netlink_dump → rtnl_dumpit → inet_dump_fib / inet6_dump_fib.
func (d *RouteDump) Next(fn func(*RouteInfo) bool) (done bool, err error) {
	if d.phase == 2 {
		return true, nil
	}
	err = d.h.do("RTM_GETROUTE", func(t *sim.Task, _ *netdev.Table) error {
		done = d.nextLocked(t, fn)
		return nil
	})
	if err != nil {
		d.Close()
	}
	return done, err
}

func (d *RouteDump) nextLocked(t *sim.Task, fn func(*RouteInfo) bool) bool {
	n := d.h.n
	if d.phase == 0 {
		more := !n.fib.Dump(t, d.table, &d.v4, func(r fib.Route) bool {
			ri := routeInfo(r)
			return fn(&ri)
		})
		if more {
			return false
		}
		d.phase = 1
		if d.family == FamilyV4 {
			d.phase = 2
			return true
		}
	}
	if d.v6 == nil {
		d.v6 = n.fib6.NewDump()
	}
	if !d.v6.Next(t, d.table, func(r fib6.Route) bool {
		ri := routeInfo6(r)
		return fn(&ri)
	}) {
		return false
	}
	d.phase = 2
	return true
}

// Close ends the dump before its end, releasing the IPv6 walker it keeps
// registered in the namespace's FIB between parts, also after its Handle
// was closed (the kernel's cb->done runs before the socket drops its
// namespace; a Handle closed first must not leave the walker behind).
// Closing a dump that is done, or closing twice, does nothing.
//
// Kernel: fib6_dump_done (net/ipv6/ip6_fib.c), the dump's cb->done.
func (d *RouteDump) Close() {
	if d.phase == 2 {
		return
	}
	d.phase = 2
	if d.v6 == nil {
		return
	}
	// The walker leaves the FIB's list under RTNL, which guards it here
	// (the kernel's fib6_walker_lock).
	release := func(*sim.Task, *netdev.Table) error {
		d.v6.Close()
		return nil
	}
	if d.h.do("RTM_GETROUTE", release) != nil {
		// The Handle is closed: only the release runs.
		t, k := d.h.t, d.h.n.k
		k.lock(t)
		d.v6.Close()
		k.unlock(t)
	}
}

// dumpGens are a namespace's generation counters that the dumps of links
// and addresses check between their parts (cb->seq). Guarded by RTNL.
type dumpGens struct {
	devBase uint32 // net->dev_base_seq: devices listed and unlisted
	addr4   uint32 // net->ipv4.dev_addr_genid: IPv4 addresses added and removed
	addr6   uint32 // net->ipv6.dev_addr_genid: IPv6 address messages
}

// devListed counts a device registered in or unregistered from the
// namespace.
//
// Kernel: dev_base_seq_inc in list_netdevice and unlist_netdevice
// (net/core/dev.c).
func (g *dumpGens) devListed() { g.devBase++ }

// baseSeq is a generation that is never 0: 0 turns the check off
// (nl_dump_check_consistent), so a sum that wraps to it is taken far away.
//
// Kernel: inet_base_seq (net/ipv4/devinet.c), inet6_base_seq
// (net/ipv6/addrconf.c).
func baseSeq(a, b uint32) uint32 {
	if s := a + b; s != 0 {
		return s
	}
	return 0x80000000
}

// DumpSeq is what a dump part reports beside its objects: the generation
// the dumpit read (cb->seq), which a front end compares between parts to
// flag an interrupted dump (NLM_F_DUMP_INTR), and whether the dump is done.
type DumpSeq struct {
	Seq  uint32
	Done bool
}

// NexthopDumpFrom is one part of a nexthop dump: with RTNL held, it calls
// fn for the nexthops that f selects whose id is at least *from, by id,
// until fn returns false, and leaves *from at the id of the nexthop fn
// refused. The part's Seq is net->nexthop.seq.
//
// Kernel: rtm_dump_nexthop, rtm_dump_walk_nexthops (net/ipv4/nexthop.c).
func (h *Handle) NexthopDumpFrom(f NexthopFilter, from *nexthop.ID, fn func(*NexthopInfo) bool) (DumpSeq, error) {
	var ds DumpSeq
	err := h.do("RTM_GETNEXTHOP", func(t *sim.Task, tb *netdev.Table) error {
		ds = DumpSeq{Seq: h.n.nh.Seq(), Done: true}
		h.n.nh.From(*from, func(nh *nexthop.Nexthop) bool {
			if f.filtered(nh, tb) {
				return true
			}
			ni := nexthopInfo(nh)
			if !fn(&ni) {
				*from, ds.Done = nh.ID(), false
				return false
			}
			return true
		})
		return nil
	})
	return ds, err
}

// RuleDump is one part of a rule dump of family (FamilyV4 or FamilyV6):
// it calls fn for the rules from position *pos on, in the order of the
// family's list, until fn returns false, and leaves *pos at the rule fn
// refused. As the kernel's, each part walks the list from its head and
// steps over the rules before *pos, each charged as a sim.RuleScan.
//
// Kernel: fib_nl_dumprule, dump_rules (net/core/fib_rules.c).
func (h *Handle) RuleDump(family int, pos *int, fn func(*fibrules.Rule) bool) (done bool, err error) {
	o, end, err := h.ruleRequest("RTM_GETRULE", family)
	defer end()
	if err != nil {
		return false, err
	}
	h.t.Charge(sim.RuleScan, int64(min(*pos, o.Len())))
	*pos = o.RulesFrom(*pos, fn)
	return *pos >= o.Len(), nil
}
