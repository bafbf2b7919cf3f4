// Nexthop requests on the wire: RTM_NEWNEXTHOP, RTM_DELNEXTHOP,
// RTM_GETNEXTHOP and RTM_GETNEXTHOPBUCKET, struct nhmsg and the NHA_*
// attributes of include/uapi/linux/nexthop.h, served by rtm_new_nexthop,
// rtm_del_nexthop, rtm_get_nexthop, rtm_dump_nexthop,
// rtm_get_nexthop_bucket and rtm_dump_nexthop_bucket (net/ipv4/nexthop.c),
// which parse every request strictly; the messages are in nexthop_fill.go.

package nlwire

import (
	"encoding/binary"
	"net/netip"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// nhmLen is sizeof(struct nhmsg): nh_family, nh_scope, nh_protocol, resvd
// (a byte each) and nh_flags (u32).
const nhmLen = 8

// nexthopGrpLen is sizeof(struct nexthop_grp): id (u32), weight and
// weight_high (weight - 1, low and high byte) and resvd2 (u16).
const nexthopGrpLen = 8

// NHA_OP_FLAGS: what a get or dump asks for beyond the nexthop
// (NHA_OP_FLAGS_DUMP_ALL), and the flag every group's answer carries to
// say that nexthop_grp's reserved fields are zero (weight_high is valid).
const (
	nhaOpFlagsDumpAll     = 0x3
	nhaOpFlagRespGrpResv0 = 0x80000000
)

// The policies of net/ipv4/nexthop.c.
var (
	nhPolicyNew = policy{attrs: []attrPolicy{
		uapi.NHA_ID:              {typ: nlaU32},
		uapi.NHA_GROUP:           {typ: nlaBinary},
		uapi.NHA_GROUP_TYPE:      {typ: nlaU16},
		uapi.NHA_BLACKHOLE:       {typ: nlaFlag},
		uapi.NHA_OIF:             {typ: nlaU32},
		uapi.NHA_GATEWAY:         {typ: nlaBinary},
		uapi.NHA_ENCAP_TYPE:      {typ: nlaU16},
		uapi.NHA_ENCAP:           {typ: nlaNested},
		uapi.NHA_FDB:             {typ: nlaFlag},
		uapi.NHA_RES_GROUP:       {typ: nlaNested},
		uapi.NHA_HW_STATS_ENABLE: polMax(nlaU32, 1),
	}}
	nhPolicyGet = policy{attrs: []attrPolicy{
		uapi.NHA_ID:       {typ: nlaU32},
		uapi.NHA_OP_FLAGS: polMask(nlaU32, nhaOpFlagsDumpAll),
	}}
	nhPolicyDel = policy{attrs: []attrPolicy{
		uapi.NHA_ID: {typ: nlaU32},
	}}
	nhPolicyDump = policy{attrs: []attrPolicy{
		uapi.NHA_OIF:      {typ: nlaU32},
		uapi.NHA_GROUPS:   {typ: nlaFlag},
		uapi.NHA_MASTER:   {typ: nlaU32},
		uapi.NHA_FDB:      {typ: nlaFlag},
		uapi.NHA_OP_FLAGS: polMask(nlaU32, nhaOpFlagsDumpAll),
	}}
	nhResPolicyNew = policy{attrs: []attrPolicy{
		uapi.NHA_RES_GROUP_BUCKETS:          {typ: nlaU16},
		uapi.NHA_RES_GROUP_IDLE_TIMER:       {typ: nlaU32},
		uapi.NHA_RES_GROUP_UNBALANCED_TIMER: {typ: nlaU32},
	}}
	nhPolicyDumpBucket = policy{attrs: []attrPolicy{
		uapi.NHA_ID:         {typ: nlaU32},
		uapi.NHA_OIF:        {typ: nlaU32},
		uapi.NHA_MASTER:     {typ: nlaU32},
		uapi.NHA_RES_BUCKET: {typ: nlaNested},
	}}
	nhResBucketPolicyDump = policy{attrs: []attrPolicy{
		uapi.NHA_RES_BUCKET_NH_ID: {typ: nlaU32},
	}}
	nhPolicyGetBucket = policy{attrs: []attrPolicy{
		uapi.NHA_ID:         {typ: nlaU32},
		uapi.NHA_RES_BUCKET: {typ: nlaNested},
	}}
	nhResBucketPolicyGet = policy{attrs: []attrPolicy{
		uapi.NHA_RES_BUCKET_INDEX: {typ: nlaU16},
	}}
)

func init() {
	register(uapi.AF_UNSPEC, rt.RTMNewNexthop, handler{do: newNexthop})
	register(uapi.AF_UNSPEC, rt.RTMDelNexthop, handler{do: delNexthop})
	register(uapi.AF_UNSPEC, rt.RTMGetNexthop, handler{do: getNexthop, dump: dumpNexthops})
	register(uapi.AF_UNSPEC, rt.RTMGetNexthopBucket, handler{do: getNexthopBucket, dump: dumpNexthopBuckets})
	registerNotify(rt.RTMNewNexthop, notifyNexthop)
	registerNotify(rt.RTMDelNexthop, notifyNexthop)
	registerNotify(rt.RTMNewNexthopBucket, notifyNexthopBucket)
}

// nhParse is nlmsg_parse of a request with an nhmsg header: the header's
// length, then the attributes, strictly.
func nhParse(r *request, pol policy) (attrs, error) {
	if len(r.body) < nhmLen {
		return attrs{}, errno.New(syscall.EINVAL, "Invalid header length")
	}
	return parseAttrs(r.body[nhmLen:], 16+nhmLen, pol, validateStrict)
}

// nhNested is nla_parse_nested of the attribute t of tb.
func nhNested(tb attrs, t uint16, pol policy) (attrs, error) {
	return parseAttrs(tb.get(t), tb.offset(t)+nlaHdrLen, pol, validateStrict)
}

// nhHeader is the request's struct nhmsg.
type nhHeader struct {
	family, scope, protocol, resvd uint8
	flags                          uint32
}

func nhHeaderOf(body []byte) nhHeader {
	return nhHeader{body[0], body[1], body[2], body[3], binary.LittleEndian.Uint32(body[4:])}
}

// nhRequest turns an RTM_NEWNEXTHOP's header and attributes into the
// request they make, as sent: rtnl makes every check of rtm_to_nh_config
// on it. An NHA_GROUP whose length is not a whole number of struct
// nexthop_grp holds no entries, which rtnl refuses as the kernel refuses
// that length; NHA_RES_GROUP's nested attributes are parsed here, and
// their policy's error goes with the request, which rtnl answers where
// the kernel parses them.
func nhRequest(h nhHeader, tb attrs) rtnl.NexthopRequest {
	req := rtnl.NexthopRequest{
		ID: nexthop.ID(tb.u32(uapi.NHA_ID)), Family: rt.Family(h.family), FamilySent: true, Protocol: rt.Protocol(h.protocol),
		Scope: rt.Scope(h.scope), Resvd: h.resvd, NHFlags: rt.NHFlags(h.flags),
		Blackhole: tb.has(uapi.NHA_BLACKHOLE), FDB: tb.has(uapi.NHA_FDB),
		GroupType:  nexthop.GroupType(tb.u16(uapi.NHA_GROUP_TYPE)),
		HasGateway: tb.has(uapi.NHA_GATEWAY), HasEncap: tb.has(uapi.NHA_ENCAP), HasEncapType: tb.has(uapi.NHA_ENCAP_TYPE),
		HWStats: tb.has(uapi.NHA_HW_STATS_ENABLE),
	}
	if g := tb.get(uapi.NHA_GROUP); g != nil {
		req.Group = []nexthop.GroupEntry{}
		for i := 0; len(g)%nexthopGrpLen == 0 && i < len(g); i += nexthopGrpLen {
			req.Group = append(req.Group, nexthop.GroupEntry{
				ID:     nexthop.ID(binary.LittleEndian.Uint32(g[i:])),
				Weight: (uint32(g[i+5])<<8 | uint32(g[i+4])) + 1,
				Resvd:  binary.LittleEndian.Uint16(g[i+6:]),
			})
		}
	}
	req.Gateway, _ = netip.AddrFromSlice(tb.get(uapi.NHA_GATEWAY))
	if tb.has(uapi.NHA_OIF) {
		// rtnl refuses an ifindex no device has ("Invalid device
		// index"), 0 and those above INT_MAX included, under RTNL.
		req.DevIndex, req.OIF = netdev.IfIndex(int32(tb.u32(uapi.NHA_OIF))), true
	}
	if tb.has(uapi.NHA_RES_GROUP) {
		req.Resilient, req.ResilientErr = nhResConfig(tb)
	}
	return req
}

// nhResConfig parses NHA_RES_GROUP: a resilient group's bucket count
// and timers (clock_t, 10 ms ticks).
//
// Kernel: rtm_to_nh_config_grp_res (net/ipv4/nexthop.c).
func nhResConfig(tb attrs) (*nexthop.ResilientConfig, error) {
	res, err := nhNested(tb, uapi.NHA_RES_GROUP, nhResPolicyNew)
	if err != nil {
		return nil, err
	}
	rc := &nexthop.ResilientConfig{}
	if res.has(uapi.NHA_RES_GROUP_BUCKETS) {
		rc.Buckets, rc.HasBuckets = res.u16(uapi.NHA_RES_GROUP_BUCKETS), true
	}
	if res.has(uapi.NHA_RES_GROUP_IDLE_TIMER) {
		rc.IdleTimer, rc.HasIdleTimer = clockT(res.u32(uapi.NHA_RES_GROUP_IDLE_TIMER)), true
	}
	if res.has(uapi.NHA_RES_GROUP_UNBALANCED_TIMER) {
		rc.UnbalancedTimer, rc.HasUnbalancedTimer = clockT(res.u32(uapi.NHA_RES_GROUP_UNBALANCED_TIMER)), true
	}
	return rc, nil
}

// clockTick is a clock_t tick (USER_HZ = 100).
const clockTick = 10 * time.Millisecond

func clockT(v uint32) time.Duration { return time.Duration(v) * clockTick }

func toClockT(d time.Duration) uint64 { return uint64(d / clockTick) }

// newNexthop serves RTM_NEWNEXTHOP: an add, or with NLM_F_REPLACE a
// replace, which without NLM_F_CREATE needs the nexthop to exist; rtnl
// checks the request and decides.
//
// Kernel: rtm_new_nexthop, nexthop_add, insert_nexthop (net/ipv4/nexthop.c).
func newNexthop(r *request) ([]netlink.Message, error) {
	tb, err := nhParse(r, nhPolicyNew)
	if err != nil {
		return nil, err
	}
	req := nhRequest(nhHeaderOf(r.body), tb)
	req.Origin, req.Flags = r.origin, rt.NLMFlags(r.hdr.Flags)
	return nil, r.h.NewNexthop(req)
}

// nhmHeader is the request's struct nhmsg besides its family, which a
// get, a delete and a dump must leave 0.
func nhmHeader(body []byte) rtnl.NexthopHeader {
	h := nhHeaderOf(body)
	return rtnl.NexthopHeader{Scope: rt.Scope(h.scope), Protocol: rt.Protocol(h.protocol), Resvd: h.resvd, Flags: rt.NHFlags(h.flags)}
}

// delNexthop serves RTM_DELNEXTHOP.
//
// Kernel: rtm_del_nexthop (net/ipv4/nexthop.c).
func delNexthop(r *request) ([]netlink.Message, error) {
	tb, err := nhParse(r, nhPolicyDel)
	if err != nil {
		return nil, err
	}
	return nil, r.h.DelNexthop(rtnl.NexthopDelRequest{Origin: r.origin, ID: nexthop.ID(tb.u32(uapi.NHA_ID)),
		HasID: tb.has(uapi.NHA_ID), Header: nhmHeader(r.body)})
}

// getNexthop serves RTM_GETNEXTHOP without NLM_F_DUMP: one nexthop.
//
// Kernel: rtm_get_nexthop (net/ipv4/nexthop.c).
func getNexthop(r *request) ([]netlink.Message, error) {
	tb, err := nhParse(r, nhPolicyGet)
	if err != nil {
		return nil, err
	}
	ni, err := r.h.GetNexthop(rtnl.NexthopGetRequest{Origin: r.origin, ID: nexthop.ID(tb.u32(uapi.NHA_ID)),
		HasID: tb.has(uapi.NHA_ID), Header: nhmHeader(r.body), OpFlags: tb.u32(uapi.NHA_OP_FLAGS)})
	if err != nil {
		return nil, err
	}
	// The answer's skb is sized for the nexthop (nh_nlmsg_size).
	m, err := nexthopMessage(rt.RTMNewNexthop, &ni, roomSized)
	if err != nil {
		return nil, err
	}
	return []netlink.Message{m}, nil
}

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
	return &seqDumper[rtnl.NexthopInfo]{d, rt.RTMNewNexthop, encodeNexthop}, nil
}

// seqDumper puts the parts of a dump whose parts report the generation
// they read (cb->seq): each message of type typ is built by msg for the
// room left in the part, and the part's consistency is checked against
// the generation.
type seqDumper[T any] struct {
	d interface {
		Next(func(*T) bool) (bool, error)
		Seq() uint32
		Close()
	}
	typ rt.MsgType
	msg func(x *T, room int) ([]byte, error)
}

// fill puts the objects the dump selects, from its cursor on. An object
// that does not fit even in an empty part (a group of more than 4049
// members) ends the dump with EMSGSIZE in NLMSG_DONE (see fillPart; `ip
// nexthop show`: "Error: Buffer too small for object.").
//
// Kernel: rtm_dump_nexthop_cb, nh_fill_res_bucket (net/ipv4/nexthop.c),
// nl_dump_check_consistent.
func (d *seqDumper[T]) fill(p *part) (bool, error) {
	var perr error
	done, err := d.d.Next(putEach(p, d.typ, 0, d.msg, &perr))
	p.checkConsistent(d.d.Seq())
	if err != nil {
		return false, err
	}
	return done, perr
}

func (d *seqDumper[T]) close() { d.d.Close() }

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
	return &seqDumper[rtnl.NexthopBucket]{d, rt.RTMNewNexthopBucket, func(b *rtnl.NexthopBucket, _ int) ([]byte, error) {
		m, err := bucketMessage(b)
		return m.Data, err
	}}, nil
}
