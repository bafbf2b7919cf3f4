// RTM_NEWLINK and RTM_SETLINK: what a request changes on a device, the
// kernel's NLM flag semantics of rtnl_newlink and do_setlink's order.
// Kernel: rtnl_newlink, __rtnl_newlink, rtnl_changelink,
// rtnl_group_changelink, rtnl_newlink_create, rtnl_setlink, do_setlink,
// do_set_master (net/core/rtnetlink.c).

package rtnl

import (
	"cmp"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// LinkChange is what an RTM_NEWLINK or RTM_SETLINK request changes on an
// existing device, one field per attribute: a nil field is an attribute the
// request does not carry. The values are as the kernel reads them (MTU
// already a netdev.NetlinkMTU, TxQueueLen a u32).
type LinkChange struct {
	Addr       *netdev.MAC     // IFLA_ADDRESS
	MTU        *int            // IFLA_MTU
	Group      *uint32         // IFLA_GROUP
	Name       string          // IFLA_IFNAME as a new name (applied only when the device is named by ifindex)
	Alias      *string         // IFLA_IFALIAS ("" removes the alias)
	Broadcast  *netdev.MAC     // IFLA_BROADCAST: not modelled, refused
	SetFlags   bool            // the request has a non-zero ifi_flags or ifi_change
	Flags      netdev.Flags    // ifi_flags
	Change     netdev.Flags    // ifi_change (0 means every flag)
	Master     *netdev.IfIndex // IFLA_MASTER: the new master's ifindex, 0 for none
	TxQueueLen *int            // IFLA_TXQLEN

	// What a Go caller names by name where a message carries an
	// ifindex (ip resolves the names first): the new master (used when
	// Master is nil; an empty or unknown name fails), and a new name for
	// a device the request names by name.
	MasterName *string
	NewName    *string
	// Up is `ip link set up` or `down` alone: the device is opened or
	// closed (dev_open, dev_close), and nothing happens when it already
	// is; the other flags and the user's promiscuity are not looked at.
	Up *bool

	// Netns is the namespace the device moves to (IFLA_NET_NS_PID,
	// IFLA_NET_NS_FD or IFLA_TARGET_NETNSID), before anything else
	// changes; NewIndex (IFLA_NEW_IFINDEX) its ifindex there.
	Netns    NetnsRef
	NewIndex netdev.IfIndex

	// IFLA_INFO_DATA and IFLA_INFO_SLAVE_DATA of the kinds netsim models:
	// a bridge's and a bridge port's attributes (rtnl_changelink), a
	// bond's, a vlan's and a macvlan's, and a bond port's.
	Bridge     *netdev.BridgeSettings
	BridgePort *netdev.BridgePortSettings
	// Vxlan is a request of kind vxlan: its IFLA_INFO_DATA, which
	// vxlan_validate checks before any device is looked up, and
	// vxlan_changelink applies to an existing device.
	Vxlan     *netdev.VxlanSettings
	Bond      *netdev.BondSettings
	Vlan      *netdev.VlanSettings
	Macvlan   *netdev.MacvlanSettings
	BondSlave *netdev.BondSlaveSettings
	// VlanNoData: the request is of kind vlan without IFLA_INFO_DATA,
	// which vlan_validate refuses before any device is looked up.
	VlanNoData bool
	// SlaveDataErr is, by master kind ("bridge", "bond"), the error
	// IFLA_INFO_SLAVE_DATA's parse under that kind's slave policy gave:
	// the device's master decides which policy applies, and so which
	// of BridgePort, BondSlave and these errors counts.
	SlaveDataErr map[string]error
}

// LinkRequest is the body of RTM_NEWLINK, RTM_SETLINK and RTM_DELLINK:
// which device it names (ifi_index when > 0, else IFLA_IFNAME), its
// NLM_F_CREATE, NLM_F_EXCL and NLM_F_REPLACE flags (RTM_NEWLINK), what to
// create if the device does not exist, and what to change if it does.
type LinkRequest struct {
	Origin
	Flags rt.NLMFlags    // RTM_NEWLINK: rt.NLMCreate, rt.NLMExcl, rt.NLMReplace
	Index netdev.IfIndex // ifi_index: names the device when > 0
	Name  string         // IFLA_IFNAME (or IFLA_ALT_IFNAME): names the device when Index is 0
	Group *uint32        // IFLA_GROUP: without a device (or NLM_F_CREATE), the group to change or delete
	// IfindexList is RTM_DELLINK's IFLA_IFINDEX_LIST (seed 004's
	// patch): the devices to delete in one request; not nil when the
	// request carries the attribute (an empty one is refused).
	IfindexList []netdev.IfIndex
	// TargetNSID is RTM_DELLINK's IFLA_TARGET_NETNSID: an id the
	// requester's namespace has for the namespace the device (or group)
	// is deleted in; nil for the requester's own. (RTM_NEWLINK and
	// RTM_SETLINK carry theirs in Change.Netns: the namespace a device
	// moves to or is created in.)
	TargetNSID *int32

	// Spec is the device to create (its Attrs carry IFLA_MTU, IFLA_GROUP,
	// IFLA_ADDRESS, IFLA_TXQLEN and the ifindex); nil when the request
	// names no kind, or a kind netsim cannot create, with KindErr the
	// error a creation answers.
	Spec    netdev.LinkSpec
	KindErr error
	// KindMismatch: the request carries IFLA_INFO_DATA for a kind other
	// than the existing device's (rtnl_changelink's EOPNOTSUPP).
	KindMismatch bool

	Change LinkChange
	// Peer is what a veth's VETH_INFO_PEER changes on the new peer: its
	// ifi_flags and ifi_change, and its namespace (Netns; without one the
	// peer is created in LinkNSID's namespace, else in the requester's,
	// wherever the device is). The other fields are not looked at.
	Peer *LinkChange
	// LinkNSID is IFLA_LINK_NETNSID, an id the target namespace has (the
	// requester's without Change.Netns): the namespace of the device
	// IFLA_LINK names (a macvlan's or vlan's lower) and of a veth's peer
	// that names none of its own; nil for none.
	LinkNSID *int32
}

// NewLink serves an RTM_NEWLINK request under one hold of RTNL: it changes
// the device the request names if it exists (EEXIST with NLM_F_EXCL,
// EOPNOTSUPP with NLM_F_REPLACE), changes every device of a group, or
// creates the device with NLM_F_CREATE, then applies a veth peer's flags
// and the request's flags and master, unregistering the new device if one
// of them fails.
//
// Kernel: rtnl_newlink → __rtnl_newlink (net/core/rtnetlink.c):
// rtnl_changelink, rtnl_group_changelink, rtnl_newlink_create with
// rtnl_configure_link and do_set_master.
func (h *Handle) NewLink(r LinkRequest) error {
	return h.doFrom(r.Origin, "RTM_NEWLINK", func(t *sim.Task, tb *netdev.Table) error {
		defer t.Frame("rtnl_newlink")()
		tgt, err := r.Change.Netns.target(h.n)
		if err != nil {
			return err
		}
		linkTb, err := r.linkTable(h.n, tgt)
		if err != nil {
			return err
		}
		peerTb, err := r.peerTable(h.n, linkTb)
		if err != nil {
			return err
		}
		if v := r.Change.Vxlan; v != nil {
			if err := netdev.ValidateVxlan(*v, r.Change.Addr, r.Change.MTU); err != nil {
				return err
			}
		}
		if r.Change.VlanNoData {
			return errno.New(syscall.EINVAL, "8021q: VLAN properties not specified")
		}
		var d *netdev.Device
		named := false
		switch {
		case r.Index > 0:
			named = true
			d = tb.ByIndex(r.Index)
		case r.Index < 0:
			return errno.New(syscall.EINVAL, "ifindex can't be negative")
		case r.Name != "":
			named = true
			d = tb.ByName(netdev.IfNameAttr(r.Name))
		}
		if d != nil {
			if r.Flags&rt.NLMExcl != 0 {
				return errno.New(syscall.EEXIST, "")
			}
			if r.Flags&rt.NLMReplace != 0 {
				return errno.New(syscall.EOPNOTSUPP, "")
			}
			if r.KindMismatch {
				return errno.New(syscall.EOPNOTSUPP, "")
			}
			bridged := false
			if c := r.Change.Bridge; c != nil {
				if d.Kind() != "bridge" {
					return errno.Errorf(syscall.EOPNOTSUPP, "Device \"%s\" is not of kind bridge", d.Name())
				}
				if err := d.ChangeBridge(t, *c); err != nil {
					return err
				}
				bridged = true
			}
			notify, err := changeKindData(t, d, r.Change)
			if err != nil {
				return err
			}
			// A kind's changelink announces the device when the request
			// ends (DO_SETLINK_NOTIFY), the bridge's as the others'.
			notify = notify || bridged
			if err := changeSlaveData(t, d, r.Change); err != nil {
				if notify {
					d.StateChange(t)
				}
				return err
			}
			return doSetLink(t, tb, tgt, d, r.Index > 0, r.Change, notify)
		}
		if r.Flags&rt.NLMCreate == 0 {
			if named {
				_, err := linkDev(tb, r.Index, r.Name)
				return err
			}
			if r.Group == nil {
				return errno.New(syscall.ENODEV, "Device name is required")
			}
			for _, d := range tb.Devices() {
				if d.Group() == *r.Group {
					if err := doSetLink(t, tb, tgt, d, false, r.Change, false); err != nil {
						return err
					}
				}
			}
			return nil
		}
		if r.Spec == nil {
			if r.KindErr != nil {
				return r.KindErr
			}
			return errno.New(syscall.EOPNOTSUPP, "Unknown device type")
		}
		// rtnl_create_link makes the device in the target namespace, a
		// veth its peer in the peer's (veth_newlink).
		if tgt != nil {
			tb = tgt
		}
		spec := r.Spec
		// IFLA_LINK names a device of the link namespace, else of the
		// requester's (rtnl_newlink_link_net).
		lower := cmp.Or(linkTb, h.n.devs)
		switch v := spec.(type) {
		case netdev.Veth:
			if peerTb != tb {
				v.PeerTable = peerTb
				spec = v
			}
		case netdev.Macvlan:
			if tb != lower {
				v.LinkTable = lower
				spec = v
			}
		case netdev.Vlan:
			if tb != lower {
				v.LinkTable = lower
				spec = v
			}
		case netdev.Vxlan:
			if tb != lower {
				v.LinkTable = lower
				spec = v
			}
		}
		devs, err := tb.NewLink(t, spec)
		if err != nil {
			return err
		}
		d = devs[len(devs)-1] // a veth pair registers its peer first
		err = nil
		if r.Peer != nil && r.Peer.SetFlags && len(devs) == 2 {
			// veth_newlink: rtnl_configure_link of the peer.
			err = changeLinkFlags(t, devs[0], *r.Peer)
		}
		if err == nil && r.Change.SetFlags {
			err = changeLinkFlags(t, d, r.Change)
		}
		if err == nil && r.Change.Master != nil {
			err = setMasterIndex(t, tb, d, *r.Change.Master)
		}
		if err != nil {
			_ = tb.DelLink(t, d)
		}
		return err
	})
}

// SetLink serves an RTM_SETLINK request: do_setlink on the device named by
// ifindex or by name, ENODEV if there is none, EINVAL if the request names
// none (see linkDev). Only r's device and Change are looked at.
//
// Kernel: rtnl_setlink (net/core/rtnetlink.c).
func (h *Handle) SetLink(r LinkRequest) error {
	return h.doFrom(r.Origin, "RTM_SETLINK", func(t *sim.Task, tb *netdev.Table) error {
		defer t.Frame("rtnl_setlink")()
		tgt, err := r.Change.Netns.target(h.n)
		if err != nil {
			return err
		}
		d, err := linkDev(tb, r.Index, r.Name)
		if err != nil {
			return err
		}
		return doSetLink(t, tb, tgt, d, r.Index > 0, r.Change, false)
	})
}

// doSetLink applies c to d in do_setlink's order: the move to namespace
// tgt (unless nil), address, MTU, group,
// name (only for a device named by ifindex), alias, broadcast, flags,
// master, queue length. As in the kernel, a step that fails leaves the
// earlier steps applied (do_setlink warns "A link change request failed
// with some changes committed already") and the request answers its error. A group or an alias set
// announces the device when the request ends, failed or not
// (DO_SETLINK_NOTIFY), as does a kind's changelink before it (notify).
//
// Kernel: do_setlink (net/core/rtnetlink.c).
func doSetLink(t *sim.Task, tb, tgt *netdev.Table, d *netdev.Device, byIndex bool, c LinkChange, notify bool) error {
	defer t.Frame("do_setlink")()
	if tgt != nil && tgt != d.Table() {
		// The request's IFLA_IFNAME (the device's own name in a message
		// that names the device by it) is the name to take where its
		// own is in use.
		pat := c.Name
		if c.NewName != nil {
			pat = *c.NewName
		}
		if err := d.ChangeNetns(t, tgt, pat, c.NewIndex); err != nil {
			return err
		}
		tb = tgt
	}
	defer func() {
		if notify {
			d.StateChange(t)
		}
	}()
	if c.Addr != nil {
		if err := d.SetAddr(t, *c.Addr); err != nil {
			return err
		}
	}
	if c.MTU != nil {
		if err := d.SetMTU(t, *c.MTU); err != nil {
			return err
		}
	}
	if c.Group != nil {
		d.SetGroup(t, *c.Group)
		notify = true
	}
	if byIndex && c.Name != "" {
		if err := d.SetName(t, c.Name); err != nil {
			return err
		}
	} else if c.NewName != nil {
		if err := d.SetName(t, *c.NewName); err != nil {
			return err
		}
	}
	if c.Alias != nil {
		if err := d.SetAlias(t, *c.Alias); err != nil {
			return err
		}
		notify = true
	}
	if c.Broadcast != nil {
		return errno.New(syscall.EOPNOTSUPP, "Setting IFLA_BROADCAST is not modelled by netsim")
	}
	if c.SetFlags {
		if err := changeLinkFlags(t, d, c); err != nil {
			return err
		}
	}
	if c.Up != nil {
		if err := d.SetUp(t, *c.Up); err != nil {
			return err
		}
	}
	if c.Master != nil {
		if err := setMasterIndex(t, tb, d, *c.Master); err != nil {
			return err
		}
	} else if c.MasterName != nil {
		m, err := lookup(tb, *c.MasterName)
		if err != nil {
			return err
		}
		if err := d.SetMaster(t, m); err != nil {
			return err
		}
	}
	if c.TxQueueLen != nil {
		d.SetTxQueueLen(t, *c.TxQueueLen)
	}
	return nil
}

// changeLinkFlags applies a request's ifi_flags and ifi_change to the
// flags netsim models (netdev.UserFlags); an ifi_change of 0 stands for
// every flag.
//
// Kernel: dev_change_flags(dev, rtnl_dev_combine_flags(dev, ifm)).
func changeLinkFlags(t *sim.Task, d *netdev.Device, c LinkChange) error {
	defer t.Frame("dev_change_flags")()
	mask := c.Change
	if mask == 0 {
		mask = ^netdev.Flags(0)
	}
	return d.ChangeFlags(t, c.Flags, mask&netdev.UserFlags)
}

// setMasterIndex is do_set_master with an ifindex: 0 releases the device,
// an unknown ifindex is a bare EINVAL.
//
// Kernel: do_set_master (net/core/rtnetlink.c).
func setMasterIndex(t *sim.Task, tb *netdev.Table, d *netdev.Device, i netdev.IfIndex) error {
	if i == 0 {
		return d.SetMaster(t, nil)
	}
	if m := d.Master(); m != nil && m.Index() == i {
		return nil
	}
	m := tb.ByIndex(i)
	if m == nil {
		return errno.New(syscall.EINVAL, "")
	}
	return d.SetMaster(t, m)
}

// changeKindData is rtnl_changelink's IFLA_INFO_DATA for a bond, a vlan
// or a macvlan: the kind's changelink, which a device of another kind
// does not have (a bare EOPNOTSUPP: the request's kind is not the
// device's). It reports whether it changed the device, which do_setlink
// then announces (DO_SETLINK_NOTIFY).
//
// Kernel: rtnl_changelink (net/core/rtnetlink.c); bond_changelink,
// vlan_changelink, macvlan_changelink.
func changeKindData(t *sim.Task, d *netdev.Device, c LinkChange) (bool, error) {
	var err error
	switch {
	case c.Vxlan != nil && c.Vxlan.Data:
		err = d.ChangeVxlan(t, *c.Vxlan, c.MTU != nil)
	case c.Bond != nil:
		if d.Kind() != "bond" {
			return false, errno.New(syscall.EOPNOTSUPP, "")
		}
		err = d.ChangeBond(t, *c.Bond)
	case c.Vlan != nil:
		if d.Kind() != "vlan" {
			return false, errno.New(syscall.EOPNOTSUPP, "")
		}
		err = d.ChangeVlan(t, *c.Vlan)
	case c.Macvlan != nil:
		if d.Kind() != "macvlan" {
			return false, errno.New(syscall.EOPNOTSUPP, "")
		}
		err = d.ChangeMacvlan(t, *c.Macvlan)
	default:
		return false, nil
	}
	return err == nil, err
}

// changeSlaveData is rtnl_changelink's IFLA_INFO_SLAVE_DATA: the slave
// changelink of the device's master, with the slave data parsed under
// that master's policy. A device without a master, or whose master's kind
// has no slave changelink, answers EOPNOTSUPP.
//
// Kernel: rtnl_changelink (net/core/rtnetlink.c); br_port_slave_changelink,
// bond_slave_changelink.
func changeSlaveData(t *sim.Task, d *netdev.Device, c LinkChange) error {
	if c.BridgePort == nil && c.BondSlave == nil && c.SlaveDataErr == nil {
		return nil
	}
	kind := ""
	if m := d.Master(); m != nil {
		kind = m.Kind()
	}
	if err := c.SlaveDataErr[kind]; err != nil {
		return err
	}
	switch {
	case kind == "bond" && c.BondSlave != nil:
		return d.ChangeBondSlave(t, *c.BondSlave)
	case c.BridgePort != nil:
		// Not a bridge's port: EOPNOTSUPP.
		return d.ChangeBridgePort(t, *c.BridgePort)
	case c.BondSlave != nil:
		return d.ChangeBondSlave(t, *c.BondSlave)
	}
	return errno.New(syscall.EOPNOTSUPP, "")
}
