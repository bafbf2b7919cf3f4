// The canonical form of an rtnetlink message: one line a transcript can
// compare between Linux and netsim.

package wiretest

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
)

// Canon renders one rtnetlink message as one line: its type, flags,
// sequence number and port (through ports, which names the sockets of a
// run: their ids differ between runs), the family header's fields, then
// each attribute as NAME=value in the order sent, nested attributes
// expanded in braces. An error or ack shows the errno, the echoed
// request's header and length, and the extended ack's attributes.
//
// Values that must differ between two kernels doing the same thing print
// as "*" (see normalised), and the attributes of omitted are left out: the
// canonical form is what the comparison compares.
func Canon(m netlink.Message, ports func(uint32) string) string {
	var b strings.Builder
	t := uint16(m.Header.Type)
	fmt.Fprintf(&b, "%s %s seq=%d port=%s", typeName(t), flagNames(t, uint16(m.Header.Flags)), m.Header.Sequence, ports(m.Header.PID))
	d := m.Data
	switch t {
	case uapi.NLMSG_ERROR:
		canonError(&b, m, ports)
		return b.String()
	case uapi.NLMSG_DONE:
		if len(d) >= 4 {
			fmt.Fprintf(&b, " errno=%s", errnoName(int32(binary.LittleEndian.Uint32(d))))
			if m.Header.Flags&netlink.AcknowledgeTLVs != 0 {
				attrsTo(&b, d[4:], extackAttrs)
			}
		}
		return b.String()
	}
	k, ok := kinds[t&^3]
	if !ok || t < uapi.RTM_BASE {
		fmt.Fprintf(&b, " payload=%x", d)
		return b.String()
	}
	hdrLen := 0
	for _, f := range k.hdr {
		hdrLen += f.size
	}
	if len(d) < hdrLen {
		fmt.Fprintf(&b, " short=%x", d)
		return b.String()
	}
	fam := d[0]
	off := 0
	for _, f := range k.hdr {
		b.WriteByte(' ')
		b.WriteString(f.name)
		b.WriteByte('=')
		switch f.size {
		case 1:
			b.WriteString(f.show(uint64(d[off]), fam))
		case 2:
			b.WriteString(f.show(uint64(binary.LittleEndian.Uint16(d[off:])), fam))
		case 4:
			b.WriteString(f.show(uint64(binary.LittleEndian.Uint32(d[off:])), fam))
		}
		off += f.size
	}
	ctx := attrCtx{family: fam}
	attrsToCtx(&b, d[off:], k.attrs, ctx)
	return b.String()
}

// canonError renders an NLMSG_ERROR: errno, then the echoed request's
// header (its length says whether the payload was echoed or capped), then
// the extended ack attributes.
func canonError(b *strings.Builder, m netlink.Message, ports func(uint32) string) {
	d := m.Data
	if len(d) < 4 {
		fmt.Fprintf(b, " short=%x", d)
		return
	}
	fmt.Fprintf(b, " errno=%s", errnoName(int32(binary.LittleEndian.Uint32(d))))
	d = d[4:]
	if len(d) < 16 {
		fmt.Fprintf(b, " short=%x", d)
		return
	}
	rl := binary.LittleEndian.Uint32(d)
	rt := binary.LittleEndian.Uint16(d[4:])
	rf := binary.LittleEndian.Uint16(d[6:])
	fmt.Fprintf(b, " req={%s %s len=%d seq=%d port=%s}", typeName(rt), flagNames(rt, rf),
		rl, binary.LittleEndian.Uint32(d[8:]), ports(binary.LittleEndian.Uint32(d[12:])))
	echoed := 16
	if m.Header.Flags&uapi.NLM_F_CAPPED == 0 {
		echoed = int(rl)
	}
	if echoed > len(d) {
		fmt.Fprintf(b, " truncated=%d", len(d))
		return
	}
	fmt.Fprintf(b, " echoed=%d", echoed)
	if m.Header.Flags&uapi.NLM_F_ACK_TLVS != 0 {
		attrsTo(b, d[(echoed+3)&^3:], extackAttrs)
	} else if len(d) > echoed {
		fmt.Fprintf(b, " trailing=%x", d[echoed:])
	}
}

// A field is one field of a family header.
type field struct {
	name string
	size int
	show func(v uint64, family uint8) string
}

func dec(v uint64, _ uint8) string { return strconv.FormatUint(v, 10) }
func hex(v uint64, _ uint8) string { return "0x" + strconv.FormatUint(v, 16) }

// bitNames prints v as the names of its set bits, "|"-joined, the rest in
// hex.
func bitNames(names map[uint64]string) func(uint64, uint8) string {
	return func(v uint64, _ uint8) string {
		if v == 0 {
			return "0"
		}
		var parts []string
		for bit := uint64(1); bit != 0 && bit <= v; bit <<= 1 {
			if v&bit == 0 {
				continue
			}
			if n, ok := names[bit]; ok {
				parts = append(parts, n)
				v &^= bit
			}
		}
		if v != 0 {
			parts = append(parts, "0x"+strconv.FormatUint(v, 16))
		}
		return strings.Join(parts, "|")
	}
}

func enumNames(names map[uint64]string) func(uint64, uint8) string {
	return func(v uint64, _ uint8) string {
		if n, ok := names[v]; ok {
			return n
		}
		return strconv.FormatUint(v, 10)
	}
}

var iffNames = map[uint64]string{
	uapi.IFF_UP: "UP", uapi.IFF_BROADCAST: "BROADCAST", uapi.IFF_DEBUG: "DEBUG", uapi.IFF_LOOPBACK: "LOOPBACK",
	uapi.IFF_POINTOPOINT: "POINTOPOINT", uapi.IFF_NOTRAILERS: "NOTRAILERS", uapi.IFF_RUNNING: "RUNNING",
	uapi.IFF_NOARP: "NOARP", uapi.IFF_PROMISC: "PROMISC", uapi.IFF_ALLMULTI: "ALLMULTI", uapi.IFF_MASTER: "MASTER",
	uapi.IFF_SLAVE: "SLAVE", uapi.IFF_MULTICAST: "MULTICAST", uapi.IFF_PORTSEL: "PORTSEL",
	uapi.IFF_AUTOMEDIA: "AUTOMEDIA", uapi.IFF_DYNAMIC: "DYNAMIC", uapi.IFF_LOWER_UP: "LOWER_UP",
	uapi.IFF_DORMANT: "DORMANT", uapi.IFF_ECHO: "ECHO",
}

var ifaFlagNames = map[uint64]string{
	uapi.IFA_F_SECONDARY: "SECONDARY", uapi.IFA_F_NODAD: "NODAD", uapi.IFA_F_OPTIMISTIC: "OPTIMISTIC",
	uapi.IFA_F_DADFAILED: "DADFAILED", uapi.IFA_F_HOMEADDRESS: "HOMEADDRESS", uapi.IFA_F_DEPRECATED: "DEPRECATED",
	uapi.IFA_F_TENTATIVE: "TENTATIVE", uapi.IFA_F_PERMANENT: "PERMANENT", uapi.IFA_F_MANAGETEMPADDR: "MANAGETEMPADDR",
	uapi.IFA_F_NOPREFIXROUTE: "NOPREFIXROUTE", uapi.IFA_F_MCAUTOJOIN: "MCAUTOJOIN", uapi.IFA_F_STABLE_PRIVACY: "STABLE_PRIVACY",
}

var rtmFlagNames = map[uint64]string{
	uapi.RTNH_F_DEAD: "DEAD", uapi.RTNH_F_PERVASIVE: "PERVASIVE", uapi.RTNH_F_ONLINK: "ONLINK",
	uapi.RTNH_F_OFFLOAD: "OFFLOAD", uapi.RTNH_F_LINKDOWN: "LINKDOWN", uapi.RTNH_F_UNRESOLVED: "UNRESOLVED",
	uapi.RTNH_F_TRAP: "TRAP", uapi.RTM_F_NOTIFY: "NOTIFY", uapi.RTM_F_CLONED: "CLONED",
	uapi.RTM_F_EQUALIZE: "EQUALIZE", uapi.RTM_F_PREFIX: "PREFIX", uapi.RTM_F_LOOKUP_TABLE: "LOOKUP_TABLE",
	uapi.RTM_F_FIB_MATCH: "FIB_MATCH", uapi.RTM_F_OFFLOAD: "F_OFFLOAD", uapi.RTM_F_TRAP: "F_TRAP",
	uapi.RTM_F_OFFLOAD_FAILED: "OFFLOAD_FAILED",
}

var ruleFlagNames = map[uint64]string{
	uapi.FIB_RULE_PERMANENT: "PERMANENT", uapi.FIB_RULE_INVERT: "INVERT", uapi.FIB_RULE_UNRESOLVED: "UNRESOLVED",
	uapi.FIB_RULE_IIF_DETACHED: "IIF_DETACHED", uapi.FIB_RULE_OIF_DETACHED: "OIF_DETACHED",
	uapi.FIB_RULE_FIND_SADDR: "FIND_SADDR",
}

var rtnTypes = map[uint64]string{
	uapi.RTN_UNSPEC: "UNSPEC", uapi.RTN_UNICAST: "UNICAST", uapi.RTN_LOCAL: "LOCAL", uapi.RTN_BROADCAST: "BROADCAST",
	uapi.RTN_ANYCAST: "ANYCAST", uapi.RTN_MULTICAST: "MULTICAST", uapi.RTN_BLACKHOLE: "BLACKHOLE",
	uapi.RTN_UNREACHABLE: "UNREACHABLE", uapi.RTN_PROHIBIT: "PROHIBIT", uapi.RTN_THROW: "THROW",
	uapi.RTN_NAT: "NAT", uapi.RTN_XRESOLVE: "XRESOLVE",
}

var ruleActions = map[uint64]string{
	uapi.FR_ACT_UNSPEC: "UNSPEC", uapi.FR_ACT_TO_TBL: "TO_TBL", uapi.FR_ACT_GOTO: "GOTO", uapi.FR_ACT_NOP: "NOP",
	uapi.FR_ACT_BLACKHOLE: "BLACKHOLE", uapi.FR_ACT_UNREACHABLE: "UNREACHABLE", uapi.FR_ACT_PROHIBIT: "PROHIBIT",
}

var scopes = map[uint64]string{
	uapi.RT_SCOPE_UNIVERSE: "universe", uapi.RT_SCOPE_SITE: "site", uapi.RT_SCOPE_LINK: "link",
	uapi.RT_SCOPE_HOST: "host", uapi.RT_SCOPE_NOWHERE: "nowhere",
}

var families = map[uint64]string{
	uapi.AF_UNSPEC: "unspec", uapi.AF_INET: "inet", uapi.AF_INET6: "inet6", uapi.AF_BRIDGE: "bridge",
	0x80: "RTNL_FAMILY_IPMR", 0x81: "RTNL_FAMILY_IP6MR",
}

// A msgKind is the layout of one message family: its header's fields and
// its attributes.
type msgKind struct {
	hdr   []field
	attrs attrTable
}

var (
	ifinfoHdr = []field{
		{"family", 1, enumNames(families)}, {"pad", 1, dec}, {"type", 2, dec}, {"index", 4, dec},
		{"flags", 4, bitNames(iffNames)}, {"change", 4, hex},
	}
	ifaddrHdr = []field{
		{"family", 1, enumNames(families)}, {"prefixlen", 1, dec}, {"flags", 1, bitNames(ifaFlagNames)},
		{"scope", 1, enumNames(scopes)}, {"index", 4, dec},
	}
	rtmsgHdr = []field{
		{"family", 1, enumNames(families)}, {"dst_len", 1, dec}, {"src_len", 1, dec}, {"tos", 1, dec},
		{"table", 1, dec}, {"protocol", 1, dec}, {"scope", 1, enumNames(scopes)}, {"type", 1, enumNames(rtnTypes)},
		{"flags", 4, bitNames(rtmFlagNames)},
	}
	ruleHdr = []field{
		{"family", 1, enumNames(families)}, {"dst_len", 1, dec}, {"src_len", 1, dec}, {"tos", 1, dec},
		{"table", 1, dec}, {"res1", 1, dec}, {"res2", 1, dec}, {"action", 1, enumNames(ruleActions)},
		{"flags", 4, bitNames(ruleFlagNames)},
	}
	ndmsgHdr = []field{
		{"family", 1, enumNames(families)}, {"pad1", 1, dec}, {"pad2", 2, dec}, {"index", 4, dec},
		{"state", 2, hex}, {"flags", 1, hex}, {"type", 1, enumNames(rtnTypes)},
	}
	rtgenHdr = []field{{"family", 1, enumNames(families)}, {"pad1", 1, dec}, {"pad2", 2, dec}}
	nhHdr    = []field{
		{"family", 1, enumNames(families)}, {"scope", 1, enumNames(scopes)}, {"protocol", 1, dec},
		{"resvd", 1, dec}, {"flags", 4, bitNames(rtmFlagNames)},
	}
)

// kinds maps the first message type of each family of four (NEW, DEL,
// GET, SET) to its layout.
var kinds = map[uint16]msgKind{
	uapi.RTM_NEWLINK:    {ifinfoHdr, linkAttrs},
	uapi.RTM_NEWADDR:    {ifaddrHdr, addrAttrs},
	uapi.RTM_NEWROUTE:   {rtmsgHdr, routeAttrs},
	uapi.RTM_NEWRULE:    {ruleHdr, ruleAttrs},
	uapi.RTM_NEWNEXTHOP: {nhHdr, nhAttrs},
	uapi.RTM_NEWNEIGH:   {ndmsgHdr, neighAttrs},
	uapi.RTM_NEWNSID:    {rtgenHdr, nsidAttrs},
}

func typeName(t uint16) string {
	switch t {
	case uapi.NLMSG_NOOP:
		return "NOOP"
	case uapi.NLMSG_ERROR:
		return "ERROR"
	case uapi.NLMSG_DONE:
		return "DONE"
	case uapi.NLMSG_OVERRUN:
		return "OVERRUN"
	}
	if n, ok := msgNames[t]; ok {
		return n
	}
	return "type" + strconv.Itoa(int(t))
}

var msgNames = map[uint16]string{
	uapi.RTM_NEWLINK: "NEWLINK", uapi.RTM_DELLINK: "DELLINK", uapi.RTM_GETLINK: "GETLINK", uapi.RTM_SETLINK: "SETLINK",
	uapi.RTM_NEWADDR: "NEWADDR", uapi.RTM_DELADDR: "DELADDR", uapi.RTM_GETADDR: "GETADDR",
	uapi.RTM_NEWROUTE: "NEWROUTE", uapi.RTM_DELROUTE: "DELROUTE", uapi.RTM_GETROUTE: "GETROUTE",
	uapi.RTM_NEWNEIGH: "NEWNEIGH", uapi.RTM_DELNEIGH: "DELNEIGH", uapi.RTM_GETNEIGH: "GETNEIGH",
	uapi.RTM_NEWRULE: "NEWRULE", uapi.RTM_DELRULE: "DELRULE", uapi.RTM_GETRULE: "GETRULE",
	uapi.RTM_NEWNEXTHOP: "NEWNEXTHOP", uapi.RTM_DELNEXTHOP: "DELNEXTHOP", uapi.RTM_GETNEXTHOP: "GETNEXTHOP",
	uapi.RTM_NEWNSID: "NEWNSID", uapi.RTM_DELNSID: "DELNSID", uapi.RTM_GETNSID: "GETNSID",
	uapi.RTM_GETNETCONF: "GETNETCONF", uapi.RTM_NEWNETCONF: "NEWNETCONF", uapi.RTM_GETQDISC: "GETQDISC",
}

// flagNames names nlmsg_flags; the bits above 0xff mean different things
// for NEW, GET and DEL requests and for acks.
func flagNames(t uint16, f uint16) string {
	names := map[uint64]string{
		uapi.NLM_F_REQUEST: "REQUEST", uapi.NLM_F_MULTI: "MULTI", uapi.NLM_F_ACK: "ACK", uapi.NLM_F_ECHO: "ECHO",
		uapi.NLM_F_DUMP_INTR: "DUMP_INTR", uapi.NLM_F_DUMP_FILTERED: "DUMP_FILTERED",
	}
	switch {
	case t == uapi.NLMSG_ERROR || t == uapi.NLMSG_DONE:
		names[uapi.NLM_F_CAPPED] = "CAPPED"
		names[uapi.NLM_F_ACK_TLVS] = "ACK_TLVS"
	case t >= uapi.RTM_BASE && t%4 == 0: // NEW
		names[uapi.NLM_F_REPLACE] = "REPLACE"
		names[uapi.NLM_F_EXCL] = "EXCL"
		names[uapi.NLM_F_CREATE] = "CREATE"
		names[uapi.NLM_F_APPEND] = "APPEND"
	case t >= uapi.RTM_BASE && t%4 == 2: // GET
		names[uapi.NLM_F_ROOT] = "ROOT"
		names[uapi.NLM_F_MATCH] = "MATCH"
		names[uapi.NLM_F_ATOMIC] = "ATOMIC"
	case t >= uapi.RTM_BASE && t%4 == 1: // DEL
		names[uapi.NLM_F_NONREC] = "NONREC"
		names[uapi.NLM_F_BULK] = "BULK"
	}
	return "flags=" + bitNames(names)(uint64(f), 0)
}

func errnoName(e int32) string {
	if e == 0 {
		return "0"
	}
	n := -e
	if n < 0 {
		return strconv.Itoa(int(e))
	}
	if s, ok := linuxErrnos[n]; ok {
		return s
	}
	return strconv.Itoa(int(e))
}

// linuxErrnos names Linux's errno values (which differ from other
// systems' syscall.Errno), the ones rtnetlink answers with.
var linuxErrnos = map[int32]string{
	1: "EPERM", 2: "ENOENT", 3: "ESRCH", 4: "EINTR", 5: "EIO", 6: "ENXIO", 7: "E2BIG", 9: "EBADF", 11: "EAGAIN",
	12: "ENOMEM", 13: "EACCES", 14: "EFAULT", 16: "EBUSY", 17: "EEXIST", 18: "EXDEV", 19: "ENODEV",
	20: "ENOTDIR", 22: "EINVAL", 23: "ENFILE", 28: "ENOSPC", 34: "ERANGE", 35: "EDEADLK",
	36: "ENAMETOOLONG", 39: "ENOTEMPTY", 61: "ENODATA", 67: "ENOLINK", 71: "EPROTO", 74: "EBADMSG",
	75: "EOVERFLOW", 90: "EMSGSIZE", 93: "EPROTONOSUPPORT", 95: "EOPNOTSUPP", 97: "EAFNOSUPPORT",
	98: "EADDRINUSE", 99: "EADDRNOTAVAIL", 100: "ENETDOWN", 101: "ENETUNREACH", 105: "ENOBUFS",
	113: "EHOSTUNREACH", 114: "EALREADY",
}
