// A bridge's configuration: the IFLA_BR_* values a bridge reports and a
// request sets, their defaults and their checks, and the bridge id
// (br_changelink, br_fill_info: net/bridge/br_netlink.c; br_dev_setup:
// br_device.c; br_stp_set_bridge_priority, br_set_forward_delay, ...:
// br_stp_if.c, br_stp.c; br_multicast_init: br_multicast.c).

package netdev

import (
	"fmt"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// BridgeID is an STP bridge identifier (struct ifla_bridge_id): a priority
// and a hardware address. The zero BridgeID is 0000.0:0:0:0:0:0.
type BridgeID struct {
	Prio uint16
	Addr MAC
}

// String formats the id as iproute2's br_dump_bridge_id does:
// "8000.2:0:0:0:0:10" (the address as ether_ntoa writes it).
func (id BridgeID) String() string {
	a := id.Addr
	return fmt.Sprintf("%02x%02x.%x:%x:%x:%x:%x:%x", id.Prio>>8, id.Prio&0xff, a[0], a[1], a[2], a[3], a[4], a[5])
}

// BridgeConfig is a bridge's configuration as IFLA_BR_* reports it, in the
// kernel's netlink units: timers and intervals in clock_t (1/100 s).
type BridgeConfig struct {
	ForwardDelay            uint32 // IFLA_BR_FORWARD_DELAY, 1500
	HelloTime               uint32 // IFLA_BR_HELLO_TIME, 200
	MaxAge                  uint32 // IFLA_BR_MAX_AGE, 2000
	AgeingTime              uint32 // IFLA_BR_AGEING_TIME, 30000
	STPState                uint32 // IFLA_BR_STP_STATE: 0 off, 1 the kernel's STP (what any non-zero value starts outside the initial namespace)
	Priority                uint16 // IFLA_BR_PRIORITY, 32768
	VlanFiltering           uint8  // IFLA_BR_VLAN_FILTERING, 0
	GroupFwdMask            uint16 // IFLA_BR_GROUP_FWD_MASK, 0
	GroupAddr               MAC    // IFLA_BR_GROUP_ADDR, 01:80:c2:00:00:00
	NoLinklocalLearn        bool   // BR_BOOLOPT_NO_LL_LEARN
	McastVlanSnooping       bool   // BR_BOOLOPT_MCAST_VLAN_SNOOPING
	McastSnooping           uint8  // IFLA_BR_MCAST_SNOOPING, 1
	McastRouter             uint8  // IFLA_BR_MCAST_ROUTER, 1
	McastQueryUseIfaddr     uint8  // IFLA_BR_MCAST_QUERY_USE_IFADDR
	McastQuerier            uint8  // IFLA_BR_MCAST_QUERIER
	McastHashElasticity     uint32 // IFLA_BR_MCAST_HASH_ELASTICITY, 16
	McastHashMax            uint32 // IFLA_BR_MCAST_HASH_MAX, 4096
	McastLastMemberCnt      uint32 // IFLA_BR_MCAST_LAST_MEMBER_CNT, 2
	McastStartupQueryCnt    uint32 // IFLA_BR_MCAST_STARTUP_QUERY_CNT, 2
	McastLastMemberIntvl    uint64 // IFLA_BR_MCAST_LAST_MEMBER_INTVL, 100
	McastMembershipIntvl    uint64 // IFLA_BR_MCAST_MEMBERSHIP_INTVL, 26000
	McastQuerierIntvl       uint64 // IFLA_BR_MCAST_QUERIER_INTVL, 25500
	McastQueryIntvl         uint64 // IFLA_BR_MCAST_QUERY_INTVL, 12500
	McastQueryResponseIntvl uint64 // IFLA_BR_MCAST_QUERY_RESPONSE_INTVL, 1000
	McastStartupQueryIntvl  uint64 // IFLA_BR_MCAST_STARTUP_QUERY_INTVL, 3124
	McastStatsEnabled       uint8  // IFLA_BR_MCAST_STATS_ENABLED
	McastIGMPVersion        uint8  // IFLA_BR_MCAST_IGMP_VERSION, 2
	McastMLDVersion         uint8  // IFLA_BR_MCAST_MLD_VERSION, 1
	NFCallIptables          uint8  // IFLA_BR_NF_CALL_IPTABLES
	NFCallIp6tables         uint8  // IFLA_BR_NF_CALL_IP6TABLES
	NFCallArptables         uint8  // IFLA_BR_NF_CALL_ARPTABLES
}

// defaultBridgeConfig is a new bridge's configuration.
//
// Kernel: br_dev_setup (net/bridge/br_device.c), br_multicast_init
// (br_multicast.c).
var defaultBridgeConfig = BridgeConfig{
	ForwardDelay: 1500, HelloTime: 200, MaxAge: 2000, AgeingTime: 30000, Priority: 0x8000,
	GroupAddr:     MAC{0x01, 0x80, 0xc2, 0x00, 0x00, 0x00},
	McastSnooping: 1, McastRouter: 1, McastHashElasticity: 16, McastHashMax: 4096,
	McastLastMemberCnt: 2, McastStartupQueryCnt: 2, McastLastMemberIntvl: 100,
	McastMembershipIntvl: 26000, McastQuerierIntvl: 25500, McastQueryIntvl: 12500,
	McastQueryResponseIntvl: 1000, McastStartupQueryIntvl: 3124,
	McastIGMPVersion: 2, McastMLDVersion: 1,
}

// BridgeSettings are the IFLA_BR_* attributes of a request that creates or
// changes a bridge (`ip link add|set ... type bridge ...`). A nil field is
// an attribute the request does not carry; the zero BridgeSettings changes
// nothing.
type BridgeSettings struct {
	ForwardDelay, HelloTime, MaxAge, AgeingTime, STPState *uint32
	Priority                                              *uint16
	VlanFiltering                                         *uint8
	VlanProtocol, GroupFwdMask, VlanDefaultPVID           *uint16
	GroupAddr                                             *MAC
	FDBFlush                                              bool
	McastRouter, McastSnooping, McastQueryUseIfaddr       *uint8
	McastQuerier                                          *uint8
	McastHashElasticity, McastHashMax                     *uint32
	McastLastMemberCnt, McastStartupQueryCnt              *uint32
	McastLastMemberIntvl, McastMembershipIntvl            *uint64
	McastQuerierIntvl, McastQueryIntvl                    *uint64
	McastQueryResponseIntvl, McastStartupQueryIntvl       *uint64
	McastStatsEnabled, McastIGMPVersion, McastMLDVersion  *uint8
	NFCallIptables, NFCallIp6tables, NFCallArptables      *uint8
	VlanStatsEnabled, VlanStatsPerPort                    *uint8
	NoLinklocalLearn, McastVlanSnooping                   *bool // IFLA_BR_MULTI_BOOLOPT bits
}

// BridgeInfo is what a bridge reports in IFLA_INFO_DATA: its configuration
// and its STP state. Timers are 0: netsim runs none.
type BridgeInfo struct {
	BridgeConfig
	BridgeID               BridgeID // IFLA_BR_BRIDGE_ID
	RootID                 BridgeID // IFLA_BR_ROOT_ID (designated root)
	RootPort               uint16   // IFLA_BR_ROOT_PORT
	RootPathCost           uint32   // IFLA_BR_ROOT_PATH_COST
	TopologyChange         uint8    // IFLA_BR_TOPOLOGY_CHANGE
	TopologyChangeDetected uint8    // IFLA_BR_TOPOLOGY_CHANGE_DETECTED
	HelloTimer             uint64   // IFLA_BR_HELLO_TIMER, clock_t
	TCNTimer               uint64   // IFLA_BR_TCN_TIMER
	TopologyChangeTimer    uint64   // IFLA_BR_TOPOLOGY_CHANGE_TIMER
	GCTimer                uint64   // IFLA_BR_GC_TIMER
}

// BridgeInfo returns a bridge's IFLA_INFO_DATA, or nil for other kinds.
//
// Kernel: br_fill_info (net/bridge/br_netlink.c).
func (d *Device) BridgeInfo() *BridgeInfo {
	b := d.priv.bridge
	if b == nil {
		return nil
	}
	// No BPDUs arrive in the model: the bridge is its own root.
	return &BridgeInfo{BridgeConfig: b.cfg, BridgeID: b.id, RootID: b.id}
}

// ChangeBridge applies a request's IFLA_BR_* attributes to bridge d. A
// refused request changes nothing.
//
// Kernel: br_changelink (net/bridge/br_netlink.c).
func (d *Device) ChangeBridge(t *sim.Task, s BridgeSettings) error {
	b := d.priv.bridge
	if b == nil {
		return errno.New(syscall.EOPNOTSUPP, "Device is not a bridge")
	}
	trial := *b
	if err := trial.apply(s); err != nil {
		return err
	}
	wasSnooping := b.cfg.McastSnooping != 0
	b.cfg, b.id = trial.cfg, trial.id
	if trial.selected && !b.selected {
		d.portStateSelection()
	}
	if d.IsUp() && wasSnooping != (b.cfg.McastSnooping != 0) {
		// br_multicast_toggle
		if b.cfg.McastSnooping != 0 {
			d.joinSnoopers(t)
		} else {
			d.leaveSnoopers(t)
		}
	}
	if d.refreshCarrier(t, true) {
		d.carrierChangedForOthers(t)
	}
	return nil
}

// setIf sets *dst to *v when the request gives v.
func setIf[T any](dst, v *T) {
	if v != nil {
		*dst = *v
	}
}

// setFlag sets the boolean option *dst to v (any non-zero value is 1)
// when the request gives v.
func setFlag(dst, v *uint8) {
	if v != nil {
		*dst = min(*v, 1)
	}
}

// apply checks settings s and applies them to b, in br_changelink's order.
func (b *bridgeState) apply(s BridgeSettings) error {
	c := &b.cfg
	if v := s.ForwardDelay; v != nil {
		// br_set_forward_delay: the range holds only while STP runs.
		if c.STPState != 0 && (*v < brMinForwardDelay || *v > brMaxForwardDelay) {
			return errno.New(syscall.ERANGE, "Forward delay out of range")
		}
		c.ForwardDelay = *v
	}
	if v := s.HelloTime; v != nil {
		if *v < brMinHelloTime || *v > brMaxHelloTime {
			return errno.New(syscall.ERANGE, "Hello time out of range")
		}
		c.HelloTime = *v
	}
	if v := s.MaxAge; v != nil {
		if *v < brMinMaxAge || *v > brMaxMaxAge {
			return errno.New(syscall.ERANGE, "Max age out of range")
		}
		c.MaxAge = *v
	}
	setIf(&c.AgeingTime, s.AgeingTime)
	if v := s.STPState; v != nil {
		// br_stp_set_enabled: in a namespace other than the initial one
		// STP runs in the kernel (BR_KERNEL_STP = 1).
		if *v != 0 && c.STPState == 0 {
			// br_stp_start: the forward delay is clamped into STP's range,
			// and kernel STP runs the state selection.
			c.ForwardDelay = min(max(c.ForwardDelay, brMinForwardDelay), brMaxForwardDelay)
			b.selected = true
		}
		c.STPState = 0
		if *v != 0 {
			c.STPState = 1
		}
	}
	if v := s.Priority; v != nil {
		// br_stp_set_bridge_priority runs the state selection, whatever
		// the value.
		c.Priority = *v
		b.id.Prio = *v
		b.selected = true
	}
	if s.VlanFiltering != nil {
		// Linux 6.18 as built for the reference machine has no
		// CONFIG_BRIDGE_VLAN_FILTERING: br_vlan_filter_toggle's stub
		// refuses any value.
		return errno.New(syscall.EOPNOTSUPP, "Bridge VLAN filtering is not supported")
	}
	if v := s.GroupFwdMask; v != nil {
		if *v&brGroupFwdRestr != 0 {
			return errno.New(syscall.EINVAL, "Group forward mask has restricted bits")
		}
		c.GroupFwdMask = *v
	}
	if v := s.GroupAddr; v != nil {
		a := *v
		// is_link_local_ether_addr, and not 01:80:c2:00:00:01..03.
		if a[0] != 0x01 || a[1] != 0x80 || a[2] != 0xc2 || a[3] != 0 || a[4] != 0 || a[5]&0xf0 != 0 ||
			a[5] == 1 || a[5] == 2 || a[5] == 3 {
			return errno.New(syscall.EINVAL, "Invalid group address")
		}
		c.GroupAddr = a
	}
	if v := s.McastRouter; v != nil {
		if *v > 2 { // MDB_RTR_TYPE_DISABLED..MDB_RTR_TYPE_PERM
			return errno.New(syscall.EINVAL, "Invalid multicast router type")
		}
		c.McastRouter = *v
	}
	setFlag(&c.McastSnooping, s.McastSnooping)
	setFlag(&c.McastQueryUseIfaddr, s.McastQueryUseIfaddr)
	setFlag(&c.McastQuerier, s.McastQuerier)
	setIf(&c.McastHashElasticity, s.McastHashElasticity)
	setIf(&c.McastHashMax, s.McastHashMax)
	setIf(&c.McastLastMemberCnt, s.McastLastMemberCnt)
	setIf(&c.McastStartupQueryCnt, s.McastStartupQueryCnt)
	setIf(&c.McastLastMemberIntvl, s.McastLastMemberIntvl)
	setIf(&c.McastMembershipIntvl, s.McastMembershipIntvl)
	setIf(&c.McastQuerierIntvl, s.McastQuerierIntvl)
	setIf(&c.McastQueryIntvl, s.McastQueryIntvl)
	setIf(&c.McastQueryResponseIntvl, s.McastQueryResponseIntvl)
	setIf(&c.McastStartupQueryIntvl, s.McastStartupQueryIntvl)
	setFlag(&c.McastStatsEnabled, s.McastStatsEnabled)
	if v := s.McastIGMPVersion; v != nil {
		if *v != 2 && *v != 3 {
			return errno.New(syscall.EINVAL, "Invalid IGMP version")
		}
		c.McastIGMPVersion = *v
	}
	if v := s.McastMLDVersion; v != nil {
		if *v != 1 && *v != 2 {
			return errno.New(syscall.EINVAL, "Invalid MLD version")
		}
		c.McastMLDVersion = *v
	}
	setFlag(&c.NFCallIptables, s.NFCallIptables)
	setFlag(&c.NFCallIp6tables, s.NFCallIp6tables)
	setFlag(&c.NFCallArptables, s.NFCallArptables)
	// IFLA_BR_MULTI_BOOLOPT (br_boolopt_multi_toggle).
	setIf(&c.NoLinklocalLearn, s.NoLinklocalLearn)
	if v := s.McastVlanSnooping; v != nil && *v {
		if c.VlanFiltering == 0 {
			return errno.New(syscall.EINVAL, "bridge: Cannot enable multicast vlan snooping with vlan filtering disabled")
		}
	}
	return nil
}
