// Devices stacked on other devices, the code the stacked kinds share: the
// upper/lower and master links between devices (netdev_upper_dev_link,
// netdev_master_upper_dev_link, do_set_master; net/core/dev.c,
// net/core/rtnetlink.c), the lower device's carrier and rx flags passed
// through a vlan or macvlan, and the dellinks that queue a stacked device.
// The drivers are in veth.go, macvlan.go, vlan.go, bond.go, vrf.go and
// bridge.go.

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

// sign is the count change that follows a flag: +1 on, -1 off.
func sign(up bool) int {
	if up {
		return 1
	}
	return -1
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
		if d.state != regUnregistering && !d.moving {
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
		// A device moving to another namespace keeps them.
		if len(d.uppers) > 0 && !d.moving {
			var q []*Device
			for _, u := range slices.Clone(d.uppers) {
				if u.state == regRegistered {
					u.ops.dellink(t, u, &q)
				}
			}
			d.tbl.s.UnregisterMany(t, q)
		}
		vxlanLowerGone(t, d)
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
