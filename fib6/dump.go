// dump.go converts routes to what a dump shows, as rt6_fill_node does for
// a fib6_info (RTM_NEWROUTE in inet6_dump_fib), and lists them in the
// kernel's dump order.

package fib6

import (
	"net/netip"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// prefixOf returns a key as a prefix.
func prefixOf(k key) netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom16(k.addr), int(k.plen))
}

// nhInfoFlags is fib_nexthop_info's flags for a fib6_nh: dead, linkdown
// (and dead too when the device ignores routes with linkdown, which netsim
// does not model) and onlink.
func nhInfoFlags(n *nh) rt.NHFlags {
	return n.flags & (rt.FlagDead | rt.FlagLinkDown | rt.FlagOnLink)
}

// gwAddr returns a fib6_nh's gateway, or the zero Addr.
func gwAddr(n *nh) netip.Addr {
	if !n.hasGW {
		return netip.Addr{}
	}
	return netip.AddrFrom16(n.gw)
}

// objDev is the device of a nexthop object's single nexthop: a blackhole's
// is the loopback device.
func (f *FIB) objDev(m *nexthop.Nexthop) *netdev.Device {
	if m.Blackhole() {
		return f.rs.lo
	}
	return m.Dev()
}

// fill is rt6_fill_node for a route of the tree (no dst): a multipath
// route is one entry whose Multipath lists r and then its siblings; a
// route on a nexthop object carries the object's id and, as the default
// nexthop_compat_mode does, its paths.
//
// Kernel: rt6_fill_node (net/ipv6/route.c).
func (f *FIB) fill(now sim.Time, r *Info) Route {
	out := Route{
		Dst: prefixOf(r.dst), Type: r.typ, Protocol: r.protocol, Priority: r.metric, Pref: r.pref,
	}
	if r.table != nil {
		out.Table = r.table.id
	}
	if r.src.plen != 0 {
		out.Src = prefixOf(r.src)
	}
	if r.prefsrc.plen != 0 {
		out.PrefSrc = netip.AddrFrom16(r.prefsrc.addr)
	}
	if r.metrics != nil {
		out.Metrics = *r.metrics
	}
	switch {
	case r.nsiblings > 0:
		add := func(s *Info) {
			out.Multipath = append(out.Multipath, fib.Path{
				Gateway: gwAddr(&s.fnh), Dev: s.fnh.dev, Weight: int(s.fnh.weight),
				OnLink: s.fnh.flags&rt.FlagOnLink != 0, Flags: nhInfoFlags(&s.fnh),
			})
		}
		add(r)
		for s := r.sibNext; s != r; s = s.sibNext {
			add(s)
		}
	case r.nhObj != nil:
		n := r.nhObj
		out.NexthopID = n.ID()
		if n.IsBlackhole() {
			out.Type = rt.TypeBlackhole
		}
		if n.IsGroup() {
			for _, m := range n.Members() {
				mn := f.nh.Get(m.ID)
				if mn == nil {
					continue
				}
				w := int(m.Weight)
				if w == 0 {
					w = 1
				}
				var fl rt.NHFlags
				if mn.OnLink() {
					fl |= rt.FlagOnLink
				}
				out.Multipath = append(out.Multipath, fib.Path{
					Gateway: mn.Gateway(), Dev: f.objDev(mn), Weight: w, OnLink: mn.OnLink(), Flags: fl,
				})
			}
		} else {
			out.Gateway, out.Dev = n.Gateway(), f.objDev(n)
			if n.OnLink() {
				out.Flags |= rt.FlagOnLink
				out.OnLink = true
			}
		}
	default:
		out.Gateway, out.Dev = gwAddr(&r.fnh), r.fnh.dev
		out.Flags = nhInfoFlags(&r.fnh)
		out.OnLink = r.fnh.flags&rt.FlagOnLink != 0
	}
	if r.flags&rtfExpires != 0 {
		out.Expires = r.expires.Sub(now) // negative once expired, until the gc runs
	}
	return out
}

// routes lists table id's routes (0: every table) in inet6_dump_fib's
// order: tables in hash order, each in its walker's order, a multipath
// route once, the null entry left out.
//
// Kernel: inet6_dump_fib, fib6_dump_node, rt6_dump_route (net/ipv6/ip6_fib.c, route.c).
func (f *FIB) routes(now sim.Time, id uint32) []Route {
	var out []Route
	f.eachTable(func(tb *Table) {
		if id != 0 && tb.id != id {
			return
		}
		tb.each(func(r *Info) bool {
			if r != f.nullEntry {
				out = append(out, f.fill(now, r))
			}
			return true
		})
	})
	return out
}
