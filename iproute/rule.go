// `ip rule`: iproute2's ip/iprule.c (iprule_modify,
// iprule_list_flush_or_save, filter_nlmsg, flush_rule, print_rule).

package iproute

import (
	"io"
	"net/netip"
	"strconv"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// ruleUsage is iprule.c's usage().
const ruleUsage = `Usage: ip rule { add | del } SELECTOR ACTION
       ip rule { flush | save | restore }
       ip rule [ list [ SELECTOR ]]
SELECTOR := [ not ] [ from PREFIX ] [ to PREFIX ] [ tos TOS ]
            [ fwmark FWMARK[/MASK] ]
            [ iif STRING ] [ oif STRING ] [ pref NUMBER ] [ l3mdev ]
            [ uidrange NUMBER-NUMBER ]
            [ ipproto PROTOCOL ]
            [ sport [ NUMBER | NUMBER-NUMBER ]
            [ dport [ NUMBER | NUMBER-NUMBER ] ]
ACTION := [ table TABLE_ID ]
          [ protocol PROTO ]
          [ nat ADDRESS ]
          [ realms [SRCREALM/]DSTREALM ]
          [ goto NUMBER ]
          SUPPRESSOR
SUPPRESSOR := [ suppress_prefixlength NUMBER ]
              [ suppress_ifgroup DEVGROUP ]
TABLE_ID := [ local | main | default | NUMBER ]
`

const noRuleDumps = "netsim writes and reads no binary dumps of netlink messages"

// ruleObject is do_iprule's table, in its order of comparison.
var ruleObject = object{
	name:  "rule",
	short: "rule",
	usage: ruleUsage,
	empty: (*IP).ruleShow,
	commands: []command{
		{names: []string{"list*", "lst*", "show*"}, run: (*IP).ruleShow, keywords: keywordNames(ruleFilterKeywords)},
		{names: []string{"save*"}, refused: noRuleDumps},
		{names: []string{"restore*"}, refused: noRuleDumps},
		{names: []string{"add*"}, run: (*IP).ruleAdd, keywords: keywordModelled(ruleKeywords), refusedKeywords: keywordRefusals(ruleKeywords)},
		{names: []string{"delete*"}, run: (*IP).ruleDel, keywords: keywordModelled(ruleKeywords), refusedKeywords: keywordRefusals(ruleKeywords)},
		{names: []string{"flush*"}, run: (*IP).ruleFlush, keywords: keywordNames(ruleFilterKeywords)},
	},
}

// ipProtos is /etc/protocols as getprotobyname and getprotobynumber read
// it: each protocol's name, number and aliases, in the file's order.
var ipProtos = []struct {
	name    string
	num     int
	aliases []string
}{
	{"ip", 0, []string{"IP"}}, {"hopopt", 0, []string{"HOPOPT"}}, {"icmp", 1, []string{"ICMP"}},
	{"igmp", 2, []string{"IGMP"}}, {"ggp", 3, []string{"GGP"}}, {"ipencap", 4, []string{"IP-ENCAP"}},
	{"st", 5, []string{"ST"}}, {"tcp", 6, []string{"TCP"}}, {"egp", 8, []string{"EGP"}},
	{"igp", 9, []string{"IGP"}}, {"pup", 12, []string{"PUP"}}, {"udp", 17, []string{"UDP"}},
	{"hmp", 20, []string{"HMP"}}, {"xns-idp", 22, []string{"XNS-IDP"}}, {"rdp", 27, []string{"RDP"}},
	{"iso-tp4", 29, []string{"ISO-TP4"}}, {"dccp", 33, []string{"DCCP"}}, {"xtp", 36, []string{"XTP"}},
	{"ddp", 37, []string{"DDP"}}, {"idpr-cmtp", 38, []string{"IDPR-CMTP"}}, {"ipv6", 41, []string{"IPv6"}},
	{"ipv6-route", 43, []string{"IPv6-Route"}}, {"ipv6-frag", 44, []string{"IPv6-Frag"}},
	{"idrp", 45, []string{"IDRP"}}, {"rsvp", 46, []string{"RSVP"}}, {"gre", 47, []string{"GRE"}},
	{"esp", 50, []string{"IPSEC-ESP"}}, {"ah", 51, []string{"IPSEC-AH"}}, {"skip", 57, []string{"SKIP"}},
	{"ipv6-icmp", 58, []string{"IPv6-ICMP"}}, {"ipv6-nonxt", 59, []string{"IPv6-NoNxt"}},
	{"ipv6-opts", 60, []string{"IPv6-Opts"}}, {"rspf", 73, []string{"RSPF", "CPHB"}},
	{"vmtp", 81, []string{"VMTP"}}, {"eigrp", 88, []string{"EIGRP"}}, {"ospf", 89, []string{"OSPFIGP"}},
	{"ax.25", 93, []string{"AX.25"}}, {"ipip", 94, []string{"IPIP"}}, {"etherip", 97, []string{"ETHERIP"}},
	{"encap", 98, []string{"ENCAP"}}, {"pim", 103, []string{"PIM"}}, {"ipcomp", 108, []string{"IPCOMP"}},
	{"vrrp", 112, []string{"VRRP"}}, {"l2tp", 115, []string{"L2TP"}}, {"isis", 124, []string{"ISIS"}},
	{"sctp", 132, []string{"SCTP"}}, {"fc", 133, []string{"FC"}},
	{"mobility-header", 135, []string{"Mobility-Header"}}, {"udplite", 136, []string{"UDPLite"}},
	{"mpls-in-ip", 137, []string{"MPLS-in-IP"}}, {"manet", 138, nil}, {"hip", 139, []string{"HIP"}},
	{"shim6", 140, []string{"Shim6"}}, {"wesp", 141, []string{"WESP"}}, {"rohc", 142, []string{"ROHC"}},
	{"ethernet", 143, []string{"Ethernet"}}, {"mptcp", 262, []string{"MPTCP"}},
}

// ipProtoValue is iproute2's inet_proto_a2n: a decimal number of at most
// 255, or a protocol's name or alias; ip keeps the low byte of its number.
func ipProtoValue(s string) (uint8, bool) {
	if v, err := strconv.ParseUint(s, 10, 8); err == nil && s[0] != '+' {
		return uint8(v), true
	}
	for _, p := range ipProtos {
		if p.name == s {
			return uint8(p.num), true
		}
		for _, a := range p.aliases {
			if a == s {
				return uint8(p.num), true
			}
		}
	}
	return 0, false
}

// ipProtoName is iproute2's inet_proto_n2a: the first name of the number
// in /etc/protocols, or "ipproto-N".
func ipProtoName(n uint8) string {
	for _, p := range ipProtos {
		if p.num == int(n) {
			return p.name
		}
	}
	return "ipproto-" + strconv.Itoa(int(n))
}

// scanUint is one %u (or %hu) conversion of sscanf: blanks, an optional
// sign, decimal digits, the value as strtoul gives it (negated modulo 2⁶⁴,
// ULONG_MAX on overflow) and kept to bits. It returns what follows.
func scanUint(s string, bits int) (uint64, string, bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0, s, false
	}
	v, err := strconv.ParseUint(s[i:j], 10, 64)
	if err != nil {
		v = ^uint64(0)
	} else if neg {
		v = -v
	}
	return v & (1<<bits - 1), s[j:], true
}

// scanRange is sscanf(s, "%u-%u") with conversions of bits: the number of
// values read (0, 1 or 2) and the values.
func scanRange(s string, bits int) (int, uint64, uint64) {
	a, rest, ok := scanUint(s, bits)
	if !ok {
		return 0, 0, 0
	}
	if rest == "" || rest[0] != '-' {
		return 1, a, 0
	}
	b, _, ok := scanUint(rest[1:], bits)
	if !ok {
		return 1, a, 0
	}
	return 2, a, b
}

// portRange is the sport and dport value: sscanf("%hu-%hu"), one number
// being a range of one port.
func portRange(s string) (fibrules.PortRange, bool) {
	n, a, b := scanRange(s, 16)
	switch n {
	case 1:
		return fibrules.PortRange{Start: uint16(a), End: uint16(a)}, true
	case 2:
		return fibrules.PortRange{Start: uint16(a), End: uint16(b)}, true
	}
	return fibrules.PortRange{}, false
}

// uint64Value is get_u64 with base 0, for nextValue.
func uint64Value(s string) (uint64, bool) { return getUnsigned(s, 64) }

// uidRange is the uidrange value: sscanf("%u-%u") reading both.
func uidRange(s string) (fibrules.UIDRange, bool) {
	n, a, b := scanRange(s, 32)
	return fibrules.UIDRange{Start: uint32(a), End: uint32(b)}, n == 2
}

// getS32 is iproute2's get_s32 with base 0: strtol of the whole word,
// within the range of an int32.
func getS32(s string) (int32, bool) {
	t, neg := s, false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg, t = t[0] == '-', t[1:]
	}
	v, ok := getUnsigned(t, 64)
	if !ok || neg && v > 1<<31 || !neg && v > 1<<31-1 {
		return 0, false
	}
	if neg {
		return int32(-int64(v)), true
	}
	return int32(v), true
}

// fwmarkValue reads FWMARK[/MASK]: the mark, and the mask if given.
func fwmarkValue(a *args) (mark, mask uint32, hasMask bool, err error) {
	v, err := a.next()
	if err != nil {
		return 0, 0, false, err
	}
	m, k, slash := strings.Cut(v, "/")
	n, ok := getUnsigned(m, 32)
	if !ok {
		return 0, 0, false, invarg("fwmark value is invalid\n", m)
	}
	if slash {
		x, ok := getUnsigned(k, 32)
		if !ok {
			return 0, 0, false, invarg("fwmask value is invalid\n", k)
		}
		return uint32(n), uint32(x), true, nil
	}
	return uint32(n), 0, false, nil
}

// ruleReq is iprule_modify's request being built.
type ruleReq struct {
	stderr  io.Writer // ip's, for iprule_modify's warning
	r       fibrules.Rule
	family  rt.Family // frh.family: -4/-6, or 0 (AF_INET once sent)
	tableOK bool
	l3mdev  bool
	tid     uint32
}

// ruleKeywords are iprule_modify's keywords in its order of comparison;
// any other word is a rule type (ruleType).
var ruleKeywords = []keyword[*ruleReq]{
	exact("not", func(_ *args, q *ruleReq) error { q.r.Flags |= fibrules.FlagInvert; return nil }),
	exact("from", func(a *args, q *ruleReq) error { return rulePrefix(a, q.family, &q.r.Src) }),
	exact("to", func(a *args, q *ruleReq) error { return rulePrefix(a, q.family, &q.r.Dst) }),
	kw("preference", func(a *args, q *ruleReq) error {
		n, err := nextValue(a, uint32Value, "preference value is invalid\n")
		q.r.Pref, q.r.Attrs = uint32(n), q.r.Attrs|fibrules.AttrPriority
		return err
	}).or("order*", "priority*"),
	exact("tos", func(a *args, q *ruleReq) error {
		t, err := nextValue(a, dsfieldID, "TOS value is invalid\n")
		q.r.TOS = t
		return err
	}).or("dsfield*"),
	exact("fwmark", func(a *args, q *ruleReq) error {
		mark, mask, hasMask, err := fwmarkValue(a)
		q.r.FwMark = mark
		if hasMask {
			q.r.FwMask, q.r.Attrs = mask, q.r.Attrs|fibrules.AttrFwMask
		}
		return err
	}),
	// FRA_FLOW: realms the kernel gives the routes a rule's lookups find.
	refusedNow(kw[*ruleReq]("realms", nil), "ip rule", "netsim models no routing realms", true),
	kw("protocol", func(a *args, q *ruleReq) error {
		p, err := nextValue(a, protoID, "\"protocol\" value is invalid\n")
		q.r.Protocol = p
		return err
	}),
	kw("tun_id", func(a *args, q *ruleReq) error {
		// get_be64: sent in network order, dumped and printed back in
		// host order.
		n, err := nextValue(a, uint64Value, "\"tun_id\" value is invalid\n")
		q.r.TunID = n
		return err
	}),
	kw("table", func(a *args, q *ruleReq) error {
		id, err := nextValue(a, tableID, "invalid table ID\n")
		q.r.Table, q.tid, q.tableOK = id, id, true
		return err
	}).or("lookup"),
	kw("suppress_prefixlength", func(a *args, q *ruleReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		n, ok := getS32(v)
		if !ok || n < 0 {
			return invarg("suppress_prefixlength value is invalid\n", v)
		}
		q.r.SuppressPrefixLen, q.r.Attrs = n, q.r.Attrs|fibrules.AttrSuppressPrefixLen
		return nil
	}).or("sup_pl"),
	kw("suppress_ifgroup", func(a *args, q *ruleReq) error {
		g, err := nextValue(a, groupID, "Invalid \"suppress_ifgroup\" value\n")
		q.r.SuppressIfGroup, q.r.Attrs = int32(g), q.r.Attrs|fibrules.AttrSuppressIfGroup
		return err
	}).or("sup_group"),
	exact("dev", func(a *args, q *ruleReq) error {
		return ruleIfname(a, &q.r.IIF, "\"iif\"/\"dev\" not a valid ifname")
	}).or("iif"),
	exact("oif", func(a *args, q *ruleReq) error { return ruleIfname(a, &q.r.OIF, "\"oif\" not a valid ifname") }),
	exact("l3mdev", func(_ *args, q *ruleReq) error { q.r.L3MDev, q.l3mdev, q.tableOK = true, true, true; return nil }),
	exact("uidrange", func(a *args, q *ruleReq) error {
		u, err := nextValue(a, uidRange, "invalid UID range\n")
		q.r.UID, q.r.Attrs = u, q.r.Attrs|fibrules.AttrUIDRange
		return err
	}),
	exact("nat", func(a *args, q *ruleReq) error {
		// RTN_NAT: the kernel keeps the action (its lookups fail with
		// EINVAL) and ignores the address, sent as RTA_GATEWAY.
		v, err := a.next()
		if err != nil {
			return err
		}
		io.WriteString(q.stderr, "Warning: route NAT is deprecated\n")
		if _, ok := parseAddr(v, rt.FamilyInet); !ok {
			return &argError{msg: "Error: an IP address is expected rather than \"" + v + "\"\n", status: exitFailure}
		}
		q.r.Action = fibrules.Action(rt.TypeNAT)
		return nil
	}).or("map-to*"),
	exact("ipproto", func(a *args, q *ruleReq) error {
		p, err := nextValue(a, ipProtoValue, "Invalid \"ipproto\" value\n")
		q.r.IPProto = p
		return err
	}),
	exact("sport", func(a *args, q *ruleReq) error {
		pr, err := nextValue(a, portRange, "invalid port range\n")
		q.r.Sport = pr
		q.r.Attrs |= fibrules.AttrSportRange
		return err
	}),
	exact("dport", func(a *args, q *ruleReq) error {
		pr, err := nextValue(a, portRange, "invalid dport range\n")
		q.r.Dport = pr
		q.r.Attrs |= fibrules.AttrDportRange
		return err
	}),
}

// rulePrefix reads the prefix of from or to, of family (any if 0).
func rulePrefix(a *args, family rt.Family, p *netip.Prefix) error {
	v, err := a.next()
	if err != nil {
		return err
	}
	*p, err = getPrefix(v, family)
	return err
}

func ruleIfname(a *args, name *string, msg string) error {
	v, err := a.next()
	if err != nil {
		return err
	}
	if !checkIfname(v) {
		return invarg(msg, v)
	}
	*name = v
	return nil
}

// ruleType is iprule_modify's last branch: [type] TYPE, where TYPE is
// goto NUMBER, nop or a route type naming the action.
func ruleType(a *args, q *ruleReq) error {
	w := a.peek()
	if w == "type" {
		v, err := a.next()
		if err != nil {
			return err
		}
		w = v
	}
	switch {
	case matches(w, "help"):
		return usageErr(ruleUsage)
	case matches(w, "goto"):
		n, err := nextValue(a, uint32Value, "invalid target\n")
		if err != nil {
			return err
		}
		q.r.Action, q.r.Goto, q.r.Attrs = fibrules.ActGoto, uint32(n), q.r.Attrs|fibrules.AttrGoto
	case matches(w, "nop"):
		q.r.Action = fibrules.ActNop
	default:
		ty, ok := routeTypeID(w)
		if !ok {
			return invarg("Failed to parse rule type", w)
		}
		q.r.Action = fibrules.Action(ty)
	}
	q.tableOK = true
	return nil
}

func (ip *IP) ruleAdd(h *handle, argv []string) error { return ip.ruleModify(h, argv, false) }
func (ip *IP) ruleDel(h *handle, argv []string) error { return ip.ruleModify(h, argv, true) }

// ruleModify is iprule_modify: RTM_NEWRULE (NLM_F_EXCL) or RTM_DELRULE.
func (ip *IP) ruleModify(h *handle, argv []string, del bool) error {
	if len(argv) == 0 {
		if del {
			return failf("\"ip rule del\" requires arguments.\n")
		}
		return failf("\"ip rule add\" requires arguments.\n")
	}
	q := &ruleReq{stderr: ip.Stderr, family: ip.family}
	if !del {
		q.r.Action = fibrules.ActToTable
	}
	if err := walk(&args{w: argv}, ruleKeywords, q, ruleType); err != nil {
		return err
	}
	if q.l3mdev && q.tid != 0 {
		// ip returns -EINVAL, which its main turns into exit status 22.
		return &cmdError{msg: "table can not be specified for l3mdev rules\n", status: int(syscall.EINVAL)}
	}
	if !q.tableOK && !del {
		q.r.Table = rt.TableMain
	}
	req := rtnl.RuleRequest{Family: rt.FamilyInet, Rule: q.r}
	if q.family == rt.FamilyInet6 {
		req.Family = rt.FamilyInet6
	}
	if del {
		return h.DelRule(req)
	}
	req.Flags = rt.NLMCreate | rt.NLMExcl
	return h.NewRule(req)
}

// ruleFilter is iprule.c's filter: the selectors of `ip rule list` and
// `ip rule flush`. As in iproute2, a zero fwmark, fwmask, table, ipproto,
// tun_id or port range selects nothing.
type ruleFilter struct {
	family         rt.Family
	not, l3mdev    bool
	pref           *uint32
	tos            *uint8
	fwmark, fwmask uint32
	iif, oif       *string
	uid            *fibrules.UIDRange
	tunID          uint64
	table          uint32
	src, dst       *netip.Prefix
	protocol       uint8
	protocolMask   bool // a protocol other than "all" was given (flush only)
	ipproto        uint8
	sport, dport   fibrules.PortRange
}

// ruleFilterKeywords are iprule_list_flush_or_save's keywords in its order
// of comparison; any other word is a destination prefix
// (ruleFilterDst).
var ruleFilterKeywords = []keyword[*ruleFilter]{
	kw("preference", func(a *args, f *ruleFilter) error {
		n, err := nextValue(a, uint32Value, "preference value is invalid\n")
		p := uint32(n)
		f.pref = &p
		return err
	}).or("order*", "priority*"),
	exact("not", func(_ *args, f *ruleFilter) error { f.not = true; return nil }),
	exact("tos", func(a *args, f *ruleFilter) error {
		t, err := nextValue(a, dsfieldID, "TOS value is invalid\n")
		f.tos = &t
		return err
	}).or("dsfield"),
	exact("fwmark", func(a *args, f *ruleFilter) error {
		mark, mask, _, err := fwmarkValue(a)
		f.fwmark, f.fwmask = mark, mask
		return err
	}),
	exact("dev", func(a *args, f *ruleFilter) error {
		var s string
		err := ruleIfname(a, &s, "\"iif\"/\"dev\" not a valid ifname")
		f.iif = &s
		return err
	}).or("iif"),
	exact("oif", func(a *args, f *ruleFilter) error {
		var s string
		err := ruleIfname(a, &s, "\"oif\" not a valid ifname")
		f.oif = &s
		return err
	}),
	exact("l3mdev", func(_ *args, f *ruleFilter) error { f.l3mdev = true; return nil }),
	exact("uidrange", func(a *args, f *ruleFilter) error {
		u, err := nextValue(a, uidRange, "invalid UID range\n")
		f.uid = &u
		return err
	}),
	kw("tun_id", func(a *args, f *ruleFilter) error {
		n, err := nextValue(a, uint64Value, "\"tun_id\" value is invalid\n")
		f.tunID = n
		return err
	}),
	kw("lookup", func(a *args, f *ruleFilter) error {
		id, err := nextValue(a, tableID, "table id value is invalid\n")
		f.table = id
		return err
	}).or("table*"),
	kw("from", func(a *args, f *ruleFilter) error {
		p, err := ruleFilterPrefix(a, f.family)
		f.src = p
		return err
	}).or("src*"),
	kw("protocol", func(a *args, f *ruleFilter) error {
		p, set, err := nextProtoFilter(a)
		f.protocol, f.protocolMask = p, set
		return err
	}),
	exact("ipproto", func(a *args, f *ruleFilter) error {
		p, err := nextValue(a, ipProtoValue, "Invalid \"ipproto\" value\n")
		f.ipproto = p
		return err
	}),
	exact("sport", func(a *args, f *ruleFilter) error {
		pr, err := nextValue(a, portRange, "invalid port range\n")
		f.sport = pr
		return err
	}),
	exact("dport", func(a *args, f *ruleFilter) error {
		pr, err := nextValue(a, portRange, "invalid dport range\n")
		f.dport = pr
		return err
	}),
}

// ruleFilterDst is the filter's last branch: [dst | to] PREFIX.
func ruleFilterDst(a *args, f *ruleFilter) error {
	if w := a.peek(); matches(w, "dst") || matches(w, "to") {
		if _, err := a.next(); err != nil {
			return err
		}
	}
	v := a.peek()
	p, err := getPrefix(v, f.family)
	f.dst = &p
	return err
}

func ruleFilterPrefix(a *args, family rt.Family) (*netip.Prefix, error) {
	v, err := a.next()
	if err != nil {
		return nil, err
	}
	p, err := getPrefix(v, family)
	return &p, err
}

// selLen is a selector's prefix length as the kernel dumps it (src_len,
// dst_len): 0 for "all".
func selLen(p netip.Prefix) int {
	if !p.IsValid() {
		return 0
	}
	return p.Bits()
}

// selMatch is filter_nlmsg's test of a source or destination: the rule's
// prefix is at least as long as the filter's and its address agrees with
// the filter's on the filter's bits (inet_addr_match_rta).
func selMatch(f *netip.Prefix, r netip.Prefix) bool {
	if f == nil {
		return true
	}
	bits, rl := f.Bits(), selLen(r)
	if bits > rl {
		return false
	}
	if rl == 0 || bits == 0 {
		return true
	}
	a, _ := r.Addr().Prefix(bits)
	b, _ := f.Addr().Prefix(bits)
	return a == b
}

// keep is filter_nlmsg: whether r, a rule of a dump, passes the filter.
func (f *ruleFilter) keep(r fibrules.Rule) bool {
	uidSet := r.Attrs&fibrules.AttrUIDRange != 0
	switch {
	case f.pref != nil && r.Pref != *f.pref,
		f.not && r.Flags&fibrules.FlagInvert == 0,
		!selMatch(f.src, r.Src),
		!selMatch(f.dst, r.Dst),
		f.tos != nil && r.TOS != *f.tos,
		f.fwmark != 0 && r.FwMark != f.fwmark,
		f.fwmask != 0 && r.FwMask != f.fwmask,
		f.iif != nil && r.IIF != *f.iif,
		f.oif != nil && r.OIF != *f.oif,
		f.l3mdev && !r.L3MDev,
		f.uid != nil && (!uidSet || r.UID != *f.uid),
		f.ipproto != 0 && r.IPProto != f.ipproto,
		f.sport.Start != 0 && r.Sport != f.sport,
		f.dport.Start != 0 && r.Dport != f.dport,
		f.tunID != 0 && r.TunID != f.tunID,
		f.table != 0 && r.Table != f.table:
		return false
	}
	return true
}

// ruleList runs iprule_list_flush_or_save's parse and dump: the rules of
// the family (-6, else IPv4) that pass the filter.
func (ip *IP) ruleList(h *handle, argv []string) (*ruleFilter, []fibrules.Rule, rt.Family, error) {
	fam := rt.FamilyInet
	if ip.family == rt.FamilyInet6 {
		fam = rt.FamilyInet6
	}
	f := &ruleFilter{family: fam}
	if err := walk(&args{w: argv}, ruleFilterKeywords, f, ruleFilterDst); err != nil {
		return nil, nil, 0, err
	}
	rules, err := rtnl.ReadAll[fibrules.Rule](h.DumpRules(rtnl.RuleDumpRequest{Family: fam}))
	if err != nil {
		return nil, nil, 0, err
	}
	kept := rules[:0]
	for _, r := range rules {
		if f.keep(r) {
			kept = append(kept, r)
		}
	}
	return f, kept, fam, nil
}

// ruleShow is `ip rule [list [SELECTOR]]`.
func (ip *IP) ruleShow(h *handle, argv []string) error {
	_, rules, _, err := ip.ruleList(h, argv)
	if err != nil {
		return err
	}
	ip.p.startJSON(ip.opts.json, ip.opts.pretty, true)
	for _, r := range rules {
		ip.printRule(r)
	}
	ip.p.endJSON(true)
	return nil
}

// ruleFlush is `ip rule flush [SELECTOR]`: flush_rule deletes each
// selected rule of the protocol given that has a preference (pref 0 is
// not dumped as FRA_PRIORITY and is kept). In JSON it prints the empty
// array of its dump.
func (ip *IP) ruleFlush(h *handle, argv []string) error {
	f, rules, fam, err := ip.ruleList(h, argv)
	if err != nil {
		return err
	}
	ip.p.startJSON(ip.opts.json, ip.opts.pretty, true)
	defer ip.p.endJSON(true)
	for _, r := range rules {
		if f.protocolMask && r.Protocol != f.protocol || r.Pref == 0 || r.Flags&fibrules.FlagPermanent != 0 {
			continue
		}
		del := r
		del.Attrs |= fibrules.AttrPriority
		if err := h.DelRule(rtnl.RuleRequest{Family: fam, Rule: del}); err != nil && !isGone(err) {
			return err
		}
	}
	return nil
}

// printRule is print_rule: one rule of a dump, text and JSON from the
// same calls.
func (ip *IP) printRule(r fibrules.Rule) {
	p := &ip.p
	host := 32
	if r.Family == rt.FamilyInet6 {
		host = 128
	}
	p.openObject("")
	p.uint(printAny, "priority", "%d:\t", uint64(r.Pref))
	if r.Flags&fibrules.FlagInvert != 0 {
		p.null(printAny, "not", "not ", "")
	}
	if n := selLen(r.Src); n > 0 {
		p.str(printFP, "", "from ", "")
		p.str(printAny, "src", "%s", r.Src.Addr().String())
		if n != host {
			p.uint(printAny, "srclen", "/%d", uint64(n))
		}
	} else {
		p.str(printAny, "src", "from %s", "all")
	}
	if n := selLen(r.Dst); n > 0 {
		p.str(printFP, "", " to ", "")
		p.str(printAny, "dst", "%s", r.Dst.Addr().String())
		if n != host {
			p.uint(printAny, "dstlen", "/%d", uint64(n))
		}
	}
	if r.TOS != 0 {
		p.str(printAny, "tos", " tos %s", rt.DSFieldName(r.TOS))
	}
	// fib_nl_fill_rule dumps FRA_FWMARK for a mark and FRA_FWMASK for a
	// mark or a mask.
	if r.FwMark != 0 || r.FwMask != 0 {
		p.hex0x(printAny, "fwmark", " fwmark %#x", uint64(r.FwMark))
		if r.FwMask != 0xffffffff {
			p.hex0x(printAny, "fwmask", "/%#x", uint64(r.FwMask))
		}
	}
	if r.IIF != "" {
		p.str(printFP, "", " iif ", "")
		p.str(printAny, "iif", "%s", r.IIF)
		if r.Flags&fibrules.FlagIIFDetached != 0 {
			p.null(printAny, "iif_detached", " [detached]", "")
		}
	}
	if r.OIF != "" {
		p.str(printFP, "", " oif ", "")
		p.str(printAny, "oif", "%s", r.OIF)
		if r.Flags&fibrules.FlagOIFDetached != 0 {
			p.null(printAny, "oif_detached", " [detached]", "")
		}
	}
	if r.L3MDev {
		p.null(printAny, "l3mdev", " lookup [l3mdev-table]", "")
	}
	if r.Attrs&fibrules.AttrUIDRange != 0 {
		p.uint(printAny, "uid_start", " uidrange %d", uint64(r.UID.Start))
		p.uint(printAny, "uid_end", "-%d", uint64(r.UID.End))
	}
	if r.IPProto != 0 {
		p.str(printAny, "ipproto", " ipproto %s", ipProtoName(r.IPProto))
	}
	printPorts(p, "sport", r.Sport)
	printPorts(p, "dport", r.Dport)
	if r.TunID != 0 {
		p.uint(printAny, "tun_id", " tun_id %d", r.TunID)
	}
	if r.Table != 0 {
		p.str(printAny, "table", " lookup %s", rt.TableName(r.Table))
		if r.SuppressPrefixLen != -1 && r.Attrs&fibrules.AttrSuppressPrefixLen != 0 {
			p.int(printAny, "suppress_prefixlen", " suppress_prefixlength %d", int64(r.SuppressPrefixLen))
		}
		if r.SuppressIfGroup != -1 && r.Attrs&fibrules.AttrSuppressIfGroup != 0 {
			p.str(printAny, "suppress_ifgroup", " suppress_ifgroup %s", groupName(r.SuppressIfGroup))
		}
	}
	switch r.Action {
	case fibrules.Action(rt.TypeNAT):
		// The kernel dumps no RTA_GATEWAY: ip names no address.
		p.null(printAny, "masquerade", " masquerade", "")
	case fibrules.ActGoto:
		if r.Goto != 0 {
			p.uint(printAny, "goto", " goto %d", uint64(r.Goto))
		} else {
			p.str(printAny, "goto", " goto %s", "none")
		}
		if r.Flags&fibrules.FlagUnresolved != 0 {
			p.null(printAny, "unresolved", " [unresolved]", "")
		}
	case fibrules.ActNop:
		p.null(printAny, "nop", " nop", "")
	case fibrules.ActToTable:
	default:
		p.str(printAny, "action", " %s", rt.Type(r.Action).String())
	}
	// The kernel dumps FRA_PROTOCOL for every rule; ip names it when it
	// is not kernel's, or with -details.
	if r.Protocol != 0 && r.Protocol != uint8(rt.ProtoKernel) || ip.opts.details > 0 {
		p.str(printAny, "protocol", " proto %s", rt.Protocol(r.Protocol).String())
	}
	p.str(printFP, "", "\n", "")
	p.closeObject()
}

// printPorts prints a port range of a rule (FRA_SPORT_RANGE,
// FRA_DPORT_RANGE), which the kernel dumps when both ends are set.
func printPorts(p *printer, key string, r fibrules.PortRange) {
	if r.Start == 0 || r.End == 0 {
		return
	}
	if r.Start == r.End {
		p.uint(printAny, key, " "+key+" %d", uint64(r.Start))
		return
	}
	p.uint(printAny, key+"_start", " "+key+" %d", uint64(r.Start))
	p.uint(printAny, key+"_end", "-%d", uint64(r.End))
}

// groupName is iproute2's rtnl_group_n2a: "default" for group 0 (the
// group file iproute2 ships), else the number.
func groupName(g int32) string {
	if g == 0 {
		return "default"
	}
	return strconv.Itoa(int(g))
}
