// Bonding masters: modes, enslaving and releasing slaves, the active slave
// and the address lists that follow the bond (drivers/net/bonding/bond_main.c,
// bond_netlink.c, include/net/bonding.h).

package netdev

import (
	"slices"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

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
		if b.priv.bond.p.Mode.usesPrimary() {
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

// bondSyncTargets returns the slaves that carry the bond's address lists:
// the active slave in modes with a primary, every slave otherwise.
func bondSyncTargets(b *Device) []*Device {
	if !b.priv.bond.p.Mode.usesPrimary() {
		return b.slaves
	}
	if s := bondActiveSlave(b); s != nil {
		return []*Device{s}
	}
	return nil
}

// bondActiveSlave returns the current active slave of a primary-using bond:
// the slave an active_slave request chose, else the primary slave, else
// the slave of the highest priority (the first of equals) whose MII link
// is up, else the first whose link is coming back; each of them up
// (bond_select_active_slave: bond_find_best_slave,
// bond_choose_primary_or_current).
func bondActiveSlave(b *Device) *Device {
	usable := func(s *Device) bool {
		sl := s.priv.bondSlave
		return s.master == b && s.IsUp() && (sl == nil || sl.link != BondLinkDown)
	}
	if bs := b.priv.bond; bs != nil {
		for _, s := range []*Device{bs.active, bs.primary} {
			if s != nil && usable(s) {
				return s
			}
		}
	}
	var best, back *Device
	for _, s := range b.slaves {
		if !usable(s) {
			continue
		}
		sl := s.priv.bondSlave
		switch {
		case sl == nil || sl.link == BondLinkUp:
			if best == nil || best.priv.bondSlave != nil && sl != nil && sl.prio > best.priv.bondSlave.prio {
				best = s
			}
		case back == nil:
			back = s
		}
	}
	if best != nil {
		return best
	}
	return back
}

// bondReselect runs change, which may change bond b's active slave, and
// moves the bond's address lists to the new active slave when it did and
// the bond is up (bond_change_active_slave's bond_hw_addr_swap).
func bondReselect(t *sim.Task, b *Device, change func()) {
	old := bondSyncTargets(b)
	change()
	if !b.IsUp() || !b.priv.bond.p.Mode.usesPrimary() {
		return
	}
	now := bondSyncTargets(b)
	if len(old) == len(now) && (len(old) == 0 || old[0] == now[0]) {
		return
	}
	for _, o := range old {
		UCUnsync(t, o, b)
		MCUnsync(t, o, b)
	}
	for _, n := range now {
		_ = UCSync(t, n, b)
		_ = MCSync(t, n, b)
	}
}

func (s Bond) create(t *sim.Task, tb *Table) ([]*Device, error) {
	name, err := tb.checkLinkName(s.Name, "bond", nil)
	if err != nil {
		return nil, err
	}
	d, err := tb.newDevice(name, bondOps, s.Attrs, FlagBroadcast|FlagMulticast|FlagMaster, ethDataLen, ethMinMTU, ethMaxMTU)
	if err != nil {
		return nil, err
	}
	d.uniFlt = true
	// bond_newlink: bond_changelink on the new bond, before it is
	// registered.
	set := s.Settings
	if set.Mode == nil && s.Mode != 0 {
		m := s.Mode
		set.Mode = &m
	}
	d.priv.bond = newBondState()
	if err := d.priv.bond.apply(tb, d, set); err != nil {
		return nil, err
	}
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
	slave.priv.bondSlave = newBondSlave(b, slave)
	b.slaves = append(b.slaves, slave)
	if bs := b.priv.bond; bs.p.Mode.usesPrimary() && bs.primaryName != "" && bs.primaryName == slave.name {
		bs.primary = slave
	}
	if !b.priv.bond.p.Mode.usesPrimary() {
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
	slave.priv.bondSlave = nil
	if bs := b.priv.bond; bs.active == slave || bs.primary == slave {
		if bs.active == slave {
			bs.active = nil
		}
		if bs.primary == slave {
			bs.primary = nil
		}
	}
	if !b.priv.bond.p.Mode.usesPrimary() || wasActive {
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
