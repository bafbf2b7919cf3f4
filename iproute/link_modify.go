// `ip link add`, `ip link set` and `ip link del`: iproute2's
// ip/iplink.c (iplink_modify), which sends RTM_NEWLINK and RTM_DELLINK
// (rtnl_newlink, rtnl_dellink, do_setlink in net/core/rtnetlink.c).

package iproute

import (
	"strconv"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

func (ip *IP) linkAdd(h *handle, argv []string) error {
	r, err := parseLink(h, argv, true)
	if err != nil {
		return err
	}
	return h.dropAfter(r, ip.linkCreate(h, r, rt.NLMCreate|rt.NLMExcl))
}

// linkReplace is `ip link replace`: RTM_NEWLINK with NLM_F_CREATE and
// NLM_F_REPLACE, which creates the device as add does, and which the
// kernel refuses for a device that exists (rtnl_newlink: EOPNOTSUPP).
func (ip *IP) linkReplace(h *handle, argv []string) error {
	r, err := parseLink(h, argv, true)
	if err != nil {
		return err
	}
	return h.dropAfter(r, ip.linkCreate(h, r, rt.NLMCreate|rt.NLMReplace))
}

// linkCreate sends the RTM_NEWLINK that creates a device, with flags
// (NLM_F_CREATE and NLM_F_EXCL or NLM_F_REPLACE).
func (ip *IP) linkCreate(h *handle, r *linkReq, flags rt.NLMFlags) error {
	name := r.name
	if !r.hasKind {
		return failf("Not enough information: \"type\" argument is required\n")
	}
	var spec netdev.LinkSpec
	ta := &args{w: r.typeArgs}
	switch r.kind {
	case "dummy":
		// dummy_link_util has no parse_opt: ip ignores the words after
		// "type dummy".
		spec = netdev.Dummy{Name: name, Attrs: r.attrs()}
	case "ifb":
		// ifb_link_util has no parse_opt either.
		spec = netdev.IFB{Name: name, Attrs: r.attrs()}
	case "veth":
		v := netdev.Veth{Name: name, Attrs: r.attrs()}
		if ta.more() {
			if ta.peek() != "peer" {
				// veth's usage() prints with printf: to stdout.
				ip.out.WriteString("Usage: ip link <options> type veth [peer <options>]\nTo get <options> type 'ip link add help'\n")
				return &cmdError{status: exitFailure}
			}
			pr, err := parseLink(h, ta.w[1:], true)
			if err != nil {
				return err
			}
			switch {
			case pr.hasKind:
				return duparg("type", pr.kind)
			case pr.master != "", pr.nomaster:
				return notSupported("ip link add ... peer", "master")
			case pr.link != "":
				return notSupported("ip link add ... peer", "link")
			}
			if err := pr.refusal("ip link add ... peer"); err != nil {
				return err
			}
			if pr.hasAddr {
				r.peerAddrLen = pr.addrLen
			}
			r.peer = pr
			v.Peer = pr.name
			if v.Peer == "" {
				v.Peer = pr.dev
			}
			v.PeerAttrs = pr.attrs()
			v.PeerUp = pr.up() // the kernel fails it with ENOTCONN
		}
		spec = v
	case "macvlan":
		m, err := parseMacvlan(r.typeArgs, netdev.Macvlan{Name: name, Link: r.link, Attrs: r.attrs()})
		if err != nil {
			return err
		}
		spec = m
	case "vlan":
		v, err := parseVlan(r.typeArgs, netdev.Vlan{Name: name, Link: r.link, Attrs: r.attrs()})
		if err != nil {
			return err
		}
		// ip sends IFLA_INFO_DATA only with words after the kind
		// (iplink_modify), and IFLA_VLAN_ID only with an id.
		v.NoData, v.NoID = len(r.typeArgs) == 0, v.Settings.ID == nil
		spec = v
	case "bond":
		b, err := parseBond(h, r.typeArgs, netdev.Bond{Name: name, Attrs: r.attrs()})
		if err != nil {
			return err
		}
		spec = b
	case "vrf":
		v, err := parseVRF(r.typeArgs, netdev.VRF{Name: name, Attrs: r.attrs()})
		if err != nil {
			return err
		}
		spec = v
	case "bridge":
		bs, err := parseBridgeOpts(r.typeArgs)
		if err != nil {
			return err
		}
		spec = netdev.Bridge{Name: name, Attrs: r.attrs(), Settings: bs}
	case "vxlan":
		// Without words after the kind, ip calls no parse_opt and sends
		// no IFLA_INFO_DATA.
		var vs netdev.VxlanSettings
		if ta.more() {
			var err error
			if vs, err = parseVxlan(h, r.typeArgs, false, ip.family, ip.Stderr); err != nil {
				return err
			}
		}
		spec = netdev.Vxlan{Name: name, Attrs: r.attrs(), Settings: vs}
	default:
		if text, stdout, ok := otherKindAddHelp(r.kind); ok && kindHelpWord(r.typeArgs) {
			// The kind's parse_opt answers help itself, before any
			// request: ip exits with status 1.
			if stdout {
				ip.out.WriteString(text)
				return &cmdError{status: exitFailure}
			}
			return failf("%s", text)
		}
		if ta.more() && !ipHasLinkUtil(r.kind) {
			// ip has no link_util for the kind: any argument is
			// garbage, refused before a request is sent.
			if matches(ta.peek(), "help") {
				return usageErr(linkUsage)
			}
			return failf("Garbage instead of arguments \"%s ...\". Try \"ip link help\".\n", ta.peek())
		}
		if netdev.KnownKind(r.kind) {
			return failf("Kind \"%s\" is not supported by netsim.\n", r.kind)
		}
		// A link_util without parse_opt ignores the words after the kind;
		// the kernel answers that it does not know the kind.
		spec = netdev.Other{Name: name, Kind: r.kind, Attrs: r.attrs()}
	}
	if err := r.refusal("ip link add"); err != nil {
		return err
	}

	if r.hasAddr && r.addrLen < len(netdev.MAC{}) || r.peerAddrLen > 0 && r.peerAddrLen < len(netdev.MAC{}) {
		// validate_linkmsg: IFLA_ADDRESS shorter than the device's.
		return errno.New(syscall.EINVAL, "")
	}
	if r.netns != nil || r.peer != nil && r.peer.netns != nil || r.linkNsid != nil {
		return h.NewLink(newLinkElsewhere(h, flags, name, spec, r))
	}
	if err := h.NewLink(rtnl.LinkRequest{Flags: flags, Name: name, Spec: spec}); err != nil {
		return err
	}
	// The rest of the same request: the peer's flags, master, then flags.
	// If one fails, the kernel unregisters the new device
	// (rtnl_newlink_create's out_unregister), and so does this.
	if name == "" {
		return nil
	}
	var err2 error
	if r.peer != nil && r.peer.flMsk&^netdev.FlagUp != 0 {
		if l, err := h.LinkByName(name); err == nil {
			err2 = changeFlags(h, l.Link, r.peer)
		}
	}
	if err2 == nil && r.master != "" {
		err2 = h.LinkSetMaster(name, r.master)
	}
	if err2 == nil && r.flMsk != 0 {
		err2 = changeFlags(h, name, r)
	}
	if err2 != nil {
		_ = h.LinkDel(name)
	}
	return err2
}

// newLinkElsewhere is a creation whose device or veth peer goes to
// another namespace: the peer's flags and namespace, the device's
// namespace, master (by the ifindex ip finds for its name in its own
// namespace) and flags travel in the one request, as ip sends them.
func newLinkElsewhere(h *handle, flags rt.NLMFlags, name string, spec netdev.LinkSpec, r *linkReq) rtnl.LinkRequest {
	req := rtnl.LinkRequest{Flags: flags, Name: name, Spec: spec, LinkNSID: r.linkNsid}
	if r.netns != nil {
		req.Change.Netns = *r.netns
	}
	if p := r.peer; p != nil {
		req.Peer = &rtnl.LinkChange{}
		if p.netns != nil {
			req.Peer.Netns = *p.netns
		}
		if p.flMsk&^netdev.FlagUp != 0 {
			req.Peer.SetFlags, req.Peer.Flags, req.Peer.Change = true, p.flags, p.flMsk
		}
	}
	if r.master != "" {
		m := h.LinkIndex(r.master)
		req.Change.Master = &m
	}
	if r.flMsk != 0 {
		req.Change.SetFlags, req.Change.Flags, req.Change.Change = true, r.flags, r.flMsk
	}
	return req
}

func bondMode(s string) (netdev.BondMode, bool) {
	for i, n := range bondModeNames {
		if s == n || s == strconv.Itoa(i) {
			return netdev.BondMode(i), true
		}
	}
	return 0, false
}

func (ip *IP) linkSet(h *handle, argv []string) error {
	r, err := parseLink(h, argv, false)
	if err != nil {
		return err
	}
	return h.dropAfter(r, ip.linkSetDevs(h, r))
}

// linkSetDevs sends `ip link set`'s request for its device or group.
func (ip *IP) linkSetDevs(h *handle, r *linkReq) error {
	// The kind's changelink request (rtnl_changelink): one of these.
	var change *rtnl.LinkChange
	switch {
	case !r.hasKind:
	case r.kind == "vxlan":
		// ip sends IFLA_INFO_DATA only when words follow the kind.
		vs := netdev.VxlanSettings{}
		if len(r.typeArgs) > 0 {
			var err error
			if vs, err = parseVxlan(h, r.typeArgs, true, ip.family, ip.Stderr); err != nil {
				return err
			}
		}
		change = &rtnl.LinkChange{Vxlan: &vs}
	case r.kind == "bridge":
		bs, err := parseBridgeOpts(r.typeArgs)
		if err != nil {
			return err
		}
		change = &rtnl.LinkChange{Bridge: &bs}
	case r.kind == "bridge_slave":
		ps, err := parseBridgeSlaveOpts(h, r.typeArgs)
		if err != nil {
			return err
		}
		change = &rtnl.LinkChange{BridgePort: &ps}
	case r.kind == "bond":
		b, err := parseBond(h, r.typeArgs, netdev.Bond{})
		if err != nil {
			return err
		}
		change = &rtnl.LinkChange{Bond: &b.Settings}
	case r.kind == "bond_slave":
		bs, err := parseBondSlave(r.typeArgs)
		if err != nil {
			return err
		}
		change = &rtnl.LinkChange{BondSlave: &bs}
	case r.kind == "vlan":
		v, err := parseVlan(r.typeArgs, netdev.Vlan{})
		if err != nil {
			return err
		}
		change = &rtnl.LinkChange{Vlan: &v.Settings}
	case r.kind == "macvlan":
		m, err := parseMacvlan(r.typeArgs, netdev.Macvlan{})
		if err != nil {
			return err
		}
		change = &rtnl.LinkChange{Macvlan: &m.Settings}
	default:
		return notSupported("ip link set", "type")
	}
	if len(r.typeArgs) == 0 && r.kind != "vxlan" {
		// ip sends IFLA_INFO_DATA (or IFLA_INFO_SLAVE_DATA) only when
		// words follow the kind; without it rtnl_changelink changes
		// nothing, and only the kind's validate looks at the request
		// (vxlan's and vlan's refuse it).
		change = nil
		if r.kind == "vlan" {
			change = &rtnl.LinkChange{VlanNoData: true}
		}
	}
	if err := r.refusal("ip link set"); err != nil {
		return err
	}
	devs := []rtnl.LinkInfo{{Index: r.ifindex, Name: r.dev}}
	if r.dev == "" {
		// `ip link set group G ...`: every device of group G.
		links, err := h.LinkList()
		if err != nil {
			return err
		}
		devs = nil
		for _, l := range links {
			if l.Group == r.group {
				devs = append(devs, l)
			}
		}
		r.hasGroup = false
	}
	for _, d := range devs {
		// rtnl_newlink on an existing device: IFLA_LINK_NETNSID names
		// a namespace (changelink does not look at it), changelink,
		// then do_setlink.
		if r.linkNsid != nil {
			if err := h.NewLink(rtnl.LinkRequest{Index: d.Index, LinkNSID: r.linkNsid}); err != nil {
				return err
			}
		}
		if change != nil {
			c := *change
			if c.Vxlan != nil {
				// One request: vxlan_validate sees its IFLA_ADDRESS and
				// IFLA_MTU, and vxlan_changelink refuses the MTU.
				if r.hasAddr {
					c.Addr = &r.addr
				}
				if r.hasMTU {
					c.MTU = &r.mtu
				}
			}
			if err := h.setIndex(d.Index, c); err != nil {
				return err
			}
		}
		if err := setLink(h, d, r); err != nil {
			return err
		}
	}
	return nil
}

// setIndex sends an RTM_NEWLINK without NLM flags that names the device
// by ifindex, as ip's requests name it: an index ip's cache held for a
// device that has gone since fails with ENODEV.
func (h *handle) setIndex(index netdev.IfIndex, c rtnl.LinkChange) error {
	return h.NewLink(rtnl.LinkRequest{Index: index, Change: c})
}

// setLink applies a `link set` request to one device (named by ifindex;
// dev is its name) in do_setlink's order: address, mtu, group, name,
// alias, flags, master, txqueuelen. The kernel applies them one by one: a
// failure leaves the earlier ones done.
func setLink(h *handle, dev rtnl.LinkInfo, r *linkReq) error {
	var steps []rtnl.LinkChange
	if r.hasAddr {
		steps = append(steps, rtnl.LinkChange{Addr: &r.addr})
	}
	if r.hasMTU {
		steps = append(steps, rtnl.LinkChange{MTU: &r.mtu})
	}
	if r.hasGroup {
		steps = append(steps, rtnl.LinkChange{Group: &r.group})
	}
	if r.name != "" && r.name != dev.Name {
		steps = append(steps, rtnl.LinkChange{Name: r.name})
	}
	if r.hasAlias {
		steps = append(steps, rtnl.LinkChange{Alias: &r.alias})
	}
	if r.flMsk != 0 {
		steps = append(steps, flagsChange(r))
	}
	if r.master != "" {
		steps = append(steps, rtnl.LinkChange{MasterName: &r.master})
	}
	if r.nomaster {
		steps = append(steps, rtnl.LinkChange{Master: new(netdev.IfIndex(0))})
	}
	if r.hasTxqlen {
		steps = append(steps, rtnl.LinkChange{TxQueueLen: &r.txqlen})
	}
	if r.netns != nil {
		// The move comes first, and the device is elsewhere after it:
		// one request carries every change, with "name" as the name to
		// take where the device's own is in use.
		c := rtnl.LinkChange{Netns: *r.netns, Name: r.name}
		if r.hasIndex {
			c.NewIndex = r.index // IFLA_NEW_IFINDEX
		}
		for _, s := range steps {
			mergeChange(&c, s)
		}
		return h.setIndex(dev.Index, c)
	}
	for _, c := range steps {
		if err := h.setIndex(dev.Index, c); err != nil {
			return err
		}
	}
	return nil
}

// mergeChange adds to c the one change step s carries.
func mergeChange(c *rtnl.LinkChange, s rtnl.LinkChange) {
	switch {
	case s.Addr != nil:
		c.Addr = s.Addr
	case s.MTU != nil:
		c.MTU = s.MTU
	case s.Group != nil:
		c.Group = s.Group
	case s.Alias != nil:
		c.Alias = s.Alias
	case s.Up != nil:
		c.Up = s.Up
	case s.SetFlags:
		c.SetFlags, c.Flags, c.Change = true, s.Flags, s.Change
	case s.MasterName != nil:
		c.MasterName = s.MasterName
	case s.Master != nil:
		c.Master = s.Master
	case s.TxQueueLen != nil:
		c.TxQueueLen = s.TxQueueLen
	}
}

func (ip *IP) linkDel(h *handle, argv []string) error {
	r, err := parseLink(h, argv, false)
	if err != nil {
		return err
	}
	// rtnl_dellink reads only the device or group: the other attributes,
	// modelled or not, are ignored.
	if r.dev != "" {
		return h.dropAfter(r, h.DelLink(rtnl.LinkRequest{Index: r.ifindex}))
	}
	return h.LinkDelGroup(r.group)
}

// dropAfter is the end of iplink_modify: after a request that succeeded
// the device it named by ifindex leaves the process's cache
// (ll_drop_by_index), and its next use asks the kernel again. A request that
// named no device (a creation without an index, a group) drops nothing,
// and the cache keeps whatever the request deleted or renamed besides.
func (h *handle) dropAfter(r *linkReq, err error) error {
	if err == nil {
		h.ll.drop(r.ifindex)
	}
	return err
}

// changeFlags sends the request's ifi_flags and ifi_change to the device
// named dev (flagsChange).
func changeFlags(h *handle, dev string, r *linkReq) error {
	return h.NewLink(rtnl.LinkRequest{Name: dev, Change: flagsChange(r)})
}

// flagsChange is the request's ifi_flags and ifi_change: up or down
// alone as before, other flags with dev_change_flags' order.
func flagsChange(r *linkReq) rtnl.LinkChange {
	if r.flMsk == netdev.FlagUp {
		return rtnl.LinkChange{Up: new(r.up())}
	}
	return rtnl.LinkChange{SetFlags: true, Flags: r.flags, Change: r.flMsk}
}
