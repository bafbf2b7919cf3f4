// `ip link add|set ... type vxlan ARGS` and the vxlan part of `ip -d link
// show`: iproute2 6.1's ip/iplink_vxlan.c (vxlan_parse_opt,
// vxlan_print_opt).

package iproute

import (
	"fmt"
	"io"
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// vxlanExplain is vxlan's print_explain.
const vxlanExplain = `Usage: ... vxlan id VNI
		[ { group | remote } IP_ADDRESS ]
		[ local ADDR ]
		[ ttl TTL ]
		[ tos TOS ]
		[ df DF ]
		[ flowlabel LABEL ]
		[ dev PHYS_DEV ]
		[ dstport PORT ]
		[ srcport MIN MAX ]
		[ [no]learning ]
		[ [no]proxy ]
		[ [no]rsc ]
		[ [no]l2miss ]
		[ [no]l3miss ]
		[ ageing SECONDS ]
		[ maxaddress NUMBER ]
		[ [no]udpcsum ]
		[ [no]udp6zerocsumtx ]
		[ [no]udp6zerocsumrx ]
		[ [no]remcsumtx ] [ [no]remcsumrx ]
		[ [no]external ] [ gbp ] [ gpe ]
		[ [no]vnifilter ]

Where:	VNI	:= 0-16777215
	ADDR	:= { IP_ADDRESS | any }
	TOS	:= { NUMBER | inherit }
	TTL	:= { 1..255 | auto | inherit }
	DF	:= { unset | set | inherit }
	LABEL := 0-1048575
`

// vxlanParse is vxlan_parse_opt's state: what ip has read, and which
// attributes it has seen (check_duparg's bits).
type vxlanParse struct {
	s                 netdev.VxlanSettings
	seen              map[string]bool
	saddr, daddr      netip.Addr
	vni               uint32
	learning          bool
	metadata          bool
	vnifilter         bool
	dstport           uint16
	hasPort, hasID    bool
	hasLink, hasGroup bool
}

// dup is check_duparg: a second word for the same attribute is
// duparg2(key, value).
func (p *vxlanParse) dup(attr, key, value string) error {
	if p.seen[attr] {
		return duparg2(key, value)
	}
	p.seen[attr] = true
	return nil
}

// vxlanFail is parse_opt returning -1 with a message of its own: ip exits
// with status 1.
func vxlanFail(msg string) error { return failf("%s", msg) }

// parseVxlan is vxlan_parse_opt: the words after "type vxlan" of `ip
// link add` (setOp false) or of `ip link set` (true), with ip's -4/-6
// family; its warning about the destination port goes to stderr.
func parseVxlan(h *handle, words []string, setOp bool, family rt.Family, stderr io.Writer) (netdev.VxlanSettings, error) {
	p := &vxlanParse{seen: map[string]bool{}, learning: true}
	p.s.Data = true
	a := &args{w: words}
	for ; a.more(); a.skip() {
		w := a.peek()
		var err error
		switch {
		case matches(w, "id"), matches(w, "vni"):
			err = p.vniArg(a)
		case matches(w, "group"), matches(w, "remote"):
			err = p.groupArg(a, matches(w, "group"))
		case matches(w, "local"):
			err = p.localArg(a)
		case matches(w, "dev"):
			var v string
			if v, err = a.next(); err == nil {
				if err = p.dup("link", "dev", v); err == nil {
					link := h.LinkIndex(v)
					if link == 0 {
						return p.s, &argError{msg: fmt.Sprintf("Cannot find device \"%s\"\n", v), status: exitArg}
					}
					p.s.Link, p.hasLink = &link, true
				}
			}
		case matches(w, "ttl"), matches(w, "hoplimit"):
			err = p.ttlArg(a)
		case matches(w, "tos"), matches(w, "dsfield"):
			var v string
			if v, err = a.next(); err == nil {
				if err = p.dup("tos", "tos", v); err == nil {
					tos := uint8(1)
					if v != "inherit" {
						var ok bool
						if tos, ok = rt.ParseDSField(v); !ok {
							return p.s, invarg("bad TOS value", v)
						}
					}
					p.s.TOS = &tos
				}
			}
		case matches(w, "df"):
			var v string
			if v, err = a.next(); err == nil {
				if err = p.dup("df", "df", v); err == nil {
					df, ok := map[string]uint8{"unset": 0, "set": 1, "inherit": 2}[v]
					if !ok {
						return p.s, invarg("DF must be 'unset', 'set' or 'inherit'", v)
					}
					p.s.DF = &df
				}
			}
		case matches(w, "label"), matches(w, "flowlabel"):
			var v string
			if v, err = a.next(); err == nil {
				if err = p.dup("label", "flowlabel", v); err == nil {
					n, ok := getUnsigned(v, 32)
					if !ok || n&^0xfffff != 0 {
						return p.s, invarg("invalid flowlabel", v)
					}
					l := uint32(n)
					p.s.Label = &l
				}
			}
		case matches(w, "ageing"):
			p.s.Ageing, err = p.u32OrWord(a, "ageing", "ageing", "none", "ageing timer")
		case matches(w, "maxaddress"):
			p.s.Limit, err = p.u32OrWord(a, "limit", "maxaddress", "unlimited", "max addresses")
		case matches(w, "port"), matches(w, "srcport"):
			err = p.srcportArg(a)
		case matches(w, "dstport"):
			var v string
			if v, err = a.next(); err == nil {
				if err = p.dup("port", "dstport", v); err == nil {
					n, ok := getUnsigned(v, 16)
					if !ok {
						return p.s, invarg("dst port", v)
					}
					p.dstport, p.hasPort = uint16(n), true
				}
			}
		case matches(w, "nolearning"), matches(w, "learning"):
			if err = p.dup("learning", w, w); err == nil {
				p.learning = matches(w, "learning")
			}
		case p.flagWord(w) != nil:
			f := p.flagWord(w)
			if err = p.dup(f.name, w, w); err == nil {
				*f.dst = new(matches(w, f.name))
			}
		case matches(w, "external"), matches(w, "noexternal"):
			if err = p.dup("external", w, w); err == nil {
				p.metadata = matches(w, "external")
				if p.metadata {
					p.learning = false
				}
				p.s.CollectMetadata = new(p.metadata)
			}
		case matches(w, "gbp"):
			if err = p.dup("gbp", w, w); err == nil {
				p.s.GBP = true
			}
		case matches(w, "gpe"):
			if err = p.dup("gpe", w, w); err == nil {
				p.s.GPE = true
			}
		case w == "vnifilter", w == "novnifilter":
			if err = p.dup("vnifilter", w, w); err == nil {
				p.vnifilter = w == "vnifilter"
				p.s.VNIFilter = new(p.vnifilter)
			}
		case matches(w, "help"):
			return p.s, vxlanFail(vxlanExplain)
		default:
			return p.s, vxlanFail(fmt.Sprintf("vxlan: unknown command \"%s\"?\n", w) + vxlanExplain)
		}
		if err != nil {
			return p.s, err
		}
	}
	switch {
	case !p.metadata && p.vnifilter:
		return p.s, vxlanFail("vxlan: vnifilter is valid only when 'external' is set\n")
	case p.metadata && p.hasID:
		return p.s, vxlanFail("vxlan: both 'external' and vni cannot be specified\n")
	case !p.metadata && !p.vnifilter && !p.hasID && !setOp:
		return p.s, vxlanFail("vxlan: missing virtual network identifier\n")
	case p.daddr.IsValid() && p.daddr.IsMulticast() && !p.hasLink:
		return p.s, vxlanFail("vxlan: 'group' requires 'dev' to be specified\n")
	}
	switch {
	case !p.hasPort && p.s.GPE:
		p.dstport = 4790
	case !p.hasPort && !setOp:
		fmt.Fprint(stderr, "vxlan: destination port not specified\nWill use Linux kernel default (non-standard value)\n"+
			"Use 'dstport 4789' to get the IANA assigned value\nUse 'dstport 0' to get default and quiet this message\n")
	}
	if p.hasID {
		p.s.ID = &p.vni
	}
	selected := false
	if p.saddr.IsValid() {
		p.s.Local, selected = &p.saddr, true
	}
	if p.daddr.IsValid() {
		p.s.Group, selected = &p.daddr, true
	}
	if !selected {
		// get_addr(&daddr, "default", preferred_family): the family's
		// unspecified address as the group.
		switch family {
		case rt.FamilyInet:
			p.s.Group = new(netip.IPv4Unspecified())
		case rt.FamilyInet6:
			p.s.Group = new(netip.IPv6Unspecified())
		}
	}
	if !setOp || p.seen["learning"] {
		p.s.Learning = &p.learning
	}
	if p.dstport != 0 {
		p.s.Port = &p.dstport
	}
	return p.s, nil
}

func (p *vxlanParse) vniArg(a *args) error {
	v, err := a.next()
	if err != nil {
		return err
	}
	if err := p.dup("id", "id", v); err != nil {
		return err
	}
	n, ok := getUnsigned(v, 32)
	if !ok || n >= 1<<24 {
		return invarg("invalid id", v)
	}
	p.vni, p.hasID = uint32(n), true
	return nil
}

// vxlanAddr is get_addr for vxlan's addresses: "any", "all" and "default"
// parse to an address that is not an inet one.
func vxlanAddr(v string, family netip.Addr) (netip.Addr, bool, error) {
	if v == "any" || v == "all" || v == "default" {
		return netip.Addr{}, false, nil
	}
	f := rt.Family(0)
	if family.IsValid() {
		f = rt.FamilyInet
		if family.Is6() {
			f = rt.FamilyInet6
		}
	}
	addr, err := getAddr(v, f)
	return addr, err == nil, err
}

func (p *vxlanParse) groupArg(a *args, group bool) error {
	key := "remote"
	if group {
		key = "group"
	}
	if p.daddr.IsValid() && p.daddr.IsMulticast() != group {
		return vxlanFail("vxlan: both group and remote cannot be specified\n")
	}
	v, err := a.next()
	if err != nil {
		return err
	}
	if err := p.dup("group", key, v); err != nil {
		return err
	}
	addr, inet, err := vxlanAddr(v, p.saddr)
	if err != nil {
		return err
	}
	if !inet || addr.IsMulticast() != group {
		return invarg("invalid "+key+" address", v)
	}
	p.daddr = addr
	return nil
}

func (p *vxlanParse) localArg(a *args) error {
	v, err := a.next()
	if err != nil {
		return err
	}
	if err := p.dup("local", "local", v); err != nil {
		return err
	}
	addr, inet, err := vxlanAddr(v, p.daddr)
	if err != nil {
		return err
	}
	if !inet || addr.IsMulticast() {
		return invarg("invalid local address", v)
	}
	p.saddr = addr
	return nil
}

func (p *vxlanParse) ttlArg(a *args) error {
	v, err := a.next()
	if err != nil {
		return err
	}
	if err := p.dup("ttl", "ttl", v); err != nil {
		return err
	}
	switch v {
	case "inherit":
		p.s.TTLInherit = true
	case "auto":
		p.s.TTL = new(uint8(0))
	default:
		n, ok := getUnsigned(v, 32)
		if !ok {
			return invarg("invalid TTL", v)
		}
		if n > 255 {
			return invarg("TTL must be <= 255", v)
		}
		p.s.TTL = new(uint8(n))
	}
	return nil
}

// u32OrWord is ageing's and maxaddress's value: word for 0, or a u32.
func (p *vxlanParse) u32OrWord(a *args, attr, key, word, msg string) (*uint32, error) {
	v, err := a.next()
	if err != nil {
		return nil, err
	}
	if err := p.dup(attr, key, v); err != nil {
		return nil, err
	}
	if v == word {
		return new(uint32(0)), nil
	}
	n, ok := getUnsigned(v, 32)
	if !ok {
		return nil, invarg(msg, v)
	}
	return new(uint32(n)), nil
}

func (p *vxlanParse) srcportArg(a *args) error {
	lo, err := a.next()
	if err != nil {
		return err
	}
	if err := p.dup("srcport", "srcport", lo); err != nil {
		return err
	}
	l, ok := getUnsigned(lo, 16)
	if !ok {
		return invarg("min port", lo)
	}
	hi, err := a.next()
	if err != nil {
		return err
	}
	h, ok := getUnsigned(hi, 16)
	if !ok {
		return invarg("max port", hi)
	}
	if l != 0 || h != 0 {
		p.s.PortRange = &[2]uint16{uint16(l), uint16(h)}
	}
	return nil
}

// vxlanFlag is one of the [no]FLAG words: a u8 attribute, 1 for FLAG.
type vxlanFlag struct {
	name string
	dst  **bool
}

// flagWord is the [no]FLAG word w abbreviates, in ip's order (noproxy
// before proxy, but udpcsum before noudpcsum), or nil.
func (p *vxlanParse) flagWord(w string) *vxlanFlag {
	s := &p.s
	for _, f := range []vxlanFlag{{"proxy", &s.Proxy}, {"rsc", &s.RSC}, {"l2miss", &s.L2Miss}, {"l3miss", &s.L3Miss},
		{"udpcsum", &s.UDPCsum}, {"udp6zerocsumtx", &s.UDPZeroCsum6TX}, {"udp6zerocsumrx", &s.UDPZeroCsum6RX},
		{"remcsumtx", &s.RemcsumTX}, {"remcsumrx", &s.RemcsumRX}} {
		noFirst := f.name == "proxy" || f.name == "rsc" || f.name == "l2miss" || f.name == "l3miss"
		if noFirst && matches(w, "no"+f.name) || matches(w, f.name) || !noFirst && matches(w, "no"+f.name) {
			return &f
		}
	}
	return nil
}

// vxlanPrintOpt is vxlan_print_opt.
func (ip *IP) vxlanPrintOpt(l rtnl.LinkInfo, names linkNames) {
	v := l.Vxlan
	if v == nil {
		return
	}
	p := &ip.p
	if v.CollectMetadata {
		p.bool(printAny, "external", "external ", true)
	}
	if v.VNIFilter {
		p.bool(printAny, "vnifilter", "vnifilter", true)
	}
	p.uint(printAny, "id", "id %d ", uint64(v.VNI))
	if !v.Remote.IsUnspecified() {
		word := "remote"
		if v.Remote.IsMulticast() {
			word = "group"
		}
		key := word
		if v.Remote.Is6() {
			key += "6"
		}
		p.str(printAny, key, word+" %s ", v.Remote.String())
	}
	if !v.Local.IsUnspecified() {
		key := "local"
		if v.Local.Is6() {
			key = "local6"
		}
		p.str(printAny, key, "local %s ", v.Local.String())
	}
	if v.LinkIndex != 0 {
		p.str(printAny, "link", "dev %s ", names.name(v.LinkIndex))
	}
	if p.isJSON() {
		p.openObject("port_range")
		p.uint(printJSON, "low", "", uint64(v.PortMin))
		p.uint(printJSON, "high", "", uint64(v.PortMax))
		p.closeObject()
	} else {
		p.text("srcport %d %d ", v.PortMin, v.PortMax)
	}
	p.uint(printAny, "port", "dstport %d ", uint64(v.Port))
	p.bool(printJSON, "learning", "", v.Learning)
	if !v.Learning {
		p.bool(printFP, "", "nolearning ", true)
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{v.Proxy, "proxy"}, {v.RSC, "rsc"}, {v.L2Miss, "l2miss"}, {v.L3Miss, "l3miss"}} {
		if f.on {
			p.bool(printAny, f.name, f.name+" ", true)
		}
	}
	if v.TOS != 0 {
		if p.isJSON() || v.TOS != 1 {
			p.hex0x(printAny, "tos", "tos %#x ", uint64(v.TOS))
		} else {
			p.str(printFP, "", "tos %s ", "inherit")
		}
	}
	switch {
	case v.TTLInherit:
		p.str(printFP, "", "ttl %s ", "inherit")
	case p.isJSON() || v.TTL != 0:
		p.uint(printAny, "ttl", "ttl %d ", uint64(v.TTL))
	default:
		p.str(printFP, "", "ttl %s ", "auto")
	}
	switch v.DF {
	case netdev.VxlanDFUnset:
		p.str(printJSON, "df", "df %s ", "unset")
	case netdev.VxlanDFSet:
		p.str(printAny, "df", "df %s ", "set")
	case netdev.VxlanDFInherit:
		p.str(printAny, "df", "df %s ", "inherit")
	}
	if v.Label != 0 {
		p.hex0x(printAny, "label", "flowlabel %#x ", uint64(v.Label))
	}
	if v.Ageing == 0 {
		p.uint(printAny, "ageing", "ageing none ", 0)
	} else {
		p.uint(printAny, "ageing", "ageing %d ", uint64(v.Ageing))
	}
	if v.Limit != 0 {
		p.uint(printAny, "limit", "maxaddr %d ", uint64(v.Limit))
	}
	for _, f := range []struct {
		on        bool
		key, name string
	}{{v.UDPCsum, "udp_csum", "udpcsum"}, {v.UDPZeroCsum6TX, "udp_zero_csum6_tx", "udp6zerocsumtx"},
		{v.UDPZeroCsum6RX, "udp_zero_csum6_rx", "udp6zerocsumrx"}} {
		if p.isJSON() {
			p.bool(printAny, f.key, "", f.on)
		} else if f.on {
			p.text("%s ", f.name)
		} else {
			p.text("no%s ", f.name)
		}
	}
	if v.RemcsumTX {
		p.bool(printAny, "remcsum_tx", "remcsumtx ", true)
	}
	if v.RemcsumRX {
		p.bool(printAny, "remcsum_rx", "remcsumrx ", true)
	}
	if v.GBP {
		p.bool(printAny, "gbp", "gbp ", true)
	}
}
