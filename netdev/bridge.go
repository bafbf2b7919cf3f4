// The Linux bridge's control plane: the bridge device and its ports
// (net/bridge/br_device.c, br_if.c, br_netlink.c, br_stp_if.c, br_stp.c,
// br_multicast.c and br.c's br_device_event). No frames are forwarded and
// no FDB is learned; what is modelled is what `ip link`, `ip -d link` and
// `ip maddr` show: the bridge's configuration as IFLA_BR_* reports it, the
// ports' IFLA_BRPORT_* values, port STP states as the configuration makes
// them, carrier, MTU and address following the ports, promiscuity and
// allmulti of the ports, and the multicast snooping groups of the bridge.
//
// STP timers are not modelled: with STP enabled a port that comes up stays
// in the listening state (the kernel moves it to learning and forwarding
// after two forward delays), so the bridge has no carrier.

package netdev

import (
	"fmt"
	"net/netip"
	"slices"
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

// Bridge is an Ethernet bridge (net/bridge). Settings are its IFLA_BR_*
// attributes; unset ones take the kernel's defaults.
type Bridge struct {
	Name string
	Attrs
	Settings BridgeSettings
}

func (s Bridge) LinkName() string { return s.Name }
func (s Bridge) LinkAttrs() Attrs { return s.Attrs }

// STP port states (BR_STATE_*).
const (
	BrStateDisabled   uint8 = 0 // BR_STATE_DISABLED
	BrStateListening  uint8 = 1 // BR_STATE_LISTENING
	BrStateLearning   uint8 = 2 // BR_STATE_LEARNING
	BrStateForwarding uint8 = 3 // BR_STATE_FORWARDING
	BrStateBlocking   uint8 = 4 // BR_STATE_BLOCKING
)

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

// BridgePortInfo is what a bridge port reports in IFLA_INFO_SLAVE_DATA
// (IFLA_BRPORT_*).
type BridgePortInfo struct {
	State             uint8    // IFLA_BRPORT_STATE (BrState*)
	Priority          uint16   // IFLA_BRPORT_PRIORITY, 32
	Cost              uint32   // IFLA_BRPORT_COST
	Hairpin           bool     // IFLA_BRPORT_MODE
	Guard             bool     // IFLA_BRPORT_GUARD
	RootBlock         bool     // IFLA_BRPORT_PROTECT
	FastLeave         bool     // IFLA_BRPORT_FAST_LEAVE
	Learning          bool     // IFLA_BRPORT_LEARNING, on
	Flood             bool     // IFLA_BRPORT_UNICAST_FLOOD, on
	ID                uint16   // IFLA_BRPORT_ID: priority<<10 | port number
	No                uint16   // IFLA_BRPORT_NO
	DesignatedPort    uint16   // IFLA_BRPORT_DESIGNATED_PORT
	DesignatedCost    uint16   // IFLA_BRPORT_DESIGNATED_COST
	DesignatedBridge  BridgeID // IFLA_BRPORT_BRIDGE_ID
	DesignatedRoot    BridgeID // IFLA_BRPORT_ROOT_ID
	HoldTimer         uint64   // IFLA_BRPORT_HOLD_TIMER
	MessageAgeTimer   uint64   // IFLA_BRPORT_MESSAGE_AGE_TIMER
	ForwardDelayTimer uint64   // IFLA_BRPORT_FORWARD_DELAY_TIMER
	TopologyChangeAck uint8    // IFLA_BRPORT_TOPOLOGY_CHANGE_ACK
	ConfigPending     uint8    // IFLA_BRPORT_CONFIG_PENDING
	ProxyARP          bool     // IFLA_BRPORT_PROXYARP
	ProxyARPWifi      bool     // IFLA_BRPORT_PROXYARP_WIFI
	MulticastRouter   uint8    // IFLA_BRPORT_MULTICAST_ROUTER, 1
	McastFlood        bool     // IFLA_BRPORT_MCAST_FLOOD, on
	BcastFlood        bool     // IFLA_BRPORT_BCAST_FLOOD, on
	McastToUnicast    bool     // IFLA_BRPORT_MCAST_TO_UCAST
	NeighSuppress     bool     // IFLA_BRPORT_NEIGH_SUPPRESS
	GroupFwdMask      uint16   // IFLA_BRPORT_GROUP_FWD_MASK
	VlanTunnel        bool     // IFLA_BRPORT_VLAN_TUNNEL
	Isolated          bool     // IFLA_BRPORT_ISOLATED
	Locked            bool     // IFLA_BRPORT_LOCKED
	BackupPort        IfIndex  // IFLA_BRPORT_BACKUP_PORT: the backup port's ifindex, 0 for none
}

// BridgePortSettings are the IFLA_BRPORT_* attributes of a request that
// changes a bridge port (`ip link set DEV type bridge_slave ...`). A nil
// field is an attribute the request does not carry.
type BridgePortSettings struct {
	State                                       *uint8  // IFLA_BRPORT_STATE
	Priority                                    *uint16 // IFLA_BRPORT_PRIORITY
	Cost                                        *uint32 // IFLA_BRPORT_COST
	Hairpin, Guard, RootBlock, FastLeave        *bool   // IFLA_BRPORT_MODE, _GUARD, _PROTECT, _FAST_LEAVE
	Learning, Flood, ProxyARP, ProxyARPWifi     *bool   // IFLA_BRPORT_LEARNING, _UNICAST_FLOOD, _PROXYARP, _PROXYARP_WIFI
	McastFlood, BcastFlood, McastToUnicast      *bool   // IFLA_BRPORT_MCAST_FLOOD, _BCAST_FLOOD, _MCAST_TO_UCAST
	NeighSuppress, VlanTunnel, Isolated, Locked *bool   // IFLA_BRPORT_NEIGH_SUPPRESS, _VLAN_TUNNEL, _ISOLATED, _LOCKED
	McastRouter                                 *uint8  // IFLA_BRPORT_MULTICAST_ROUTER
	GroupFwdMask                                *uint16 // IFLA_BRPORT_GROUP_FWD_MASK
	BackupPort                                  *IfIndex
	FDBFlush                                    bool // IFLA_BRPORT_FLUSH
}

// Port limits (net/bridge/br_private.h, br_private_stp.h).
const (
	brMaxPortPriority  = 63    // BR_MAX_PORT_PRIORITY
	brMaxPathCost      = 65535 // BR_MAX_PATH_COST
	brGroupFwdMACPause = 0x2   // BR_GROUPFWD_MACPAUSE
)

// ChangeBridgePort applies a request's IFLA_BRPORT_* attributes to bridge
// port d. A device that is not a bridge port refuses with EOPNOTSUPP; a
// refused request changes nothing.
//
// Kernel: br_port_slave_changelink → br_setport (net/bridge/br_netlink.c),
// br_stp_set_path_cost, br_stp_set_port_priority (br_stp_if.c),
// br_set_port_state (br_netlink.c), nbp_backup_change (br_if.c).
func (d *Device) ChangeBridgePort(t *sim.Task, s BridgePortSettings) error {
	bp := d.priv.brPort
	if bp == nil {
		return errno.Errorf(syscall.EOPNOTSUPP, "Device \"%s\" is not a bridge port", d.name)
	}
	pi := bp.info
	for _, f := range []struct {
		v   *bool
		dst *bool
	}{
		{s.Hairpin, &pi.Hairpin}, {s.Guard, &pi.Guard}, {s.RootBlock, &pi.RootBlock},
		{s.FastLeave, &pi.FastLeave}, {s.Learning, &pi.Learning}, {s.Flood, &pi.Flood},
		{s.ProxyARP, &pi.ProxyARP}, {s.ProxyARPWifi, &pi.ProxyARPWifi}, {s.McastFlood, &pi.McastFlood},
		{s.BcastFlood, &pi.BcastFlood}, {s.McastToUnicast, &pi.McastToUnicast},
		{s.NeighSuppress, &pi.NeighSuppress}, {s.VlanTunnel, &pi.VlanTunnel},
		{s.Isolated, &pi.Isolated}, {s.Locked, &pi.Locked},
	} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	if v := s.Cost; v != nil {
		if *v < 1 || *v > brMaxPathCost {
			return errno.New(syscall.ERANGE, "Port path cost out of range")
		}
		pi.Cost = *v
	}
	if v := s.Priority; v != nil {
		if *v > brMaxPortPriority {
			return errno.New(syscall.ERANGE, "Port priority out of range")
		}
		pi.Priority = *v
	}
	state := bp.state
	if v := s.State; v != nil {
		switch oper := d.operState == OperUp || d.operState == OperUnknown; {
		case *v > BrStateBlocking:
			return errno.New(syscall.EINVAL, "Invalid port state")
		case bp.br.priv.bridge.cfg.STPState != 0:
			return errno.New(syscall.EBUSY, "Port state is kept by STP")
		case !d.IsUp() || (!oper && *v != BrStateDisabled):
			return errno.New(syscall.ENETDOWN, "Port is down")
		}
		state = *v
		// br_port_state_selection: without STP a blocking designated
		// port forwards at once.
		if state == BrStateBlocking {
			state = BrStateForwarding
		}
	}
	if v := s.McastRouter; v != nil {
		if *v > 3 { // MDB_RTR_TYPE_DISABLED..MDB_RTR_TYPE_TEMP
			return errno.New(syscall.EINVAL, "Invalid multicast router type")
		}
		pi.MulticastRouter = *v
	}
	if v := s.GroupFwdMask; v != nil {
		if *v&brGroupFwdMACPause != 0 {
			return errno.New(syscall.EINVAL, "Group forward mask has restricted bits")
		}
		pi.GroupFwdMask = *v
	}
	if v := s.BackupPort; v != nil {
		pi.BackupPort = 0
		if *v != 0 {
			b := d.tbl.byIndex[*v]
			if b == nil || b.priv.brPort == nil {
				return errno.New(syscall.ENOENT, "Backup device is not a bridge port")
			}
			if b.priv.brPort.br != bp.br || b == d {
				return errno.New(syscall.EINVAL, "Invalid backup port")
			}
			pi.BackupPort = *v
		}
	}
	bp.info, bp.state = pi, state
	br := bp.br
	if br.refreshCarrier(t, true) {
		br.carrierChangedForOthers(t)
	}
	return nil
}

// bridgeState is a bridge's private state (struct net_bridge).
type bridgeState struct {
	cfg          BridgeConfig
	id           BridgeID  // bridge_id
	mtuSetByUser bool      // BROPT_MTU_SET_BY_USER
	snooping     bool      // the snooper groups are joined (br_multicast_join_snoopers)
	ports        []*Device // port_list, newest first
	portLimits   bool      // a port was added: the bridge's TSO limit is its ports' (br_set_gso_limits)
	// selected is whether br_port_state_selection has run: until then the
	// bridge keeps the carrier alloc_netdev gave it, whatever its ports.
	selected bool
}

// portStateSelection records that br_port_state_selection ran: from now
// on the bridge has carrier while a port forwards. The kernel's carrier
// bit changes (and is counted) at once, so that a port's arrival counts
// the carrier going off while the new port is still disabled and on again
// when it forwards.
//
// Kernel: br_port_state_selection (net/bridge/br_stp.c), run by
// br_stp_enable_port, br_stp_disable_port, br_stp_change_bridge_id,
// br_stp_set_bridge_priority, br_stp_start, br_stp_set_path_cost and
// br_set_port_state.
func (br *Device) portStateSelection() {
	br.priv.bridge.selected = true
	if br.state == regRegistered {
		old := br.kcarrier
		br.countCarrier(br.carrierNow())
		if s := br.tbl.s; br.kcarrier != old && s.lwHold > 0 {
			s.linkwatchFire(br) // netif_carrier_on/off
		}
	}
}

// bridgePort is a port's state (struct net_bridge_port).
type bridgePort struct {
	br    *Device
	no    uint16
	state uint8
	info  BridgePortInfo // the per-port settings and their defaults
}

// Bridge limits and restricted group forwarding bits (net/bridge/br_private.h).
const (
	brMinHelloTime    = 100 // BR_MIN_HELLO_TIME, in clock_t
	brMaxHelloTime    = 1000
	brMinMaxAge       = 600
	brMaxMaxAge       = 4000
	brMinForwardDelay = 200
	brMaxForwardDelay = 3000
	brGroupFwdRestr   = 0x0007 // BR_GROUPFWD_RESTRICTED: STP, MAC pause, LACP
	brPortBits        = 10     // BR_PORT_BITS
	brMaxPorts        = 1 << brPortBits
)

var (
	snoopIPv4 = netip.AddrFrom4([4]byte{224, 0, 0, 106}) // IGMP snoopers (all-snoopers)
	snoopIPv6 = netip.MustParseAddr("ff02::6a")          // MLD snoopers
)

var bridgeOps = &linkOps{
	kind:      "bridge",
	operUp:    OperUp,
	dellink:   bridgeDellink,
	addSlave:  bridgeAddIf,
	delSlave:  bridgeDelIf,
	setRxMode: func(*sim.Task, *Device) {}, // br_dev_set_multicast_list does nothing
	// br_dev_open: enable the ports that are up, join the snoopers.
	open: func(t *sim.Task, br *Device) error {
		b := br.priv.bridge
		for _, p := range b.ports {
			p.portSync(t, true)
		}
		if b.cfg.McastSnooping != 0 {
			br.joinSnoopers(t)
		}
		return nil
	},
	// br_dev_stop → br_stp_disable_bridge: disable every port (each
	// that was enabled announces it), leave the snoopers.
	stop: func(t *sim.Task, br *Device) {
		for _, p := range br.priv.bridge.ports {
			if p.priv.brPort.state != BrStateDisabled {
				p.priv.brPort.state = BrStateDisabled
				br.tbl.s.brPortMsg(t, p, false)
			}
		}
		br.leaveSnoopers(t)
	},
	// br_dev_uninit / br_dev_delete: release every port.
	uninit: func(t *sim.Task, br *Device) {
		for len(br.priv.bridge.ports) > 0 {
			br.delPort(t, br.priv.bridge.ports[0], false)
		}
	},
	// br_port_state_selection: carrier while a port forwards, once it
	// has run (see portStateSelection).
	carrierOf: func(br *Device) bool {
		if !br.priv.bridge.selected {
			return true
		}
		for _, p := range br.priv.bridge.ports {
			if p.priv.brPort.state == BrStateForwarding {
				return true
			}
		}
		return false
	},
	// br_change_mtu: a new MTU is the user's until ports adjust it again.
	changeMTU: func(br *Device, _ int) error {
		br.priv.bridge.mtuSetByUser = true
		return nil
	},
}

// bridgeDellink releases the ports and deletes the bridge.
//
// Kernel: br_dev_delete (net/bridge/br_if.c).
func bridgeDellink(t *sim.Task, br *Device, q *[]*Device) {
	for len(br.priv.bridge.ports) > 0 {
		br.delPort(t, br.priv.bridge.ports[0], false)
	}
	*q = append(*q, br)
}

func (s Bridge) create(t *sim.Task, tb *Table) ([]*Device, error) {
	name, err := tb.checkLinkName(s.Name, "bridge", nil)
	if err != nil {
		return nil, err
	}
	b := &bridgeState{cfg: defaultBridgeConfig}
	b.id.Prio = b.cfg.Priority
	if err := b.apply(s.Settings); err != nil {
		// br_dev_newlink registers the bridge before br_changelink
		// refuses its attributes and deletes it: the ifindex it took is
		// spent.
		if s.Index == 0 {
			if i, last := tb.nextFreeIndex(tb.lastIndex, nil); i != 0 {
				tb.lastIndex = last
			}
		}
		return nil, err
	}
	d, err := tb.newDevice(name, bridgeOps, s.Attrs, FlagBroadcast|FlagMulticast, ethDataLen, ethMinMTU, ethMaxMTU)
	if err != nil {
		return nil, err
	}
	if !d.priv.addrRandom {
		// br_dev_newlink: a bridge created with an address has it as its
		// id (br_stp_change_bridge_id, which runs the state selection:
		// registration then counts the carrier going off).
		b.id.Addr = d.addr
		b.selected = true
	}
	d.uniFlt = true
	d.priv.bridge = b
	return []*Device{d}, nil
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

// BridgePortLimits reports whether a bridge has had a port, and so takes
// its segmentation limits from its ports (TSO_MAX_SIZE, the smallest of
// theirs, since every port netsim has allows TSO_MAX_SIZE) rather than a
// new device's GSO_LEGACY_MAX_SIZE. The limit stays when the last port
// leaves. False for other kinds.
//
// Kernel: br_add_if → br_set_gso_limits (net/bridge/br_if.c).
func (d *Device) BridgePortLimits() bool {
	return d.priv.bridge != nil && d.priv.bridge.portLimits
}

// BridgePortInfo returns a bridge port's IFLA_INFO_SLAVE_DATA, or nil for a
// device that is not a bridge port.
//
// Kernel: br_port_fill_attrs (net/bridge/br_netlink.c).
func (d *Device) BridgePortInfo() *BridgePortInfo {
	p := d.priv.brPort
	if p == nil {
		return nil
	}
	pi := p.info
	pi.State = p.state
	pi.No = p.no
	pi.ID = pi.Priority<<brPortBits | p.no
	pi.DesignatedPort = pi.ID
	pi.DesignatedBridge = p.br.priv.bridge.id
	pi.DesignatedRoot = p.br.priv.bridge.id
	return &pi
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
	if v := s.AgeingTime; v != nil {
		c.AgeingTime = *v
	}
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
	if v := s.McastSnooping; v != nil {
		c.McastSnooping = min(*v, 1)
	}
	if v := s.McastQueryUseIfaddr; v != nil {
		c.McastQueryUseIfaddr = min(*v, 1)
	}
	if v := s.McastQuerier; v != nil {
		c.McastQuerier = min(*v, 1)
	}
	if v := s.McastHashElasticity; v != nil {
		c.McastHashElasticity = *v
	}
	if v := s.McastHashMax; v != nil {
		c.McastHashMax = *v
	}
	if v := s.McastLastMemberCnt; v != nil {
		c.McastLastMemberCnt = *v
	}
	if v := s.McastStartupQueryCnt; v != nil {
		c.McastStartupQueryCnt = *v
	}
	for _, iv := range []struct {
		v   *uint64
		dst *uint64
	}{
		{s.McastLastMemberIntvl, &c.McastLastMemberIntvl}, {s.McastMembershipIntvl, &c.McastMembershipIntvl},
		{s.McastQuerierIntvl, &c.McastQuerierIntvl}, {s.McastQueryIntvl, &c.McastQueryIntvl},
		{s.McastQueryResponseIntvl, &c.McastQueryResponseIntvl}, {s.McastStartupQueryIntvl, &c.McastStartupQueryIntvl},
	} {
		if iv.v != nil {
			*iv.dst = *iv.v
		}
	}
	if v := s.McastStatsEnabled; v != nil {
		c.McastStatsEnabled = min(*v, 1)
	}
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
	if v := s.NFCallIptables; v != nil {
		c.NFCallIptables = min(*v, 1)
	}
	if v := s.NFCallIp6tables; v != nil {
		c.NFCallIp6tables = min(*v, 1)
	}
	if v := s.NFCallArptables; v != nil {
		c.NFCallArptables = min(*v, 1)
	}
	// IFLA_BR_MULTI_BOOLOPT (br_boolopt_multi_toggle).
	if v := s.NoLinklocalLearn; v != nil {
		c.NoLinklocalLearn = *v
	}
	if v := s.McastVlanSnooping; v != nil && *v {
		if c.VlanFiltering == 0 {
			return errno.New(syscall.EINVAL, "bridge: Cannot enable multicast vlan snooping with vlan filtering disabled")
		}
	}
	return nil
}

// joinSnoopers joins the IGMP and MLD snoopers' groups on the bridge.
//
// Kernel: br_multicast_join_snoopers (net/bridge/br_multicast.c).
func (br *Device) joinSnoopers(t *sim.Task) {
	b := br.priv.bridge
	if b.snooping {
		return
	}
	b.snooping = true
	br.ipv4McInc(t, snoopIPv4)
	if br.inet6 != nil {
		br.ipv6McInc(t, snoopIPv6)
	}
}

// leaveSnoopers undoes joinSnoopers.
//
// Kernel: br_multicast_leave_snoopers (net/bridge/br_multicast.c).
func (br *Device) leaveSnoopers(t *sim.Task) {
	b := br.priv.bridge
	if !b.snooping {
		return
	}
	b.snooping = false
	br.ipv4McDec(t, snoopIPv4)
	if br.inet6 != nil {
		br.ipv6McDec(t, snoopIPv6)
	}
}

// portSync enables or disables port p as the bridge's and the port's
// states require; brUp is whether the bridge counts as up.
//
// Kernel: br_stp_enable_port / br_stp_disable_port and
// br_port_state_selection (net/bridge/br_stp_if.c, br_stp.c): a port that
// is running with its operstate up (or unknown) is enabled; without STP it
// forwards at once, with STP it starts listening. Enabling or disabling
// the port announces it (AF_BRIDGE RTM_NEWLINK); notified reports that it
// did.
func (p *Device) portSync(t *sim.Task, brUp bool) (notified bool) {
	bp := p.priv.brPort
	oper := p.operState == OperUp || p.operState == OperUnknown
	if !brUp || !p.IsUp() || !oper {
		if bp.state != BrStateDisabled {
			// br_stp_disable_port: the message, then the selection.
			bp.state = BrStateDisabled
			p.tbl.s.brPortMsg(t, p, false)
			bp.br.portStateSelection()
			return true
		}
		return false
	}
	if bp.state != BrStateDisabled {
		return false
	}
	// br_stp_enable_port: the selection, then the message.
	if bp.br.priv.bridge.cfg.STPState == 0 {
		bp.state = BrStateForwarding
	} else {
		bp.state = BrStateListening
	}
	bp.br.portStateSelection()
	p.tbl.s.brPortMsg(t, p, false)
	return true
}

// bridgeAddIf makes dev a port of bridge br.
//
// Kernel: br_add_if (net/bridge/br_if.c).
func bridgeAddIf(t *sim.Task, br, dev *Device) error {
	b := br.priv.bridge
	switch {
	case dev.isLoopback() || dev.kindIs("vrf"):
		// Not an Ethernet device (the kernel sets no extack).
		return errno.New(syscall.EINVAL, "Device type cannot be bridged")
	case dev.priv.bridge != nil:
		return errno.New(syscall.ELOOP, "Can not enslave a bridge to a bridge")
	case dev.master != nil:
		return errno.New(syscall.EBUSY, "Device is already linked to an upper device")
	case dev.hasMacvlans():
		// netdev_rx_handler_register: the macvlan port holds the rx_handler.
		return errno.New(syscall.EBUSY, "Device is in use by an rx handler")
	}
	// find_portno: the lowest free number from 1.
	used := make(map[uint16]bool, len(b.ports))
	for _, p := range b.ports {
		used[p.priv.brPort.no] = true
	}
	no := uint16(1)
	for used[no] {
		no++
	}
	if no >= brMaxPorts {
		return errno.New(errno.EXFULL, "No free bridge port number")
	}
	// The port exists, allmulti, before the upper link, whose
	// NETDEV_CHANGEUPPER announces it as a port.
	dev.SetAllmulti(t, 1)
	dev.priv.brPort = &bridgePort{br: br, no: no, info: BridgePortInfo{
		Priority: 0x8000 >> brPortBits, Cost: portCost(dev), Learning: true, Flood: true,
		MulticastRouter: 1, McastFlood: true, BcastFlood: true,
	}}
	if err := dev.masterUpperLink(t, br); err != nil {
		dev.priv.brPort = nil
		dev.SetAllmulti(t, -1)
		return err
	}
	b.ports = slices.Insert(b.ports, 0, dev)
	// nbp_update_port_count → br_manage_promisc: without VLAN filtering
	// every port is promiscuous.
	dev.SetPromiscuity(t, 1)
	// The bridge's features change (an RTM_NEWLINK with
	// IFLA_EVENT_FEATURES) before it takes its ports' segmentation
	// limits.
	br.tbl.s.linkEventMsg(t, br, iflaEventFeatures)
	b.portLimits = true
	changed := br.recalcBridgeID()
	if br.IsUp() {
		dev.portSync(t, true)
	}
	br.tbl.s.brPortMsg(t, dev, false)
	if changed {
		_ = br.tbl.s.notify(t, EventChangeAddr, br)
	}
	br.mtuAutoAdjust(t)
	if br.refreshCarrier(t, true) {
		br.carrierChangedForOthers(t)
	}
	return nil
}

// portCost is the initial path cost of a port: 2 for a 10 Gb/s device (a
// veth reports 10000 Mb/s), 100 when the speed is unknown. A macvlan or a
// vlan reports its lower device's speed.
//
// Kernel: port_cost / br_get_port_cost (net/bridge/br_if.c);
// macvlan_ethtool_get_link_ksettings (drivers/net/macvlan.c),
// vlan_ethtool_get_link_ksettings (net/8021q/vlan_dev.c).
func portCost(d *Device) uint32 {
	for (d.kindIs("macvlan") || d.kindIs("vlan")) && d.link != nil {
		d = d.link
	}
	if d.kindIs("veth") {
		return 2
	}
	return 100
}

// bridgeDelIf releases port dev from bridge br (`ip link set DEV nomaster`).
//
// Kernel: br_del_if (net/bridge/br_if.c).
func bridgeDelIf(t *sim.Task, br, dev *Device) error {
	if dev.priv.brPort == nil || dev.priv.brPort.br != br {
		return errno.Errorf(syscall.EINVAL, "Device \"%s\" is not a slave of \"%s\"", dev.name, br.name)
	}
	br.delPort(t, dev, true)
	// netdev_compute_master_upper_features → netdev_change_features.
	br.tbl.s.linkEventMsg(t, br, iflaEventFeatures)
	return nil
}

// delPort removes port p; adjust is br_del_if's recalculation of the
// bridge's address and MTU (the bridge's deletion skips it).
//
// Kernel: del_nbp (net/bridge/br_if.c).
func (br *Device) delPort(t *sim.Task, p *Device, adjust bool) {
	b := br.priv.bridge
	p.SetAllmulti(t, -1) // nbp_delete_promisc
	p.SetPromiscuity(t, -1)
	// br_stp_disable_port: the port's AF_BRIDGE RTM_NEWLINK; then its
	// RTM_DELLINK.
	p.priv.brPort.state = BrStateDisabled
	br.tbl.s.brPortMsg(t, p, false)
	br.portStateSelection()
	br.tbl.s.brPortMsg(t, p, true)
	b.ports = slices.DeleteFunc(b.ports, func(d *Device) bool { return d == p })
	for _, q := range b.ports {
		if q.priv.brPort.info.BackupPort == p.ifindex {
			q.priv.brPort.info.BackupPort = 0 // nbp_backup_clear
		}
	}
	p.masterUpperUnlink(t)
	p.priv.brPort = nil
	if adjust {
		if br.recalcBridgeID() {
			_ = br.tbl.s.notify(t, EventChangeAddr, br)
		}
		br.mtuAutoAdjust(t)
	}
	if br.refreshCarrier(t, true) {
		br.carrierChangedForOthers(t)
	}
}

// recalcBridgeID gives a bridge whose address the user did not set the
// lowest address of its ports (all zeros without ports), and reports
// whether the address changed.
//
// Kernel: br_stp_recalculate_bridge_id, br_stp_change_bridge_id
// (net/bridge/br_stp_if.c).
func (br *Device) recalcBridgeID() bool {
	b := br.priv.bridge
	if !br.priv.addrRandom {
		return false // NET_ADDR_SET: the user's address stays
	}
	var addr MAC
	for i, p := range b.ports {
		if i == 0 || macLess(p.addr, addr) {
			addr = p.addr
		}
	}
	if addr == b.id.Addr {
		return false
	}
	b.id.Addr = addr
	br.addr = addr
	br.portStateSelection()
	return true
}

func macLess(a, b MAC) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// mtuAutoAdjust sets the bridge's MTU to its ports' smallest (1500 without
// ports) unless the user set it.
//
// Kernel: br_mtu_auto_adjust, br_mtu_min (net/bridge/br_if.c).
func (br *Device) mtuAutoAdjust(t *sim.Task) {
	b := br.priv.bridge
	if b.mtuSetByUser {
		return
	}
	mtu := 0
	for _, p := range b.ports {
		if mtu == 0 || p.mtu < mtu {
			mtu = p.mtu
		}
	}
	if mtu == 0 {
		mtu = ethDataLen
	}
	_ = br.SetMTU(t, mtu)
	b.mtuSetByUser = false
}

// bridgeDeviceEvent is the bridge's netdev notifier: what a port's
// changes do to its bridge, and a bridge's own address change.
//
// Kernel: br_device_event (net/bridge/br.c).
func bridgeDeviceEvent(t *sim.Task, ev Event, d *Device) error {
	if b := d.priv.bridge; b != nil && ev == EventChangeAddr && !d.priv.addrRandom && b.id.Addr != d.addr {
		// br_set_mac_address → br_stp_change_bridge_id.
		b.id.Addr = d.addr
		d.portStateSelection()
		if d.refreshCarrier(t, true) {
			d.carrierChangedForOthers(t)
		}
		return nil
	}
	bp := d.priv.brPort
	if bp == nil {
		return nil
	}
	br := bp.br
	switch ev {
	case EventChangeMTU:
		br.mtuAutoAdjust(t)
	case EventChangeAddr:
		if br.recalcBridgeID() {
			_ = br.tbl.s.notify(t, EventChangeAddr, br)
		}
		br.tbl.s.brPortMsg(t, d, false)
	case EventUp, EventDown, EventChange:
		// NETDEV_UP / NETDEV_DOWN / br_port_carrier_check: the port's
		// AF_BRIDGE RTM_NEWLINK, from enabling or disabling it or
		// else for the event itself; the bridge's carrier change is
		// queued behind the port's.
		if !d.portSync(t, br.IsUp()) {
			br.tbl.s.brPortMsg(t, d, false)
		}
		br.carrierEvent(t)
	}
	return nil
}
