// A bond port's state and its IFLA_INFO_SLAVE_DATA: the slave's backup
// state, MII link state, permanent address, queue id and priority, what
// bond_slave_changelink sets and bond_fill_slave_info reports
// (drivers/net/bonding/bond_netlink.c, bond_main.c: bond_enslave;
// bond_options.c: bond_option_queue_id_set, bond_option_prio_set;
// include/net/bonding.h).

package netdev

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// Bond slave MII link states (BOND_LINK_*), as IFLA_BOND_SLAVE_MII_STATUS
// reports them.
const (
	BondLinkUp   uint8 = 0 // BOND_LINK_UP
	BondLinkFail uint8 = 1 // BOND_LINK_FAIL
	BondLinkDown uint8 = 2 // BOND_LINK_DOWN
	BondLinkBack uint8 = 3 // BOND_LINK_BACK
)

// Bond slave states (BOND_STATE_*), as IFLA_BOND_SLAVE_STATE reports them.
const (
	BondStateActive uint8 = 0 // BOND_STATE_ACTIVE
	BondStateBackup uint8 = 1 // BOND_STATE_BACKUP
)

// bondSlave is a bond port's own state (struct slave): its MII link state
// as bond_enslave set it (netsim runs no link monitor), its queue id and
// its priority.
type bondSlave struct {
	link    uint8
	queueID uint16
	prio    int32
}

// BondSlaveInfo is what a bond's port reports in IFLA_INFO_SLAVE_DATA.
// The 802.3ad attributes (aggregator id, port states) are absent: their
// aggregator comes from the LACP state machine, which netsim does not run.
type BondSlaveInfo struct {
	State            uint8 // IFLA_BOND_SLAVE_STATE: BondStateActive or BondStateBackup
	MIIStatus        uint8 // IFLA_BOND_SLAVE_MII_STATUS: BondLinkUp, ...
	LinkFailureCount uint32
	PermHWAddr       MAC    // IFLA_BOND_SLAVE_PERM_HWADDR: the slave's address when enslaved
	QueueID          uint16 // IFLA_BOND_SLAVE_QUEUE_ID
	Prio             int32  // IFLA_BOND_SLAVE_PRIO
}

// BondSlaveSettings is what a request's IFLA_INFO_SLAVE_DATA sets on a
// bond's port: nil is an attribute the request does not carry.
type BondSlaveSettings struct {
	QueueID *uint16 // IFLA_BOND_SLAVE_QUEUE_ID
	Prio    *int32  // IFLA_BOND_SLAVE_PRIO
}

// newBondSlave is the state bond_enslave gives a new slave of bond b: its
// MII link state from the monitor the bond runs (up without one).
//
// Kernel: bond_enslave (drivers/net/bonding/bond_main.c), "check for
// initial state".
func newBondSlave(b, s *Device) *bondSlave {
	p := &b.priv.bond.p
	link := BondLinkUp
	switch {
	case p.Miimon != 0:
		switch {
		case !s.IsUp() || !s.kcarrier:
			link = BondLinkDown
		case p.UpDelay != 0:
			link = BondLinkBack
		}
	case p.ArpInterval != 0:
		if !s.kcarrier {
			link = BondLinkDown
		}
	}
	return &bondSlave{link: link}
}

// BondSlaveInfo returns a bond port's IFLA_INFO_SLAVE_DATA, or nil for a
// device that is not a bond's port.
//
// Kernel: bond_fill_slave_info (drivers/net/bonding/bond_netlink.c),
// bond_slave_state.
func (d *Device) BondSlaveInfo() *BondSlaveInfo {
	sl, b := d.priv.bondSlave, d.master
	if sl == nil || b == nil || b.priv.bond == nil {
		return nil
	}
	info := &BondSlaveInfo{MIIStatus: sl.link, PermHWAddr: d.priv.bondSaved.addr, QueueID: sl.queueID, Prio: sl.prio}
	// bond_enslave: the slaves of an active-backup bond other than its
	// active slave are backups, as are an 802.3ad bond's until the LACP
	// state machine (not modelled) enables them; balance-tlb and
	// balance-alb keep every slave active.
	switch m := b.priv.bond.p.Mode; m {
	case BondActiveBackup:
		if bondActiveSlave(b) != d {
			info.State = BondStateBackup
		}
	case Bond8023AD:
		info.State = BondStateBackup
	}
	return info
}

// ChangeBondSlave applies a request's IFLA_BOND_SLAVE_* attributes to
// bond port d; a refused request changes nothing.
//
// Kernel: bond_slave_changelink (drivers/net/bonding/bond_netlink.c):
// bond_option_queue_id_set (a queue id above the bond's tx queues, or
// another slave's, is a bare EPERM), bond_option_prio_set (for the modes
// with an active slave: EACCES "option not supported in mode" in others).
func (d *Device) ChangeBondSlave(t *sim.Task, s BondSlaveSettings) error {
	sl, b := d.priv.bondSlave, d.master
	if sl == nil || b == nil || b.priv.bond == nil {
		return errno.Errorf(syscall.EOPNOTSUPP, "Device \"%s\" is not a bond port", d.name)
	}
	next := *sl
	if q := s.QueueID; q != nil {
		if *q > bondTxQueues { // qid > bond->dev->real_num_tx_queues
			return errno.New(syscall.EPERM, "")
		}
		for _, o := range b.slaves {
			if o != d && *q != 0 && o.priv.bondSlave.queueID == *q {
				return errno.New(syscall.EPERM, "")
			}
		}
		next.queueID = *q
	}
	if p := s.Prio; p != nil {
		if err := optPrio.deps(b, b.priv.bond.p.Mode); err != nil {
			return err
		}
		next.prio = *p
	}
	// bond_option_prio_set reselects the active slave.
	bondReselect(t, b, func() { *sl = next })
	return nil
}

// bondTxQueues is BOND_DEFAULT_TX_QUEUES, a bond's real_num_tx_queues.
const bondTxQueues = 16

// optPrio is bond_opts' BOND_OPT_PRIO.
var optPrio = bondOpt{name: "prio", unsupp: primModes, raw: true}
