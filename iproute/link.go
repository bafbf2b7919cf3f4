// `ip link`: iproute2's ip/iplink.c (iplink_parse, iplink_modify) and the
// link part of ip/ipaddress.c (print_linkinfo).

package iproute

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
)

const linkUsage = `Usage: ip link add [link DEV | parentdev NAME] [ name ] NAME
		    [ txqueuelen PACKETS ]
		    [ address LLADDR ]
		    [ broadcast LLADDR ]
		    [ mtu MTU ] [index IDX ]
		    [ numtxqueues QUEUE_COUNT ]
		    [ numrxqueues QUEUE_COUNT ]
		    [ netns { PID | NAME } ]
		    type TYPE [ ARGS ]

	ip link delete { DEVICE | dev DEVICE | group DEVGROUP } type TYPE [ ARGS ]

	ip link set { DEVICE | dev DEVICE | group DEVGROUP }
			[ { up | down } ]
			[ type TYPE ARGS ]
		[ arp { on | off } ]
		[ dynamic { on | off } ]
		[ multicast { on | off } ]
		[ allmulticast { on | off } ]
		[ promisc { on | off } ]
		[ trailers { on | off } ]
		[ carrier { on | off } ]
		[ txqueuelen PACKETS ]
		[ name NEWNAME ]
		[ address LLADDR ]
		[ broadcast LLADDR ]
		[ mtu MTU ]
		[ netns { PID | NAME } ]
		[ link-netns NAME | link-netnsid ID ]
		[ alias NAME ]
		[ vf NUM [ mac LLADDR ]
			 [ vlan VLANID [ qos VLAN-QOS ] [ proto VLAN-PROTO ] ]
			 [ rate TXRATE ]
			 [ max_tx_rate TXRATE ]
			 [ min_tx_rate TXRATE ]
			 [ spoofchk { on | off} ]
			 [ query_rss { on | off} ]
			 [ state { auto | enable | disable} ]
			 [ trust { on | off} ]
			 [ node_guid EUI64 ]
			 [ port_guid EUI64 ] ]
		[ { xdp | xdpgeneric | xdpdrv | xdpoffload } { off |
			  object FILE [ { section | program } NAME ] [ verbose ] |
			  pinned FILE } ]
		[ master DEVICE ][ vrf NAME ]
		[ nomaster ]
		[ addrgenmode { eui64 | none | stable_secret | random } ]
		[ protodown { on | off } ]
		[ protodown_reason PREASON { on | off } ]
		[ gso_max_size BYTES ] | [ gso_max_segs PACKETS ]
		[ gro_max_size BYTES ]

	ip link show [ DEVICE | group GROUP ] [up] [master DEV] [vrf NAME] [type TYPE]
		[nomaster]

	ip link xstats type TYPE [ ARGS ]

	ip link afstats [ dev DEVICE ]
	ip link property add dev DEVICE [ altname NAME .. ]
	ip link property del dev DEVICE [ altname NAME .. ]

	ip link help [ TYPE ]

` + linkTypesUsage

// linkTypesUsage is the list of link types that ip's link and address
// usages end with (iplink_types_usage).
const linkTypesUsage = `TYPE := { amt | bareudp | bond | bond_slave | bridge | bridge_slave |
          dsa | dummy | erspan | geneve | gre | gretap | gtp | ifb |
          ip6erspan | ip6gre | ip6gretap | ip6tnl |
          ipip | ipoib | ipvlan | ipvtap |
          macsec | macvlan | macvtap |
          netdevsim | nlmon | rmnet | sit | team | team_slave |
          vcan | veth | vlan | vrf | vti | vxcan | vxlan | wwan |
          xfrm | virt_wifi }
`

// linkObject is do_iplink's table, in its order of comparison.
var linkObject = object{
	name:  "link",
	short: "link",
	usage: linkUsage,
	empty: (*IP).linkShow,
	commands: []command{
		{names: []string{"add*"}, run: (*IP).linkAdd, keywords: keywordModelled(linkKeywords), refusedKeywords: keywordRefusals(linkKeywords)},
		{names: []string{"set*", "change*"}, run: (*IP).linkSet, keywords: keywordModelled(linkKeywords), refusedKeywords: keywordRefusals(linkKeywords)},
		{names: []string{"replace*"}, run: (*IP).linkReplace, keywords: keywordModelled(linkKeywords), refusedKeywords: keywordRefusals(linkKeywords)},
		{names: []string{"delete*"}, run: (*IP).linkDel, keywords: keywordModelled(linkKeywords)},
		{names: []string{"show*", "lst*", "list*"}, run: (*IP).linkShow, keywords: keywordNames(addrFilterKeywords)},
		{names: []string{"xstats*"}, refused: "netsim keeps no statistics"},
		{names: []string{"afstats*"}, refused: "netsim keeps no statistics"},
		{names: []string{"property*"}, refused: "netsim models no alternative names"},
		{names: []string{"help*"}, run: (*IP).linkHelp},
	},
}

// kindHelp are the print_help texts of the link_utils of the kinds netsim
// models.
var kindHelp = map[string]string{
	"veth":         "Usage: ip link <options> type veth [peer <options>]\nTo get <options> type 'ip link add help'\n",
	"dummy":        "Usage: ... dummy\n",
	"ifb":          "Usage: ... ifb\n",
	"macvlan":      macvlanExplain,
	"vlan":         vlanExplain,
	"bond":         bondExplain,
	"vrf":          "Usage: ... vrf table TABLEID\n",
	"bridge":       bridgeUsage,
	"bridge_slave": bridgeSlaveUsage,
	"vxlan":        vxlanExplain,
}

// linkHelp is do_help: `ip link help TYPE` prints the kind's help on
// stdout, a kind netsim models or not; without a TYPE, or for a kind ip
// has no help for, ip's usage.
func (ip *IP) linkHelp(_ *handle, argv []string) error {
	if len(argv) == 0 {
		return usageErr(linkUsage)
	}
	text, ok := kindHelp[argv[0]]
	if !ok {
		text, ok = otherKindHelp(argv[0])
	}
	if !ok {
		return usageErr(linkUsage)
	}
	ip.out.WriteString(text)
	return nil
}

// linkReq is what iplink_parse gathers: the common attributes of a
// RTM_NEWLINK or RTM_DELLINK request, and the words after "type".
type linkReq struct {
	h            *handle
	dev, name    string // the device (dev or the bare word) and "name"
	devIsName    bool   // dev is the "name" given (iplink_parse's dev == name)
	link         string
	flags, flMsk netdev.Flags // ifi_flags and ifi_change
	addr         netdev.MAC
	hasAddr      bool
	addrLen      int      // the bytes of "address" (ll_addr_a2n)
	peerAddrLen  int      // a veth peer's addrLen
	peer         *linkReq // a veth's peer, or nil
	mtu          int
	hasMTU       bool
	txqlen       int
	hasTxqlen    bool
	alias        string
	hasAlias     bool
	group        uint32
	hasGroup     bool
	master       string
	nomaster     bool
	kind         string
	typeArgs     []string
	netns        *rtnl.NetnsRef // "netns": IFLA_NET_NS_FD (a name) or IFLA_NET_NS_PID
	linkNsid     *int32         // "link-netns", "link-netnsid": IFLA_LINK_NETNSID
	hasIndex     bool
	index        netdev.IfIndex
	ifindex      netdev.IfIndex // ifi_index: dev's index (ll_name_to_index), or index when creating
	hasKind      bool           // "type" was given
	refused      string         // the first keyword netsim does not model, refused once the request is parsed
	why          string         // what netsim does not model about it
}

// up reports whether the request brings the device up.
func (r *linkReq) up() bool { return r.flMsk&netdev.FlagUp != 0 && r.flags&netdev.FlagUp != 0 }

// setFlag is ifi_change |= f and ifi_flags |= f (on) or &= ^f.
func (r *linkReq) setFlag(f netdev.Flags, on bool) {
	r.flMsk |= f
	if on {
		r.flags |= f
	} else {
		r.flags &^= f
	}
}

// refuse records a keyword netsim does not model: the rest of the words
// are still parsed (ip's own errors come first), and the request is
// refused before anything is sent.
func (r *linkReq) refuse(kw, why string) {
	if r.refused == "" {
		r.refused, r.why = kw, why
	}
}

// refusal is the error for a refused keyword, or nil.
func (r *linkReq) refusal(cmd string) error {
	if r.refused == "" {
		return nil
	}
	return failf("%s: \"%s\" is not supported by netsim: %s.\n", cmd, r.refused, r.why)
}

// onOff is iproute2's on_off check of a flag keyword's value: "on" or
// "off", else its message and a failed command.
func onOff(a *args, name string) (bool, error) {
	v, err := a.next()
	if err != nil {
		return false, err
	}
	switch v {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, failf("Error: argument of \"%s\" must be \"on\" or \"off\", not \"%s\"\n", name, v)
}

// parseOnOff is iproute2's parse_on_off: a prefix of "off" or "on", else
// its message and the command fails with -EINVAL (exit status 22).
func parseOnOff(a *args, name string) (bool, error) {
	v, err := a.next()
	if err != nil {
		return false, err
	}
	switch {
	case matches(v, "off"):
		return false, nil
	case matches(v, "on"):
		return true, nil
	}
	return false, &cmdError{msg: fmt.Sprintf("Error: argument of \"%s\" must be one of \"off\", \"on\", not \"%s\"\n", name, v), status: int(syscall.EINVAL)}
}

// linkFlag is a flag keyword of iplink_parse: on/off sets flag (or clears
// it, for inverted flags such as arp: IFF_NOARP).
func linkFlag(name string, flag netdev.Flags, inverted bool) keyword[*linkReq] {
	return exact(name, func(a *args, r *linkReq) error {
		on, err := onOff(a, name)
		if err == nil {
			r.setFlag(flag, on != inverted)
		}
		return err
	})
}

// linkRefusedFlag is a flag keyword netsim does not model.
func linkRefusedFlag(k keyword[*linkReq], why string) keyword[*linkReq] {
	name := strings.TrimSuffix(k.names[0], "*")
	k.parse = func(a *args, r *linkReq) error {
		_, err := onOff(a, name)
		r.refuse(name, why)
		return err
	}
	k.refused = why
	return k
}

// linkRefused is a keyword with one value that netsim does not model; check,
// if set, is ip's check of the value.
func linkRefused(k keyword[*linkReq], why string, check func(v string) error) keyword[*linkReq] {
	name := strings.TrimSuffix(k.names[0], "*")
	k.parse = func(a *args, r *linkReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if check != nil {
			if err := check(v); err != nil {
				return err
			}
		}
		r.refuse(name, why)
		return nil
	}
	k.refused = why
	return k
}

// linkRefusedNow is a keyword whose words netsim cannot even count (xdp,
// vf): it refuses the request at once.
func linkRefusedNow(k keyword[*linkReq], why string) keyword[*linkReq] {
	return refusedNow(k, "ip link", why, true)
}

// intValue is get_integer's check of a value: invarg(msg) when it is not
// an int.
func intValue(msg string) func(v string) error {
	return func(v string) error {
		if _, ok := getInteger(v); !ok {
			return invarg(msg, v)
		}
		return nil
	}
}

// uintValue is get_unsigned's check of a value, at most max.
func uintValue(msg string, max uint64) func(v string) error {
	return func(v string) error {
		if n, ok := getUnsigned(v, 32); !ok || n > max {
			return invarg(msg, v)
		}
		return nil
	}
}

// oneOf checks that a value is one of names (compared as cmp does),
// else invarg(msg).
func oneOf(msg string, cmp func(v, name string) bool, names ...string) func(v string) error {
	return func(v string) error {
		for _, n := range names {
			if cmp(v, n) {
				return nil
			}
		}
		return invarg(msg, v)
	}
}

func equal(a, b string) bool { return a == b }

// Why netsim refuses keywords of iplink_parse.
const (
	noBroadcast = "netsim models no link-layer broadcast address changes"
	noXDP       = "netsim runs no XDP programs"
	noFlag      = "netsim does not keep this flag"
	noCarrier   = "netsim models no carrier changes by request"
	noVF        = "netsim models no SR-IOV virtual functions"
	noLinkMode  = "netsim models no link mode or operstate by request"
	noQueues    = "netsim models no device queues"
	noAddrGen   = "netsim models no IPv6 address generation modes"
	noProtodown = "netsim models no protodown"
	noGSO       = "netsim models no segmentation offloads"
	noParentDev = "netsim models no parent devices"
)

// linkKeywords are iplink_parse's keywords in its order of comparison;
// any other word is the device (linkDev).
var linkKeywords = []keyword[*linkReq]{
	exact("up", func(_ *args, r *linkReq) error { r.setFlag(netdev.FlagUp, true); return nil }),
	exact("down", func(_ *args, r *linkReq) error { r.setFlag(netdev.FlagUp, false); return nil }),
	exact("name", func(a *args, r *linkReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if r.name != "" {
			return duparg("name", v)
		}
		if !checkIfname(v) {
			return invarg("\"name\" not a valid ifname", v)
		}
		r.name = v
		if r.dev == "" {
			r.dev, r.devIsName = v, true
		}
		return nil
	}),
	exact("index", func(a *args, r *linkReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if r.hasIndex {
			return duparg("index", v)
		}
		n := atoi(v)
		if n <= 0 {
			return invarg("Invalid \"index\" value", v)
		}
		r.hasIndex, r.index = true, netdev.IfIndex(n)
		return nil
	}),
	kw("link", word(func(r *linkReq, v string) { r.link = v })),
	kw("address", func(a *args, r *linkReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		b, msg := llAddrA2N(v, 32)
		if msg != "" {
			return failf("%s", msg)
		}
		copy(r.addr[:], b)
		r.hasAddr, r.addrLen = true, len(b)
		return nil
	}),
	linkRefused(kw[*linkReq]("broadcast", nil).or("brd"), noBroadcast, func(v string) error {
		if _, msg := llAddrA2N(v, 32); msg != "" {
			return failf("%s", msg)
		}
		return nil
	}),
	kw("txqueuelen", func(a *args, r *linkReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if r.hasTxqlen {
			return duparg("txqueuelen", v)
		}
		// get_integer: an int, sent as the u32 IFLA_TXQLEN (-1 is
		// 4294967295).
		n, ok := getInteger(v)
		if !ok {
			return invarg("Invalid \"txqueuelen\" value\n", v)
		}
		r.txqlen, r.hasTxqlen = n, true
		return nil
	}).or("qlen", "txqlen*"),
	exact("mtu", func(a *args, r *linkReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if r.hasMTU {
			return duparg("mtu", v)
		}
		n, ok := getInteger(v)
		if !ok {
			return invarg("Invalid \"mtu\" value\n", v)
		}
		r.mtu, r.hasMTU = n, true
		return nil
	}),
	linkRefusedNow(exact[*linkReq]("xdp", nil).or("xdpgeneric", "xdpdrv", "xdpoffload"), noXDP),
	exact("netns", func(a *args, r *linkReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if r.netns != nil {
			return duparg("netns", v)
		}
		// netns_get_fd, else a process id (IFLA_NET_NS_PID).
		if n := r.h.Net().Kernel().Net(v); n != nil && v != "" {
			r.netns = &rtnl.NetnsRef{Net: n}
			return nil
		}
		pid, ok := getInteger(v)
		if !ok {
			return invarg("Invalid \"netns\" value\n", v)
		}
		p := uint32(pid)
		r.netns = &rtnl.NetnsRef{PID: &p}
		return nil
	}),
	linkFlag("multicast", netdev.FlagMulticast, false),
	linkFlag("allmulticast", netdev.FlagAllMulti, false),
	linkFlag("promisc", netdev.FlagPromisc, false),
	linkRefusedFlag(exact[*linkReq]("trailers", nil), noFlag),
	linkFlag("arp", netdev.FlagNoARP, true),
	exact("carrier", func(a *args, r *linkReq) error {
		_, err := parseOnOff(a, "carrier")
		r.refuse("carrier", noCarrier)
		return err
	}),
	linkRefusedNow(exact[*linkReq]("vf", nil), noVF),
	kw("master", func(a *args, r *linkReq) error {
		v, err := nextMaster(a, r.h)
		r.master = v
		return err
	}),
	exact("vrf", func(a *args, r *linkReq) error {
		v, err := nextVRF(a, r.h)
		r.master = v
		return err
	}),
	kw("nomaster", func(_ *args, r *linkReq) error { r.nomaster = true; return nil }),
	linkRefusedFlag(kw[*linkReq]("dynamic", nil), noFlag),
	kw("type", func(a *args, r *linkReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		// The rest of the words are the kind's (stop the walk).
		r.kind, r.hasKind, r.typeArgs = v, true, a.w[1:]
		a.w = a.w[:1]
		return nil
	}),
	kw("alias", func(a *args, r *linkReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if len(v) >= netdev.IFALIASZ {
			return invarg("alias too long\n", v)
		}
		r.alias, r.hasAlias = v, true
		return nil
	}),
	exact("group", func(a *args, r *linkReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if r.hasGroup {
			return duparg("group", v)
		}
		g, ok := groupID(v)
		if !ok {
			return invarg("Invalid \"group\" value\n", v)
		}
		r.group, r.hasGroup = g, true
		return nil
	}),
	linkRefused(exact[*linkReq]("mode", nil), noLinkMode, oneOf("Invalid link mode\n", equal, "default", "dormant")),
	linkRefused(exact[*linkReq]("state", nil), noLinkMode, oneOf("Invalid operstate\n", strings.EqualFold,
		"UNKNOWN", "NOTPRESENT", "DOWN", "LOWERLAYERDOWN", "TESTING", "DORMANT", "UP")),
	linkRefused(kw[*linkReq]("numtxqueues", nil), noQueues, intValue("Invalid \"numtxqueues\" value\n")),
	linkRefused(kw[*linkReq]("numrxqueues", nil), noQueues, intValue("Invalid \"numrxqueues\" value\n")),
	linkRefused(kw[*linkReq]("addrgenmode", nil), noAddrGen, oneOf("Invalid address generation mode\n", equal,
		"eui64", "none", "stable_secret", "random")),
	kw("link-netns", func(a *args, r *linkReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if r.linkNsid != nil {
			return duparg("link-netns/link-netnsid", v)
		}
		// The namespace's id, given one (auto) if it has none.
		id := netnsidFromName(r.h, v)
		if id < 0 {
			_ = setNetnsidFromName(r.h, v, -1)
			id = netnsidFromName(r.h, v)
		}
		if id < 0 {
			return invarg("Invalid \"link-netns\" value\n", v)
		}
		r.linkNsid = &id
		return nil
	}),
	kw("link-netnsid", func(a *args, r *linkReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if r.linkNsid != nil {
			return duparg("link-netns/link-netnsid", v)
		}
		id, ok := getS32(v)
		if !ok {
			return invarg("Invalid \"link-netnsid\" value\n", v)
		}
		r.linkNsid = &id
		return nil
	}),
	exact("protodown", func(a *args, r *linkReq) error {
		_, err := parseOnOff(a, "protodown")
		r.refuse("protodown", noProtodown)
		return err
	}),
	linkRefusedNow(exact[*linkReq]("protodown_reason", nil), noProtodown),
	linkRefused(exact[*linkReq]("gso_max_size", nil), noGSO, uintValue("Invalid \"gso_max_size\" value\n", 1<<32-1)),
	linkRefused(exact[*linkReq]("gso_max_segs", nil), noGSO, uintValue("Invalid \"gso_max_segs\" value\n", 65535)),
	linkRefused(exact[*linkReq]("gro_max_size", nil), noGSO, uintValue("Invalid \"gro_max_size\" value\n", 1<<32-1)),
	linkRefused(exact[*linkReq]("parentdev", nil), noParentDev, nil),
}

// linkDev is iplink_parse's last branch: help, or [dev] DEVICE.
func linkDev(a *args, r *linkReq) error {
	w := a.peek()
	if matches(w, "help") {
		return usageErr(linkUsage)
	}
	if w == "dev" {
		v, err := a.next()
		if err != nil {
			return err
		}
		w = v
	}
	if r.dev != "" && !r.devIsName {
		return duparg2("dev", w)
	}
	if !checkAltIfname(w) {
		return invarg("\"dev\" not a valid ifname", w)
	}
	r.dev, r.devIsName = w, false
	return nil
}

// parseLink is iplink_parse's walk over the words: create is
// NLM_F_CREATE (add, replace), which changes its checks at the end.
func parseLink(h *handle, argv []string, create bool) (*linkReq, error) {
	r := &linkReq{h: h}
	if err := walk(&args{w: argv}, linkKeywords, r, linkDev); err != nil {
		return nil, err
	}
	if r.name == "" {
		r.name = r.dev
	}
	if r.dev != "" && r.hasAddr && !create && r.addrLen != len(netdev.MAC{}) && h.LinkIndex(r.dev) != 0 {
		// Every device netsim models has a 6-byte address.
		return nil, failf("Invalid address length %d - must be %d bytes\n", r.addrLen, len(netdev.MAC{}))
	}
	if r.hasIndex && !create && r.netns == nil {
		return nil, usageErr("index can be used only when creating devices or when moving device to another netns.\n")
	}
	if r.hasGroup && r.dev == "" {
		if len(r.typeArgs) > 0 {
			return nil, usageErr(fmt.Sprintf("Garbage instead of arguments \"%s ...\". Try \"ip link help\".\n", r.typeArgs[0]))
		}
		if create {
			return nil, usageErr("group cannot be used when creating devices.\n")
		}
		r.kind, r.hasKind = "", false
		return r, nil
	}
	if !create {
		if r.dev == "" {
			return nil, usageErr("Not enough information: \"dev\" argument is required.\n")
		}
		if r.ifindex = h.LinkIndex(r.dev); r.ifindex == 0 {
			return nil, nodev(r.dev)
		}
		if r.name == r.dev {
			r.name = ""
		}
		return r, nil
	}
	if r.name != r.dev {
		return nil, usageErr("both \"name\" and \"dev\" cannot be used when creating devices.\n")
	}
	if r.link != "" && h.LinkIndex(r.link) == 0 {
		return nil, nodev(r.link)
	}
	r.ifindex = r.index
	return r, nil
}

// atoi is C's atoi: leading blanks, a sign and decimal digits, the rest
// ignored, as strtol reads them and truncated to an int.
func atoi(s string) int32 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	var v uint64
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if v >= 1<<63/10 {
			v = 1 << 63 // strtol saturates
			continue
		}
		v = v*10 + uint64(s[i]-'0')
	}
	switch {
	case neg && v >= 1<<63:
		return 0 // LONG_MIN as an int
	case neg:
		return int32(-int64(v))
	case v >= 1<<63:
		return -1 // LONG_MAX as an int
	}
	return int32(v)
}

// checkAltIfname is iproute2's check_altifname: a device named by an
// alternative name may be up to ALTIFNAMSIZ-1 bytes.
func checkAltIfname(name string) bool {
	if name == "" || len(name) >= 128 {
		return false
	}
	for _, c := range name {
		if c == '/' || c == ':' || c == ' ' || c == '\t' || c == '\n' {
			return false
		}
	}
	return true
}

// checkIfname is iproute2's check_ifname.
func checkIfname(name string) bool {
	if name == "" || len(name) >= netdev.IFNAMSIZ {
		return false
	}
	for _, c := range name {
		if c == '/' || c == ':' || c == ' ' || c == '\t' || c == '\n' {
			return false
		}
	}
	return true
}

// groupID is iproute2's rtnl_group_a2n: "default" or a number.
func groupID(s string) (uint32, bool) {
	if s == "default" {
		return 0, true
	}
	v, ok := getUnsigned(s, 32)
	return uint32(v), ok
}

func (r *linkReq) attrs() netdev.Attrs {
	at := netdev.Attrs{MTU: r.mtu, Group: r.group, TxQueueLen: r.txqlen}
	if r.hasMTU {
		at.Zero |= netdev.AttrMTU
	}
	if r.hasTxqlen {
		at.Zero |= netdev.AttrTxQueueLen
	}
	if r.hasAddr {
		at.Addr = r.addr
	}
	if r.hasIndex {
		at.Index = r.index
	}
	return at
}
