// The route messages of the IPv4 FIB: rtmsg_fib (net/ipv4/fib_semantics.c)
// as fib_table_insert and fib_table_delete (net/ipv4/fib_trie.c) send it.

package fib

import (
	"net/netip"

	"github.com/netsimlab/netsim/sim"
)

// Announcer receives the RTM_NEWROUTE and RTM_DELROUTE messages the IPv4
// FIB sends, at the points where the kernel sends them, with RTNL held.
type Announcer interface {
	// Wanted reports whether anyone listens: the FIB builds no message
	// otherwise (rtnl_notify_needed).
	Wanted() bool
	// RouteMsg is an RTM_NEWROUTE (del false) or RTM_DELROUTE of r, with
	// the nlmsg flags flags (NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE,
	// NLM_F_APPEND). req says that it carries the header of the request
	// under way; the routes the kernel adds for addresses (fib_magic)
	// carry none.
	RouteMsg(t *sim.Task, r Route, del bool, flags Mode, req bool)
}

// SetAnnouncer installs a; nil sends nothing (the default). The caller
// holds RTNL.
func (f *FIB) SetAnnouncer(a Announcer) { f.announce = a }

// routeMsg sends the message of the route of table tb with key and
// suffix length slen, type typ, TOS tos and fib_info fi.
//
// Kernel: rtmsg_fib (net/ipv4/fib_semantics.c).
func (tb *Table) routeMsg(t *sim.Task, cfg *config, del bool, flags Mode, key uint32, slen uint8, typ Type, tos uint8, fi *fibInfo) {
	a := tb.f.announce
	if a == nil || !a.Wanted() {
		return
	}
	r := dumpInfo(tb.id, netip.PrefixFrom(addrFrom4(key), int(keyLength-slen)), typ, tos, fi)
	a.RouteMsg(t, r, del, flags, !cfg.kernel)
}
