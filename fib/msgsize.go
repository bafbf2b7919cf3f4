// Sizes of routes as rtnetlink messages (struct nlmsghdr, struct rtmsg and
// the RTA_* attributes fib_dump_info puts; net/ipv4/fib_semantics.c), and
// the limits that follow from them.

package fib

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/rt"
)

// MaxMultipathLen is the most bytes of paths RTA_MULTIPATH can carry: the
// attribute's length is a 16-bit field (struct nlattr's nla_len) that
// counts its 4-byte header too. A path takes 8 bytes (struct rtnexthop)
// and its gateway's attribute (gwLen): an IPv4 route request can carry at
// most 4095 paths with IPv4 gateways, 8191 without; an IPv6 one 2340 with
// IPv6 gateways. (iproute2's `ip route` stops far earlier, at its
// 4096-byte request buffer.)
const MaxMultipathLen = 0xffff - 4

// nlaLen is NLA_ALIGN(NLA_HDRLEN + n): an attribute with n bytes of data.
func nlaLen(n int) int { return (4 + n + 3) &^ 3 }

// gwLen is the attribute a path's gateway takes in a request or message of
// a route of family (AF_INET or AF_INET6): RTA_GATEWAY for a gateway of
// the route's family, RTA_VIA (family and address) for one of the other,
// none without a gateway.
func gwLen(nh Path, family rt.Family) int {
	switch {
	case !nh.Gateway.IsValid():
		return 0
	case nh.Gateway.Is4() && family == rt.FamilyInet:
		return nlaLen(4)
	case nh.Gateway.Is6() && family == rt.FamilyInet6:
		return nlaLen(16)
	case nh.Gateway.Is4():
		return nlaLen(2 + 4)
	}
	return nlaLen(2 + 16)
}

// multipathLen is the length of the RTA_MULTIPATH payload for paths of a
// route of family.
func multipathLen(paths []Path, family rt.Family) int {
	n := 0
	for _, p := range paths {
		n += 8 + gwLen(p, family)
	}
	return n
}

// CheckMultipathLen refuses, with EMSGSIZE, a request for a route of
// family (AF_INET or AF_INET6) whose paths do not fit in one RTA_MULTIPATH
// attribute. Over rtnetlink such a request cannot be sent: the 16-bit
// nla_len bounds what rtm_to_fib_config (fib_count_nexthops, fib_get_nhs)
// and rtm_to_fib6_multipath_config can be given, and the kernel checks
// nothing more. A request made of Go values has no such bound, so the
// kernel layer applies the one the wire implies, for every front end: a
// route's paths then always fit in its notification's RTA_MULTIPATH
// unless appends (IPv6) grow it past what one request can carry.
func CheckMultipathLen(paths []Path, family rt.Family) error {
	if multipathLen(paths, family) > MaxMultipathLen {
		return errno.New(syscall.EMSGSIZE, "")
	}
	return nil
}

// NetlinkSize returns the length of the RTM_NEWROUTE message
// fib_dump_info builds for the route r (a dumped route), header included:
// rtmsg, RTA_TABLE, RTA_DST, RTA_PRIORITY, RTA_METRICS, RTA_PREFSRC, the
// nexthop object's id, and the gateway and device or the paths.
//
// Kernel: fib_dump_info, fib_nlmsg_size (net/ipv4/fib_semantics.c).
func (r Route) NetlinkSize() int {
	n := 16 + 12 + nlaLen(4) // nlmsghdr, rtmsg, RTA_TABLE
	if r.Dst.Bits() > 0 {
		n += nlaLen(4)
	}
	if r.Priority != 0 {
		n += nlaLen(4)
	}
	if mx := r.Metrics.netlinkSize(); mx > 0 {
		n += 4 + mx
	}
	if r.PrefSrc.IsValid() {
		n += nlaLen(4)
	}
	if r.NexthopID != 0 {
		n += nlaLen(4)
	}
	if len(r.Multipath) > 0 {
		return n + 4 + multipathLen(r.Multipath, rt.FamilyInet)
	}
	n += gwLen(Path{Gateway: r.Gateway}, rt.FamilyInet)
	if r.Dev != nil {
		n += nlaLen(4) // RTA_OIF
	}
	return n
}

// netlinkSize is the payload rtnetlink_put_metrics puts in RTA_METRICS:
// one attribute per metric set (the congestion control by name, with its
// NUL), none when no metric is (the nest is cancelled).
func (m Metrics) netlinkSize() int {
	n := 0
	if m.Lock != 0 {
		n += nlaLen(4)
	}
	for k := rt.MetricMTU; k <= rt.MetricMax; k++ {
		switch {
		case k == rt.MetricCongCtl:
			if m.CongCtl != "" {
				n += nlaLen(len(m.CongCtl) + 1)
			}
		case k == rt.MetricFeatures:
			if m.Values[k]&^featureECNCA != 0 {
				n += nlaLen(4)
			}
		case m.Values[k] != 0:
			n += nlaLen(4)
		}
	}
	return n
}
