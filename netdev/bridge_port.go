// Bridge ports: adding and removing a port, its state (struct
// net_bridge_port), its IFLA_BRPORT_* values and their changes, its STP
// state as the configuration makes it, path cost, promiscuity and the
// address lists synced to it (br_add_if, br_del_if, del_nbp, port_cost:
// net/bridge/br_if.c; br_setport, br_port_fill_attrs: br_netlink.c;
// br_stp_enable_port, br_stp_disable_port: br_stp_if.c).

package netdev

import (
	"slices"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

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

// STP port states (BR_STATE_*).
const (
	BrStateDisabled   uint8 = 0 // BR_STATE_DISABLED
	BrStateListening  uint8 = 1 // BR_STATE_LISTENING
	BrStateLearning   uint8 = 2 // BR_STATE_LEARNING
	BrStateForwarding uint8 = 3 // BR_STATE_FORWARDING
	BrStateBlocking   uint8 = 4 // BR_STATE_BLOCKING
)

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

// bridgePort is a port's state (struct net_bridge_port). Guarded by RTNL,
// as its device is.
type bridgePort struct {
	br    *Device
	no    uint16
	state uint8
	info  BridgePortInfo // the per-port settings and their defaults
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
	br.setGSOLimits()
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
		br.setGSOLimits()
	}
	if br.refreshCarrier(t, true) {
		br.carrierChangedForOthers(t)
	}
}
