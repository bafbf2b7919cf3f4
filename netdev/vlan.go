// 802.1Q VLAN devices on a lower device: VLAN ids, creation and the ops of a
// vlan (net/8021q/vlan.c, vlan_dev.c, vlan_netlink.c).

package netdev

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

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
	ltb := tb
	if s.LinkTable != nil {
		ltb = s.LinkTable
	}
	lower, err := ltb.lookupLink(s.LinkIndex, s.Link)
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
