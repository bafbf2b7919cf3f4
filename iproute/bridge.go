// `ip link add|set ... type bridge ARGS` and `ip link set ... type
// bridge_slave ARGS`: iproute2's ip/iplink_bridge.c (bridge_parse_opt) and
// ip/iplink_bridge_slave.c (bridge_slave_parse_opt).

package iproute

import (
	"strconv"
	"strings"

	"github.com/netsimlab/netsim/netdev"
)

const bridgeUsage = `Usage: ... bridge [ fdb_flush ]
		  [ forward_delay FORWARD_DELAY ]
		  [ hello_time HELLO_TIME ]
		  [ max_age MAX_AGE ]
		  [ ageing_time AGEING_TIME ]
		  [ stp_state STP_STATE ]
		  [ priority PRIORITY ]
		  [ group_fwd_mask MASK ]
		  [ group_address ADDRESS ]
		  [ no_linklocal_learn NO_LINKLOCAL_LEARN ]
		  [ vlan_filtering VLAN_FILTERING ]
		  [ vlan_protocol VLAN_PROTOCOL ]
		  [ vlan_default_pvid VLAN_DEFAULT_PVID ]
		  [ vlan_stats_enabled VLAN_STATS_ENABLED ]
		  [ vlan_stats_per_port VLAN_STATS_PER_PORT ]
		  [ mcast_snooping MULTICAST_SNOOPING ]
		  [ mcast_vlan_snooping MULTICAST_VLAN_SNOOPING ]
		  [ mcast_router MULTICAST_ROUTER ]
		  [ mcast_query_use_ifaddr MCAST_QUERY_USE_IFADDR ]
		  [ mcast_querier MULTICAST_QUERIER ]
		  [ mcast_hash_elasticity HASH_ELASTICITY ]
		  [ mcast_hash_max HASH_MAX ]
		  [ mcast_last_member_count LAST_MEMBER_COUNT ]
		  [ mcast_startup_query_count STARTUP_QUERY_COUNT ]
		  [ mcast_last_member_interval LAST_MEMBER_INTERVAL ]
		  [ mcast_membership_interval MEMBERSHIP_INTERVAL ]
		  [ mcast_querier_interval QUERIER_INTERVAL ]
		  [ mcast_query_interval QUERY_INTERVAL ]
		  [ mcast_query_response_interval QUERY_RESPONSE_INTERVAL ]
		  [ mcast_startup_query_interval STARTUP_QUERY_INTERVAL ]
		  [ mcast_stats_enabled MCAST_STATS_ENABLED ]
		  [ mcast_igmp_version IGMP_VERSION ]
		  [ mcast_mld_version MLD_VERSION ]
		  [ nf_call_iptables NF_CALL_IPTABLES ]
		  [ nf_call_ip6tables NF_CALL_IP6TABLES ]
		  [ nf_call_arptables NF_CALL_ARPTABLES ]

Where: VLAN_PROTOCOL := { 802.1Q | 802.1ad }
`

// bridgeOpt is one keyword of bridge_parse_opt: its name, whether ip takes
// an abbreviation of it (matches) or only the full word (strcmp), the
// value's width in bits (0 for a keyword without value, -1 for a special
// value), and where the value goes.
type bridgeOpt struct {
	name   string
	abbrev bool
	bits   int
	set    func(s *netdev.BridgeSettings, v uint64)
}

func ptr[T any](v T) *T { return &v }

// bridgeOpts are bridge_parse_opt's keywords in its order: an abbreviation
// is the first keyword it abbreviates.
var bridgeOpts = []bridgeOpt{
	{"forward_delay", true, 32, func(s *netdev.BridgeSettings, v uint64) { s.ForwardDelay = ptr(uint32(v)) }},
	{"hello_time", true, 32, func(s *netdev.BridgeSettings, v uint64) { s.HelloTime = ptr(uint32(v)) }},
	{"max_age", true, 32, func(s *netdev.BridgeSettings, v uint64) { s.MaxAge = ptr(uint32(v)) }},
	{"ageing_time", true, 32, func(s *netdev.BridgeSettings, v uint64) { s.AgeingTime = ptr(uint32(v)) }},
	{"stp_state", true, 32, func(s *netdev.BridgeSettings, v uint64) { s.STPState = ptr(uint32(v)) }},
	{"priority", true, 16, func(s *netdev.BridgeSettings, v uint64) { s.Priority = ptr(uint16(v)) }},
	{"vlan_filtering", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.VlanFiltering = ptr(uint8(v)) }},
	{"vlan_protocol", true, -1, nil},
	{"group_fwd_mask", true, 16, func(s *netdev.BridgeSettings, v uint64) { s.GroupFwdMask = ptr(uint16(v)) }},
	{"group_address", true, -1, nil},
	{"no_linklocal_learn", false, 8, func(s *netdev.BridgeSettings, v uint64) { s.NoLinklocalLearn = ptr(v != 0) }},
	{"fdb_flush", true, 0, func(s *netdev.BridgeSettings, _ uint64) { s.FDBFlush = true }},
	{"vlan_default_pvid", true, 16, func(s *netdev.BridgeSettings, v uint64) { s.VlanDefaultPVID = ptr(uint16(v)) }},
	{"vlan_stats_enabled", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.VlanStatsEnabled = ptr(uint8(v)) }},
	{"vlan_stats_per_port", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.VlanStatsPerPort = ptr(uint8(v)) }},
	{"mcast_router", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.McastRouter = ptr(uint8(v)) }},
	{"mcast_snooping", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.McastSnooping = ptr(uint8(v)) }},
	{"mcast_vlan_snooping", false, 8, func(s *netdev.BridgeSettings, v uint64) { s.McastVlanSnooping = ptr(v != 0) }},
	{"mcast_query_use_ifaddr", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.McastQueryUseIfaddr = ptr(uint8(v)) }},
	{"mcast_querier", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.McastQuerier = ptr(uint8(v)) }},
	{"mcast_hash_elasticity", true, 32, func(s *netdev.BridgeSettings, v uint64) { s.McastHashElasticity = ptr(uint32(v)) }},
	{"mcast_hash_max", true, 32, func(s *netdev.BridgeSettings, v uint64) { s.McastHashMax = ptr(uint32(v)) }},
	{"mcast_last_member_count", true, 32, func(s *netdev.BridgeSettings, v uint64) { s.McastLastMemberCnt = ptr(uint32(v)) }},
	{"mcast_startup_query_count", true, 32, func(s *netdev.BridgeSettings, v uint64) { s.McastStartupQueryCnt = ptr(uint32(v)) }},
	{"mcast_last_member_interval", true, 64, func(s *netdev.BridgeSettings, v uint64) { s.McastLastMemberIntvl = ptr(v) }},
	{"mcast_membership_interval", true, 64, func(s *netdev.BridgeSettings, v uint64) { s.McastMembershipIntvl = ptr(v) }},
	{"mcast_querier_interval", true, 64, func(s *netdev.BridgeSettings, v uint64) { s.McastQuerierIntvl = ptr(v) }},
	{"mcast_query_interval", true, 64, func(s *netdev.BridgeSettings, v uint64) { s.McastQueryIntvl = ptr(v) }},
	{"mcast_query_response_interval", true, 64, func(s *netdev.BridgeSettings, v uint64) { s.McastQueryResponseIntvl = ptr(v) }},
	{"mcast_startup_query_interval", true, 64, func(s *netdev.BridgeSettings, v uint64) { s.McastStartupQueryIntvl = ptr(v) }},
	{"mcast_stats_enabled", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.McastStatsEnabled = ptr(uint8(v)) }},
	{"mcast_igmp_version", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.McastIGMPVersion = ptr(uint8(v)) }},
	{"mcast_mld_version", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.McastMLDVersion = ptr(uint8(v)) }},
	{"nf_call_iptables", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.NFCallIptables = ptr(uint8(v)) }},
	{"nf_call_ip6tables", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.NFCallIp6tables = ptr(uint8(v)) }},
	{"nf_call_arptables", true, 8, func(s *netdev.BridgeSettings, v uint64) { s.NFCallArptables = ptr(uint8(v)) }},
}

// parseBridgeOpts is bridge_parse_opt: the IFLA_BR_* attributes of `type
// bridge ARGS`.
func parseBridgeOpts(argv []string) (netdev.BridgeSettings, error) {
	var s netdev.BridgeSettings
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		var opt *bridgeOpt
		for i := range bridgeOpts {
			o := &bridgeOpts[i]
			if (o.abbrev && matches(w, o.name)) || w == o.name {
				opt = o
				break
			}
		}
		if opt == nil {
			if matches(w, "help") {
				return s, failf("%s", bridgeUsage)
			}
			return s, failf("bridge: unknown command \"%s\"?\n%s", w, bridgeUsage)
		}
		if opt.bits == 0 {
			opt.set(&s, 0)
			continue
		}
		v, err := a.next()
		if err != nil {
			return s, err
		}
		switch opt.name {
		case "vlan_protocol":
			p, ok := vlanProtocol(v)
			if !ok {
				return s, invarg("invalid vlan_protocol", v)
			}
			s.VlanProtocol = &p
		case "group_address":
			b, err := llAddr(v)
			if err != nil {
				return s, err
			}
			// br_changelink refuses an address that is not 6 bytes long
			// with EINVAL, as it refuses the zero address.
			var m netdev.MAC
			if len(b) == len(m) {
				copy(m[:], b)
			}
			s.GroupAddr = &m
		default:
			n, ok := getUnsigned(v, opt.bits)
			if !ok {
				return s, invarg("invalid "+opt.name, v)
			}
			opt.set(&s, n)
		}
	}
	return s, nil
}

// llAddr is iproute2's ll_addr_a2n: hexadecimal bytes separated by ':',
// each read as sscanf's %x reads it, at most 32 of them.
func llAddr(arg string) ([]byte, error) {
	var out []byte
	for _, piece := range strings.Split(arg, ":") {
		if len(out) == 32 {
			break
		}
		p := strings.TrimLeft(piece, " \t\n")
		if len(p) > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') {
			p = p[2:]
		}
		n := 0
		for n < len(p) && strings.IndexByte("0123456789abcdefABCDEF", p[n]) >= 0 {
			n++
		}
		if n == 0 {
			return nil, failf("\"%s\" is invalid lladdr.\n", piece)
		}
		v, err := strconv.ParseUint(p[:n], 16, 64)
		if err != nil || v > 255 {
			return nil, failf("\"%s\" is invalid lladdr.\n", piece)
		}
		out = append(out, byte(v))
	}
	return out, nil
}

// vlanProtocol is ll_proto_a2n for the protocols a bridge takes: a name
// of ll_protos or a number.
func vlanProtocol(s string) (uint16, bool) {
	switch strings.ToLower(s) {
	case "802.1q":
		return 0x8100, true
	case "802.1ad":
		return 0x88a8, true
	}
	v, ok := getUnsigned(s, 16)
	return uint16(v), ok
}

const bridgeSlaveUsage = `Usage: ... bridge_slave [ fdb_flush ]
			[ state STATE ]
			[ priority PRIO ]
			[ cost COST ]
			[ guard {on | off} ]
			[ hairpin {on | off} ]
			[ fastleave {on | off} ]
			[ root_block {on | off} ]
			[ learning {on | off} ]
			[ flood {on | off} ]
			[ proxy_arp {on | off} ]
			[ proxy_arp_wifi {on | off} ]
			[ mcast_router MULTICAST_ROUTER ]
			[ mcast_fast_leave {on | off} ]
			[ mcast_flood {on | off} ]
			[ bcast_flood {on | off} ]
			[ mcast_to_unicast {on | off} ]
			[ group_fwd_mask MASK ]
			[ neigh_suppress {on | off} ]
			[ vlan_tunnel {on | off} ]
			[ isolated {on | off} ]
			[ locked {on | off} ]
			[ backup_port DEVICE ] [ nobackup_port ]
`

// bridgeSlaveFlags are bridge_slave_parse_opt's on/off keywords in its
// order, with the IFLA_BRPORT_* flag each sets.
var bridgeSlaveFlags = []struct {
	name string
	flag func(s *netdev.BridgePortSettings) **bool
}{
	{"hairpin", func(s *netdev.BridgePortSettings) **bool { return &s.Hairpin }},
	{"guard", func(s *netdev.BridgePortSettings) **bool { return &s.Guard }},
	{"root_block", func(s *netdev.BridgePortSettings) **bool { return &s.RootBlock }},
	{"fastleave", func(s *netdev.BridgePortSettings) **bool { return &s.FastLeave }},
	{"learning", func(s *netdev.BridgePortSettings) **bool { return &s.Learning }},
	{"flood", func(s *netdev.BridgePortSettings) **bool { return &s.Flood }},
	{"mcast_flood", func(s *netdev.BridgePortSettings) **bool { return &s.McastFlood }},
	{"bcast_flood", func(s *netdev.BridgePortSettings) **bool { return &s.BcastFlood }},
	{"mcast_to_unicast", func(s *netdev.BridgePortSettings) **bool { return &s.McastToUnicast }},
	{"proxy_arp", func(s *netdev.BridgePortSettings) **bool { return &s.ProxyARP }},
	{"proxy_arp_wifi", func(s *netdev.BridgePortSettings) **bool { return &s.ProxyARPWifi }},
}

// bridgeSlaveFlagsLate are the on/off keywords that come after
// mcast_router in bridge_slave_parse_opt.
var bridgeSlaveFlagsLate = []struct {
	name string
	flag func(s *netdev.BridgePortSettings) **bool
}{
	{"mcast_fast_leave", func(s *netdev.BridgePortSettings) **bool { return &s.FastLeave }},
	{"neigh_suppress", func(s *netdev.BridgePortSettings) **bool { return &s.NeighSuppress }},
}

// parseBridgeSlaveOpts is bridge_slave_parse_opt: the IFLA_BRPORT_*
// attributes of `type bridge_slave ARGS`. backup_port names a device that
// must exist.
func parseBridgeSlaveOpts(h *handle, argv []string) (netdev.BridgePortSettings, error) {
	var s netdev.BridgePortSettings
	a := &args{w: argv}
	onOff := func(name string, dst **bool) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		switch {
		case matches(v, "off"):
			*dst = ptr(false)
		case matches(v, "on"):
			*dst = ptr(true)
		default:
			return failf("Error: argument of \"%s\" must be one of \"off\", \"on\", not \"%s\"\n", name, v)
		}
		return nil
	}
	flag := func(w string, list []struct {
		name string
		flag func(s *netdev.BridgePortSettings) **bool
	}) (bool, error) {
		for _, f := range list {
			if matches(w, f.name) {
				return true, onOff(f.name, f.flag(&s))
			}
		}
		return false, nil
	}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case matches(w, "fdb_flush"):
			s.FDBFlush = true
		case matches(w, "state"):
			v, err := nextValue(a, func(v string) (uint64, bool) { return getUnsigned(v, 8) }, "state is invalid")
			if err != nil {
				return s, err
			}
			s.State = ptr(uint8(v))
		case matches(w, "priority"):
			v, err := nextValue(a, uint16Value, "priority is invalid")
			if err != nil {
				return s, err
			}
			s.Priority = ptr(uint16(v))
		case matches(w, "cost"):
			v, err := nextValue(a, uint32Value, "cost is invalid")
			if err != nil {
				return s, err
			}
			s.Cost = ptr(uint32(v))
		default:
			if ok, err := flag(w, bridgeSlaveFlags); ok || err != nil {
				if err != nil {
					return s, err
				}
				continue
			}
			if matches(w, "mcast_router") {
				v, err := nextValue(a, func(v string) (uint64, bool) { return getUnsigned(v, 8) }, "invalid mcast_router")
				if err != nil {
					return s, err
				}
				s.McastRouter = ptr(uint8(v))
				continue
			}
			if ok, err := flag(w, bridgeSlaveFlagsLate); ok || err != nil {
				if err != nil {
					return s, err
				}
				continue
			}
			switch {
			case matches(w, "group_fwd_mask"):
				v, err := nextValue(a, uint16Value, "invalid group_fwd_mask")
				if err != nil {
					return s, err
				}
				s.GroupFwdMask = ptr(uint16(v))
			case matches(w, "vlan_tunnel"):
				if err := onOff("vlan_tunnel", &s.VlanTunnel); err != nil {
					return s, err
				}
			case matches(w, "isolated"):
				if err := onOff("isolated", &s.Isolated); err != nil {
					return s, err
				}
			case matches(w, "locked"):
				if err := onOff("locked", &s.Locked); err != nil {
					return s, err
				}
			case matches(w, "backup_port"):
				v, err := a.next()
				if err != nil {
					return s, err
				}
				i := h.LinkIndex(v)
				if i == 0 {
					return s, invarg("Device does not exist\n", v)
				}
				s.BackupPort = &i
			case matches(w, "nobackup_port"):
				s.BackupPort = ptr(netdev.IfIndex(0))
			case matches(w, "help"):
				return s, failf("%s", bridgeSlaveUsage)
			default:
				return s, failf("bridge_slave: unknown option \"%s\"?\n%s", w, bridgeSlaveUsage)
			}
		}
	}
	return s, nil
}
