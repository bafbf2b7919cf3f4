// The Linux bridge's control plane: the bridge device (net/bridge/br_device.c,
// br_if.c, br_stp_if.c, br_multicast.c and br.c's br_device_event). No
// frames are forwarded and no FDB is learned; what is modelled is what `ip
// link`, `ip -d link` and `ip maddr` show: carrier, MTU and address
// following the ports, and the multicast snooping groups of the bridge.
// The bridge's IFLA_BR_* configuration is in bridge_config.go, its ports
// (IFLA_BRPORT_*, STP port states, promiscuity and allmulti of the ports)
// in bridge_port.go.
//
// STP timers are not modelled: with STP enabled a port that comes up stays
// in the listening state (the kernel moves it to learning and forwarding
// after two forward delays), so the bridge has no carrier.

package netdev

import (
	"net/netip"

	"github.com/netsimlab/netsim/sim"
)

// Bridge is an Ethernet bridge (net/bridge). Settings are its IFLA_BR_*
// attributes; unset ones take the kernel's defaults.
type Bridge struct {
	Name string
	Attrs
	Settings BridgeSettings
}

func (s Bridge) LinkName() string { return s.Name }
func (s Bridge) LinkAttrs() Attrs { return s.Attrs }

// bridgeState is a bridge's private state (struct net_bridge). Guarded by
// RTNL, as its device is.
type bridgeState struct {
	cfg          BridgeConfig
	id           BridgeID  // bridge_id
	mtuSetByUser bool      // BROPT_MTU_SET_BY_USER
	snooping     bool      // the snooper groups are joined (br_multicast_join_snoopers)
	ports        []*Device // port_list, newest first
	tsoMax       uint32    // tso_max_size once a port came or went (br_set_gso_limits); 0 before
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

// setGSOLimits takes the bridge's TSO limit from its ports: the smallest
// of theirs, TSO_MAX_SIZE without ports. A new bridge has a new device's
// limit until a port is added.
//
// Kernel: br_set_gso_limits (net/bridge/br_if.c), from br_add_if and
// br_del_if.
func (br *Device) setGSOLimits() {
	b := br.priv.bridge
	b.tsoMax = TSOMaxSize
	for _, p := range b.ports {
		b.tsoMax = min(b.tsoMax, p.TSOMaxSize())
	}
}

// The TSO limits a device reports (tso_max_size): TSO_MAX_SIZE for the
// software devices that set it (netif_set_tso_max_size), the
// GSO_LEGACY_MAX_SIZE a new device has otherwise (alloc_netdev_mqs).
const (
	TSOMaxSize       = 524280 // TSO_MAX_SIZE
	TSOLegacyMaxSize = 65536  // a new device's, GSO_LEGACY_MAX_SIZE
)

// TSOMaxSize returns d's tso_max_size: a bridge's is a new device's limit
// until a port comes, then its ports' (setGSOLimits); a vxlan's is what
// it copied from its lower device when it last took one
// (netif_inherit_tso_max in vxlan_config_apply), a new device's without
// one; every other kind netsim has allows TSO_MAX_SIZE.
func (d *Device) TSOMaxSize() uint32 {
	switch {
	case d.priv.bridge != nil:
		if d.priv.bridge.tsoMax == 0 {
			return TSOLegacyMaxSize
		}
		return d.priv.bridge.tsoMax
	case d.priv.vxlan != nil:
		return d.priv.vxlan.tsoMax
	}
	return TSOMaxSize
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
