// Routes as rtnetlink carries them (struct rtmsg and its RTA_* attributes,
// include/uapi/linux/rtnetlink.h).

package fib

import (
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
)

// Well-known table ids (enum rt_class_t).
const (
	TableUnspec  = rt.TableUnspec  // RT_TABLE_UNSPEC: means main in requests
	TableDefault = rt.TableDefault // RT_TABLE_DEFAULT
	TableMain    = rt.TableMain    // RT_TABLE_MAIN
	TableLocal   = rt.TableLocal   // RT_TABLE_LOCAL
)

// Type is a route type (RTN_*). The zero Type is TypeUnspec, which a route
// request treats as TypeUnicast (see Route).
type Type = rt.Type

// The route types.
const (
	TypeUnspec      = rt.TypeUnspec
	TypeUnicast     = rt.TypeUnicast
	TypeLocal       = rt.TypeLocal
	TypeBroadcast   = rt.TypeBroadcast
	TypeAnycast     = rt.TypeAnycast
	TypeMulticast   = rt.TypeMulticast
	TypeBlackhole   = rt.TypeBlackhole
	TypeUnreachable = rt.TypeUnreachable
	TypeProhibit    = rt.TypeProhibit
	TypeThrow       = rt.TypeThrow
	TypeNAT         = rt.TypeNAT
	TypeXResolve    = rt.TypeXResolve
	typeMax         = rt.TypeMax
)

// Scope is a route scope (enum rt_scope_t), the same type addresses use.
// The zero Scope is ScopeUniverse.
type Scope = rt.Scope

// The route scopes.
const (
	ScopeUniverse = rt.ScopeUniverse // RT_SCOPE_UNIVERSE, "global"
	ScopeSite     = rt.ScopeSite     // RT_SCOPE_SITE
	ScopeLink     = rt.ScopeLink     // RT_SCOPE_LINK
	ScopeHost     = rt.ScopeHost     // RT_SCOPE_HOST
	ScopeNowhere  = rt.ScopeNowhere  // RT_SCOPE_NOWHERE
)

// Protocol is the route's origin (RTPROT_*). The zero Protocol is
// ProtoUnspec; `ip route add` sends ProtoBoot.
type Protocol = rt.Protocol

// The protocols the kernel and ip set.
const (
	ProtoUnspec   = rt.ProtoUnspec
	ProtoRedirect = rt.ProtoRedirect
	ProtoKernel   = rt.ProtoKernel
	ProtoBoot     = rt.ProtoBoot
	ProtoStatic   = rt.ProtoStatic
	ProtoDHCP     = rt.ProtoDHCP
)

// NHFlags are nexthop flags (RTNH_F_*), in routes' rtm_flags and per path.
type NHFlags = rt.NHFlags

// The nexthop flags.
const (
	FlagDead      = rt.FlagDead
	FlagPervasive = rt.FlagPervasive
	FlagOnLink    = rt.FlagOnLink
	FlagOffload   = rt.FlagOffload
	FlagLinkDown  = rt.FlagLinkDown
	FlagTrap      = rt.FlagTrap

	compareMask = rt.CompareMask
)

// Path is one path of a multipath route (struct rtnexthop). The zero
// Path has no gateway and no device.
type Path struct {
	Gateway netip.Addr     // RTA_GATEWAY inside the rtnexthop; IPv4
	Dev     *netdev.Device // rtnh_ifindex
	Weight  int            // rtnh_hops+1: 1..256; 0 means 1
	OnLink  bool           // RTNH_F_ONLINK in rtnh_flags
	Flags   NHFlags        // in dumps: the path's flags (dead, linkdown, onlink)
}

// Route is an IPv4 route: the request of `ip route add/del/replace/...`
// (RTM_NEWROUTE / RTM_DELROUTE) and an entry of a dump. The zero Route is
// not a valid request: Dst must be an IPv4 prefix.
//
// In requests, zero fields take the kernel's and iproute2's defaults: Table
// 0 is main, Type 0 is unicast. For Del, zero fields are wildcards (type,
// scope, protocol, prefsrc, priority, gateway, device, nexthop id), as an
// `ip route del` that names only the prefix leaves them unset; TOS always
// matches exactly.
//
// A dumped route that uses a nexthop object carries the object's gateway and
// device (the kernel's nexthop compatibility mode); a request must not send
// them back with the NexthopID, or it is refused, as by the kernel.
type Route struct {
	Table     uint32         // RTA_TABLE; 0 means main (254)
	Dst       netip.Prefix   // RTA_DST and rtm_dst_len; must be masked
	Type      Type           // rtm_type; 0 means unicast
	Scope     Scope          // rtm_scope
	Protocol  Protocol       // rtm_protocol
	Priority  uint32         // RTA_PRIORITY ("metric")
	TOS       uint8          // rtm_tos (DSCP; the two ECN bits must be 0)
	Gateway   netip.Addr     // RTA_GATEWAY
	Dev       *netdev.Device // RTA_OIF
	OnLink    bool           // RTNH_F_ONLINK in rtm_flags
	NexthopID nexthop.ID     // RTA_NH_ID: use a nexthop object
	Multipath []Path         // RTA_MULTIPATH
	PrefSrc   netip.Addr     // RTA_PREFSRC ("src")
	Metrics   Metrics        // RTA_METRICS ("mtu", "advmss", ...): part of the fib_info

	// Flags is set in dumps: the route's rtm_flags (dead, linkdown, onlink).
	Flags NHFlags
}
