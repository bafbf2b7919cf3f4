// Nexthop requests on the wire: RTM_NEWNEXTHOP, RTM_DELNEXTHOP,
// RTM_GETNEXTHOP and RTM_GETNEXTHOPBUCKET, struct nhmsg and the NHA_*
// attributes of include/uapi/linux/nexthop.h, served by rtm_new_nexthop,
// rtm_del_nexthop, rtm_get_nexthop, rtm_dump_nexthop,
// rtm_get_nexthop_bucket and rtm_dump_nexthop_bucket (net/ipv4/nexthop.c),
// which parse every request strictly; the messages are in nexthop_fill.go.

package nlwire

import (
	"encoding/binary"
	"math"
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

// nhConfig turns an RTM_NEWNEXTHOP into the nexthop it describes, with the
// checks of rtm_to_nh_config that need no state, in its order; rtnl makes
// the rest (the group's members, the device, the gateway) under RTNL. An
// lwt encapsulation, which netsim does not model, is refused after the
// checks that precede the kernel's own refusal of an unknown type.
//
// Kernel: rtm_to_nh_config, nh_check_attr_group, rtm_to_nh_config_grp_res
// (net/ipv4/nexthop.c).
func nhConfig(h nhHeader, tb attrs) (rtnl.NexthopRequest, error) {
	einval := func(msg string) (rtnl.NexthopRequest, error) {
		return rtnl.NexthopRequest{}, errno.New(syscall.EINVAL, msg)
	}
	if h.resvd != 0 || h.scope != 0 {
		return einval("Invalid values in ancillary header")
	}
	if h.flags&^uint32(rt.FlagOnLink) != 0 {
		return einval("Invalid nexthop flags in ancillary header")
	}
	switch h.family {
	case uapi.AF_INET, uapi.AF_INET6:
	case uapi.AF_UNSPEC:
		if !tb.has(uapi.NHA_GROUP) {
			return einval("Invalid address family")
		}
	default:
		return einval("Invalid address family")
	}
	spec := rtnl.NexthopRequest{
		ID: nexthop.ID(tb.u32(uapi.NHA_ID)), Family: rt.Family(h.family), Protocol: rt.Protocol(h.protocol),
		OnLink: h.flags&uint32(rt.FlagOnLink) != 0,
	}
	encap := tb.has(uapi.NHA_ENCAP) || tb.has(uapi.NHA_ENCAP_TYPE)
	if tb.has(uapi.NHA_FDB) {
		if tb.has(uapi.NHA_OIF) || tb.has(uapi.NHA_BLACKHOLE) || encap {
			return einval("Fdb attribute can not be used with encap, oif or blackhole")
		}
		if h.flags != 0 {
			return einval("Unsupported nexthop flags in ancillary header")
		}
		spec.FDB = true
	}
	if g := tb.get(uapi.NHA_GROUP); g != nil {
		if h.family != uapi.AF_UNSPEC {
			return einval("Invalid family for group")
		}
		spec.GroupType = nexthop.GroupType(tb.u16(uapi.NHA_GROUP_TYPE))
		if spec.GroupType > nexthop.GroupResilient {
			return einval("Invalid group type")
		}
		if len(g) == 0 || len(g)%nexthopGrpLen != 0 {
			return einval("Invalid length for nexthop group attribute")
		}
		for i := 0; i < len(g); i += nexthopGrpLen {
			if binary.LittleEndian.Uint16(g[i+6:]) != 0 {
				return einval("Reserved field in nexthop_grp must be 0")
			}
			w := (uint32(g[i+5])<<8 | uint32(g[i+4])) + 1
			if w > math.MaxUint16 {
				return einval("Invalid value for weight")
			}
			id := nexthop.ID(binary.LittleEndian.Uint32(g[i:]))
			for j := i + nexthopGrpLen; j < len(g); j += nexthopGrpLen {
				if nexthop.ID(binary.LittleEndian.Uint32(g[j:])) == id {
					return einval("Nexthop id can not be used twice in a group")
				}
			}
			spec.Group = append(spec.Group, nexthop.GroupMember{ID: id, Weight: uint16(w)})
		}
		for t := uapi.NHA_GROUP_TYPE + 1; t < len(tb.sp); t++ {
			switch {
			case !tb.has(uint16(t)), t == uapi.NHA_HW_STATS_ENABLE, t == uapi.NHA_FDB,
				t == uapi.NHA_RES_GROUP && spec.GroupType == nexthop.GroupResilient:
				continue
			}
			return einval("No other attributes can be set in nexthop groups")
		}
		if spec.GroupType == nexthop.GroupResilient {
			rc, err := nhResConfig(tb)
			if err != nil {
				return spec, err
			}
			spec.Resilient = rc
		}
		// NHA_HW_STATS_ENABLE shows only in the statistics a get or
		// dump asks for with NHA_OP_FLAGS, which netsim refuses.
		return spec, nil
	}
	if tb.has(uapi.NHA_BLACKHOLE) {
		if tb.has(uapi.NHA_GATEWAY) || tb.has(uapi.NHA_OIF) || encap || tb.has(uapi.NHA_FDB) {
			return einval("Blackhole attribute can not be used with gateway, oif, encap or fdb")
		}
		spec.Blackhole = true
		return spec, nil
	}
	if !spec.FDB && !tb.has(uapi.NHA_OIF) {
		return einval("Device attribute required for non-blackhole and non-fdb nexthops")
	}
	if gw := tb.get(uapi.NHA_GATEWAY); gw != nil {
		size := 4
		if h.family == uapi.AF_INET6 {
			size = 16
		}
		if len(gw) != size {
			return einval("Invalid gateway")
		}
		spec.Gateway, _ = netip.AddrFromSlice(gw)
	} else if spec.OnLink {
		return einval("ONLINK flag can not be set for nexthop without a gateway")
	}
	switch {
	case tb.has(uapi.NHA_ENCAP) && !tb.has(uapi.NHA_ENCAP_TYPE):
		return einval("LWT encapsulation type is missing")
	case tb.has(uapi.NHA_ENCAP):
		return spec, errno.New(syscall.EOPNOTSUPP, "Nexthop lwt encapsulation is not modelled")
	case tb.has(uapi.NHA_ENCAP_TYPE):
		return einval("LWT encapsulation attribute is missing")
	}
	if tb.has(uapi.NHA_HW_STATS_ENABLE) {
		return einval("Cannot enable nexthop hardware statistics for non-group nexthops")
	}
	if tb.has(uapi.NHA_OIF) {
		// rtnl refuses an ifindex no device has ("Invalid device
		// index"), 0 and those above INT_MAX included, under RTNL.
		spec.DevIndex, spec.OIF = netdev.IfIndex(int32(tb.u32(uapi.NHA_OIF))), true
	}
	return spec, nil
}

// nhResConfig parses NHA_RES_GROUP: a resilient group's bucket count
// and timers (clock_t, 10 ms ticks).
//
// Kernel: rtm_to_nh_config_grp_res (net/ipv4/nexthop.c).
func nhResConfig(tb attrs) (*nexthop.ResilientConfig, error) {
	rc := &nexthop.ResilientConfig{}
	if !tb.has(uapi.NHA_RES_GROUP) {
		return rc, nil
	}
	res, err := nhNested(tb, uapi.NHA_RES_GROUP, nhResPolicyNew)
	if err != nil {
		return nil, err
	}
	if res.has(uapi.NHA_RES_GROUP_BUCKETS) {
		rc.Buckets, rc.HasBuckets = res.u16(uapi.NHA_RES_GROUP_BUCKETS), true
		if rc.Buckets == 0 {
			return nil, errno.New(syscall.EINVAL, "Number of buckets needs to be non-0")
		}
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
// decides, under RTNL, after the checks of the new nexthop.
//
// Kernel: rtm_new_nexthop, nexthop_add, insert_nexthop (net/ipv4/nexthop.c).
func newNexthop(r *request) ([]netlink.Message, error) {
	tb, err := nhParse(r, nhPolicyNew)
	if err != nil {
		return nil, err
	}
	req, err := nhConfig(nhHeaderOf(r.body), tb)
	if err != nil {
		return nil, err
	}
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
		return nil, bareErrno(err, syscall.ENOENT) // rtm_get_nexthop sets no message
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
