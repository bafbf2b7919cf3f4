// Policy routing rules as rtnetlink carries them (struct fib_rule_hdr and
// its FRA_* attributes, include/uapi/linux/fib_rules.h) and as the kernel
// keeps them (struct fib_rule, fib4_rule, fib6_rule).

package fibrules

import (
	"net/netip"
	"strconv"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
)

// Action is what a matching rule does (FR_ACT_*). The zero Action is
// ActUnspec, which the kernel accepts and whose lookups fail with EINVAL;
// iproute2 sends ActToTable when no action is named.
type Action uint8

const (
	ActUnspec      Action = 0 // FR_ACT_UNSPEC
	ActToTable     Action = 1 // FR_ACT_TO_TBL: look the flow up in Table
	ActGoto        Action = 2 // FR_ACT_GOTO: jump to the first rule of pref Goto
	ActNop         Action = 3 // FR_ACT_NOP: no operation
	ActBlackhole   Action = 6 // FR_ACT_BLACKHOLE: drop silently (EINVAL)
	ActUnreachable Action = 7 // FR_ACT_UNREACHABLE: ENETUNREACH
	ActProhibit    Action = 8 // FR_ACT_PROHIBIT: EACCES
)

var actionNames = map[Action]string{
	ActUnspec: "unspec", ActToTable: "lookup", ActGoto: "goto", ActNop: "nop",
	ActBlackhole: "blackhole", ActUnreachable: "unreachable", ActProhibit: "prohibit",
}

// String returns the action's name (FR_ACT_* in lower case, "lookup" for
// FR_ACT_TO_TBL) for messages and tests.
func (a Action) String() string {
	if n, ok := actionNames[a]; ok {
		return n
	}
	return "action(" + strconv.Itoa(int(a)) + ")"
}

// Flags are fib_rule_hdr flags (FIB_RULE_*). The zero Flags is none.
type Flags uint32

const (
	FlagPermanent   Flags = 0x01 // FIB_RULE_PERMANENT: the rule cannot be deleted (EPERM)
	FlagInvert      Flags = 0x02 // FIB_RULE_INVERT: "not", the match is negated
	FlagUnresolved  Flags = 0x04 // FIB_RULE_UNRESOLVED: in dumps, a goto whose target does not exist
	FlagIIFDetached Flags = 0x08 // FIB_RULE_IIF_DETACHED: in dumps, iif names no present device
	FlagOIFDetached Flags = 0x10 // FIB_RULE_OIF_DETACHED: in dumps, oif names no present device
)

// Attr says which optional attributes a request carries, where the zero
// value of a field is itself meaningful. The zero Attr carries none: the
// pref is chosen by fib_default_rule_pref, the mark mask follows the mark,
// and suppression and the uid range are unset.
type Attr uint16

const (
	AttrPriority          Attr = 1 << iota // FRA_PRIORITY: Pref was given
	AttrFwMask                             // FRA_FWMASK: FwMask was given (else all ones when FwMark ≠ 0)
	AttrSuppressPrefixLen                  // FRA_SUPPRESS_PREFIXLEN: SuppressPrefixLen was given (else -1)
	AttrSuppressIfGroup                    // FRA_SUPPRESS_IFGROUP: SuppressIfGroup was given (else -1)
	AttrUIDRange                           // FRA_UID_RANGE: UID was given (else unset, 0..2³²-1)
	AttrGoto                               // FRA_GOTO: Goto was given, 0 included (else no target)
	AttrSportRange                         // FRA_SPORT_RANGE: Sport was given, 0-0 included (which is refused)
	AttrDportRange                         // FRA_DPORT_RANGE: Dport was given, 0-0 included (which is refused)
	// AttrIIFName is FRA_IIFNAME: IIF was given, "" included. A rule
	// given the empty name is bound to no device (index -1) for good:
	// it matches no packet, and dumps show neither the name nor
	// FlagIIFDetached.
	AttrIIFName
	AttrOIFName // FRA_OIFNAME: OIF was given, "" included (as AttrIIFName)
)

// PortRange is an inclusive range of ports (struct fib_rule_port_range).
// The zero PortRange is unset and matches every port; given in a request
// (AttrSportRange, AttrDportRange) it is refused as any range starting
// or ending at port 0 is.
type PortRange struct{ Start, End uint16 }

func (p PortRange) set() bool { return p.Start != 0 && p.End != 0 }

// valid is fib_rule_port_range_valid.
func (p PortRange) valid() bool {
	return p.Start != 0 && p.End != 0 && p.End < 0xffff && p.Start <= p.End
}

func (p PortRange) contains(port uint16) bool { return port >= p.Start && port <= p.End }

// UIDRange is an inclusive range of user ids (struct fib_kuid_range). The
// zero UIDRange is 0-0; a rule without AttrUIDRange has 0-4294967295.
type UIDRange struct{ Start, End uint32 }

var uidUnset = UIDRange{0, ^uint32(0)}

// set is uid_range_set: both ends are valid uids (not (uid_t)-1).
func (u UIDRange) set() bool { return u.Start != ^uint32(0) && u.End != ^uint32(0) }

// Rule is a policy routing rule: the request of `ip rule add/del`
// (RTM_NEWRULE / RTM_DELRULE) and an entry of a dump.
//
// The zero Rule is `ip rule add` with nothing but a (default) pref and
// action unspec. In a delete request, zero fields (and absent Attrs) are
// wildcards, as in the kernel's rule_find: Del(Rule{Table: 5}) deletes the
// first rule that looks up table 5.
//
// Kernel: struct fib_rule (include/net/fib_rules.h), struct fib4_rule
// (net/ipv4/fib_rules.c), struct fib6_rule (net/ipv6/fib6_rules.c).
type Rule struct {
	Src, Dst netip.Prefix // FRA_SRC/FRA_DST with src_len/dst_len; a /0 or zero Prefix is "all"
	IIF, OIF string       // FRA_IIFNAME, FRA_OIFNAME (at most 15 bytes)

	// IIFIndex and OIFIndex are set in dumps: the index of the device IIF
	// (OIF) names, -1 while no such device exists (always, for a name
	// given as ""), 0 without a name.
	IIFIndex, OIFIndex netdev.IfIndex

	Pref              uint32    // FRA_PRIORITY (with AttrPriority)
	Table             uint32    // FRA_TABLE / frh.table
	Goto              uint32    // FRA_GOTO: the target pref of ActGoto
	FwMark, FwMask    uint32    // FRA_FWMARK, FRA_FWMASK
	SuppressPrefixLen int32     // FRA_SUPPRESS_PREFIXLEN; -1 in dumps when unset
	SuppressIfGroup   int32     // FRA_SUPPRESS_IFGROUP; -1 in dumps when unset
	UID               UIDRange  // FRA_UID_RANGE
	Sport, Dport      PortRange // FRA_SPORT_RANGE, FRA_DPORT_RANGE
	Flags             Flags     // frh.flags: FlagInvert, FlagPermanent; dumps add the state flags
	Family            rt.Family // frh.family; set in dumps, ignored in requests
	Action            Action    // frh.action
	TOS               uint8     // frh.tos: the DSCP bits of the dsfield; the two ECN bits must be 0
	IPProto           uint8     // FRA_IP_PROTO
	TunID             uint64    // FRA_TUN_ID: only flows of this tunnel id match (0: any)
	Protocol          uint8     // FRA_PROTOCOL: who installed the rule (2 = kernel for the defaults)
	L3MDev            bool      // FRA_L3MDEV: look up the table of the flow's l3mdev (VRF)
	Attrs             Attr      // which optional attributes the request carries
}

// Table ids and protocol values the default rules use (enum rt_class_t,
// RTPROT_KERNEL); they equal fib.TableDefault, fib.TableMain, fib.TableLocal.
const (
	tableDefault uint32 = 253
	tableMain    uint32 = 254
	tableLocal   uint32 = 255
	protoKernel  uint8  = 2
)
