// Nexthop objects' requests: RTM_NEWNEXTHOP, RTM_DELNEXTHOP,
// RTM_GETNEXTHOP (get and dump) and RTM_GETNEXTHOPBUCKET (get and dump):
// rtm_new_nexthop, rtm_del_nexthop, rtm_get_nexthop, rtm_dump_nexthop,
// rtm_get_nexthop_bucket, rtm_dump_nexthop_bucket and their request
// checks and dump filter (net/ipv4/nexthop.c), and the notifications they
// cause (nexthop_notify).

package rtnl

import (
	"net/netip"
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// NexthopRequest is the body of an RTM_NEWNEXTHOP: the nexthop object to
// add or replace (struct nhmsg and the NHA_* attributes, as
// rtm_to_nh_config reads them), with the request's NLM_F_* flags. A
// device is named by ifindex (NHA_OIF, as ip and nlwire send it) or, from
// Go, by name. The zero NexthopRequest is not valid.
type NexthopRequest struct {
	Origin
	// Flags are the request's NLM_F_* flags: without rt.NLMReplace an
	// add (EEXIST for an id that exists, whatever rt.NLMCreate says);
	// with it a replace, which without rt.NLMCreate needs the id to exist.
	Flags   rt.NLMFlags
	ID      nexthop.ID // NHA_ID; 0 lets the kernel pick one
	Gateway netip.Addr // NHA_GATEWAY ("via"): 4 bytes for an IPv4 address, 16 for an IPv6 one
	// HasGateway is set when NHA_GATEWAY was sent; a valid Gateway is
	// sent whatever it says, so it matters for an NHA_GATEWAY that holds
	// no address (neither 4 nor 16 bytes), which the kernel refuses.
	HasGateway bool
	Dev        string // the device by name ("dev"), when DevIndex is 0
	DevIndex   netdev.IfIndex
	// OIF is set when the request carries NHA_OIF, whose value DevIndex
	// is (one above INT_MAX negative): rtm_to_nh_config_rtnl refuses an
	// NHA_OIF of 0 as it does an ifindex no device has.
	OIF       bool
	Blackhole bool                 // NHA_BLACKHOLE ("blackhole")
	FDB       bool                 // NHA_FDB ("fdb"): an fdb nexthop (a gateway, no device) or a group of them
	Group     []nexthop.GroupEntry // NHA_GROUP ("group ID[,WEIGHT]/..."); an empty one that is not nil was sent empty
	GroupType nexthop.GroupType    // NHA_GROUP_TYPE: "type mpath" (the default) or "type resilient"
	// Resilient is NHA_RES_GROUP ("buckets N idle_timer S
	// unbalanced_timer S" after "type resilient"); nil sends none, as ip
	// does when nothing follows "resilient".
	Resilient *nexthop.ResilientConfig
	// ResilientErr is what parsing NHA_RES_GROUP's nested attributes
	// against their policy gave (nla_parse_nested, in the netlink layer),
	// which the request answers where rtm_to_nh_config_grp_res parses
	// them; nil from Go.
	ResilientErr error
	// HasEncap and HasEncapType are set when NHA_ENCAP and
	// NHA_ENCAP_TYPE were sent: an lwt encapsulation, which netsim does
	// not model.
	HasEncap, HasEncapType bool
	// HWStats is set when NHA_HW_STATS_ENABLE was sent: a group's
	// hardware statistics, which netsim does not count.
	HWStats  bool
	Protocol rt.Protocol // nhm.nh_protocol ("proto")
	// Scope and Resvd are nhm.nh_scope and nhm.resvd, which must be 0.
	Scope rt.Scope
	Resvd uint8
	// NHFlags is nhm.nh_flags: RTNH_F_ONLINK ("onlink") and no other.
	NHFlags rt.NHFlags
	// Family is nhm.nh_family: AF_INET or AF_INET6 (`ip -6 nexthop add
	// ... dev X`); 0 takes the gateway's family, or AF_INET with a device
	// or a blackhole, as ip fills it in. A group, or a nexthop with
	// neither gateway, device nor blackhole, keeps 0 (AF_UNSPEC), as the
	// kernel wants for a group and refuses otherwise.
	Family rt.Family
	// FamilySent is set when Family is nh_family as a message sent it,
	// which is not filled in: 0 is AF_UNSPEC, which only a group may have.
	FamilySent bool
}

// with returns the request with flags f, as a convenience sends it.
func (nh NexthopRequest) with(f rt.NLMFlags) NexthopRequest {
	nh.Flags = f
	return nh
}

// nexthopDevByName finds the device a request names by name only, as ip
// does before it sends anything (ll_name_to_index): ENODEV when there is
// none. A request that names its device by ifindex has it found by
// nexthopConfig, after the request's checks.
func (n *Net) nexthopDevByName(req *NexthopRequest) (*netdev.Device, error) {
	if req.OIF || req.DevIndex != 0 || req.Dev == "" {
		return nil, nil
	}
	d := n.devs.ByName(req.Dev)
	if d == nil {
		return nil, errno.Errorf(syscall.ENODEV, "Cannot find device \"%s\"", req.Dev)
	}
	return d, nil
}

// nexthopConfig turns a checked request into the nexthop.Config it
// describes, with dev the device it named by name, or the one its NHA_OIF
// names, found as rtm_to_nh_config_rtnl finds it: an ifindex that no
// device has (0 included) is refused with EINVAL ("Invalid device
// index"). A group's members are checked by the nexthop table.
//
// Kernel: rtm_to_nh_config_rtnl (net/ipv4/nexthop.c).
func (n *Net) nexthopConfig(req *NexthopRequest, dev *netdev.Device) (nexthop.Config, error) {
	cfg := nexthop.Config{
		ID: req.ID, Gateway: req.Gateway, OnLink: req.NHFlags&rt.FlagOnLink != 0, Blackhole: req.Blackhole, FDB: req.FDB,
		GroupType: req.GroupType, Protocol: uint8(req.Protocol), Family: req.family(), Resilient: req.Resilient, Dev: dev,
	}
	if req.Group != nil {
		cfg.Group = make([]nexthop.GroupMember, len(req.Group))
		for i, e := range req.Group {
			cfg.Group[i] = nexthop.GroupMember{ID: e.ID, Weight: uint16(e.Weight)}
		}
		return cfg, nil
	}
	if req.OIF || req.DevIndex != 0 {
		if cfg.Dev = n.devs.ByIndex(req.DevIndex); cfg.Dev == nil {
			return cfg, errno.New(syscall.EINVAL, "Invalid device index")
		}
	}
	return cfg, nil
}

// NewNexthop adds or replaces a nexthop object as RTM_NEWNEXTHOP does
// with the request's flags (see NexthopRequest.Flags): a replace without
// an id is refused first (EINVAL, "Replace requires nexthop id"), then a
// device named by a name no device has (ENODEV), then the request's
// checks (checkNexthopRequest); a replace without rt.NLMCreate of an id
// that does not exist is refused with ENOENT ("Replace specified without
// create and no entry exists"), after every check of the new nexthop's
// definition. The notifications carry the request's flags (those ip
// sends when its Origin has none), and the replace of a nexthop that
// existed is followed by its users' routes.
//
// Kernel: rtm_new_nexthop, nexthop_add, insert_nexthop (net/ipv4/nexthop.c).
func (h *Handle) NewNexthop(req NexthopRequest) error {
	replace, create := req.Flags&rt.NLMReplace != 0, req.Flags&rt.NLMCreate != 0
	return h.doFrom(req.Origin, "RTM_NEWNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		defer t.Frame("rtm_new_nexthop")()
		if replace && req.ID == 0 {
			return errno.New(syscall.EINVAL, "Replace requires nexthop id")
		}
		dev, err := h.n.nexthopDevByName(&req)
		if err != nil {
			return err
		}
		if err := checkNexthopRequest(&req); err != nil {
			return err
		}
		cfg, err := h.n.nexthopConfig(&req, dev)
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

// checkNexthopID is the check of a get's or a delete's id: the header sets
// nothing, NHA_ID is sent (hasID, or an id that is not 0) and not 0.
//
// Kernel: nh_valid_get_del_req (net/ipv4/nexthop.c).
func checkNexthopID(hd NexthopHeader, id nexthop.ID, hasID bool) error {
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
		defer t.Frame("rtm_del_nexthop")()
		if r.Other {
			// nlmsg_parse: rtm_nh_policy_del has NHA_ID only.
			return errno.New(syscall.EINVAL, "Unknown attribute type")
		}
		if err := checkNexthopID(r.Header, r.ID, r.HasID); err != nil {
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
	Family rt.Family
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
		if err := checkNexthopID(r.Header, r.ID, r.HasID); err != nil {
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

// NexthopDumpRequest is the body of an RTM_GETNEXTHOP with NLM_F_DUMP:
// what the dump selects (struct nh_dump_filter and the request's family).
// The zero value selects every nexthop. The kernel checks a nexthop dump
// request strictly whatever the socket asked (nh_valid_dump_req parses it
// with nlmsg_parse, not the deprecated form), so it has no Strict.
type NexthopDumpRequest struct {
	Origin
	// Family is nhm.nh_family: single nexthops of this family; 0 is any.
	Family rt.Family
	// Header must be zero ("Invalid values in header for nexthop dump
	// request").
	Header NexthopHeader
	// DevIndex is NHA_OIF: single nexthops on this device (a blackhole is
	// on loopback); 0 is none; below 0 (a u32 above INT_MAX) refused.
	DevIndex netdev.IfIndex
	// MasterIndex is NHA_MASTER: single nexthops whose device is enslaved
	// to this one; 0 is none; below 0 refused as DevIndex is.
	MasterIndex netdev.IfIndex
	// Groups is NHA_GROUPS: groups only. A bucket dump does not accept
	// it: the request is refused with EINVAL, without a message.
	Groups bool
	// FDB is NHA_FDB, which Linux 6.18 accepts in a nexthop dump and
	// selects nothing by; a bucket dump refuses it as it does Groups.
	FDB bool
	// OpFlags is NHA_OP_FLAGS: the statistics each group should carry,
	// which netsim does not count (see NexthopGetRequest.OpFlags): the
	// dump ends with EOPNOTSUPP at the first group.
	OpFlags uint32
}

// check is __nh_valid_dump_req: the device filters (an ifindex above
// INT_MAX is refused) and a header that sets nothing but the family.
//
// Kernel: __nh_valid_dump_req (net/ipv4/nexthop.c).
func (f *NexthopDumpRequest) check() error {
	switch {
	case f.DevIndex < 0:
		return errno.New(syscall.EINVAL, "Invalid device index")
	case f.MasterIndex < 0:
		return errno.New(syscall.EINVAL, "Invalid master device index")
	case f.Header != NexthopHeader{}:
		return errno.New(syscall.EINVAL, "Invalid values in header for nexthop dump request")
	}
	return nil
}

// filtered is nh_dump_filtered: whether f leaves nh out.
func (f *NexthopDumpRequest) filtered(nh *nexthop.Nexthop, tb *netdev.Table) bool {
	if f.Groups && !nh.IsGroup() {
		return true
	}
	if f.DevIndex == 0 && f.MasterIndex == 0 && f.Family == 0 {
		return false
	}
	if nh.IsGroup() || f.Family != 0 && nh.Family() != f.Family {
		return true
	}
	dev := nh.Dev()
	if nh.Blackhole() {
		dev = tb.Loopback() // nexthop_create puts a blackhole on loopback
	}
	if f.DevIndex != 0 && (dev == nil || dev.Index() != f.DevIndex) {
		return true
	}
	if f.MasterIndex != 0 {
		if dev == nil || dev.Master() == nil || dev.Master().Index() != f.MasterIndex {
			return true
		}
	}
	return false
}

// nexthopCursor is what a nexthop or bucket dump keeps between its
// parts besides its position: the generation the last part read and
// whether the dump is done.
type nexthopCursor struct {
	h    *Handle
	o    Origin
	op   string
	seq  uint32
	done bool
}

// part runs one part of the dump with RTNL held: walk calls the part's fn
// and reports whether the dump is done.
func (c *nexthopCursor) part(walk func(t *sim.Task, tb *netdev.Table) (bool, error)) (done bool, err error) {
	if c.done {
		return true, nil
	}
	err = c.h.doFrom(c.o, c.op, func(t *sim.Task, tb *netdev.Table) error {
		c.seq = c.h.n.nh.Seq()
		var werr error
		done, werr = walk(t, tb)
		return werr
	})
	c.done = done && err == nil
	return done, err
}

// Seq is the generation the last part read, net->nexthop.seq (cb->seq),
// which a front end compares between parts to flag an interrupted dump.
func (c *nexthopCursor) Seq() uint32 { return c.seq }

// Close ends the dump; a nexthop or bucket dump holds nothing between its
// parts.
func (c *nexthopCursor) Close() { c.done = true }

// NexthopDump is a nexthop dump in progress: its request and the id to
// resume at (ctx->idx). A NexthopDump is used by its Handle's goroutine.
type NexthopDump struct {
	nexthopCursor
	req  NexthopDumpRequest
	from nexthop.ID
}

// DumpNexthops starts a dump of the nexthops req selects, by id, after
// the checks of the request; nothing is walked until Next.
//
// Kernel: rtm_dump_nexthop, nh_valid_dump_req (net/ipv4/nexthop.c).
func (h *Handle) DumpNexthops(req NexthopDumpRequest) (*NexthopDump, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	return &NexthopDump{nexthopCursor: nexthopCursor{h: h, o: req.Origin, op: "RTM_GETNEXTHOP"}, req: req}, nil
}

// Next is one part of the dump: with RTNL held, it calls fn for the
// nexthops the request selects from where the last part stopped, by id,
// until fn returns false; the nexthop fn refused comes first in the next
// part. It reports whether the dump is done. A request for statistics
// (OpFlags) ends the dump with EOPNOTSUPP at the first group. fn runs
// with RTNL held: it must not call the Handle.
//
// Kernel: rtm_dump_nexthop, rtm_dump_walk_nexthops (net/ipv4/nexthop.c).
func (d *NexthopDump) Next(fn func(*NexthopInfo) bool) (done bool, err error) {
	return d.part(func(_ *sim.Task, tb *netdev.Table) (bool, error) {
		var err error
		done := true
		d.h.n.nh.From(d.from, func(nh *nexthop.Nexthop) bool {
			if d.req.filtered(nh, tb) {
				return true
			}
			if d.req.OpFlags != 0 && nh.IsGroup() {
				err, done = errStatsNotModelled, false
				return false
			}
			ni := nexthopInfo(nh)
			if !fn(&ni) {
				d.from, done = nh.ID(), false
				return false
			}
			return true
		})
		return done, err
	})
}

// NexthopBucket is one bucket of a resilient group (RTM_NEWNEXTHOPBUCKET).
type NexthopBucket struct {
	ID        nexthop.ID    // the group (NHA_ID)
	Index     uint16        // NHA_RES_BUCKET_INDEX
	NexthopID nexthop.ID    // the member it points at (NHA_RES_BUCKET_NH_ID)
	IdleTime  time.Duration // since last used or migrated, clock_t precision (NHA_RES_BUCKET_IDLE_TIME)
	Protocol  rt.Protocol   // the group's nh_protocol
	// Flags is the bucket's nh_flags: the offload and trap flags a driver
	// sets, which netsim never does (0).
	Flags rt.NHFlags
}

// NexthopBucketDumpRequest is the body of an RTM_GETNEXTHOPBUCKET with
// NLM_F_DUMP: the buckets of the resilient groups it selects, by their
// member as a nexthop dump selects nexthops (its Groups, FDB and OpFlags
// are not in the request's policy: Groups and FDB are refused with
// EINVAL without a message). The zero value selects every bucket of
// every resilient group.
type NexthopBucketDumpRequest struct {
	NexthopDumpRequest
	ID    nexthop.ID // NHA_ID: one group only; 0 is none
	HasID bool       // NHA_ID was sent, 0 included (refused)
	// NexthopID is NHA_RES_BUCKET's NHA_RES_BUCKET_NH_ID: buckets of this
	// member; 0 is none.
	NexthopID nexthop.ID
}

func nexthopBucket(nh *nexthop.Nexthop, b nexthop.Bucket) NexthopBucket {
	return NexthopBucket{ID: nh.ID(), Index: b.Index, NexthopID: b.NexthopID, IdleTime: b.IdleTime, Protocol: rt.Protocol(nh.Protocol())}
}

// NexthopBucketDump is a bucket dump in progress: its request and where
// it stopped, the group (ctx->nh.idx) and the bucket in it
// (ctx->bucket_index).
type NexthopBucketDump struct {
	nexthopCursor
	req   NexthopBucketDumpRequest
	id    nexthop.ID
	index int
}

// DumpNexthopBuckets starts a dump of the buckets req selects, by group
// id and bucket index, after the checks of the request: an id that is 0,
// then those of a nexthop dump.
//
// Kernel: rtm_dump_nexthop_bucket, nh_valid_dump_bucket_req
// (net/ipv4/nexthop.c).
func (h *Handle) DumpNexthopBuckets(req NexthopBucketDumpRequest) (*NexthopBucketDump, error) {
	if req.HasID && req.ID == 0 {
		return nil, errno.New(syscall.EINVAL, "Invalid nexthop id")
	}
	if err := req.check(); err != nil {
		return nil, err
	}
	return &NexthopBucketDump{nexthopCursor: nexthopCursor{h: h, o: req.Origin, op: "RTM_GETNEXTHOPBUCKET"}, req: req}, nil
}

// Next is one part of a bucket dump: with RTNL held, it calls fn for the
// buckets the request selects from where the last part stopped, until fn
// returns false, and reports whether the dump is done. A request for one
// group refuses an unknown id with ENOENT and a nexthop that is not a
// resilient group with EINVAL. fn runs with RTNL held.
//
// Kernel: rtm_dump_nexthop_bucket, rtm_dump_nexthop_bucket_nh
// (net/ipv4/nexthop.c).
func (d *NexthopBucketDump) Next(fn func(*NexthopBucket) bool) (done bool, err error) {
	f := &d.req
	return d.part(func(t *sim.Task, tb *netdev.Table) (bool, error) {
		if f.Groups || f.FDB {
			// NHA_GROUPS, NHA_FDB: not in the policy, parsed without extack.
			return false, errno.New(syscall.EINVAL, "")
		}
		done := true
		group := func(nh *nexthop.Nexthop) bool {
			if nh.ID() != d.id {
				d.id, d.index = nh.ID(), 0
			}
			bs := nh.Buckets()
			for ; d.index < len(bs); d.index++ {
				b := bs[d.index]
				m := d.h.n.nh.Get(b.NexthopID)
				if m == nil || f.filtered(m, tb) || f.NexthopID != 0 && b.NexthopID != f.NexthopID {
					continue
				}
				nb := nexthopBucket(nh, b)
				if !fn(&nb) {
					done = false
					return false
				}
			}
			return true
		}
		if f.ID != 0 {
			nh, err := d.h.n.nh.FindResilient(t, f.ID)
			if err != nil {
				return false, err
			}
			group(nh)
			return done, nil
		}
		d.h.n.nh.From(d.id, group)
		return done, nil
	})
}

// NexthopBucketGetRequest is the body of an RTM_GETNEXTHOPBUCKET without
// NLM_F_DUMP: one bucket of a resilient group.
type NexthopBucketGetRequest struct {
	Origin
	ID     nexthop.ID // NHA_ID
	HasID  bool       // NHA_ID was sent, 0 included (see NexthopDelRequest)
	Header NexthopHeader
	// HasBucket is set when NHA_RES_BUCKET was sent, HasIndex when it
	// held NHA_RES_BUCKET_INDEX, whose value Index is; an Index that is
	// not 0 is sent whatever they say.
	HasBucket, HasIndex bool
	Index               uint16
}

// GetNexthopBucket returns bucket r.Index of resilient group r.ID, after
// the checks of the request (those of GetNexthop, then the bucket and its
// index given), refusing an unknown id with ENOENT, a nexthop that is not
// a resilient group with EINVAL and an index past the last bucket with
// ENOENT.
//
// Kernel: rtm_get_nexthop_bucket, nh_valid_get_bucket_req
// (net/ipv4/nexthop.c).
func (h *Handle) GetNexthopBucket(r NexthopBucketGetRequest) (NexthopBucket, error) {
	var nb NexthopBucket
	err := h.doFrom(r.Origin, "RTM_GETNEXTHOPBUCKET", func(t *sim.Task, _ *netdev.Table) error {
		if err := checkNexthopID(r.Header, r.ID, r.HasID); err != nil {
			return err
		}
		switch {
		case !r.HasBucket && !r.HasIndex && r.Index == 0:
			return errno.New(syscall.EINVAL, "Bucket information is missing")
		case !r.HasIndex && r.Index == 0:
			return errno.New(syscall.EINVAL, "Bucket index is missing")
		}
		nh, err := h.n.nh.FindResilient(t, r.ID)
		if err != nil {
			return err
		}
		bs := nh.Buckets()
		if int(r.Index) >= len(bs) {
			return errno.New(syscall.ENOENT, "Bucket index out of bounds")
		}
		nb = nexthopBucket(nh, bs[r.Index])
		return nil
	})
	return nb, err
}
