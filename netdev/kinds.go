// Device kinds: the rtnl_link_ops and net_device_ops parts a kind has
// (linkOps), the link specs a request names a kind with, the attributes
// every kind takes (IFLA_MTU, IFLA_ADDRESS, ...), kinds netsim does not
// model, loopback, and the allocation of a new device and its name
// (rtnl_newlink, rtnl_create_link: net/core/rtnetlink.c; alloc_netdev,
// dev_validate_mtu, dev_alloc_name: net/core/dev.c;
// drivers/net/loopback.c).

package netdev

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// linkOps is a device kind's behaviour: the parts of net_device_ops and
// rtnl_link_ops netsim models. A nil function is an operation the kind does
// not have.
type linkOps struct {
	kind string // rtnl_link_ops->kind; "" for loopback

	uninit        func(t *sim.Task, d *Device)               // ndo_uninit, during unregister
	open          func(t *sim.Task, d *Device) error         // ndo_open
	stop          func(t *sim.Task, d *Device)               // ndo_stop
	setRxMode     func(t *sim.Task, d *Device)               // ndo_set_rx_mode
	changeRxFlags func(t *sim.Task, d *Device, change Flags) // ndo_change_rx_flags
	dellink       func(t *sim.Task, d *Device, q *[]*Device) // rtnl_link_ops->dellink
	addSlave      func(t *sim.Task, master, slave *Device) error
	// checkSlave is addSlave's refusals for a slave that its current
	// master is about to release (do_set_master moving a device).
	checkSlave func(master, slave *Device) error
	delSlave   func(t *sim.Task, master, slave *Device) error
	// changeMTU is ndo_change_mtu's own check of a new MTU, after
	// dev_validate_mtu's range check; nil accepts any MTU in range.
	changeMTU func(d *Device, mtu int) error
	// carrierOf computes carrier while the device is up; nil means always on.
	carrierOf func(d *Device) bool
	// operUp is the operstate shown when up with carrier: OperUnknown for
	// devices without link state (loopback, dummy), OperUp otherwise.
	operUp OperState
	// l3mdev is true for VRF masters.
	l3mdev bool
	// qdisc is the root qdisc the device gets when first opened: "" for
	// noqueue (IFF_NO_QUEUE, every software kind but ifb).
	qdisc string
	// noSetAddr: the kind has no ndo_set_mac_address (ifb).
	noSetAddr bool
}

// LinkSpec describes a device to create: Dummy, IFB, Veth, Macvlan, Vlan, Bond,
// VRF, Bridge, or Other (a kind by name). It is what `ip link add ... type KIND ...` sends.
type LinkSpec interface {
	// LinkName returns the requested device name.
	LinkName() string
	// LinkAttrs returns the requested common attributes.
	LinkAttrs() Attrs
	// create validates the spec against the table and builds the device(s)
	// it describes, unregistered. It changes nothing.
	create(t *sim.Task, tb *Table) ([]*Device, error)
}

// Attrs are the optional attributes every kind accepts. A zero field is
// not sent, and the kind's default applies, unless Zero names it.
//
// MTU and TxQueueLen travel as the u32 attributes of the netlink request:
// a value outside 0..2^32-1 is sent as its low 32 bits, and the kernel reads
// the MTU as a signed int (so -1 and 2^32-1 are both an MTU of -1, below
// every minimum).
type Attrs struct {
	MTU        int     // IFLA_MTU
	Group      uint32  // IFLA_GROUP
	Index      IfIndex // requested ifindex (ifi_index of RTM_NEWLINK)
	Addr       MAC     // IFLA_ADDRESS; zero means a random address (or the lower's, for vlan)
	TxQueueLen int     // IFLA_TXQLEN
	// Zero lists the fields above that are sent although zero:
	// Attrs{Zero: AttrTxQueueLen} asks for a queue length of 0,
	// Attrs{Zero: AttrMTU} for an MTU of 0 (which every kind refuses).
	Zero AttrMask
}

// AttrMask is a set of Attrs fields. The zero AttrMask is empty.
type AttrMask uint8

const (
	AttrMTU        AttrMask = 1 << iota // Attrs.MTU
	AttrTxQueueLen                      // Attrs.TxQueueLen
)

// mtu returns the MTU the request carries, as the kernel reads IFLA_MTU (a
// u32 passed on as an int), and whether it carries one.
func (a Attrs) mtu() (int, bool) {
	if a.MTU == 0 && a.Zero&AttrMTU == 0 {
		return 0, false
	}
	return NetlinkMTU(a.MTU), true
}

// txQueueLen returns the IFLA_TXQLEN the request carries, and whether it
// carries one.
func (a Attrs) txQueueLen() (int, bool) {
	if a.TxQueueLen == 0 && a.Zero&AttrTxQueueLen == 0 {
		return 0, false
	}
	return int(uint32(a.TxQueueLen)), true
}

// NetlinkMTU is the MTU the kernel sees for v sent as IFLA_MTU: the u32
// attribute's value read as an int (do_setlink passes nla_get_u32 to
// dev_set_mtu_ext, whose new_mtu is an int).
func NetlinkMTU(v int) int { return int(int32(uint32(v))) }

// IfNameAttr is the device name the kernel reads from an IFLA_IFNAME of
// value s: cut at the first NUL (nla_strscpy) when the attribute passes the
// policy's length limit, and s itself, for the caller to refuse, when not.
func IfNameAttr(s string) string {
	if len(s) < IFNAMSIZ {
		return nlaString(s)
	}
	return s
}

// nlaString is what nla_strscpy makes of a string attribute: the bytes up
// to the first NUL.
func nlaString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// Dummy is a dummy device (drivers/net/dummy.c).
type Dummy struct {
	Name string
	Attrs
}

// IFB is an intermediate functional block device (drivers/net/ifb.c).
type IFB struct {
	Name string
	Attrs
}

// Veth is a veth pair (drivers/net/veth.c): Name and its peer Peer. An empty
// Peer gets the name "veth%d" with the lowest free number.
type Veth struct {
	Name, Peer string
	Attrs
	PeerAttrs Attrs
	// PeerUp is a request that the peer be up (IFF_UP in the peer's
	// ifi_flags): the kernel registers the peer, fails to open it
	// (ENOTCONN) and unregisters it, its ifindex spent.
	PeerUp bool
	// PeerTable is the namespace the peer is created in; nil: the
	// device's own (veth_newlink's peer net).
	PeerTable *Table
}

// MacvlanMode is a macvlan mode (enum macvlan_mode).
type MacvlanMode uint32

const (
	MacvlanPrivate  MacvlanMode = 1  // MACVLAN_MODE_PRIVATE
	MacvlanVEPA     MacvlanMode = 2  // MACVLAN_MODE_VEPA, the default
	MacvlanBridge   MacvlanMode = 4  // MACVLAN_MODE_BRIDGE
	MacvlanPassthru MacvlanMode = 8  // MACVLAN_MODE_PASSTHRU
	MacvlanSource   MacvlanMode = 16 // MACVLAN_MODE_SOURCE
)

// String returns the mode as `ip -d link` prints it.
func (m MacvlanMode) String() string {
	switch m {
	case MacvlanPrivate:
		return "private"
	case MacvlanVEPA:
		return "vepa"
	case MacvlanBridge:
		return "bridge"
	case MacvlanPassthru:
		return "passthru"
	case MacvlanSource:
		return "source"
	}
	return fmt.Sprintf("mode(%d)", uint32(m))
}

// Macvlan is a macvlan device on its lower device (drivers/net/macvlan.c):
// LinkIndex, the ifindex IFLA_LINK carries, when it is not 0 (a negative
// one names no device), else the device named Link. A zero Mode is
// MacvlanVEPA, the kernel's default.
type Macvlan struct {
	Name, Link string
	LinkIndex  IfIndex
	Mode       MacvlanMode
	Attrs
	// LinkTable is the namespace the lower device is found in; nil: the
	// macvlan's own (rtnl_newlink_link_net).
	LinkTable *Table
	// Settings are the flags, broadcast queue length and cutoff the
	// macvlan is created with (Settings.Mode is not looked at).
	Settings MacvlanSettings
}

// Vlan is an 802.1Q VLAN device with id ID on its lower device (net/8021q):
// LinkIndex (IFLA_LINK) when it is not 0, else the device named Link.
type Vlan struct {
	Name, Link string
	LinkIndex  IfIndex
	ID         uint16
	Attrs
	// LinkTable is the namespace the lower device is found in; nil: the
	// vlan's own (rtnl_newlink_link_net).
	LinkTable *Table
	// Protocol is IFLA_VLAN_PROTOCOL, host order: VlanProto8021Q (what 0
	// stands for) or VlanProto8021AD.
	Protocol uint16
	// Settings are the flags and priority maps the vlan is created with;
	// Settings.Protocol, when set, is the protocol instead (a request's
	// own attribute, which may be 0), and Settings.ID is not looked at.
	Settings VlanSettings
	// NoData and NoID describe a netlink request without IFLA_INFO_DATA
	// (which vlan_validate refuses) or without IFLA_VLAN_ID in it (which
	// vlan_newlink refuses). A Go caller leaves both false.
	NoData, NoID bool
}

// BondMode is a bonding mode (BOND_MODE_*).
type BondMode uint8

const (
	BondRoundRobin   BondMode = 0 // balance-rr, the default
	BondActiveBackup BondMode = 1 // active-backup
	BondXOR          BondMode = 2 // balance-xor
	BondBroadcast    BondMode = 3 // broadcast
	Bond8023AD       BondMode = 4 // 802.3ad
	BondTLB          BondMode = 5 // balance-tlb
	BondALB          BondMode = 6 // balance-alb
)

var bondModeNames = [...]string{"balance-rr", "active-backup", "balance-xor", "broadcast", "802.3ad", "balance-tlb", "balance-alb"}

// String returns the mode's name, e.g. "balance-rr".
func (m BondMode) String() string {
	if int(m) < len(bondModeNames) {
		return bondModeNames[m]
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// usesPrimary reports whether the mode sends traffic through one active
// slave, whose address lists alone follow the bond's.
//
// Kernel: bond_uses_primary / BOND_MODE_IS_LB (include/net/bonding.h).
func (m BondMode) usesPrimary() bool {
	return m == BondActiveBackup || m == BondTLB || m == BondALB
}

// Bond is a bonding master (drivers/net/bonding): its mode
// (IFLA_BOND_MODE, sent when not balance-rr) and the other options it is
// created with (Settings.Mode, when set, is the mode instead).
type Bond struct {
	Name string
	Mode BondMode
	Attrs
	Settings BondSettings
}

// VRF is an L3 master device bound to routing table Table (drivers/net/vrf.c).
type VRF struct {
	Name  string
	Table uint32
	Attrs
}

// Other is a device of a kind given by name, as `ip link add NAME type KIND`
// sends it with no kind-specific attributes. A kind netsim models is created
// as its own spec with defaults would be (dummy, veth, bond, vrf, bridge;
// macvlan and vlan then lack their lower device, vxlan its IFLA_INFO_DATA);
// a kind the kernel does not know fails with EOPNOTSUPP "Unknown device
// type", and a kind Linux has but netsim does not model (geneve, ...) fails
// with EOPNOTSUPP.
//
// Kernel: rtnl_newlink (net/core/rtnetlink.c): rtnl_link_ops_get(kind).
type Other struct {
	Name, Kind string
	Attrs
}

// validator is a kind's rtnl_link_ops->validate: checks of the request
// that run before anything is looked up.
type validator interface {
	validate(tb *Table) error
}

// unmodelledKinds are the rtnl_link_ops kinds of Linux 6.18 that netsim
// does not model.
var unmodelledKinds = map[string]bool{
	"amt": true, "bareudp": true, "batadv": true, "can": true, "dsa": true,
	"erspan": true, "geneve": true, "gre": true, "gretap": true, "gtp": true, "hsr": true,
	"ip6erspan": true, "ip6gre": true, "ip6gretap": true, "ip6tnl": true,
	"ip6_vti": true, "ipip": true, "ipoib": true, "ipvlan": true, "ipvtap": true,
	"lowpan": true, "macsec": true, "macvtap": true, "netdevsim": true, "netkit": true,
	"nlmon": true, "openvswitch": true, "ovpn": true, "pfcp": true, "rmnet": true,
	"sit": true, "team": true, "vcan": true, "virt_wifi": true, "vti": true, "vxcan": true,
	"wireguard": true, "wwan": true, "xfrm": true,
}

// KnownKind reports whether a Linux 6.18 kernel has a link kind of that
// name (rtnl_link_ops), whether netsim models it or not.
func KnownKind(kind string) bool {
	switch kind {
	case "dummy", "ifb", "veth", "macvlan", "vlan", "bond", "vrf", "bridge", "vxlan":
		return true
	}
	return unmodelledKinds[kind]
}

// spec returns the modelled spec an Other stands for, or an error.
func (s Other) spec() (LinkSpec, error) {
	switch s.Kind {
	case "dummy":
		return Dummy{Name: s.Name, Attrs: s.Attrs}, nil
	case "ifb":
		return IFB{Name: s.Name, Attrs: s.Attrs}, nil
	case "veth":
		return Veth{Name: s.Name, Attrs: s.Attrs}, nil
	case "macvlan":
		return Macvlan{Name: s.Name, Attrs: s.Attrs}, nil
	case "vlan":
		return Vlan{Name: s.Name, Attrs: s.Attrs}, nil
	case "bond":
		return Bond{Name: s.Name, Attrs: s.Attrs}, nil
	case "vrf":
		return VRF{Name: s.Name, Attrs: s.Attrs}, nil
	case "bridge":
		return Bridge{Name: s.Name, Attrs: s.Attrs}, nil
	case "vxlan":
		return Vxlan{Name: s.Name, Attrs: s.Attrs}, nil
	}
	if unmodelledKinds[s.Kind] {
		return nil, errno.Errorf(syscall.EOPNOTSUPP, "Kind \"%s\" is not modelled by netsim", s.Kind)
	}
	if s.Kind == "tun" {
		// tun_validate (drivers/net/tun.c): tun and tap devices are made
		// through /dev/net/tun only.
		return nil, errno.New(syscall.EOPNOTSUPP, "tun/tap creation via rtnetlink is not supported.")
	}
	return nil, errno.New(syscall.EOPNOTSUPP, "Unknown device type")
}

func (s Other) validate(tb *Table) error {
	spec, err := s.spec()
	if err != nil {
		// __rtnl_newlink: without ops there is nothing to validate; an
		// existing device answers EEXIST before the kind is refused.
		return nil
	}
	if v, ok := spec.(validator); ok {
		return v.validate(tb)
	}
	return nil
}

func (s Other) tie(devs []*Device) {
	if spec, err := s.spec(); err == nil {
		if tr, ok := spec.(tier); ok {
			tr.tie(devs)
		}
	}
}

func (s Other) create(t *sim.Task, tb *Table) ([]*Device, error) {
	spec, err := s.spec()
	if err != nil {
		return nil, err
	}
	return spec.create(t, tb)
}

type loopbackSpec struct{}

func (s Other) LinkName() string      { return s.Name }
func (s Other) LinkAttrs() Attrs      { return s.Attrs }
func (s Dummy) LinkName() string      { return s.Name }
func (s Dummy) LinkAttrs() Attrs      { return s.Attrs }
func (s IFB) LinkName() string        { return s.Name }
func (s IFB) LinkAttrs() Attrs        { return s.Attrs }
func (s Veth) LinkName() string       { return s.Name }
func (s Veth) LinkAttrs() Attrs       { return s.Attrs }
func (s Macvlan) LinkName() string    { return s.Name }
func (s Macvlan) LinkAttrs() Attrs    { return s.Attrs }
func (s Vlan) LinkName() string       { return s.Name }
func (s Vlan) LinkAttrs() Attrs       { return s.Attrs }
func (s Bond) LinkName() string       { return s.Name }
func (s Bond) LinkAttrs() Attrs       { return s.Attrs }
func (s VRF) LinkName() string        { return s.Name }
func (s VRF) LinkAttrs() Attrs        { return s.Attrs }
func (loopbackSpec) LinkName() string { return "lo" }
func (loopbackSpec) LinkAttrs() Attrs { return Attrs{} }
func (d *Device) isLoopback() bool    { return d.flags&FlagLoopback != 0 }

// isL3Master reports whether d is an L3 master device (a vrf).
func (d *Device) isL3Master() bool { return d.ops.l3mdev }

// devPriv is the kind-specific state (netdev_priv). Guarded by RTNL, as its
// device is.
type devPriv struct {
	vlan        *vlanState // a vlan's state (struct vlan_dev_priv)
	macvlanMode MacvlanMode
	macvlan     *macvlanState // a macvlan's flags and queue request (struct macvlan_dev)
	bond        *bondState    // a bond's state (struct bonding)
	bondSlave   *bondSlave    // a bond port's state (struct slave)
	vrfTable    uint32
	addrRandom  bool         // addr_assign_type == NET_ADDR_RANDOM
	addrStolen  bool         // addr_assign_type == NET_ADDR_STOLEN (a vlan using its lower's address)
	wantIndex   IfIndex      // requested ifindex, for kinds that create several devices
	regTable    *Table       // the table a device of such a kind registers in, when not the request's
	bondSaved   bondSaved    // a bond slave's own address and MTU, restored on release
	bridge      *bridgeState // a bridge's state (struct net_bridge)
	brPort      *bridgePort  // a bridge port's state (struct net_bridge_port)
	macvlanPort macvlanPort  // for a lower device of macvlans: the port's state
	vxlan       *vxlanState  // a vxlan's state (struct vxlan_dev)
	vxlanUppers []*Device    // the vxlans linked to this device as their lower, in link order
}

// VlanID returns a vlan's id (0 for other kinds).
func (d *Device) VlanID() uint16 {
	if d.priv.vlan == nil {
		return 0
	}
	return d.priv.vlan.id
}

// MacvlanMode returns a macvlan's mode (0 for other kinds).
func (d *Device) MacvlanMode() MacvlanMode { return d.priv.macvlanMode }

// BondMode returns a bond's mode.
func (d *Device) BondMode() BondMode {
	if d.priv.bond == nil {
		return 0
	}
	return d.priv.bond.p.Mode
}

// VRFTable returns a vrf's table id (0 for other kinds).
func (d *Device) VRFTable() uint32 { return d.priv.vrfTable }

const (
	ethMinMTU  = 68    // ETH_MIN_MTU
	ethMaxMTU  = 65535 // ETH_MAX_MTU
	ethDataLen = 1500  // ETH_DATA_LEN
)

var broadcastMAC = MAC{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// newDevice builds an unregistered device of kind ops with the common attrs
// applied; the caller sets the kind's own fields.
func (tb *Table) newDevice(name string, ops *linkOps, a Attrs, flags Flags, mtu, minMTU, maxMTU int) (*Device, error) {
	d := &Device{name: name, ops: ops, flags: flags, mtu: mtu, minMTU: minMTU, maxMTU: maxMTU,
		group: a.Group, txqlen: 1000, broadcast: broadcastMAC}
	if q, ok := a.txQueueLen(); ok {
		d.txqlen = q
	}
	if mtu, ok := a.mtu(); ok {
		if err := d.checkMTU(mtu); err != nil {
			return nil, err
		}
		d.mtu = mtu
	}
	if a.Addr != (MAC{}) {
		if a.Addr.IsMulticast() {
			return nil, errno.New(syscall.EADDRNOTAVAIL, "Cannot assign a multicast address")
		}
		d.addr = a.Addr
	} else {
		d.addr = tb.s.randomMAC()
		d.priv.addrRandom = true
	}
	return d, nil
}

// randomMAC returns a random locally administered unicast address.
//
// Kernel: eth_random_addr (include/linux/etherdevice.h).
func (s *Stack) randomMAC() MAC {
	var m MAC
	v := s.rng.Uint64()
	for i := range m {
		m[i] = byte(v >> (8 * i))
	}
	m[0] = m[0]&0xfe | 0x02
	return m
}

// checkMTU validates mtu against the device's range.
//
// Kernel: dev_validate_mtu (net/core/dev.c).
func (d *Device) checkMTU(mtu int) error {
	if mtu < 0 || mtu < d.minMTU {
		return errno.Errorf(syscall.EINVAL, "mtu less than device minimum")
	}
	if d.maxMTU > 0 && mtu > d.maxMTU {
		return errno.Errorf(syscall.EINVAL, "mtu greater than device maximum")
	}
	return nil
}

var loopbackOps = &linkOps{operUp: OperUnknown}

func (loopbackSpec) create(t *sim.Task, tb *Table) ([]*Device, error) {
	d := &Device{name: "lo", ops: loopbackOps, flags: FlagLoopback, mtu: 65536, minMTU: 0, maxMTU: 0, txqlen: 1000}
	return []*Device{d}, nil
}

// checkLinkName resolves the spec's name (with a %d template) and checks it.
//
// Without a name the kernel names the device after its kind: "dummy%d".
//
// Kernel: rtnl_newlink_create (net/core/rtnetlink.c).
func (tb *Table) checkLinkName(name, kind string, taken map[string]bool) (string, error) {
	if name == "" {
		if kind == "" {
			return "", errno.New(syscall.EINVAL, "Device name is required")
		}
		name = kind + "%d"
	}
	// The netlink policy (IFLA_IFNAME, NLA_STRING of at most IFNAMSIZ-1
	// bytes) rejects a long template before dev_alloc_name sees it.
	if len(name) >= IFNAMSIZ {
		return "", tb.checkName(name)
	}
	// rtnl_newlink copies the attribute with nla_strscpy: a name with an
	// embedded NUL ends there, and an empty one is the kind's template.
	if name = nlaString(name); name == "" {
		if kind == "" {
			return "", errno.New(syscall.EINVAL, "Device name is required")
		}
		name = kind + "%d"
	}
	n, err := tb.allocName(name, taken)
	if err != nil {
		return "", err
	}
	return n, tb.checkName(n)
}
