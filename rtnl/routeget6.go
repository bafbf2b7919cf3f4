// `ip -6 route get`: the route a packet to an IPv6 destination takes, as
// inet6_rtm_getroute (net/ipv6/route.c) answers it: ip6_route_output for a
// locally generated packet, ip6_route_input_lookup with an input device,
// through the IPv6 policy rules and tables (fib6.FIB.Lookup), the source
// address by ipv6_dev_get_saddr (netdev.Table.IPv6SourceAddr).

package rtnl

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib6"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// routeGet6 answers an IPv6 RouteGetRequest. Errors: EINVAL for a source
// length other than 0 or 128, EOPNOTSUPP for an IP protocol other than
// TCP, UDP and ICMPv6, ENODEV for an unknown device, ENETUNREACH when no
// route matches (the null entry), and a reject route's error (EINVAL for
// blackhole, EHOSTUNREACH for unreachable, EACCES for prohibit). Neighbour
// reachability does not exist in netsim: routes are selected as for a
// host with no neighbour entries.
//
// Kernel: inet6_rtm_valid_getroute_req, inet6_rtm_getroute,
// rt6_fill_node (net/ipv6/route.c).
func (n *Net) routeGet6(t *sim.Task, tb *netdev.Table, q RouteGetRequest) (RouteResult, error) {
	if q.SrcLen != 0 && q.SrcLen != 128 {
		return RouteResult{}, errno.New(syscall.EINVAL, "ipv6: Invalid values in header for get route request")
	}
	if err := checkIPProto(q, 58 /* IPPROTO_ICMPV6 */); err != nil {
		return RouteResult{}, err
	}
	fl := fib6.Flow{Dst: q.Dst, Src: q.Src, Mark: q.Mark, UID: q.UID, Proto: q.IPProto, Sport: q.Sport, Dport: q.Dport}
	if !fl.Dst.IsValid() {
		fl.Dst = netip.IPv6Unspecified()
	}
	if fl.Src.IsUnspecified() {
		fl.Src = netip.Addr{}
	}
	var iif *netdev.Device
	if q.hasIIF() {
		d, err := tb.Find(q.IIFIndex, q.IIF)
		if err != nil {
			return RouteResult{}, err
		}
		iif, fl.IIF = d, d.Index()
	} else if q.hasOIF() {
		d, err := tb.Find(q.OIFIndex, q.OIF)
		if err != nil {
			return RouteResult{}, err
		}
		fl.OIF = d.Index()
	}
	res, err := n.fib6.Lookup(t, fl)
	if err != nil {
		return RouteResult{}, err
	}
	r := res.Route
	rr := RouteResult{
		Family: rt.FamilyInet6, Type: r.Type, Gateway: res.Gateway, Table: res.Table, Prefix: r.Dst,
		PrefSrc: r.PrefSrc, NexthopID: r.NexthopID, Metrics: r.Metrics, From: q.Src,
		Priority: r.Priority, Protocol: r.Protocol, Pref: r.Pref, Expires: r.Expires,
	}
	if !rr.From.IsValid() {
		rr.From = netip.IPv6Unspecified()
	}
	if res.Dev != nil {
		rr.Dev, rr.DevIndex = res.Dev.Name(), res.Dev.Index()
	}
	if iif != nil {
		rr.IIF, rr.IIFIndex = iif.Name(), iif.Index()
	} else if r.PrefSrc.IsValid() {
		rr.Src = r.PrefSrc
	} else {
		// ip6_route_get_saddr: the device of the matched route's first
		// path (fib6_info_nh_dev): a nexthop group's first member, not
		// the member the hash chose; a local route's device, not lo.
		dev := r.Dev
		if dev == nil && len(r.Multipath) > 0 {
			dev = r.Multipath[0].Dev
		}
		if dev == nil {
			dev = res.Dev
		}
		if a, ok := tb.IPv6SourceAddr(dev, fl.Dst); ok {
			rr.Src = a
		}
	}
	if q.FIBMatch {
		// rt6_fill_node of the matched route: a multipath route's chosen
		// sibling first, then the others; an input route's device.
		ri := routeInfo6(r)
		if iif != nil {
			ri.IIF, ri.IIFIndex = iif.Name(), iif.Index()
			ri.Size += 8 // RTA_IIF
		}
		if ri.Size > getRouteReplyMax {
			// The reply skb, NLMSG_GOODSIZE, is allocated before the
			// answer is known: a route of more than 130 paths with
			// gateways does not fit (rt6_fill_node's EMSGSIZE).
			return RouteResult{}, errno.New(syscall.EMSGSIZE, "")
		}
		rr.Entry = &ri
	}
	return rr, nil
}
