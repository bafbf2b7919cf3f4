// Route dumps on the wire: an RTM_GETROUTE with NLM_F_DUMP, served by
// inet_dump_fib (net/ipv4/fib_frontend.c), inet6_dump_fib
// (net/ipv6/ip6_fib.c) and for AF_UNSPEC rtnl_dump_all
// (net/core/rtnetlink.c).

package nlwire

import (
	"syscall"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// dumpFilter is struct fib_dump_filter: what a strict dump request asks
// for.
type dumpFilter struct {
	table    uint32
	protocol uint8
	typ      uint8
	dev      netdev.IfIndex
	flags    uint32
	set      bool
	strict   bool
}

// validDumpReq is ip_valid_fib_dump_req, which both families' dumps run
// on a socket with NETLINK_GET_STRICT_CHK.
func validDumpReq(r *request) (dumpFilter, error) {
	f := dumpFilter{strict: true}
	if len(r.body) < rtmsgLen {
		return f, errno.New(syscall.EINVAL, "Invalid header for FIB dump request")
	}
	m := parseRtmsg(r.body)
	if m.dstLen != 0 || m.srcLen != 0 || m.tos != 0 || m.scope != 0 {
		return f, errno.New(syscall.EINVAL, "Invalid values in header for FIB dump request")
	}
	if m.flags&^(uapi.RTM_F_CLONED|uapi.RTM_F_PREFIX) != 0 {
		return f, errno.New(syscall.EINVAL, "Invalid flags for FIB dump request")
	}
	f.flags, f.protocol, f.typ, f.table = m.flags, m.protocol, m.typ, uint32(m.table)
	a, err := r.parseAttrs(r.body[rtmsgLen:], 16+rtmsgLen, routePolicy4, validateTrailing|validateMaxType)
	if err != nil {
		return f, err
	}
	for t := range a.present() {
		switch t {
		case uapi.RTA_TABLE:
			f.table = a.u32(uapi.RTA_TABLE)
		case uapi.RTA_OIF:
			i := netdev.IfIndex(a.u32(uapi.RTA_OIF))
			if _, err := r.h.LinkByIndex(i); err != nil || i <= 0 {
				return f, errno.New(syscall.ENODEV, "")
			}
			f.dev = i
		default:
			return f, errno.New(syscall.EINVAL, "Unsupported attribute in dump request")
		}
	}
	f.set = f.flags != 0 || f.protocol != 0 || f.typ != 0 || f.table != 0 || f.dev != 0
	return f, nil
}

// match is the filter of fn_trie_dump_leaf and rt6_dump_route.
func (f dumpFilter) match(ri *rtnl.RouteInfo) bool {
	if !f.set {
		return true
	}
	if f.typ != 0 && uint8(ri.Type) != f.typ || f.protocol != 0 && uint8(ri.Protocol) != f.protocol {
		return false
	}
	if f.dev != 0 {
		// fib_info_nh_uses_dev / fib6_info_uses_dev.
		if ri.DevIndex == f.dev {
			return true
		}
		for _, p := range ri.Multipath {
			if p.DevIndex == f.dev {
				return true
			}
		}
		return false
	}
	return true
}

// dumpRoutes serves a dump of RTM_GETROUTE: inet_dump_fib for AF_INET,
// inet6_dump_fib for AF_INET6, both in turn (rtnl_dump_all) for
// AF_UNSPEC. On a strict socket the request's filters apply (and every
// message says NLM_F_DUMP_FILTERED); RTM_F_CLONED asks for the route
// exceptions, RTM_F_PREFIX for IPv6 prefix routes from router
// advertisements, neither of which netsim has.
func dumpRoutes(r *request) (dumper, error) {
	fam := r.family()
	var f dumpFilter
	if r.strict {
		var err error
		if f, err = validDumpReq(r); err != nil {
			return nil, err
		}
		if f.set {
			r.answerFlags |= uapi.NLM_F_DUMP_FILTERED
		}
	} else if len(r.body) >= rtmsgLen {
		fl := parseRtmsg(r.body).flags
		if fam == uapi.AF_INET6 {
			f.flags = fl & uapi.RTM_F_PREFIX
		} else {
			f.flags = fl & (uapi.RTM_F_PREFIX | uapi.RTM_F_CLONED)
		}
	}
	if f.flags&uapi.RTM_F_PREFIX != 0 || f.strict && f.flags&uapi.RTM_F_CLONED != 0 {
		return &listDumper{}, nil
	}
	family := rtnl.FamilyAll
	switch fam {
	case uapi.AF_INET:
		family = rtnl.FamilyV4
	case uapi.AF_INET6:
		family = rtnl.FamilyV6
	}
	if f.table != 0 {
		// A table one family lacks is an error for a dump of that family
		// only; the other dumps of rtnl_dump_all skip it.
		if family == rtnl.FamilyV4 && !r.h.TableExists(f.table) {
			return nil, errno.New(syscall.ENOENT, "ipv4: FIB table does not exist")
		}
		if family == rtnl.FamilyV6 && !r.h.TableExists6(f.table) {
			return nil, errno.New(syscall.ENOENT, "ipv6: FIB table does not exist")
		}
	}
	rd, err := r.h.RouteDump(family, f.table)
	if err != nil {
		return nil, err
	}
	d := &routeDumper{rd: rd, f: f}
	if f.strict {
		d.flags = uapi.NLM_F_DUMP_FILTERED
	}
	return d, nil
}

// routeDumper is a route dump's cursor (rtnl.RouteDump) and filter.
type routeDumper struct {
	rd    *rtnl.RouteDump
	f     dumpFilter
	flags netlink.HeaderFlags // each message's: NLM_F_DUMP_FILTERED on a strict socket
}

// fill puts the routes that match the filter, from the cursor on, each
// built for the room left in the part, until one does not fit.
//
// A route that does not fit even in an empty part ends the dump (see
// fillPart): quietly, with NLMSG_DONE 0, for one family's dump (whose
// rtnl_dumpit, RTNL_FLAG_DUMP_SPLIT_NLM_DONE, takes the empty part's
// EMSGSIZE for the end), and with -EMSGSIZE for both families'
// (rtnl_dump_all), as Linux 6.18 answers for an IPv4 route. For an IPv6
// route, 6.18's dump of both families does not end: it answers each read
// with an empty datagram while the route exists; netsim ends it as for
// IPv4.
//
// Kernel: fn_trie_dump_leaf → fib_dump_info; fib6_dump_node →
// rt6_dump_route → rt6_fill_node.
func (d *routeDumper) fill(p *part) (bool, error) {
	var perr error
	put := putEach(p, rt.RTMNewRoute, d.flags, routeMessage, &perr)
	done, err := d.rd.Next(func(ri *rtnl.RouteInfo) bool { return !d.f.match(ri) || put(ri) })
	if perr != nil {
		return false, perr
	}
	return done, err
}

func (d *routeDumper) close() { d.rd.Close() }
