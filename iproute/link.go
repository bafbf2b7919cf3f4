// `ip link`: iproute2's ip/iplink.c (iplink_parse, iplink_modify) and the
// link part of ip/ipaddress.c (print_linkinfo).

package iproute

import (
	"strconv"
	"strings"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
)

const linkUsage = `Usage: ip link add [link DEV] [ name ] NAME
		    [ txqueuelen PACKETS ]
		    [ address LLADDR ]
		    [ mtu MTU ]
		    [ group GROUP ]
		    type TYPE [ ARGS ]

	ip link delete { DEVICE | dev DEVICE | group DEVGROUP } type TYPE [ ARGS ]

	ip link set { DEVICE | dev DEVICE | group DEVGROUP }
			[ { up | down } ]
			[ address LLADDR ]
			[ mtu MTU ]
			[ name NAME ]
			[ master DEVICE ][ nomaster ]
			[ group GROUP ]

	ip link show [ DEVICE | group GROUP ] [up] [master DEV] [type TYPE]

TYPE := { bond | bridge | dummy | macvlan | veth | vlan | vrf }
`

func (ip *IP) doLink(h *rtnl.Handle, argv []string) error {
	if len(argv) == 0 {
		return ip.linkShow(h, nil)
	}
	cmd, rest := argv[0], argv[1:]
	switch {
	case matches(cmd, "add"):
		return ip.linkAdd(h, rest)
	case matches(cmd, "set"), matches(cmd, "change"):
		return ip.linkSet(h, rest)
	case matches(cmd, "delete"):
		return ip.linkDel(h, rest)
	case matches(cmd, "show"), matches(cmd, "lst"), matches(cmd, "list"):
		return ip.linkShow(h, rest)
	case matches(cmd, "help"):
		return usageErr(linkUsage)
	}
	return unknownCmd(cmd, "link")
}

// linkReq is what iplink_parse gathers: the common attributes of a
// RTM_NEWLINK request, and the words after "type".
type linkReq struct {
	dev, name    string // the device (dev or the bare word) and "name"
	link         string
	up, down     bool
	addr         netdev.MAC
	hasAddr      bool
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
	hasIndex     bool
	index        netdev.IfIndex
	setAttrCount int
}

// parseLink is iplink_parse for the attributes netsim models.
func parseLink(argv []string) (*linkReq, error) {
	r := &linkReq{}
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case w == "up":
			r.up, r.down = true, false
		case w == "down":
			r.down, r.up = true, false
		case w == "name":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			if !checkIfname(v) {
				return nil, invarg("\"name\" not a valid ifname", v)
			}
			r.name = v
		case w == "index":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			n, ok := getUnsigned(v, 31)
			if !ok || n == 0 {
				return nil, invarg("Invalid \"index\" value", v)
			}
			r.hasIndex, r.index = true, netdev.IfIndex(n)
		case matches(w, "link"):
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			r.link = v
		case matches(w, "address"):
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			m, ok := parseMAC(v)
			if !ok {
				return nil, failf("\"%s\" is invalid lladdr.\n", v)
			}
			r.addr, r.hasAddr = m, true
		case matches(w, "txqueuelen"), w == "qlen", matches(w, "txqlen"):
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			if r.hasTxqlen {
				return nil, duparg("txqueuelen", v)
			}
			// get_integer: an int, sent as the u32 IFLA_TXQLEN (-1 is
			// 4294967295).
			n, ok := getInteger(v)
			if !ok {
				return nil, invarg("Invalid \"txqueuelen\" value\n", v)
			}
			r.txqlen, r.hasTxqlen = n, true
		case w == "mtu":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			if r.hasMTU {
				return nil, duparg("mtu", v)
			}
			n, ok := getInteger(v)
			if !ok {
				return nil, invarg("Invalid \"mtu\" value\n", v)
			}
			r.mtu, r.hasMTU = n, true
		case matches(w, "alias"):
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			if len(v) >= netdev.IFALIASZ {
				return nil, invarg("alias too long\n", v)
			}
			r.alias, r.hasAlias = v, true
		case w == "master":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			r.master = v
		case w == "nomaster":
			r.nomaster = true
		case matches(w, "group"):
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			g, ok := groupID(v)
			if !ok {
				return nil, invarg("Invalid \"group\" value\n", v)
			}
			r.group, r.hasGroup = g, true
		case unsupportedLinkAttr[w]:
			return nil, notSupported("ip link", w)
		case w == "type":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			r.kind = v
			r.typeArgs = a.w[1:]
			return r, nil
		default:
			if matches(w, "help") {
				return nil, usageErr(linkUsage)
			}
			if w == "dev" {
				v, err := a.next()
				if err != nil {
					return nil, err
				}
				w = v
			}
			if r.dev != "" {
				return nil, duparg2("dev", w)
			}
			if !checkIfname(w) {
				return nil, invarg("\"dev\" not a valid ifname", w)
			}
			r.dev = w
		}
	}
	return r, nil
}

// unsupportedLinkAttr are the attributes of iplink_parse that netsim does
// not model.
var unsupportedLinkAttr = map[string]bool{
	"broadcast": true, "brd": true, "peer": true, "netns": true, "multicast": true, "allmulticast": true,
	"promisc": true, "trailers": true, "arp": true, "dynamic": true, "carrier": true, "vf": true,
	"mode": true, "state": true, "numtxqueues": true, "numrxqueues": true, "addrgenmode": true,
	"link-netns": true, "link-netnsid": true, "protodown": true, "protodown_reason": true,
	"gso_max_size": true, "gso_max_segs": true, "gro_max_size": true,
	"altname": true, "xdp": true, "vrf": true, "parentdev": true,
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

func (ip *IP) linkAdd(h *rtnl.Handle, argv []string) error {
	r, err := parseLink(argv)
	if err != nil {
		return err
	}
	name := r.name
	if name == "" {
		name = r.dev
	} else if r.dev != "" && r.dev != r.name {
		// iplink_parse: "name" and a bare device name both given.
		return duparg2("dev", r.dev)
	}
	if r.kind == "" {
		return failf("Not enough information: \"type\" argument is required\n")
	}
	if r.link != "" && h.LinkIndex(r.link) == 0 {
		return nodev(r.link)
	}
	if r.master != "" && h.LinkIndex(r.master) == 0 {
		return invarg("Device does not exist\n", r.master)
	}
	var spec netdev.LinkSpec
	ta := &args{w: r.typeArgs}
	switch r.kind {
	case "dummy":
		if ta.more() {
			// iproute2 has no link_util for dummy: iplink_modify's garbage check.
			return failf("Garbage instead of arguments \"%s ...\". Try \"ip link help\".\n", ta.peek())
		}
		spec = netdev.Dummy{Name: name, Attrs: r.attrs()}
	case "veth":
		v := netdev.Veth{Name: name, Attrs: r.attrs()}
		if ta.more() {
			if ta.peek() != "peer" {
				return failf("Usage: ip link <options> type veth [peer <options>]\nTo get <options> type 'ip link add help'\n")
			}
			pr, err := parseLink(ta.w[1:])
			if err != nil {
				return err
			}
			switch {
			case pr.master != "" && h.LinkIndex(pr.master) == 0:
				return invarg("Device does not exist\n", pr.master)
			case pr.master != "", pr.nomaster:
				return notSupported("ip link add ... peer", "master")
			case pr.up || pr.down:
				return notSupported("ip link add ... peer", "up")
			case pr.link != "":
				return notSupported("ip link add ... peer", "link")
			case pr.kind != "":
				return notSupported("ip link add ... peer", "type")
			}
			v.Peer = pr.name
			if v.Peer == "" {
				v.Peer = pr.dev
			}
			v.PeerAttrs = pr.attrs()
		}
		spec = v
	case "macvlan":
		m := netdev.Macvlan{Name: name, Link: r.link, Attrs: r.attrs()}
		for ; ta.more(); ta.skip() {
			switch w := ta.peek(); {
			case w == "mode":
				v, err := ta.next()
				if err != nil {
					return err
				}
				switch v {
				case "private":
					m.Mode = netdev.MacvlanPrivate
				case "vepa":
					m.Mode = netdev.MacvlanVEPA
				case "bridge":
					m.Mode = netdev.MacvlanBridge
				case "passthru":
					m.Mode = netdev.MacvlanPassthru
				case "source":
					m.Mode = netdev.MacvlanSource
				default:
					return failf("Error: argument of \"mode\" must be \"private\", \"vepa\", \"bridge\", \"passthru\" or \"source\", not \"%s\"\n", v)
				}
			default:
				return failf("macvlan: unknown command \"%s\"?\n", w)
			}
		}
		spec = m
	case "vlan":
		v := netdev.Vlan{Name: name, Link: r.link, Attrs: r.attrs()}
		for ; ta.more(); ta.skip() {
			switch w := ta.peek(); {
			case w == "id":
				n, err := nextValue(ta, uint16Value, "id is invalid")
				if err != nil {
					return err
				}
				v.ID = uint16(n)
			case w == "protocol":
				s, err := ta.next()
				if err != nil {
					return err
				}
				if s != "802.1Q" && s != "802.1q" {
					return invarg("protocol is invalid", s)
				}
			default:
				return failf("vlan: unknown command \"%s\"?\n", w)
			}
		}
		spec = v
	case "bond":
		b := netdev.Bond{Name: name, Attrs: r.attrs()}
		for ; ta.more(); ta.skip() {
			switch w := ta.peek(); {
			case w == "mode":
				mode, err := nextValue(ta, bondMode, "invalid mode")
				if err != nil {
					return err
				}
				b.Mode = mode
			default:
				return failf("bond: unknown command \"%s\"?\n", w)
			}
		}
		spec = b
	case "vrf":
		v := netdev.VRF{Name: name, Attrs: r.attrs()}
		for ; ta.more(); ta.skip() {
			switch w := ta.peek(); {
			case matches(w, "table"):
				id, err := nextValue(ta, tableID, "invalid table ID\n")
				if err != nil {
					return err
				}
				v.Table = id
			default:
				return failf("vrf: unknown command \"%s\"?\n", w)
			}
		}
		spec = v
	case "bridge":
		bs, err := parseBridgeOpts(r.typeArgs)
		if err != nil {
			return err
		}
		spec = netdev.Bridge{Name: name, Attrs: r.attrs(), Settings: bs}
	default:
		if netdev.KnownKind(r.kind) {
			return failf("Kind \"%s\" is not supported by netsim.\n", r.kind)
		}
		// ip has no link_util for it: any argument is garbage, and the
		// kernel answers that it does not know the kind.
		if ta.more() {
			if matches(ta.peek(), "help") {
				return usageErr(linkUsage)
			}
			return failf("Garbage instead of arguments \"%s ...\". Try \"ip link help\".\n", ta.peek())
		}
		spec = netdev.Other{Name: name, Kind: r.kind, Attrs: r.attrs()}
	}
	if err := h.LinkAdd(spec); err != nil {
		return err
	}
	// The rest of the same request: master, then flags. If either fails,
	// the kernel unregisters the new device (rtnl_newlink_create's
	// out_unregister), and so does this.
	if name == "" {
		return nil
	}
	var err2 error
	if r.master != "" {
		err2 = h.LinkSetMaster(name, r.master)
	}
	if err2 == nil && r.up {
		err2 = h.LinkSetUp(name)
	}
	if err2 != nil {
		_ = h.LinkDel(name)
	}
	return err2
}

func bondMode(s string) (netdev.BondMode, bool) {
	names := []string{"balance-rr", "active-backup", "balance-xor", "broadcast", "802.3ad", "balance-tlb", "balance-alb"}
	for i, n := range names {
		if s == n || s == strconv.Itoa(i) {
			return netdev.BondMode(i), true
		}
	}
	return 0, false
}

func (ip *IP) linkSet(h *rtnl.Handle, argv []string) error {
	r, err := parseLink(argv)
	if err != nil {
		return err
	}
	var bridge *netdev.BridgeSettings
	var port *netdev.BridgePortSettings
	switch r.kind {
	case "":
	case "bridge":
		bs, err := parseBridgeOpts(r.typeArgs)
		if err != nil {
			return err
		}
		bridge = &bs
	case "bridge_slave":
		ps, err := parseBridgeSlaveOpts(h, r.typeArgs)
		if err != nil {
			return err
		}
		port = &ps
	default:
		return notSupported("ip link set", "type")
	}
	if r.hasIndex {
		return notSupported("ip link set", "index")
	}
	if r.link != "" {
		return notSupported("ip link set", "link")
	}
	var devs []string
	switch {
	case r.dev != "":
		if h.LinkIndex(r.dev) == 0 {
			return nodev(r.dev)
		}
		devs = []string{r.dev}
	case r.hasGroup:
		// `ip link set group G ...`: every device of group G.
		links, err := h.LinkList()
		if err != nil {
			return err
		}
		for _, l := range links {
			if l.Group == r.group {
				devs = append(devs, l.Name)
			}
		}
		r.hasGroup = false
	default:
		return failf("Not enough information: \"dev\" argument is required.\n")
	}
	if r.master != "" && h.LinkIndex(r.master) == 0 {
		return invarg("Device does not exist\n", r.master)
	}
	for _, d := range devs {
		// rtnl_newlink on an existing device: changelink, then do_setlink.
		if bridge != nil {
			if err := h.LinkSetBridge(d, *bridge); err != nil {
				return err
			}
		}
		if port != nil {
			if err := h.LinkSetBridgePort(d, *port); err != nil {
				return err
			}
		}
		if err := setLink(h, d, r); err != nil {
			return err
		}
	}
	return nil
}

// setLink applies a `link set` request to one device in do_setlink's
// order: address, mtu, group, name, alias, flags, master, txqueuelen. The
// kernel applies them one by one: a failure leaves the earlier ones done.
func setLink(h *rtnl.Handle, dev string, r *linkReq) error {
	if r.hasAddr {
		if err := h.LinkSetHardwareAddr(dev, r.addr); err != nil {
			return err
		}
	}
	if r.hasMTU {
		if err := h.LinkSetMTU(dev, r.mtu); err != nil {
			return err
		}
	}
	if r.hasGroup {
		if err := h.LinkSetGroup(dev, r.group); err != nil {
			return err
		}
	}
	if r.name != "" && r.name != dev {
		if err := h.LinkSetName(dev, r.name); err != nil {
			return err
		}
		dev = r.name
	}
	if r.hasAlias {
		if err := h.LinkSetAlias(dev, r.alias); err != nil {
			return err
		}
	}
	switch {
	case r.up:
		if err := h.LinkSetUp(dev); err != nil {
			return err
		}
	case r.down:
		if err := h.LinkSetDown(dev); err != nil {
			return err
		}
	}
	if r.master != "" {
		if err := h.LinkSetMaster(dev, r.master); err != nil {
			return err
		}
	}
	if r.nomaster {
		if err := h.LinkSetNoMaster(dev); err != nil {
			return err
		}
	}
	if r.hasTxqlen {
		return h.LinkSetTxQueueLen(dev, r.txqlen)
	}
	return nil
}

func (ip *IP) linkDel(h *rtnl.Handle, argv []string) error {
	r, err := parseLink(argv)
	if err != nil {
		return err
	}
	if r.dev != "" {
		if h.LinkIndex(r.dev) == 0 {
			return nodev(r.dev)
		}
		return h.LinkDel(r.dev)
	}
	if r.hasGroup {
		return h.LinkDelGroup(r.group)
	}
	return failf("Not enough information: \"dev\" argument is required.\n")
}

// linkFilter is what `ip link show` and `ip addr show` select by
// (iproute2's struct filter, applied in print_linkinfo).
type linkFilter struct {
	dev       string
	up        bool
	group     uint32
	hasGroup  bool
	master    string // "master DEV" or "vrf DEV"
	nomaster  bool   // "nomaster": devices without a master
	kind      string // "type KIND"
	slaveKind string // "type KIND_slave": ports of a KIND master
}

func (f *linkFilter) keep(l rtnl.LinkInfo) bool {
	if f.dev != "" && l.Name != f.dev {
		return false
	}
	if f.up && l.Flags&netdev.FlagUp == 0 {
		return false
	}
	if f.hasGroup && l.Group != f.group {
		return false
	}
	if f.master != "" && l.Master != f.master {
		return false
	}
	if f.nomaster && l.Master != "" {
		return false
	}
	if f.kind != "" && l.Kind != f.kind {
		return false
	}
	if f.slaveKind != "" && l.SlaveKind != f.slaveKind {
		return false
	}
	return true
}

// parseLinkFilter reads ipaddr_list_flush_or_save's selectors that netsim
// knows; addr is true for `ip addr show` (which also takes to, scope, ...).
func parseLinkFilter(h *rtnl.Handle, argv []string, usage string) (*linkFilter, error) {
	f := &linkFilter{}
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case w == "up":
			f.up = true
		case w == "group":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			g, ok := groupID(v)
			if !ok {
				return nil, invarg("Invalid \"group\" value\n", v)
			}
			f.group, f.hasGroup = g, true
		case w == "master":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			if h.LinkIndex(v) == 0 {
				return nil, invarg("Device does not exist\n", v)
			}
			f.master, f.nomaster = v, false
		case w == "vrf":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			// name_is_vrf: the device must exist and be a vrf.
			if l, err := h.LinkByName(v); err != nil || l.Kind != "vrf" {
				return nil, invarg("Not a valid VRF name\n", v)
			}
			f.master, f.nomaster = v, false
		case w == "nomaster":
			f.master, f.nomaster = "", true
		case w == "type":
			v, err := a.next()
			if err != nil {
				return nil, err
			}
			if k, ok := strings.CutSuffix(v, "_slave"); ok {
				f.slaveKind = k
			} else {
				f.kind = v
			}
		default:
			if w == "dev" {
				v, err := a.next()
				if err != nil {
					return nil, err
				}
				w = v
			} else if matches(w, "help") {
				return nil, usageErr(usage)
			}
			if f.dev != "" {
				return nil, duparg2("dev", w)
			}
			f.dev = w
		}
	}
	if f.dev != "" && h.LinkIndex(f.dev) == 0 {
		return nil, failf("Device \"%s\" does not exist.\n", f.dev)
	}
	return f, nil
}

func (ip *IP) linkShow(h *rtnl.Handle, argv []string) error {
	f, err := parseLinkFilter(h, argv, linkUsage)
	if err != nil {
		return err
	}
	links, err := h.LinkList()
	if err != nil {
		return err
	}
	ip.linkList(f, links)
	return nil
}
