// Nexthop dumps: RTM_GETNEXTHOP and RTM_GETNEXTHOPBUCKET with NLM_F_DUMP, the
// bucket get, and the filter both dumps apply: rtm_dump_nexthop,
// rtm_dump_nexthop_bucket, rtm_get_nexthop_bucket, nh_dump_filtered
// (net/ipv4/nexthop.c).

package rtnl

import (
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

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

// NexthopDumpFrom is one part of a nexthop dump: with RTNL held, it calls
// fn for the nexthops that f selects whose id is at least *from, by id,
// until fn returns false, and leaves *from at the id of the nexthop fn
// refused. The part's Seq is net->nexthop.seq.
//
// Kernel: rtm_dump_nexthop, rtm_dump_walk_nexthops (net/ipv4/nexthop.c).
func (h *Handle) NexthopDumpFrom(f NexthopFilter, from *nexthop.ID, fn func(*NexthopInfo) bool) (DumpSeq, error) {
	var ds DumpSeq
	err := h.do("RTM_GETNEXTHOP", func(t *sim.Task, tb *netdev.Table) error {
		ds = DumpSeq{Seq: h.n.nh.Seq(), Done: true}
		h.n.nh.From(*from, func(nh *nexthop.Nexthop) bool {
			if f.filtered(nh, tb) {
				return true
			}
			ni := nexthopInfo(nh)
			if !fn(&ni) {
				*from, ds.Done = nh.ID(), false
				return false
			}
			return true
		})
		return nil
	})
	return ds, err
}
