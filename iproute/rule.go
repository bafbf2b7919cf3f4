// `ip rule`: iproute2's ip/iprule.c (iprule_modify,
// iprule_list_flush_or_save, print_rule).

package iproute

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/rtnl"
)

const ruleUsage = `Usage: ip rule { add | del } SELECTOR ACTION
       ip rule { flush | list }
SELECTOR := [ not ] [ from PREFIX ] [ to PREFIX ] [ tos TOS ]
            [ fwmark FWMARK[/MASK] ]
            [ iif STRING ] [ oif STRING ] [ pref NUMBER ] [ l3mdev ]
            [ uidrange NUMBER-NUMBER ]
            [ ipproto PROTOCOL ]
            [ sport [ NUMBER | NUMBER-NUMBER ]
            [ dport [ NUMBER | NUMBER-NUMBER ] ]
ACTION := [ table TABLE_ID ]
          [ protocol PROTO ]
          [ prohibit | reject | unreachable ]
          [ realms [SRCREALM/]DSTREALM ]
          [ goto NUMBER ]
          SUPPRESSOR
SUPPRESSOR := [ suppress_prefixlength NUMBER ]
              [ suppress_ifgroup DEVGROUP ]
TABLE_ID := [ local | main | default | NUMBER ]
`

func (ip *IP) doRule(h *rtnl.Handle, argv []string) error {
	if len(argv) == 0 {
		return ip.ruleList(h, nil, false)
	}
	cmd, rest := argv[0], argv[1:]
	switch {
	case matches(cmd, "list"), matches(cmd, "lst"), matches(cmd, "show"):
		return ip.ruleList(h, rest, false)
	case matches(cmd, "add"):
		return ip.ruleModify(h, rest, false)
	case matches(cmd, "delete"):
		return ip.ruleModify(h, rest, true)
	case matches(cmd, "flush"):
		return ip.ruleList(h, rest, true)
	case matches(cmd, "help"):
		return usageErr(ruleUsage)
	}
	return unknownCmd(cmd, "rule")
}

// ipProtos is the part of /etc/protocols that inet_proto_a2n and
// inet_proto_n2a consult.
var ipProtos = map[string]uint8{
	"ip": 0, "icmp": 1, "igmp": 2, "ipencap": 4, "tcp": 6, "egp": 8, "pup": 12, "udp": 17,
	"hmp": 20, "xns-idp": 22, "rdp": 27, "iso-tp4": 29, "dccp": 33, "xtp": 36, "ddp": 37,
	"idpr-cmtp": 38, "ipv6": 41, "ipv6-route": 43, "ipv6-frag": 44, "idrp": 45, "rsvp": 46,
	"gre": 47, "esp": 50, "ah": 51, "skip": 57, "ipv6-icmp": 58, "ipv6-nonxt": 59,
	"ipv6-opts": 60, "rspf": 73, "vmtp": 81, "eigrp": 88, "ospf": 89, "ax.25": 93,
	"ipip": 94, "etherip": 97, "encap": 98, "pim": 103, "ipcomp": 108, "vrrp": 112,
	"l2tp": 115, "isis": 124, "sctp": 132, "fc": 133, "mobility-header": 135,
	"udplite": 136, "mpls-in-ip": 137, "manet": 138, "hip": 139, "shim6": 140,
	"wesp": 141, "rohc": 142, "ethernet": 143,
}

// ipProtoValue is iproute2's inet_proto_a2n: a protocol name or number.
func ipProtoValue(s string) (uint8, bool) {
	if p, ok := ipProtos[s]; ok {
		return p, true
	}
	n, ok := getUnsigned(s, 8)
	return uint8(n), ok
}

func ipProtoName(p uint8) string {
	for k, v := range ipProtos {
		if v == p && k != "ip" {
			return k
		}
	}
	if p == 0 {
		return "ip"
	}
	return strconv.Itoa(int(p))
}

// portRange reads sscanf("%hu-%hu").
func portRange(s string) (fibrules.PortRange, bool) {
	lo, hi, dash := strings.Cut(s, "-")
	a, err := strconv.ParseUint(lo, 10, 16)
	if err != nil {
		return fibrules.PortRange{}, false
	}
	if !dash {
		return fibrules.PortRange{Start: uint16(a), End: uint16(a)}, true
	}
	b, err := strconv.ParseUint(hi, 10, 16)
	if err != nil {
		return fibrules.PortRange{}, false
	}
	return fibrules.PortRange{Start: uint16(a), End: uint16(b)}, true
}

func (ip *IP) ruleModify(h *rtnl.Handle, argv []string, del bool) error {
	if !del && len(argv) == 0 {
		return failf("\"ip rule add\" requires arguments.\n")
	}
	var r fibrules.Rule
	family := ip.family
	tableOK := false
	if !del {
		r.Action = fibrules.ActToTable
	}
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case w == "not":
			r.Flags |= fibrules.FlagInvert
		case w == "from", w == "to":
			v, err := a.next()
			if err != nil {
				return err
			}
			// iprule_modify parses both with the message's family, which
			// stays -4/-6 or unset (inet at the end): an IPv6 prefix
			// without -6 goes to the kernel in an IPv4 message, whose
			// fib_nl2rule refuses it unless its length is 0.
			p, err := getPrefix(v, family)
			if err != nil {
				return err
			}
			if w == "from" {
				r.Src = p
			} else {
				r.Dst = p
			}
		case matches(w, "preference"), matches(w, "order"), matches(w, "priority"):
			n, err := nextValue(a, uint32Value, "preference value is invalid\n")
			if err != nil {
				return err
			}
			r.Pref, r.Attrs = uint32(n), r.Attrs|fibrules.AttrPriority
		case w == "tos" || matches(w, "dsfield"):
			t, err := nextValue(a, dsfieldID, "TOS value is invalid\n")
			if err != nil {
				return err
			}
			r.TOS = t
		case w == "fwmark":
			v, err := a.next()
			if err != nil {
				return err
			}
			mark, mask, slash := strings.Cut(v, "/")
			m, ok := getUnsigned(mark, 32)
			if !ok {
				return invarg("fwmark value is invalid\n", mark)
			}
			r.FwMark = uint32(m)
			if slash {
				k, ok := getUnsigned(mask, 32)
				if !ok {
					return invarg("fwmask value is invalid\n", mask)
				}
				r.FwMask, r.Attrs = uint32(k), r.Attrs|fibrules.AttrFwMask
			}
		case matches(w, "protocol"):
			p, err := nextValue(a, protoID, "\"protocol\" value is invalid\n")
			if err != nil {
				return err
			}
			r.Protocol = p
		case matches(w, "table"), w == "lookup":
			id, err := nextValue(a, tableID, "invalid table ID\n")
			if err != nil {
				return err
			}
			r.Table, tableOK = id, true
		case matches(w, "suppress_prefixlength"), w == "sup_pl":
			v, err := a.next()
			if err != nil {
				return err
			}
			n, err2 := strconv.ParseInt(v, 0, 32)
			if err2 != nil || n < 0 {
				return invarg("suppress_prefixlength value is invalid\n", v)
			}
			r.SuppressPrefixLen, r.Attrs = int32(n), r.Attrs|fibrules.AttrSuppressPrefixLen
		case matches(w, "suppress_ifgroup"), w == "sup_group":
			g, err := nextValue(a, groupID, "Invalid \"suppress_ifgroup\" value\n")
			if err != nil {
				return err
			}
			r.SuppressIfGroup, r.Attrs = int32(g), r.Attrs|fibrules.AttrSuppressIfGroup
		case w == "dev", w == "iif":
			v, err := a.next()
			if err != nil {
				return err
			}
			if !checkIfname(v) {
				return invarg("\"iif\"/\"dev\" not a valid ifname", v)
			}
			r.IIF = v
		case w == "oif":
			v, err := a.next()
			if err != nil {
				return err
			}
			if !checkIfname(v) {
				return invarg("\"oif\" not a valid ifname", v)
			}
			r.OIF = v
		case w == "l3mdev":
			r.L3MDev, tableOK = true, true
		case w == "uidrange":
			v, err := a.next()
			if err != nil {
				return err
			}
			var lo, hi uint32
			if n, _ := fmt.Sscanf(v, "%d-%d", &lo, &hi); n != 2 {
				return invarg("invalid UID range\n", v)
			}
			r.UID, r.Attrs = fibrules.UIDRange{Start: lo, End: hi}, r.Attrs|fibrules.AttrUIDRange
		case w == "ipproto":
			p, err := nextValue(a, ipProtoValue, "Invalid \"ipproto\" value\n")
			if err != nil {
				return err
			}
			r.IPProto = p
		case w == "sport", w == "dport":
			pr, err := nextValue(a, portRange, "invalid port range\n")
			if err != nil {
				return err
			}
			if w == "sport" {
				r.Sport = pr
			} else {
				r.Dport = pr
			}
		default:
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
				r.Action, r.Goto = fibrules.ActGoto, uint32(n)
			case matches(w, "nop"):
				r.Action = fibrules.ActNop
			default:
				ty, ok := routeTypeID(w)
				if !ok {
					return invarg("Failed to parse rule type", w)
				}
				r.Action = fibrules.Action(ty)
			}
			tableOK = true
		}
	}
	if family == 0 {
		family = syscall.AF_INET
	}
	if !tableOK && !del {
		r.Table = 254
	}
	fam := rtnl.FamilyV4
	if family == syscall.AF_INET6 {
		fam = rtnl.FamilyV6
	}
	if del {
		return h.RuleDel(fam, r)
	}
	return h.RuleAdd(fam, r)
}

// ruleFilter is iprule_list_flush_or_save's filter: from and to select the
// rules whose prefix lies inside the given one, the other fields must be
// equal.
type ruleFilter struct {
	not               bool
	src, dst          *netip.Prefix
	pref, table, mark *uint32
	mask              *uint32
	iif, oif          *string
	proto             *uint8
	l3mdev            bool
}

func (f *ruleFilter) keep(r fibrules.Rule) bool {
	switch {
	case f.not && r.Flags&fibrules.FlagInvert == 0,
		f.src != nil && f.src.Bits() > 0 && (!r.Src.IsValid() || r.Src.Bits() == 0 || !f.src.Masked().Contains(r.Src.Addr())),
		f.dst != nil && f.dst.Bits() > 0 && (!r.Dst.IsValid() || r.Dst.Bits() == 0 || !f.dst.Masked().Contains(r.Dst.Addr())),
		f.pref != nil && r.Pref != *f.pref,
		f.table != nil && (r.Action != fibrules.ActToTable || r.Table != *f.table),
		f.mark != nil && r.FwMark != *f.mark,
		f.mask != nil && r.FwMask != *f.mask,
		f.iif != nil && r.IIF != *f.iif,
		f.oif != nil && r.OIF != *f.oif,
		f.l3mdev && !r.L3MDev:
		return false
	}
	return true
}

func (ip *IP) parseRuleFilter(argv []string, family int) (*ruleFilter, error) {
	f := &ruleFilter{}
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case w == "not":
			f.not = true
		case w == "l3mdev":
			f.l3mdev = true
		case w == "from", w == "to":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			p, err := getPrefix(v, family)
			if err != nil {
				return nil, err
			}
			if w == "from" {
				f.src = &p
			} else {
				f.dst = &p
			}
		case matches(w, "preference"), matches(w, "order"), matches(w, "priority"):
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			n, ok := getUnsigned(v, 32)
			if !ok {
				return nil, invarg("preference value is invalid\n", v)
			}
			p := uint32(n)
			f.pref = &p
		case matches(w, "table"), w == "lookup":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			id, ok := tableID(v)
			if !ok {
				return nil, invarg("table id value is invalid\n", v)
			}
			f.table = &id
		case w == "fwmark":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			mark, mask, slash := strings.Cut(v, "/")
			m, ok := getUnsigned(mark, 32)
			if !ok {
				return nil, invarg("fwmark value is invalid\n", mark)
			}
			mm := uint32(m)
			f.mark = &mm
			if slash {
				k, ok := getUnsigned(mask, 32)
				if !ok {
					return nil, invarg("fwmask value is invalid\n", mask)
				}
				kk := uint32(k)
				f.mask = &kk
			}
		case w == "dev", w == "iif":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			f.iif = &v
		case w == "oif":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			f.oif = &v
		case matches(w, "protocol"):
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			// iproute2 6.1 reads the protocol and selects by it only in
			// `ip rule save`: a listing shows every rule.
			if _, ok := protoID(v); !ok {
				return nil, invarg("invalid \"protocol\"\n", v)
			}
		default:
			return nil, notSupported("ip rule list", w)
		}
	}
	return f, nil
}

func (ip *IP) ruleList(h *rtnl.Handle, argv []string, flush bool) error {
	fam, family := rtnl.FamilyV4, syscall.AF_INET
	if ip.family == syscall.AF_INET6 {
		fam, family = rtnl.FamilyV6, syscall.AF_INET6
	}
	f, err := ip.parseRuleFilter(argv, family)
	if err != nil {
		return err
	}
	rules, err := h.RuleList(fam)
	if err != nil {
		return err
	}
	for _, r := range rules {
		if !f.keep(r) {
			continue
		}
		if flush {
			if r.Pref == 0 || r.Flags&fibrules.FlagPermanent != 0 {
				continue
			}
			del := r
			del.Attrs |= fibrules.AttrPriority
			if err := h.RuleDel(fam, del); err != nil && !isGone(err) {
				return err
			}
			continue
		}
		ip.out.WriteString(ruleText(r))
	}
	return nil
}

// ruleText is print_rule's line for r: fibrules' rendering, with the IP
// protocol and the rule protocol named as iproute2 names them.
func ruleText(r fibrules.Rule) string {
	ipproto, proto := r.IPProto, r.Protocol
	r.IPProto, r.Protocol = 0, 0
	s := r.String()
	if ipproto != 0 {
		// ipproto comes after the uid range, before the ports and the action.
		mark := " ipproto " + strconv.Itoa(int(ipproto))
		r.IPProto = ipproto
		s2 := r.String()
		s = strings.Replace(s2, mark, " ipproto "+ipProtoName(ipproto), 1)
	}
	if proto != 0 && proto != 2 {
		s += " proto " + protoName(proto)
	}
	return s + "\n"
}

// protoName is rtnl_rtprot_n2a.
func protoName(p uint8) string {
	for k, v := range protoNames {
		if v == p && k != "unspec" {
			return k
		}
	}
	return strconv.Itoa(int(p))
}
