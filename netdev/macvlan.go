// macvlan devices on a lower device: modes, the port (struct macvlan_port)
// the lower device holds, address uniqueness among a port's macvlans,
// passthru following the lower device (drivers/net/macvlan.c).

package netdev

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

var macvlanOps = &linkOps{
	kind:      "macvlan",
	operUp:    OperUp,
	carrierOf: lowerCarrier,
	dellink:   queueUnlinkLower, // macvlan_dellink
	// macvlan_open: claim the address on the lower device (passthru makes
	// the lower promiscuous instead).
	open: func(t *sim.Task, d *Device) error {
		if d.priv.macvlanMode == MacvlanPassthru {
			if d.priv.macvlan.flags&MacvlanFlagNoPromisc == 0 {
				d.link.SetPromiscuity(t, 1)
			}
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
			if d.priv.macvlan.flags&MacvlanFlagNoPromisc == 0 {
				d.link.SetPromiscuity(t, -1)
			}
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
	permAddr   MAC   // perm_addr
	addrChange bool  // MACVLAN_F_ADDRCHANGE
	bcCutoff   int32 // bc_cutoff, 1 for a new port
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

// validate is macvlan_validate: a multicast address, unknown flags or an
// unknown mode are refused before anything else, without a message.
func (s Macvlan) validate(*Table) error {
	if s.Addr.IsMulticast() {
		return errno.New(syscall.EADDRNOTAVAIL, "")
	}
	return validateMacvlanData(s.Mode, s.Settings)
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
	ltb := tb
	if s.LinkTable != nil {
		ltb = s.LinkTable
	}
	lower := ltb.byName[nlaString(s.Link)] // +checklocksignore: RTNL held
	if s.LinkIndex != 0 {
		lower = ltb.byIndex[s.LinkIndex]
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
	if s.Settings.MacaddrMode != nil {
		if err := macaddrRefusal(mode); err != nil {
			return nil, err
		}
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
		lower.priv.macvlanPort = macvlanPort{permAddr: lower.addr, bcCutoff: 1}
	}
	d.priv.macvlan = &macvlanState{bcQueueLenReq: macvlanDefaultBcQueueLen}
	if f := s.Settings.Flags; f != nil {
		d.priv.macvlan.flags = *f
	}
	if q := s.Settings.BcQueueLen; q != nil {
		d.priv.macvlan.bcQueueLenReq = *q
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

// tie sets the port's broadcast cutoff the request asks for, once the
// macvlan is registered (macvlan_common_newlink's update_port_bc_cutoff).
func (s Macvlan) tie(devs []*Device) {
	if c := s.Settings.BcCutoff; c != nil {
		devs[0].link.priv.macvlanPort.bcCutoff = *c
	}
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
