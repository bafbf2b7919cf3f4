// Rule requests on the wire: RTM_NEWRULE, RTM_DELRULE and RTM_GETRULE,
// struct fib_rule_hdr and the FRA_* attributes of
// include/uapi/linux/fib_rules.h, served by the handlers of
// net/core/fib_rules.c (fib_nl_newrule, fib_nl_delrule, fib_nl_dumprule),
// which rtnetlink registers for PF_UNSPEC and which pick the family's
// rules from the header.

package nlwire

import (
	"cmp"
	"encoding/binary"
	"net/netip"
	"slices"
	"syscall"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// frhLen is sizeof(struct fib_rule_hdr): family, dst_len, src_len, tos,
// table, res1, res2, action (a byte each) and flags (u32).
const frhLen = 12

// fibRulePolicy is fib_rule_policy (net/core/fib_rules.c). FRA_SRC and
// FRA_DST are not in it (fib_nl2rule checks their length against the
// family); attributes from FRA_DSCP on are validated strictly even by the
// handlers' liberal parse.
var fibRulePolicy = policy{
	strictStart: uapi.FRA_DSCP,
	attrs: []attrPolicy{
		uapi.FRA_IIFNAME:            {typ: nlaString, len: 15},
		uapi.FRA_GOTO:               {typ: nlaU32},
		uapi.FRA_PRIORITY:           {typ: nlaU32},
		uapi.FRA_FWMARK:             {typ: nlaU32},
		uapi.FRA_FLOW:               {typ: nlaU32},
		uapi.FRA_TUN_ID:             {typ: nlaU64},
		uapi.FRA_SUPPRESS_IFGROUP:   {typ: nlaU32},
		uapi.FRA_SUPPRESS_PREFIXLEN: {typ: nlaU32},
		uapi.FRA_TABLE:              {typ: nlaU32},
		uapi.FRA_FWMASK:             {typ: nlaU32},
		uapi.FRA_OIFNAME:            {typ: nlaString, len: 15},
		uapi.FRA_L3MDEV:             {typ: nlaU8},
		uapi.FRA_UID_RANGE:          {typ: nlaUnspec, len: 8},
		uapi.FRA_PROTOCOL:           {typ: nlaU8},
		uapi.FRA_IP_PROTO:           {typ: nlaU8},
		uapi.FRA_SPORT_RANGE:        {typ: nlaUnspec, len: 4},
		uapi.FRA_DPORT_RANGE:        {typ: nlaUnspec, len: 4},
		uapi.FRA_DSCP:               polMax(nlaU8, dscpMax),
		uapi.FRA_FLOWLABEL:          {typ: nlaBE32},
		uapi.FRA_FLOWLABEL_MASK:     {typ: nlaBE32},
		uapi.FRA_SPORT_MASK:         {typ: nlaU16},
		uapi.FRA_DPORT_MASK:         {typ: nlaU16},
		uapi.FRA_DSCP_MASK:          polMask(nlaU8, dscpMax),
	},
}

// The DSCP attributes' NLA_POLICY_MAX and NLA_POLICY_MASK (INET_DSCP_MASK
// >> 2).
const dscpMax = 0x3f

func init() {
	register(uapi.AF_UNSPEC, rt.RTMNewRule, handler{do: newRule})
	register(uapi.AF_UNSPEC, rt.RTMDelRule, handler{do: delRule})
	register(uapi.AF_UNSPEC, rt.RTMGetRule, handler{dump: dumpRules})
	registerNotify(rt.RTMNewRule, notifyRule)
	registerNotify(rt.RTMDelRule, notifyRule)
}

// ruleParse is what fib_newrule and fib_delrule do before fib_nl2rule:
// the header's length, the family's rules (rtnl.RuleFamily), and
// nlmsg_parse_deprecated with fib_rule_policy, whose errors keep their
// attribute offset but say "Error parsing msg".
func ruleParse(r *request) (rt.Family, attrs, error) {
	if len(r.body) < frhLen {
		return 0, attrs{}, errno.New(syscall.EINVAL, "Invalid msg length")
	}
	fam := rt.Family(r.body[0])
	if err := rtnl.RuleFamily(fam); err != nil {
		return 0, attrs{}, err
	}
	tb, err := parseAttrs(r.body[frhLen:], 16+frhLen, fibRulePolicy, validateLiberal)
	if err != nil {
		return 0, tb, withMsg(err, "Error parsing msg")
	}
	return fam, tb, nil
}

// ruleNotModelled refuses the FRA_* attributes netsim's rules do not
// have: DSCP and flow label selectors, port masks and (for IPv4) realms.
// add is RTM_NEWRULE, whose IPv4 configure refuses a flow label.
func ruleNotModelled(fam rt.Family, tb attrs, add bool) error {
	for _, a := range []struct {
		t    uint16
		name string
	}{
		{uapi.FRA_DSCP, "FRA_DSCP"}, {uapi.FRA_DSCP_MASK, "FRA_DSCP_MASK"},
		{uapi.FRA_SPORT_MASK, "FRA_SPORT_MASK"}, {uapi.FRA_DPORT_MASK, "FRA_DPORT_MASK"},
	} {
		if tb.has(a.t) {
			return errno.New(syscall.EOPNOTSUPP, a.name+" is not modelled")
		}
	}
	if tb.has(uapi.FRA_FLOWLABEL) || tb.has(uapi.FRA_FLOWLABEL_MASK) {
		if fam == rt.FamilyInet6 {
			return errno.New(syscall.EOPNOTSUPP, "FRA_FLOWLABEL is not modelled")
		}
		if add {
			return errno.New(syscall.EINVAL, "Flow label cannot be specified for IPv4 FIB rules")
		}
	}
	if fam == rt.FamilyInet && tb.u32(uapi.FRA_FLOW) != 0 {
		// An IPv4 rule's realm (tclassid); IPv6 ignores FRA_FLOW.
		return errno.New(syscall.EOPNOTSUPP, "FRA_FLOW (realms) is not modelled")
	}
	return nil
}

// ruleFromMsg builds the rule a request describes, with the checks of
// fib_nl2rule that the rule cannot carry made here first, in the
// kernel's order: the source and destination prefixes (their lengths and
// the attributes' sizes) and the l3mdev value.
//
// Kernel: fib_nl2rule (net/core/fib_rules.c).
func ruleFromMsg(fam rt.Family, body []byte, tb attrs) (fibrules.Rule, error) {
	var r fibrules.Rule
	size := 4
	if fam == rt.FamilyInet6 {
		size = 16
	}
	prefix := func(t uint16, plen uint8, msg string) (netip.Prefix, error) {
		if plen == 0 {
			return netip.Prefix{}, nil
		}
		b := tb.get(t)
		if b == nil || int(plen) > size*8 || len(b) != size {
			return netip.Prefix{}, errno.New(syscall.EINVAL, msg)
		}
		a, _ := netip.AddrFromSlice(b)
		return netip.PrefixFrom(a, int(plen)), nil
	}
	var err error
	if r.Src, err = prefix(uapi.FRA_SRC, body[2], "Invalid source address"); err != nil {
		return r, err
	}
	if r.Dst, err = prefix(uapi.FRA_DST, body[1], "Invalid dst address"); err != nil {
		return r, err
	}
	if tb.has(uapi.FRA_L3MDEV) {
		if tb.u8(uapi.FRA_L3MDEV) != 1 {
			return r, errno.New(syscall.EINVAL, "Invalid l3mdev attribute")
		}
		r.L3MDev = true
	}
	r.TOS = body[3]
	r.Table = uint32(body[4])
	r.Action = fibrules.Action(body[7])
	r.Flags = fibrules.Flags(binary.LittleEndian.Uint32(body[8:]))
	if tb.has(uapi.FRA_TABLE) {
		r.Table = tb.u32(uapi.FRA_TABLE)
	}
	if tb.has(uapi.FRA_PRIORITY) {
		r.Pref = tb.u32(uapi.FRA_PRIORITY)
		r.Attrs |= fibrules.AttrPriority
	}
	r.Protocol = tb.u8(uapi.FRA_PROTOCOL)
	if tb.has(uapi.FRA_IIFNAME) {
		r.IIF = tb.str(uapi.FRA_IIFNAME)
		r.Attrs |= fibrules.AttrIIFName
	}
	if tb.has(uapi.FRA_OIFNAME) {
		r.OIF = tb.str(uapi.FRA_OIFNAME)
		r.Attrs |= fibrules.AttrOIFName
	}
	r.FwMark = tb.u32(uapi.FRA_FWMARK)
	if tb.has(uapi.FRA_FWMASK) {
		r.FwMask = tb.u32(uapi.FRA_FWMASK)
		r.Attrs |= fibrules.AttrFwMask
	}
	if b := tb.get(uapi.FRA_TUN_ID); len(b) >= 8 {
		r.TunID = binary.BigEndian.Uint64(b) // nla_get_be64
	}
	if tb.has(uapi.FRA_SUPPRESS_PREFIXLEN) {
		r.SuppressPrefixLen = int32(tb.u32(uapi.FRA_SUPPRESS_PREFIXLEN))
		r.Attrs |= fibrules.AttrSuppressPrefixLen
	}
	if tb.has(uapi.FRA_SUPPRESS_IFGROUP) {
		r.SuppressIfGroup = int32(tb.u32(uapi.FRA_SUPPRESS_IFGROUP))
		r.Attrs |= fibrules.AttrSuppressIfGroup
	}
	if tb.has(uapi.FRA_GOTO) {
		r.Goto = tb.u32(uapi.FRA_GOTO)
		r.Attrs |= fibrules.AttrGoto
	}
	if b := tb.get(uapi.FRA_UID_RANGE); b != nil {
		r.UID = fibrules.UIDRange{Start: binary.LittleEndian.Uint32(b), End: binary.LittleEndian.Uint32(b[4:])}
		r.Attrs |= fibrules.AttrUIDRange
	}
	r.IPProto = tb.u8(uapi.FRA_IP_PROTO)
	if b := tb.get(uapi.FRA_SPORT_RANGE); b != nil {
		r.Sport = fibrules.PortRange{Start: binary.LittleEndian.Uint16(b), End: binary.LittleEndian.Uint16(b[2:])}
		r.Attrs |= fibrules.AttrSportRange
	}
	if b := tb.get(uapi.FRA_DPORT_RANGE); b != nil {
		r.Dport = fibrules.PortRange{Start: binary.LittleEndian.Uint16(b), End: binary.LittleEndian.Uint16(b[2:])}
		r.Attrs |= fibrules.AttrDportRange
	}
	return r, nil
}

// newRule serves RTM_NEWRULE.
//
// Kernel: fib_nl_newrule, fib_newrule (net/core/fib_rules.c).
func newRule(r *request) ([]netlink.Message, error) {
	fam, rule, err := ruleRequest(r, true)
	if err != nil {
		return nil, err
	}
	return nil, r.h.NewRule(rtnl.RuleRequest{Origin: r.origin, Flags: rt.NLMFlags(r.hdr.Flags), Family: fam, Rule: rule})
}

// delRule serves RTM_DELRULE: the first rule that matches what the
// request sets goes.
//
// Kernel: fib_nl_delrule, fib_delrule, rule_find (net/core/fib_rules.c).
func delRule(r *request) ([]netlink.Message, error) {
	fam, rule, err := ruleRequest(r, false)
	if err != nil {
		return nil, err
	}
	return nil, r.h.DelRule(rtnl.RuleRequest{Origin: r.origin, Family: fam, Rule: rule})
}

// ruleRequest is what fib_newrule (add) and fib_delrule share: the
// header and attributes parsed, the attributes netsim does not model
// refused, and the rule the message describes (fib_nl2rule).
func ruleRequest(r *request, add bool) (rt.Family, fibrules.Rule, error) {
	fam, tb, err := ruleParse(r)
	if err != nil {
		return 0, fibrules.Rule{}, err
	}
	if err := ruleNotModelled(fam, tb, add); err != nil {
		return 0, fibrules.Rule{}, err
	}
	rule, err := ruleFromMsg(fam, r.body, tb)
	return fam, rule, err
}

// dumpRules serves an RTM_GETRULE dump: one family's rules, or with
// AF_UNSPEC every family's.
//
// Kernel: fib_nl_dumprule, fib_valid_dumprule_req (net/core/fib_rules.c).
func dumpRules(r *request) (dumper, error) {
	hdr := r.body[1:min(len(r.body), frhLen)]
	d, err := r.h.DumpRules(rtnl.RuleDumpRequest{
		Origin: r.origin, Family: rt.Family(r.family()), Strict: r.strict,
		ShortHeader: len(r.body) < frhLen, HeaderSet: slices.ContainsFunc(hdr, func(b byte) bool { return b != 0 }),
		Attrs: len(r.body) > frhLen,
	})
	if err != nil {
		return nil, err
	}
	return &ruleDumper{d}, nil
}

// ruleDumper puts a rule dump's parts.
type ruleDumper struct{ d *rtnl.RuleDump }

// fill puts the rules from the dump's cursor on, family after family.
//
// Kernel: fib_nl_dumprule, dump_rules (net/core/fib_rules.c).
func (d *ruleDumper) fill(p *part) (bool, error) {
	var perr error
	done, err := d.d.Next(putEach(p, rt.RTMNewRule, 0,
		func(r *fibrules.Rule, _ int) ([]byte, error) { return encodeRule(r, r.Family) }, &perr))
	if err != nil || perr != nil {
		return false, cmp.Or(err, perr)
	}
	return done, nil
}

func (d *ruleDumper) close() { d.d.Close() }

// notifyRule builds RTM_NEWRULE and RTM_DELRULE notifications, sent to the
// family's rule group.
//
// Kernel: notify_rule_change (net/core/fib_rules.c).
func notifyRule(n rtnl.Notification) ([]byte, uint32, error) {
	if n.Rule == nil {
		return nil, 0, nil
	}
	fam := rt.Family(n.Family)
	if n.Rule.Family != 0 {
		fam = n.Rule.Family
	}
	switch fam {
	case rt.FamilyInet:
		b, err := encodeRule(n.Rule, fam)
		return b, uapi.RTNLGRP_IPV4_RULE, err
	case rt.FamilyInet6:
		b, err := encodeRule(n.Rule, fam)
		return b, uapi.RTNLGRP_IPV6_RULE, err
	}
	return nil, 0, nil
}

// prefixLen is a selector's prefix length, 0 for "all".
func prefixLen(p netip.Prefix) uint8 {
	if !p.IsValid() {
		return 0
	}
	return uint8(p.Bits())
}

// encodeRule encodes a rule as a dump and a notification carry it, the
// attributes in the kernel's order.
//
// Kernel: fib_nl_fill_rule (net/core/fib_rules.c), fib4_rule_fill
// (net/ipv4/fib_rules.c), fib6_rule_fill (net/ipv6/fib6_rules.c).
func encodeRule(r *fibrules.Rule, fam rt.Family) ([]byte, error) {
	hdr := make([]byte, frhLen)
	hdr[0] = uint8(fam)
	hdr[1] = prefixLen(r.Dst)
	hdr[2] = prefixLen(r.Src)
	hdr[3] = r.TOS
	hdr[4] = rtmTable(r.Table)
	hdr[7] = uint8(r.Action)
	binary.LittleEndian.PutUint32(hdr[8:], uint32(r.Flags))

	ae := netlink.NewAttributeEncoder()
	ae.Uint32(uapi.FRA_TABLE, r.Table)
	ae.Uint32(uapi.FRA_SUPPRESS_PREFIXLEN, uint32(r.SuppressPrefixLen))
	ae.Uint8(uapi.FRA_PROTOCOL, r.Protocol)
	if r.IIF != "" {
		ae.String(uapi.FRA_IIFNAME, r.IIF)
	}
	if r.OIF != "" {
		ae.String(uapi.FRA_OIFNAME, r.OIF)
	}
	if r.Pref != 0 {
		ae.Uint32(uapi.FRA_PRIORITY, r.Pref)
	}
	if r.FwMark != 0 {
		ae.Uint32(uapi.FRA_FWMARK, r.FwMark)
	}
	if r.FwMark != 0 || r.FwMask != 0 {
		ae.Uint32(uapi.FRA_FWMASK, r.FwMask)
	}
	if r.Goto != 0 {
		ae.Uint32(uapi.FRA_GOTO, r.Goto)
	}
	if r.TunID != 0 {
		ae.Bytes(uapi.FRA_TUN_ID, binary.BigEndian.AppendUint64(nil, r.TunID))
	}
	if r.L3MDev {
		ae.Uint8(uapi.FRA_L3MDEV, 1)
	}
	if r.Attrs&fibrules.AttrUIDRange != 0 {
		b := binary.LittleEndian.AppendUint32(nil, r.UID.Start)
		ae.Bytes(uapi.FRA_UID_RANGE, binary.LittleEndian.AppendUint32(b, r.UID.End))
	}
	ports := func(rangeAttr, maskAttr uint16, p fibrules.PortRange) {
		if p.Start == 0 || p.End == 0 {
			return
		}
		b := binary.LittleEndian.AppendUint16(nil, p.Start)
		ae.Bytes(rangeAttr, binary.LittleEndian.AppendUint16(b, p.End))
		if p.Start == p.End {
			// A single port: fib_nl2rule sets the full port mask.
			ae.Uint16(maskAttr, 0xffff)
		}
	}
	ports(uapi.FRA_SPORT_RANGE, uapi.FRA_SPORT_MASK, r.Sport)
	ports(uapi.FRA_DPORT_RANGE, uapi.FRA_DPORT_MASK, r.Dport)
	if r.IPProto != 0 {
		ae.Uint8(uapi.FRA_IP_PROTO, r.IPProto)
	}
	if r.SuppressIfGroup != -1 {
		ae.Uint32(uapi.FRA_SUPPRESS_IFGROUP, uint32(r.SuppressIfGroup))
	}
	if r.Dst.IsValid() && r.Dst.Bits() > 0 {
		ae.Bytes(uapi.FRA_DST, r.Dst.Addr().AsSlice())
	}
	if r.Src.IsValid() && r.Src.Bits() > 0 {
		ae.Bytes(uapi.FRA_SRC, r.Src.Addr().AsSlice())
	}
	return encodeAttrs(hdr, ae)
}
