// The IPv6 half of the route requests: rtnl.Route to fib6.Route and back
// (rtm_to_fib6_config, rt6_fill_node in net/ipv6/route.c),
// the IPv6 policy-rule lookup installed in the namespace's fib6.FIB, and
// /proc/net/rt6_stats.

package rtnl

import (
	"math"
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fib6"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// fib6Route fills fr, which is zero, with the fib6 request for r, an IPv6
// route, its devices resolved. The IPv4-only fields are refused as the
// kernel refuses them (a dsfield) or ignored (the scope).
//
// Kernel: rtm_to_fib6_config (net/ipv6/route.c).
func (n *Net) fib6Route(r *Route, fr *fib6.Route) error {
	fr.Table, fr.Dst, fr.Src, fr.Type, fr.Protocol = r.Table, r.Dst, r.Src, r.Type, r.Protocol
	fr.Priority, fr.Pref, fr.Gateway, fr.OnLink = r.Priority, r.Pref, r.Gateway, r.OnLink
	fr.NexthopID, fr.PrefSrc, fr.Expires, fr.Metrics = r.NexthopID, r.PrefSrc, r.Expires, r.Metrics
	if r.TOS != 0 {
		return errno.New(syscall.EINVAL, "Invalid dsfield (tos): option not available for IPv6.")
	}
	var err error
	fr.Dev, fr.Multipath, err = n.routeDevs(r)
	return err
}

// maxCacheinfoExpires is the longest time RTA_CACHEINFO's rta_expires can
// carry: INT_MAX clock ticks (USER_HZ 100).
const maxCacheinfoExpires = math.MaxInt32 * (time.Second / 100)

// cacheinfoExpires is the time left of a route as rta_expires carries it:
// at most INT_MAX clock ticks either way, so a route added with
// `expires 4294967294` shows 21474836sec.
//
// Kernel: rtnl_put_cacheinfo (net/core/rtnetlink.c).
func cacheinfoExpires(d time.Duration) time.Duration {
	return max(-maxCacheinfoExpires, min(d, maxCacheinfoExpires))
}

// routeInfo6 is the dump of an IPv6 route: rtm_scope is always universe,
// the source prefix, router preference and time left come along.
//
// Kernel: rt6_fill_node (net/ipv6/route.c).
func routeInfo6(r fib6.Route) RouteInfo {
	ri := RouteInfo{
		Family: rt.FamilyInet6, Table: r.Table, Dst: r.Dst, Src: r.Src, Type: r.Type, Protocol: r.Protocol,
		Priority: r.Priority, Gateway: r.Gateway, NexthopID: r.NexthopID, PrefSrc: r.PrefSrc,
		Flags: r.Flags, Metrics: r.Metrics, Pref: r.Pref, Expires: cacheinfoExpires(r.Expires),
	}
	if r.Dev != nil {
		ri.Dev, ri.DevIndex = r.Dev.Name(), r.Dev.Index()
	}
	ri.Size = routeSize6(r)
	ri.Multipath = routePaths(r.Multipath)
	return ri
}

// routeSize6 is the length of r's RTM_NEWROUTE message in a dump:
// nlmsghdr and rtmsg, RTA_TABLE, RTA_DST and RTA_SRC when their lengths are
// not 0, RTA_PREFSRC, RTA_METRICS when a metric is set, RTA_PRIORITY, the
// nexthop (RTA_NH_ID; RTA_MULTIPATH with an rtnexthop and an RTA_GATEWAY
// per path with a gateway; or RTA_GATEWAY and RTA_OIF), RTA_CACHEINFO and
// RTA_PREF.
//
// Kernel: rt6_fill_node (net/ipv6/route.c).
func routeSize6(r fib6.Route) int {
	nla := func(n int) int { return (4 + n + 3) &^ 3 }
	n := 16 + 12 + nla(4)
	if r.Dst.Bits() > 0 {
		n += nla(16)
	}
	if r.Src.IsValid() && r.Src.Bits() > 0 {
		n += nla(16)
	}
	if r.PrefSrc.IsValid() {
		n += nla(16)
	}
	if (r.Metrics != fib.Metrics{}) {
		// The RTA_METRICS nest, as rtnetlink_put_metrics fills it for
		// either family.
		n += fib.Route{Metrics: r.Metrics}.NetlinkSize() - (16 + 12 + nla(4))
	}
	n += nla(4) // RTA_PRIORITY
	switch {
	case r.NexthopID != 0:
		n += nla(4)
	case len(r.Multipath) > 0:
		n += 4
		for _, p := range r.Multipath {
			n += 8
			if p.Gateway.IsValid() {
				n += nla(16)
			}
		}
	default:
		if r.Gateway.IsValid() {
			n += nla(16)
		}
		if r.Dev != nil {
			n += nla(4)
		}
	}
	return n + nla(32) + nla(1) // RTA_CACHEINFO, RTA_PREF
}

// fib6RuleLookup resolves fl through the namespace's IPv6 rules: each
// to_tbl rule looks the flow up in its table (fib6_table_lookup), which
// fails with EAGAIN when the table has nothing for it and the walk goes
// on. No rule deciding is the null entry's ENETUNREACH.
//
// Kernel: fib6_rule_lookup → fib_rules_lookup with fib6_rule_match,
// fib6_rule_action_alt and fib6_rule_suppress (net/ipv6/fib6_rules.c).
func (n *Net) fib6RuleLookup(t *sim.Task, fl fib6.Flow) (fib6.Result, error) {
	var res fib6.Result
	rfl := fibrules.Flow{
		Src: fl.Src, Dst: fl.Dst, IIF: fl.IIF, OIF: fl.OIF, Mark: fl.Mark, UID: fl.UID,
		IPProto: fl.Proto, Sport: fl.Sport, Dport: fl.Dport,
	}
	if rfl.IIF == 0 {
		// ip6_route_output_flags: a locally generated packet comes from lo.
		rfl.IIF = netdev.LoopbackIfIndex
	}
	if d := n.devs.ByIndex(fl.OIF); d != nil {
		rfl.L3MDevTable = l3mdevTable(d)
	} else if d := n.devs.ByIndex(fl.IIF); d != nil {
		rfl.L3MDevTable = l3mdevTable(d)
	}
	_, err := n.rules6.Lookup(t, &rfl, func(t *sim.Task, table uint32) (fibrules.Hit, error) {
		r, err := n.fib6.TableLookup(t, table, fl)
		if err != nil {
			return fibrules.Hit{}, err
		}
		res = r
		return fibrules.Hit{PrefixLen: r.Route.Dst.Bits(), Dev: r.Dev}, nil
	})
	if e, ok := err.(*errno.Error); ok && e.Errno == syscall.ESRCH {
		return fib6.Result{}, errno.New(syscall.ENETUNREACH, "")
	}
	return res, err
}

// l3mdevTable is the table of d's L3 master device (a vrf, or d itself if
// it is one), or 0.
//
// Kernel: l3mdev_fib_table (net/l3mdev/l3mdev.c).
func l3mdevTable(d *netdev.Device) uint32 {
	if id := d.VRFTable(); id != 0 {
		return id
	}
	if m := d.Master(); m != nil {
		return m.VRFTable()
	}
	return 0
}

// RT6Stats returns the namespace's /proc/net/rt6_stats text.
func (h *Handle) RT6Stats() (string, error) {
	return h.procText("rt6_stats", h.n.fib6.RT6Stats)
}

// IPv6Route returns the namespace's /proc/net/ipv6_route text.
func (h *Handle) IPv6Route() (string, error) {
	return h.procText("ipv6_route", h.n.fib6.IPv6Route)
}

// FIB6 returns the namespace's IPv6 FIB, for inspection by a caller that
// holds RTNL or has a quiescent simulation.
func (n *Net) FIB6() *fib6.FIB { return n.fib6 }
