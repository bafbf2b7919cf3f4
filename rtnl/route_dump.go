// Route dumps: RTM_GETROUTE with NLM_F_DUMP, inet_dump_fib
// (net/ipv4/fib_frontend.c) with fib_table_dump and fn_trie_dump_leaf
// (net/ipv4/fib_trie.c), inet6_dump_fib (net/ipv6/ip6_fib.c), rtnl_dump_all
// (net/core/rtnetlink.c), and the dumped route, as fib_dump_info
// (net/ipv4/fib_semantics.c) fills it.

package rtnl

import (
	"net/netip"
	"slices"
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

// RouteDumpRequest is an RTM_GETROUTE dump request: its family, whether
// the requester's socket asks for strict checks, and the struct rtmsg and
// attributes that a strict dump checks and filters by.
type RouteDumpRequest struct {
	Origin
	// Family is rtm_family: rt.FamilyInet, rt.FamilyInet6, or
	// rt.FamilyUnspec for both (rtnl_dump_all: IPv4, then IPv6).
	Family rt.Family
	// Strict is NETLINK_GET_STRICT_CHK on the requester's socket: the
	// request is checked and its filter applies (ip_valid_fib_dump_req).
	// A dump that is not strict reads only rtm_flags' RTM_F_PREFIX and
	// RTM_F_CLONED, and dumps every table.
	Strict bool
	// Short says the message is shorter than struct rtmsg: a strict dump
	// refuses it, another reads no flags from it.
	Short bool
	// The struct rtmsg fields a strict dump refuses when set.
	DstLen, SrcLen, TOS uint8
	Scope               fib.Scope
	// Flags are rtm_flags: RTM_F_CLONED asks for the route exceptions
	// (of which netsim has none), RTM_F_PREFIX for IPv6 prefix routes
	// from router advertisements (none either); a strict dump refuses
	// any other.
	Flags uint32
	// The filter of a strict dump: rtm_protocol, rtm_type, the table
	// (rtm_table, or RTA_TABLE) and the device (RTA_OIF, by ifindex when
	// DevIndex is not 0, else by name); zero is any.
	Protocol fib.Protocol
	Type     fib.Type
	Table    uint32
	Dev      string
	DevIndex netdev.IfIndex
	// Attrs are the types of the attributes the request carries, in any
	// order: a strict dump takes RTA_TABLE and RTA_OIF (which must name a
	// device, ENODEV otherwise) and refuses any other, checking them by
	// type as nla_parse leaves them. A Table or device given without its
	// attribute counts as given by rtm_table or its attribute.
	Attrs []rt.RouteAttr
}

// routeDumpFilter is struct fib_dump_filter: what a strict route dump
// selects.
type routeDumpFilter struct {
	table    uint32
	protocol fib.Protocol
	typ      fib.Type
	dev      *netdev.Device
	set      bool // filter_set: the dump's messages say NLM_F_DUMP_FILTERED
}

// match is the filter of fn_trie_dump_leaf and rt6_dump_route: the type,
// the protocol, and a device any of the route's paths uses.
//
// Kernel: fn_trie_dump_leaf (net/ipv4/fib_trie.c), fib_info_nh_uses_dev
// (include/net/ip_fib.h); rt6_dump_route, fib6_info_uses_dev
// (net/ipv6/route.c).
func (f *routeDumpFilter) match(ri *RouteInfo) bool {
	if !f.set {
		return true
	}
	if f.typ != 0 && ri.Type != f.typ || f.protocol != 0 && ri.Protocol != f.protocol {
		return false
	}
	if f.dev == nil {
		return true
	}
	if ri.DevIndex == f.dev.Index() {
		return true
	}
	for _, p := range ri.Multipath {
		if p.DevIndex == f.dev.Index() {
			return true
		}
	}
	return false
}

// RouteDump is a route dump in progress: the cursor of inet_dump_fib and
// inet6_dump_fib, and for both families rtnl_dump_all's (IPv4, then
// IPv6), with the request's filter. Between its parts the tables may
// change; the dump then goes on as the kernel's would (see fib.DumpCursor
// and fib6.Dump). A RouteDump is used by its Handle's goroutine; Close
// releases it.
type RouteDump struct {
	h       *Handle
	req     RouteDumpRequest
	checked bool // the request was checked, by the first part
	f       routeDumpFilter
	v4      fib.DumpCursor
	v6      *fib6.Dump // created when the IPv6 part starts
	phase   int        // 0: IPv4, 1: IPv6, 2: done
}

// DumpRoutes starts the route dump req asks for. Only its family is
// checked here (EAFNOSUPPORT for one without routes); the rest of the
// request is checked by the dump's first part, under RTNL, as the
// kernel's dumpit checks it when netlink_dump_start first runs it: a
// strict request's header ("Invalid header for FIB dump request",
// "Invalid values in header for FIB dump request", "Invalid flags for FIB
// dump request"), its attributes ("Unsupported attribute in dump request",
// ENODEV for RTA_OIF), and the table of a one-family dump ("ipv4: FIB
// table does not exist", "ipv6: FIB table does not exist", ENOENT; the
// dump of both families skips a table one family lacks).
//
// Kernel: inet_dump_fib, ip_valid_fib_dump_req (net/ipv4/fib_frontend.c),
// inet6_dump_fib (net/ipv6/ip6_fib.c), rtnl_dump_all
// (net/core/rtnetlink.c).
func (h *Handle) DumpRoutes(req RouteDumpRequest) (*RouteDump, error) {
	d := &RouteDump{h: h, req: req}
	switch req.Family {
	case rt.FamilyInet, rt.FamilyUnspec:
	case rt.FamilyInet6:
		d.phase = 1
	default:
		return nil, errno.Errorf(syscall.EAFNOSUPPORT, "Routes of address family %d are not modelled", req.Family)
	}
	return d, nil
}

// Filtered reports whether the dump applies a filter (the kernel's
// filter_set), which its messages and NLMSG_DONE flag with
// NLM_F_DUMP_FILTERED; known once the first part has checked the request.
func (d *RouteDump) Filtered() bool { return d.f.set }

// check is the dumpit's check of the request and its filter, which the
// first part makes. It reports false when nothing is to be dumped.
//
// Kernel: ip_valid_fib_dump_req, inet_dump_fib (net/ipv4/fib_frontend.c),
// inet6_dump_fib (net/ipv6/ip6_fib.c).
func (d *RouteDump) check(tb *netdev.Table) (bool, error) {
	d.checked = true
	q := &d.req
	flags := q.Flags
	if q.Strict {
		if q.Short {
			return false, errno.New(syscall.EINVAL, "Invalid header for FIB dump request")
		}
		if q.DstLen != 0 || q.SrcLen != 0 || q.TOS != 0 || q.Scope != 0 {
			return false, errno.New(syscall.EINVAL, "Invalid values in header for FIB dump request")
		}
		if flags&^(rt.RTMFCloned|rt.RTMFPrefix) != 0 {
			return false, errno.New(syscall.EINVAL, "Invalid flags for FIB dump request")
		}
		f := routeDumpFilter{table: q.Table, protocol: q.Protocol, typ: q.Type}
		attrs := slices.Clone(q.Attrs)
		if q.DevIndex != 0 || q.Dev != "" {
			attrs = append(attrs, rt.RTAOIF)
		}
		slices.Sort(attrs)
		for _, a := range slices.Compact(attrs) {
			switch a {
			case rt.RTATable:
			case rt.RTAOIF:
				dev, err := tb.Find(q.DevIndex, q.Dev)
				if err != nil || q.DevIndex == 0 && q.Dev == "" {
					return false, errno.New(syscall.ENODEV, "")
				}
				f.dev = dev
			default:
				return false, errno.New(syscall.EINVAL, "Unsupported attribute in dump request")
			}
		}
		f.set = flags != 0 || f.protocol != 0 || f.typ != 0 || f.table != 0 || f.dev != nil
		d.f = f
	} else if q.Short {
		flags = 0
	} else if q.Family == rt.FamilyInet6 {
		flags &= rt.RTMFPrefix
	} else {
		flags &= rt.RTMFPrefix | rt.RTMFCloned
	}
	// IPv4 has no prefix routes, and netsim no route exceptions (nor
	// IPv6 prefix routes): such a dump is empty.
	if flags&rt.RTMFPrefix != 0 || q.Strict && flags&rt.RTMFCloned != 0 {
		return false, nil
	}
	if d.f.table != 0 {
		switch {
		case q.Family == rt.FamilyInet && d.h.n.fib.Table(d.f.table) == nil:
			return false, errno.New(syscall.ENOENT, "ipv4: FIB table does not exist")
		case q.Family == rt.FamilyInet6 && d.h.n.fib6.Table(d.f.table) == nil:
			return false, errno.New(syscall.ENOENT, "ipv6: FIB table does not exist")
		}
	}
	return true, nil
}

// dumpRoom is the room of a dump's parts as they are filled: a route's
// message goes into the part being filled if it fits in what is left of
// it (room(part) bytes in all), else the part is full and the route
// starts the next one; a route that does not fit even in an empty part
// can never be sent, and ends the dump.
//
// Kernel: fib_dump_info's and rt6_fill_node's -EMSGSIZE, which
// fn_trie_dump_leaf and fib6_dump_node return with the skb full, and
// rtnl_dumpit and netlink_dump take for the end of the dump when nothing
// was put (net/core/rtnetlink.c, net/netlink/af_netlink.c).
type dumpRoom struct {
	room  func(part int) int
	part  int
	used  int
	whole bool // fill the next part when one is full (one request reads them all)
	ended bool // a route did not fit in an empty part
}

// take reports whether a message of size bytes is put in the part being
// filled, going on to the next part when it is full and d.whole.
func (d *dumpRoom) take(size int) bool {
	for {
		if d.used+size <= d.room(d.part) {
			d.used += size
			return true
		}
		if d.used == 0 {
			d.ended = true
			return false
		}
		if !d.whole {
			return false
		}
		d.part, d.used = d.part+1, 0
	}
}

// Next is one part of the dump, of room bytes: with RTNL held, it calls
// fn for the routes the dump's filter selects, from where the last part
// stopped, in the kernel's dump order, until the part is full (the sizes
// of the routes' messages, RouteInfo.Size, are room bytes), fn returns
// false or the routes run out. The route that did not fit, or that fn
// refused, comes first in the next part. It reports whether the dump is
// done (and then releases what the dump held, as Close does). fn runs with
// RTNL held: it must not call the Handle.
//
// The first part checks the request (see DumpRoutes). A route that does
// not fit in an empty part ends the dump: quietly (done) for one family's
// dump, whose rtnl_dumpit (RTNL_FLAG_DUMP_SPLIT_NLM_DONE) takes the empty
// part's EMSGSIZE for the end, and with EMSGSIZE for both families'
// (rtnl_dump_all), as Linux 6.18 answers for an IPv4 route. (For an IPv6
// route, 6.18's dump of both families does not end: it answers each read
// with an empty part while the route exists; netsim ends it as for IPv4.)
//
// A part enters the kernel as a request does (see Handle); resuming is
// charged as the kernel's walk back to its cursor (fib.FIB.Dump,
// fib6.Dump.Next).
//
// Kernel: netlink_dump → rtnl_dumpit → inet_dump_fib / inet6_dump_fib.
func (d *RouteDump) Next(room int, fn func(*RouteInfo) bool) (done bool, err error) {
	return d.parts(&dumpRoom{room: func(int) int { return room }}, fn)
}

// Drain reads the rest of the dump in one request, RTNL held throughout,
// as a reader whose reads take the dump's part i in room(i) bytes: each
// part filled as Next fills it, the next one begun when it is full, and a
// route that does not fit in an empty part ending the dump as it ends
// Next's.
func (d *RouteDump) Drain(room func(part int) int, fn func(*RouteInfo)) error {
	_, err := d.parts(&dumpRoom{room: room, whole: true}, func(ri *RouteInfo) bool {
		fn(ri)
		return true
	})
	return err
}

// parts fills the dump's parts as r says, in one request.
func (d *RouteDump) parts(r *dumpRoom, fn func(*RouteInfo) bool) (done bool, err error) {
	if d.phase == 2 {
		return true, nil
	}
	err = d.h.doFrom(d.req.Origin, "RTM_GETROUTE", func(t *sim.Task, tb *netdev.Table) error {
		if !d.checked {
			ok, err := d.check(tb)
			if err != nil || !ok {
				done = true
				d.endLocked()
				return err
			}
		}
		done = d.nextLocked(t, func(ri *RouteInfo) bool {
			if !d.f.match(ri) {
				return true
			}
			return r.take(ri.Size) && fn(ri)
		})
		if r.ended {
			done = true
			d.endLocked()
			if d.req.Family == rt.FamilyUnspec {
				return errno.New(syscall.EMSGSIZE, "")
			}
		}
		return nil
	})
	if err != nil {
		d.Close()
	}
	return done, err
}

// endLocked ends the dump before its end, with RTNL held.
func (d *RouteDump) endLocked() {
	d.phase = 2
	if d.v6 != nil {
		d.v6.Close()
	}
}

func (d *RouteDump) nextLocked(t *sim.Task, fn func(*RouteInfo) bool) bool {
	n := d.h.n
	if d.phase == 0 {
		more := !n.fib.Dump(t, d.f.table, &d.v4, func(r fib.Route) bool {
			ri := routeInfo(r)
			return fn(&ri)
		})
		if more {
			return false
		}
		d.phase = 1
		if d.req.Family == rt.FamilyInet {
			d.phase = 2
			return true
		}
	}
	if d.v6 == nil {
		d.v6 = n.fib6.NewDump()
	}
	if !d.v6.Next(t, d.f.table, func(r fib6.Route) bool {
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
	Family    rt.Family      // rtm_family: rt.FamilyInet or rt.FamilyInet6
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

func routeInfo(r fib.Route) RouteInfo {
	ri := RouteInfo{
		Family: rt.FamilyInet, Table: r.Table, Dst: r.Dst, Type: r.Type, Scope: r.Scope, Protocol: r.Protocol,
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
