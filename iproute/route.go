// `ip route`: iproute2's ip/iproute.c, the object, its usage and what its
// commands share. The commands are in route_modify.go (iproute_modify),
// route_show.go (iproute_list_flush_or_save), route_get.go (iproute_get);
// print_route is in route_print.go.

package iproute

import (
	"net/netip"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/rt"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
)

const routeUsage = `Usage: ip route { list | flush } SELECTOR
       ip route save SELECTOR
       ip route restore
       ip route showdump
       ip route get [ ROUTE_GET_FLAGS ] ADDRESS
                            [ from ADDRESS iif STRING ]
                            [ oif STRING ] [ tos TOS ]
                            [ mark NUMBER ] [ vrf NAME ]
                            [ uid NUMBER ] [ ipproto PROTOCOL ]
                            [ sport NUMBER ] [ dport NUMBER ]
       ip route { add | del | change | append | replace } ROUTE
SELECTOR := [ root PREFIX ] [ match PREFIX ] [ exact PREFIX ]
            [ table TABLE_ID ] [ vrf NAME ] [ proto RTPROTO ]
            [ type TYPE ] [ scope SCOPE ]
ROUTE := NODE_SPEC [ INFO_SPEC ]
NODE_SPEC := [ TYPE ] PREFIX [ tos TOS ]
             [ table TABLE_ID ] [ proto RTPROTO ]
             [ scope SCOPE ] [ metric METRIC ]
             [ ttl-propagate { enabled | disabled } ]
INFO_SPEC := { NH | nhid ID } OPTIONS FLAGS [ nexthop NH ]...
NH := [ encap ENCAPTYPE ENCAPHDR ] [ via [ FAMILY ] ADDRESS ]
      [ dev STRING ] [ weight NUMBER ] NHFLAGS
FAMILY := [ inet | inet6 | mpls | bridge | link ]
OPTIONS := FLAGS [ mtu NUMBER ] [ advmss NUMBER ] [ as [ to ] ADDRESS ]
           [ rtt TIME ] [ rttvar TIME ] [ reordering NUMBER ]
           [ window NUMBER ] [ cwnd NUMBER ] [ initcwnd NUMBER ]
           [ ssthresh NUMBER ] [ realms REALM ] [ src ADDRESS ]
           [ rto_min TIME ] [ hoplimit NUMBER ] [ initrwnd NUMBER ]
           [ features FEATURES ] [ quickack BOOL ] [ congctl NAME ]
           [ pref PREF ] [ expires TIME ] [ fastopen_no_cookie BOOL ]
TYPE := { unicast | local | broadcast | multicast | throw |
          unreachable | prohibit | blackhole | nat }
TABLE_ID := [ local | main | default | all | NUMBER ]
SCOPE := [ host | link | global | NUMBER ]
NHFLAGS := [ onlink | pervasive ]
RTPROTO := [ kernel | boot | static | NUMBER ]
PREF := [ low | medium | high ]
TIME := NUMBER[s|ms]
BOOL := [1|0]
FEATURES := ecn
ENCAPTYPE := [ mpls | ip | ip6 | seg6 | seg6local | rpl | ioam6 | xfrm ]
ENCAPHDR := [ MPLSLABEL | SEG6HDR | SEG6LOCAL | IOAM6HDR | XFRMINFO ]
SEG6HDR := [ mode SEGMODE ] segs ADDR1,ADDRi,ADDRn [hmac HMACKEYID] [cleanup]
SEGMODE := [ encap | encap.red | inline | l2encap | l2encap.red ]
SEG6LOCAL := action ACTION [ OPTIONS ] [ count ]
ACTION := { End | End.X | End.T | End.DX2 | End.DX6 | End.DX4 |
            End.DT6 | End.DT4 | End.DT46 | End.B6 | End.B6.Encaps |
            End.BM | End.S | End.AS | End.AM | End.BPF }
OPTIONS := OPTION [ OPTIONS ]
OPTION := { flavors FLAVORS | srh SEG6HDR | nh4 ADDR | nh6 ADDR | iif DEV | oif DEV |
            table TABLEID | vrftable TABLEID | endpoint PROGNAME }
FLAVORS := { FLAVOR[,FLAVOR] }
FLAVOR := { psp | usp | usd | next-csid }
IOAM6HDR := trace prealloc type IOAM6_TRACE_TYPE ns IOAM6_NAMESPACE size IOAM6_TRACE_SIZE
XFRMINFO := if_id IF_ID [ link_dev LINK ]
ROUTE_GET_FLAGS := [ fibmatch ]
`

// noRouteDumps is why netsim refuses ip route save, restore and showdump.
const noRouteDumps = "netsim reads and writes no binary route dumps"

var routeObject = object{
	name:  "route",
	short: "route",
	usage: routeUsage,
	empty: func(ip *IP, h *handle, argv []string) error { return ip.routeList(h, argv, false) },
	commands: []command{
		{names: []string{"add*"}, run: routeModifyCmd(rt.ModeAdd, false), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"change*", "chg"}, run: routeModifyCmd(rt.ModeChange, false), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"replace*"}, run: routeModifyCmd(rt.ModeReplace, false), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"prepend*"}, run: routeModifyCmd(rt.ModePrepend, false), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"append*"}, run: routeModifyCmd(rt.ModeAppend, false), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"test*"}, run: routeModifyCmd(rt.NLMExcl, false), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"delete*"}, run: routeModifyCmd(0, true), keywords: routeModifyNames(), refusedKeywords: keywordRefusals(routeModifyKeywords)},
		{names: []string{"list*", "show*", "lst*"}, run: func(ip *IP, h *handle, argv []string) error { return ip.routeList(h, argv, false) },
			keywords: keywordModelled(routeFilterKeywords), refusedKeywords: keywordRefusals(routeFilterKeywords)},
		{names: []string{"get*"}, run: (*IP).routeGet, keywords: keywordModelled(routeGetKeywords), refusedKeywords: keywordRefusals(routeGetKeywords),
			// rta_cacheinfo's users, used and age count references to and
			// uses of the kernel's cached route, which netsim does not keep.
			unsupported: optStats, unsupportedWhy: "netsim keeps no route cache, whose references and last use -s shows"},
		{names: []string{"flush*"}, run: func(ip *IP, h *handle, argv []string) error { return ip.routeList(h, argv, true) },
			keywords: keywordModelled(routeFilterKeywords), refusedKeywords: keywordRefusals(routeFilterKeywords)},
		{names: []string{"save*"}, refused: noRouteDumps},
		{names: []string{"restore*"}, refused: noRouteDumps},
		{names: []string{"showdump*"}, refused: noRouteDumps},
	},
}

// routeTypeID is iproute2's rtnl_rtntype_a2n.
func routeTypeID(s string) (fib.Type, bool) { return rt.ParseType(s) }

// routeUnmodelled are the keywords of ip route that netsim refuses by
// name, with what netsim does not model.
var routeUnmodelled = map[string]string{
	"as":            "NAT routes (RTA_NEWDST)",
	"realms":        "routing realms",
	"vrf":           "VRF tables by device name",
	"encap":         "route encapsulations",
	"ttl-propagate": "MPLS routes",
	"notify":        "route cache, whose entries notify marks",
	"connected":     "second lookup from the answer's source (route get connected)",
}

// routeRefused is keyword k of routeUnmodelled, which netsim knows but
// does not model: its value, if it takes one, is read first (ip's
// NEXT_ARG), then the command fails with what is not modelled.
func routeRefused[R any](k keyword[R], cmd string, value bool) keyword[R] {
	return refusedNow(k, cmd, "netsim models no "+routeUnmodelled[strings.TrimSuffix(k.names[0], "*")], value)
}

// isTo is the optional keyword before a route's destination.
func isTo(w string) bool { return w == "to" }

// isAnyPrefix reports whether w is one of get_prefix's names of the
// zero-length prefix, which ip sends without an address.
func isAnyPrefix(w string) bool { return w == "default" || w == "any" || w == "all" }

// errnoOf returns the errno an error carries, or 0.
func errnoOf(err error) syscall.Errno { return errno.Of(err) }

// addrFamily is the address family of a.
func addrFamily(a netip.Addr) rt.Family {
	if a.Is6() {
		return rt.FamilyInet6
	}
	return rt.FamilyInet
}
