// The kind-specific words of `ip link add ... type KIND ARGS`: the
// parse_opt functions of iproute2's ip/iplink_macvlan.c, iplink_vlan.c,
// iplink_bond.c and iplink_vrf.c as keyword tables (link_veth.c's peer is
// iplink_parse again; iplink_bridge.c is in bridge.go).

package iproute

import (
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
	flag    string // macvlan: a flag given (nopromisc, nodst)
	hasFlag bool
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

const noMacvlanFlags = "netsim models no macvlan flags"

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
		case "nopromisc", "nodst":
			q.refuse(v, noMacvlanFlags)
			if v == "nopromisc" {
				q.flag = v
			}
		case "null":
		default:
			return failf("Error: argument of \"flag\" must be \"nopromisc\", \"nodst\" or \"null\", not \"%s\"\n", v)
		}
		q.hasFlag = true
		return nil
	}),
	kindRefusedNow(kw[*kindReq[netdev.Macvlan]]("macaddr", nil), "netsim models no source-mode address lists"),
	kw("nopromisc", func(_ *args, q *kindReq[netdev.Macvlan]) error {
		q.refuse("nopromisc", noMacvlanFlags)
		q.flag, q.hasFlag = "nopromisc", true
		return nil
	}),
	kw("nodst", func(_ *args, q *kindReq[netdev.Macvlan]) error {
		q.refuse("nodst", noMacvlanFlags)
		q.hasFlag = true
		return nil
	}),
	kw("bcqueuelen", func(a *args, q *kindReq[netdev.Macvlan]) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if _, ok := getUnsigned(v, 32); !ok {
			return failf("Error: argument of \"bcqueuelen\" must be a positive integer [0-4294967295], not \"%s\"\n", v)
		}
		q.refuse("bcqueuelen", "netsim models no broadcast queues")
		return nil
	}),
}

// parseMacvlan is macvlan_parse_opt.
func parseMacvlan(words []string, m netdev.Macvlan) (netdev.Macvlan, error) {
	q := &kindReq[netdev.Macvlan]{kind: "macvlan", explain: macvlanExplain, spec: m}
	if err := parseKind(words, macvlanKeywords, q, "option"); err != nil {
		return m, err
	}
	if q.flag == "nopromisc" && q.spec.Mode != netdev.MacvlanPassthru {
		return m, q.explainErr("macvlan: nopromisc flag only valid in passthru mode\n")
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

const noVlanFlags = "netsim models no vlan flags"

// vlanKeywords are vlan_parse_opt's keywords in its order.
var vlanKeywords = []keyword[*kindReq[netdev.Vlan]]{
	kw("protocol", func(a *args, q *kindReq[netdev.Vlan]) error {
		p, err := nextValue(a, vlanProtocol, "protocol is invalid")
		if err == nil && p != 0x8100 {
			q.refuse("protocol", "netsim models 802.1Q vlans only")
		}
		return err
	}),
	kw("id", func(a *args, q *kindReq[netdev.Vlan]) error {
		n, err := nextValue(a, uint16Value, "id is invalid")
		q.spec.ID = uint16(n)
		return err
	}),
	kindOnOff[netdev.Vlan]("reorder_hdr", noVlanFlags),
	kindOnOff[netdev.Vlan]("gvrp", noVlanFlags),
	kindOnOff[netdev.Vlan]("mvrp", noVlanFlags),
	kindOnOff[netdev.Vlan]("loose_binding", noVlanFlags),
	kindOnOff[netdev.Vlan]("bridge_binding", noVlanFlags),
	kindRefusedNow(kw[*kindReq[netdev.Vlan]]("ingress-qos-map", nil), "netsim models no vlan priority maps"),
	kindRefusedNow(kw[*kindReq[netdev.Vlan]]("egress-qos-map", nil), "netsim models no vlan priority maps"),
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

const noBondOption = "netsim models the bonding mode only"

// bondIndex is bond_parse_opt's get_index: a name of tbl, or its index as
// a decimal integer.
func bondIndex(tbl ...string) func(v string) bool {
	return func(v string) bool {
		if n, err := strconv.ParseInt(strings.TrimLeft(v, " \t\n\v\f\r"), 10, 32); err == nil && n >= 0 && n < int64(len(tbl)) {
			return true
		}
		for _, name := range tbl {
			if v == name {
				return true
			}
		}
		return false
	}
}

// bondUint is get_u8/get_u16/get_u32 for bond_parse_opt.
func bondUint(bits int) func(v string) bool {
	return func(v string) bool { _, ok := getUnsigned(v, bits); return ok }
}

// bondOption is one of the options of bond_parse_opt that netsim does not
// model, with ip's check of its value.
type bondOption struct {
	name  string // "=name" is compared whole (strcmp), others by prefix
	check func(v string) bool
	msg   string // invarg's message; "" for the default "invalid NAME"
}

// bondOptions are bond_parse_opt's options after mode, in its order.
// active_slave and primary name a device, clear_active_slave takes no
// value, arp_ip_target and ns_ip6_target a list (checked apart), and
// ad_actor_system a link-layer address.
var bondOptions = []bondOption{
	{name: "active_slave"}, {name: "clear_active_slave"},
	{name: "miimon", check: bondUint(32)}, {name: "updelay", check: bondUint(32)},
	{name: "downdelay", check: bondUint(32)}, {name: "peer_notify_delay", check: bondUint(32)},
	{name: "use_carrier", check: bondUint(8)}, {name: "arp_interval", check: bondUint(32)},
	{name: "arp_ip_target"}, {name: "=ns_ip6_target"},
	{name: "arp_validate", check: bondIndex("none", "active", "backup", "all", "filter", "filter_active", "filter_backup")},
	{name: "arp_all_targets", check: bondIndex("any", "all")},
	{name: "=arp_missed_max", check: bondUint(8)}, {name: "primary"},
	{name: "primary_reselect", check: bondIndex("always", "better", "failure")},
	{name: "fail_over_mac", check: bondIndex("none", "active", "follow")},
	{name: "xmit_hash_policy", check: bondIndex("layer2", "layer3+4", "layer2+3", "encap2+3", "encap3+4", "vlan+srcmac")},
	{name: "resend_igmp", check: bondUint(32)},
	{name: "num_grat_arp", check: bondUint(8), msg: "invalid num_grat_arp|num_unsol_na"},
	{name: "all_slaves_active", check: bondUint(8)}, {name: "min_links", check: bondUint(32)},
	{name: "lp_interval", check: bondUint(32)}, {name: "packets_per_slave", check: bondUint(32)},
	{name: "lacp_rate", check: bondIndex("slow", "fast")}, {name: "=lacp_active", check: bondIndex("off", "on")},
	{name: "ad_select", check: bondIndex("stable", "bandwidth", "count")},
	{name: "ad_user_port_key", check: bondUint(16)}, {name: "ad_actor_sys_prio", check: bondUint(16)},
	{name: "ad_actor_system"}, {name: "tlb_dynamic_lb", check: bondUint(8)},
}

// bondKeywords are bond_parse_opt's keywords in its order. netsim models
// the mode; the others are checked as ip checks them and refused by name.
var bondKeywords = func() []keyword[*kindReq[netdev.Bond]] {
	t := []keyword[*kindReq[netdev.Bond]]{
		kw("mode", func(a *args, q *kindReq[netdev.Bond]) error {
			mode, err := nextValue(a, bondMode, "invalid mode")
			q.spec.Mode = mode
			return err
		}),
	}
	for _, o := range bondOptions {
		name, whole := strings.CutPrefix(o.name, "=")
		parse := func(a *args, q *kindReq[netdev.Bond]) error {
			switch name {
			case "clear_active_slave":
			case "arp_ip_target", "ns_ip6_target":
				// NEXT_ARG_OK: the list is optional.
				if len(a.w) > 1 {
					v, _ := a.next()
					for _, target := range strings.Split(v, ",") {
						if target == "" {
							continue
						}
						if name == "arp_ip_target" {
							if _, ok := parseAddr(target, rt.FamilyInet); !ok {
								return &argError{msg: "Error: an IP address is expected rather than \"" + target + "\"\n", status: exitFailure}
							}
						} else if _, err := getAddr(target, rt.FamilyInet6); err != nil {
							return err
						}
					}
				}
			default:
				v, err := a.next()
				if err != nil {
					return err
				}
				switch {
				case name == "active_slave" || name == "primary":
					if q.h.LinkIndex(v) == 0 {
						return nodev(v)
					}
				case name == "ad_actor_system":
					if _, msg := llAddrA2N(v, 32); msg != "" {
						return failf("%s", msg)
					}
				case !o.check(v):
					msg := o.msg
					if msg == "" {
						msg = "invalid " + name
					}
					return invarg(msg, v)
				}
			}
			q.refuse(name, noBondOption)
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
	return q.spec, q.refusal()
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
