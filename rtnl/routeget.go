// `ip route get`: the output route a locally generated packet takes
// (net/ipv4/route.c: inet_rtm_getroute, ip_route_output_key_hash_rcu,
// __mkroute_output, rt_set_nexthop; source selection by inet_select_addr
// in net/ipv4/devinet.c), or with an input device the input route of a
// packet received on it (ip_route_input_rcu, ip_route_input_slow,
// ip_route_input_mc, __mkroute_input; fib_validate_source in
// net/ipv4/fib_frontend.c).

package rtnl

import (
	"net/netip"
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// RouteGetRequest is an RTM_GETROUTE without NLM_F_DUMP, `ip route get`:
// a locally generated packet's destination and what else its flow
// carries, or with an input device a packet received on that device. Zero
// fields are unspecified. A device is named by ifindex when its index
// field is not 0, else by name.
type RouteGetRequest struct {
	Origin
	// RTA_IIF ("iif"): the device the packet came in by; the query is
	// then for an input route (the output device and UID are not used).
	IIF      string
	IIFIndex netdev.IfIndex
	Dst      netip.Addr // RTA_DST; 0.0.0.0 (or invalid) asks for a local route
	Src      netip.Addr // RTA_SRC ("from"): for an output route, an address of this host
	// rtm_src_len: the length of the "from" prefix as asked; 0 or 32 (an
	// address), anything else is refused with EINVAL.
	SrcLen   int
	OIF      string         // RTA_OIF ("oif"): the device the packet must leave by
	OIFIndex netdev.IfIndex // RTA_OIF by ifindex
	Mark     uint32         // RTA_MARK ("mark")
	UID      uint32         // RTA_UID ("uid")
	TOS      uint8          // rtm_tos ("tos", "dsfield")
	// RTA_IP_PROTO ("ipproto"): TCP, UDP or ICMP, refused otherwise
	// (EOPNOTSUPP), with HasIPProto when it is 0 (which is refused too).
	IPProto    uint8
	HasIPProto bool
	Sport      uint16 // RTA_SPORT ("sport")
	Dport      uint16 // RTA_DPORT ("dport")
	// FIBMatch is RTM_F_FIB_MATCH ("fibmatch"): answer with the FIB entry
	// the lookup matched (RouteResult.Entry).
	FIBMatch bool
}

// RouteFlags are the struct rtable flags a route lookup reports (ip's
// "cache <...>" line).
type RouteFlags uint32

// Route flags (RTCF_*, include/uapi/linux/in_route.h).
const (
	RouteLocal     RouteFlags = 0x80000000 // RTCF_LOCAL: delivered to this host
	RouteMulticast RouteFlags = 0x20000000 // RTCF_MULTICAST
	RouteBroadcast RouteFlags = 0x10000000 // RTCF_BROADCAST
	// RTCF_DOREDIRECT: a forwarded packet leaves by the device it came in
	// by, from a source on that link (the kernel would send a redirect).
	RouteRedirect RouteFlags = 0x01000000
)

// RouteResult is the route a lookup built (struct rtable, as
// rt_fill_info reports it) and the FIB entry it came from.
type RouteResult struct {
	Type fib.Type // rt_type: unicast, local, broadcast or multicast
	Dev  string   // the device the packet leaves by (lo for local delivery)
	// DevIndex is Dev's ifindex, as RTA_OIF carries it.
	DevIndex netdev.IfIndex
	Gateway  netip.Addr // the next hop, if the route goes through one
	// Src is the flow's source: the query's, or the one chosen; for IPv6
	// the address source selection picks whatever the query's
	// (ip6_route_get_saddr), invalid if none.
	Src       netip.Addr
	Table     uint32         // the table the route was found in; 0 if none was
	Flags     RouteFlags     // RTCF_LOCAL, RTCF_BROADCAST, RTCF_MULTICAST, RTCF_DOREDIRECT
	Prefix    netip.Prefix   // the FIB entry's prefix (invalid if none was used)
	PrefSrc   netip.Addr     // the FIB entry's preferred source, if any
	TOS       uint8          // the FIB entry's TOS (rtm_tos of the answer: res.dscp)
	NexthopID nexthop.ID     // the FIB entry's nexthop object, if any
	IIF       string         // an input route's input device
	IIFIndex  netdev.IfIndex // IIF's ifindex, as RTA_IIF carries it
	// Metrics are the FIB entry's metrics, which an output or forwarding
	// route carries (rt_set_nexthop); none for broadcast, multicast
	// through a default route, or local delivery of a received packet.
	Metrics fib.Metrics
	// The IPv6 answer's own fields (rt6_fill_node): Family is
	// rt.FamilyInet6 for an IPv6 lookup (0 for IPv4); From is RTA_SRC, the
	// flow's source (:: when the query has none), which ip prints as
	// "from"; Src is then RTA_PREFSRC, the source the kernel would pick
	// (invalid for an input route or when there is none); Priority,
	// Protocol, Pref and Expires are the matched route's.
	Family   rt.Family
	From     netip.Addr
	Priority uint32
	Protocol fib.Protocol
	Pref     rt.Pref
	Expires  time.Duration
	// Entry is, for a FIBMatch query, the FIB entry the lookup matched, as
	// `ip route show` dumps it but with the type of the route built (a
	// multicast destination through a default route, say, gives the
	// default route as "multicast"). A FIBMatch query whose route came
	// from no FIB entry (0.0.0.0, a multicast group on an input device, an
	// output device without a route) fails with EHOSTUNREACH.
	Entry *RouteInfo
}

// GetRoute builds the output route of a locally generated packet with
// the flow q, through the policy rules and the FIB, as `ip route get`
// shows it. Errors are the kernel's: EINVAL for a source that cannot be
// one (multicast, limited broadcast, or loopback leaving by a device that
// is not), ENETUNREACH for a source that is not an address of
// this host, an output device that is down or no route, ENODEV for an
// unknown device, EOPNOTSUPP for an IP protocol other than TCP, UDP and
// ICMP, and a reject route's error (EINVAL, EHOSTUNREACH,
// EACCES). With an output device and no route the destination is taken to
// be on its link. Without an output device, a multipath route (or a route
// on a nexthop group) takes the path the kernel's flow hash picks for the
// source and destination (fib.MultipathHash, keyed with the namespace's
// net.ipv4.fib_multipath_hash_seed; see Handle.Sysctl). Among several default
// routes of one metric the first is taken: the kernel's fib_select_default
// prefers one whose gateway has a live neighbour entry, and netsim has no
// neighbour table (nor has a namespace that sent no traffic).
//
// With IIF the route is the input route of a packet from Src to Dst that
// came in by that device (up or not): delivered locally (lo), as a
// broadcast, to a multicast group the device joined, or forwarded when the
// device forwards (net.ipv4.conf.DEV.forwarding). Errors: EINVAL for a
// martian source or destination (multicast, broadcast or loopback
// sources, 0.0.0.0 anywhere but to 255.255.255.255, a loopback
// destination, one of this host's addresses as the source, a group not
// joined), EHOSTUNREACH when the packet would have to be forwarded by a
// device that does not forward, and the lookup's error otherwise.
// Reverse-path filtering (rp_filter), accept_local and route_localnet
// keep their defaults (off).
//
// Kernel: inet_rtm_getroute → ip_route_output_key_hash_rcu,
// __mkroute_output, or ip_route_input_rcu (net/ipv4/route.c).
func (h *Handle) GetRoute(q RouteGetRequest) (RouteResult, error) {
	var rr RouteResult
	err := h.doFrom(q.Origin, "RTM_GETROUTE", func(t *sim.Task, tb *netdev.Table) error {
		if q.Dst.Is6() || !q.Dst.IsValid() && q.Src.Is6() {
			if q.Src.IsValid() && !q.Src.Is6() {
				return errno.New(syscall.EINVAL, "")
			}
			var err error
			rr, err = h.n.routeGet6(t, tb, q)
			return err
		}
		if q.Src.IsValid() && !q.Src.Is4() {
			return errno.New(syscall.EINVAL, "")
		}
		// inet_rtm_valid_getroute_req
		if q.SrcLen != 0 && q.SrcLen != 32 {
			return errno.New(syscall.EINVAL, "ipv4: Invalid values in header for route get request")
		}
		if err := checkIPProto(q, 1 /* IPPROTO_ICMP */); err != nil {
			return err
		}
		var err error
		var match fib.Result
		if q.hasIIF() {
			rr, err = h.n.routeInput(t, tb, q, &match)
		} else {
			rr, err = h.n.routeOutput(t, tb, q, &match)
		}
		if err == nil && q.FIBMatch {
			r, ok := match.Entry(rr.Type)
			if !ok {
				// No FIB entry made the route: the error of its type,
				// none of which has one, or EHOSTUNREACH.
				return errno.New(syscall.EHOSTUNREACH, "")
			}
			if r.NetlinkSize() > getRouteReplyMax {
				// The reply skb is allocated before the answer is known.
				return errno.New(syscall.EMSGSIZE, "")
			}
			ri := routeInfo(r)
			rr.Entry = &ri
		}
		return err
	})
	return rr, err
}

// hasIIF reports whether q names an input device.
func (q *RouteGetRequest) hasIIF() bool { return q.IIF != "" || q.IIFIndex != 0 }

// hasOIF reports whether q names an output device.
func (q *RouteGetRequest) hasOIF() bool { return q.OIF != "" || q.OIFIndex != 0 }

// checkIPProto refuses a query's RTA_IP_PROTO other than TCP, UDP and
// icmp, the family's ICMP.
//
// Kernel: rtm_getroute_parse_ip_proto (net/ipv4/netlink.c).
func checkIPProto(q RouteGetRequest, icmp uint8) error {
	if q.IPProto != 0 || q.HasIPProto {
		switch q.IPProto {
		case syscall.IPPROTO_TCP, syscall.IPPROTO_UDP, icmp:
		default:
			return errno.New(syscall.EOPNOTSUPP, "Unsupported ip proto")
		}
	}
	return nil
}

// getRouteReplyMax is the room in inet_rtm_getroute's reply, an skb of
// NLMSG_GOODSIZE: a page less struct skb_shared_info, 4096 - 320 bytes on
// x86-64. A fibmatch answer with a longer route (more than 233 paths with
// gateways, say) fails with EMSGSIZE.
const getRouteReplyMax = 3776

// Address classes (include/linux/in.h) of an IPv4 address; the invalid
// Addr stands for an unspecified one (0.0.0.0) throughout.
func isLbcast(a netip.Addr) bool { return a == lbcast }

var (
	lbcast       = netip.AddrFrom4([4]byte{255, 255, 255, 255})
	loopbackAddr = netip.AddrFrom4([4]byte{127, 0, 0, 1}) // INADDR_LOOPBACK
)

var (
	errInval       = errno.New(syscall.EINVAL, "")
	errNetUnreach  = errno.New(syscall.ENETUNREACH, "")
	errHostUnreach = errno.New(syscall.EHOSTUNREACH, "")
)

// unspec returns a, or the invalid Addr for 0.0.0.0.
func unspec(a netip.Addr) netip.Addr {
	if a.IsUnspecified() {
		return netip.Addr{}
	}
	return a
}

// routeOutput is ip_route_output_key_hash_rcu followed by __mkroute_output.
//
// The FIB result the route was built from, if any, goes to *match.
func (n *Net) routeOutput(t *sim.Task, tb *netdev.Table, q RouteGetRequest, match *fib.Result) (RouteResult, error) {
	dst, src := unspec(q.Dst), unspec(q.Src)
	fl := fib.Flow{TOS: q.TOS, Mark: q.Mark, UID: q.UID, IIF: netdev.LoopbackIfIndex,
		Proto: q.IPProto, Sport: q.Sport, Dport: q.Dport}
	var out *netdev.Device
	if q.hasOIF() {
		d, err := tb.Find(q.OIFIndex, q.OIF)
		if err != nil {
			return RouteResult{}, err
		}
		out = d
		fl.OIF = d.Index()
	}
	o := output{typ: fib.TypeUnspec}
	if src.IsValid() {
		if src.IsMulticast() || isLbcast(src) {
			return RouteResult{}, errInval
		}
		if out == nil && (dst.IsMulticast() || isLbcast(dst)) {
			// The source's device sends it (__ip_dev_find).
			if out = n.ipDevFind(t, tb, src); out == nil {
				return RouteResult{}, errNetUnreach
			}
			return makeRoute(tb, dst, src, out, o)
		}
		if n.ipDevFind(t, tb, src) == nil {
			return RouteResult{}, errNetUnreach
		}
	}
	if out != nil {
		if !out.IsUp() {
			return RouteResult{}, errNetUnreach
		}
		// 224.0.0.0/24 and 255.255.255.255 leave by the device as they are.
		if dst.IsLinkLocalMulticast() || isLbcast(dst) {
			if !src.IsValid() {
				src = inetSelectAddr(tb, out, netip.Addr{}, fib.ScopeLink)
			}
			return makeRoute(tb, dst, src, out, o)
		}
		if !src.IsValid() {
			if dst.IsMulticast() {
				src = inetSelectAddr(tb, out, netip.Addr{}, fl.Scope)
			} else if !dst.IsValid() {
				src = inetSelectAddr(tb, out, netip.Addr{}, fib.ScopeHost)
			}
		}
	}
	if !dst.IsValid() {
		// A packet to 0.0.0.0 goes to the source, or to 127.0.0.1.
		dst = src
		if !dst.IsValid() {
			dst, src = loopbackAddr, loopbackAddr
		}
		o.typ, o.flags = fib.TypeLocal, RouteLocal
		return makeRoute(tb, dst, src, tb.Loopback(), o)
	}
	fl.Dst, fl.Src = dst, src
	res, err := n.fib.Lookup(t, fl)
	if err != nil {
		if out != nil {
			// "Apparently, routing tables are wrong": the destination is
			// taken to be on the output device's link.
			if !src.IsValid() {
				src = inetSelectAddr(tb, out, netip.Addr{}, fib.ScopeLink)
			}
			o.typ = fib.TypeUnicast
			return makeRoute(tb, dst, src, out, o)
		}
		return RouteResult{}, err
	}
	o.res, o.found, o.typ = res, true, res.Type
	*match = res
	if res.Type == fib.TypeLocal {
		if !src.IsValid() {
			if src = res.PrefSrc; !src.IsValid() {
				src = dst
			}
		}
		o.flags = RouteLocal
		return makeRoute(tb, dst, src, tb.Loopback(), o)
	}
	// fib_select_path: without an output device, a multipath route's path
	// for the flow's hash, then the route's preferred source
	// (fib_result_prefsrc).
	r := &o.res
	if fl.OIF == 0 && r.NumPaths() > 1 {
		r.SelectMultipath(fib.MultipathHash(n.mpSeed, src, dst), src, func(d *netdev.Device, gw netip.Addr, scope fib.Scope) netip.Addr {
			return inetSelectAddr(tb, d, gw, scope)
		})
	}
	if !src.IsValid() {
		if src = r.PrefSrc; !src.IsValid() && r.Dev != nil {
			src = inetSelectAddr(tb, r.Dev, r.Gateway, r.Scope)
		}
	}
	return makeRoute(tb, dst, src, r.Dev, o)
}

// output is what ip_route_output_key_hash_rcu hands __mkroute_output: the
// FIB result (if the lookup found one), the route type and flags so far.
type output struct {
	res   fib.Result
	found bool
	typ   fib.Type
	flags RouteFlags
}

// makeRoute is __mkroute_output and rt_set_nexthop: the route's type,
// flags and gateway.
func makeRoute(tb *netdev.Table, dst, src netip.Addr, out *netdev.Device, o output) (RouteResult, error) {
	if out == nil {
		return RouteResult{}, errInval
	}
	lo := out == tb.Loopback()
	if src.IsLoopback() && !lo {
		return RouteResult{}, errInval
	}
	typ, useFib := o.typ, o.found
	switch {
	case isLbcast(dst):
		typ = fib.TypeBroadcast
	case dst.IsMulticast():
		typ = fib.TypeMulticast
	}
	flags := o.flags
	if lo {
		flags |= RouteLocal
	}
	switch typ {
	case fib.TypeBroadcast:
		flags |= RouteBroadcast | RouteLocal
		useFib = false
	case fib.TypeMulticast:
		flags |= RouteMulticast
		if joined(out, dst) { // ip_check_mc_rcu
			flags |= RouteLocal
		} else {
			flags &^= RouteLocal
		}
		// A multicast packet that matched only a route shorter than
		// 224.0.0.0/4 (a default route) does not use its gateway.
		if useFib && o.res.Prefix.Bits() < 4 {
			useFib = false
		}
	case fib.TypeUnspec:
		typ = fib.TypeUnicast
	}
	rr := RouteResult{Type: typ, Dev: out.Name(), DevIndex: out.Index(), Flags: flags, Src: src}
	if o.found {
		rr.Table = o.res.Table
		rr.Prefix, rr.PrefSrc, rr.NexthopID, rr.TOS = o.res.Prefix, o.res.PrefSrc, o.res.NexthopID, o.res.TOS
	}
	if useFib && o.res.Gateway.IsValid() && o.res.NHScope == fib.ScopeLink {
		rr.Gateway = o.res.Gateway
	}
	if useFib && o.found {
		// rt_set_nexthop: the route takes its fib_info's metrics.
		rr.Metrics = o.res.Metrics()
	}
	return rr, nil
}

// joined reports whether d is a member of IPv4 group g (ip_check_mc_rcu).
func joined(d *netdev.Device, g netip.Addr) bool {
	for _, m := range d.Inet4GroupList() {
		if m.Addr == g {
			return true
		}
	}
	return false
}

// addrDevice is inet_lookup_ifaddr_rcu: the device that has local
// address a, or nil.
func addrDevice(tb *netdev.Table, a netip.Addr) *netdev.Device {
	for _, d := range tb.Devices() {
		for _, ifa := range d.Inet4Addrs() {
			if ifa.Prefix.Addr() == a {
				return d
			}
		}
	}
	return nil
}

// ipDevFind is __ip_dev_find: the device with local address a, or the
// device of the local route a falls in (127.0.0.0/8 on lo).
func (n *Net) ipDevFind(t *sim.Task, tb *netdev.Table, a netip.Addr) *netdev.Device {
	if d := addrDevice(tb, a); d != nil {
		return d
	}
	local := n.fib.Table(fib.TableLocal)
	if local == nil {
		return nil
	}
	res, err := local.Lookup(t, fib.Flow{Dst: a})
	if err != nil || res.Type != fib.TypeLocal {
		return nil
	}
	return res.Dev
}

// inetSelectAddr is inet_select_addr: the first primary address of d no
// narrower than scope, preferring one in dst's subnet; failing that, the
// first primary address of that scope that is not link-scoped on any
// device, in device order (the loopback device first). The invalid Addr
// when there is none, or for dst when any subnet will do.
func inetSelectAddr(tb *netdev.Table, d *netdev.Device, dst netip.Addr, scope fib.Scope) netip.Addr {
	var addr netip.Addr
	for _, ifa := range d.Inet4Addrs() {
		if ifa.Flags&netdev.AddrSecondary != 0 || ifa.Scope > scope {
			continue
		}
		if !dst.IsValid() || ifa.Prefix.Masked().Contains(dst) {
			return ifa.Prefix.Addr()
		}
		if !addr.IsValid() {
			addr = ifa.Prefix.Addr()
		}
	}
	if addr.IsValid() {
		return addr
	}
	for _, d := range tb.Devices() {
		for _, ifa := range d.Inet4Addrs() {
			if ifa.Flags&netdev.AddrSecondary == 0 && ifa.Scope != fib.ScopeLink && ifa.Scope <= scope {
				return ifa.Prefix.Addr()
			}
		}
	}
	return netip.Addr{}
}

// routeInput is ip_route_input_rcu: the route of a packet that came in by
// the device q names. Any martian is EINVAL, as inet_rtm_getroute reports
// every drop reason.
//
// The FIB result the route was built from, if any, goes to *match.
func (n *Net) routeInput(t *sim.Task, tb *netdev.Table, q RouteGetRequest, match *fib.Result) (RouteResult, error) {
	dev, err := tb.Find(q.IIFIndex, q.IIF)
	if err != nil {
		return RouteResult{}, err
	}
	dst, src := unspec(q.Dst), unspec(q.Src)
	rr := RouteResult{Dev: tb.Loopback().Name(), DevIndex: tb.Loopback().Index(), IIF: dev.Name(), IIFIndex: dev.Index(), Src: src}
	if dst.IsMulticast() {
		// ip_route_input_mc, for a group the device joined only.
		if !joined(dev, dst) || src.IsMulticast() || isLbcast(src) || src.IsLoopback() {
			return RouteResult{}, errInval
		}
		if !src.IsValid() {
			// From 0.0.0.0 only to a link-local group, or IGMP (which
			// route get cannot ask for).
			if !dst.IsLinkLocalMulticast() {
				return RouteResult{}, errInval
			}
		} else if _, err := n.validateSource(t, tb, q, src, netip.Addr{}, 0, dev); err != nil {
			return RouteResult{}, err
		}
		rr.Type, rr.Flags = fib.TypeMulticast, RouteMulticast|RouteLocal
		return rr, nil
	}
	if src.IsMulticast() || isLbcast(src) {
		return RouteResult{}, errInval
	}
	if isLbcast(dst) || !src.IsValid() && !dst.IsValid() {
		return n.broadcastInput(t, tb, q, src, dev, rr)
	}
	if !src.IsValid() || !dst.IsValid() || dst.IsLoopback() || src.IsLoopback() {
		return RouteResult{}, errInval
	}
	fl := fib.Flow{Dst: dst, Src: src, TOS: q.TOS, IIF: dev.Index(), Mark: q.Mark,
		Proto: q.IPProto, Sport: q.Sport, Dport: q.Dport}
	res, err := n.fib.Lookup(t, fl)
	if err != nil {
		if !dev.IPv4Forwarding() {
			return RouteResult{}, errHostUnreach
		}
		return RouteResult{}, err
	}
	rr.Table, rr.Prefix, rr.PrefSrc, rr.NexthopID, rr.TOS = res.Table, res.Prefix, res.PrefSrc, res.NexthopID, res.TOS
	*match = res
	switch {
	case res.Type == fib.TypeBroadcast:
		return n.broadcastInput(t, tb, q, src, dev, rr)
	case res.Type == fib.TypeLocal:
		if _, err := n.validateSource(t, tb, q, src, dst, 0, dev); err != nil {
			return RouteResult{}, err
		}
		rr.Type, rr.Flags = fib.TypeLocal, RouteLocal
		return rr, nil
	case !dev.IPv4Forwarding():
		return RouteResult{}, errHostUnreach
	case res.Type != fib.TypeUnicast || res.Dev == nil:
		return RouteResult{}, errInval
	}
	// ip_mkroute_input: a multipath route's path for the packet's hash;
	// then __mkroute_input: forwarded by the path's device.
	if res.NumPaths() > 1 {
		res.SelectMultipath(fib.MultipathHash(n.mpSeed, src, dst), netip.Addr{}, nil)
	}
	direct, err := n.validateSource(t, tb, q, src, dst, res.Dev.Index(), dev)
	if err != nil {
		return RouteResult{}, err
	}
	rr.Type, rr.Dev, rr.DevIndex = fib.TypeUnicast, res.Dev.Name(), res.Dev.Index()
	if res.Dev == dev && direct {
		// send_redirects and shared_media are on by default.
		rr.Flags |= RouteRedirect
	}
	if res.Gateway.IsValid() && res.NHScope == fib.ScopeLink {
		rr.Gateway = res.Gateway
	}
	rr.Metrics = res.Metrics() // rt_set_nexthop, for forwarded packets only
	return rr, nil
}

// broadcastInput is ip_route_input_slow's brd_input: a broadcast is
// delivered locally once its source passes.
func (n *Net) broadcastInput(t *sim.Task, tb *netdev.Table, q RouteGetRequest, src netip.Addr, dev *netdev.Device, rr RouteResult) (RouteResult, error) {
	if src.IsValid() {
		if _, err := n.validateSource(t, tb, q, src, netip.Addr{}, 0, dev); err != nil {
			return RouteResult{}, err
		}
	}
	rr.Type, rr.Flags = fib.TypeBroadcast, RouteBroadcast|RouteLocal
	return rr, nil
}

// validateSource is fib_validate_source with rp_filter and accept_local
// off: without custom rules or local routes, a source must not be one of
// this host's addresses; otherwise the reverse route (to the source, from
// the destination) must be unicast. It reports whether the source is on
// the link of dev (a direct route through dev, nhc_scope host). oif is the
// output device for a forwarded packet, 0 otherwise; a packet forwarded
// back out of dev always gets the full check (send_redirects is on).
//
// Kernel: fib_validate_source, __fib_validate_source
// (net/ipv4/fib_frontend.c).
func (n *Net) validateSource(t *sim.Task, tb *netdev.Table, q RouteGetRequest, src, dst netip.Addr, oif netdev.IfIndex, dev *netdev.Device) (bool, error) {
	if dev.Index() != oif && !n.fib.HasCustomLocalRoutes() && !n.fib.Unmerged() {
		if addrDevice(tb, src) != nil {
			return false, errInval
		}
		return false, nil
	}
	iif := oif
	if iif == 0 {
		iif = netdev.LoopbackIfIndex
	}
	// The reverse flow; ports swapped (they matter only to rules on them).
	fl := fib.Flow{Dst: src, Src: dst, TOS: q.TOS, IIF: iif, Proto: q.IPProto, Sport: q.Dport, Dport: q.Sport}
	res, err := n.fib.Lookup(t, fl)
	if err != nil {
		return false, nil // last_resort: no reverse route is fine without rp_filter
	}
	if res.Type != fib.TypeUnicast {
		return false, errInval
	}
	if res.Dev == dev {
		return res.NHScope >= fib.ScopeHost, nil
	}
	if len(dev.Inet4Addrs()) == 0 {
		return false, nil
	}
	fl.OIF = dev.Index()
	if res, err := n.fib.Lookup(t, fl); err == nil && res.Type == fib.TypeUnicast {
		return res.NHScope >= fib.ScopeHost, nil
	}
	return false, nil
}
