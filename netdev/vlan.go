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

// The VLAN protocols (IFLA_VLAN_PROTOCOL, host order).
const (
	VlanProto8021Q  = 0x8100 // ETH_P_8021Q
	VlanProto8021AD = 0x88a8 // ETH_P_8021AD
)

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

// validate is vlan_validate: the protocol, the id and the flags are
// checked before the lower device is looked up.
func (s Vlan) validate(*Table) error {
	if s.NoData {
		return errno.New(syscall.EINVAL, "8021q: VLAN properties not specified")
	}
	return vlanValidate(s.proto(), s.ID, s.Settings.Flags)
}

// proto is the protocol the request sends: Settings.Protocol, else
// Protocol unless 0 (nil: none, 802.1Q).
func (s Vlan) proto() *uint16 {
	if s.Settings.Protocol == nil && s.Protocol != 0 {
		return &s.Protocol
	}
	return s.Settings.Protocol
}

// vlanValidate is vlan_validate's checks of a request's protocol (nil:
// not sent), id and flags.
//
// Kernel: vlan_validate (net/8021q/vlan_netlink.c).
func vlanValidate(proto *uint16, id uint16, f *VlanFlags) error {
	if proto != nil && *proto != VlanProto8021Q && *proto != VlanProto8021AD {
		return errno.New(syscall.EPROTONOSUPPORT, "8021q: Invalid VLAN protocol")
	}
	if id > VlanMaxID {
		return errno.New(syscall.ERANGE, "8021q: Invalid VLAN id")
	}
	if f != nil && f.Flags&f.Mask&^vlanFlagsKnown != 0 {
		return errno.New(syscall.EINVAL, "8021q: Invalid VLAN flags")
	}
	return nil
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
	// vlan_newlink: no IFLA_VLAN_ID; no IFLA_LINK, or one naming no
	// device.
	if s.NoID {
		return nil, errno.New(syscall.EINVAL, "8021q: VLAN id not specified")
	}
	if s.LinkIndex == 0 && s.Link == "" {
		return nil, errno.New(syscall.EINVAL, "8021q: link not specified")
	}
	lower, err := ltb.Find(s.LinkIndex, s.Link)
	if err != nil {
		if s.LinkIndex == 0 {
			return nil, err // a Go caller's name: "Cannot find device"
		}
		return nil, errno.New(syscall.ENODEV, "8021q: link does not exist")
	}
	proto := uint16(VlanProto8021Q)
	if p := s.proto(); p != nil {
		proto = *p
	}
	// vlan_check_real_dev: loopback and vrf are VLAN-challenged; a vid may
	// be used once per protocol on a lower device.
	if lower.isLoopback() || lower.kindIs("vrf") {
		return nil, errno.New(syscall.EOPNOTSUPP, "8021q: VLANs not supported on device")
	}
	for _, u := range lower.uppers {
		if u.kindIs("vlan") && u.priv.vlan.id == s.ID && u.priv.vlan.proto == proto {
			return nil, errno.New(syscall.EEXIST, "8021q: VLAN device already exists")
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
	d.priv.vlan = &vlanState{id: s.ID, proto: proto, flags: VlanFlagReorderHdr}
	// vlan_newlink: vlan_changelink before register_vlan_dev.
	if err := d.priv.vlan.apply(s.Settings); err != nil {
		return nil, err
	}
	return []*Device{d}, nil
}
