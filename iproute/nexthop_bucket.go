// `ip nexthop bucket`: iproute2's ip/ipnexthop.c do_ipnh_bucket,
// ipnh_bucket_list and ipnh_bucket_get (the kernel's RTM_GETNEXTHOPBUCKET,
// net/ipv4/nexthop.c).

package iproute

import (
	"errors"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
)

// nexthopBucket is do_ipnh_bucket.
func (ip *IP) nexthopBucket(h *handle, argv []string) error {
	return nexthopBucketObject.run(ip, h, argv)
}

// nexthopBucketKeywords are ipnh_bucket_list's keywords in its order of
// comparison.
var nexthopBucketKeywords = []keyword[*nhFilterReq]{
	kw("dev", func(a *args, q *nhFilterReq) error { return nexthopDev(a, q.f, q.h) }),
	kw("master", func(a *args, q *nhFilterReq) error { return nexthopMaster(a, q.f, q.h) }),
	kw("vrf", func(a *args, q *nhFilterReq) error { return nexthopVRF(a, q.f, q.h) }),
	exact("id", func(a *args, q *nhFilterReq) error {
		n, err := nextValue(a, uint32Value, "invalid id value")
		q.f.id = nexthop.ID(n)
		return err
	}),
	exact("nhid", func(a *args, q *nhFilterReq) error {
		n, err := nextValue(a, uint32Value, "invalid id value")
		q.f.nhid = nexthop.ID(n)
		return err
	}),
}

// nexthopBucketList is ipnh_bucket_list: the selector updates the
// process's filter, and the dump sends what it holds (a groups filter
// left by an earlier line included, which the kernel refuses). A refused
// dump leaves its JSON array open, as ip does.
func (ip *IP) nexthopBucketList(h *handle, argv []string) error {
	f := &ip.nhFilter
	q := &nhFilterReq{h: h, f: f}
	if err := walk(&args{w: argv}, nexthopBucketKeywords, q, nexthopOther[*nhFilterReq](isHelp)); err != nil {
		return err
	}
	p := &ip.p
	p.startJSON(ip.opts.json, ip.opts.pretty, true)
	bs, err := rtnl.ReadAll[rtnl.NexthopBucket](h.DumpNexthopBuckets(rtnl.NexthopBucketDumpRequest{ID: f.id, NexthopID: f.nhid, NexthopDumpRequest: f.dump(ip.family)}))
	if err != nil {
		p.abortJSON()
		return dumpError(err)
	}
	for _, b := range bs {
		printNexthopBucket(p, b)
	}
	p.endJSON(true)
	return nil
}

// dumpError is how rtnl_dump_filter reports a refused dump: the extack
// message, else perror unless the error is ENOENT or EOPNOTSUPP
// (rtnl_dump_done), then "Dump terminated".
func dumpError(err error) error {
	msg := ""
	switch en := errnoOf(err); {
	case errorMessage(err) != "" && kernelHasExtack(en, errorMessage(err)):
		msg = Message(err)
	case en == syscall.ENOENT, en == syscall.EOPNOTSUPP:
	default:
		msg = Message(err)
	}
	return &cmdError{msg: msg + "Dump terminated\n", status: exitNetlink}
}

// errorMessage is the extack message of a kernel error, "" when none.
func errorMessage(err error) string {
	var ke *errno.Error
	if errors.As(err, &ke) {
		return ke.Msg
	}
	return ""
}

// nexthopBucketGetKeywords are ipnh_bucket_get's: anything else is its
// usage.
var nexthopBucketGetKeywords = []keyword[*nhBucketReq]{
	exact("id", func(a *args, q *nhBucketReq) error {
		n, err := nextValue(a, uint32Value, "invalid id value")
		q.id = nexthop.ID(n)
		return err
	}),
	exact("index", func(a *args, q *nhBucketReq) error {
		n, err := nextValue(a, uint16Value, "invalid bucket index value")
		q.index, q.hasIndex = uint16(n), true
		return err
	}),
}

// nhBucketReq is ipnh_bucket_get's request.
type nhBucketReq struct {
	id       nexthop.ID
	index    uint16
	hasIndex bool
}

// nexthopBucketGet is ipnh_bucket_get with ipnh_bucket_get_id.
func (ip *IP) nexthopBucketGet(h *handle, argv []string) error {
	q := &nhBucketReq{}
	usage := func(*args, *nhBucketReq) error { return usageErr(nexthopUsage) }
	if err := walk(&args{w: argv}, nexthopBucketGetKeywords, q, usage); err != nil {
		return err
	}
	if q.id == 0 || !q.hasIndex {
		return usageErr(nexthopUsage)
	}
	b, err := h.GetNexthopBucket(rtnl.NexthopBucketGetRequest{ID: q.id, HasID: true, HasBucket: true, HasIndex: true, Index: q.index})
	if err != nil {
		return err
	}
	ip.p.startJSON(ip.opts.json, ip.opts.pretty, true)
	printNexthopBucket(&ip.p, b)
	ip.p.endJSON(true)
	return nil
}
