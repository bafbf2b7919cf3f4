// Nexthop objects' requests: RTM_NEWNEXTHOP, RTM_DELNEXTHOP and
// RTM_GETNEXTHOP (rtm_new_nexthop, rtm_del_nexthop, rtm_get_nexthop in
// net/ipv4/nexthop.c), and the notifications they cause (nexthop_notify).

package rtnl

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Nexthop describes a nexthop object to add or replace, as `ip nexthop add`
// sends it: devices by name. The zero Nexthop is not valid.
type Nexthop struct {
	ID        nexthop.ID            // 0 lets the kernel pick one
	Gateway   netip.Addr            // "via"
	Dev       string                // "dev"
	OnLink    bool                  // "onlink"
	Blackhole bool                  // "blackhole"
	FDB       bool                  // "fdb": an fdb nexthop (a gateway, no device) or a group of them
	Group     []nexthop.GroupMember // "group ID[,WEIGHT]/..."
	GroupType nexthop.GroupType     // "type mpath" (the default) or "type resilient"
	// Resilient is "buckets N idle_timer S unbalanced_timer S" after
	// "type resilient" (NHA_RES_GROUP); nil sends none, as ip does when
	// nothing follows "resilient".
	Resilient *nexthop.ResilientConfig
	Protocol  uint8 // "proto"
	// Family is nhm.nh_family: AF_INET or AF_INET6 (`ip -6 nexthop add
	// ... dev X`); 0 takes the gateway's family, or AF_INET with a device.
	// A group, or a nexthop with neither gateway, device nor blackhole,
	// keeps 0 (AF_UNSPEC), as the kernel wants for a group and refuses
	// otherwise.
	Family int
}

func (n *Net) nexthopConfig(spec Nexthop) (nexthop.Config, error) {
	cfg := nexthop.Config{
		ID: spec.ID, Gateway: spec.Gateway, OnLink: spec.OnLink, Blackhole: spec.Blackhole, FDB: spec.FDB,
		Group: spec.Group, GroupType: spec.GroupType, Protocol: spec.Protocol, Family: spec.Family,
		Resilient: spec.Resilient,
	}
	if spec.Dev != "" {
		d := n.devs.ByName(spec.Dev)
		if d == nil && spec.Dev[0] == 0 {
			// A netdev.IndexRef (NHA_OIF): rtm_to_nh_config_rtnl
			// refuses an ifindex no device has.
			if d, _ = n.devs.Lookup(spec.Dev); d == nil {
				return cfg, errno.New(syscall.EINVAL, "Invalid device index")
			}
		}
		if d == nil {
			return cfg, errno.Errorf(syscall.ENODEV, "Cannot find device \"%s\"", spec.Dev)
		}
		cfg.Dev = d
	}
	if cfg.Family == 0 && len(cfg.Group) == 0 && !cfg.Blackhole && (cfg.Gateway.IsValid() || cfg.Dev != nil) {
		cfg.Family = syscall.AF_INET
		if cfg.Gateway.Is6() && !cfg.Gateway.Is4In6() {
			cfg.Family = syscall.AF_INET6
		}
	}
	return cfg, nil
}

// NexthopAdd adds a nexthop object.
//
// Kernel: rtm_new_nexthop (net/ipv4/nexthop.c), `ip nexthop add`.
func (h *Handle) NexthopAdd(spec Nexthop) error {
	return h.nexthopNew(spec, false, true, nlmCreate|nlmExcl)
}

// NexthopReplace replaces a nexthop object (or adds it).
//
// Kernel: rtm_new_nexthop with NLM_F_REPLACE, `ip nexthop replace`.
func (h *Handle) NexthopReplace(spec Nexthop) error {
	return h.nexthopNew(spec, true, true, nlmCreate|nlmReplace)
}

// NexthopNew adds or replaces a nexthop object as RTM_NEWNEXTHOP does
// with the request's own flags, in one request: without replace
// (NLM_F_REPLACE) it is NexthopAdd, whether create (NLM_F_CREATE) is set
// or not; with replace it is NexthopReplace, except that without create a
// nexthop id that does not exist is refused with ENOENT ("Replace
// specified without create and no entry exists"), after every check of the
// new nexthop's definition.
//
// Kernel: rtm_new_nexthop, nexthop_add, insert_nexthop (net/ipv4/nexthop.c).
func (h *Handle) NexthopNew(spec Nexthop, replace, create bool) error {
	var op uint16
	if replace {
		op |= nlmReplace
	}
	if create {
		op |= nlmCreate
	}
	return h.nexthopNew(spec, replace, create, op)
}

// nexthopNew is every RTM_NEWNEXTHOP; op is the flags its notification
// carries when the request's own are unknown (nexthopFlags). A replace
// without an id is refused first (EINVAL, "Replace requires nexthop id").
// The replace of a nexthop that existed is followed by its users' routes.
func (h *Handle) nexthopNew(spec Nexthop, replace, create bool, op uint16) error {
	return h.do("RTM_NEWNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		if replace && spec.ID == 0 {
			return errno.New(syscall.EINVAL, "Replace requires nexthop id")
		}
		cfg, err := h.n.nexthopConfig(spec)
		if err != nil {
			return err
		}
		notify := h.n.notifyNeeded()
		existed := notify && replace && h.n.nh.Get(cfg.ID) != nil
		nh, err := h.n.nh.Insert(t, cfg, replace, create)
		if err == nil && notify {
			h.n.nexthopNotify(nh, h.n.nexthopFlags(op))
			if existed {
				h.n.nexthopReplaceNotify(t, nh)
			}
		}
		return err
	})
}

// nexthopReplaceNotify sends, after the RTM_NEWNEXTHOP of a replaced
// nexthop, the RTM_NEWROUTE (NLM_F_REPLACE) of the routes using it and of
// those using the groups it is in: for each, the IPv4 routes, then the
// IPv6 ones (nexthop_compat_mode is on, its default).
//
// Kernel: insert_nexthop → nexthop_replace_notify (net/ipv4/nexthop.c).
func (n *Net) nexthopReplaceNotify(t *sim.Task, nh *nexthop.Nexthop) {
	for _, x := range append([]*nexthop.Nexthop{nh}, nh.Parents()...) {
		n.fib.NexthopReplaced(t, x)
		n.fib6.NexthopReplaced(t, x)
	}
}

// NexthopDel deletes nexthop id; routes that use it go with it.
//
// Kernel: rtm_del_nexthop, `ip nexthop del id ID`.
func (h *Handle) NexthopDel(id nexthop.ID) error {
	return h.do("RTM_DELNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		return h.n.nexthopDel(t, id)
	})
}

// NexthopDelRequest is RTM_DELNEXTHOP as a client may send it. ip nexthop
// del parses the words of ip nexthop add and sends whatever they set, which
// the kernel refuses but for the id.
type NexthopDelRequest struct {
	ID    nexthop.ID // NHA_ID
	HasID bool       // NHA_ID was sent
	// Other is set when attributes other than NHA_ID were sent (a
	// device, a gateway, blackhole, a group, its type, resilient
	// parameters).
	Other    bool
	Protocol rt.Protocol // nhm.nh_protocol
	Flags    rt.NHFlags  // nhm.nh_flags (onlink)
}

// NexthopDelete deletes nexthop r.ID as NexthopDel does, after the checks
// of the request: only NHA_ID (EINVAL, "Unknown attribute type"), no
// protocol or flags in the header, an id that is given and not 0.
//
// Kernel: rtm_del_nexthop, nh_valid_get_del_req (net/ipv4/nexthop.c).
func (h *Handle) NexthopDelete(r NexthopDelRequest) error {
	return h.do("RTM_DELNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		switch {
		case r.Other:
			// nlmsg_parse: rtm_nh_policy_del has NHA_ID only.
			return errno.New(syscall.EINVAL, "Unknown attribute type")
		case r.Protocol != 0 || r.Flags != 0:
			return errno.New(syscall.EINVAL, "Invalid values in header")
		case !r.HasID:
			return errno.New(syscall.EINVAL, "Nexthop id is missing")
		}
		return h.n.nexthopDel(t, r.ID)
	})
}

// nexthopDel deletes nexthop id and announces it: the nexthop, then each
// group it was in, the group it joined last first, as it is now, or as it
// was if it went with its last member.
//
// Kernel: remove_nexthop → nexthop_notify, remove_nexthop_from_groups →
// remove_nh_grp_entry (net/ipv4/nexthop.c).
func (n *Net) nexthopDel(t *sim.Task, id nexthop.ID) error {
	nh := n.nh.Get(id)
	if nh == nil || !n.notifyNeeded() {
		return n.nh.Del(t, id, n.fib)
	}
	before := nexthopInfo(nh)
	parents := nh.Parents()
	was := make([]NexthopInfo, len(parents))
	for i, p := range parents {
		was[i] = nexthopInfo(p)
	}
	if err := n.nh.Del(t, id, n.fib); err != nil {
		return err
	}
	flags := n.nexthopFlags(0)
	n.sendNexthop(&before, true, flags)
	for i, p := range parents {
		if g := n.nh.Get(p.ID()); g == p {
			n.nexthopNotify(g, flags)
			continue
		}
		n.sendNexthop(&was[i], true, flags)
	}
	return nil
}

// NexthopInfo is a nexthop object as RTM_GETNEXTHOP reports it (an
// nhmsg and its attributes), complete and typed: a single nexthop (a
// gateway and/or a device, or a blackhole) or a group.
type NexthopInfo struct {
	ID nexthop.ID // NHA_ID
	// Family is nh_family: AF_INET or AF_INET6 for a single nexthop,
	// AF_UNSPEC (0) for a group.
	Family int
	// Scope is nh_scope: that of a single nexthop other than a blackhole
	// (link with a gateway, host without one), 0 for the others.
	Scope    rt.Scope
	Protocol rt.Protocol // nh_protocol
	// Flags is nh_flags: RTNH_F_ONLINK as the nexthop was added with it.
	Flags   rt.NHFlags
	Gateway netip.Addr // NHA_GATEWAY; invalid when none
	// Dev and DevIndex are NHA_OIF: the device of a single nexthop that
	// is not a blackhole ("" and 0 for the others).
	Dev       string
	DevIndex  netdev.IfIndex
	Blackhole bool // NHA_BLACKHOLE
	// FDB is NHA_FDB: an fdb nexthop (no device; an IPv6 one always has a
	// gateway, "::" when none was given) or a group of them.
	FDB       bool
	Group     []nexthop.GroupMember // NHA_GROUP: a group's members with their weights; nil for a single nexthop
	GroupType nexthop.GroupType     // NHA_GROUP_TYPE of a group (GroupMultipath for a single nexthop, which has none)
	// Resilient is NHA_RES_GROUP: a resilient group's buckets, timers and
	// unbalanced time; the zero value (0 buckets) for any other nexthop.
	Resilient nexthop.ResilientInfo
	FIBUsers  int // the routes using the nexthop (nh->fi_list), which no dump shows
}

func nexthopInfo(nh *nexthop.Nexthop) NexthopInfo {
	ni := NexthopInfo{
		ID: nh.ID(), Family: nh.Family(), Gateway: nh.Gateway(), Blackhole: nh.Blackhole(), FDB: nh.FDB(),
		Scope: rt.Scope(nh.Scope()), Protocol: rt.Protocol(nh.Protocol()), Group: nh.Members(),
		GroupType: nh.GroupType(), FIBUsers: nh.FIBUsers(),
	}
	if nh.OnLink() {
		ni.Flags |= rt.FlagOnLink
	}
	if ni.Blackhole {
		ni.Scope = 0 // nh_fill_node reports no scope for a blackhole
	}
	ni.Resilient, _ = nh.Resilient()
	if d := nh.Dev(); d != nil {
		ni.Dev, ni.DevIndex = d.Name(), d.Index()
	}
	return ni
}

// NexthopGet returns nexthop id.
//
// Kernel: rtm_get_nexthop, `ip nexthop get id ID`.
func (h *Handle) NexthopGet(id nexthop.ID) (NexthopInfo, error) {
	var ni NexthopInfo
	err := h.do("RTM_GETNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		nh := h.n.nh.Get(id)
		if nh == nil {
			return errno.New(syscall.ENOENT, "Nexthop id does not exist")
		}
		ni = nexthopInfo(nh)
		return nil
	})
	return ni, err
}
