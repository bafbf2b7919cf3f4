// Bringing devices up and down, carrier and operstate: dev_change_flags,
// __dev_open, __dev_close_many and linkwatch's operstate (net/core/dev.c,
// net/core/link_watch.c).

package netdev

import (
	"slices"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// SetUp brings the device administratively up (up=true) or down. Bringing
// up a device that is up, or down one that is down, changes nothing.
//
// Kernel: dev_change_flags with IFF_UP toggled: __dev_change_flags (which
// reloads the rx mode first), __dev_open or __dev_close, then
// __dev_notify_flags (NETDEV_UP / NETDEV_DOWN).
func (d *Device) SetUp(t *sim.Task, up bool) error { return d.setUp(t, up, 0, nil) }

// setUp is SetUp for a request that changed the flags of changed as well,
// which its RTM_NEWLINK reports with IFF_UP. rx, if not nil, runs once the
// device is open or closed and before that RTM_NEWLINK: the request's
// promiscuity and allmulti references, which __dev_change_flags takes
// after __dev_open or __dev_close and before __dev_notify_flags.
func (d *Device) setUp(t *sim.Task, up bool, changed Flags, rx func()) error {
	defer t.Frame("dev_change_flags")()
	if d.state != regRegistered {
		return errno.Errorf(syscall.ENODEV, "Device \"%s\" is being unregistered", d.name)
	}
	if d.IsUp() == up {
		return nil
	}
	d.setRxMode(t)
	if up {
		s := d.tbl.s
		s.linkwatchHold()
		defer s.linkwatchRelease(t)
		if err := d.open(t); err != nil {
			return err
		}
		if rx != nil {
			rx()
		}
		// __dev_notify_flags: the RTM_NEWLINK, then NETDEV_UP.
		s.linkMsg(t, d, false, uint32(FlagUp|changed), false)
		_ = s.notify(t, EventUp, d)
		return nil
	}
	d.tbl.s.closeMany(t, []*Device{d}, false, uint32(FlagUp|changed), rx)
	return nil
}

// open brings d up without the NETDEV_UP notification.
//
// Kernel: __dev_open (net/core/dev.c).
func (d *Device) open(t *sim.Task) error {
	defer t.Frame("__dev_open")()
	if err := d.tbl.s.notify(t, EventPreUp, d); err != nil {
		return err
	}
	if d.ops.open != nil {
		if err := d.ops.open(t, d); err != nil {
			return err
		}
	}
	d.flags |= FlagUp
	d.qdisc = "noqueue"
	if d.ops.qdisc != "" {
		d.qdisc = d.ops.qdisc
	}
	d.setRxMode(t)
	// A carrier that ndo_open turns on (veth_open: the device's, then its
	// peer's) reaches the operstate through linkwatch only, after
	// NETDEV_UP: addrconf then finds the link not ready and configures it
	// on the NETDEV_CHANGE that follows. The devices stacked on d (and
	// its master) take its carrier in their NETDEV_UP handlers
	// (netif_stacked_transfer_operstate, br_port_carrier_check), queued
	// after d's and its peer's.
	stale := d.noCarrierOperState()
	if d.setCarrier() {
		// Until linkwatch runs, the device keeps the operstate linkwatch
		// gave it while it was down without carrier, which its
		// RTM_NEWLINK reports (and so without IFF_RUNNING).
		d.operState = stale
		d.tbl.s.linkwatchFire(d)
	} else {
		d.refreshCarrier(t, false)
	}
	d.fireFollowers()
	return nil
}

// noCarrierOperState is the operstate linkwatch gives d while d has no
// carrier: LOWERLAYERDOWN when its iflink is another device (a vlan's or
// macvlan's lower, a veth's peer) without carrier either, else DOWN.
//
// Kernel: default_operstate (net/core/link_watch.c).
func (d *Device) noCarrierOperState() OperState {
	l := d.link
	if l == nil {
		l = d.peer
	}
	if l != nil && !l.kcarrier {
		return OperLowerLayerDown
	}
	return OperDown
}

// setCarrier recomputes d's carrier bit alone, as netif_carrier_on/off
// set it, leaving the operstate to linkwatch. It reports whether the
// kernel's carrier bit changed: whether netif_carrier_on/off queued a
// linkwatch event.
func (d *Device) setCarrier() bool {
	oldK := d.kcarrier
	d.carrier = d.carrierNow()
	d.countCarrier(d.carrier)
	return oldK != d.kcarrier
}

// fireFollowers sets the carrier of the devices whose carrier follows d's
// (its veth peer, the vlans and macvlans on it, its master) and queues a
// linkwatch event for each whose carrier changed.
func (d *Device) fireFollowers() {
	s := d.tbl.s
	if p := d.peer; p != nil && p.state == regRegistered && p.setCarrier() {
		s.linkwatchFire(p)
	}
	for _, u := range d.uppers {
		if u.state == regRegistered && u.setCarrier() {
			s.linkwatchFire(u)
		}
	}
	if m := d.master; m != nil && m.state == regRegistered && m.setCarrier() {
		s.linkwatchFire(m)
	}
}

// carrierEvent follows a change of what d's carrier depends on, seen by a
// notifier (a bridge's port coming up or losing carrier): under a request
// that runs linkwatch when it ends, a change of the carrier bit is queued
// there (netif_carrier_on/off → linkwatch_fire_event; a bridge's
// br_port_state_selection may have queued it already); otherwise, or if
// no change is queued, d's carrier and operstate are refreshed at once.
func (d *Device) carrierEvent(t *sim.Task) {
	if s := d.tbl.s; s.lwHold > 0 {
		if d.setCarrier() {
			s.linkwatchFire(d)
		}
		if d.lwPending {
			return
		}
	}
	if d.refreshCarrier(t, true) {
		d.carrierChangedForOthers(t)
	}
}

// linkwatchFire queues d's carrier change for the linkwatch work, once.
//
// Kernel: linkwatch_fire_event → linkwatch_add_event (net/core/link_watch.c):
// a device already on the list keeps its place.
func (s *Stack) linkwatchFire(d *Device) {
	if d.lwPending {
		return
	}
	d.lwPending = true
	s.lwQueue = append(s.lwQueue, d)
}

// linkwatchHold marks a request under way whose carrier changes the
// linkwatch work handles when it ends (see linkwatchRelease).
func (s *Stack) linkwatchHold() { s.lwHold++ }

// linkwatchRelease ends a linkwatchHold; the last one runs the linkwatch
// work on the queued devices.
func (s *Stack) linkwatchRelease(t *sim.Task) {
	if s.lwHold--; s.lwHold == 0 {
		s.linkwatchRun(t)
	}
}

// linkwatchRun handles the queued carrier changes in the order they were
// queued: each device takes its operstate and, if up and changed, sends
// NETDEV_CHANGE; the devices following it whose carrier changed in turn
// are queued after the others.
//
// Kernel: __linkwatch_run_queue → linkwatch_do_dev (rfc2863_policy,
// netdev_state_change) (net/core/link_watch.c); the work runs after the
// request that queued the events, under RTNL.
func (s *Stack) linkwatchRun(t *sim.Task) {
	defer t.Frame("__linkwatch_run_queue")()
	s.lwHold++
	for len(s.lwQueue) > 0 {
		d := s.lwQueue[0]
		s.lwQueue[0] = nil
		s.lwQueue = s.lwQueue[1:]
		d.lwPending = false
		if d.state != regRegistered {
			continue
		}
		d.refreshCarrier(t, true)
		d.fireFollowers()
	}
	s.lwQueue = nil
	s.lwHold--
}

// closeMany takes the devices that are up down, as one batch, and sends
// NETDEV_DOWN for each.
//
// Kernel: dev_close_many → __dev_close_many (net/core/dev.c): NETDEV_GOING_DOWN
// for each, one synchronize_net in dev_deactivate_many, ndo_stop for each,
// then NETDEV_DOWN for each.
func (tb *Table) closeMany(t *sim.Task, devs []*Device) {
	tb.s.closeMany(t, devs, false, uint32(FlagUp|flagRunning), nil)
}

// flagRunning is IFF_RUNNING, which dev_close_many reports as changed with
// IFF_UP.
const flagRunning = Flags(0x40)

// closeMany is dev_close_many for devices of any table. Devices being
// dismantled (unregistered) skip dev_deactivate_many's synchronize_net: the
// 5.x unregister path waits for grace periods of its own. Each device's
// RTM_NEWLINK, with ifi_change change, precedes its NETDEV_DOWN; rx, if not
// nil, runs after the devices are stopped and before the first RTM_NEWLINK
// (see setUp).
func (s *Stack) closeMany(t *sim.Task, devs []*Device, dismantle bool, change uint32, rx func()) {
	defer t.Frame("dev_close_many")()
	var up []*Device
	for _, d := range devs {
		if d.IsUp() {
			up = append(up, d)
		}
	}
	if len(up) == 0 {
		return
	}
	if !dismantle {
		s.linkwatchHold()
		defer s.linkwatchRelease(t)
	}
	for _, d := range up {
		_ = s.notify(t, EventGoingDown, d)
	}
	if !dismantle {
		s.w.RCU().SynchronizeExpedited(t) // dev_deactivate_many
	}
	for _, d := range up {
		if d.ops.stop != nil {
			d.ops.stop(t, d)
		}
		d.flags &^= FlagUp
		if !dismantle && d.setCarrier() {
			s.linkwatchFire(d) // veth_close: the device's carrier, then its peer's
		}
		d.refreshCarrier(t, false)
	}
	if rx != nil {
		rx()
	}
	for _, d := range up {
		s.linkMsg(t, d, false, change, false)
		_ = s.notify(t, EventDown, d)
		if dismantle {
			d.carrierChangedForOthers(t)
		} else {
			// The peer's and the stacked devices' carrier changes wait
			// for linkwatch, as at open.
			d.fireFollowers()
		}
	}
}

// refreshCarrier recomputes d's carrier and operstate and, with notify,
// sends NETDEV_CHANGE when the carrier or operstate of an up device changed
// (opening and closing send NETDEV_UP and NETDEV_DOWN instead).
//
// Kernel: netif_carrier_on/off, netif_stacked_transfer_operstate and
// linkwatch's rfc2863_policy / default_operstate (net/core/link_watch.c):
// without carrier a device whose iflink is another device (a vlan's or
// macvlan's lower, a veth's peer) is LOWERLAYERDOWN, others DOWN.
//
// It reports whether the carrier or operstate changed.
func (d *Device) refreshCarrier(t *sim.Task, notify bool) bool {
	oldOper, oldCarrier := d.operState, d.carrier
	d.carrier = d.carrierNow()
	d.countCarrier(d.carrier)
	switch {
	case !d.IsUp():
		d.operState = OperDown
	case d.carrier && d.kindIs("bridge") && d.carrierChanges == 0:
		// No carrier change has reached linkwatch (rfc2863_policy), so
		// the operstate is still the one a new device has: a bridge
		// whose ports were never selected (see portStateSelection).
		d.operState = OperUnknown
	case d.carrier:
		d.operState = d.ops.operUp
	case d.iflinkListed():
		d.operState = OperLowerLayerDown
	default:
		d.operState = OperDown
	}
	changed := oldOper != d.operState || oldCarrier != d.carrier
	if notify && d.IsUp() && changed {
		// netdev_state_change: NETDEV_CHANGE, then the RTM_NEWLINK.
		_ = d.tbl.s.notify(t, EventChange, d)
		d.tbl.s.linkMsg(t, d, false, 0, false)
	}
	return changed
}

// carrierChangedForOthers refreshes the devices whose carrier follows d's:
// a veth's peer, the vlans and macvlans on d, and d's bond master; and, in
// turn, the devices that follow one of those that changed (the vlans on a
// bond whose last slave lost carrier).
func (d *Device) carrierChangedForOthers(t *sim.Task) {
	if p := d.peer; p != nil && p.state == regRegistered {
		if p.refreshCarrier(t, true) {
			p.carrierChangedForOthers(t)
		}
	}
	for _, u := range slices.Clone(d.uppers) {
		if u.refreshCarrier(t, true) {
			u.carrierChangedForOthers(t)
		}
	}
	if m := d.master; m != nil {
		if m.refreshCarrier(t, true) {
			m.carrierChangedForOthers(t)
		}
	}
}

// SetMTU changes the device's MTU. mtu is read as IFLA_MTU carries it (see
// NetlinkMTU): 2^32 is an MTU of 0.
//
// Kernel: dev_set_mtu_ext (net/core/dev.c): dev_validate_mtu's extack
// messages, NETDEV_CHANGEMTU; vlan_device_event and macvlan_device_event then
// clamp the devices stacked on it.
func (d *Device) SetMTU(t *sim.Task, mtu int) error {
	mtu = NetlinkMTU(mtu)
	if mtu == d.mtu {
		return nil
	}
	if err := d.checkMTU(mtu); err != nil {
		return err
	}
	if d.ops.changeMTU != nil {
		if err := d.ops.changeMTU(d, mtu); err != nil {
			return err
		}
	}
	d.mtu = mtu
	_ = d.tbl.s.notify(t, EventChangeMTU, d)
	return nil
}

// SetTxQueueLen sets the device's transmit queue length. n is sent as the
// u32 IFLA_TXQLEN: any value is accepted, and -1 is 2^32-1.
//
// Kernel: dev_change_tx_queue_len (net/core/dev.c).
func (d *Device) SetTxQueueLen(t *sim.Task, n int) {
	old := d.txqlen
	d.txqlen = int(uint32(n))
	if d.txqlen != old {
		// NETDEV_CHANGE_TX_QUEUE_LEN, which only rtnetlink_event acts on.
		d.tbl.s.linkMsg(t, d, false, 0, false)
	}
}

// IFALIASZ is the size of a device alias buffer including the terminating
// NUL: aliases have at most IFALIASZ-1 = 255 bytes.
const IFALIASZ = 256

// SetAlias sets the device's alias (ifalias, `ip link set DEV alias NAME`);
// an empty alias clears it. An alias is kept up to its first NUL, as
// dev_get_alias reads it back.
//
// Kernel: dev_set_alias (net/core/dev.c); an IFLA_IFALIAS longer than
// IFALIASZ-1 bytes fails the netlink policy (ifla_policy) with ERANGE.
func (d *Device) SetAlias(t *sim.Task, alias string) error {
	if len(alias) >= IFALIASZ {
		return errno.New(syscall.ERANGE, "Attribute failed policy validation")
	}
	d.alias = nlaString(alias)
	return nil
}

// SetGroup puts the device in group g.
//
// Kernel: dev_set_group (net/core/dev.c).
func (d *Device) SetGroup(t *sim.Task, g uint32) { d.group = g }

// SetName renames the device, up or down (Linux 6.x; 5.x refused a
// device that is up with EBUSY). Its IPv4 addresses take the new name as
// their labels (inetdev_changename).
//
// Kernel: dev_change_name (net/core/dev.c): EEXIST if the name is taken,
// NETDEV_CHANGENAME.
func (d *Device) SetName(t *sim.Task, name string) error {
	if name = IfNameAttr(name); name == d.name {
		return nil
	}
	n, err := d.tbl.checkLinkName(name, "", nil)
	if err != nil {
		return err
	}
	d.tbl.namesMu.Lock()
	delete(d.tbl.byName, d.name)
	d.name = n
	d.tbl.byName[n] = d
	d.tbl.namesMu.Unlock()
	_ = d.tbl.s.notify(t, EventChangeName, d)
	return nil
}

// SetAddr changes the device's hardware address. A macvlan or vlan that is
// up moves its unicast entry on the lower device; a macvlan refuses an
// address its port already uses (EADDRINUSE), and a passthru macvlan sets
// its lower's address and takes it from there. Setting the address the
// device already has changes nothing in the driver but still makes the
// address the user's (NET_ADDR_SET: a bridge's stops following its ports',
// a vlan's its lower's) and still announces NETDEV_CHANGEADDR.
//
// Kernel: netif_set_mac_address (net/core/dev.c), which calls
// ndo_set_mac_address only for a new address, NETDEV_CHANGEADDR;
// macvlan_set_mac_address (drivers/net/macvlan.c).
func (d *Device) SetAddr(t *sim.Task, a MAC) error {
	if d.isLoopback() {
		return errno.New(syscall.EOPNOTSUPP, "Device does not support changing its address")
	}
	if d.ops.noSetAddr {
		// netif_set_mac_address: no ndo_set_mac_address.
		return errno.New(syscall.EOPNOTSUPP, "")
	}
	if a != d.addr {
		if err := d.setMACAddress(t, a); err != nil {
			return err
		}
	}
	d.priv.addrRandom, d.priv.addrStolen = false, false // NET_ADDR_SET
	_ = d.tbl.s.notify(t, EventChangeAddr, d)
	return nil
}

// setMACAddress is the driver's part of an address change to a new
// address, which checks that the address is a valid unicast one: the
// address a device already has is not checked, so a bridge left with the
// all-zero address by its last port can be given it.
//
// Kernel: ndo_set_mac_address: eth_mac_addr (eth_prepare_mac_addr_change,
// is_valid_ether_addr), br_set_mac_address (net/bridge/br_device.c),
// macvlan_set_mac_address (drivers/net/macvlan.c), vlan_dev_set_mac_address
// (net/8021q/vlan_dev.c).
func (d *Device) setMACAddress(t *sim.Task, a MAC) error {
	if a.IsMulticast() {
		return errno.New(syscall.EADDRNOTAVAIL, "Cannot assign a multicast address")
	}
	if a == (MAC{}) {
		return errno.New(syscall.EADDRNOTAVAIL, "Cannot assign the all-zero address")
	}
	old := d.addr
	if d.kindIs("macvlan") {
		return macvlanSetAddr(t, d, a)
	}
	if d.link != nil && d.IsUp() && (old != d.link.addr || a != d.link.addr) {
		// vlan_dev_set_mac_address: move the filter entry on the lower
		// device.
		if a != d.link.addr {
			if err := d.link.UCAdd(t, a); err != nil {
				return err
			}
		}
		if old != d.link.addr {
			_ = d.link.UCDel(t, old)
		}
	}
	d.addr = a
	return nil
}

func (d *Device) kindIs(k string) bool { return d.ops.kind == k }

// carrierNow is d's carrier as its kind computes it (while up).
func (d *Device) carrierNow() bool { return d.ops.carrierOf == nil || d.ops.carrierOf(d) }

// countCarrier follows the kernel's carrier bit and counts its changes;
// c is carrierNow. A veth has carrier only while both ends are up
// (veth_open, veth_close); the other kinds' carrier is c.
func (d *Device) countCarrier(c bool) {
	if d.kindIs("veth") && !d.IsUp() {
		c = false
	}
	if c != d.kcarrier {
		d.kcarrier = c
		d.carrierChanges++
	}
}

// UserFlags are the flags a user changes with ChangeFlags: the ones the
// device keeps as given (IFF_NOARP, IFF_MULTICAST), the ones that count
// (IFF_PROMISC, IFF_ALLMULTI, each a reference of the user's on the
// device's count) and IFF_UP.
const UserFlags = FlagUp | FlagNoARP | FlagMulticast | FlagPromisc | FlagAllMulti

// ChangeFlags sets the flags of mask (a subset of UserFlags) to their
// values in flags, the others unchanged: the kept flags first, then up or
// down, then the user's promiscuity and allmulti references. An error of
// bringing the device up leaves the kept flags changed and the references
// as they were.
//
// Kernel: dev_change_flags with rtnl_dev_combine_flags (net/core/rtnetlink.c)
// → __dev_change_flags, __dev_notify_flags (net/core/dev.c).
func (d *Device) ChangeFlags(t *sim.Task, flags, mask Flags) error {
	defer t.Frame("dev_change_flags")()
	if d.state != regRegistered {
		return errno.Errorf(syscall.ENODEV, "Device \"%s\" is being unregistered", d.name)
	}
	flags = flags&mask | d.Flags()&^mask
	const kept = FlagNoARP | FlagMulticast
	old := d.flags
	d.flags = flags&kept | d.flags&^kept
	if (old^d.flags)&FlagMulticast != 0 && d.ops.changeRxFlags != nil && d.IsUp() {
		d.ops.changeRxFlags(t, d, FlagMulticast)
	}
	// What dev_change_flags reports as changed: the flags and the user's
	// promiscuity and allmulti (gflags).
	changed := (old^d.flags)&kept | (flags^d.gflags)&(FlagPromisc|FlagAllMulti)
	rx := func() {
		if (flags^d.gflags)&FlagPromisc != 0 {
			// __dev_set_promiscuity without notify: the request's
			// RTM_NEWLINK reports it.
			d.gflags ^= FlagPromisc
			if d.setPromiscuity(t, sign(flags&FlagPromisc != 0)) {
				d.setRxMode(t)
			}
		}
		if (flags^d.gflags)&FlagAllMulti != 0 {
			d.gflags ^= FlagAllMulti
			d.SetAllmulti(t, sign(flags&FlagAllMulti != 0))
		}
	}
	if up := flags&FlagUp != 0; up != d.IsUp() {
		// The references are taken between opening (or closing) and
		// the RTM_NEWLINK, which reports them.
		if err := d.setUp(t, up, changed, rx); err != nil {
			return err
		}
		changed = 0 // announced with IFF_UP
	} else {
		d.setRxMode(t)
		rx()
	}
	if changed != 0 {
		d.tbl.s.linkMsg(t, d, false, uint32(changed), false) // __dev_notify_flags
	}
	if d.IsUp() && (old^d.flags)&kept != 0 {
		_ = d.tbl.s.notify(t, EventChange, d)
	}
	return nil
}
