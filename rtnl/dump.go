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
	"github.com/netsimlab/netsim/netdev"
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
		d.phase = 2
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
// registered in the namespace's FIB between parts. Closing a dump that
// is done, or closing twice, does nothing.
//
// Kernel: fib6_dump_done (net/ipv6/ip6_fib.c), the dump's cb->done.
func (d *RouteDump) Close() {
	if d.phase == 2 {
		return
	}
	if d.v6 != nil {
		// The walker leaves the FIB's list under RTNL, which guards it
		// here (the kernel's fib6_walker_lock).
		d.h.do("RTM_GETROUTE", func(*sim.Task, *netdev.Table) error {
			d.v6.Close()
			return nil
		})
	}
	d.phase = 2
}
