// Links: the RTM_NEWLINK, RTM_SETLINK, RTM_DELLINK and RTM_GETLINK
// requests and the link dump, and the snapshot of a device they answer
// with. Kernel: rtnl_newlink, rtnl_setlink, rtnl_dellink,
// rtnl_group_dellink, rtnl_getlink, rtnl_dump_ifinfo, rtnl_fill_ifinfo
// (net/core/rtnetlink.c); dev_get_by_name / SIOCGIFINDEX
// (net/core/dev_ioctl.c). do_setlink's order is in setlink.go.

package rtnl

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

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

// LinkDump is one part of a link dump: with RTNL held, it calls fn for the
// devices whose ifindex is at least *from, in ifindex order, until fn
// returns false, and leaves *from at the ifindex of the device fn refused.
// The part's Seq is the namespace's dev_base_seq.
//
// Kernel: rtnl_dump_ifinfo (net/core/rtnetlink.c), for_each_netdev_dump
// from ctx->ifindex.
func (h *Handle) LinkDump(from *netdev.IfIndex, fn func(*LinkInfo) bool) (DumpSeq, error) {
	var ds DumpSeq
	err := h.do("RTM_GETLINK", func(t *sim.Task, tb *netdev.Table) error {
		ds = DumpSeq{Seq: h.n.gens.devBase, Done: true}
		for _, d := range tb.Devices() {
			if d.Index() < *from {
				continue
			}
			li := linkInfo(d)
			if !fn(&li) {
				*from, ds.Done = d.Index(), false
				return nil
			}
		}
		return nil
	})
	return ds, err
}

// LinkIndex returns the ifindex of the device named name, or 0 if there is
// none: what `ip` asks before naming a device in a request.
//
// Kernel: if_nametoindex → SIOCGIFINDEX (dev_ifconf.c, dev_get_by_name_rcu).
func (h *Handle) LinkIndex(name string) netdev.IfIndex {
	var i netdev.IfIndex
	_ = h.do("SIOCGIFINDEX", func(t *sim.Task, tb *netdev.Table) error {
		if d := tb.ByName(name); d != nil {
			i = d.Index()
		}
		return nil
	})
	return i
}
