// The kind-specific words of `ip link add ... type KIND ARGS`: the
// parse_opt functions of iproute2's ip/iplink_macvlan.c, iplink_vlan.c,
// iplink_bond.c and iplink_vrf.c as keyword tables (link_veth.c's peer is
// iplink_parse again; iplink_bridge.c is in bridge.go).

package iproute

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
)

// kindReq is a kind's parse_opt state: the spec being built and the first
// word netsim does not model.
type kindReq[S any] struct {
	kind    string // the link_util's id, for its messages
	explain string // its usage, printed after its errors
	spec    S
	h       *handle // for the words that name devices
	refused string
	why     string
}

// explainErr is a kind's error message followed by its usage, a failed
// command (parse_opt returning -1).
func (q *kindReq[S]) explainErr(msg string) error { return failf("%s%s", msg, q.explain) }

// refuse records a word netsim does not model; the words after it are
// still parsed as ip parses them.
func (q *kindReq[S]) refuse(kw, why string) {
	if q.refused == "" {
		q.refused, q.why = kw, why
	}
}

// refusal is the error for a refused word, or nil.
func (q *kindReq[S]) refusal() error {
	if q.refused == "" {
		return nil
	}
	return failf("ip link ... type %s: \"%s\" is not supported by netsim: %s.\n", q.kind, q.refused, q.why)
}

// kindOther is a parse_opt's last branches: help prints the usage, any
// other word is unknown (each kind words this its own way).
func kindOther[S any](unknown string) func(a *args, q *kindReq[S]) error {
	return func(a *args, q *kindReq[S]) error {
		if matches(a.peek(), "help") {
			return q.explainErr("")
		}
		return q.explainErr(q.kind + ": unknown " + unknown + " \"" + a.peek() + "\"?\n")
	}
}

// kindOnOff is a vlan flag keyword (on_off): netsim keeps none of them.
func kindOnOff[S any](name, why string) keyword[*kindReq[S]] {
	return kw(name, func(a *args, q *kindReq[S]) error {
		if _, err := onOff(a, name); err != nil {
			return err
		}
		q.refuse(name, why)
		return nil
	})
}

// kindRefusedNow is a keyword whose words netsim cannot count: refused at
// once.
func kindRefusedNow[S any](k keyword[*kindReq[S]], why string) keyword[*kindReq[S]] {
	name := strings.TrimSuffix(k.names[0], "*")
	k.parse = func(a *args, q *kindReq[S]) error {
		q.refuse(name, why)
		return q.refusal()
	}
	return k
}

// parseKind walks a kind's words with its table.
func parseKind[S any](words []string, table []keyword[*kindReq[S]], q *kindReq[S], unknown string) error {
	if err := walk(&args{w: words}, table, q, kindOther[S](unknown)); err != nil {
		return err
	}
	return nil
}

const macvlanExplain = `Usage: ... macvlan mode MODE [flag MODE_FLAG] MODE_OPTS [bcqueuelen BC_QUEUE_LEN]

MODE: private | vepa | bridge | passthru | source
MODE_FLAG: null | nopromisc | nodst
MODE_OPTS: for mode "source":
	macaddr { { add | del } <macaddr> | set [ <macaddr> [ <macaddr>  ... ] ] | flush }
BC_QUEUE_LEN: Length of the rx queue for broadcast/multicast: [0-4294967295]
`

// macvlanModes are macvlan_parse_opt's mode names.
var macvlanModes = []struct {
	name string
	mode netdev.MacvlanMode
}{
	{"private", netdev.MacvlanPrivate}, {"vepa", netdev.MacvlanVEPA}, {"bridge", netdev.MacvlanBridge},
	{"passthru", netdev.MacvlanPassthru}, {"source", netdev.MacvlanSource},
}

// macvlanFlag adds a flag to the request's (has_flags).
func macvlanFlag(q *kindReq[netdev.Macvlan], f uint16) {
	if q.spec.Settings.Flags == nil {
		q.spec.Settings.Flags = new(uint16)
	}
	*q.spec.Settings.Flags |= f
}

// macvlanKeywords are macvlan_parse_opt's keywords in its order.
var macvlanKeywords = []keyword[*kindReq[netdev.Macvlan]]{
	kw("mode", func(a *args, q *kindReq[netdev.Macvlan]) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		for _, m := range macvlanModes {
			if v == m.name {
				q.spec.Mode = m.mode
				return nil
			}
		}
		return failf("Error: argument of \"mode\" must be \"private\", \"vepa\", \"bridge\", \"passthru\" or \"source\", not \"%s\"\n", v)
	}),
	kw("flag", func(a *args, q *kindReq[netdev.Macvlan]) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		switch v {
		case "nopromisc":
			macvlanFlag(q, netdev.MacvlanFlagNoPromisc)
		case "nodst":
			macvlanFlag(q, netdev.MacvlanFlagNoDst)
		case "null":
			macvlanFlag(q, 0)
		default:
			return failf("Error: argument of \"flag\" must be \"nopromisc\", \"nodst\" or \"null\", not \"%s\"\n", v)
		}
		return nil
	}),
	kindRefusedNow(kw[*kindReq[netdev.Macvlan]]("macaddr", nil), "netsim models no source-mode address lists"),
	kw("nopromisc", func(_ *args, q *kindReq[netdev.Macvlan]) error {
		macvlanFlag(q, netdev.MacvlanFlagNoPromisc)
		return nil
	}),
	kw("nodst", func(_ *args, q *kindReq[netdev.Macvlan]) error {
		macvlanFlag(q, netdev.MacvlanFlagNoDst)
		return nil
	}),
	kw("bcqueuelen", func(a *args, q *kindReq[netdev.Macvlan]) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		n, ok := getUnsigned(v, 32)
		if !ok {
			return failf("Error: argument of \"bcqueuelen\" must be a positive integer [0-4294967295], not \"%s\"\n", v)
		}
		l := uint32(n)
		q.spec.Settings.BcQueueLen = &l
		return nil
	}),
}

// parseMacvlan is macvlan_parse_opt: the mode is sent when given (Mode,
// and Settings.Mode for a change), the flags when a flag word is.
func parseMacvlan(words []string, m netdev.Macvlan) (netdev.Macvlan, error) {
	q := &kindReq[netdev.Macvlan]{kind: "macvlan", explain: macvlanExplain, spec: m}
	if err := parseKind(words, macvlanKeywords, q, "option"); err != nil {
		return m, err
	}
	if f := q.spec.Settings.Flags; f != nil && *f&netdev.MacvlanFlagNoPromisc != 0 && q.spec.Mode != netdev.MacvlanPassthru {
		return m, q.explainErr("macvlan: nopromisc flag only valid in passthru mode\n")
	}
	if q.spec.Mode != 0 {
		mode := q.spec.Mode
		q.spec.Settings.Mode = &mode
	}
	return q.spec, q.refusal()
}

const vlanExplain = `Usage: ... vlan id VLANID
		[ protocol VLANPROTO ]
		[ reorder_hdr { on | off } ]
		[ gvrp { on | off } ]
		[ mvrp { on | off } ]
		[ loose_binding { on | off } ]
		[ bridge_binding { on | off } ]
		[ ingress-qos-map QOS-MAP ]
		[ egress-qos-map QOS-MAP ]

VLANID := 0-4095
VLANPROTO: [ 802.1Q | 802.1ad ]
QOS-MAP := [ QOS-MAP ] QOS-MAPPING
QOS-MAPPING := FROM:TO
`

// vlanFlag is a vlan flag keyword (on_off): its bit goes in the mask, and
// in the flags when on.
func vlanFlag(name string, bit uint32) keyword[*kindReq[netdev.Vlan]] {
	return kw(name, func(a *args, q *kindReq[netdev.Vlan]) error {
		on, err := onOff(a, name)
		if err != nil {
			return err
		}
		f := q.spec.Settings.Flags
		if f == nil {
			f = &netdev.VlanFlags{}
			q.spec.Settings.Flags = f
		}
		f.Mask |= bit
		if on {
			f.Flags |= bit
		} else {
			f.Flags &^= bit
		}
		return nil
	})
}

// vlanQoSMap is vlan_parse_qos_map with parse_mapping: the words FROM:TO
// that follow, up to the first without a colon, which ip reads next as a
// keyword (an empty map when the first has none).
func vlanQoSMap(name string, ingress bool) keyword[*kindReq[netdev.Vlan]] {
	return kw(name, func(a *args, q *kindReq[netdev.Vlan]) error {
		all := a.w
		if _, err := a.next(); err != nil {
			return err
		}
		list := []netdev.VlanQoSMapping{}
		j := 1
		for ; j < len(all); j++ {
			from, to, ok := strings.Cut(all[j], ":")
			if !ok {
				break
			}
			f, fok := getUnsigned(from, 32)
			t, tok := getUnsigned(to, 32)
			if !fok || !tok {
				return invarg("invalid "+name, from)
			}
			list = append(list, netdev.VlanQoSMapping{From: uint32(f), To: uint32(t)})
		}
		a.w = all[j-1:]
		// A second map of the same kind is a second attribute, which
		// the kernel's parse keeps instead of the first.
		if ingress {
			q.spec.Settings.IngressQoS = list
		} else {
			q.spec.Settings.EgressQoS = list
		}
		return nil
	})
}

// vlanKeywords are vlan_parse_opt's keywords in its order.
var vlanKeywords = []keyword[*kindReq[netdev.Vlan]]{
	kw("protocol", func(a *args, q *kindReq[netdev.Vlan]) error {
		p, err := nextValue(a, vlanProtocol, "protocol is invalid")
		q.spec.Protocol, q.spec.Settings.Protocol = p, &p
		return err
	}),
	kw("id", func(a *args, q *kindReq[netdev.Vlan]) error {
		n, err := nextValue(a, uint16Value, "id is invalid")
		id := uint16(n)
		q.spec.ID, q.spec.Settings.ID = id, &id
		return err
	}),
	vlanFlag("reorder_hdr", netdev.VlanFlagReorderHdr),
	vlanFlag("gvrp", netdev.VlanFlagGVRP),
	vlanFlag("mvrp", netdev.VlanFlagMVRP),
	vlanFlag("loose_binding", netdev.VlanFlagLooseBinding),
	vlanFlag("bridge_binding", netdev.VlanFlagBridgeBinding),
	vlanQoSMap("ingress-qos-map", true),
	vlanQoSMap("egress-qos-map", false),
}

// parseVlan is vlan_parse_opt.
func parseVlan(words []string, v netdev.Vlan) (netdev.Vlan, error) {
	q := &kindReq[netdev.Vlan]{kind: "vlan", explain: vlanExplain, spec: v}
	if err := parseKind(words, vlanKeywords, q, "command"); err != nil {
		return v, err
	}
	return q.spec, q.refusal()
}

const bondExplain = `Usage: ... bond [ mode BONDMODE ] [ active_slave SLAVE_DEV ]
                [ clear_active_slave ] [ miimon MIIMON ]
                [ updelay UPDELAY ] [ downdelay DOWNDELAY ]
                [ peer_notify_delay DELAY ]
                [ use_carrier USE_CARRIER ]
                [ arp_interval ARP_INTERVAL ]
                [ arp_validate ARP_VALIDATE ]
                [ arp_all_targets ARP_ALL_TARGETS ]
                [ arp_ip_target [ ARP_IP_TARGET, ... ] ]
                [ ns_ip6_target [ NS_IP6_TARGET, ... ] ]
                [ primary SLAVE_DEV ]
                [ primary_reselect PRIMARY_RESELECT ]
                [ fail_over_mac FAIL_OVER_MAC ]
                [ xmit_hash_policy XMIT_HASH_POLICY ]
                [ resend_igmp RESEND_IGMP ]
                [ num_grat_arp|num_unsol_na NUM_GRAT_ARP|NUM_UNSOL_NA ]
                [ all_slaves_active ALL_SLAVES_ACTIVE ]
                [ min_links MIN_LINKS ]
                [ lp_interval LP_INTERVAL ]
                [ packets_per_slave PACKETS_PER_SLAVE ]
                [ tlb_dynamic_lb TLB_DYNAMIC_LB ]
                [ lacp_rate LACP_RATE ]
                [ lacp_active LACP_ACTIVE]
                [ ad_select AD_SELECT ]
                [ ad_user_port_key PORTKEY ]
                [ ad_actor_sys_prio SYSPRIO ]
                [ ad_actor_system LLADDR ]
                [ arp_missed_max MISSED_MAX ]

BONDMODE := balance-rr|active-backup|balance-xor|broadcast|802.3ad|balance-tlb|balance-alb
ARP_VALIDATE := none|active|backup|all|filter|filter_active|filter_backup
ARP_ALL_TARGETS := any|all
PRIMARY_RESELECT := always|better|failure
FAIL_OVER_MAC := none|active|follow
XMIT_HASH_POLICY := layer2|layer2+3|layer3+4|encap2+3|encap3+4|vlan+srcmac
LACP_ACTIVE := off|on
LACP_RATE := slow|fast
AD_SELECT := stable|bandwidth|count
`

// bondIndex is bond_parse_opt's get_index: a name of tbl, or its index as
// a decimal integer; the index found.
func bondIndex(tbl ...string) func(v string) (uint64, bool) {
	return func(v string) (uint64, bool) {
		if n, err := strconv.ParseInt(strings.TrimLeft(v, " \t\n\v\f\r"), 10, 32); err == nil && n >= 0 && n < int64(len(tbl)) {
			return uint64(n), true
		}
		for i, name := range tbl {
			if v == name {
				return uint64(i), true
			}
		}
		return 0, false
	}
}

// bondUint is get_u8/get_u16/get_u32 for bond_parse_opt.
func bondUint(bits int) func(v string) (uint64, bool) {
	return func(v string) (uint64, bool) { return getUnsigned(v, bits) }
}

// bondOption is one of the options of bond_parse_opt after mode: ip's
// check of its value and where the value goes in the request.
type bondOption struct {
	name  string // "=name" is compared whole (strcmp), others by prefix
	check func(v string) (uint64, bool)
	msg   string // invarg's message; "" for the default "invalid NAME"
	set   func(s *netdev.BondSettings, v uint64)
}

func setU8(f func(s *netdev.BondSettings) **uint8) func(*netdev.BondSettings, uint64) {
	return func(s *netdev.BondSettings, v uint64) { x := uint8(v); *f(s) = &x }
}

func setU16(f func(s *netdev.BondSettings) **uint16) func(*netdev.BondSettings, uint64) {
	return func(s *netdev.BondSettings, v uint64) { x := uint16(v); *f(s) = &x }
}

func setU32(f func(s *netdev.BondSettings) **uint32) func(*netdev.BondSettings, uint64) {
	return func(s *netdev.BondSettings, v uint64) { x := uint32(v); *f(s) = &x }
}

// bondOptions are bond_parse_opt's options after mode, in its order.
// active_slave and primary name a device, clear_active_slave takes no
// value, arp_ip_target and ns_ip6_target a list, and ad_actor_system a
// link-layer address: their values are read apart.
var bondOptions = []bondOption{
	{name: "active_slave"}, {name: "clear_active_slave"},
	{name: "miimon", check: bondUint(32), set: setU32(func(s *netdev.BondSettings) **uint32 { return &s.Miimon })},
	{name: "updelay", check: bondUint(32), set: setU32(func(s *netdev.BondSettings) **uint32 { return &s.UpDelay })},
	{name: "downdelay", check: bondUint(32), set: setU32(func(s *netdev.BondSettings) **uint32 { return &s.DownDelay })},
	{name: "peer_notify_delay", check: bondUint(32), set: setU32(func(s *netdev.BondSettings) **uint32 { return &s.PeerNotifDelay })},
	{name: "use_carrier", check: bondUint(8), set: setU8(func(s *netdev.BondSettings) **uint8 { return &s.UseCarrier })},
	{name: "arp_interval", check: bondUint(32), set: setU32(func(s *netdev.BondSettings) **uint32 { return &s.ArpInterval })},
	{name: "arp_ip_target"}, {name: "=ns_ip6_target"},
	{name: "arp_validate", check: bondIndex(bondArpValidateNames...),
		set: setU32(func(s *netdev.BondSettings) **uint32 { return &s.ArpValidate })},
	{name: "arp_all_targets", check: bondIndex(bondArpAllTargetNames...), set: setU32(func(s *netdev.BondSettings) **uint32 { return &s.ArpAllTargets })},
	{name: "=arp_missed_max", check: bondUint(8), set: setU8(func(s *netdev.BondSettings) **uint8 { return &s.MissedMax })},
	{name: "primary"},
	{name: "primary_reselect", check: bondIndex(bondPrimaryReselNames...), set: setU8(func(s *netdev.BondSettings) **uint8 { return &s.PrimaryReselect })},
	{name: "fail_over_mac", check: bondIndex(bondFailOverMacNames...), set: setU8(func(s *netdev.BondSettings) **uint8 { return &s.FailOverMac })},
	{name: "xmit_hash_policy", check: bondIndex(bondXmitHashNames...),
		set: setU8(func(s *netdev.BondSettings) **uint8 { return &s.XmitHashPolicy })},
	{name: "resend_igmp", check: bondUint(32), set: setU32(func(s *netdev.BondSettings) **uint32 { return &s.ResendIGMP })},
	{name: "num_grat_arp", check: bondUint(8), msg: "invalid num_grat_arp|num_unsol_na", set: setU8(func(s *netdev.BondSettings) **uint8 { return &s.NumPeerNotif })},
	{name: "all_slaves_active", check: bondUint(8), set: setU8(func(s *netdev.BondSettings) **uint8 { return &s.AllSlavesActive })},
	{name: "min_links", check: bondUint(32), set: setU32(func(s *netdev.BondSettings) **uint32 { return &s.MinLinks })},
	{name: "lp_interval", check: bondUint(32), set: setU32(func(s *netdev.BondSettings) **uint32 { return &s.LpInterval })},
	{name: "packets_per_slave", check: bondUint(32), set: setU32(func(s *netdev.BondSettings) **uint32 { return &s.PacketsPerSlave })},
	{name: "lacp_rate", check: bondIndex(bondLacpRateNames...), set: setU8(func(s *netdev.BondSettings) **uint8 { return &s.LacpRate })},
	{name: "=lacp_active", check: bondIndex(bondOffOnNames...), set: setU8(func(s *netdev.BondSettings) **uint8 { return &s.LacpActive })},
	{name: "ad_select", check: bondIndex(bondAdSelectNames...), set: setU8(func(s *netdev.BondSettings) **uint8 { return &s.AdSelect })},
	{name: "ad_user_port_key", check: bondUint(16), set: setU16(func(s *netdev.BondSettings) **uint16 { return &s.AdUserPortKey })},
	{name: "ad_actor_sys_prio", check: bondUint(16), set: setU16(func(s *netdev.BondSettings) **uint16 { return &s.AdActorSysPrio })},
	{name: "ad_actor_system"},
	{name: "tlb_dynamic_lb", check: bondUint(8), set: setU8(func(s *netdev.BondSettings) **uint8 { return &s.TLBDynamicLB })},
}

// bondTargets is bond_parse_opt's arp_ip_target and ns_ip6_target: an
// optional comma-separated list (NEXT_ARG_OK), of which ip sends the first
// 16 (strtok skips empty fields); without one, an empty list, which
// clears the bond's.
func bondTargets(a *args, family rt.Family) ([]netip.Addr, error) {
	list := []netip.Addr{}
	if len(a.w) < 2 {
		return list, nil
	}
	v, _ := a.next()
	for _, target := range strings.Split(v, ",") {
		if target == "" {
			continue
		}
		if len(list) == 16 { // BOND_MAX_ARP_TARGETS
			break
		}
		var addr netip.Addr
		if family == rt.FamilyInet {
			var ok bool
			if addr, ok = parseAddr(target, rt.FamilyInet); !ok {
				return nil, &argError{msg: "Error: an IP address is expected rather than \"" + target + "\"\n", status: exitFailure}
			}
		} else {
			var err error
			if addr, err = getAddr(target, rt.FamilyInet6); err != nil {
				return nil, err
			}
		}
		list = append(list, addr)
	}
	return list, nil
}

// bondKeywords are bond_parse_opt's keywords in its order; each puts its
// attribute in the request's netdev.BondSettings.
var bondKeywords = func() []keyword[*kindReq[netdev.Bond]] {
	t := []keyword[*kindReq[netdev.Bond]]{
		kw("mode", func(a *args, q *kindReq[netdev.Bond]) error {
			mode, err := nextValue(a, bondMode, "invalid mode")
			q.spec.Mode, q.spec.Settings.Mode = mode, &mode
			return err
		}),
	}
	for _, o := range bondOptions {
		name, whole := strings.CutPrefix(o.name, "=")
		parse := func(a *args, q *kindReq[netdev.Bond]) error {
			s := &q.spec.Settings
			switch name {
			case "clear_active_slave":
				s.ActiveSlave = new(netdev.IfIndex)
			case "arp_ip_target", "ns_ip6_target":
				family := rt.FamilyInet
				if name == "ns_ip6_target" {
					family = rt.FamilyInet6
				}
				list, err := bondTargets(a, family)
				if err != nil {
					return err
				}
				if family == rt.FamilyInet {
					s.ArpIPTargets = &list
				} else {
					s.NSIP6Targets = &list
				}
			default:
				v, err := a.next()
				if err != nil {
					return err
				}
				switch name {
				case "active_slave", "primary":
					i := q.h.LinkIndex(v)
					if i == 0 {
						return nodev(v)
					}
					if name == "primary" {
						s.Primary = &i
					} else {
						s.ActiveSlave = &i
					}
				case "ad_actor_system":
					b, msg := llAddrA2N(v, 32)
					if msg != "" {
						return failf("%s", msg)
					}
					s.AdActorSystem = b
				default:
					n, ok := o.check(v)
					if !ok {
						msg := o.msg
						if msg == "" {
							msg = "invalid " + name
						}
						return invarg(msg, v)
					}
					o.set(s, n)
				}
			}
			return nil
		}
		k := kw(name, parse)
		if whole {
			k = exact(name, parse)
		}
		if name == "num_grat_arp" {
			k = k.or("num_unsol_na*")
		}
		t = append(t, k)
	}
	return t
}()

// parseBond is bond_parse_opt.
func parseBond(h *handle, words []string, b netdev.Bond) (netdev.Bond, error) {
	q := &kindReq[netdev.Bond]{kind: "bond", explain: bondExplain, spec: b, h: h}
	if err := parseKind(words, bondKeywords, q, "command"); err != nil {
		return b, err
	}
	return q.spec, nil
}

const bondSlaveExplain = "Usage: ... bond_slave [ queue_id ID ] [ prio PRIORITY ]\n"

// parseBondSlave is bond_slave_parse_opt: queue_id (a u16) and prio (an
// s32, compared whole).
func parseBondSlave(words []string) (netdev.BondSlaveSettings, error) {
	var s netdev.BondSlaveSettings
	a := &args{w: words}
	for ; a.more(); a.skip() {
		switch w := a.peek(); {
		case matches(w, "queue_id"):
			n, err := nextValue(a, uint16Value, "queue_id is invalid")
			if err != nil {
				return s, err
			}
			q := uint16(n)
			s.QueueID = &q
		case w == "prio":
			v, err := a.next()
			if err != nil {
				return s, err
			}
			n, err := strconv.ParseInt(v, 0, 32)
			if err != nil {
				return s, invarg("prio is invalid", v)
			}
			p := int32(n)
			s.Prio = &p
		default:
			msg := ""
			if !matches(w, "help") {
				msg = "bond_slave: unknown option \"" + w + "\"?\n"
			}
			return s, failf("%s%s", msg, bondSlaveExplain)
		}
	}
	return s, nil
}

// vrfKeywords are vrf_parse_opt's keywords.
var vrfKeywords = []keyword[*kindReq[netdev.VRF]]{
	kw("table", func(a *args, q *kindReq[netdev.VRF]) error {
		id, err := nextValue(a, tableID, "invalid table ID\n")
		q.spec.Table = id
		return err
	}),
}

// parseVRF is vrf_parse_opt.
func parseVRF(words []string, v netdev.VRF) (netdev.VRF, error) {
	q := &kindReq[netdev.VRF]{kind: "vrf", explain: "Usage: ... vrf table TABLEID\n", spec: v}
	if err := parseKind(words, vrfKeywords, q, "option"); err != nil {
		return v, err
	}
	return q.spec, nil
}
