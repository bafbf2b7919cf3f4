// Route messages: the RTM_NEWROUTE / RTM_DELROUTE of a dump, an answer or a
// notification, encoded from rtnl.RouteInfo as fib_dump_info
// (net/ipv4/fib_semantics.c) and rt6_fill_node (net/ipv6/route.c) fill
// them; rtmsg_fib and inet6_rt_notify's notifications.

package nlwire

import (
	"encoding/binary"
	"math"
	"net/netip"
	"time"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// notifyRoute builds the RTM_NEWROUTE or RTM_DELROUTE message of a route
// notification, to RTNLGRP_IPV4_ROUTE or RTNLGRP_IPV6_ROUTE.
//
// Kernel: rtmsg_fib (net/ipv4/fib_semantics.c), inet6_rt_notify
// (net/ipv6/route.c).
func notifyRoute(n rtnl.Notification) ([]byte, uint32, error) {
	if n.Route == nil {
		return nil, 0, nil
	}
	group := uint32(uapi.RTNLGRP_IPV4_ROUTE)
	if routeFamily(n.Route) == uapi.AF_INET6 {
		group = uapi.RTNLGRP_IPV6_ROUTE
	}
	b, err := routeMessage(n.Route, roomSized)
	return b, group, err
}

// routeFamily is a dumped route's rtm_family.
func routeFamily(ri *rtnl.RouteInfo) uint8 {
	if ri.Family == rt.FamilyInet6 {
		return uapi.AF_INET6
	}
	return uapi.AF_INET
}

// rtmTable is rtm_table for table id: the id, or RT_TABLE_COMPAT for one
// that does not fit.
func rtmTable(id uint32) uint8 {
	if id < 256 {
		return uint8(id)
	}
	return uapi.RT_TABLE_COMPAT
}

// Rooms: the bytes of the skb a route or nexthop message is built in,
// nlmsghdr included; a message that does not fit fails with EMSGSIZE, as
// nla_put and nlmsg_put fail when the skb has no tailroom left.
const (
	// roomSized is a notification's or an answer's skb that the kernel
	// sizes for the message (nlmsg_new of fib_nlmsg_size, rt6_nlmsg_size
	// or nh_nlmsg_size, which count every path or member): every message
	// fits.
	roomSized = math.MaxInt
	// roomGoodSize is an answer's skb of NLMSG_GOODSIZE, allocated
	// before the answer is known (inet_rtm_getroute, inet6_rtm_getroute).
	roomGoodSize = nlmsgGoodSize
	// A dump's message is built for the room left in its part
	// (part.left).
)

// checkRoom fails with EMSGSIZE when a message with payload b does not
// fit in room bytes.
func checkRoom(b []byte, room int) error {
	if nlmsgHdrLen+align4(len(b)) > room {
		return errPartFull
	}
	return nil
}

// encodeAttrs appends the attributes of ae to b. An attribute too long
// for its 16-bit length is the only way ae fails: EMSGSIZE.
func encodeAttrs(b []byte, ae *netlink.AttributeEncoder) ([]byte, error) {
	a, err := ae.Encode()
	if err != nil {
		return nil, errPartFull
	}
	return append(b, a...), nil
}

// routeMessage is the payload of a route's RTM_NEWROUTE (or RTM_DELROUTE)
// in a dump, an answer or a notification, built in an skb of room bytes:
// it fails with EMSGSIZE when the message does not fit.
//
// Kernel: fib_dump_info (net/ipv4/fib_semantics.c), rt6_fill_node
// (net/ipv6/route.c).
func routeMessage(ri *rtnl.RouteInfo, room int) ([]byte, error) {
	if routeFamily(ri) == uapi.AF_INET6 {
		return routeMessage6(ri, room)
	}
	m := rtmsg{family: uapi.AF_INET, dstLen: uint8(ri.Dst.Bits()), tos: ri.TOS, table: rtmTable(ri.Table),
		protocol: uint8(ri.Protocol), scope: uint8(ri.Scope), typ: uint8(ri.Type), flags: uint32(ri.Flags)}
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(uapi.RTA_TABLE, ri.Table)
	if ri.Dst.Bits() > 0 {
		ae.Bytes(uapi.RTA_DST, ri.Dst.Addr().AsSlice())
	}
	if ri.Priority != 0 {
		ae.Uint32(uapi.RTA_PRIORITY, ri.Priority)
	}
	putMetrics(ae, ri.Metrics)
	if ri.PrefSrc.IsValid() {
		ae.Bytes(uapi.RTA_PREFSRC, ri.PrefSrc.AsSlice())
	}
	b, err := encodeAttrs(m.put(nil), ae)
	if err != nil {
		return nil, err
	}
	if b, err = appendNexthops(b, ri, uapi.AF_INET); err != nil {
		return nil, err
	}
	return b, checkRoom(b, room)
}

// routeMessage6 is rt6_fill_node's message for a route of the table (no
// cached route, no destination asked for).
func routeMessage6(ri *rtnl.RouteInfo, room int) ([]byte, error) {
	m := rtmsg{family: uapi.AF_INET6, dstLen: uint8(ri.Dst.Bits()), table: rtmTable(ri.Table),
		protocol: uint8(ri.Protocol), scope: uapi.RT_SCOPE_UNIVERSE, typ: uint8(ri.Type), flags: uint32(ri.Flags)}
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(uapi.RTA_TABLE, ri.Table)
	if ri.Dst.Bits() > 0 {
		ae.Bytes(uapi.RTA_DST, ri.Dst.Addr().AsSlice())
	}
	if ri.Src.IsValid() && ri.Src.Bits() > 0 {
		m.srcLen = uint8(ri.Src.Bits())
		ae.Bytes(uapi.RTA_SRC, ri.Src.Addr().AsSlice())
	}
	if ri.IIFIndex != 0 {
		ae.Uint32(uapi.RTA_IIF, uint32(ri.IIFIndex))
	}
	if ri.PrefSrc.IsValid() {
		ae.Bytes(uapi.RTA_PREFSRC, ri.PrefSrc.AsSlice())
	}
	putMetrics(ae, ri.Metrics)
	ae.Uint32(uapi.RTA_PRIORITY, ri.Priority)
	b, err := encodeAttrs(m.put(nil), ae)
	if err != nil {
		return nil, err
	}
	if b, err = appendNexthops(b, ri, uapi.AF_INET6); err != nil {
		return nil, err
	}
	ae = netlink.NewAttributeEncoder()
	putCacheinfo(ae, 0, ri.Expires)
	ae.Uint8(uapi.RTA_PREF, uint8(ri.Pref))
	if b, err = encodeAttrs(b, ae); err != nil {
		return nil, err
	}
	return b, checkRoom(b, room)
}

// appendNexthops appends a route's nexthop id, if it has one, then its
// paths: RTA_MULTIPATH, or the one path's gateway and RTA_OIF.
//
// RTA_MULTIPATH is a nest (nla_nest_start_noflag ... nla_nest_end), and
// Linux 6.18's nla_nest_end stores the nest's length in the 16-bit
// nla_len without a check: a route with more paths than 64 KiB holds (an
// IPv4 route through a group of more than 4095 members with gateways, an
// IPv6 route appended to past 2340 gateways) goes out in a notification,
// whose skb is sized for it, with its length modulo 65536, and whatever
// follows reads as garbage (`ip monitor` stops with "Truncated message").
// A dump or a get, whose skb is smaller, fails with EMSGSIZE instead
// (checkRoom). netsim sends what the kernel sends.
//
// Kernel: fib_dump_info, fib_add_multipath (net/ipv4/fib_semantics.c),
// rt6_fill_node (net/ipv6/route.c), nla_nest_end (include/net/netlink.h).
func appendNexthops(b []byte, ri *rtnl.RouteInfo, family uint8) ([]byte, error) {
	ae := netlink.NewAttributeEncoder()
	if ri.NexthopID != 0 {
		ae.Uint32(uapi.RTA_NH_ID, uint32(ri.NexthopID))
	}
	if len(ri.Multipath) > 0 {
		b, err := encodeAttrs(b, ae)
		if err != nil {
			return nil, err
		}
		mp, err := multipathPayload(ri.Multipath, family)
		if err != nil {
			return nil, err
		}
		// appendAttr keeps the length's low 16 bits, as nla_nest_end.
		return appendAttr(b, uapi.RTA_MULTIPATH, mp), nil
	}
	putGateway(ae, ri.Gateway, family)
	if ri.DevIndex != 0 {
		ae.Uint32(uapi.RTA_OIF, uint32(ri.DevIndex))
	}
	return encodeAttrs(b, ae)
}

// putAttrs appends the encoded attributes of ae to the header.
func (m rtmsg) putAttrs(b []byte, ae *netlink.AttributeEncoder) ([]byte, error) {
	return encodeAttrs(m.put(b), ae)
}

// putGateway is the gateway part of fib_nexthop_info: RTA_GATEWAY for a
// gateway of the route's family, RTA_VIA for an IPv6 gateway of an IPv4
// route.
func putGateway(ae *netlink.AttributeEncoder, gw netip.Addr, family uint8) {
	switch {
	case !gw.IsValid():
	case gw.Is4() && family == uapi.AF_INET, gw.Is6() && family == uapi.AF_INET6:
		ae.Bytes(uapi.RTA_GATEWAY, gw.AsSlice())
	default:
		via := binary.LittleEndian.AppendUint16(nil, gwFamily(gw))
		ae.Bytes(uapi.RTA_VIA, append(via, gw.AsSlice()...))
	}
}

func gwFamily(gw netip.Addr) uint16 {
	if gw.Is4() {
		return uapi.AF_INET
	}
	return uapi.AF_INET6
}

// multipathPayload is the payload of RTA_MULTIPATH: a struct rtnexthop per
// path (length, flags, weight - 1, ifindex) followed by its gateway.
//
// Kernel: fib_add_multipath, fib_add_nexthop (net/ipv4/fib_semantics.c).
func multipathPayload(paths []rtnl.RoutePath, family uint8) ([]byte, error) {
	var b []byte
	for _, p := range paths {
		ae := netlink.NewAttributeEncoder()
		putGateway(ae, p.Gateway, family)
		attrs, err := encodeAttrs(nil, ae)
		if err != nil {
			return nil, err
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(8+len(attrs)))
		b = append(b, uint8(p.Flags), uint8(p.Weight-1))
		b = binary.LittleEndian.AppendUint32(b, uint32(p.DevIndex))
		b = append(b, attrs...)
	}
	return b, nil
}

// putMetrics is rtnetlink_put_metrics: RTA_METRICS (without NLA_F_NESTED)
// with each metric set, in RTAX order, the congestion control by name;
// nothing when none is set.
func putMetrics(ae *netlink.AttributeEncoder, mx fib.Metrics) {
	if mx.IsZero() {
		return
	}
	nae := netlink.NewAttributeEncoder()
	if mx.Lock != 0 {
		nae.Uint32(uapi.RTAX_LOCK, mx.Lock)
	}
	for k := rt.MetricMTU; k <= rt.MetricMax; k++ {
		switch {
		case k == rt.MetricCongCtl:
			if mx.CongCtl != "" {
				nae.String(uapi.RTAX_CC_ALGO, mx.CongCtl)
			}
		case k == rt.MetricFeatures:
			if v := mx.Values[k] & uapi.RTAX_FEATURE_MASK; v != 0 {
				nae.Uint32(uint16(k), v)
			}
		case mx.Values[k] != 0:
			nae.Uint32(uint16(k), mx.Values[k])
		}
	}
	b, err := nae.Encode()
	if err == nil && len(b) > 0 {
		ae.Bytes(uapi.RTA_METRICS, b)
	}
}

// userHZ is USER_HZ, the clock ticks per second of struct rta_cacheinfo.
const userHZ = 100

// putCacheinfo is rtnl_put_cacheinfo: struct rta_cacheinfo with the
// reference count clntref and the time left expires (in clock ticks, at
// most INT_MAX either way); netsim keeps no last use, use count or error.
func putCacheinfo(ae *netlink.AttributeEncoder, clntref uint32, expires time.Duration) {
	// The kernel counts the time left in jiffies, which a request made
	// within a tick of the route's creation sees whole: round up.
	tick := time.Second / userHZ
	ticks := int64(expires / tick)
	if expires%tick > 0 {
		ticks++
	}
	ticks = max(-0x7fffffff, min(ticks, 0x7fffffff))
	b := make([]byte, 32)
	binary.LittleEndian.PutUint32(b[0:], clntref)
	binary.LittleEndian.PutUint32(b[8:], uint32(int32(ticks)))
	ae.Bytes(uapi.RTA_CACHEINFO, b)
}
