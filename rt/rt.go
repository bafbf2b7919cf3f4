// Address families (AF_*), table ids (RT_TABLE_*), route types (RTN_*),
// scopes (RT_SCOPE_*), protocols (RTPROT_*), nexthop flags (RTNH_F_*) and
// router preferences (ICMPV6_ROUTER_PREF_*), with their names as iproute2
// reads and prints them (include/uapi/linux/rtnetlink.h, lib/rt_names.c).

// Package rt is the rtnetlink vocabulary that netsim's model and its front
// ends share: address families, route types, scopes, protocols, table ids,
// nexthop and route flags and route metrics, as include/uapi/linux/
// rtnetlink.h numbers them, each with its one table of the names iproute2
// reads and prints (lib/rt_names.c, ip/iproute.c's mx_names and flag names,
// and the rt_protos, rt_scopes and rt_tables files iproute2 6.1 ships).
//
// A model package keeps its own semantics and uses these types for the
// values a request or a dump carries; a front end parses and prints them
// with the functions here, and so no name table exists twice.
package rt

import (
	"strconv"
	"strings"
	"syscall"
)

// Family is an address family (AF_*), as a request's and a dump's
// rtm_family, ifa_family, nh_family and frh_family carry it: the kernel's
// numbers, so a message's byte is its Family.
type Family uint8

// The address families netsim models or names.
const (
	FamilyUnspec Family = syscall.AF_UNSPEC // AF_UNSPEC: every family (a dump of both)
	FamilyInet   Family = syscall.AF_INET   // AF_INET
	FamilyBridge Family = 7                 // AF_BRIDGE (Linux's number on every platform)
	FamilyInet6  Family = syscall.AF_INET6  // AF_INET6
	FamilyPacket Family = 17                // AF_PACKET
	FamilyMPLS   Family = 28                // AF_MPLS
)

// FamilyName is iproute2's family_name: "inet", "inet6", "link",
// "bridge", "mpls", or "???".
func FamilyName(f Family) string {
	switch f {
	case FamilyInet:
		return "inet"
	case FamilyInet6:
		return "inet6"
	case FamilyPacket:
		return "link"
	case FamilyBridge:
		return "bridge"
	case FamilyMPLS:
		return "mpls"
	}
	return "???"
}

// String is the family's iproute2 name (FamilyName).
func (f Family) String() string { return FamilyName(f) }

// Well-known table ids (enum rt_class_t).
const (
	TableUnspec  uint32 = 0   // RT_TABLE_UNSPEC: means main in requests
	TableCompat  uint32 = 252 // RT_TABLE_COMPAT
	TableDefault uint32 = 253 // RT_TABLE_DEFAULT
	TableMain    uint32 = 254 // RT_TABLE_MAIN
	TableLocal   uint32 = 255 // RT_TABLE_LOCAL
)

// TableName is rtnl_rttable_n2a: "default", "main", "local", "unspec",
// or the number.
func TableName(id uint32) string {
	switch id {
	case TableUnspec:
		return "unspec"
	case TableDefault:
		return "default"
	case TableMain:
		return "main"
	case TableLocal:
		return "local"
	}
	return strconv.FormatUint(uint64(id), 10)
}

// ParseTable is rtnl_rttable_a2n: a table's name or number (ip's
// get_unsigned: decimal, 0x hex or 0 octal).
func ParseTable(s string) (uint32, bool) {
	switch s {
	case "default":
		return TableDefault, true
	case "main":
		return TableMain, true
	case "local":
		return TableLocal, true
	case "unspec":
		return TableUnspec, true
	}
	v, ok := ParseUnsigned(s, 32)
	return uint32(v), ok
}

// Type is a route type (RTN_*). The zero Type is TypeUnspec.
type Type uint8

const (
	TypeUnspec      Type = 0  // RTN_UNSPEC
	TypeUnicast     Type = 1  // RTN_UNICAST: a gateway or direct route
	TypeLocal       Type = 2  // RTN_LOCAL: accept locally
	TypeBroadcast   Type = 3  // RTN_BROADCAST: accept locally as broadcast, send as broadcast
	TypeAnycast     Type = 4  // RTN_ANYCAST
	TypeMulticast   Type = 5  // RTN_MULTICAST
	TypeBlackhole   Type = 6  // RTN_BLACKHOLE: drop (lookup fails with EINVAL)
	TypeUnreachable Type = 7  // RTN_UNREACHABLE: lookup fails with EHOSTUNREACH
	TypeProhibit    Type = 8  // RTN_PROHIBIT: lookup fails with EACCES
	TypeThrow       Type = 9  // RTN_THROW: continue with the next rule (EAGAIN)
	TypeNAT         Type = 10 // RTN_NAT
	TypeXResolve    Type = 11 // RTN_XRESOLVE
	TypeMax              = TypeXResolve
)

var typeNames = [...]string{"unspec", "unicast", "local", "broadcast", "anycast", "multicast",
	"blackhole", "unreachable", "prohibit", "throw", "nat", "xresolve"}

// String is rtnl_rtntype_n2a: "unicast", "local", "blackhole", ..., or the
// number.
func (ty Type) String() string {
	if int(ty) < len(typeNames) {
		return typeNames[ty]
	}
	return strconv.Itoa(int(ty))
}

// ParseType is rtnl_rtntype_a2n: a type's name, some of which may be
// abbreviated ("bl" is blackhole, "brd" broadcast), or number.
func ParseType(s string) (Type, bool) {
	switch {
	case s == "local":
		return TypeLocal, true
	case s == "nat":
		return TypeNAT, true
	case prefix(s, "broadcast") || s == "brd":
		return TypeBroadcast, true
	case prefix(s, "anycast"):
		return TypeAnycast, true
	case prefix(s, "multicast"):
		return TypeMulticast, true
	case prefix(s, "prohibit"):
		return TypeProhibit, true
	case prefix(s, "unreachable"):
		return TypeUnreachable, true
	case prefix(s, "blackhole"):
		return TypeBlackhole, true
	case prefix(s, "xresolve"):
		return TypeXResolve, true
	case prefix(s, "unicast"):
		return TypeUnicast, true
	case s == "throw":
		return TypeThrow, true
	}
	v, ok := ParseUnsigned(s, 8)
	return Type(v), ok
}

// prefix is iproute2's matches(): word is a non-empty prefix of keyword.
func prefix(word, keyword string) bool {
	return word != "" && strings.HasPrefix(keyword, word)
}

// Scope is a route or address scope (enum rt_scope_t). The zero Scope is
// ScopeUniverse.
type Scope uint8

const (
	ScopeUniverse Scope = 0   // RT_SCOPE_UNIVERSE, "global"
	ScopeSite     Scope = 200 // RT_SCOPE_SITE
	ScopeLink     Scope = 253 // RT_SCOPE_LINK
	ScopeHost     Scope = 254 // RT_SCOPE_HOST
	ScopeNowhere  Scope = 255 // RT_SCOPE_NOWHERE (routes only)
)

var scopeNames = []struct {
	s    Scope
	name string
}{{ScopeUniverse, "global"}, {ScopeNowhere, "nowhere"}, {ScopeHost, "host"}, {ScopeLink, "link"}, {ScopeSite, "site"}}

// String is rtnl_rtscope_n2a: "global", "site", "link", "host",
// "nowhere", or the number.
func (s Scope) String() string {
	for _, n := range scopeNames {
		if n.s == s {
			return n.name
		}
	}
	return strconv.Itoa(int(s))
}

// ParseScope is rtnl_rtscope_a2n: a scope's name or number.
func ParseScope(s string) (Scope, bool) {
	for _, n := range scopeNames {
		if s == n.name {
			return n.s, true
		}
	}
	v, ok := ParseUnsigned(s, 8)
	return Scope(v), ok
}

// Protocol is a route's, rule's or nexthop's origin (RTPROT_*). The zero
// Protocol is ProtoUnspec.
type Protocol uint8

const (
	ProtoUnspec   Protocol = 0  // RTPROT_UNSPEC
	ProtoRedirect Protocol = 1  // RTPROT_REDIRECT
	ProtoKernel   Protocol = 2  // RTPROT_KERNEL: added by the kernel
	ProtoBoot     Protocol = 3  // RTPROT_BOOT: `ip route` without "proto"
	ProtoStatic   Protocol = 4  // RTPROT_STATIC
	ProtoDHCP     Protocol = 16 // RTPROT_DHCP
)

// protoNames are iproute2 6.1's built-in names and its rt_protos file.
var protoNames = map[Protocol]string{
	0: "unspec", 1: "redirect", 2: "kernel", 3: "boot", 4: "static", 8: "gated", 9: "ra",
	10: "mrt", 11: "zebra", 12: "bird", 13: "dnrouted", 14: "xorp", 15: "ntk", 16: "dhcp",
	17: "mrouted", 18: "keepalived", 42: "babel", 99: "openr", 186: "bgp", 187: "isis",
	188: "ospf", 189: "rip", 192: "eigrp",
}

// String is rtnl_rtprot_n2a: "kernel", "boot", "static", ..., or the number.
func (p Protocol) String() string {
	if n, ok := protoNames[p]; ok {
		return n
	}
	return strconv.Itoa(int(p))
}

// ParseProtocol is rtnl_rtprot_a2n: a protocol's name or number.
func ParseProtocol(s string) (Protocol, bool) {
	for p, n := range protoNames {
		if s == n {
			return p, true
		}
	}
	v, ok := ParseUnsigned(s, 8)
	return Protocol(v), ok
}

// NHFlags are nexthop flags (RTNH_F_*), in routes' rtm_flags and per path.
type NHFlags uint32

const (
	FlagDead       NHFlags = 1  // RTNH_F_DEAD: the nexthop (or the whole route) is dead
	FlagPervasive  NHFlags = 2  // RTNH_F_PERVASIVE
	FlagOnLink     NHFlags = 4  // RTNH_F_ONLINK: the gateway is on the link
	FlagOffload    NHFlags = 8  // RTNH_F_OFFLOAD
	FlagLinkDown   NHFlags = 16 // RTNH_F_LINKDOWN: the device has no carrier
	FlagUnresolved NHFlags = 32 // RTNH_F_UNRESOLVED
	FlagTrap       NHFlags = 64 // RTNH_F_TRAP

	// CompareMask are the flags fib_info identity ignores (RTNH_COMPARE_MASK).
	CompareMask = FlagDead | FlagLinkDown | FlagOffload | FlagTrap
)

// Names lists the flags as iproute2's print_rt_flags names them, in its
// order (RouteFlagNames).
func (f NHFlags) Names() []string { return RouteFlagNames(uint32(f)) }

// String lists the flags space-separated ("dead onlink linkdown").
func (f NHFlags) String() string { return strings.Join(f.Names(), " ") }

// ParseUnsigned is iproute2's get_unsigned for a width: strtoul with base
// 0 (decimal, 0x hex, 0 octal), the whole word, at most bits wide.
func ParseUnsigned(s string, bits int) (uint64, bool) {
	if s == "" || s[0] == '-' || s[0] == '+' || s[0] == ' ' {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 0, bits)
	if err != nil {
		// strconv's base 0 accepts "0b" and "0o" and underscores; strtoul
		// does not, and neither does this.
		return 0, false
	}
	if len(s) > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B' || s[1] == 'o' || s[1] == 'O') || strings.Contains(s, "_") {
		return 0, false
	}
	return v, true
}

// Pref is an IPv6 route's router preference (RTA_PREF,
// ICMPV6_ROUTER_PREF_*). The zero Pref is medium.
type Pref uint8

// The router preferences.
const (
	PrefMedium  Pref = 0x0
	PrefHigh    Pref = 0x1
	PrefInvalid Pref = 0x2
	PrefLow     Pref = 0x3
)

// String returns ip's name for p: "low", "medium", "high", or its number.
//
// iproute2: the RTA_PREF case of print_route (ip/iproute.c).
func (p Pref) String() string {
	switch p {
	case PrefLow:
		return "low"
	case PrefMedium:
		return "medium"
	case PrefHigh:
		return "high"
	}
	return strconv.Itoa(int(p))
}
