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

// NexthopRequest is the body of an RTM_NEWNEXTHOP: the nexthop object to
// add or replace (struct nhmsg and the NHA_* attributes, as
// rtm_to_nh_config reads them), with the request's NLM_F_* flags. A
// device is named by ifindex (NHA_OIF) or, from Go and by ip's words, by
// name. The zero NexthopRequest is not valid.
type NexthopRequest struct {
	Origin
	// Flags are the request's NLM_F_* flags: without rt.NLMReplace an
	// add (EEXIST for an id that exists, whatever rt.NLMCreate says);
	// with it a replace, which without rt.NLMCreate needs the id to exist.
	Flags    rt.NLMFlags
	ID       nexthop.ID // NHA_ID; 0 lets the kernel pick one
	Gateway  netip.Addr // NHA_GATEWAY ("via")
	Dev      string     // the device by name ("dev"), when DevIndex is 0
	DevIndex netdev.IfIndex
	// OIF is set when the request carries NHA_OIF, whose value DevIndex
	// is (one above INT_MAX negative): rtm_to_nh_config_rtnl refuses an
	// NHA_OIF of 0 as it does an ifindex no device has.
	OIF       bool
	OnLink    bool                  // RTNH_F_ONLINK ("onlink")
	Blackhole bool                  // NHA_BLACKHOLE ("blackhole")
	FDB       bool                  // NHA_FDB ("fdb"): an fdb nexthop (a gateway, no device) or a group of them
	Group     []nexthop.GroupMember // NHA_GROUP ("group ID[,WEIGHT]/...")
	GroupType nexthop.GroupType     // NHA_GROUP_TYPE: "type mpath" (the default) or "type resilient"
	// Resilient is NHA_RES_GROUP ("buckets N idle_timer S
	// unbalanced_timer S" after "type resilient"); nil sends none, as ip
	// does when nothing follows "resilient".
	Resilient *nexthop.ResilientConfig
	Protocol  rt.Protocol // nhm.nh_protocol ("proto")
	// Family is nhm.nh_family: AF_INET or AF_INET6 (`ip -6 nexthop add
	// ... dev X`); 0 takes the gateway's family, or AF_INET with a device.
	// A group, or a nexthop with neither gateway, device nor blackhole,
	// keeps 0 (AF_UNSPEC), as the kernel wants for a group and refuses
	// otherwise.
	Family rt.Family
}

// with returns the request with flags f, as a convenience sends it.
func (nh NexthopRequest) with(f rt.NLMFlags) NexthopRequest {
	nh.Flags = f
	return nh
}

// nexthopConfig turns a request into the nexthop.Config it describes,
// the device found as rtm_to_nh_config_rtnl finds it: an NHA_OIF that no
// device has is refused with EINVAL ("Invalid device index"), a name
// with ENODEV.
//
// Kernel: rtm_to_nh_config_rtnl (net/ipv4/nexthop.c).
func (n *Net) nexthopConfig(spec *NexthopRequest) (nexthop.Config, error) {
	cfg := nexthop.Config{
		ID: spec.ID, Gateway: spec.Gateway, OnLink: spec.OnLink, Blackhole: spec.Blackhole, FDB: spec.FDB,
		Group: spec.Group, GroupType: spec.GroupType, Protocol: uint8(spec.Protocol), Family: int(spec.Family),
		Resilient: spec.Resilient,
	}
	switch {
	case spec.OIF || spec.DevIndex != 0:
		if cfg.Dev = n.devs.ByIndex(spec.DevIndex); cfg.Dev == nil {
			return cfg, errno.New(syscall.EINVAL, "Invalid device index")
		}
	case spec.Dev != "":
		if cfg.Dev = n.devs.ByName(spec.Dev); cfg.Dev == nil {
			return cfg, errno.Errorf(syscall.ENODEV, "Cannot find device \"%s\"", spec.Dev)
		}
	}
	if cfg.Family == 0 && len(cfg.Group) == 0 && !cfg.Blackhole && (cfg.Gateway.IsValid() || cfg.Dev != nil) {
		cfg.Family = syscall.AF_INET
		if cfg.Gateway.Is6() && !cfg.Gateway.Is4In6() {
			cfg.Family = syscall.AF_INET6
		}
	}
	return cfg, nil
}

// NewNexthop adds or replaces a nexthop object as RTM_NEWNEXTHOP does
// with the request's flags (see NexthopRequest.Flags): a replace without
// an id is refused first (EINVAL, "Replace requires nexthop id"); a
// replace without rt.NLMCreate of an id that does not exist is refused
// with ENOENT ("Replace specified without create and no entry exists"),
// after every check of the new nexthop's definition. The notifications
// carry the request's flags (those ip sends when its Origin has none),
// and the replace of a nexthop that existed is followed by its users'
// routes.
//
// Kernel: rtm_new_nexthop, nexthop_add, insert_nexthop (net/ipv4/nexthop.c).
func (h *Handle) NewNexthop(req NexthopRequest) error {
	replace, create := req.Flags&rt.NLMReplace != 0, req.Flags&rt.NLMCreate != 0
	return h.doFrom(req.Origin, "RTM_NEWNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		if replace && req.ID == 0 {
			return errno.New(syscall.EINVAL, "Replace requires nexthop id")
		}
		cfg, err := h.n.nexthopConfig(&req)
		if err != nil {
			return err
		}
		notify := h.n.notifyNeeded()
		existed := notify && replace && h.n.nh.Get(cfg.ID) != nil
		nh, err := h.n.nh.Insert(t, cfg, replace, create)
		if err == nil && notify {
			h.n.nexthopNotify(nh, h.n.nexthopFlags(uint16(req.Flags)))
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

// NexthopHeader is what struct nhmsg holds besides nh_family: a get, a
// delete or a dump sets none of it (nh_valid_get_del_req,
// __nh_valid_dump_req). The zero value is the one they accept.
type NexthopHeader struct {
	Scope    rt.Scope    // nh_scope
	Protocol rt.Protocol // nh_protocol
	Resvd    uint8       // resvd
	Flags    rt.NHFlags  // nh_flags (onlink)
}

// nexthopID is the check of a get's or a delete's id: the header sets
// nothing, NHA_ID is sent (hasID, or an id that is not 0) and not 0.
//
// Kernel: nh_valid_get_del_req (net/ipv4/nexthop.c).
func nexthopID(hd NexthopHeader, id nexthop.ID, hasID bool) error {
	switch {
	case hd != NexthopHeader{}:
		return errno.New(syscall.EINVAL, "Invalid values in header")
	case !hasID && id == 0:
		return errno.New(syscall.EINVAL, "Nexthop id is missing")
	case id == 0:
		return errno.New(syscall.EINVAL, "Invalid nexthop id")
	}
	return nil
}

// NexthopDelRequest is the body of an RTM_DELNEXTHOP: a nexthop id and
// nothing else. ip nexthop del parses the words of ip nexthop add and
// sends whatever they set, which the kernel refuses but for the id.
type NexthopDelRequest struct {
	Origin
	ID nexthop.ID // NHA_ID
	// HasID is set when NHA_ID was sent, 0 included; an ID that is not 0
	// is sent whatever HasID says.
	HasID bool
	// Other is set when attributes other than NHA_ID were sent (a
	// device, a gateway, blackhole, a group, its type, resilient
	// parameters), which the request's policy does not have.
	Other  bool
	Header NexthopHeader
}

// DelNexthop deletes nexthop r.ID after the checks of the request (only
// NHA_ID: EINVAL, "Unknown attribute type"; nothing in its header; an id
// that is given and not 0); routes that use it go with it. An id that
// does not exist is a bare ENOENT.
//
// Kernel: rtm_del_nexthop, nh_valid_get_del_req (net/ipv4/nexthop.c).
func (h *Handle) DelNexthop(r NexthopDelRequest) error {
	return h.doFrom(r.Origin, "RTM_DELNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		if r.Other {
			// nlmsg_parse: rtm_nh_policy_del has NHA_ID only.
			return errno.New(syscall.EINVAL, "Unknown attribute type")
		}
		if err := nexthopID(r.Header, r.ID, r.HasID); err != nil {
			return err
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

// NexthopGetRequest is the body of an RTM_GETNEXTHOP without
// NLM_F_DUMP: one nexthop by id.
type NexthopGetRequest struct {
	Origin
	ID     nexthop.ID // NHA_ID
	HasID  bool       // NHA_ID was sent, 0 included (see NexthopDelRequest)
	Header NexthopHeader
	// OpFlags is NHA_OP_FLAGS: the statistics a group's answer should
	// carry (NHA_OP_FLAG_DUMP_STATS, NHA_OP_FLAG_DUMP_HW_STATS), which
	// netsim does not count: a group is then refused with EOPNOTSUPP.
	OpFlags uint32
}

// errStatsNotModelled answers a request for a group's statistics: netsim
// counts no packets per nexthop.
var errStatsNotModelled = errno.New(syscall.EOPNOTSUPP, "Nexthop group statistics are not modelled")

// GetNexthop returns nexthop r.ID, after the checks of the request (those
// of DelNexthop). An id that does not exist is refused with ENOENT, whose
// message the kernel does not send (see HasExtack).
//
// Kernel: rtm_get_nexthop, nh_valid_get_del_req (net/ipv4/nexthop.c).
func (h *Handle) GetNexthop(r NexthopGetRequest) (NexthopInfo, error) {
	var ni NexthopInfo
	err := h.doFrom(r.Origin, "RTM_GETNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		if err := nexthopID(r.Header, r.ID, r.HasID); err != nil {
			return err
		}
		nh := h.n.nh.Get(r.ID)
		if nh == nil {
			return errno.New(syscall.ENOENT, "Nexthop id does not exist")
		}
		if r.OpFlags != 0 && nh.IsGroup() {
			return errStatsNotModelled
		}
		ni = nexthopInfo(nh)
		return nil
	})
	return ni, err
}
