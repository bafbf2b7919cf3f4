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

// lookup returns the device named name: ENODEV when there is none, EINVAL
// for an empty name.
func lookup(tb *netdev.Table, name string) (*netdev.Device, error) {
	// rtnl_dev_get reads IFLA_IFNAME with nla_strscpy.
	if name = netdev.IfNameAttr(name); name == "" {
		return nil, errno.New(syscall.EINVAL, "Device name is required")
	}
	return tb.Lookup(name)
}

// linkDev returns the device a link request names: by ifindex when index
// is above 0, else by name (IFLA_IFNAME, cut at its first NUL). A missing
// device is ENODEV, a request that names none EINVAL; the messages are
// netsim's (the kernel's rtnl_dev_get callers answer bare errnos, and
// HasExtack drops these).
//
// Kernel: __dev_get_by_index, rtnl_dev_get (net/core/rtnetlink.c).
func linkDev(tb *netdev.Table, index netdev.IfIndex, name string) (*netdev.Device, error) {
	if index > 0 {
		if d := tb.ByIndex(index); d != nil {
			return d, nil
		}
		return nil, errno.Errorf(syscall.ENODEV, "No device with ifindex %d", index)
	}
	return lookup(tb, name)
}

// DelLink serves an RTM_DELLINK request: in the namespace r.TargetNSID
// names (the requester's without one; an id it has not given is a bare
// EINVAL), it deletes the device r names
// (ifi_index, else IFLA_IFNAME; a veth's peer goes with it), else every
// device of r.Group in one request (group 0 is EPERM), else the devices of
// r.IfindexList in one request, which a kernel without seed 004's patch
// (Config.IfindexList false) does not know: the request then names no
// device and fails with EINVAL.
//
// Kernel: rtnl_dellink, rtnl_group_dellink (net/core/rtnetlink.c);
// rtnl_list_dellink (patch v3, never merged).
func (h *Handle) DelLink(r LinkRequest) error {
	return h.doFrom(r.Origin, "RTM_DELLINK", func(t *sim.Task, tb *netdev.Table) error {
		n, err := h.targetOf(r.TargetNSID)
		if err != nil {
			return err
		}
		if n != h.n {
			n.cur = r.Origin
			defer func() { n.cur = Origin{} }()
		}
		tb = n.devs
		switch {
		case r.Index > 0 || r.Name != "":
			d, err := linkDev(tb, r.Index, r.Name)
			if err != nil {
				return err
			}
			return tb.DelLink(t, d)
		case r.Group != nil:
			return tb.DelGroup(t, *r.Group)
		case r.IfindexList != nil:
			if !h.n.k.cfg.IfindexList {
				return errno.New(syscall.EINVAL, "IFLA_IFINDEX_LIST is not supported by this kernel")
			}
			return tb.DelIfindexList(t, r.IfindexList)
		}
		_, err = linkDev(tb, 0, "")
		return err
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
	// LinkNetns: the device Link names is in another namespace (a veth
	// whose peer moved, a macvlan whose lower did): LinkIndex is its
	// ifindex there and Link is "", and LinkNetnsID is the id that the
	// namespace the message is for has for that namespace
	// (IFLA_LINK_NETNSID; NsidNotAssigned while one of them is being
	// dismantled).
	LinkNetns   bool
	LinkNetnsID int32
	// NetnsImmutable: the device may not change namespace
	// (IFLA_NETNS_IMMUTABLE, netdev.Device.NetnsImmutable).
	NetnsImmutable bool
	// NewIndex is the ifindex that a device leaving the namespace takes
	// in its new one, and NewNetnsID the id the namespace it leaves has
	// for the one it enters: set only in that RTM_DELLINK
	// (IFLA_NEW_IFINDEX, IFLA_NEW_NETNSID).
	NewIndex   netdev.IfIndex
	NewNetnsID int32
	// TargetNetnsID is the id a request for another namespace's devices
	// named it by (IFLA_TARGET_NETNSID), sent back in each of their
	// messages; nil otherwise.
	TargetNetnsID *int32
	VlanID        uint16
	MacvlanMode   netdev.MacvlanMode
	BondMode      netdev.BondMode
	VRFTable      uint32
	Bridge        *netdev.BridgeInfo     // a bridge's IFLA_INFO_DATA, or nil
	BridgePort    *netdev.BridgePortInfo // a bridge port's IFLA_INFO_SLAVE_DATA, or nil
	Vxlan         *netdev.VxlanInfo      // a vxlan's IFLA_INFO_DATA, or nil
	Headroom      int                    // IFLA_HEADROOM: needed_headroom (a vxlan's encapsulation)
	Bond          *netdev.BondInfo       // a bond's IFLA_INFO_DATA, or nil
	BondSlave     *netdev.BondSlaveInfo  // a bond port's IFLA_INFO_SLAVE_DATA, or nil
	Vlan          *netdev.VlanInfo       // a vlan's IFLA_INFO_DATA, or nil
	Macvlan       *netdev.MacvlanInfo    // a macvlan's IFLA_INFO_DATA, or nil
	UC, MC        []hwaddr.Entry         // the address lists, in list order
	RefCount      int64

	// What rtnl_fill_ifinfo adds for `ip -d -s` (see fillDetails).
	Type                     uint16 // ifi_type: ARPHRDEther or ARPHRDLoopback
	LinkMode                 uint8  // IFLA_LINKMODE: 0, IF_LINK_MODE_DEFAULT
	NumTxQueues, NumRxQueues uint32 // IFLA_NUM_TX_QUEUES, IFLA_NUM_RX_QUEUES
	GSOMaxSize, GSOMaxSegs   uint32 // IFLA_GSO_MAX_SIZE, IFLA_GSO_MAX_SEGS
	TSOMaxSize, TSOMaxSegs   uint32 // IFLA_TSO_MAX_SIZE, IFLA_TSO_MAX_SEGS
	GROMaxSize               uint32 // IFLA_GRO_MAX_SIZE
	AddrGenMode              uint8  // IFLA_INET6_ADDR_GEN_MODE (AddrGenMode*)
	// Inet6: the device has IPv6 (an inet6_dev), so IFLA_AF_SPEC has
	// its AF_INET6 part (inet6_get_link_af_size is 0 without one: a
	// device below IPV6_MIN_MTU has none).
	Inet6                 bool
	Stats                 LinkStats
	CarrierChanges        uint32 // IFLA_CARRIER_CHANGES
	MacvlanBcQueueLen     uint32 // IFLA_MACVLAN_BC_QUEUE_LEN
	MacvlanBcQueueLenUsed uint32 // IFLA_MACVLAN_BC_QUEUE_LEN_USED
	VlanFlags             uint32 // IFLA_VLAN_FLAGS (VLAN_FLAG_*)

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
		Bridge: d.BridgeInfo(), BridgePort: d.BridgePortInfo(), Vxlan: d.VxlanInfo(), Headroom: d.Headroom(),
		Bond: d.BondInfo(), BondSlave: d.BondSlaveInfo(), Vlan: d.VlanInfo(), Macvlan: d.MacvlanInfo(),
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
	l := d.Link()
	if l == nil {
		l = d.Peer()
	}
	if l != nil {
		li.Link, li.LinkIndex = l.Name(), l.Index()
		if l.Table() != d.Table() {
			li.Link, li.LinkNetns = "", true
		}
	}
	li.NetnsImmutable = d.NetnsImmutable()
	fillDetails(&li, d)
	li.CarrierOK = d.CarrierOK()
	return li
}

// LinkGetRequest is an RTM_GETLINK request without NLM_F_DUMP: the device
// by ifindex (when > 0) or by name, and what the kernel checks of a strict
// request (NETLINK_GET_STRICT_CHK).
type LinkGetRequest struct {
	Origin
	Index netdev.IfIndex // ifi_index
	Name  string         // IFLA_IFNAME or IFLA_ALT_IFNAME
	// GetChecks: a strict request may carry no pad, ifi_type, ifi_flags
	// or ifi_change, and no attribute but IFLA_IFNAME, IFLA_ALT_IFNAME,
	// IFLA_EXT_MASK and IFLA_TARGET_NETNSID.
	GetChecks
	// TargetNSID is IFLA_TARGET_NETNSID: an id the requester's namespace
	// has for the namespace the device is looked up in; nil for the
	// requester's own.
	TargetNSID *int32
}

// GetLink returns a snapshot of the device r names (see linkDev), after
// the checks of r: in the namespace r.TargetNSID names, if any (an id the
// requester has not given is a bare EINVAL).
//
// Kernel: rtnl_getlink, rtnl_valid_getlink_req (net/core/rtnetlink.c).
func (h *Handle) GetLink(r LinkGetRequest) (LinkInfo, error) {
	var li LinkInfo
	if err := r.err("Invalid values in header for get link request", "Unsupported attribute in get link request"); err != nil {
		return li, err
	}
	err := h.doFrom(r.Origin, "RTM_GETLINK", func(t *sim.Task, tb *netdev.Table) error {
		n, err := h.targetOf(r.TargetNSID)
		if err != nil {
			return err
		}
		d, err := linkDev(n.devs, r.Index, r.Name)
		if err != nil {
			return err
		}
		li = linkInfo(d)
		li.LinkNetnsID = h.n.linkNetnsid(t, d)
		li.TargetNetnsID = r.TargetNSID
		return nil
	})
	return li, err
}

// LinkDumpRequest is an RTM_GETLINK request with NLM_F_DUMP: its filters
// and, for a strict request (NETLINK_GET_STRICT_CHK), what the kernel
// checks of its header and attributes.
type LinkDumpRequest struct {
	Origin
	Strict bool
	// BadHeader: the ifinfomsg has a non-zero pad, ifi_type, ifi_flags or
	// ifi_change (refused by a strict dump).
	BadHeader bool
	Index     netdev.IfIndex // ifi_index (a strict dump refuses a filter by it)
	// AttrErr is the attributes' parse error, which a strict dump answers
	// after its header checks (a dump that is not strict walks every
	// device unfiltered instead, and carries none).
	AttrErr error
	Master  netdev.IfIndex // IFLA_MASTER: only the ports of this master (0: no filter)
	// Kind is IFLA_LINKINFO's IFLA_INFO_KIND: only devices of this kind;
	// "" (or a kind the kernel does not know) filters nothing.
	Kind string
	// TargetNetnsIDAt and UnsupportedAt are the positions (from 1, in
	// type order, 0 for none) of an IFLA_TARGET_NETNSID and of the first
	// attribute a strict dump does not support: the dump checks the
	// attributes in type order. TargetNSID is IFLA_TARGET_NETNSID's
	// value: an id the requester's namespace has for the namespace whose
	// devices the dump lists.
	TargetNetnsIDAt, UnsupportedAt int
	TargetNSID                     int32
}

// LinkDump is a link dump in progress: its filter, the namespace it lists
// (target, an id of the requester's, when hasTarget) and the ifindex it
// resumes at (ctx->ifindex).
type LinkDump struct {
	h         *Handle
	from      netdev.IfIndex
	master    netdev.IfIndex
	kind      string
	target    int32
	hasTarget bool
}

// errBadTarget is the answer to an IFLA_TARGET_NETNSID or
// IFA_TARGET_NETNSID that names no namespace: get_net_ns_by_id finds
// none, and rtnl_get_net_ns_capable answers EINVAL.
func errBadTarget(msg string) error { return errno.New(syscall.EINVAL, msg) }

// targetNet returns the namespace the requester's id names (an id it has
// given, to a namespace still alive), or nil.
//
// Kernel: rtnl_get_net_ns_capable → get_net_ns_by_id
// (net/core/rtnetlink.c, net/core/net_namespace.c).
func (h *Handle) targetNet(id int32) *Net { return h.n.find(id) }

// targetOf is targetNet for a request's optional id: the requester's own
// namespace without one; an id that names none is a bare EINVAL (what
// rtnl_getlink, rtnl_dellink and inet6_rtm_getaddr answer).
func (h *Handle) targetOf(id *int32) (*Net, error) {
	if id == nil {
		return h.n, nil
	}
	if n := h.targetNet(*id); n != nil {
		return n, nil
	}
	return nil, errBadTarget("")
}

// DumpLinks checks a link dump request and returns its cursor; nothing is
// walked until Next. A strict request is refused (EINVAL) for a header
// with values, a filter by ifindex, its attributes' parse error or an
// attribute the dump does not support; any request for an
// IFLA_TARGET_NETNSID that names no namespace. With a target, the dump
// lists the target's devices, each message carrying the id.
//
// Kernel: rtnl_dump_ifinfo, rtnl_valid_dump_ifinfo_req
// (net/core/rtnetlink.c).
func (h *Handle) DumpLinks(r LinkDumpRequest) (*LinkDump, error) {
	if r.Strict {
		switch {
		case r.BadHeader:
			return nil, errno.New(syscall.EINVAL, "Invalid values in header for link dump request")
		case r.Index != 0:
			return nil, errno.New(syscall.EINVAL, "Filter by device index not supported for link dumps")
		case r.AttrErr != nil:
			return nil, r.AttrErr
		}
	}
	unsupported := r.Strict && r.UnsupportedAt != 0
	target := r.TargetNetnsIDAt != 0 && (!unsupported || r.TargetNetnsIDAt < r.UnsupportedAt)
	if target && h.targetNet(r.TargetNSID) == nil {
		return nil, errBadTarget("Invalid target network namespace id")
	}
	if unsupported {
		return nil, errno.New(syscall.EINVAL, "Unsupported attribute in link dump request")
	}
	d := &LinkDump{h: h, master: r.Master, target: r.TargetNSID, hasTarget: target}
	if netdev.KnownKind(r.Kind) {
		d.kind = r.Kind
	}
	return d, nil
}

// Filtered reports whether the dump filters (NLM_F_DUMP_FILTERED).
func (d *LinkDump) Filtered() bool { return d.master != 0 || d.kind != "" }

// Next is one part of the dump: with RTNL held, it calls fn for the
// devices the filter leaves from the cursor on, in ifindex order, until
// fn returns false, and leaves the cursor at the device fn refused. The
// part's Seq is the namespace's dev_base_seq. fn runs with RTNL held: it
// must not call the Handle.
//
// With a target, each part finds the namespace again by its id, as each
// call of the kernel's dumpit parses the request again: one gone since
// the last part ends the dump with EINVAL.
//
// Kernel: rtnl_dump_ifinfo, link_dump_filtered (link_master_filtered,
// link_kind_filtered), for_each_netdev_dump from ctx->ifindex.
func (d *LinkDump) Next(fn func(*LinkInfo) bool) (DumpSeq, error) {
	h := d.h
	var ds DumpSeq
	err := h.do("RTM_GETLINK", func(t *sim.Task, tb *netdev.Table) error {
		n := h.n
		if d.hasTarget {
			if n = h.targetNet(d.target); n == nil {
				return errBadTarget("Invalid target network namespace id")
			}
			tb = n.devs
		}
		ds = DumpSeq{Seq: n.gens.devBase, Done: true}
		for _, dev := range tb.DevicesByIndex() {
			if dev.Index() < d.from {
				continue
			}
			if d.filtered(dev) {
				continue
			}
			li := linkInfo(dev)
			li.LinkNetnsID = h.n.linkNetnsid(t, dev)
			if d.hasTarget {
				li.TargetNetnsID = &d.target
			}
			if !fn(&li) {
				d.from, ds.Done = dev.Index(), false
				return nil
			}
		}
		return nil
	})
	return ds, err
}

// filtered reports whether the dump's master or kind filter leaves dev
// out, before anything of dev is copied.
//
// Kernel: link_dump_filtered (link_master_filtered, link_kind_filtered).
func (d *LinkDump) filtered(dev *netdev.Device) bool {
	if d.master != 0 {
		if m := dev.Master(); m == nil || m.Index() != d.master {
			return true
		}
	}
	return d.kind != "" && dev.Kind() != d.kind
}

// Close ends the dump; a link dump holds nothing between its parts.
func (d *LinkDump) Close() {}

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
