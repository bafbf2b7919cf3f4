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

// NexthopList returns every nexthop object, by id.
//
// Kernel: rtm_dump_nexthop, `ip nexthop show`.
func (h *Handle) NexthopList() ([]NexthopInfo, error) {
	return h.NexthopDump(NexthopFilter{})
}

// NexthopFilter is what a dump of nexthops or of buckets selects by, as
// ip sends it (struct nh_dump_filter and the request's family). The zero
// value selects everything.
type NexthopFilter struct {
	// DevIndex is NHA_OIF: single nexthops on this device (a blackhole is
	// on loopback); 0 is none.
	DevIndex netdev.IfIndex
	// MasterIndex is NHA_MASTER: single nexthops whose device is enslaved
	// to this one; 0 is none.
	MasterIndex netdev.IfIndex
	// Groups is NHA_GROUPS: groups only. A bucket dump does not accept
	// it: the request is refused with EINVAL, without a message.
	Groups bool
	// FDB is NHA_FDB, which Linux 6.18 accepts in a nexthop dump and
	// selects nothing by; a bucket dump refuses it as it does Groups.
	FDB bool
	// Family is nhm.nh_family: single nexthops of this family; 0 is any.
	Family int
}

// filtered is nh_dump_filtered: whether f leaves nh out.
func (f *NexthopFilter) filtered(nh *nexthop.Nexthop, tb *netdev.Table) bool {
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

// NexthopDump returns the nexthop objects that f selects, by id:
// NexthopDumpFrom read whole in one part.
//
// Kernel: rtm_dump_nexthop, nh_valid_dump_req, nh_dump_filtered
// (net/ipv4/nexthop.c), `ip nexthop show` with a selector.
func (h *Handle) NexthopDump(f NexthopFilter) ([]NexthopInfo, error) {
	var out []NexthopInfo
	var from nexthop.ID
	_, err := h.NexthopDumpFrom(f, &from, func(ni *NexthopInfo) bool {
		out = append(out, *ni)
		return true
	})
	return out, err
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

// NexthopBucketFilter selects the buckets of a dump, as `ip nexthop bucket
// show` sends it. The zero value selects every bucket of every resilient
// group.
type NexthopBucketFilter struct {
	ID        nexthop.ID // NHA_ID: one group only; 0 is none
	NexthopID nexthop.ID // NHA_RES_BUCKET_NH_ID: buckets of this member; 0 is none
	// NexthopFilter selects the buckets by their member, as a nexthop
	// dump selects nexthops.
	NexthopFilter
}

func nexthopBucket(nh *nexthop.Nexthop, b nexthop.Bucket) NexthopBucket {
	return NexthopBucket{ID: nh.ID(), Index: b.Index, NexthopID: b.NexthopID, IdleTime: b.IdleTime, Protocol: rt.Protocol(nh.Protocol())}
}

// NexthopBucketList returns the buckets of the resilient groups that f
// selects, by group id and bucket index. A filter by id refuses an unknown
// id with ENOENT and a nexthop that is not a resilient group with EINVAL.
//
// Kernel: rtm_dump_nexthop_bucket, nh_valid_dump_bucket_req,
// nh_dump_filtered (net/ipv4/nexthop.c), `ip nexthop bucket show`.
func (h *Handle) NexthopBucketList(f NexthopBucketFilter) ([]NexthopBucket, error) {
	var out []NexthopBucket
	var c BucketCursor
	_, err := h.NexthopBucketDump(f, &c, func(b *NexthopBucket) bool {
		out = append(out, *b)
		return true
	})
	return out, err
}

// BucketCursor is where a bucket dump stopped: the group (ctx->nh.idx)
// and the bucket in it (ctx->bucket_index).
type BucketCursor struct {
	ID    nexthop.ID
	Index int
}

// NexthopBucketDump is one part of a bucket dump: with RTNL held, it
// calls fn for the buckets that f selects from the cursor on, by group id
// and bucket index, until fn returns false, and leaves the cursor at the
// bucket fn refused. The part's Seq is net->nexthop.seq. Errors are
// NexthopBucketList's.
//
// Kernel: rtm_dump_nexthop_bucket, rtm_dump_nexthop_bucket_nh
// (net/ipv4/nexthop.c).
func (h *Handle) NexthopBucketDump(f NexthopBucketFilter, c *BucketCursor, fn func(*NexthopBucket) bool) (DumpSeq, error) {
	var ds DumpSeq
	err := h.do("RTM_GETNEXTHOPBUCKET", func(t *sim.Task, tb *netdev.Table) error {
		if f.Groups || f.FDB {
			// NHA_GROUPS, NHA_FDB: not in the policy, parsed without extack.
			return errno.New(syscall.EINVAL, "")
		}
		ds = DumpSeq{Seq: h.n.nh.Seq(), Done: true}
		group := func(nh *nexthop.Nexthop) bool {
			if nh.ID() != c.ID {
				c.ID, c.Index = nh.ID(), 0
			}
			bs := nh.Buckets()
			for ; c.Index < len(bs); c.Index++ {
				b := bs[c.Index]
				m := h.n.nh.Get(b.NexthopID)
				if m == nil || f.filtered(m, tb) || f.NexthopID != 0 && b.NexthopID != f.NexthopID {
					continue
				}
				nb := nexthopBucket(nh, b)
				if !fn(&nb) {
					ds.Done = false
					return false
				}
			}
			return true
		}
		if f.ID != 0 {
			nh, err := h.n.nh.FindResilient(t, f.ID)
			if err != nil {
				return err
			}
			group(nh)
			return nil
		}
		h.n.nh.From(c.ID, group)
		return nil
	})
	return ds, err
}

// NexthopBucketGet returns bucket index of resilient group id, refusing an
// unknown id with ENOENT, a nexthop that is not a resilient group with
// EINVAL and an index past the last bucket with ENOENT.
//
// Kernel: rtm_get_nexthop_bucket (net/ipv4/nexthop.c), `ip nexthop bucket
// get id ID index INDEX`.
func (h *Handle) NexthopBucketGet(id nexthop.ID, index uint16) (NexthopBucket, error) {
	var nb NexthopBucket
	err := h.do("RTM_GETNEXTHOPBUCKET", func(t *sim.Task, _ *netdev.Table) error {
		if id == 0 {
			return errno.New(syscall.EINVAL, "Invalid nexthop id")
		}
		nh, err := h.n.nh.FindResilient(t, id)
		if err != nil {
			return err
		}
		bs := nh.Buckets()
		if int(index) >= len(bs) {
			return errno.New(syscall.ENOENT, "Bucket index out of bounds")
		}
		nb = nexthopBucket(nh, bs[index])
		return nil
	})
	return nb, err
}
