// `ip nexthop list` and `ip nexthop flush`: iproute2's ip/ipnexthop.c
// ipnh_list_flush, ipnh_flush and the selector nh_dump_filter sends (the
// kernel's rtm_dump_nexthop, net/ipv4/nexthop.c).

package iproute

import (
	"errors"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
)

// nhFilterReq is what ipnh_list_flush's words set: the process's filter,
// or an id to answer at once.
type nhFilterReq struct {
	h     *handle
	f     *nexthopFilter
	id    nexthop.ID
	hasID bool
}

// errNexthopID ends the walk of a selector at "id ID", which
// ipnh_list_flush answers at once, ignoring what follows.
var errNexthopID = errors.New("id given")

// nexthopDev is the dev of a selector: the filter's device.
func nexthopDev(a *args, f *nexthopFilter, h *handle) (err error) {
	_, f.devIdx, err = nextLink(a, h)
	return err
}

// nexthopMaster is the master of a selector.
func nexthopMaster(a *args, f *nexthopFilter, h *handle) (err error) {
	_, f.master, err = nextLink(a, h)
	return err
}

// nexthopVRF is the vrf of a selector: name_is_vrf asks for the link and
// its kind, then the name is the master's.
func nexthopVRF(a *args, f *nexthopFilter, h *handle) error {
	v, err := a.next()
	if err != nil {
		return err
	}
	if l, err := h.LinkByName(v); err != nil || l.Kind != "vrf" {
		return invarg("Invalid VRF\n", v)
	}
	if f.master = h.LinkIndex(v); f.master == 0 {
		return invarg("VRF does not exist\n", v)
	}
	return nil
}

// nexthopFilterKeywords are ipnh_list_flush's keywords in its order of
// comparison.
var nexthopFilterKeywords = []keyword[*nhFilterReq]{
	kw("dev", func(a *args, q *nhFilterReq) error { return nexthopDev(a, q.f, q.h) }),
	kw("groups", func(_ *args, q *nhFilterReq) error { q.f.groups = true; return nil }),
	kw("master", func(a *args, q *nhFilterReq) error { return nexthopMaster(a, q.f, q.h) }),
	kw("vrf", func(a *args, q *nhFilterReq) error { return nexthopVRF(a, q.f, q.h) }),
	exact("id", func(a *args, q *nhFilterReq) error {
		n, err := nextValue(a, uint32Value, "invalid id value")
		if err != nil {
			return err
		}
		q.id, q.hasID = nexthop.ID(n), true
		return errNexthopID
	}),
	kw("protocol", func(a *args, q *nhFilterReq) error {
		// A number only (get_unsigned); 0 filters nothing.
		p, err := nextValue(a, uint32Value, "invalid protocol value")
		q.f.proto = uint32(p)
		return err
	}),
	kw("fdb", func(_ *args, q *nhFilterReq) error { q.f.fdb = true; return nil }),
}

// nexthopSelect parses a selector of list or flush into the process's
// filter; it reports an "id ID" it met.
func (ip *IP) nexthopSelect(h *handle, argv []string) (*nhFilterReq, error) {
	q := &nhFilterReq{h: h, f: &ip.nhFilter}
	err := walk(&args{w: argv}, nexthopFilterKeywords, q, nexthopOther[*nhFilterReq](isHelp))
	if errors.Is(err, errNexthopID) {
		err = nil
	}
	return q, err
}

// nexthopShow is ipnh_list_flush listing: the selector words update the
// process's filter (which keeps what earlier lines set), "id" answers at
// once, then a dump is listed.
func (ip *IP) nexthopShow(h *handle, argv []string) error {
	q, err := ip.nexthopSelect(h, argv)
	if err != nil {
		return err
	}
	if q.hasID {
		return ip.nexthopGetID(h, q.id)
	}
	p := &ip.p
	p.startJSON(ip.opts.json, ip.opts.pretty, true)
	nhs, err := ip.nexthopDump(h)
	if err != nil {
		p.abortJSON()
		return &cmdError{msg: Message(err) + "Dump terminated\n", status: exitNetlink}
	}
	for _, ni := range nhs {
		ip.printNexthop(ni)
	}
	p.endJSON(true)
	return nil
}

// nexthopFlush is ipnh_list_flush flushing: "id ID" deletes that
// nexthop (delete_nexthop's -1 makes ip exit 1), else ipnh_flush.
func (ip *IP) nexthopFlush(h *handle, argv []string) error {
	q, err := ip.nexthopSelect(h, argv)
	if err != nil {
		return err
	}
	if q.hasID {
		if err := h.DelNexthop(rtnl.NexthopDelRequest{ID: q.id, HasID: true}); err != nil {
			return &cmdError{msg: Message(err), status: exitFailure}
		}
		return nil
	}
	return ip.nexthopFlushAll(h, len(argv) == 0)
}

// nexthopDump is rtnl_nexthopdump_req with nh_dump_filter: the dump of
// what the process's filter selects.
func (ip *IP) nexthopDump(h *handle) ([]rtnl.NexthopInfo, error) {
	return rtnl.ReadAll[rtnl.NexthopInfo](h.DumpNexthops(ip.nhFilter.dump(ip.family)))
}

// nexthopFlushAll is ipnh_flush: every dumped nexthop of the filter's
// protocol is deleted; without a selector, groups first, then the rest.
// The count adds up over the lines of a batch, as the filter does. It
// prints no JSON.
func (ip *IP) nexthopFlushAll(h *handle, all bool) error {
	f := &ip.nhFilter
	if all {
		f.groups, f.devIdx, f.master = true, 0, 0
	}
	for {
		nhs, err := ip.nexthopDump(h)
		if err != nil {
			return err
		}
		for _, ni := range nhs {
			if f.proto != 0 && uint32(ni.Protocol) != f.proto {
				continue
			}
			// A group that lost its last member with an earlier deletion is
			// gone already; ip counts it as flushed all the same.
			if err := h.DelNexthop(rtnl.NexthopDelRequest{ID: ni.ID, HasID: true}); err != nil && !isGone(err) {
				return err
			}
			f.flushed++
		}
		if !all || !f.groups {
			break
		}
		f.groups = false
	}
	if f.flushed == 0 {
		ip.printf("Nothing to flush\n")
	} else {
		ip.printf("Flushed %d nexthops\n", f.flushed)
	}
	return nil
}
