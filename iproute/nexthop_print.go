// `ip nexthop` printing: iproute2's ip/ipnexthop.c __print_nexthop_entry,
// print_nh_group, print_nh_res_group, print_nexthop_bucket and the nexthop
// cache of print_cache_nexthop_id, fed by rtnl's NexthopInfo and NexthopBucket.

package iproute

import (
	"net/netip"
	"time"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// printNexthop is print_cache_nexthop with __print_nexthop_entry, text and
// JSON from the same calls: a nexthop of another protocol than the
// filter's is skipped.
func (ip *IP) printNexthop(ni rtnl.NexthopInfo) {
	f := &ip.nhFilter
	if f.proto != 0 && f.proto != uint32(ni.Protocol) {
		return
	}
	ip.printNexthopEntry(ni, "")
	ip.p.str(printFP, "", "%s", "\n")
}

// printNexthopEntry is __print_nexthop_entry of a nexthop that is not
// deleted, as an object under the JSON key jsobj ("" in an array).
func (ip *IP) printNexthopEntry(ni rtnl.NexthopInfo, jsobj string) {
	p := &ip.p
	p.openObject(jsobj)
	p.uint(printAny, "id", "id %d ", uint64(ni.ID))
	if len(ni.Group) > 0 {
		printNexthopGroup(p, ni.Group)
	}
	// print_nh_group_type: mpath (the type of every single nexthop too)
	// is not printed.
	if ni.GroupType != nexthop.GroupMultipath {
		p.str(printAny, "type", "type %s ", nexthopGroupTypeName(ni.GroupType))
	}
	if ni.GroupType == nexthop.GroupResilient {
		printNexthopResGroup(p, ni.Resilient)
	}
	if ni.Gateway.IsValid() {
		ip.printGateway(ni.Gateway)
	}
	if ni.DevIndex != 0 {
		ip.printIfidx(ni.Dev, "dev")
	}
	if ni.Scope != rt.ScopeUniverse || ip.opts.details > 0 {
		p.str(printAny, "scope", "scope %s ", ni.Scope.String())
	}
	if ni.Blackhole {
		p.null(printAny, "blackhole", "blackhole ", "")
	}
	if ni.Protocol != rt.ProtoUnspec || ip.opts.details > 0 {
		p.str(printAny, "protocol", "proto %s ", ni.Protocol.String())
	}
	printRtFlags(p, ni.Flags.Names())
	if ni.FDB {
		p.null(printAny, "fdb", "fdb", "")
	}
	p.closeObject()
}

// inetNtop is glibc's inet_ntop, as format_host prints an address without
// -r: netip's form, but for an IPv6 address whose first six 16-bit words
// are zero and whose seventh is not, which ends in a dotted quad
// ("::1.2.3.4").
func inetNtop(a netip.Addr) string {
	if a.Is6() && !a.Is4In6() {
		b := a.As16()
		if b == [16]byte{12: b[12], 13: b[13], 14: b[14], 15: b[15]} && (b[12] != 0 || b[13] != 0) {
			return "::" + netip.AddrFrom4([4]byte(b[12:])).String()
		}
	}
	return a.String()
}

// printNexthopGroup is print_nh_group: the members as ID[,WEIGHT]
// separated by '/', a weight of 1 not printed. ip 6.1 reads only the low
// byte of weight-1 (struct nexthop_grp's weight, not weight_high).
func printNexthopGroup(p *printer, group []nexthop.GroupMember) {
	p.openArray(printJSON, "group")
	p.str(printFP, "", "%s", "group ")
	for i, m := range group {
		p.openObject("")
		if i > 0 {
			p.str(printFP, "", "%s", "/")
		}
		p.uint(printAny, "id", "%d", uint64(m.ID))
		if w := uint64(uint8(m.Weight-1)) + 1; w > 1 {
			p.uint(printAny, "weight", ",%d", w)
		}
		p.closeObject()
	}
	p.str(printFP, "", "%s", " ")
	p.closeArray(printJSON, "")
}

// nexthopGroupTypeName is nh_group_type_name.
func nexthopGroupTypeName(t nexthop.GroupType) string {
	switch t {
	case nexthop.GroupMultipath:
		return "mpath"
	case nexthop.GroupResilient:
		return "resilient"
	}
	return "<unknown type>"
}

// printNexthopResGroup is print_nh_res_group: the timers and the
// unbalanced time are clock_t's, printed in seconds with %g.
func printNexthopResGroup(p *printer, r nexthop.ResilientInfo) {
	p.openObject("resilient_args")
	p.uint(printAny, "buckets", "buckets %d ", uint64(r.Buckets))
	p.float(printAny, "idle_timer", "idle_timer %g ", clockSeconds(r.IdleTimer))
	p.float(printAny, "unbalanced_timer", "unbalanced_timer %g ", clockSeconds(r.UnbalancedTimer))
	p.float(printAny, "unbalanced_time", "unbalanced_time %g ", clockSeconds(r.UnbalancedTime))
	p.closeObject()
}

// clockSeconds is a duration of clock_t precision (USER_HZ 100) in
// seconds as __jiffies_to_tv and print_tv compute it: whole seconds plus
// microseconds over a million.
func clockSeconds(d time.Duration) float64 {
	ticks := uint64(d / (10 * time.Millisecond))
	usec := ticks * 10000
	sec := usec / 1000000
	return float64(sec) + float64(usec-sec*1000000)/1000000
}

// printNexthopBucket is print_nexthop_bucket with print_nh_res_bucket.
func printNexthopBucket(p *printer, b rtnl.NexthopBucket) {
	p.openObject("")
	p.uint(printAny, "id", "id %d ", uint64(b.ID))
	p.openObject("bucket")
	p.uint(printAny, "index", "index %d ", uint64(b.Index))
	p.float(printAny, "idle_time", "idle_time %g ", clockSeconds(b.IdleTime))
	p.uint(printAny, "nhid", "nhid %d ", uint64(b.NexthopID))
	p.closeObject()
	printRtFlags(p, b.Flags.Names())
	p.str(printFP, "", "%s", "\n")
	p.closeObject()
}

// nexthopCache is ipnexthop.c's nh_cache: the nexthops print_cache_nexthop_id
// has asked the kernel for, by id. ip never updates an entry (only ip
// monitor would), so a batch's later lines print a nexthop as it was when
// first asked for.
type nexthopCache map[nexthop.ID]rtnl.NexthopInfo

// printCacheNexthopID is print_cache_nexthop_id: the nexthop id from the
// cache, or asked of the kernel (RTM_GETNEXTHOP) and cached, printed after
// fpPrefix (text only) as an object jsobj. A nexthop the kernel does not
// have prints nothing: a route keeps its nexthop, so that does not happen.
func (ip *IP) printCacheNexthopID(h *handle, fpPrefix, jsobj string, id nexthop.ID) {
	ni, ok := ip.nhCache[id]
	if !ok {
		var err error
		if ni, err = h.GetNexthop(rtnl.NexthopGetRequest{ID: id, HasID: true}); err != nil {
			return
		}
		if ip.nhCache == nil {
			ip.nhCache = nexthopCache{}
		}
		ip.nhCache[id] = ni
	}
	ip.p.str(printFP, "", "%s", fpPrefix)
	ip.printNexthopEntry(ni, jsobj)
}
