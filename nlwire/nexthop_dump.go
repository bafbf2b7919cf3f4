// Nexthop dumps on the wire: RTM_GETNEXTHOP with NLM_F_DUMP and
// RTM_GETNEXTHOPBUCKET (get and dump), struct nhmsg and the NHA_* attributes
// of include/uapi/linux/nexthop.h, served by rtm_dump_nexthop,
// rtm_get_nexthop_bucket and rtm_dump_nexthop_bucket (net/ipv4/nexthop.c).

package nlwire

import (
	"math"
	"syscall"

	"github.com/mdlayher/netlink"
	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// nhDumpFilter is __nh_valid_dump_req: the device filters (an ifindex
// above INT_MAX is refused) and a header that sets nothing but the family.
func nhDumpFilter(r *request, tb attrs) (rtnl.NexthopFilter, error) {
	var f rtnl.NexthopFilter
	if i := tb.u32(uapi.NHA_OIF); i > math.MaxInt32 {
		return f, errno.New(syscall.EINVAL, "Invalid device index")
	} else {
		f.DevIndex = netdev.IfIndex(i)
	}
	if i := tb.u32(uapi.NHA_MASTER); i > math.MaxInt32 {
		return f, errno.New(syscall.EINVAL, "Invalid master device index")
	} else {
		f.MasterIndex = netdev.IfIndex(i)
	}
	h := nhHeaderOf(r.body)
	if h.protocol != 0 || h.resvd != 0 || h.scope != 0 || h.flags != 0 {
		return f, errno.New(syscall.EINVAL, "Invalid values in header for nexthop dump request")
	}
	return f, nil
}

// dumpNexthops serves an RTM_GETNEXTHOP dump.
//
// Kernel: rtm_dump_nexthop, nh_valid_dump_req, nh_dump_filtered
// (net/ipv4/nexthop.c).
func dumpNexthops(r *request) (dumper, error) {
	tb, err := nhParse(r, nhPolicyDump)
	if err != nil {
		return nil, err
	}
	f, err := nhDumpFilter(r, tb)
	if err != nil {
		return nil, err
	}
	f.Groups, f.FDB = tb.has(uapi.NHA_GROUPS), tb.has(uapi.NHA_FDB)
	f.Family = int(r.body[0])
	return &nexthopDumper{h: r.h, f: f, ops: tb.u32(uapi.NHA_OP_FLAGS)}, nil
}

// nexthopDumper is a nexthop dump's filter and cursor, the id to resume
// at (ctx->idx).
type nexthopDumper struct {
	h    *rtnl.Handle
	f    rtnl.NexthopFilter
	ops  uint32 // NHA_OP_FLAGS
	from nexthop.ID
}

// fill puts the nexthops the filter leaves, from the cursor on, each
// built for the room left in the part, and checks the dump's consistency
// against net->nexthop.seq. A nexthop that does not fit even in an empty
// part (a group of more than 4049 members) ends the dump with EMSGSIZE
// in NLMSG_DONE (see fillPart; `ip nexthop show`: "Error: Buffer too
// small for object.").
//
// Kernel: rtm_dump_nexthop, rtm_dump_walk_nexthops,
// rtm_dump_nexthop_cb (net/ipv4/nexthop.c).
func (d *nexthopDumper) fill(p *part) (bool, error) {
	var perr error
	put := putEach(p, rt.RTMNewNexthop, 0, encodeNexthop, &perr)
	ds, err := d.h.NexthopDumpFrom(d.f, &d.from, func(ni *rtnl.NexthopInfo) bool {
		if d.ops != 0 && ni.Group != nil {
			perr = errStatsNotModelled
			return false
		}
		return put(ni)
	})
	if err != nil {
		return false, err
	}
	p.checkConsistent(ds.Seq)
	return ds.Done, perr
}

func (d *nexthopDumper) close() {}

// getNexthopBucket serves RTM_GETNEXTHOPBUCKET without NLM_F_DUMP: one
// bucket of a resilient group.
//
// Kernel: rtm_get_nexthop_bucket, nh_valid_get_bucket_req
// (net/ipv4/nexthop.c).
func getNexthopBucket(r *request) ([]netlink.Message, error) {
	tb, err := nhParse(r, nhPolicyGetBucket)
	if err != nil {
		return nil, err
	}
	id, err := nhValidGetDel(r, tb)
	if err != nil {
		return nil, err
	}
	if !tb.has(uapi.NHA_RES_BUCKET) {
		return nil, errno.New(syscall.EINVAL, "Bucket information is missing")
	}
	rb, err := nhNested(tb, uapi.NHA_RES_BUCKET, nhResBucketPolicyGet)
	if err != nil {
		return nil, err
	}
	if !rb.has(uapi.NHA_RES_BUCKET_INDEX) {
		return nil, errno.New(syscall.EINVAL, "Bucket index is missing")
	}
	b, err := r.h.NexthopBucketGet(id, rb.u16(uapi.NHA_RES_BUCKET_INDEX))
	if err != nil {
		return nil, err
	}
	m, err := bucketMessage(&b)
	if err != nil {
		return nil, err
	}
	return []netlink.Message{m}, nil
}

// dumpNexthopBuckets serves an RTM_GETNEXTHOPBUCKET dump. Its request is
// parsed without extack: a policy error is a bare errno.
//
// Kernel: rtm_dump_nexthop_bucket, nh_valid_dump_bucket_req
// (net/ipv4/nexthop.c).
func dumpNexthopBuckets(r *request) (dumper, error) {
	tb, err := nhParse(r, nhPolicyDumpBucket)
	if err != nil {
		return nil, errno.New(errno.Of(err), "")
	}
	var f rtnl.NexthopBucketFilter
	if tb.has(uapi.NHA_ID) {
		if f.ID = nexthop.ID(tb.u32(uapi.NHA_ID)); f.ID == 0 {
			return nil, errno.New(syscall.EINVAL, "Invalid nexthop id")
		}
	}
	if f.NexthopFilter, err = nhDumpFilter(r, tb); err != nil {
		return nil, err
	}
	f.Family = int(r.body[0]) // buckets whose member is of this family
	if tb.has(uapi.NHA_RES_BUCKET) {
		rb, err := nhNested(tb, uapi.NHA_RES_BUCKET, nhResBucketPolicyDump)
		if err != nil {
			return nil, err
		}
		f.NexthopID = nexthop.ID(rb.u32(uapi.NHA_RES_BUCKET_NH_ID))
	}
	return &bucketDumper{h: r.h, f: f}, nil
}

// bucketDumper is a bucket dump's filter and cursor.
type bucketDumper struct {
	h *rtnl.Handle
	f rtnl.NexthopBucketFilter
	c rtnl.BucketCursor
}

// fill puts the buckets the filter leaves, from the cursor on, and checks
// the dump's consistency against net->nexthop.seq.
//
// Kernel: rtm_dump_nexthop_bucket, nh_fill_res_bucket
// (net/ipv4/nexthop.c).
func (d *bucketDumper) fill(p *part) (bool, error) {
	var perr error
	ds, err := d.h.NexthopBucketDump(d.f, &d.c, putEach(p, rt.RTMNewNexthopBucket, 0,
		func(b *rtnl.NexthopBucket, _ int) ([]byte, error) {
			m, err := bucketMessage(b)
			return m.Data, err
		}, &perr))
	if err != nil {
		return false, err
	}
	p.checkConsistent(ds.Seq)
	return ds.Done, perr
}

func (d *bucketDumper) close() {}
