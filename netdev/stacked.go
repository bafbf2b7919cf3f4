// Device kinds that pair with or stack on other devices: veth
// (drivers/net/veth.c), macvlan (drivers/net/macvlan.c), vlan
// (net/8021q/vlan.c, vlan_dev.c, vlan_netlink.c), bond
// (drivers/net/bonding/bond_main.c) and vrf (drivers/net/vrf.c), and the
// upper/lower links between devices (netdev_upper_dev_link, net/core/dev.c).

package netdev

import (
	"slices"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// queueSelf is the dellink of kinds that delete only themselves.
func queueSelf(_ *sim.Task, d *Device, q *[]*Device) { *q = append(*q, d) }

// queueUnlinkLower is the dellink of a vlan or macvlan: d is queued, and
// its lower device's NETDEV_CHANGEUPPER of the unlink announces the lower
// at once, before the batch is unregistered (netsim takes d off the
// lower's uppers at ndo_uninit, and runs no notifier chain for it).
//
// Kernel: unregister_vlan_dev (net/8021q/vlan.c), macvlan_dellink
// (drivers/net/macvlan.c): netdev_upper_dev_unlink → rtnetlink_event.
func queueUnlinkLower(t *sim.Task, d *Device, q *[]*Device) {
	*q = append(*q, d)
	if d.link != nil {
		d.tbl.s.linkMsg(t, d.link, false, 0, false)
	}
}

// lowerCarrier is the carrier of a device stacked on d.link: the lower's
// carrier while it is up.
//
// Kernel: netif_stacked_transfer_operstate (net/core/dev.c).
func lowerCarrier(d *Device) bool { return d.link != nil && d.link.IsUp() && d.link.carrier }

// ---- veth ----

var vethOps = &linkOps{
	kind:      "veth",
	operUp:    OperUp,
	setRxMode: func(*sim.Task, *Device) {},
	// veth_dellink: deleting either end unregisters both, untied first:
	// from then on neither has a peer (its iflink is 0).
	dellink: func(_ *sim.Task, d *Device, q *[]*Device) {
		p := d.peer
		d.peer = nil
		*q = append(*q, d)
		if p != nil {
			p.peer = nil
			if p.state == regRegistered {
				*q = append(*q, p)
			}
		}
	},
	// veth_open / veth_close: carrier on both ends only while both are up.
	carrierOf: func(d *Device) bool { return d.peer != nil && d.peer.IsUp() },
	uninit: func(_ *sim.Task, d *Device) {
		if d.peer != nil {
			d.peer.peer = nil
		}
	},
}

// vethValidate refuses an MTU outside 68..65535 with a bare EINVAL.
//
// Kernel: veth_validate / is_valid_veth_mtu (drivers/net/veth.c).
func vethValidate(a Attrs) error {
	if mtu, ok := a.mtu(); ok && (mtu < ethMinMTU || mtu > ethMaxMTU) {
		return errno.New(syscall.EINVAL, "")
	}
	return nil
}

func (s Veth) validate(*Table) error { return vethValidate(s.Attrs) }

func (s Veth) create(t *sim.Task, tb *Table) ([]*Device, error) {
	// veth_newlink validates the peer's attributes as the request's,
	// then names, addresses and registers the peer first.
	if err := vethValidate(s.PeerAttrs); err != nil {
		return nil, err
	}
	peerName, err := tb.checkLinkName(s.Peer, "veth", nil)
	if err != nil {
		return nil, err
	}
	name, err := tb.checkLinkName(s.Name, "veth", map[string]bool{peerName: true})
	if err != nil {
		return nil, err
	}
	if peerName == name {
		return nil, errno.Errorf(syscall.EEXIST, "Device \"%s\" already exists", name)
	}
	if s.Index != 0 && s.Index == s.PeerAttrs.Index {
		return nil, errno.Errorf(syscall.EBUSY, "ifindex %d is in use", s.Index)
	}
	b, err := tb.newDevice(peerName, vethOps, s.PeerAttrs, FlagBroadcast|FlagMulticast, ethDataLen, ethMinMTU, ethMaxMTU)
	if err != nil {
		return nil, err
	}
	a, err := tb.newDevice(name, vethOps, s.Attrs, FlagBroadcast|FlagMulticast, ethDataLen, ethMinMTU, ethMaxMTU)
	if err != nil {
		return nil, err
	}
	if s.PeerUp {
		// veth_newlink configures the peer (rtnl_configure_link) once it
		// is registered and before the pair is tied: veth_open finds no
		// peer, and the peer is unregistered, unannounced. Registering
		// it took the next ifindex, which stays spent; a requested one
		// in use fails the registration first.
		if want := s.PeerAttrs.Index; want > 0 {
			if tb.byIndex[want] != nil {
				return nil, errno.Errorf(syscall.EBUSY, "ifindex %d is in use", want)
			}
		} else if want == 0 {
			if _, err := tb.newIndex(); err != nil {
				return nil, err
			}
		}
		return nil, errno.New(syscall.ENOTCONN, "")
	}
	a.priv.wantIndex, b.priv.wantIndex = s.Index, s.PeerAttrs.Index
	// veth_newlink registers the peer first; tie joins them afterwards.
	return []*Device{b, a}, nil
}

// tie makes the two ends of a new pair each other's peer, once both are
// registered: the peer, announced as soon as it was registered, had none
// then (its iflink was 0).
//
// Kernel: veth_newlink (drivers/net/veth.c) sets priv->peer of both ends
// after register_netdevice(dev).
func (Veth) tie(devs []*Device) {
	b, a := devs[0], devs[1]
	a.peer, b.peer = b, a
}

// ---- macvlan ----

var macvlanOps = &linkOps{
	kind:      "macvlan",
	operUp:    OperUp,
	carrierOf: lowerCarrier,
	dellink:   queueUnlinkLower, // macvlan_dellink
	// macvlan_open: claim the address on the lower device (passthru makes
	// the lower promiscuous instead).
	open: func(t *sim.Task, d *Device) error {
		if d.priv.macvlanMode == MacvlanPassthru {
			d.link.SetPromiscuity(t, 1)
			return nil
		}
		if macvlanAddrBusy(d, d.addr) {
			return errno.New(syscall.EADDRINUSE, "")
		}
		if err := d.link.UCAdd(t, d.addr); err != nil {
			return err
		}
		d.passRxFlags(t, 1, true)
		return nil
	},
	// macvlan_stop
	stop: func(t *sim.Task, d *Device) {
		UCUnsync(t, d.link, d)
		MCUnsync(t, d.link, d)
		passthru := d.priv.macvlanMode == MacvlanPassthru
		d.passRxFlags(t, -1, !passthru)
		if passthru {
			d.link.SetPromiscuity(t, -1)
			return
		}
		_ = d.link.UCDel(t, d.addr)
	},
	// macvlan_set_mac_lists
	setRxMode: func(t *sim.Task, d *Device) {
		_ = UCSync(t, d.link, d)
		_ = MCSync(t, d.link, d)
	},
	changeRxFlags: passRxFlagsToLink,
	uninit:        macvlanUninit,
	changeMTU:     mtuWithinLower(syscall.EINVAL), // macvlan_change_mtu
}

// macvlanPort is the state a lower device keeps while macvlans use it
// (struct macvlan_port): the address it had, which a passthru macvlan
// restores when the port goes, and whether the passthru macvlan is the one
// changing the lower's address.
type macvlanPort struct {
	permAddr   MAC  // perm_addr
	addrChange bool // MACVLAN_F_ADDRCHANGE
}

// macvlanAddrBusy reports whether addr is taken on d's port: the lower's
// own address (unless the port is passthru), or the address of another
// macvlan of the port that is up (the port's hash).
//
// Kernel: macvlan_addr_busy (drivers/net/macvlan.c).
func macvlanAddrBusy(d *Device, addr MAC) bool {
	lower := d.link
	if d.priv.macvlanMode != MacvlanPassthru && !lower.priv.macvlanPort.addrChange && lower.addr == addr {
		return true
	}
	for _, u := range lower.uppers {
		if u != d && u.kindIs("macvlan") && u.IsUp() && u.addr == addr {
			return true
		}
	}
	return false
}

// macvlanSetAddr is a macvlan's ndo_set_mac_address: a passthru macvlan
// changes its lower's address (and follows it through NETDEV_CHANGEADDR);
// another takes addr if no one on the port has it, moving its unicast
// entry on the lower when up.
//
// Kernel: macvlan_set_mac_address, macvlan_sync_address (drivers/net/macvlan.c).
func macvlanSetAddr(t *sim.Task, d *Device, a MAC) error {
	if d.priv.macvlanMode == MacvlanPassthru {
		port := &d.link.priv.macvlanPort
		port.addrChange = true
		err := d.link.SetAddr(t, a)
		port.addrChange = false
		return err
	}
	if macvlanAddrBusy(d, a) {
		return errno.New(syscall.EADDRINUSE, "")
	}
	if d.IsUp() {
		if err := d.link.UCAdd(t, a); err != nil {
			return err
		}
		_ = d.link.UCDel(t, d.addr)
	}
	d.addr = a
	return nil
}

// macvlanFollowLower is NETDEV_CHANGEADDR on the lower device of a
// passthru macvlan: the macvlan takes the lower's new address, and unless
// the macvlan itself asked for the change, the lower's new address is the
// one to restore when the port goes.
//
// Kernel: macvlan_device_event NETDEV_CHANGEADDR → macvlan_sync_address.
func macvlanFollowLower(t *sim.Task, lower *Device) {
	for _, u := range lower.uppers {
		if !u.kindIs("macvlan") || u.priv.macvlanMode != MacvlanPassthru {
			continue
		}
		u.addr = lower.addr
		u.priv.addrRandom, u.priv.addrStolen = false, false
		if !lower.priv.macvlanPort.addrChange {
			lower.priv.macvlanPort.permAddr = lower.addr
		}
		return
	}
}

// macvlanUninit unlinks a macvlan from its lower; when it was the port's
// last, the port goes, and a passthru macvlan that changed the lower's
// address puts the old one back.
//
// Kernel: macvlan_uninit → macvlan_port_destroy (drivers/net/macvlan.c).
func macvlanUninit(t *sim.Task, d *Device) {
	lower := d.link
	unlinkFromLower(t, d)
	if lower == nil || lower.hasMacvlans() {
		return
	}
	perm := lower.priv.macvlanPort.permAddr
	lower.priv.macvlanPort = macvlanPort{}
	if d.priv.macvlanMode == MacvlanPassthru && lower.addr != perm {
		_ = lower.SetAddr(t, perm)
	}
}

// passRxFlags adds inc to the lower device's allmulti count if d is
// allmulti, and (with promisc) to its promiscuity if d is promiscuous: what
// vlan and macvlan do when they open (+1) and stop (-1).
func (d *Device) passRxFlags(t *sim.Task, inc int, promisc bool) {
	if d.allmulti > 0 {
		d.link.SetAllmulti(t, inc)
	}
	if promisc && d.promiscCnt > 0 {
		d.link.SetPromiscuity(t, inc)
	}
}

// passRxFlagsToLink passes promiscuity and allmulti changes of an up vlan
// or macvlan to its lower device.
//
// Kernel: vlan_dev_change_rx_flags (net/8021q/vlan_dev.c),
// macvlan_change_rx_flags (drivers/net/macvlan.c).
func passRxFlagsToLink(t *sim.Task, d *Device, change Flags) {
	if change&FlagAllMulti != 0 {
		d.link.SetAllmulti(t, sign(d.allmulti > 0))
	}
	if change&FlagPromisc != 0 && d.priv.macvlanMode != MacvlanPassthru {
		d.link.SetPromiscuity(t, sign(d.promiscCnt > 0))
	}
}

// mtuWithinLower is the ndo_change_mtu of a vlan or a macvlan: an MTU
// above the lower's fails with the bare errno e (ERANGE, EINVAL).
//
// Kernel: vlan_dev_change_mtu (net/8021q/vlan_dev.c), macvlan_change_mtu
// (drivers/net/macvlan.c).
func mtuWithinLower(e syscall.Errno) func(d *Device, mtu int) error {
	return func(d *Device, mtu int) error {
		if mtu > d.link.mtu {
			return errno.New(e, "")
		}
		return nil
	}
}

func unlinkFromLower(_ *sim.Task, d *Device) {
	if d.link != nil {
		d.link.uppers = slices.DeleteFunc(d.link.uppers, func(u *Device) bool { return u == d })
	}
}

// validate is macvlan_validate: a multicast address or an unknown mode is
// refused before anything else, without a message.
func (s Macvlan) validate(*Table) error {
	if s.Addr.IsMulticast() {
		return errno.New(syscall.EADDRNOTAVAIL, "")
	}
	switch s.Mode {
	case 0, MacvlanPrivate, MacvlanVEPA, MacvlanBridge, MacvlanPassthru, MacvlanSource:
		return nil
	}
	return errno.New(syscall.EINVAL, "")
}

func (s Macvlan) create(t *sim.Task, tb *Table) ([]*Device, error) {
	name, err := tb.checkLinkName(s.Name, "macvlan", nil)
	if err != nil {
		return nil, err
	}
	// rtnl_create_link checks the MTU against the macvlan's own range
	// (68..65535) before macvlan_common_newlink looks at the lower.
	if mtu, ok := s.Attrs.mtu(); ok {
		if err := (&Device{minMTU: ethMinMTU, maxMTU: ethMaxMTU}).checkMTU(mtu); err != nil {
			return nil, err
		}
	}
	// macvlan_common_newlink: no IFLA_LINK is a bare EINVAL, an unknown
	// one a bare ENODEV.
	if s.Link == "" && s.LinkIndex == 0 {
		return nil, errno.New(syscall.EINVAL, "")
	}
	lower := tb.byName[nlaString(s.Link)]
	if s.LinkIndex != 0 {
		lower = tb.byIndex[s.LinkIndex]
	}
	if lower == nil {
		return nil, errno.New(syscall.ENODEV, "")
	}
	if lower.kindIs("macvlan") { // macvlan on macvlan stacks on the real device
		lower = lower.link
	}
	// macvlan_common_newlink: without IFLA_MTU the macvlan takes its
	// lower's MTU; an MTU above the lower's is a bare EINVAL.
	if mtu, ok := s.Attrs.mtu(); ok && mtu > lower.mtu {
		return nil, errno.New(syscall.EINVAL, "")
	}
	// macvlan_port_create: loopback cannot carry macvlans (and a vrf's
	// frames never reach a macvlan port). A bare EINVAL.
	if lower.isLoopback() || lower.kindIs("vrf") {
		return nil, errno.New(syscall.EINVAL, "")
	}
	mode := s.Mode
	if mode == 0 {
		mode = MacvlanVEPA
	}
	// Only one macvlan in passthru mode, and it alone on its port: bare
	// EINVALs.
	var count int
	for _, u := range lower.uppers {
		if u.kindIs("macvlan") {
			count++
			if u.priv.macvlanMode == MacvlanPassthru {
				return nil, errno.New(syscall.EINVAL, "")
			}
		}
	}
	if mode == MacvlanPassthru && count > 0 {
		return nil, errno.New(syscall.EINVAL, "")
	}
	a := s.Attrs
	// MTU range: 68 to the lower's maximum; the MTU defaults to the
	// lower's.
	d, err := tb.newDevice(name, macvlanOps, a, FlagBroadcast|FlagMulticast, lower.mtu, ethMinMTU, lower.maxMTU)
	if err != nil {
		return nil, err
	}
	if count == 0 && lower.masterHoldsRxHandler() {
		// macvlan_port_create → netdev_rx_handler_register: the bridge's
		// or bond's rx_handler holds the device (the kernel sets no extack).
		return nil, errno.New(syscall.EBUSY, "Device is in use by an rx handler")
	}
	if count == 0 { // macvlan_port_create records the lower's address
		lower.priv.macvlanPort = macvlanPort{permAddr: lower.addr}
	}
	if mode == MacvlanPassthru {
		// eth_hw_addr_inherit: a passthru macvlan has its lower's
		// address, whatever the request asked for.
		d.addr, d.priv.addrRandom = lower.addr, false
	}
	d.link, d.uniFlt = lower, true
	d.priv.macvlanMode = mode
	return []*Device{d}, nil
}

// lookupLink resolves IFLA_LINK: the lower device by ifindex when index
// is not 0, else by name.
func (tb *Table) lookupLink(index IfIndex, name string) (*Device, error) {
	if index == 0 && name == "" {
		return nil, errno.New(syscall.EINVAL, "A lower device (link) is required")
	}
	return tb.Find(index, name)
}

// ---- vlan ----

// VlanMaxID is the largest valid VLAN id (VLAN_VID_MASK - 1).
const VlanMaxID = 4094

var vlanOps = &linkOps{
	kind:      "vlan",
	operUp:    OperUp,
	carrierOf: lowerCarrier,
	// vlan_dellink → unregister_vlan_dev
	dellink: queueUnlinkLower,
	// vlan_dev_open
	open: func(t *sim.Task, d *Device) error {
		if !d.link.IsUp() {
			return errno.New(syscall.ENETDOWN, "Lower device is down")
		}
		if d.addr != d.link.addr {
			if err := d.link.UCAdd(t, d.addr); err != nil {
				return err
			}
		}
		d.passRxFlags(t, 1, true)
		return nil
	},
	// vlan_dev_stop
	stop: func(t *sim.Task, d *Device) {
		MCUnsync(t, d.link, d)
		UCUnsync(t, d.link, d)
		d.passRxFlags(t, -1, true)
		if d.addr != d.link.addr {
			_ = d.link.UCDel(t, d.addr)
		}
	},
	// vlan_dev_set_rx_mode
	setRxMode: func(t *sim.Task, d *Device) {
		_ = MCSync(t, d.link, d)
		_ = UCSync(t, d.link, d)
	},
	changeRxFlags: passRxFlagsToLink,
	uninit:        unlinkFromLower,
	changeMTU:     mtuWithinLower(syscall.ERANGE), // vlan_dev_change_mtu
}

func (s Vlan) create(t *sim.Task, tb *Table) ([]*Device, error) {
	name, err := tb.checkLinkName(s.Name, "vlan", nil)
	if err != nil {
		return nil, err
	}
	lower, err := tb.lookupLink(s.LinkIndex, s.Link)
	if err != nil {
		return nil, err
	}
	if s.ID > VlanMaxID {
		return nil, errno.New(syscall.ERANGE, "Invalid VLAN id")
	}
	// vlan_check_real_dev: loopback and vrf are VLAN-challenged; a vid may
	// be used once per lower device.
	if lower.isLoopback() || lower.kindIs("vrf") {
		return nil, errno.New(syscall.EOPNOTSUPP, "VLANs not supported on device")
	}
	for _, u := range lower.uppers {
		if u.kindIs("vlan") && u.priv.vlanID == s.ID {
			return nil, errno.New(syscall.EEXIST, "VLAN device already exists")
		}
	}
	a := s.Attrs
	// MTU range 0..ETH_MAX_MTU (vlan_setup); the MTU defaults to, and may
	// not exceed, the lower's (vlan_newlink).
	d, err := tb.newDevice(name, vlanOps, a, lower.flags&(FlagBroadcast|FlagMulticast|FlagNoARP), lower.mtu, 0, ethMaxMTU)
	if err != nil {
		return nil, err
	}
	if d.mtu > lower.mtu { // vlan_newlink: a bare EINVAL
		return nil, errno.New(syscall.EINVAL, "")
	}
	if s.Addr == (MAC{}) { // vlan_dev_init: the vlan uses the lower's address
		d.addr, d.priv.addrRandom, d.priv.addrStolen = lower.addr, false, true
	}
	d.link = lower
	d.priv.vlanID = s.ID
	return []*Device{d}, nil
}

// masterHoldsRxHandler reports whether d's master took d's rx_handler: a
// bridge port's is br_handle_frame, a bond slave's bond_handle_frame (a
// vrf takes none). A device has one rx_handler, so such a device cannot
// become a macvlan's lower device, and a macvlans' lower device (whose
// rx_handler is macvlan_handle_frame, see hasMacvlans) cannot become a
// bridge port or bond slave.
//
// Kernel: netdev_rx_handler_register (net/core/dev.c), called by br_add_if,
// bond_enslave and macvlan_port_create.
func (d *Device) masterHoldsRxHandler() bool {
	return d.master != nil && (d.master.kindIs("bridge") || d.master.kindIs("bond"))
}

// hasMacvlans reports whether macvlans use d as their lower device (its
// rx_handler is taken).
func (d *Device) hasMacvlans() bool {
	for _, u := range d.uppers {
		if u.kindIs("macvlan") {
			return true
		}
	}
	return false
}

// ---- bond ----

var bondOps = &linkOps{
	kind:     "bond",
	operUp:   OperUp,
	dellink:  queueSelf,
	addSlave: bondEnslave,
	// A slave moved from another master is released first; a bond closes
	// the slaves it releases, a vrf cycles them.
	checkSlave: func(b, slave *Device) error {
		return bondCheckSlave(b, slave, false, slave.IsUp() && !slave.master.kindIs("bond"))
	},
	delSlave: func(t *sim.Task, m, s *Device) error { return bondRelease(t, m, s) },
	// bond_set_rx_mode: push the bond's lists to the active slave, or to
	// every slave in the modes without a primary.
	setRxMode: func(t *sim.Task, b *Device) {
		if b.priv.bondMode.usesPrimary() {
			if s := bondActiveSlave(b); s != nil {
				_ = UCSync(t, s, b)
				_ = MCSync(t, s, b)
			}
			return
		}
		for _, s := range b.slaves {
			_ = UCSyncMultiple(t, s, b)
			_ = MCSyncMultiple(t, s, b)
		}
	},
	// bond_change_rx_flags
	changeRxFlags: func(t *sim.Task, b *Device, change Flags) {
		for _, s := range bondSyncTargets(b) {
			if change&FlagPromisc != 0 {
				s.SetPromiscuity(t, sign(b.promiscCnt > 0))
			}
			if change&FlagAllMulti != 0 {
				s.SetAllmulti(t, sign(b.allmulti > 0))
			}
		}
	},
	// bond_close: take the bond's addresses back from the slaves it
	// pushed them to (bond_hw_addr_flush); bond_open's rx-mode reload
	// pushes them again.
	stop: func(t *sim.Task, b *Device) {
		for _, s := range bondSyncTargets(b) {
			UCUnsync(t, s, b)
			MCUnsync(t, s, b)
		}
	},
	// bond_uninit releases every slave.
	uninit: func(t *sim.Task, b *Device) {
		for len(b.slaves) > 0 {
			_ = bondRelease(t, b, b.slaves[len(b.slaves)-1])
		}
	},
	carrierOf: func(b *Device) bool {
		for _, s := range b.slaves {
			if s.IsUp() && s.carrier {
				return true
			}
		}
		return false
	},
}

// sign is the count change that follows a flag: +1 on, -1 off.
func sign(up bool) int {
	if up {
		return 1
	}
	return -1
}

// bondSyncTargets returns the slaves that carry the bond's address lists:
// the active slave in modes with a primary, every slave otherwise.
func bondSyncTargets(b *Device) []*Device {
	if !b.priv.bondMode.usesPrimary() {
		return b.slaves
	}
	if s := bondActiveSlave(b); s != nil {
		return []*Device{s}
	}
	return nil
}

// bondActiveSlave returns the current active slave of a primary-using bond:
// the first slave that is up.
func bondActiveSlave(b *Device) *Device {
	for _, s := range b.slaves {
		if s.IsUp() {
			return s
		}
	}
	return nil
}

func (s Bond) create(t *sim.Task, tb *Table) ([]*Device, error) {
	name, err := tb.checkLinkName(s.Name, "bond", nil)
	if err != nil {
		return nil, err
	}
	if int(s.Mode) >= len(bondModeNames) {
		return nil, errno.Errorf(syscall.EINVAL, "Invalid bond mode %d", s.Mode)
	}
	d, err := tb.newDevice(name, bondOps, s.Attrs, FlagBroadcast|FlagMulticast|FlagMaster, ethDataLen, ethMinMTU, ethMaxMTU)
	if err != nil {
		return nil, err
	}
	d.uniFlt = true
	d.priv.bondMode = s.Mode
	return []*Device{d}, nil
}

// bondEnslave makes slave a port of bond b.
//
// Kernel: bond_enslave (drivers/net/bonding/bond_main.c): the checks, the
// bond taking the first slave's address, the slave taking the bond's
// address and MTU, dev_open of the slave, the upper link, and the sync of
// the bond's address lists to the new slave.
func bondEnslave(t *sim.Task, b, slave *Device) error {
	if err := bondCheckSlave(b, slave, slave.master != nil, slave.IsUp()); err != nil {
		return err
	}
	// On failure the bond gets its own address back (the kernel's
	// err_undo_flags gives it a new random one) and the slave its own
	// address, MTU and address type (the kernel's err_restore_mac leaves
	// it NET_ADDR_SET).
	//
	// The vlans that use the bond's address follow both changes
	// (NETDEV_CHANGEADDR), and may not have had the bond's address before
	// (the bond's last release gives it a new one without the event, as
	// __bond_release_one does): every address is put back as it was.
	bondAddr, bondRandom := b.addr, b.priv.addrRandom
	addrs := b.tbl.addrs()
	undoBond := func() {
		if b.addr != bondAddr {
			_ = b.SetAddr(t, bondAddr)
		}
		b.priv.addrRandom = bondRandom
		for d, a := range addrs {
			d.addr = a
		}
	}
	if len(b.slaves) == 0 && b.priv.addrRandom {
		// bond_set_dev_addr: the bond takes its first slave's address.
		if err := b.SetAddr(t, slave.addr); err != nil {
			return err
		}
		b.priv.addrRandom = true
	}
	old := bondSaved{addr: slave.addr, mtu: slave.mtu}
	slaveRandom, slaveStolen := slave.priv.addrRandom, slave.priv.addrStolen
	undoSlave := func() {
		slave.flags &^= FlagSlave
		slave.restore(t, old)
		slave.priv.addrRandom, slave.priv.addrStolen = slaveRandom, slaveStolen
		undoBond()
	}
	if slave.mtu != b.mtu {
		if err := slave.SetMTU(t, b.mtu); err != nil {
			undoBond()
			return err
		}
	}
	if slave.addr != b.addr {
		_ = slave.SetAddr(t, b.addr)
	}
	// IFF_SLAVE goes on before dev_open, so that addrconf gives the slave
	// no link-local address.
	slave.flags |= FlagSlave
	if err := slave.open(t); err != nil {
		undoSlave()
		return err
	}
	_ = b.tbl.s.notify(t, EventUp, slave)
	if err := slave.masterUpperLink(t, b); err != nil {
		b.tbl.closeMany(t, []*Device{slave})
		undoSlave()
		return err
	}
	slave.priv.bondSaved = old
	b.slaves = append(b.slaves, slave)
	if !b.priv.bondMode.usesPrimary() {
		if b.promiscCnt > 0 {
			slave.SetPromiscuity(t, 1)
		}
		if b.allmulti > 0 {
			slave.SetAllmulti(t, 1)
		}
		if b.IsUp() {
			_ = MCSyncMultiple(t, slave, b)
			_ = UCSyncMultiple(t, slave, b)
		}
	} else if bondActiveSlave(b) == slave && b.IsUp() {
		_ = UCSync(t, slave, b)
		_ = MCSync(t, slave, b)
	}
	if b.refreshCarrier(t, true) {
		b.carrierChangedForOthers(t)
	}
	return nil
}

// addrs returns the hardware address of every device of the table.
func (tb *Table) addrs() map[*Device]MAC {
	m := make(map[*Device]MAC, tb.count)
	for d := tb.head; d != nil; d = d.next {
		m[d] = d.addr
	}
	return m
}

// bondCheckSlave is bond_enslave's refusals, in its order, judging the
// slave as having a master and being up as given: SetMaster asks before it
// releases the slave from its current master, which may close it.
func bondCheckSlave(b, slave *Device, hasMaster, up bool) error {
	switch {
	case slave.flags&FlagMaster != 0 && !slave.kindIs("bond"):
		return errno.New(syscall.EPERM, "Device type (master device) cannot be enslaved")
	case hasMaster || slave.hasMacvlans():
		return errno.New(syscall.EBUSY, "Device is in use and cannot be enslaved")
	case slave == b:
		return errno.New(syscall.EPERM, "Cannot enslave bond to itself.")
	case up:
		return errno.New(syscall.EPERM, "Device can not be enslaved while up")
	case slave.isLoopback():
		return errno.New(syscall.EINVAL, "Device type is different from other slaves")
	}
	if isUpperOf(slave, b) {
		return errno.New(syscall.EBUSY, "Cannot enslave a device to one stacked on it")
	}
	if slave.kindIs("vlan") && !slave.link.IsUp() {
		// dev_open(slave) would fail in vlan_dev_open; refusing here
		// keeps a moved device with its old master.
		return errno.New(syscall.ENETDOWN, "Lower device is down")
	}
	return nil
}

type bondSaved struct {
	addr MAC
	mtu  int
}

func (d *Device) restore(t *sim.Task, s bondSaved) {
	if d.mtu != s.mtu {
		_ = d.SetMTU(t, s.mtu)
	}
	if d.addr != s.addr {
		_ = d.SetAddr(t, s.addr)
	}
}

// bondRelease removes slave from bond b.
//
// Kernel: __bond_release_one (drivers/net/bonding/bond_main.c): unlink, undo
// the address-list sync and flags, close the slave, give it back its own
// address and MTU.
func bondRelease(t *sim.Task, b, slave *Device) error {
	if slave.master != b || !b.kindIs("bond") {
		return errno.Errorf(syscall.EINVAL, "Device \"%s\" is not a slave of \"%s\"", slave.name, b.name)
	}
	wasActive := bondActiveSlave(b) == slave
	slave.masterUpperUnlink(t)
	b.tbl.s.w.RCU().Synchronize(t) // one synchronize_rcu per released slave
	b.slaves = slices.DeleteFunc(b.slaves, func(s *Device) bool { return s == slave })
	slave.flags &^= FlagSlave
	if !b.priv.bondMode.usesPrimary() || wasActive {
		// bond_hw_addr_flush
		UCUnsync(t, slave, b)
		MCUnsync(t, slave, b)
		if b.promiscCnt > 0 {
			slave.SetPromiscuity(t, -1)
		}
		if b.allmulti > 0 {
			slave.SetAllmulti(t, -1)
		}
	}
	if slave.state == regRegistered {
		b.tbl.closeMany(t, []*Device{slave})
		slave.restore(t, slave.priv.bondSaved)
	}
	if len(b.slaves) == 0 && b.priv.addrRandom {
		b.addr = b.tbl.s.randomMAC()
	}
	if b.refreshCarrier(t, true) {
		b.carrierChangedForOthers(t)
	}
	return nil
}

// ---- vrf ----

var vrfOps = &linkOps{
	kind:       "vrf",
	operUp:     OperUp,
	l3mdev:     true,
	setRxMode:  func(*sim.Task, *Device) {},
	addSlave:   vrfAddSlave,
	checkSlave: vrfCheckSlave,
	delSlave:   func(t *sim.Task, vrf, port *Device) error { return vrfRelease(t, vrf, port, true) },
	// vrf_dellink: release every port (cycling it), then unregister.
	dellink: func(t *sim.Task, d *Device, q *[]*Device) {
		vrfReleaseAll(t, d)
		*q = append(*q, d)
	},
	uninit: vrfReleaseAll,
}

// vrfReleaseAll releases every port of vrf without vrf_del_slave's grace
// period, as vrf_dellink does.
func vrfReleaseAll(t *sim.Task, vrf *Device) {
	for len(vrf.slaves) > 0 {
		_ = vrfRelease(t, vrf, vrf.slaves[0], false)
	}
}

// VRFMTU is a vrf device's MTU (64 KiB plus the IPv6 header, IP6_MAX_MTU).
const VRFMTU = 65575

func (s VRF) create(t *sim.Task, tb *Table) ([]*Device, error) {
	name, err := tb.checkLinkName(s.Name, "vrf", nil)
	if err != nil {
		return nil, err
	}
	if s.Table == 0 {
		return nil, errno.New(syscall.EINVAL, "Invalid VRF table id")
	}
	d, err := tb.newDevice(name, vrfOps, s.Attrs, FlagNoARP|FlagMaster, VRFMTU, 1280, VRFMTU)
	if err != nil {
		return nil, err
	}
	d.priv.vrfTable = s.Table
	return []*Device{d}, nil
}

// vrfAddSlave enslaves port to vrf.
//
// Kernel: do_vrf_add_slave (drivers/net/vrf.c): link as master, then
// cycle_netdev — down and up again if it was up, so that addresses and
// routes move to the VRF's table.
func vrfAddSlave(t *sim.Task, vrf, port *Device) error {
	if err := vrfCheckSlave(vrf, port); err != nil {
		return err
	}
	if err := port.masterUpperLink(t, vrf); err != nil {
		return err
	}
	vrf.slaves = append(vrf.slaves, port)
	port.cycle(t)
	return nil
}

// vrfCheckSlave is vrf_add_slave's refusals.
func vrfCheckSlave(vrf, port *Device) error {
	if port.isL3Master() {
		return errno.New(syscall.EINVAL, "Can not enslave an L3 master device to a VRF")
	}
	if port.isLoopback() {
		return errno.New(syscall.EOPNOTSUPP, "Can not enslave loopback device to a VRF")
	}
	return nil
}

// vrfRelease releases port from vrf; sync adds the grace period that
// vrf_del_slave waits for (vrf_dellink and port unregistration skip it).
//
// Kernel: do_vrf_del_slave (drivers/net/vrf.c): unlink, synchronize_net,
// then cycle_netdev.
func vrfRelease(t *sim.Task, vrf, port *Device, sync bool) error {
	if port.master != vrf {
		return errno.Errorf(syscall.EINVAL, "Device \"%s\" is not a slave of \"%s\"", port.name, vrf.name)
	}
	port.masterUpperUnlink(t)
	vrf.slaves = slices.DeleteFunc(vrf.slaves, func(s *Device) bool { return s == port })
	if sync {
		vrf.tbl.s.w.RCU().SynchronizeExpedited(t)
	}
	if port.state == regRegistered {
		port.cycle(t)
	}
	return nil
}

// cycle takes an up device down and up again.
//
// Kernel: cycle_netdev (drivers/net/vrf.c).
func (d *Device) cycle(t *sim.Task) {
	if !d.IsUp() {
		return
	}
	// One linkwatch run after both: a carrier change queued by the close
	// keeps its place (linkwatch_add_event).
	d.tbl.s.linkwatchHold()
	defer d.tbl.s.linkwatchRelease(t)
	_ = d.SetUp(t, false)
	_ = d.SetUp(t, true)
}

// ---- upper/lower links ----

// isUpperOf reports whether up is stacked (directly or not) on d.
func isUpperOf(up, d *Device) bool {
	for _, u := range d.uppers {
		if u == up || isUpperOf(up, u) {
			return true
		}
	}
	if d.master != nil && (d.master == up || isUpperOf(up, d.master)) {
		return true
	}
	return false
}

// masterUpperLink makes master d's master.
//
// Kernel: netdev_master_upper_dev_link (net/core/dev.c): EBUSY for a device
// that has a master or for a loop, NETDEV_PRECHANGEUPPER (which may veto),
// NETDEV_CHANGEUPPER.
func (d *Device) masterUpperLink(t *sim.Task, master *Device) error {
	if d == master || d.master != nil || isUpperOf(d, master) {
		return errno.New(syscall.EBUSY, "Device is already linked to an upper device")
	}
	d.changingUpper = master
	defer func() { d.changingUpper = nil }()
	if err := d.tbl.s.notify(t, EventPreChangeUpper, d); err != nil {
		return err
	}
	d.master = master
	_ = d.tbl.s.notify(t, EventChangeUpper, d)
	return nil
}

// ChangingUpper returns, during NETDEV_PRECHANGEUPPER and
// NETDEV_CHANGEUPPER, the upper device being linked or unlinked
// (netdev_notifier_changeupper_info.upper_dev); nil otherwise.
func (d *Device) ChangingUpper() *Device { return d.changingUpper }

// masterUpperUnlink undoes masterUpperLink.
//
// Kernel: netdev_upper_dev_unlink (net/core/dev.c).
func (d *Device) masterUpperUnlink(t *sim.Task) {
	if d.master == nil {
		return
	}
	d.changingUpper = d.master
	defer func() { d.changingUpper = nil }()
	_ = d.tbl.s.notify(t, EventPreChangeUpper, d)
	d.master = nil
	_ = d.tbl.s.notify(t, EventChangeUpper, d)
}

// SetMaster enslaves d to master, or releases it from its master when
// master is nil.
//
// Kernel: do_set_master (net/core/rtnetlink.c): ndo_del_slave of the old
// master, then ndo_add_slave of the new one; EOPNOTSUPP for a device that
// takes no slaves.
func (d *Device) SetMaster(t *sim.Task, master *Device) error {
	if d.master == master {
		return nil
	}
	if master != nil && master.ops.addSlave == nil {
		return errno.Errorf(syscall.EOPNOTSUPP, "Device \"%s\" cannot be a master", master.name)
	}
	if master != nil && master.tbl != d.tbl {
		return errno.New(syscall.EINVAL, "Master is in another namespace")
	}
	// The carrier changes of the ports the masters open, close or cycle
	// reach linkwatch after the request.
	d.tbl.s.linkwatchHold()
	defer d.tbl.s.linkwatchRelease(t)
	if old := d.master; old != nil {
		// The kernel releases d before the new master can refuse it, and
		// a refused move leaves d released; netsim asks first, so that a
		// rejected request changes nothing.
		if master != nil && master.ops.checkSlave != nil {
			if err := master.ops.checkSlave(master, d); err != nil {
				return err
			}
		}
		if err := old.ops.delSlave(t, old, d); err != nil {
			return err
		}
	}
	if master == nil {
		return nil
	}
	return master.ops.addSlave(t, master, d)
}

// stackedDeviceEvent is what vlan, macvlan, bond and vrf do when a device
// they stack on changes.
//
// Kernel: vlan_device_event (net/8021q/vlan.c), macvlan_device_event
// (drivers/net/macvlan.c), bond_netdev_event (bond_main.c), vrf_device_event
// (drivers/net/vrf.c).
func stackedDeviceEvent(t *sim.Task, ev Event, d *Device) error {
	switch ev {
	case EventDown:
		// vlan_device_event NETDEV_DOWN: the vlans on d go down with it.
		var vlans []*Device
		for _, u := range d.uppers {
			if u.kindIs("vlan") && u.IsUp() {
				vlans = append(vlans, u)
			}
		}
		d.tbl.closeMany(t, vlans)
	case EventUp:
		// vlan_device_event NETDEV_UP: the vlans on d come up with it.
		for _, u := range slices.Clone(d.uppers) {
			if u.kindIs("vlan") && !u.IsUp() && u.state == regRegistered {
				_ = u.SetUp(t, true)
			}
		}
	case EventUnregister:
		if d.state != regUnregistering {
			return nil // a rebroadcast from netdev_wait_allrefs
		}
		// bond_netdev_event / vrf_device_event: a port that goes away is
		// released by its master.
		if m := d.master; m != nil {
			if m.kindIs("vrf") {
				_ = vrfRelease(t, m, d, false)
			} else if m.ops.delSlave != nil {
				_ = m.ops.delSlave(t, m, d)
			}
		}
		// vlan_device_event / macvlan_device_event: the devices stacked on
		// d are deleted with it, in a nested batch.
		if len(d.uppers) > 0 {
			var q []*Device
			for _, u := range slices.Clone(d.uppers) {
				if u.state == regRegistered {
					u.ops.dellink(t, u, &q)
				}
			}
			d.tbl.s.UnregisterMany(t, q)
		}
	case EventChangeMTU:
		// vlan_device_event / macvlan_device_event NETDEV_CHANGEMTU: the
		// devices stacked on d shrink to fit it.
		for _, u := range d.uppers {
			if u.mtu > d.mtu {
				_ = u.SetMTU(t, d.mtu)
			}
		}
	case EventChangeAddr:
		// vlan_sync_address (vlans that are up) and vlan_dev_open (the
		// others, when they come up): a vlan that uses its lower's address
		// follows it. Its address stays equal to the lower's, so no
		// unicast entry on the lower changes.
		macvlanFollowLower(t, d)
		for _, u := range d.uppers {
			if u.kindIs("vlan") && u.priv.addrStolen && u.addr != d.addr {
				u.addr = d.addr
				_ = u.tbl.s.notify(t, EventChangeAddr, u)
			}
		}
	}
	return nil
}
