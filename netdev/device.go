// The net_device: its registration state, the fields netsim models (struct
// net_device, include/linux/netdevice.h) and their accessors, and the
// reference count that netdev_wait_allrefs waits on (dev_hold, dev_put).

package netdev

import (
	"sync/atomic"

	"github.com/netsimlab/netsim/hwaddr"
)

// regState is a device's registration state (enum netdev_reg_state).
type regState uint8

const (
	regUninitialized regState = iota // NETREG_UNINITIALIZED
	regRegistered                    // NETREG_REGISTERED
	regUnregistering                 // NETREG_UNREGISTERING
	regUnregistered                  // NETREG_UNREGISTERED
)

// Device is a network device, struct net_device.
//
// Every field is guarded by RTNL except refcnt (atomic: references are
// dropped from RCU callbacks). Exported methods that read a device may be
// called by anyone who holds RTNL, or by a single-goroutine user of a
// quiescent simulation; Handle methods in package rtnl take RTNL for you.
type Device struct {
	tbl     *Table
	ifindex IfIndex
	name    string
	ops     *linkOps
	state   regState
	// moving: the device is leaving its namespace
	// (dev_change_net_namespace's NETDEV_UNREGISTER, dev->moving_ns).
	moving bool

	flags   Flags // administrative and static flags; FlagLowerUp is derived from carrier
	carrier bool

	// kcarrier is the kernel's carrier bit (netif_carrier_ok), which,
	// unlike carrier, a veth clears while it is down; carrierChanges
	// counts its changes since registration (IFLA_CARRIER_CHANGES).
	kcarrier       bool
	carrierChanges uint32
	// lwPending: a carrier change of the device waits in the stack's
	// linkwatch queue (__LINK_STATE_LINKWATCH_PENDING).
	lwPending bool
	operState OperState
	mtu       int
	minMTU    int
	maxMTU    int
	group     uint32
	addr      MAC
	broadcast MAC
	txqlen    int    // 0..2^32-1 (IFLA_TXQLEN is a u32)
	alias     string // ifalias; "" when none
	qdisc     string // "noop" until first opened, then "noqueue" (ifb: "pfifo_fast")
	uniFlt    bool   // IFF_UNICAST_FLT: the device filters unicast addresses itself

	link   *Device   // the lower device of a vlan or macvlan (IFLA_LINK)
	uppers []*Device // devices stacked on this one (vlans, macvlans), in creation order
	master *Device   // bond or vrf this device is enslaved to
	slaves []*Device // for masters: enslaved devices in enslave order
	peer   *Device   // the other end of a veth pair

	changingUpper *Device // the upper being linked or unlinked, during (PRE)CHANGEUPPER

	uc, mc     *hwaddr.List
	ucPromisc  bool
	promiscCnt int
	allmulti   int
	gflags     Flags // IFF_PROMISC and IFF_ALLMULTI as a user set them (dev->gflags)

	refcnt atomic.Int64 // references held by others (dev_hold); 0 when only the registration's own remains

	priv devPriv // kind-specific state

	inet  *inDev
	inet6 *inet6Dev

	prev, next *Device // the table's device list, registration order (dev_base_head)
	listed     bool    // in the table's device list
}

// Index returns the device's ifindex.
func (d *Device) Index() IfIndex { return d.ifindex }

// Name returns the device's name.
func (d *Device) Name() string { return d.name }

// Kind returns the link kind ("dummy", "veth", "vlan", ...; "" for loopback,
// as `ip -d link` shows no kind for it).
func (d *Device) Kind() string { return d.ops.kind }

// Flags returns the device's IFF_* flags as rtnetlink reports them,
// including IFF_LOWER_UP when the device is up with carrier. IFF_PROMISC and
// IFF_ALLMULTI are reported only when a user set them (dev->gflags), not
// when stacked devices raised the counts (see Promiscuity).
//
// Kernel: dev_get_flags (net/core/dev.c).
func (d *Device) Flags() Flags {
	f := d.flags&^(FlagPromisc|FlagAllMulti) | d.gflags&(FlagPromisc|FlagAllMulti)
	if d.flags&FlagUp != 0 && d.carrier {
		f |= FlagLowerUp
	}
	return f
}

// IsUp reports whether the device is administratively up (IFF_UP).
func (d *Device) IsUp() bool { return d.flags&FlagUp != 0 }

// Carrier reports whether the device has carrier.
func (d *Device) Carrier() bool { return d.carrier }

// CarrierChanges returns how many times the device's carrier went on or
// off since it was registered.
//
// Kernel: dev->carrier_up_count + carrier_down_count, counted by
// netif_carrier_on and netif_carrier_off for a registered device.
func (d *Device) CarrierChanges() uint32 { return d.carrierChanges }

// OperState returns the device's operational state.
func (d *Device) OperState() OperState { return d.operState }

// MTU returns the device's MTU.
func (d *Device) MTU() int { return d.mtu }

// MTURange returns the device's minimum and maximum MTU.
func (d *Device) MTURange() (min, max int) { return d.minMTU, d.maxMTU }

// Group returns the device's group (0 is the default group).
func (d *Device) Group() uint32 { return d.group }

// Addr returns the device's hardware address.
func (d *Device) Addr() MAC { return d.addr }

// Broadcast returns the device's broadcast address.
func (d *Device) Broadcast() MAC { return d.broadcast }

// Qdisc returns the root qdisc `ip link` shows: "noop" until the device is
// first brought up, then "noqueue" (a software device without a queue,
// IFF_NO_QUEUE: every kind netsim models but ifb) or ifb's "pfifo_fast".
//
// Kernel: dev_activate / attach_default_qdiscs (net/sched/sch_generic.c).
func (d *Device) Qdisc() string {
	if d.qdisc == "" {
		return "noop"
	}
	return d.qdisc
}

// TxQueueLen returns the device's transmit queue length, 0 to 2^32-1.
func (d *Device) TxQueueLen() int { return d.txqlen }

// Alias returns the device's alias (IFLA_IFALIAS), or "" when it has none.
func (d *Device) Alias() string { return d.alias }

// Link returns the lower device of a vlan or macvlan, or nil.
func (d *Device) Link() *Device { return d.link }

// Master returns the bond or vrf the device is enslaved to, or nil.
func (d *Device) Master() *Device { return d.master }

// Slaves returns the devices enslaved to a bond or vrf, in enslave order.
func (d *Device) Slaves() []*Device { return append([]*Device(nil), d.slaves...) }

// Uppers returns the vlans and macvlans stacked on the device.
func (d *Device) Uppers() []*Device { return append([]*Device(nil), d.uppers...) }

// Peer returns the other end of a veth pair, or nil.
func (d *Device) Peer() *Device { return d.peer }

// UC returns the device's unicast address list (dev->uc).
func (d *Device) UC() *hwaddr.List { return d.uc }

// MC returns the device's multicast address list (dev->mc).
func (d *Device) MC() *hwaddr.List { return d.mc }

// Promiscuity returns the device's promiscuity count.
func (d *Device) Promiscuity() int { return d.promiscCnt }

// Allmulti returns the device's allmulti count (what `ip -d link` shows as
// allmulti).
func (d *Device) Allmulti() int { return d.allmulti }

// Table returns the namespace's device table the device belongs to.
func (d *Device) Table() *Table { return d.tbl }

// Registered reports whether the device is registered (not being or having
// been unregistered).
func (d *Device) Registered() bool { return d.state == regRegistered }

// Hold takes a reference to the device.
//
// Kernel: dev_hold (include/linux/netdevice.h).
func (d *Device) Hold() { d.refcnt.Add(1) }

// Put drops a reference taken with Hold.
//
// Kernel: dev_put (include/linux/netdevice.h).
func (d *Device) Put() {
	if d.refcnt.Add(-1) < 0 {
		panic("netdev: dev_put on " + d.name + " without a reference")
	}
}

// RefCount returns the references held by others (0 means only the
// registration's own remains, which is what netdev_wait_allrefs waits for).
func (d *Device) RefCount() int64 { return d.refcnt.Load() }

// String returns the device's name.
func (d *Device) String() string { return d.name }
