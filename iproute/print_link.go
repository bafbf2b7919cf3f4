// The printer of `ip link show` and of the device part of `ip addr show`:
// iproute2's ip/ipaddress.c (print_linkinfo, print_linkinfo_brief,
// print_link_flags, print_stats64, print_linktype, print_af_spec) and the
// print_opt of the link kinds netsim has (ip/iplink_bridge.c,
// ip/iplink_bridge_slave.c, ip/iplink_macvlan.c, ip/iplink_vlan.c,
// ip/iplink_vrf.c).

package iproute

import (
	"fmt"
	"strconv"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// linkView says how much of a device a listing prints, as the request
// that fetched it and the command decide.
type linkView struct {
	// doLink is iproute2's do_link: `ip link` (link mode, alias, af_spec
	// and statistics in the device's lines) rather than `ip addr`.
	doLink bool
	// family is filter.family: 0 (`ip addr`), AF_PACKET (`ip link`), or
	// the -4/-6 of `ip addr`; with a family other than AF_PACKET the
	// link/ether line is printed only with -d.
	family rt.Family
	// inet6 is a device from the IPv6 link dump (inet6_fill_ifinfo),
	// which carries only the name, address, MTU, link and operstate.
	inet6 bool
	// h is the namespace whose ids name a link's namespace
	// (get_name_from_nsid).
	h *handle
}

// linkNames resolves the ifindexes a device refers to, as ll_index_to_name
// and ll_index_to_flags do from ip's cache of the namespace's devices.
type linkNames map[netdev.IfIndex]rtnl.LinkInfo

func newLinkNames(links []rtnl.LinkInfo) linkNames {
	m := make(linkNames, len(links))
	for _, l := range links {
		m[l.Index] = l
	}
	return m
}

// name is ll_index_to_name: the device's name, or "if%d" for one ip does
// not know.
func (m linkNames) name(i netdev.IfIndex) string {
	if l, ok := m[i]; ok {
		return l.Name
	}
	return "if" + strconv.Itoa(int(i))
}

// printNameAndLink is print_name_and_link: the name, "@" and the device it
// is linked to (JSON: "link" before "ifname"). It returns whether that
// device is down (print_link_flags' M-DOWN).
func (ip *IP) printNameAndLink(format string, l rtnl.LinkInfo, names linkNames) bool {
	p := &ip.p
	name := l.Name
	mdown := false
	if l.LinkNetns {
		// IFLA_LINK_NETNSID: the device is elsewhere, named by its
		// ifindex there.
		if p.isJSON() {
			p.int(printJSON, "link_index", "", int64(l.LinkIndex))
		} else {
			name += "@if" + strconv.Itoa(int(l.LinkIndex))
		}
	} else if l.LinkIndex != 0 {
		link := names.name(l.LinkIndex)
		if p.isJSON() {
			p.str(printJSON, "link", "", link)
		} else {
			name += "@" + link
		}
		ll, ok := names[l.LinkIndex]
		mdown = !ok || ll.Flags&netdev.FlagUp == 0
	}
	p.str(printAny, "ifname", format, name)
	return mdown
}

// printLinkFlags is print_link_flags: "<FLAG,...>", NO-CARRIER for a
// device that is up without IFF_RUNNING, M-DOWN when the device it is
// linked to is down.
func (ip *IP) printLinkFlags(f netdev.Flags, mdown bool) {
	p := &ip.p
	flags := uint32(f)
	// netsim's IFF_LOWER_UP stands for carrier; the kernel's IFF_RUNNING
	// (dev_get_flags) is set with it.
	if flags&rt.IFFLowerUp != 0 {
		flags |= rt.IFFRunning
	}
	key := "<"
	if p.isJSON() {
		key = "flags"
	}
	p.openArray(printAny, key)
	if flags&rt.IFFUp != 0 && flags&rt.IFFRunning == 0 {
		format := "%s"
		if flags != 0 {
			format = "%s,"
		}
		p.str(printAny, "", format, "NO-CARRIER")
	}
	p.flagNames(flags&^rt.IFFRunning, rt.IFFNames)
	if mdown {
		p.str(printAny, "", ",%s", "M-DOWN")
	}
	p.closeArray(printAny, "> ")
}

// printOperstate is print_operstate.
func (ip *IP) printOperstate(s netdev.OperState) {
	p := &ip.p
	switch {
	case int(s) >= len(rt.OperStateNames):
		p.uint(printJSON, "operstate_index", "", uint64(s))
		p.hex0x(printFP, "", "state %#x", uint64(s))
	case ip.opts.brief > 0:
		p.str(printAny, "operstate", "%-14s ", rt.OperStateNames[s])
	default:
		p.str(printAny, "operstate", "state %s ", rt.OperStateNames[s])
	}
}

// linkTypeName is ll_type_n2a for the hardware types netsim has.
func linkTypeName(t uint16) string {
	switch t {
	case rtnl.ARPHRDEther:
		return "ether"
	case rtnl.ARPHRDLoopback:
		return "loopback"
	}
	return "[" + strconv.Itoa(int(t)) + "]"
}

// printLinkInfo is print_linkinfo: one device, its lines ended by "\n"
// (the JSON members of its object, which the caller opens). The device has
// passed the filter.
func (ip *IP) printLinkInfo(l rtnl.LinkInfo, names linkNames, v linkView) {
	p := &ip.p
	if ip.opts.brief > 0 {
		ip.printLinkInfoBrief(l, names, v)
		return
	}
	p.int(printAny, "ifindex", "%d: ", int64(l.Index))
	mdown := ip.printNameAndLink("%s: ", l, names)
	ip.printLinkFlags(l.Flags, mdown)
	p.int(printAny, "mtu", "mtu %d ", int64(l.MTU))
	if !v.inet6 {
		p.str(printAny, "qdisc", "qdisc %s ", l.Qdisc)
		if l.Master != "" {
			p.str(printAny, "master", "master %s ", l.Master)
		}
	}
	ip.printOperstate(l.OperState)
	if !v.inet6 {
		if v.doLink {
			if int(l.LinkMode) < len(rt.LinkModeNames) {
				p.str(printAny, "linkmode", "mode %s ", rt.LinkModeNames[l.LinkMode])
			} else {
				p.int(printAny, "linkmode_index", "mode %d ", int64(l.LinkMode))
			}
		}
		p.str(printAny, "group", "group %s ", rt.GroupName(l.Group))
	}
	// print_queuelen: IFLA_TXQLEN, or for the IPv6 dump the ioctl's.
	if q := int32(uint32(l.TxQueueLen)); q != 0 {
		p.int(printAny, "txqlen", "qlen %d", int64(q))
	}
	if v.family == 0 || v.family == afPacket || ip.opts.details > 0 {
		p.nl()
		p.str(printAny, "link_type", "    link/%s ", linkTypeName(l.Type))
		p.str(printAny, "address", "%s", macString(l.Addr))
		if !v.inet6 {
			p.str(printFP, "", " brd ", "")
			p.str(printAny, "broadcast", "%s", macString(l.Broadcast))
		}
	}
	if l.LinkNetns && !v.inet6 {
		ip.printLinkNetnsid(v.h, l.LinkNetnsID)
	}
	if ip.opts.details > 0 && !v.inet6 {
		p.uint(printAny, "promiscuity", " promiscuity %d ", uint64(l.Promiscuity))
		p.uint(printAny, "allmulti", " allmulti %d ", uint64(l.Allmulti))
		p.uint(printAny, "min_mtu", "minmtu %d ", uint64(l.MinMTU))
		p.uint(printAny, "max_mtu", "maxmtu %d ", uint64(l.MaxMTU))
		if l.Kind != "" || l.SlaveKind != "" {
			ip.printLinkType(l, names)
		}
		if v.doLink && l.Inet6 {
			ip.printAFSpec(l)
		}
		p.uint(printAny, "num_tx_queues", "numtxqueues %d ", uint64(l.NumTxQueues))
		p.uint(printAny, "num_rx_queues", "numrxqueues %d ", uint64(l.NumRxQueues))
		p.uint(printAny, "gso_max_size", "gso_max_size %d ", uint64(l.GSOMaxSize))
		p.uint(printAny, "gso_max_segs", "gso_max_segs %d ", uint64(l.GSOMaxSegs))
		p.uint(printAny, "tso_max_size", "tso_max_size %d ", uint64(l.TSOMaxSize))
		p.uint(printAny, "tso_max_segs", "tso_max_segs %d ", uint64(l.TSOMaxSegs))
		p.uint(printAny, "gro_max_size", "gro_max_size %d ", uint64(l.GROMaxSize))
	}
	if (v.doLink || ip.opts.details > 0) && l.Alias != "" && !v.inet6 {
		p.str(printFP, "", "%s    ", p.sl)
		p.str(printAny, "ifalias", "alias %s", l.Alias)
	}
	if v.doLink && ip.opts.stats > 0 {
		p.nl()
		ip.printStats64(l, "stats64", !v.inet6)
	}
	p.str(printFP, "", "%s", "\n")
}

// afPacket is AF_PACKET, the family of `ip link`'s listing.
const afPacket = 17 // Linux's number on every platform

// printLinkInfoBrief is print_linkinfo_brief: name, state, and for `ip
// link` the address and flags on one line.
func (ip *IP) printLinkInfoBrief(l rtnl.LinkInfo, names linkNames, v linkView) {
	p := &ip.p
	mdown := ip.printNameAndLink("%-16s ", l, names)
	ip.printOperstate(l.OperState)
	if v.family == afPacket {
		p.str(printAny, "address", "%s ", macString(l.Addr))
		ip.printLinkFlags(l.Flags, mdown)
		p.str(printFP, "", "%s", "\n")
	}
}

// printAFSpec is print_af_spec: the IPv6 address generation mode.
func (ip *IP) printAFSpec(l rtnl.LinkInfo) {
	names := []string{rtnl.AddrGenModeEUI64: "eui64", rtnl.AddrGenModeNone: "none",
		rtnl.AddrGenModeStablePrivacy: "stable_secret", rtnl.AddrGenModeRandom: "random"}
	s := fmt.Sprintf("%#.2x", l.AddrGenMode)
	if int(l.AddrGenMode) < len(names) {
		s = names[l.AddrGenMode]
	}
	ip.p.str(printAny, "inet6_addr_gen_mode", "addrgenmode %s ", s)
}

// printLinkType is print_linktype: the kind and its print_opt, then the
// kind of the master it is a port of and that kind's print_opt.
func (ip *IP) printLinkType(l rtnl.LinkInfo, names linkNames) {
	p := &ip.p
	p.openObject("linkinfo")
	if l.Kind != "" {
		p.nl()
		p.str(printAny, "info_kind", "    %s ", l.Kind)
		if opt := kindPrintOpt[l.Kind]; opt != nil {
			p.openObject("info_data")
			opt(ip, l, names)
			p.closeObject()
		}
	}
	if l.SlaveKind != "" {
		p.nl()
		p.str(printAny, "info_slave_kind", "    %s_slave ", l.SlaveKind)
		if opt := slaveKindPrintOpt[l.SlaveKind]; opt != nil {
			p.openObject("info_slave_data")
			opt(ip, l, names)
			p.closeObject()
		}
	}
	p.closeObject()
}

// kindPrintOpt and slaveKindPrintOpt are the print_opt of ip's link_util
// for the kinds netsim has (veth has none, dummy no link_util).
var kindPrintOpt map[string]func(ip *IP, l rtnl.LinkInfo, names linkNames)
var slaveKindPrintOpt map[string]func(ip *IP, l rtnl.LinkInfo, names linkNames)

func init() {
	kindPrintOpt = map[string]func(ip *IP, l rtnl.LinkInfo, names linkNames){
		"bond":    (*IP).bondPrintOpt,
		"bridge":  (*IP).bridgePrintOpt,
		"macvlan": (*IP).macvlanPrintOpt,
		"vlan":    (*IP).vlanPrintOpt,
		"vrf":     (*IP).vrfPrintOpt,
		"vxlan":   (*IP).vxlanPrintOpt,
	}
	slaveKindPrintOpt = map[string]func(ip *IP, l rtnl.LinkInfo, names linkNames){
		"bond":   (*IP).bondSlavePrintOpt,
		"bridge": (*IP).bridgeSlavePrintOpt,
		"vrf":    (*IP).vrfSlavePrintOpt,
	}
}

// macvlanPrintOpt is macvlan_print_opt.
func (ip *IP) macvlanPrintOpt(l rtnl.LinkInfo, _ linkNames) {
	p := &ip.p
	mode := "unknown"
	switch l.MacvlanMode {
	case netdev.MacvlanPrivate:
		mode = "private"
	case netdev.MacvlanVEPA:
		mode = "vepa"
	case netdev.MacvlanBridge:
		mode = "bridge"
	case netdev.MacvlanPassthru:
		mode = "passthru"
	case netdev.MacvlanSource:
		mode = "source"
	}
	p.str(printAny, "mode", "mode %s ", mode)
	if m := l.Macvlan; m != nil {
		if m.Flags&netdev.MacvlanFlagNoPromisc != 0 {
			p.bool(printAny, "nopromisc", "nopromisc ", true)
		}
		if m.Flags&netdev.MacvlanFlagNoDst != 0 {
			p.bool(printAny, "nodst", "nodst ", true)
		}
	}
	p.uint(printAny, "bcqueuelen", "bcqueuelen %d ", uint64(l.MacvlanBcQueueLen))
	p.uint(printAny, "usedbcqueuelen", "usedbcqueuelen %d ", uint64(l.MacvlanBcQueueLenUsed))
	if l.MacvlanMode == netdev.MacvlanSource {
		// IFLA_MACVLAN_MACADDR_COUNT: netsim keeps no source addresses.
		p.int(printAny, "macaddr_count", "remotes (%d) ", 0)
	}
}

// vlanPrintOpt is vlan_print_opt with vlan_print_flags and
// vlan_print_map: the protocol (ll_proto_n2a), the id, the flags and the
// priority maps the kernel sends (those with entries).
func (ip *IP) vlanPrintOpt(l rtnl.LinkInfo, _ linkNames) {
	p := &ip.p
	v := l.Vlan
	if v == nil {
		return
	}
	proto := fmt.Sprintf("[%d]", v.Protocol)
	switch v.Protocol {
	case netdev.VlanProto8021Q:
		proto = "802.1Q"
	case netdev.VlanProto8021AD:
		proto = "802.1ad"
	}
	p.str(printAny, "protocol", "protocol %s ", proto)
	p.uint(printAny, "id", "id %d ", uint64(v.ID))
	if v.Flags != 0 {
		key := "<"
		if p.isJSON() {
			key = "flags"
		}
		p.openArray(printAny, key)
		p.flagNames(v.Flags, vlanFlagNames)
		p.closeArray(printAny, "> ")
	}
	qos := func(jsonKey, name string, list []netdev.VlanQoSMapping) {
		if len(list) == 0 {
			return
		}
		p.openArray(printJSON, jsonKey)
		p.nl()
		p.str(printFP, "", "      %s { ", name)
		for _, m := range list {
			if p.isJSON() {
				p.openObject("")
				p.uint(printJSON, "from", "", uint64(m.From))
				p.uint(printJSON, "to", "", uint64(m.To))
				p.closeObject()
			} else {
				p.text("%d:%d ", m.From, m.To)
			}
		}
		p.closeArray(printJSON, "")
		p.str(printFP, "", "%s ", "}")
	}
	qos("ingress_qos", "ingress-qos-map", v.IngressQoS)
	qos("egress_qos", "egress-qos-map", v.EgressQoS)
}

// vlanFlagNames are the VLAN_FLAG_* bits by name, in the order
// vlan_print_flags prints them.
var vlanFlagNames = []struct {
	Flag uint32
	Name string
}{{netdev.VlanFlagReorderHdr, "REORDER_HDR"}, {netdev.VlanFlagGVRP, "GVRP"}, {netdev.VlanFlagMVRP, "MVRP"},
	{netdev.VlanFlagLooseBinding, "LOOSE_BINDING"}, {netdev.VlanFlagBridgeBinding, "BRIDGE_BINDING"}}

// flagNames prints the names of the flags set, comma-separated, then what
// is left unnamed in hex: the loop print_link_flags and vlan_print_flags
// share.
func (p *printer) flagNames(flags uint32, names []struct {
	Flag uint32
	Name string
}) {
	for _, n := range names {
		if flags&n.Flag == 0 {
			continue
		}
		flags &^= n.Flag
		format := "%s"
		if flags != 0 {
			format = "%s,"
		}
		p.str(printAny, "", format, n.Name)
	}
	if flags != 0 {
		p.hex(printAny, "", "%x", uint64(flags))
	}
}

// vrfPrintOpt is vrf_print_opt.
func (ip *IP) vrfPrintOpt(l rtnl.LinkInfo, _ linkNames) {
	ip.p.uint(printAny, "table", "table %d ", uint64(l.VRFTable))
}

// vrfSlavePrintOpt is vrf_slave_print_opt: the table of the port's vrf
// (IFLA_VRF_PORT_TABLE).
func (ip *IP) vrfSlavePrintOpt(l rtnl.LinkInfo, names linkNames) {
	for _, m := range names {
		if m.Name == l.Master {
			ip.p.uint(printAny, "table", "table %d ", uint64(m.VRFTable))
			return
		}
	}
}

// bridgeIDString is br_dump_bridge_id: the priority's two bytes in hex,
// ".", and the address as ether_ntoa_r writes it (no leading zeros).
func bridgeIDString(id netdev.BridgeID) string {
	a := id.Addr
	return fmt.Sprintf("%.2x%.2x.%x:%x:%x:%x:%x:%x", byte(id.Prio>>8), byte(id.Prio), a[0], a[1], a[2], a[3], a[4], a[5])
}

// printBridgeTimer is _bridge_print_timer and _print_timer: a clock_t in
// hundredths of a second, as seconds with two decimals (a bare number in
// JSON).
func (ip *IP) printBridgeTimer(key string, v uint64) {
	p := &ip.p
	sec, cs := int32(v/100), int32(v%100)
	if p.isJSON() {
		p.name(key)
		p.jw.raw(fmt.Sprintf("%d.%02d", sec, cs))
		return
	}
	p.text("%s %4d.%02d ", key, sec, cs)
}

// bridgePrintOpt is bridge_print_opt for the attributes br_fill_info
// sends from a kernel without CONFIG_BRIDGE_VLAN_FILTERING. As in
// iproute2 6.1, designated_root shows the bridge id.
func (ip *IP) bridgePrintOpt(l rtnl.LinkInfo, _ linkNames) {
	b := l.Bridge
	if b == nil {
		return
	}
	p := &ip.p
	p.uint(printAny, "forward_delay", "forward_delay %d ", uint64(b.ForwardDelay))
	p.uint(printAny, "hello_time", "hello_time %d ", uint64(b.HelloTime))
	p.uint(printAny, "max_age", "max_age %d ", uint64(b.MaxAge))
	p.uint(printAny, "ageing_time", "ageing_time %d ", uint64(b.AgeingTime))
	p.uint(printAny, "stp_state", "stp_state %d ", uint64(b.STPState))
	p.uint(printAny, "priority", "priority %d ", uint64(b.Priority))
	p.uint(printAny, "vlan_filtering", "vlan_filtering %d ", uint64(b.VlanFiltering))
	p.str(printAny, "bridge_id", "bridge_id %s ", bridgeIDString(b.BridgeID))
	p.str(printAny, "root_id", "designated_root %s ", bridgeIDString(b.BridgeID))
	p.uint(printAny, "root_port", "root_port %d ", uint64(b.RootPort))
	p.uint(printAny, "root_path_cost", "root_path_cost %d ", uint64(b.RootPathCost))
	p.uint(printAny, "topology_change", "topology_change %d ", uint64(b.TopologyChange))
	p.uint(printAny, "topology_change_detected", "topology_change_detected %d ", uint64(b.TopologyChangeDetected))
	ip.printBridgeTimer("hello_timer", b.HelloTimer)
	ip.printBridgeTimer("tcn_timer", b.TCNTimer)
	ip.printBridgeTimer("topology_change_timer", b.TopologyChangeTimer)
	ip.printBridgeTimer("gc_timer", b.GCTimer)
	p.hex0x(printAny, "group_fwd_mask", "group_fwd_mask %#x ", uint64(b.GroupFwdMask))
	p.str(printAny, "group_addr", "group_address %s ", macString(b.GroupAddr))
	p.uint(printAny, "mcast_snooping", "mcast_snooping %d ", uint64(b.McastSnooping))
	p.uint(printAny, "no_linklocal_learn", "no_linklocal_learn %d ", b2u(b.NoLinklocalLearn))
	p.uint(printAny, "mcast_vlan_snooping", "mcast_vlan_snooping %d ", b2u(b.McastVlanSnooping))
	p.uint(printAny, "mcast_router", "mcast_router %d ", uint64(b.McastRouter))
	p.uint(printAny, "mcast_query_use_ifaddr", "mcast_query_use_ifaddr %d ", uint64(b.McastQueryUseIfaddr))
	p.uint(printAny, "mcast_querier", "mcast_querier %d ", uint64(b.McastQuerier))
	p.uint(printAny, "mcast_hash_elasticity", "mcast_hash_elasticity %d ", uint64(b.McastHashElasticity))
	p.uint(printAny, "mcast_hash_max", "mcast_hash_max %d ", uint64(b.McastHashMax))
	p.uint(printAny, "mcast_last_member_cnt", "mcast_last_member_count %d ", uint64(b.McastLastMemberCnt))
	p.uint(printAny, "mcast_startup_query_cnt", "mcast_startup_query_count %d ", uint64(b.McastStartupQueryCnt))
	p.uint(printAny, "mcast_last_member_intvl", "mcast_last_member_interval %d ", b.McastLastMemberIntvl)
	p.uint(printAny, "mcast_membership_intvl", "mcast_membership_interval %d ", b.McastMembershipIntvl)
	p.uint(printAny, "mcast_querier_intvl", "mcast_querier_interval %d ", b.McastQuerierIntvl)
	p.uint(printAny, "mcast_query_intvl", "mcast_query_interval %d ", b.McastQueryIntvl)
	p.uint(printAny, "mcast_query_response_intvl", "mcast_query_response_interval %d ", b.McastQueryResponseIntvl)
	p.uint(printAny, "mcast_startup_query_intvl", "mcast_startup_query_interval %d ", b.McastStartupQueryIntvl)
	p.uint(printAny, "mcast_stats_enabled", "mcast_stats_enabled %d ", uint64(b.McastStatsEnabled))
	p.uint(printAny, "mcast_igmp_version", "mcast_igmp_version %d ", uint64(b.McastIGMPVersion))
	p.uint(printAny, "mcast_mld_version", "mcast_mld_version %d ", uint64(b.McastMLDVersion))
	p.uint(printAny, "nf_call_iptables", "nf_call_iptables %d ", uint64(b.NFCallIptables))
	p.uint(printAny, "nf_call_ip6tables", "nf_call_ip6tables %d ", uint64(b.NFCallIp6tables))
	p.uint(printAny, "nf_call_arptables", "nf_call_arptables %d ", uint64(b.NFCallArptables))
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// bridgePortStates are iplink_bridge_slave.c's port_states.
var bridgePortStates = []string{"disabled", "listening", "learning", "forwarding", "blocking"}

// fwdMaskString is _bitmask2str with fwd_mask_tbl: the bits of a group
// forward mask by name (stp, lacp, lldp) or as 0x values, "0x0" for none.
func fwdMaskString(mask uint16) string {
	names := map[int]string{0: "stp", 2: "lacp", 14: "lldp"}
	s := ""
	for i := 0; mask != 0; i, mask = i+1, mask>>1 {
		if mask&1 == 0 {
			continue
		}
		if s != "" {
			s += ","
		}
		if n, ok := names[i]; ok {
			s += n
		} else {
			s += fmt.Sprintf("0x%x", 1<<i)
		}
	}
	if s == "" {
		return "0x0"
	}
	return s
}

// bridgeSlavePrintOpt is bridge_slave_print_opt for the attributes
// br_port_fill_attrs sends.
func (ip *IP) bridgeSlavePrintOpt(l rtnl.LinkInfo, names linkNames) {
	b := l.BridgePort
	if b == nil {
		return
	}
	p := &ip.p
	if int(b.State) < len(bridgePortStates) {
		p.str(printAny, "state", "state %s ", bridgePortStates[b.State])
	} else {
		p.int(printAny, "state_index", "state (%d) ", int64(b.State))
	}
	p.int(printAny, "priority", "priority %d ", int64(b.Priority))
	p.int(printAny, "cost", "cost %d ", int64(int32(b.Cost)))
	p.onOff(printAny, "hairpin", "hairpin %s ", b.Hairpin)
	p.onOff(printAny, "guard", "guard %s ", b.Guard)
	p.onOff(printAny, "root_block", "root_block %s ", b.RootBlock)
	p.onOff(printAny, "fastleave", "fastleave %s ", b.FastLeave)
	p.onOff(printAny, "learning", "learning %s ", b.Learning)
	p.onOff(printAny, "flood", "flood %s ", b.Flood)
	p.hex0x(printAny, "id", "port_id %#x ", uint64(b.ID))
	p.hex0x(printAny, "no", "port_no %#x ", uint64(b.No))
	p.uint(printAny, "designated_port", "designated_port %d ", uint64(b.DesignatedPort))
	p.uint(printAny, "designated_cost", "designated_cost %d ", uint64(b.DesignatedCost))
	p.str(printAny, "bridge_id", "designated_bridge %s ", bridgeIDString(b.DesignatedBridge))
	p.str(printAny, "root_id", "designated_root %s ", bridgeIDString(b.DesignatedRoot))
	ip.printBridgeTimer("hold_timer", b.HoldTimer)
	ip.printBridgeTimer("message_age_timer", b.MessageAgeTimer)
	ip.printBridgeTimer("forward_delay_timer", b.ForwardDelayTimer)
	p.uint(printAny, "topology_change_ack", "topology_change_ack %d ", uint64(b.TopologyChangeAck))
	p.uint(printAny, "config_pending", "config_pending %d ", uint64(b.ConfigPending))
	p.onOff(printAny, "proxy_arp", "proxy_arp %s ", b.ProxyARP)
	p.onOff(printAny, "proxy_arp_wifi", "proxy_arp_wifi %s ", b.ProxyARPWifi)
	p.uint(printAny, "multicast_router", "mcast_router %d ", uint64(b.MulticastRouter))
	fl := "off"
	if b.FastLeave {
		fl = "on"
	}
	p.str(printFP, "", "mcast_fast_leave %s ", fl)
	p.onOff(printAny, "mcast_flood", "mcast_flood %s ", b.McastFlood)
	p.onOff(printAny, "bcast_flood", "bcast_flood %s ", b.BcastFlood)
	p.onOff(printAny, "mcast_to_unicast", "mcast_to_unicast %s ", b.McastToUnicast)
	p.onOff(printAny, "neigh_suppress", "neigh_suppress %s ", b.NeighSuppress)
	p.hex0x(printAny, "group_fwd_mask", "group_fwd_mask %#x ", uint64(b.GroupFwdMask))
	p.str(printAny, "group_fwd_mask_str", "group_fwd_mask_str %s ", fwdMaskString(b.GroupFwdMask))
	p.onOff(printAny, "vlan_tunnel", "vlan_tunnel %s ", b.VlanTunnel)
	p.onOff(printAny, "isolated", "isolated %s ", b.Isolated)
	p.onOff(printAny, "locked", "locked %s ", b.Locked)
	if b.BackupPort != 0 {
		p.str(printAny, "backup_port", "backup_port %s ", names.name(b.BackupPort))
	}
}

// counter is one statistics counter of a JSON stats object, printed
// when shown.
type counter struct {
	key   string
	v     uint64
	shown bool
}

// counters prints the shown counters as the JSON object key.
func (p *printer) counters(key string, cs []counter) {
	p.openObject(key)
	for _, c := range cs {
		if c.shown {
			p.uint(printJSON, c.key, "", c.v)
		}
	}
	p.closeObject()
}

// printStats64 is print_stats64 for a device's statistics, under key
// what in JSON; carrier says whether the message carried
// IFLA_CARRIER_CHANGES (the IPv6 link dump does not).
func (ip *IP) printStats64(l rtnl.LinkInfo, what string, carrier bool) {
	p := &ip.p
	s := &l.Stats
	st := ip.opts.stats
	if p.isJSON() {
		p.openObject(what)
		ext := st > 1
		p.counters("rx", []counter{
			{"bytes", s.RxBytes, true},
			{"packets", s.RxPackets, true},
			{"errors", s.RxErrors, true},
			{"dropped", s.RxDropped, true},
			{"over_errors", s.RxOverErrors, true},
			{"multicast", s.Multicast, true},
			{"compressed", s.RxCompressed, s.RxCompressed != 0},
			{"length_errors", s.RxLengthErrors, ext},
			{"crc_errors", s.RxCRCErrors, ext},
			{"frame_errors", s.RxFrameErrors, ext},
			{"fifo_errors", s.RxFIFOErrors, ext},
			{"missed_errors", s.RxMissedErrors, ext},
			{"nohandler", s.RxNoHandler, ext && s.RxNoHandler != 0},
			{"otherhost", s.RxOtherhostDropped, ext && s.RxOtherhostDropped != 0},
		})
		p.counters("tx", []counter{
			{"bytes", s.TxBytes, true},
			{"packets", s.TxPackets, true},
			{"errors", s.TxErrors, true},
			{"dropped", s.TxDropped, true},
			{"carrier_errors", s.TxCarrierErrors, true},
			{"collisions", s.Collisions, true},
			{"compressed", s.TxCompressed, s.TxCompressed != 0},
			{"aborted_errors", s.TxAbortedErrors, ext},
			{"fifo_errors", s.TxFIFOErrors, ext},
			{"window_errors", s.TxWindowErrors, ext},
			{"heartbeat_errors", s.TxHeartbeatErrors, ext},
			{"carrier_changes", uint64(l.CarrierChanges), ext && carrier},
		})
		p.closeObject()
		return
	}
	cols := []int{len("*X errors:"), len("packets"), len("errors"), len("dropped"),
		len("heartbt"), len("overrun"), len("compressed"), len("otherhost")}
	size := func(vals ...uint64) {
		for i, v := range vals {
			n := len(strconv.FormatUint(v, 10))
			if n > cols[i] {
				cols[i] = n
			}
		}
	}
	size(s.RxBytes, s.RxPackets, s.RxErrors, s.RxDropped, s.RxMissedErrors, s.Multicast, s.RxCompressed, 0)
	if st > 1 {
		size(0, s.RxLengthErrors, s.RxCRCErrors, s.RxFrameErrors, s.RxFIFOErrors, s.RxOverErrors, s.RxNoHandler, s.RxOtherhostDropped)
	}
	size(s.TxBytes, s.TxPackets, s.TxErrors, s.TxDropped, s.TxCarrierErrors, s.Collisions, s.TxCompressed, 0)
	if st > 1 {
		cc := uint64(0)
		if carrier {
			cc = uint64(l.CarrierChanges)
		}
		size(0, 0, s.TxAbortedErrors, s.TxFIFOErrors, s.TxWindowErrors, s.TxHeartbeatErrors, cc, 0)
	}
	num := func(w int, v uint64) { p.text("%*d ", w, v) }
	// nums prints vals in the columns from col on.
	nums := func(col int, vals ...uint64) {
		for i, v := range vals {
			num(cols[col+i], v)
		}
	}
	ifs := func(c bool, s string) string {
		if c {
			return s
		}
		return ""
	}
	p.text("    RX: %*s %*s %*s %*s %*s %*s %*s%s", cols[0]-4, "bytes", cols[1], "packets",
		cols[2], "errors", cols[3], "dropped", cols[4], "missed", cols[5], "mcast",
		cols[6], ifs(s.RxCompressed != 0, "compressed"), p.sl)
	p.text("    ")
	nums(0, s.RxBytes, s.RxPackets, s.RxErrors, s.RxDropped, s.RxMissedErrors, s.Multicast)
	if s.RxCompressed != 0 {
		num(cols[6], s.RxCompressed)
	}
	if st > 1 {
		w6, w7 := 0, 0
		if s.RxNoHandler != 0 {
			w6 = cols[6] + 1
		}
		if s.RxOtherhostDropped != 0 {
			w7 = cols[7] + 1
		}
		p.text("%s", p.sl)
		p.text("    RX errors:%*s %*s %*s %*s %*s %*s%*s%*s%s", cols[0]-10, "", cols[1], "length",
			cols[2], "crc", cols[3], "frame", cols[4], "fifo", cols[5], "overrun",
			w6, ifs(s.RxNoHandler != 0, " nohandler"), w7, ifs(s.RxOtherhostDropped != 0, " otherhost"), p.sl)
		p.text("%*s", cols[0]+5, "")
		nums(1, s.RxLengthErrors, s.RxCRCErrors, s.RxFrameErrors, s.RxFIFOErrors, s.RxOverErrors)
		if s.RxNoHandler != 0 {
			num(cols[6], s.RxNoHandler)
		}
		if s.RxOtherhostDropped != 0 {
			num(cols[7], s.RxOtherhostDropped)
		}
	}
	p.text("%s", p.sl)
	p.text("    TX: %*s %*s %*s %*s %*s %*s %*s%s", cols[0]-4, "bytes", cols[1], "packets",
		cols[2], "errors", cols[3], "dropped", cols[4], "carrier", cols[5], "collsns",
		cols[6], ifs(s.TxCompressed != 0, "compressed"), p.sl)
	p.text("    ")
	nums(0, s.TxBytes, s.TxPackets, s.TxErrors, s.TxDropped, s.TxCarrierErrors, s.Collisions)
	if s.TxCompressed != 0 {
		num(cols[6], s.TxCompressed)
	}
	if st > 1 {
		p.text("%s", p.sl)
		p.text("    TX errors:%*s %*s %*s %*s %*s %*s%s", cols[0]-10, "", cols[1], "aborted",
			cols[2], "fifo", cols[3], "window", cols[4], "heartbt", cols[5], ifs(carrier, "transns"), p.sl)
		p.text("%*s", cols[0]+5, "")
		nums(1, s.TxAbortedErrors, s.TxFIFOErrors, s.TxWindowErrors, s.TxHeartbeatErrors)
		if carrier {
			num(cols[5], uint64(l.CarrierChanges))
		}
	}
}

// printLinkNetnsid is print_linkinfo's IFLA_LINK_NETNSID: the link's
// namespace by the name ip knows for its id (link-netns NAME), else by the
// id, or "unknown" for none; in JSON the id.
func (ip *IP) printLinkNetnsid(h *handle, id int32) {
	p := &ip.p
	switch {
	case p.isJSON():
		p.int(printJSON, "link_netnsid", "", int64(id))
	case id < 0:
		p.str(printFP, "", " link-netnsid %s", "unknown")
	default:
		if name := ip.nameFromNsid(h, id); name != "" {
			p.str(printFP, "", " link-netns %s", name)
		} else {
			p.int(printFP, "", " link-netnsid %d", int64(id))
		}
	}
}
