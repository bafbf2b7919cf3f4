// Route dumps: RTM_GETROUTE with NLM_F_DUMP, inet_dump_fib
// (net/ipv4/fib_frontend.c) with fib_table_dump and fn_trie_dump_leaf
// (net/ipv4/fib_trie.c), inet6_dump_fib (net/ipv6/ip6_fib.c), rtnl_dump_all
// (net/core/rtnetlink.c), and the dumped route, as fib_dump_info
// (net/ipv4/fib_semantics.c) fills it.

package rtnl

import (
	"net/netip"
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fib6"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
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

// RouteInfo is a dumped route (RTM_NEWROUTE of a dump): its fields with
// devices by name. A route through a nexthop object carries the object's
// gateway and device, or its group's members as Multipath (the kernel's
// compatibility dump); a blackhole object's device is the loopback device.
//
// Kernel: fib_dump_info (net/ipv4/fib_semantics.c).
type RouteInfo struct {
	Family    int            // rtm_family: FamilyV4 or FamilyV6
	Table     uint32         // RTA_TABLE
	Dst       netip.Prefix   // RTA_DST and rtm_dst_len
	Type      fib.Type       // rtm_type
	Scope     fib.Scope      // rtm_scope
	Protocol  fib.Protocol   // rtm_protocol
	Priority  uint32         // RTA_PRIORITY; 0 when not sent
	TOS       uint8          // rtm_tos
	Gateway   netip.Addr     // RTA_GATEWAY of a single path
	Dev       string         // RTA_OIF of a single path; "" when none
	DevIndex  netdev.IfIndex // Dev's ifindex, as RTA_OIF carries it; 0 when none
	NexthopID nexthop.ID     // RTA_NH_ID
	PrefSrc   netip.Addr     // RTA_PREFSRC
	Flags     fib.NHFlags    // rtm_flags
	Metrics   fib.Metrics    // RTA_METRICS
	// Multipath are the paths of RTA_MULTIPATH, in the kernel's order;
	// nil for a single path.
	Multipath []RoutePath
	Size      int // the length of its RTM_NEWROUTE message (fib.Route.NetlinkSize)

	Src     netip.Prefix  // RTA_SRC and rtm_src_len (IPv6 "from"); invalid for none
	Pref    rt.Pref       // RTA_PREF (IPv6)
	Expires time.Duration // RTA_EXPIRES (IPv6): the time left; 0 is none
	// IIF is RTA_IIF: the input device of an IPv6 `route get fibmatch
	// ... iif DEV` answer, which rt6_fill_node sends; "" otherwise.
	IIF string
	// IIFIndex is IIF's ifindex, as RTA_IIF carries it.
	IIFIndex netdev.IfIndex
}

// RoutePath is one path of a dumped multipath route (struct rtnexthop and
// its RTA_GATEWAY).
type RoutePath struct {
	Gateway  netip.Addr     // RTA_GATEWAY inside the rtnexthop
	Dev      string         // rtnh_ifindex, by name
	DevIndex netdev.IfIndex // rtnh_ifindex; 0 when none
	Weight   int            // rtnh_hops+1: 1..256
	Flags    fib.NHFlags    // rtnh_flags
}

func routeInfo(r fib.Route) RouteInfo {
	ri := RouteInfo{
		Family: FamilyV4, Table: r.Table, Dst: r.Dst, Type: r.Type, Scope: r.Scope, Protocol: r.Protocol,
		Priority: r.Priority, TOS: r.TOS, Gateway: r.Gateway, NexthopID: r.NexthopID,
		PrefSrc: r.PrefSrc, Flags: r.Flags, Metrics: r.Metrics, Size: r.NetlinkSize(),
	}
	if r.Dev != nil {
		ri.Dev, ri.DevIndex = r.Dev.Name(), r.Dev.Index()
	} else if r.NexthopID != 0 && len(r.Multipath) == 0 && r.Type == fib.TypeBlackhole {
		// A blackhole nexthop object's device is the loopback device
		// (nh_create_ipv4 with cfg->nh_blackhole), which the dump shows.
		ri.Dev, ri.DevIndex = "lo", netdev.LoopbackIfIndex
	}
	ri.Multipath = routePaths(r.Multipath)
	return ri
}

// routePaths is the RTA_MULTIPATH of a dump, for either family: the
// devices by name, a weight of 0 (unset) as 1.
func routePaths(ps []fib.Path) []RoutePath {
	var out []RoutePath
	for _, p := range ps {
		rp := RoutePath{Gateway: p.Gateway, Weight: p.Weight, Flags: p.Flags}
		if rp.Weight == 0 {
			rp.Weight = 1
		}
		if p.Dev != nil {
			rp.Dev, rp.DevIndex = p.Dev.Name(), p.Dev.Index()
		}
		out = append(out, rp)
	}
	return out
}

// RouteList returns the routes of family (FamilyV4, FamilyV6, or
// FamilyAll for both, IPv4 first, as a dump of AF_UNSPEC gives them) in
// table (0: every table, as `ip route show table all`), in the kernel's
// dump order. A family without that table contributes nothing. It is
// RouteDump read whole in one part: one request, RTNL held throughout.
//
// Kernel: inet_dump_fib → fib_table_dump; inet6_dump_fib → fib6_dump_table
// (rtnl_dump_all for AF_UNSPEC).
func (h *Handle) RouteList(family int, table uint32) ([]RouteInfo, error) {
	d, err := h.RouteDump(family, table)
	if err != nil {
		return nil, err
	}
	var out []RouteInfo
	_, err = d.Next(func(ri *RouteInfo) bool {
		out = append(out, *ri)
		return true
	})
	return out, err
}
