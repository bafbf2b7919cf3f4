package rtnl

import (
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// Handle makes rtnetlink requests in one network namespace as one task, the
// way a process holding a netlink socket in that namespace would. Each
// method is one request: it enters the kernel (sim.Syscall), takes RTNL,
// does its work, and releases RTNL — which finishes any device it
// unregistered, waiting for RCU and for the device's last references in the
// caller's task, outside the lock.
//
// Errors are *errno.Error values: test them with errors.Is(err,
// syscall.EEXIST). A rejected request changes nothing.
//
// A Handle is used by one goroutine at a time (its task's). Handles of the
// same or of different namespaces may be used from different goroutines at
// once, each with its own task.
//
// A Handle holds a reference to its namespace, as a netlink socket does,
// from Net.Handle until Close: a namespace deleted by name stays alive and
// usable through its open Handles, and is dismantled when the last one
// closes. A Handle used for the kernel's whole life may simply never be
// closed.
type Handle struct {
	n      *Net
	t      *sim.Task
	origin Origin // see SetOrigin
	// noNet: the namespace was dismantled before the Handle was made
	// (maybe_get_net failed); it holds no reference.
	noNet  bool
	closed atomic.Bool
}

// Close releases the Handle's reference to its namespace; the last
// reference of a namespace deleted by name queues its cleanup (see
// Kernel.DelNet). Requests on a closed Handle fail with EBADF, as they
// would on a closed socket. A second Close does nothing. Close always
// returns nil.
//
// Kernel: netlink_release → sk_free → put_net.
func (h *Handle) Close() error {
	if h.closed.Swap(true) || h.noNet {
		return nil
	}
	h.n.put(h.t)
	return nil
}

// usable is the check every request makes first: a closed Handle fails
// with EBADF, one made of a dismantled namespace with ENOENT. An open
// Handle holds a reference, so its namespace cannot be dismantled under
// it: the check reads only the Handle.
func (h *Handle) usable() error {
	if h.closed.Load() {
		return errno.New(syscall.EBADF, "Request on a closed Handle")
	}
	if h.noNet {
		return h.n.errDead()
	}
	return nil
}

// Task returns the task the handle acts as.
func (h *Handle) Task() *sim.Task { return h.t }

// Net returns the handle's namespace.
func (h *Handle) Net() *Net { return h.n }

// enter is what every request does first: let due deferred work run, open
// its trace span and enter the kernel. The caller defers the returned end.
func (h *Handle) enter(op string) (end func()) {
	t := h.t
	h.n.k.wq.RunDue(t, t.Now())
	end = t.Span(op)
	t.Charge(sim.Syscall, 1)
	return end
}

func (n *Net) errDead() error {
	return errno.Errorf(syscall.ENOENT, "Network namespace \"%s\" has been deleted", n.name)
}

// do runs one request with RTNL held.
func (h *Handle) do(op string, fn func(t *sim.Task, tb *netdev.Table) error) error {
	return h.doFrom(h.origin, op, fn)
}

// doFrom runs one request from origin o with RTNL held: the notifications
// it causes carry o.
func (h *Handle) doFrom(o Origin, op string, fn func(t *sim.Task, tb *netdev.Table) error) error {
	defer h.enter(op)()
	if err := h.usable(); err != nil {
		return err
	}
	t, k := h.t, h.n.k
	k.lock(t)
	// The resilient nexthop groups' upkeep work due by now runs first.
	h.n.nh.RunTimers(t)
	h.n.syncTables6()
	h.n.cur = o
	err := fn(t, h.n.devs)
	h.n.cur = Origin{}
	h.n.syncTables6()
	k.unlock(t)
	return err
}

func lookup(tb *netdev.Table, name string) (*netdev.Device, error) {
	if len(name) > 0 && name[0] == 0 {
		return tb.Lookup(name) // a netdev.IndexRef
	}
	// rtnl_dev_get reads IFLA_IFNAME with nla_strscpy.
	if name = netdev.IfNameAttr(name); name == "" {
		return nil, errno.New(syscall.EINVAL, "Device name is required")
	}
	return tb.Lookup(name)
}

// LinkAdd creates the device(s) spec describes: netdev.Dummy, Veth,
// Macvlan, Vlan, Bond, VRF or Bridge.
//
// Kernel: rtnl_newlink with NLM_F_CREATE|NLM_F_EXCL (`ip link add`).
func (h *Handle) LinkAdd(spec netdev.LinkSpec) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		_, err := tb.NewLink(t, spec)
		return err
	})
}

// LinkDel deletes the device named name (and a veth's peer with it).
//
// Kernel: rtnl_dellink (`ip link del NAME`).
func (h *Handle) LinkDel(name string) error {
	return h.do("RTM_DELLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		return tb.DelLink(t, d)
	})
}

// LinkDelIndex deletes the device with ifindex i.
//
// Kernel: rtnl_dellink with ifi_index set.
func (h *Handle) LinkDelIndex(i netdev.IfIndex) error {
	return h.do("RTM_DELLINK", func(t *sim.Task, tb *netdev.Table) error {
		d := tb.ByIndex(i)
		if d == nil {
			return errno.Errorf(syscall.ENODEV, "No device with ifindex %d", i)
		}
		return tb.DelLink(t, d)
	})
}

// LinkDelGroup deletes every device of group g in one request.
//
// Kernel: rtnl_group_dellink (`ip link del group G`).
func (h *Handle) LinkDelGroup(g uint32) error {
	return h.do("RTM_DELLINK", func(t *sim.Task, tb *netdev.Table) error { return tb.DelGroup(t, g) })
}

// LinkDelList deletes the devices with the given ifindexes in one request
// (seed 004's IFLA_IFINDEX_LIST). A kernel without the patch
// (Config.IfindexList false) does not know the attribute: the request names
// no device and fails with EINVAL.
//
// Kernel: rtnl_list_dellink (patch v3, never merged).
func (h *Handle) LinkDelList(idx []netdev.IfIndex) error {
	return h.do("RTM_DELLINK", func(t *sim.Task, tb *netdev.Table) error {
		if !h.n.k.cfg.IfindexList {
			return errno.New(syscall.EINVAL, "IFLA_IFINDEX_LIST is not supported by this kernel")
		}
		return tb.DelIfindexList(t, idx)
	})
}

// LinkSetUp brings the device up.
//
// Kernel: do_setlink → dev_change_flags(IFF_UP) (`ip link set NAME up`).
func (h *Handle) LinkSetUp(name string) error { return h.setUp(name, true) }

// LinkSetDown brings the device down.
//
// Kernel: do_setlink → dev_change_flags (`ip link set NAME down`).
func (h *Handle) LinkSetDown(name string) error { return h.setUp(name, false) }

func (h *Handle) setUp(name string, up bool) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		return d.SetUp(t, up)
	})
}

// LinkChangeFlags sets the device's flags of mask (netdev.UserFlags:
// up, arp, multicast, promisc, allmulticast) to their values in flags.
//
// Kernel: do_setlink → dev_change_flags with the request's ifi_flags and
// ifi_change (`ip link set NAME promisc on arp off ...`).
func (h *Handle) LinkChangeFlags(name string, flags, mask netdev.Flags) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		return d.ChangeFlags(t, flags, mask&netdev.UserFlags)
	})
}

// LinkSetMaster enslaves the device to master (a bond, a vrf or a bridge).
//
// Kernel: do_setlink → do_set_master (`ip link set NAME master MASTER`).
func (h *Handle) LinkSetMaster(name, master string) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		m, err := lookup(tb, master)
		if err != nil {
			return err
		}
		return d.SetMaster(t, m)
	})
}

// LinkSetNoMaster releases the device from its master.
//
// Kernel: do_set_master with IFLA_MASTER 0 (`ip link set NAME nomaster`).
func (h *Handle) LinkSetNoMaster(name string) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		return d.SetMaster(t, nil)
	})
}

// LinkSetBridge changes a bridge's IFLA_BR_* attributes. A device of
// another kind refuses with EOPNOTSUPP.
//
// Kernel: rtnl_newlink on an existing device → br_changelink
// (`ip link set NAME type bridge ...`).
func (h *Handle) LinkSetBridge(name string, s netdev.BridgeSettings) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		if d.Kind() != "bridge" {
			return errno.Errorf(syscall.EOPNOTSUPP, "Device \"%s\" is not of kind bridge", name)
		}
		return d.ChangeBridge(t, s)
	})
}

// LinkSetBridgePort changes a bridge port's IFLA_BRPORT_* attributes. A
// device that is not a bridge port refuses with EOPNOTSUPP.
//
// Kernel: rtnl_newlink on an existing device → br_port_slave_changelink
// (`ip link set NAME type bridge_slave ...`).
func (h *Handle) LinkSetBridgePort(name string, s netdev.BridgePortSettings) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		return d.ChangeBridgePort(t, s)
	})
}

// LinkSetGroup puts the device in group g.
//
// Kernel: do_setlink → dev_set_group (`ip link set NAME group G`).
func (h *Handle) LinkSetGroup(name string, g uint32) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		return doSetLink(t, tb, d, false, LinkChange{Group: &g})
	})
}

// LinkSetMTU sets the device's MTU.
//
// Kernel: do_setlink → dev_set_mtu_ext (`ip link set NAME mtu M`).
func (h *Handle) LinkSetMTU(name string, mtu int) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		return d.SetMTU(t, mtu)
	})
}

// LinkSetName renames the device.
//
// Kernel: do_setlink → dev_change_name (`ip link set NAME name NEW`).
func (h *Handle) LinkSetName(name, newName string) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		return d.SetName(t, newName)
	})
}

// LinkSetHardwareAddr sets the device's hardware address.
//
// Kernel: do_setlink → dev_set_mac_address (`ip link set NAME address MAC`).
func (h *Handle) LinkSetHardwareAddr(name string, mac netdev.MAC) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		return d.SetAddr(t, mac)
	})
}

// LinkSetTxQueueLen sets the device's transmit queue length. n travels as
// the u32 IFLA_TXQLEN: 0 is a valid length, and -1 is 2^32-1.
//
// Kernel: do_setlink → dev_change_tx_queue_len (`ip link set NAME txqueuelen N`).
func (h *Handle) LinkSetTxQueueLen(name string, n int) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		d.SetTxQueueLen(t, n)
		return nil
	})
}

// LinkSetAlias sets the device's alias; "" clears it. An alias of
// netdev.IFALIASZ bytes or more fails the netlink policy (ERANGE).
//
// Kernel: do_setlink → dev_set_alias (`ip link set NAME alias ALIAS`).
func (h *Handle) LinkSetAlias(name, alias string) error {
	return h.do("RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		return doSetLink(t, tb, d, false, LinkChange{Alias: &alias})
	})
}

// LinkInfo is a snapshot of a device, what `ip -d link show` prints.
type LinkInfo struct {
	Index       netdev.IfIndex
	Name        string
	Kind        string // "" for loopback
	Flags       netdev.Flags
	MTU         int
	MinMTU      int
	MaxMTU      int
	OperState   netdev.OperState
	Group       uint32
	Addr        netdev.MAC
	Broadcast   netdev.MAC
	TxQueueLen  int    // 0 to 2^32-1
	Alias       string // IFLA_IFALIAS, "" when none
	Promiscuity int
	Allmulti    int
	Qdisc       string // the root qdisc: "noop" until first up, then "noqueue"
	Master      string // the bond, vrf or bridge, or ""
	SlaveKind   string // the master's kind (IFLA_INFO_SLAVE_KIND), or ""
	Link        string // a vlan's or macvlan's lower device, or a veth's peer, or ""
	LinkIndex   netdev.IfIndex
	VlanID      uint16
	MacvlanMode netdev.MacvlanMode
	BondMode    netdev.BondMode
	VRFTable    uint32
	Bridge      *netdev.BridgeInfo     // a bridge's IFLA_INFO_DATA, or nil
	BridgePort  *netdev.BridgePortInfo // a bridge port's IFLA_INFO_SLAVE_DATA, or nil
	UC, MC      []hwaddr.Entry         // the address lists, in list order
	RefCount    int64

	// What rtnl_fill_ifinfo adds for `ip -d -s` (see fillDetails).
	Type                     uint16 // ifi_type: ARPHRDEther or ARPHRDLoopback
	LinkMode                 uint8  // IFLA_LINKMODE: 0, IF_LINK_MODE_DEFAULT
	NumTxQueues, NumRxQueues uint32 // IFLA_NUM_TX_QUEUES, IFLA_NUM_RX_QUEUES
	GSOMaxSize, GSOMaxSegs   uint32 // IFLA_GSO_MAX_SIZE, IFLA_GSO_MAX_SEGS
	TSOMaxSize, TSOMaxSegs   uint32 // IFLA_TSO_MAX_SIZE, IFLA_TSO_MAX_SEGS
	GROMaxSize               uint32 // IFLA_GRO_MAX_SIZE
	AddrGenMode              uint8  // IFLA_INET6_ADDR_GEN_MODE (AddrGenMode*)
	Stats                    LinkStats
	CarrierChanges           uint32 // IFLA_CARRIER_CHANGES
	MacvlanBcQueueLen        uint32 // IFLA_MACVLAN_BC_QUEUE_LEN
	MacvlanBcQueueLenUsed    uint32 // IFLA_MACVLAN_BC_QUEUE_LEN_USED
	VlanFlags                uint32 // IFLA_VLAN_FLAGS (VLAN_FLAG_*)

	// What rtnl_fill_ifinfo sends beside: the master's ifindex
	// (IFLA_MASTER) and the kernel's carrier bit (IFLA_CARRIER).
	MasterIndex   netdev.IfIndex
	CarrierOK     bool
	SlaveVRFTable uint32 // a vrf port's IFLA_VRF_PORT_TABLE: its master's table
}

func linkInfo(d *netdev.Device) LinkInfo {
	li := LinkInfo{
		Index: d.Index(), Name: d.Name(), Kind: d.Kind(), Flags: d.Flags(), MTU: d.MTU(),
		OperState: d.OperState(), Group: d.Group(), Addr: d.Addr(), Broadcast: d.Broadcast(),
		TxQueueLen: d.TxQueueLen(), Alias: d.Alias(), Promiscuity: d.Promiscuity(), Allmulti: d.Allmulti(), Qdisc: d.Qdisc(), VlanID: d.VlanID(),
		MacvlanMode: d.MacvlanMode(), VRFTable: d.VRFTable(),
		UC: d.UC().Entries(), MC: d.MC().Entries(), RefCount: d.RefCount(), CarrierChanges: d.CarrierChanges(),
		Bridge: d.BridgeInfo(), BridgePort: d.BridgePortInfo(),
	}
	li.MinMTU, li.MaxMTU = d.MTURange()
	if d.Kind() == "bond" {
		li.BondMode = d.BondMode()
	}
	if m := d.Master(); m != nil {
		li.Master, li.SlaveKind, li.MasterIndex = m.Name(), m.Kind(), m.Index()
		if m.Kind() == "vrf" {
			li.SlaveVRFTable = m.VRFTable()
		}
	}
	if l := d.Link(); l != nil {
		li.Link, li.LinkIndex = l.Name(), l.Index()
	} else if p := d.Peer(); p != nil {
		li.Link, li.LinkIndex = p.Name(), p.Index()
	}
	fillDetails(&li, d)
	li.CarrierOK = d.CarrierOK()
	return li
}

// LinkByName returns a snapshot of the device named name.
//
// Kernel: rtnl_getlink.
func (h *Handle) LinkByName(name string) (LinkInfo, error) {
	var li LinkInfo
	err := h.do("RTM_GETLINK", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, name)
		if err != nil {
			return err
		}
		li = linkInfo(d)
		return nil
	})
	return li, err
}

// LinkByIndex returns a snapshot of the device with ifindex i.
//
// Kernel: rtnl_getlink with ifi_index.
func (h *Handle) LinkByIndex(i netdev.IfIndex) (LinkInfo, error) {
	var li LinkInfo
	err := h.do("RTM_GETLINK", func(t *sim.Task, tb *netdev.Table) error {
		d := tb.ByIndex(i)
		if d == nil {
			return errno.Errorf(syscall.ENODEV, "No device with ifindex %d", i)
		}
		li = linkInfo(d)
		return nil
	})
	return li, err
}

// LinkList returns a snapshot of every device, in the order `ip link show`
// lists them: LinkDump read whole in one part.
//
// Kernel: rtnl_dump_ifinfo.
func (h *Handle) LinkList() ([]LinkInfo, error) {
	var out []LinkInfo
	var from netdev.IfIndex
	_, err := h.LinkDump(&from, func(li *LinkInfo) bool {
		out = append(out, *li)
		return true
	})
	return out, err
}

// Address families for AddrList.
const (
	FamilyAll = 0
	FamilyV4  = syscall.AF_INET
	FamilyV6  = syscall.AF_INET6
)

// AddrInfo is one address as `ip addr show` lists it. Its ValidLft and
// PreferredLft are the lifetimes left when it was listed
// (netdev.LifetimeForever when unlimited), as IFA_CACHEINFO reports them.
type AddrInfo struct {
	Index netdev.IfIndex
	Link  string
	netdev.Addr
}

// AddrAdd adds address p to the device named link: IPv4 (primary, or
// secondary in the subnet of an existing one) or IPv6 (with duplicate
// address detection run later by a kworker).
//
// Kernel: inet_rtm_newaddr / inet6_rtm_newaddr (`ip addr add P dev LINK`).
func (h *Handle) AddrAdd(link string, p netip.Prefix) error {
	return h.AddrAddWith(link, netdev.Addr{Prefix: p})
}

// AddrAddWith adds a with its optional fields: Peer, Broadcast and Label
// (IPv4), Scope, the lifetimes, and the flags AddrNoPrefixRoute and
// AddrNoDAD (IPv6). EEXIST if the device has the address.
//
// Kernel: inet_rtm_newaddr / inet6_rtm_newaddr with NLM_F_CREATE|NLM_F_EXCL.
func (h *Handle) AddrAddWith(link string, a netdev.Addr) error {
	return h.newAddr(link, a, false)
}

// AddrReplace adds a, or if the device has it, updates it: an IPv4
// address's lifetimes; an IPv6 address's lifetimes and flags (see
// netdev.Device.ReplaceInet6).
//
// Kernel: inet_rtm_newaddr / inet6_rtm_newaddr with
// NLM_F_CREATE|NLM_F_REPLACE (`ip addr replace`).
func (h *Handle) AddrReplace(link string, a netdev.Addr) error {
	return h.newAddr(link, a, true)
}

// AddrChange is `ip addr change`: NLM_F_REPLACE without NLM_F_CREATE. The
// kernel does not look at NLM_F_CREATE for addresses, so a missing address
// is created, as by AddrReplace.
//
// Kernel: inet_rtm_newaddr / inet6_rtm_newaddr with NLM_F_REPLACE.
func (h *Handle) AddrChange(link string, a netdev.Addr) error {
	return h.newAddr(link, a, true)
}

func (h *Handle) newAddr(link string, a netdev.Addr, replace bool) error {
	return h.do("RTM_NEWADDR", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, link)
		if err != nil {
			return err
		}
		if !a.Prefix.IsValid() {
			return errno.New(syscall.EINVAL, "Invalid prefix")
		}
		switch {
		case a.Prefix.Addr().Is4() && replace:
			return d.ReplaceInet4(t, a)
		case a.Prefix.Addr().Is4():
			return d.AddInet4(t, a)
		case replace:
			return d.ReplaceInet6(t, a)
		}
		return d.AddInet6(t, a)
	})
}

// AddrDel removes address p (address and prefix length) from the device.
//
// Kernel: inet_rtm_deladdr / inet6_rtm_deladdr (`ip addr del P dev LINK`).
func (h *Handle) AddrDel(link string, p netip.Prefix) error {
	return h.AddrDelWith(link, netdev.Addr{Prefix: p})
}

// AddrDelWith removes the address that matches m: for IPv4 the first with
// m's local address, m's label if it has one, and m's prefix length and
// subnet (of m.Peer if set); with m.Prefix.Bits() -1, any prefix length
// (see netdev.Device.DelInet4Match). For IPv6, m's address and prefix
// length.
//
// Kernel: inet_rtm_deladdr / inet6_rtm_deladdr.
func (h *Handle) AddrDelWith(link string, m netdev.Addr) error {
	return h.do("RTM_DELADDR", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, link)
		if err != nil {
			return err
		}
		if !m.Prefix.Addr().IsValid() {
			return errno.New(syscall.EINVAL, "Invalid prefix")
		}
		if m.Prefix.Addr().Is4() {
			return d.DelInet4Match(t, m)
		}
		if !m.Prefix.IsValid() {
			return errno.New(syscall.EINVAL, "Invalid prefix")
		}
		return d.DelInet6(t, m.Prefix)
	})
}

// AddrList returns the addresses of the device named link (every device if
// link is ""), of family FamilyV4, FamilyV6 or FamilyAll, IPv4 first for
// each device.
//
// Kernel: inet_dump_ifaddr / inet6_dump_ifaddr.
func (h *Handle) AddrList(link string, family int) ([]AddrInfo, error) {
	if family != FamilyAll && family != FamilyV4 && family != FamilyV6 {
		return nil, errno.Errorf(syscall.EAFNOSUPPORT, "Unknown address family %d", family)
	}
	var out []AddrInfo
	err := h.do("RTM_GETADDR", func(t *sim.Task, tb *netdev.Table) error {
		devs := tb.Devices()
		if link != "" {
			d, err := lookup(tb, link)
			if err != nil {
				return err
			}
			devs = []*netdev.Device{d}
		}
		for _, d := range devs {
			var as []netdev.Addr
			if family != FamilyV6 {
				as = append(as, d.Inet4Addrs()...)
			}
			if family != FamilyV4 {
				as = append(as, d.Inet6Addrs()...)
			}
			for _, a := range as {
				a.ValidLft, a.PreferredLft = a.Remaining(t.Now())
				out = append(out, AddrInfo{Index: d.Index(), Link: d.Name(), Addr: a})
			}
		}
		return nil
	})
	return out, err
}

// Sysctl sets a namespace sysctl, e.g. "net.ipv6.conf.all.keep_addr_on_down"
// to "1". Supported: net.ipv6.conf.{all,default,DEV}.{forwarding,
// keep_addr_on_down} and net.ipv6.conf.{all,default}.{disable_ipv6,accept_dad},
// net.ipv4.conf.{all,default}.{promote_secondaries,forwarding},
// net.ipv4.conf.DEV.forwarding, net.ipv4.ip_forward (all.forwarding),
// net.ipv4.fib_multipath_hash_seed (0: a random seed of the simulation's
// seeded randomness, as a new namespace has) and
// net.ipv4.fib_multipath_hash_policy (only 0, layer 3, is modelled).
func (h *Handle) Sysctl(key, value string) error {
	if key == "net.ipv4.ip_forward" || key == "net/ipv4/ip_forward" {
		key = "net.ipv4.conf.all.forwarding"
	}
	parts := sysctlPath(key)
	if len(parts) == 3 && parts[0] == "net" && parts[1] == "ipv4" && strings.HasPrefix(parts[2], "fib_multipath_hash_") {
		return h.sysctlMultipath(key, parts[2], value)
	}
	if len(parts) != 5 || parts[0] != "net" || parts[2] != "conf" || (parts[1] != "ipv4" && parts[1] != "ipv6") {
		return errno.Errorf(syscall.ENOENT, "sysctl %s is not modelled", key)
	}
	v, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil {
		return errno.Errorf(syscall.EINVAL, "sysctl %s: invalid value %q", key, value)
	}
	fam, scope, name := parts[1], parts[3], parts[4]
	return h.do("sysctl", func(t *sim.Task, tb *netdev.Table) error {
		on := v != 0
		var dev *netdev.Device // nil for all and default
		if scope != "all" && scope != "default" {
			if dev = tb.ByName(scope); dev == nil {
				return errno.Errorf(syscall.ENOENT, "sysctl %s: no device %s", key, scope)
			}
		}
		if fam == "ipv4" {
			c := &tb.IPv4All
			if scope == "default" {
				c = &tb.IPv4Default
			}
			switch {
			case name == "forwarding" && scope == "all":
				tb.SetIPv4Forwarding(nil, on)
			case name == "forwarding" && dev != nil:
				tb.SetIPv4Forwarding(dev, on)
			case name == "forwarding":
				c.Forwarding = on
			case name == "promote_secondaries" && dev == nil:
				c.PromoteSecondaries = on
			default:
				return errno.Errorf(syscall.ENOENT, "sysctl %s is not modelled", key)
			}
			return nil
		}
		c := &tb.IPv6All
		if scope == "default" {
			c = &tb.IPv6Default
		}
		switch {
		case name == "forwarding" && scope == "all":
			tb.SetIPv6Forwarding(t, nil, on)
		case name == "forwarding" && dev != nil:
			tb.SetIPv6Forwarding(t, dev, on)
		case name == "forwarding":
			c.Forwarding = on
		case name == "keep_addr_on_down" && dev != nil:
			dev.SetIPv6KeepAddrOnDown(on)
		case name == "keep_addr_on_down":
			c.KeepAddrOnDown = on
		case name == "disable_ipv6" && dev == nil:
			c.DisableIPv6 = on
		case name == "accept_dad" && dev == nil:
			c.AcceptDAD = v
		default:
			return errno.Errorf(syscall.ENOENT, "sysctl %s is not modelled", key)
		}
		return nil
	})
}

// sysctlPath splits a sysctl name into its components. A name in file
// form ("net/ipv6/conf/eth0.100/forwarding") is split at slashes; in dotted
// form ("net.ipv6.conf.eth0/100.forwarding") at dots, and a slash within a
// component stands for a dot, as sysctl(8) writes a device name that
// contains one.
// sysctlMultipath sets net.ipv4.fib_multipath_hash_seed or _policy.
//
// Kernel: proc_fib_multipath_hash_seed, proc_fib_multipath_hash_policy
// (net/ipv4/sysctl_net_ipv4.c).
func (h *Handle) sysctlMultipath(key, name, value string) error {
	v, err := strconv.ParseUint(strings.TrimSpace(value), 10, 32)
	if err != nil {
		return errno.Errorf(syscall.EINVAL, "sysctl %s: invalid value %q", key, value)
	}
	switch name {
	case "fib_multipath_hash_seed":
		return h.do("sysctl", func(t *sim.Task, tb *netdev.Table) error {
			h.n.setMultipathSeed(uint32(v))
			return nil
		})
	case "fib_multipath_hash_policy":
		if v > 3 {
			return errno.Errorf(syscall.EINVAL, "sysctl %s: invalid value %q", key, value)
		}
		if v != 0 {
			return errno.Errorf(syscall.EOPNOTSUPP, "sysctl %s: only policy 0 (layer 3) is modelled", key)
		}
		return nil
	}
	return errno.Errorf(syscall.ENOENT, "sysctl %s is not modelled", key)
}

func sysctlPath(key string) []string {
	if strings.HasPrefix(key, "net/") {
		return strings.Split(key, "/")
	}
	parts := strings.Split(key, ".")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(p, "/", ".")
	}
	return parts
}
