package nlwire_test

// IPv6 route get with an input device: the answer is rt6_fill_node's for
// the flow, RTA_SRC its source (:: without one) and RTA_IIF the device, no
// RTA_PREFSRC; without RTA_SRC, or with RTA_SRC ::, the same.
// Kernel: inet6_rtm_getroute, ip6_route_input_lookup, rt6_fill_node
// (net/ipv6/route.c).

import (
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	W "github.com/netsimlab/netsim/nlwire/internal/wiretest"
)

func init() {
	get := func(dst string, attrs ...W.Attr) netlink.Message {
		srcLen := uint8(0)
		for _, a := range attrs {
			if a.Type == uapi.RTA_SRC {
				srcLen = 128
			}
		}
		return W.Msg(uapi.RTM_GETROUTE, W.Req, W.RtMsg{Family: uapi.AF_INET6, DstLen: 128, SrcLen: srcLen}.Bytes(),
			append([]W.Attr{W.IP(uapi.RTA_DST, dst)}, attrs...)...)
	}
	iif := W.U32(uapi.RTA_IIF, ifVeth1)
	sequences = append(sequences, W.Seq{
		Name:    "routeget6_input",
		Doc:     "IPv6 route get of an input route: from a source, from none, from ::, to a local address, a forwarded one, a multicast group",
		Options: extAck,
		Steps: steps(
			pairUp6(), v6on,
			rt6(uapi.RTM_NEWROUTE, W.Create, "2001:db8:8::", 48, W.IP(uapi.RTA_GATEWAY, "2001:db8::8"), oif0),
			get("2001:db8::1", W.IP(uapi.RTA_SRC, "2001:db8::2"), iif),
			get("2001:db8::1", iif),
			get("2001:db8::1", W.IP(uapi.RTA_SRC, "::"), iif),
			get("2001:db8:8::1", W.IP(uapi.RTA_SRC, "2001:db8::2"), iif),
			get("ff02::1", W.IP(uapi.RTA_SRC, "fe80::2"), iif),
			note("the same without an input device", get("2001:db8:8::1", W.IP(uapi.RTA_SRC, "2001:db8::2"))),
			get("2001:db8:8::1"),
			note("under strict checking", option(netlink.GetStrictCheck, true)),
			get("2001:db8:8::1", W.IP(uapi.RTA_SRC, "2001:db8::2"), iif),
			get("2001:db8:8::1", iif),
		),
	})
}
