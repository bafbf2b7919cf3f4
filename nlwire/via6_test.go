package nlwire_test

// The kernel-diff sequence of IPv4 routes through an IPv6 gateway: the
// request's RTA_VIA (struct rtvia with AF_INET6) is resolved in the IPv6
// FIB (fib_check_nh_v6_gw → fib6_nh_init), and dumps, notifications and
// route get carry the gateway back as RTA_VIA (fib_nexthop_info,
// rt_fill_info). Its transcript is testdata/route4_via6.transcript.

import (
	"encoding/binary"
	"net/netip"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	W "github.com/netsimlab/netsim/nlwire/internal/wiretest"
)

// via6 is an RTA_VIA of an IPv6 gateway: rtvia_family, then the address.
func via6(a string) W.Attr {
	return W.Attr{Type: uapi.RTA_VIA, Data: append(binary.LittleEndian.AppendUint16(nil, uapi.AF_INET6), netip.MustParseAddr(a).AsSlice()...)}
}

func init() {
	sequences = append(sequences, W.Seq{
		Name:    "route4_via6",
		Doc:     "IPv4 routes through an IPv6 gateway (RTA_VIA, AF_INET6): resolved in the IPv6 FIB, dumped, multipath, route get, errors",
		Options: extAck,
		Groups:  []uint32{rtgrp4},
		Steps: steps(
			pairUp6(),
			note("no IPv6 route to the gateway: EHOSTUNREACH", rt4(uapi.RTM_NEWROUTE, W.Create, "192.0.2.0", 24, via6("2001:db8::2"), oif0)),
			v6on,
			rt4(uapi.RTM_NEWROUTE, W.Create, "192.0.2.0", 24, via6("2001:db8::2"), oif0),
			note("no RTA_OIF: the device comes from the IPv6 route", rt4(uapi.RTM_NEWROUTE, W.Create, "198.51.100.0", 24, via6("2001:db8::3"))),
			note("a link-local gateway without a device", rt4(uapi.RTM_NEWROUTE, W.Create, "203.0.113.0", 24, via6("fe80::1"))),
			note("a local address as the gateway", rt4(uapi.RTM_NEWROUTE, W.Create, "203.0.113.0", 24, via6("2001:db8::1"), oif0)),
			rt4(uapi.RTM_NEWROUTE, W.Create, "203.0.113.0", 24, via6("fe80::1"), oif0),
			note("multipath", rt4(uapi.RTM_NEWROUTE, W.Create, "192.0.3.0", 24, W.Multipath(
				W.Path{Ifindex: ifVeth0, Attrs: []W.Attr{via6("fe80::1")}},
				W.Path{Ifindex: ifVeth0, Hops: 1, Attrs: []W.Attr{via6("2001:db8::3")}}))),
			routeDump(uapi.AF_INET),
			routeGet(uapi.AF_INET, "192.0.2.5", 32, 0),
			rtDel(uapi.AF_INET, "192.0.2.0", 24),
			rtDel(uapi.AF_INET, "192.0.3.0", 24),
		),
	})
}
