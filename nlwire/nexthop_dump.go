// Nexthop dumps on the wire: RTM_GETNEXTHOP with NLM_F_DUMP and
// RTM_GETNEXTHOPBUCKET (get and dump), struct nhmsg and the NHA_* attributes
// of include/uapi/linux/nexthop.h, served by rtm_dump_nexthop,
// rtm_get_nexthop_bucket and rtm_dump_nexthop_bucket (net/ipv4/nexthop.c).

package nlwire

import (
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// nhDumpRequest is the dump request an nhmsg and its attributes make: the
// family, the header, the device filters (a u32 above INT_MAX a negative
// ifindex, which rtnl refuses), groups and fdb, and the op flags.
func nhDumpRequest(r *request, tb attrs) rtnl.NexthopDumpRequest {
	return rtnl.NexthopDumpRequest{
		Origin: r.origin, Family: rt.Family(r.body[0]), Header: nhmHeader(r.body),
		DevIndex:    netdev.IfIndex(int32(tb.u32(uapi.NHA_OIF))),
		MasterIndex: netdev.IfIndex(int32(tb.u32(uapi.NHA_MASTER))),
		Groups:      tb.has(uapi.NHA_GROUPS), FDB: tb.has(uapi.NHA_FDB), OpFlags: tb.u32(uapi.NHA_OP_FLAGS),
	}
}

// dumpNexthops serves an RTM_GETNEXTHOP dump.
//
// Kernel: rtm_dump_nexthop, nh_valid_dump_req (net/ipv4/nexthop.c).
func dumpNexthops(r *request) (dumper, error) {
	tb, err := nhParse(r, nhPolicyDump)
	if err != nil {
		return nil, err
	}
	d, err := r.h.DumpNexthops(nhDumpRequest(r, tb))
	if err != nil {
		return nil, err
	}
	return &nexthopDumper{d}, nil
}

// nexthopDumper puts a nexthop dump's parts.
type nexthopDumper struct{ d *rtnl.NexthopDump }

// fill puts the nexthops the dump selects, from its cursor on, each
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
	done, err := d.d.Next(putEach(p, rt.RTMNewNexthop, 0, encodeNexthop, &perr))
	p.checkConsistent(d.d.Seq())
	if err != nil {
		return false, err
	}
	return done, perr
}

func (d *nexthopDumper) close() { d.d.Close() }

// getNexthopBucket serves RTM_GETNEXTHOPBUCKET without NLM_F_DUMP: one
// bucket of a resilient group. NHA_RES_BUCKET is parsed here, before
// rtnl checks the rest of the request.
//
// Kernel: rtm_get_nexthop_bucket, nh_valid_get_bucket_req
// (net/ipv4/nexthop.c).
func getNexthopBucket(r *request) ([]netlink.Message, error) {
	tb, err := nhParse(r, nhPolicyGetBucket)
	if err != nil {
		return nil, err
	}
	req := rtnl.NexthopBucketGetRequest{Origin: r.origin, ID: nexthop.ID(tb.u32(uapi.NHA_ID)),
		HasID: tb.has(uapi.NHA_ID), Header: nhmHeader(r.body), HasBucket: tb.has(uapi.NHA_RES_BUCKET)}
	if req.HasBucket {
		rb, err := nhNested(tb, uapi.NHA_RES_BUCKET, nhResBucketPolicyGet)
		if err != nil {
			return nil, err
		}
		req.Index, req.HasIndex = rb.u16(uapi.NHA_RES_BUCKET_INDEX), rb.has(uapi.NHA_RES_BUCKET_INDEX)
	}
	b, err := r.h.GetNexthopBucket(req)
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
// parsed without extack: a policy error is a bare errno. NHA_RES_BUCKET
// is parsed after rtnl has checked the rest of the request, as the
// kernel does.
//
// Kernel: rtm_dump_nexthop_bucket, nh_valid_dump_bucket_req
// (net/ipv4/nexthop.c).
func dumpNexthopBuckets(r *request) (dumper, error) {
	tb, err := nhParse(r, nhPolicyDumpBucket)
	if err != nil {
		return nil, errno.New(errno.Of(err), "")
	}
	req := rtnl.NexthopBucketDumpRequest{NexthopDumpRequest: nhDumpRequest(r, tb),
		ID: nexthop.ID(tb.u32(uapi.NHA_ID)), HasID: tb.has(uapi.NHA_ID)}
	var nestErr error
	if tb.has(uapi.NHA_RES_BUCKET) {
		rb, err := nhNested(tb, uapi.NHA_RES_BUCKET, nhResBucketPolicyDump)
		if nestErr = err; err == nil {
			req.NexthopID = nexthop.ID(rb.u32(uapi.NHA_RES_BUCKET_NH_ID))
		}
	}
	d, err := r.h.DumpNexthopBuckets(req)
	if err != nil {
		return nil, err
	}
	if nestErr != nil {
		return nil, nestErr
	}
	return &bucketDumper{d}, nil
}

// bucketDumper puts a bucket dump's parts.
type bucketDumper struct{ d *rtnl.NexthopBucketDump }

// fill puts the buckets the dump selects, from its cursor on, and checks
// the dump's consistency against net->nexthop.seq.
//
// Kernel: rtm_dump_nexthop_bucket, nh_fill_res_bucket
// (net/ipv4/nexthop.c).
func (d *bucketDumper) fill(p *part) (bool, error) {
	var perr error
	done, err := d.d.Next(putEach(p, rt.RTMNewNexthopBucket, 0,
		func(b *rtnl.NexthopBucket, _ int) ([]byte, error) {
			m, err := bucketMessage(b)
			return m.Data, err
		}, &perr))
	p.checkConsistent(d.d.Seq())
	if err != nil {
		return false, err
	}
	return done, perr
}

func (d *bucketDumper) close() { d.d.Close() }
