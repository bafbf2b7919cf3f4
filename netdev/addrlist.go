// The device-level hardware address operations of net/core/dev_addr_lists.c
// (dev_uc_add, dev_mc_sync, ...) and the rx-mode reload that each change
// triggers (__dev_set_rx_mode, net/core/dev.c). The list operations
// themselves are package hwaddr's.

package netdev

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/sim"
)

// UCAdd adds a reference to unicast address a on d and reloads d's rx mode.
//
// Kernel: dev_uc_add (net/core/dev_addr_lists.c).
func (d *Device) UCAdd(t *sim.Task, a MAC) error {
	defer t.Frame("dev_uc_add")()
	return d.reloadRxModeOn(t, d.uc.Add(t, a, hwaddr.TypeUnicast))
}

// UCAddExcl adds unicast address a to d unless it is there already (EEXIST).
//
// Kernel: dev_uc_add_excl (net/core/dev_addr_lists.c).
func (d *Device) UCAddExcl(t *sim.Task, a MAC) error {
	return d.reloadRxModeOn(t, d.uc.AddExcl(t, a, hwaddr.TypeUnicast))
}

// UCDel drops a reference to unicast address a on d (ENOENT if absent).
//
// Kernel: dev_uc_del (net/core/dev_addr_lists.c).
func (d *Device) UCDel(t *sim.Task, a MAC) error {
	defer t.Frame("dev_uc_del")()
	return d.reloadRxModeOn(t, d.uc.Del(t, a, hwaddr.TypeUnicast))
}

// MCAdd adds a reference to multicast address a on d and reloads d's rx mode.
//
// Kernel: dev_mc_add (net/core/dev_addr_lists.c).
func (d *Device) MCAdd(t *sim.Task, a MAC) error {
	defer t.Frame("dev_mc_add")()
	return d.reloadRxModeOn(t, d.mc.Add(t, a, hwaddr.TypeMulticast))
}

// MCAddExcl adds multicast address a to d unless it is there already (EEXIST).
//
// Kernel: dev_mc_add_excl (net/core/dev_addr_lists.c).
func (d *Device) MCAddExcl(t *sim.Task, a MAC) error {
	return d.reloadRxModeOn(t, d.mc.AddExcl(t, a, hwaddr.TypeMulticast))
}

// MCAddGlobal adds the single global reference to multicast address a.
//
// Kernel: dev_mc_add_global (net/core/dev_addr_lists.c).
func (d *Device) MCAddGlobal(t *sim.Task, a MAC) error {
	return d.reloadRxModeOn(t, d.mc.AddGlobal(t, a, hwaddr.TypeMulticast))
}

// MCDel drops a reference to multicast address a on d (ENOENT if absent).
//
// Kernel: dev_mc_del (net/core/dev_addr_lists.c).
func (d *Device) MCDel(t *sim.Task, a MAC) error {
	defer t.Frame("dev_mc_del")()
	return d.reloadRxModeOn(t, d.mc.Del(t, a, hwaddr.TypeMulticast))
}

// MCDelGlobal drops the global reference to multicast address a.
//
// Kernel: dev_mc_del_global (net/core/dev_addr_lists.c).
func (d *Device) MCDelGlobal(t *sim.Task, a MAC) error {
	return d.reloadRxModeOn(t, d.mc.DelGlobal(t, a, hwaddr.TypeMulticast))
}

// UCSync pushes from's unicast list to its lower device to, then reloads to's
// rx mode. Used by vlan and macvlan.
//
// Kernel: dev_uc_sync (net/core/dev_addr_lists.c).
func UCSync(t *sim.Task, to, from *Device) error {
	defer t.Frame("dev_uc_sync")()
	return to.reloadRxModeOn(t, hwaddr.Sync(t, to.uc, from.uc))
}

// MCSync is UCSync for the multicast lists.
//
// Kernel: dev_mc_sync (net/core/dev_addr_lists.c).
func MCSync(t *sim.Task, to, from *Device) error {
	defer t.Frame("dev_mc_sync")()
	return to.reloadRxModeOn(t, hwaddr.Sync(t, to.mc, from.mc))
}

// UCSyncMultiple pushes from's unicast list to one of several lower devices
// (a bond's slaves), then reloads to's rx mode.
//
// Kernel: dev_uc_sync_multiple (net/core/dev_addr_lists.c).
func UCSyncMultiple(t *sim.Task, to, from *Device) error {
	defer t.Frame("dev_uc_sync_multiple")()
	return to.reloadRxModeOn(t, hwaddr.SyncMultiple(t, to.uc, from.uc))
}

// MCSyncMultiple is UCSyncMultiple for the multicast lists.
//
// Kernel: dev_mc_sync_multiple (net/core/dev_addr_lists.c).
func MCSyncMultiple(t *sim.Task, to, from *Device) error {
	defer t.Frame("dev_mc_sync_multiple")()
	return to.reloadRxModeOn(t, hwaddr.SyncMultiple(t, to.mc, from.mc))
}

// reloadRxModeOn reloads d's rx mode unless err, the outcome of the list
// operation just done, is set: the kernel's "if (!err) __dev_set_rx_mode(dev)".
func (d *Device) reloadRxModeOn(t *sim.Task, err error) error {
	if err != nil {
		return err
	}
	d.setRxMode(t)
	return nil
}

// UCUnsync removes from to's unicast list what from had pushed there, then
// reloads to's rx mode.
//
// Kernel: dev_uc_unsync (net/core/dev_addr_lists.c).
func UCUnsync(t *sim.Task, to, from *Device) {
	defer t.Frame("dev_uc_unsync")()
	hwaddr.Unsync(t, to.uc, from.uc)
	to.setRxMode(t)
}

// MCUnsync is UCUnsync for the multicast lists.
//
// Kernel: dev_mc_unsync (net/core/dev_addr_lists.c).
func MCUnsync(t *sim.Task, to, from *Device) {
	defer t.Frame("dev_mc_unsync")()
	hwaddr.Unsync(t, to.mc, from.mc)
	to.setRxMode(t)
}

// setRxMode reloads d's receive filter: nothing while d is down; otherwise
// unicast promiscuity for devices that cannot filter unicast addresses,
// then the driver's ndo_set_rx_mode (where vlans, macvlans and bonds push
// their lists to their lower devices).
//
// Kernel: __dev_set_rx_mode (net/core/dev.c).
func (d *Device) setRxMode(t *sim.Task) {
	defer t.Frame("__dev_set_rx_mode")()
	if !d.IsUp() || d.state != regRegistered {
		return
	}
	if !d.uniFlt {
		switch {
		case d.uc.Len() > 0 && !d.ucPromisc:
			d.setPromiscuity(t, 1)
			d.ucPromisc = true
		case d.uc.Len() == 0 && d.ucPromisc:
			d.setPromiscuity(t, -1)
			d.ucPromisc = false
		}
	}
	if d.ops.setRxMode != nil {
		t.Charge(sim.RxModeSync, 1)
		d.ops.setRxMode(t, d)
	}
}

// SetPromiscuity changes d's promiscuity count by inc, telling the driver
// when IFF_PROMISC flips (a vlan, macvlan or bond passes it down), and
// announces d with an RTM_NEWLINK whose ifi_change is IFF_PROMISC, flipped
// or not.
//
// Kernel: dev_set_promiscuity → __dev_set_promiscuity with notify
// (__dev_notify_flags) (net/core/dev.c).
func (d *Device) SetPromiscuity(t *sim.Task, inc int) {
	flipped := d.setPromiscuity(t, inc)
	d.tbl.s.linkMsg(t, d, false, uint32(FlagPromisc), false)
	if flipped {
		d.setRxMode(t)
	}
}

// setPromiscuity is __dev_set_promiscuity: it changes the count and tells
// the driver, and reports whether IFF_PROMISC flipped; the rx-mode reload is
// the caller's (setRxMode, which calls it, is that reload).
func (d *Device) setPromiscuity(t *sim.Task, inc int) (flipped bool) {
	was := d.promiscCnt > 0
	d.promiscCnt = max(d.promiscCnt+inc, 0)
	if now := d.promiscCnt > 0; now != was {
		if d.ops.changeRxFlags != nil && d.IsUp() {
			d.ops.changeRxFlags(t, d, FlagPromisc)
		}
		return true
	}
	return false
}

// SetAllmulti changes d's allmulti count by inc.
//
// Kernel: dev_set_allmulti (net/core/dev.c).
func (d *Device) SetAllmulti(t *sim.Task, inc int) {
	was := d.allmulti > 0
	d.allmulti = max(d.allmulti+inc, 0)
	if now := d.allmulti > 0; now != was {
		if d.ops.changeRxFlags != nil && d.IsUp() {
			d.ops.changeRxFlags(t, d, FlagAllMulti)
		}
		d.setRxMode(t)
	}
}

// MCAddUser is a user's SIOCADDMULTI on d: the global reference to
// multicast address a, on a device with a receive filter (EINVAL without
// ndo_set_rx_mode, as on loopback).
//
// Kernel: dev_ifsioc SIOCADDMULTI → dev_mc_add_global (net/core/dev_ioctl.c).
func (d *Device) MCAddUser(t *sim.Task, a MAC) error {
	if d.ops.setRxMode == nil {
		return errno.New(syscall.EINVAL, "")
	}
	return d.MCAddGlobal(t, a)
}

// MCDelUser is a user's SIOCDELMULTI on d (ENOENT if a has no global
// reference).
//
// Kernel: dev_ifsioc SIOCDELMULTI → dev_mc_del_global (net/core/dev_ioctl.c).
func (d *Device) MCDelUser(t *sim.Task, a MAC) error {
	if d.ops.setRxMode == nil {
		return errno.New(syscall.EINVAL, "")
	}
	return d.MCDelGlobal(t, a)
}
