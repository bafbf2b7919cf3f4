// The attribute table of the canonical form: every attribute type the
// transcripts print, how its value prints, and what is left out (numbers
// of include/uapi/linux/rtnetlink.h, if_link.h, if_addr.h, nexthop.h,
// fib_rules.h).

package wiretest

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// A valueKind says how an attribute's payload prints.
type valueKind uint8

const (
	kHex       valueKind = iota // raw bytes in hex (also the fallback)
	kU8                         // unsigned integers in host order
	kU16                        //
	kU32                        //
	kU64                        //
	kS32                        // signed 32-bit
	kBE16                       // big-endian 16-bit (ports)
	kBE32                       // big-endian 32-bit (flow labels)
	kStr                        // a string up to its NUL
	kAddr                       // an IPv4 or IPv6 address, or a hardware address
	kFlag                       // present (NLA_FLAG)
	kNest                       // nested attributes of the sub-table
	kIfaFlags                   // IFA_FLAGS: IFA_F_* names
	kIfaCache                   // struct ifa_cacheinfo
	kRtaCache                   // struct rta_cacheinfo
	kMultipath                  // RTA_MULTIPATH: struct rtnexthop list
	kNhGroup                    // NHA_GROUP: struct nexthop_grp list
	kVia                        // RTA_VIA: struct rtvia
	kRange32                    // FRA_UID_RANGE: two u32
	kRange16                    // FRA_SPORT_RANGE, FRA_DPORT_RANGE: two u16
	kAny                        // present; the value must differ (normalised)
	kOmit                       // left out of the canonical form (see omitted)
)

// An attrSpec names one attribute type and says how its value prints.
type attrSpec struct {
	name string
	kind valueKind
	sub  attrTable // kNest: the nested attributes' table (nil: generic)
}

type attrTable map[uint16]attrSpec

// normalised is the one table of what the canonical form leaves out
// (kOmit) or prints as "*" (kAny, and the time fields of the cache info
// structures), and why. Port ids print as the sockets' names (Run); the
// rest of every message is compared as it is.
var normalised = []struct {
	tb   attrTable
	typ  uint16
	kind valueKind
	why  string
}{
	{linkAttrs, 26, kOmit, "IFLA_AF_SPEC: per-family device configuration is out of nlwire's scope; its IPv6 part holds a randomised reachable time and time stamps"},
	{linkAttrs, 7, kAny, "IFLA_STATS: traffic counters (a real link sends IPv6 router solicitations); nlwire may send zeros"},
	{linkAttrs, 23, kAny, "IFLA_STATS64: as IFLA_STATS"},
	{linkAttrs, 31, kAny, "IFLA_NUM_TX_QUEUES: a veth's is the machine's number of possible CPUs (veth_get_num_queues)"},
	{linkAttrs, 32, kAny, "IFLA_NUM_RX_QUEUES: as IFLA_NUM_TX_QUEUES"},
	{addrAttrs, 6, kIfaCache, "IFA_CACHEINFO: cstamp and tstamp are jiffies since boot"},
	{routeAttrs, 12, kRtaCache, "RTA_CACHEINFO: all but rta_error are use counts and times"},
	{routeAttrs, 23, kAny, "RTA_EXPIRES: seconds left, which the wall clock decides"},
	{neighAttrs, 3, kAny, "NDA_CACHEINFO: the ages of a neighbour, in clock ticks"},
	{nsidAttrs, 2, kAny, "NETNSA_PID: a process in the namespace, whose id differs between the sides"},
}

func init() {
	for _, n := range normalised {
		s := n.tb[n.typ]
		s.kind = n.kind
		n.tb[n.typ] = s
	}
}

var linkAttrs = attrTable{
	1: {"ADDRESS", kAddr, nil}, 2: {"BROADCAST", kAddr, nil}, 3: {"IFNAME", kStr, nil},
	4: {"MTU", kU32, nil}, 5: {"LINK", kU32, nil}, 6: {"QDISC", kStr, nil}, 7: {"STATS", kAny, nil},
	8: {"COST", kHex, nil}, 9: {"PRIORITY", kHex, nil}, 10: {"MASTER", kU32, nil}, 11: {"WIRELESS", kHex, nil},
	12: {"PROTINFO", kNest, nil}, 13: {"TXQLEN", kU32, nil}, 14: {"MAP", kHex, nil}, 15: {"WEIGHT", kU32, nil},
	16: {"OPERSTATE", kU8, nil}, 17: {"LINKMODE", kU8, nil}, 18: {"LINKINFO", kNest, linkInfoAttrs},
	19: {"NET_NS_PID", kU32, nil}, 20: {"IFALIAS", kStr, nil}, 21: {"NUM_VF", kU32, nil},
	23: {"STATS64", kAny, nil}, 26: {"AF_SPEC", kOmit, nil}, 27: {"GROUP", kU32, nil},
	29: {"EXT_MASK", kU32, nil}, 30: {"PROMISCUITY", kU32, nil}, 31: {"NUM_TX_QUEUES", kU32, nil},
	32: {"NUM_RX_QUEUES", kU32, nil}, 33: {"CARRIER", kU8, nil}, 34: {"PHYS_PORT_ID", kHex, nil},
	35: {"CARRIER_CHANGES", kU32, nil}, 36: {"PHYS_SWITCH_ID", kHex, nil}, 37: {"LINK_NETNSID", kS32, nil},
	38: {"PHYS_PORT_NAME", kStr, nil}, 39: {"PROTO_DOWN", kU8, nil}, 40: {"GSO_MAX_SEGS", kU32, nil},
	41: {"GSO_MAX_SIZE", kU32, nil}, 43: {"XDP", kNest, xdpAttrs}, 44: {"EVENT", kU32, nil},
	45: {"NEW_NETNSID", kS32, nil}, 46: {"TARGET_NETNSID", kS32, nil}, 47: {"CARRIER_UP_COUNT", kU32, nil},
	48: {"CARRIER_DOWN_COUNT", kU32, nil}, 49: {"NEW_IFINDEX", kS32, nil}, 50: {"MIN_MTU", kU32, nil},
	51: {"MAX_MTU", kU32, nil}, 52: {"PROP_LIST", kNest, propListAttrs}, 53: {"ALT_IFNAME", kStr, nil},
	54: {"PERM_ADDRESS", kAddr, nil}, 55: {"PROTO_DOWN_REASON", kNest, nil}, 56: {"PARENT_DEV_NAME", kStr, nil},
	57: {"PARENT_DEV_BUS_NAME", kStr, nil}, 58: {"GRO_MAX_SIZE", kU32, nil}, 59: {"TSO_MAX_SIZE", kU32, nil},
	60: {"TSO_MAX_SEGS", kU32, nil}, 61: {"ALLMULTI", kU32, nil}, 62: {"DEVLINK_PORT", kNest, nil},
	63: {"GSO_IPV4_MAX_SIZE", kU32, nil}, 64: {"GRO_IPV4_MAX_SIZE", kU32, nil}, 65: {"DPLL_PIN", kNest, nil},
	66: {"MAX_PACING_OFFLOAD_HORIZON", kU32, nil}, 67: {"NETNS_IMMUTABLE", kU8, nil},
	68: {"HEADROOM", kU16, nil}, 69: {"TAILROOM", kU16, nil},
}

var linkInfoAttrs = attrTable{
	1: {"INFO_KIND", kStr, nil}, 2: {"INFO_DATA", kNest, nil}, 3: {"INFO_XSTATS", kHex, nil},
	4: {"INFO_SLAVE_KIND", kStr, nil}, 5: {"INFO_SLAVE_DATA", kNest, nil},
}

var propListAttrs = attrTable{53: {"ALT_IFNAME", kStr, nil}}

var xdpAttrs = attrTable{
	1: {"FD", kS32, nil}, 2: {"ATTACHED", kU8, nil}, 3: {"FLAGS", kU32, nil}, 4: {"PROG_ID", kU32, nil},
}

// nsidAttrs are the NETNSA_* attributes (include/uapi/linux/net_namespace.h).
var nsidAttrs = attrTable{
	1: {"NSID", kS32, nil}, 2: {"PID", kAny, nil}, 3: {"FD", kU32, nil}, 4: {"TARGET_NSID", kS32, nil},
	5: {"CURRENT_NSID", kS32, nil},
}

var neighAttrs = attrTable{
	1: {"DST", kAddr, nil}, 2: {"LLADDR", kAddr, nil}, 3: {"CACHEINFO", kAny, nil}, 4: {"PROBES", kU32, nil},
	8: {"IFINDEX", kU32, nil}, 9: {"MASTER", kU32, nil}, 12: {"PROTOCOL", kU8, nil}, 15: {"FLAGS_EXT", kHex, nil},
}

var addrAttrs = attrTable{
	1: {"ADDRESS", kAddr, nil}, 2: {"LOCAL", kAddr, nil}, 3: {"LABEL", kStr, nil}, 4: {"BROADCAST", kAddr, nil},
	5: {"ANYCAST", kAddr, nil}, 6: {"CACHEINFO", kIfaCache, nil}, 7: {"MULTICAST", kAddr, nil},
	8: {"FLAGS", kIfaFlags, nil}, 9: {"RT_PRIORITY", kU32, nil}, 10: {"TARGET_NETNSID", kS32, nil},
	11: {"PROTO", kU8, nil},
}

var routeAttrs = attrTable{
	1: {"DST", kAddr, nil}, 2: {"SRC", kAddr, nil}, 3: {"IIF", kU32, nil}, 4: {"OIF", kU32, nil},
	5: {"GATEWAY", kAddr, nil}, 6: {"PRIORITY", kU32, nil}, 7: {"PREFSRC", kAddr, nil},
	8: {"METRICS", kNest, metricAttrs}, 9: {"MULTIPATH", kMultipath, nil}, 11: {"FLOW", kU32, nil},
	12: {"CACHEINFO", kRtaCache, nil}, 15: {"TABLE", kU32, nil}, 16: {"MARK", kU32, nil},
	17: {"MFC_STATS", kHex, nil}, 18: {"VIA", kVia, nil}, 19: {"NEWDST", kHex, nil}, 20: {"PREF", kU8, nil},
	21: {"ENCAP_TYPE", kU16, nil}, 22: {"ENCAP", kNest, nil}, 23: {"EXPIRES", kAny, nil}, 24: {"PAD", kHex, nil},
	25: {"UID", kU32, nil}, 26: {"TTL_PROPAGATE", kU8, nil}, 27: {"IP_PROTO", kU8, nil},
	28: {"SPORT", kBE16, nil}, 29: {"DPORT", kBE16, nil}, 30: {"NH_ID", kU32, nil}, 31: {"FLOWLABEL", kBE32, nil},
}

var metricAttrs = attrTable{
	1: {"LOCK", kU32, nil}, 2: {"MTU", kU32, nil}, 3: {"WINDOW", kU32, nil}, 4: {"RTT", kU32, nil},
	5: {"RTTVAR", kU32, nil}, 6: {"SSTHRESH", kU32, nil}, 7: {"CWND", kU32, nil}, 8: {"ADVMSS", kU32, nil},
	9: {"REORDERING", kU32, nil}, 10: {"HOPLIMIT", kU32, nil}, 11: {"INITCWND", kU32, nil},
	12: {"FEATURES", kU32, nil}, 13: {"RTO_MIN", kU32, nil}, 14: {"INITRWND", kU32, nil},
	15: {"QUICKACK", kU32, nil}, 16: {"CC_ALGO", kStr, nil}, 17: {"FASTOPEN_NO_COOKIE", kU32, nil},
}

// ruleAttrs follows enum in include/uapi/linux/fib_rules.h.
var ruleAttrs = attrTable{
	1: {"DST", kAddr, nil}, 2: {"SRC", kAddr, nil}, 3: {"IIFNAME", kStr, nil}, 4: {"GOTO", kU32, nil},
	6: {"PRIORITY", kU32, nil}, 10: {"FWMARK", kU32, nil}, 11: {"FLOW", kU32, nil}, 12: {"TUN_ID", kHex, nil},
	13: {"SUPPRESS_IFGROUP", kU32, nil}, 14: {"SUPPRESS_PREFIXLEN", kU32, nil}, 15: {"TABLE", kU32, nil},
	16: {"FWMASK", kU32, nil}, 17: {"OIFNAME", kStr, nil}, 18: {"PAD", kHex, nil}, 19: {"L3MDEV", kU8, nil},
	20: {"UID_RANGE", kRange32, nil}, 21: {"PROTOCOL", kU8, nil}, 22: {"IP_PROTO", kU8, nil},
	23: {"SPORT_RANGE", kRange16, nil}, 24: {"DPORT_RANGE", kRange16, nil}, 25: {"DSCP", kU8, nil},
	26: {"FLOWLABEL", kBE32, nil}, 27: {"FLOWLABEL_MASK", kBE32, nil}, 28: {"SPORT_MASK", kU16, nil},
	29: {"DPORT_MASK", kU16, nil}, 30: {"DSCP_MASK", kU8, nil},
}

var nhAttrs = attrTable{
	1: {"ID", kU32, nil}, 2: {"GROUP", kNhGroup, nil}, 3: {"GROUP_TYPE", kU16, nil}, 4: {"BLACKHOLE", kFlag, nil},
	5: {"OIF", kU32, nil}, 6: {"GATEWAY", kAddr, nil}, 7: {"ENCAP_TYPE", kU16, nil}, 8: {"ENCAP", kNest, nil},
	9: {"GROUPS", kFlag, nil}, 10: {"MASTER", kU32, nil}, 11: {"FDB", kFlag, nil}, 12: {"RES_GROUP", kNest, nil},
	13: {"RES_BUCKET", kNest, nil}, 14: {"OP_FLAGS", kU32, nil}, 15: {"GROUP_STATS", kNest, nil},
	16: {"HW_STATS_ENABLE", kU32, nil}, 17: {"HW_STATS_USED", kU32, nil},
}

var extackAttrs = attrTable{
	1: {"MSG", kStr, nil}, 2: {"OFFS", kU32, nil}, 3: {"COOKIE", kHex, nil}, 4: {"POLICY", kNest, policyAttrs},
	5: {"MISS_TYPE", kU32, nil}, 6: {"MISS_NEST", kU32, nil},
}

// policyAttrs is enum netlink_policy_type_attr.
var policyAttrs = attrTable{
	1: {"TYPE", kU32, nil}, 2: {"MIN_VALUE_S", kU64, nil}, 3: {"MAX_VALUE_S", kU64, nil},
	4: {"MIN_VALUE_U", kU64, nil}, 5: {"MAX_VALUE_U", kU64, nil}, 6: {"MIN_LENGTH", kU32, nil},
	7: {"MAX_LENGTH", kU32, nil}, 8: {"POLICY_IDX", kU32, nil}, 9: {"POLICY_MAXTYPE", kU32, nil},
	10: {"BITFIELD32_MASK", kU32, nil}, 11: {"PAD", kHex, nil}, 12: {"MASK", kU64, nil},
}

// attrCtx is what a value's rendering may need from its message.
type attrCtx struct {
	family uint8
}

func attrsTo(b *strings.Builder, d []byte, tb attrTable) { attrsToCtx(b, d, tb, attrCtx{}) }

// attrsToCtx renders the attribute stream d, each attribute as " NAME=value".
func attrsToCtx(b *strings.Builder, d []byte, tb attrTable, ctx attrCtx) {
	for len(d) >= 4 {
		n := int(binary.LittleEndian.Uint16(d))
		raw := binary.LittleEndian.Uint16(d[2:])
		if n < 4 || n > len(d) {
			fmt.Fprintf(b, " BADATTR=%x", d)
			return
		}
		p := d[4:n]
		t := raw & 0x3fff
		spec, ok := tb[t]
		if !ok {
			spec = attrSpec{"#" + strconv.Itoa(int(t)), kHex, nil}
		}
		adv := (n + 3) &^ 3
		if adv > len(d) {
			adv = len(d)
		}
		d = d[adv:]
		if spec.kind == kOmit {
			continue
		}
		b.WriteByte(' ')
		b.WriteString(spec.name)
		if raw&0x8000 != 0 {
			b.WriteString("/N") // NLA_F_NESTED set
		}
		b.WriteByte('=')
		value(b, p, spec, ctx)
	}
	if len(d) != 0 {
		fmt.Fprintf(b, " TRAILING=%x", d)
	}
}

func value(b *strings.Builder, p []byte, spec attrSpec, ctx attrCtx) {
	le := binary.LittleEndian
	sized := func(n int) bool {
		if len(p) != n {
			fmt.Fprintf(b, "len%d:%x", len(p), p)
			return false
		}
		return true
	}
	switch spec.kind {
	case kU8:
		if sized(1) {
			b.WriteString(strconv.Itoa(int(p[0])))
		}
	case kU16:
		if sized(2) {
			b.WriteString(strconv.Itoa(int(le.Uint16(p))))
		}
	case kU32:
		if sized(4) {
			b.WriteString(strconv.FormatUint(uint64(le.Uint32(p)), 10))
		}
	case kU64:
		if sized(8) {
			b.WriteString(strconv.FormatUint(le.Uint64(p), 10))
		}
	case kS32:
		if sized(4) {
			b.WriteString(strconv.Itoa(int(int32(le.Uint32(p)))))
		}
	case kBE16:
		if sized(2) {
			b.WriteString(strconv.Itoa(int(binary.BigEndian.Uint16(p))))
		}
	case kBE32:
		if sized(4) {
			fmt.Fprintf(b, "0x%x", binary.BigEndian.Uint32(p))
		}
	case kStr:
		s := p
		nul := false
		for i, c := range p {
			if c == 0 {
				s, nul = p[:i], true
				break
			}
		}
		b.WriteString(strconv.Quote(string(s)))
		if !nul {
			b.WriteString("(no NUL)")
		}
	case kAddr:
		if a, ok := netip.AddrFromSlice(p); ok && (len(p) == 4 || len(p) == 16) {
			b.WriteString(a.String())
			return
		}
		for i, c := range p {
			if i > 0 {
				b.WriteByte(':')
			}
			fmt.Fprintf(b, "%02x", c)
		}
	case kFlag:
		if len(p) == 0 {
			b.WriteString("true")
		} else {
			fmt.Fprintf(b, "len%d:%x", len(p), p)
		}
	case kNest:
		b.WriteByte('{')
		var inner strings.Builder
		attrsToCtx(&inner, p, spec.sub, ctx)
		b.WriteString(strings.TrimPrefix(inner.String(), " "))
		b.WriteByte('}')
	case kIfaFlags:
		if sized(4) {
			b.WriteString(bitNames(ifaFlagNames)(uint64(le.Uint32(p)), 0))
		}
	case kIfaCache:
		if sized(16) {
			fmt.Fprintf(b, "{prefered=%d valid=%d cstamp=* tstamp=*}", le.Uint32(p), le.Uint32(p[4:]))
		}
	case kRtaCache:
		if sized(32) {
			fmt.Fprintf(b, "{error=%d}", int32(le.Uint32(p[12:])))
		}
	case kMultipath:
		b.WriteByte('[')
		for first := true; len(p) >= 8; first = false {
			n := int(le.Uint16(p))
			if n < 8 || n > len(p) {
				fmt.Fprintf(b, "BAD=%x", p)
				break
			}
			if !first {
				b.WriteByte(' ')
			}
			fmt.Fprintf(b, "{flags=%s hops=%d ifindex=%d", bitNames(rtmFlagNames)(uint64(p[2]), 0), p[3], int32(le.Uint32(p[4:])))
			attrsToCtx(b, p[8:n], routeAttrs, ctx)
			b.WriteByte('}')
			adv := (n + 3) &^ 3
			if adv > len(p) {
				adv = len(p)
			}
			p = p[adv:]
		}
		b.WriteByte(']')
	case kNhGroup:
		b.WriteByte('[')
		for i := 0; i+8 <= len(p); i += 8 {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(b, "{id=%d weight=%d weight_high=%d resvd=%d}", le.Uint32(p[i:]), p[i+4], p[i+5], le.Uint16(p[i+6:]))
		}
		if len(p)%8 != 0 {
			fmt.Fprintf(b, " BAD=%x", p)
		}
		b.WriteByte(']')
	case kVia:
		if len(p) < 2 {
			fmt.Fprintf(b, "%x", p)
			return
		}
		fmt.Fprintf(b, "{family=%s ", enumNames(families)(uint64(le.Uint16(p)), 0))
		value(b, p[2:], attrSpec{kind: kAddr}, ctx)
		b.WriteByte('}')
	case kRange32:
		if sized(8) {
			fmt.Fprintf(b, "%d-%d", le.Uint32(p), le.Uint32(p[4:]))
		}
	case kRange16:
		if sized(4) {
			fmt.Fprintf(b, "%d-%d", le.Uint16(p), le.Uint16(p[2:]))
		}
	case kAny:
		b.WriteByte('*')
	default:
		fmt.Fprintf(b, "%x", p)
	}
}
