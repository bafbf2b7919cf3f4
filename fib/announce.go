// The route messages of the IPv4 FIB: rtmsg_fib (net/ipv4/fib_semantics.c)
// as fib_table_insert and fib_table_delete (net/ipv4/fib_trie.c) send it.

package fib

import (
	"net/netip"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// RouteAnnouncer receives the RTM_NEWROUTE and RTM_DELROUTE messages of
// routes R a FIB sends, at the points where the kernel sends them, with
// RTNL held.
type RouteAnnouncer[R any] interface {
	// Wanted reports whether anyone listens: the FIB builds no message
	// otherwise (rtnl_notify_needed).
	Wanted() bool
	// RouteMsg is an RTM_NEWROUTE (del false) or RTM_DELROUTE of r, with
	// the nlmsg flags flags (NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE,
	// NLM_F_APPEND). req says that it carries the header of the request
	// under way; the routes the kernel adds or removes itself carry none.
	RouteMsg(t *sim.Task, r R, del bool, flags rt.NLMFlags, req bool)
}

// Announcer receives the IPv4 FIB's route messages. The routes the kernel
// adds for addresses (fib_magic) carry no request header.
type Announcer = RouteAnnouncer[Route]

// SetAnnouncer installs a; nil sends nothing (the default). The caller
// holds RTNL.
func (f *FIB) SetAnnouncer(a Announcer) { f.announce = a }

// routeMsg sends the message of the route of table tb with key and
// suffix length slen, type typ, TOS tos and fib_info fi.
//
// Kernel: rtmsg_fib (net/ipv4/fib_semantics.c).
func (tb *Table) routeMsg(t *sim.Task, cfg *config, del bool, flags rt.NLMFlags, key uint32, slen uint8, typ Type, tos uint8, fi *fibInfo) {
	a := tb.f.announce
	if a == nil || !a.Wanted() {
		return
	}
	r := dumpInfo(tb.id, netip.PrefixFrom(addrFrom4(key), int(keyLength-slen)), typ, tos, fi)
	a.RouteMsg(t, r, del, flags, !cfg.kernel)
}

// NexthopReplaced sends the RTM_NEWROUTE (NLM_F_REPLACE) of every route
// whose fib_info uses nexthop object nh, after a replace changed nh's
// definition: the tables in hash order, each trie's leaves from the
// highest key down, a leaf's aliases in list order. The messages carry the
// header of the request under way. It builds nothing when nh has no IPv4
// route or no one listens; it charges nothing, as no other message does.
//
// Kernel: __nexthop_replace_notify (net/ipv4/nexthop.c),
// fib_info_notify_update, __fib_info_notify_update (net/ipv4/fib_trie.c).
func (f *FIB) NexthopReplaced(t *sim.Task, nh *nexthop.Nexthop) {
	a := f.announce
	if nh == nil || nh.FIBUsers() == 0 || a == nil || !a.Wanted() {
		return
	}
	for _, tb := range f.Tables() {
		tr := tb.t
		// The leaves holding an alias of tb that uses nh, by ascending
		// key, then sent in reverse.
		var leaves []uint32
		for l := range tr.leaves() {
			for al := tr.lf[l].head; al != 0; al = tr.al(al).next {
				if fa := tr.al(al); fa.tbID == tb.id && tr.fiOf(fa).nh == nh {
					leaves = append(leaves, l)
					break
				}
			}
		}
		for i := len(leaves) - 1; i >= 0; i-- {
			l := leaves[i]
			for al := tr.lf[l].head; al != 0; al = tr.al(al).next {
				if fa := tr.al(al); fa.tbID == tb.id && tr.fiOf(fa).nh == nh {
					a.RouteMsg(t, tb.route(tr.lf[l].key, fa), false, rt.NLMReplace, true)
				}
			}
		}
	}
}
