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
	if nh.IsGroup() || f.Family != 0 && nh.Family() != int(f.Family) {
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

// NexthopDump is a nexthop dump in progress: its request and the id to
// resume at (ctx->idx). A NexthopDump is used by its Handle's goroutine.
type NexthopDump struct {
	h    *Handle
	req  NexthopDumpRequest
	from nexthop.ID
	seq  uint32
	done bool
}

// DumpNexthops starts a dump of the nexthops req selects, by id, after
// the checks of the request; nothing is walked until Next.
//
// Kernel: rtm_dump_nexthop, nh_valid_dump_req (net/ipv4/nexthop.c).
func (h *Handle) DumpNexthops(req NexthopDumpRequest) (*NexthopDump, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	return &NexthopDump{h: h, req: req}, nil
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
	if d.done {
		return true, nil
	}
	err = d.h.doFrom(d.req.Origin, "RTM_GETNEXTHOP", func(t *sim.Task, tb *netdev.Table) error {
		var ferr error
		d.seq, done = d.h.n.nh.Seq(), true
		d.h.n.nh.From(d.from, func(nh *nexthop.Nexthop) bool {
			if d.req.filtered(nh, tb) {
				return true
			}
			if d.req.OpFlags != 0 && nh.IsGroup() {
				ferr, done = errStatsNotModelled, false
				return false
			}
			ni := nexthopInfo(nh)
			if !fn(&ni) {
				d.from, done = nh.ID(), false
				return false
			}
			return true
		})
		return ferr
	})
	d.done = done && err == nil
	return done, err
}

// Seq is the generation the last part read, net->nexthop.seq (cb->seq),
// which a front end compares between parts to flag an interrupted dump.
func (d *NexthopDump) Seq() uint32 { return d.seq }

// Close ends the dump; a nexthop dump holds nothing between its parts.
func (d *NexthopDump) Close() { d.done = true }

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
	h     *Handle
	req   NexthopBucketDumpRequest
	id    nexthop.ID
	index int
	seq   uint32
	done  bool
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
	return &NexthopBucketDump{h: h, req: req}, nil
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
	if d.done {
		return true, nil
	}
	f := &d.req
	err = d.h.doFrom(f.Origin, "RTM_GETNEXTHOPBUCKET", func(t *sim.Task, tb *netdev.Table) error {
		if f.Groups || f.FDB {
			// NHA_GROUPS, NHA_FDB: not in the policy, parsed without extack.
			return errno.New(syscall.EINVAL, "")
		}
		d.seq, done = d.h.n.nh.Seq(), true
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
				return err
			}
			group(nh)
			return nil
		}
		d.h.n.nh.From(d.id, group)
		return nil
	})
	d.done = done && err == nil
	return done, err
}

// Seq is the generation the last part read, net->nexthop.seq.
func (d *NexthopBucketDump) Seq() uint32 { return d.seq }

// Close ends the dump; a bucket dump holds nothing between its parts.
func (d *NexthopBucketDump) Close() { d.done = true }

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
		if err := nexthopID(r.Header, r.ID, r.HasID); err != nil {
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
