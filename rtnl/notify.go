// Notifications: rtnl_notify and the RTNLGRP_* multicasts of each object
// (rtmsg_ifinfo in net/core/rtnetlink.c, rtmsg_ifa in net/ipv4/devinet.c,
// rtmsg_fib in net/ipv4/fib_semantics.c, inet6_rt_notify in
// net/ipv6/route.c, nexthop_notify in net/ipv4/nexthop.c,
// notify_rule_change in net/core/fib_rules.c), with the origin of the
// request that caused them.

package rtnl

import (
	"sync"
	"sync/atomic"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fib6"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// Notification is one rtnetlink notification: the message the kernel
// multicasts to the RTNLGRP_* listeners of a namespace when one of its
// objects changes, whatever made the change (a Handle, an ip script, a
// netlink socket, the kernel itself). Exactly one of Link, Addr, Route,
// Rule, Nexthop, Bucket, Neigh and Nsid is set, as Type says.
type Notification struct {
	Type   rt.MsgType // RTM_NEWLINK, RTM_DELLINK, RTM_NEWADDR, ...
	Flags  uint16     // the nlmsg_flags the kernel sets (NLM_F_CREATE, NLM_F_REPLACE, ...)
	Origin Origin     // the request that caused it; zero for the kernel's own changes
	Family rt.Family  // rt.FamilyInet or rt.FamilyInet6 for addresses, routes, rules and nexthops; rt.FamilyBridge for a bridge port's link message
	Change uint32     // a link message's ifi_change (netdev.ChangeAll for a new or deleted device)
	Event  uint32     // a link message's IFLA_EVENT (IFLA_EVENT_*), 0 for none

	Link    *LinkInfo
	Addr    *AddrInfo
	Route   *RouteInfo
	Rule    *fibrules.Rule
	Nexthop *NexthopInfo
	// Bucket is a resilient group's bucket that the group's upkeep work
	// migrated (RTM_NEWNEXTHOPBUCKET, NLM_F_REPLACE, from no request).
	Bucket *NexthopBucket
	// Neigh is a neighbour (RTM_NEWNEIGH, RTM_DELNEIGH, RTNLGRP_NEIGH).
	Neigh *NeighInfo
	// Nsid is a namespace id given or taken back (RTM_NEWNSID,
	// RTM_DELNSID, RTNLGRP_NSID).
	Nsid *NsidInfo
}

// Origin identifies the netlink request a Handle is serving: the
// requester's port id and the request's sequence number, which the kernel
// copies into the notifications the request causes, and whether the
// request asked for them to be echoed (NLM_F_ECHO).
type Origin struct {
	PortID uint32
	Seq    uint32
	Echo   bool
	// Flags are the request's nlmsg_flags, which the nexthop
	// notifications copy (nexthop_notify); 0 when unknown, and then a
	// nexthop notification has the flags ip would have sent.
	Flags uint16
}

// notifiers is a namespace's notification listeners.
type notifiers struct {
	n  atomic.Int32 // len(subs), read without mu on every change
	mu sync.Mutex
	// +checklocks:mu
	next uint64
	// subs are in the order they subscribed.
	// +checklocks:mu
	subs []subscriber
}

type subscriber struct {
	id uint64
	fn func(Notification)
}

// Subscribe calls fn with every notification of the namespace from now on,
// in the order the kernel sends them, until cancel is called. fn runs in
// the task that made the change, with RTNL (or the rules lock) held: it
// must not block and must not make requests; it may keep the values it is
// given, which nothing else refers to.
//
// While a namespace has no listener its changes build no notification,
// as the kernel skips building the message when no socket listens
// (rtnl_notify_needed).
func (n *Net) Subscribe(fn func(Notification)) (cancel func()) {
	ns := &n.notify
	ns.mu.Lock()
	defer ns.mu.Unlock()
	id := ns.next
	ns.next++
	ns.subs = append(ns.subs, subscriber{id, fn})
	ns.n.Add(1)
	return func() {
		ns.mu.Lock()
		defer ns.mu.Unlock()
		for i, s := range ns.subs {
			if s.id == id {
				ns.subs = append(ns.subs[:i:i], ns.subs[i+1:]...)
				ns.n.Add(-1)
				return
			}
		}
	}
}

// notifyNeeded reports whether anyone listens to n's notifications; a
// change builds its notification only then.
func (n *Net) notifyNeeded() bool { return n.notify.n.Load() > 0 }

// send delivers m to every listener, in the order they subscribed.
func (n *Net) send(m Notification) {
	ns := &n.notify
	ns.mu.Lock()
	subs := ns.subs // never appended to in place: a cancel copies
	ns.mu.Unlock()
	for _, s := range subs {
		s.fn(m)
	}
}

// The NLM_F_* flags of a nexthop notification besides rt.NLMFlags'
// (include/uapi/linux/netlink.h).
const (
	nlmRequest = 0x1
	nlmAck     = 0x4
)

// announcer turns the subsystems' messages into a namespace's
// notifications: netdev's link and address messages, the FIBs' route
// messages, the rules' and the nexthops'.
type announcer struct{ k *Kernel }

// net returns the live namespace of d, or nil.
func (a announcer) net(d *netdev.Device) *Net { return a.k.byTable[d.Table()] }

// LinkMsg is rtmsg_ifinfo: nothing for a device no longer registered
// (rtmsg_ifinfo_event) but its RTM_DELLINK; the request's header only
// when it asked for an echo (rtmsg_ifinfo_build_skb keeps the port id and
// sequence number only for nlmsg_report).
func (a announcer) LinkMsg(t *sim.Task, d *netdev.Device, del bool, change uint32, req bool) {
	n := a.net(d)
	if n == nil || !del && !d.Registered() {
		return
	}
	// The message is filled whether or not anyone listens, and its fill
	// gives the device's link namespace an id.
	id := n.linkNetnsid(t, d)
	if !n.notifyNeeded() {
		return
	}
	m := linkNotification(d, del)
	m.Change = change
	m.Link.LinkNetnsID = id
	if req && n.cur.Echo {
		m.Origin = n.cur
	}
	n.send(m)
}

// linkNotification is the RTM_NEWLINK (del false) or RTM_DELLINK of d,
// carrying d's link attributes.
func linkNotification(d *netdev.Device, del bool) Notification {
	m := Notification{Type: rt.RTMNewLink}
	if del {
		m.Type = rt.RTMDelLink
	}
	li := linkInfo(d)
	m.Link = &li
	return m
}

// BridgePortMsg is br_ifinfo_notify of a port: sent whatever the port's
// registration state (a port going away sends it from NETDEV_UNREGISTER),
// never with a request's header.
func (a announcer) BridgePortMsg(t *sim.Task, p *netdev.Device, del bool) {
	n := a.net(p)
	if n == nil || !n.notifyNeeded() {
		return
	}
	m := linkNotification(p, del)
	m.Family = rt.FamilyBridge
	n.send(m)
}

// LinkEventMsg is rtmsg_ifinfo_event with an IFLA_EVENT: nothing for a
// device no longer registered.
func (a announcer) LinkEventMsg(t *sim.Task, d *netdev.Device, event uint32) {
	n := a.net(d)
	if n == nil || !d.Registered() {
		return
	}
	id := n.linkNetnsid(t, d)
	if !n.notifyNeeded() {
		return
	}
	li := linkInfo(d)
	li.LinkNetnsID = id
	n.send(Notification{Type: rt.RTMNewLink, Event: event, Link: &li})
}

// AddrMsg is rtmsg_ifa (IPv4: the request's header when req) and
// inet6_ifa_notify (IPv6: never a header).
func (a announcer) AddrMsg(t *sim.Task, d *netdev.Device, ad netdev.Addr, del bool, req bool) {
	n := a.net(d)
	if n != nil && ad.Prefix.Addr().Is6() {
		n.gens.addr6++ // __ipv6_ifa_notify, after inet6_ifa_notify
	}
	if n == nil || !n.notifyNeeded() {
		return
	}
	m := Notification{Type: rt.RTMNewAddr, Family: rt.FamilyInet}
	if del {
		m.Type = rt.RTMDelAddr
	}
	if ad.Prefix.Addr().Is6() {
		m.Family = rt.FamilyInet6
	} else if req {
		m.Origin = n.cur
	}
	ad.ValidLft, ad.PreferredLft = ad.Remaining(t.Now())
	m.Addr = &AddrInfo{Index: d.Index(), Link: d.Name(), Addr: ad}
	n.send(m)
}

// routeAnnouncer4 and routeAnnouncer6 are a namespace's FIBs' listeners.
type (
	routeAnnouncer4 struct{ n *Net }
	routeAnnouncer6 struct{ n *Net }
)

func (a routeAnnouncer4) Wanted() bool { return a.n.notifyNeeded() }
func (a routeAnnouncer6) Wanted() bool { return a.n.notifyNeeded() }

// RouteMsg is rtmsg_fib.
func (a routeAnnouncer4) RouteMsg(t *sim.Task, r fib.Route, del bool, flags rt.NLMFlags, req bool) {
	ri := routeInfo(r)
	a.n.sendRoute(&ri, del, uint16(flags), req)
}

// RouteMsg is inet6_rt_notify.
func (a routeAnnouncer6) RouteMsg(t *sim.Task, r fib6.Route, del bool, flags rt.NLMFlags, req bool) {
	ri := routeInfo6(r)
	a.n.sendRoute(&ri, del, uint16(flags), req)
}

func (n *Net) sendRoute(ri *RouteInfo, del bool, flags uint16, req bool) {
	m := Notification{Type: rt.RTMNewRoute, Flags: flags, Family: ri.Family, Route: ri}
	if del {
		m.Type = rt.RTMDelRoute
	}
	if req {
		m.Origin = n.cur
	}
	n.send(m)
}

// ruleOrigins are the origins of the rule requests under way, by task: a
// rule request may hold the rules' lock only, not RTNL (LockPerOps).
type ruleOrigins struct {
	mu sync.Mutex
	// +checklocks:mu
	m map[*sim.Task]Origin
}

// ruleRequestOrigin records o, the origin of the rule request h starts,
// if anyone listens; the returned function forgets it.
func (h *Handle) ruleRequestOrigin(o Origin) func() {
	n := h.n
	if !n.notifyNeeded() || o == (Origin{}) {
		return func() {}
	}
	ro := &n.ruleOrigins
	ro.mu.Lock()
	if ro.m == nil {
		ro.m = map[*sim.Task]Origin{}
	}
	ro.m[h.t] = o
	ro.mu.Unlock()
	return func() {
		ro.mu.Lock()
		delete(ro.m, h.t)
		ro.mu.Unlock()
	}
}

// ruleNotify is notify_rule_change: the rule, the origin of the request
// that changed it.
func (n *Net) ruleNotify(t *sim.Task, r fibrules.Rule, del bool) {
	m := Notification{Type: rt.RTMNewRule, Family: r.Family, Rule: &r}
	if del {
		m.Type = rt.RTMDelRule
	}
	ro := &n.ruleOrigins
	ro.mu.Lock()
	m.Origin = ro.m[t]
	ro.mu.Unlock()
	n.send(m)
}

// nexthopFlags are the nlmsg flags of a nexthop notification, which the
// kernel copies from the request (nexthop_notify): the request's own when
// the front end said them, else those ip sends for the operation.
func (n *Net) nexthopFlags(op uint16) uint16 {
	if n.cur.Flags != 0 {
		return n.cur.Flags
	}
	return nlmRequest | nlmAck | op
}

// nexthopNotify sends an RTM_NEWNEXTHOP of nh as it is now.
func (n *Net) nexthopNotify(nh *nexthop.Nexthop, flags uint16) {
	ni := nexthopInfo(nh)
	n.sendNexthop(&ni, false, flags)
}

// sendNexthop sends an RTM_NEWNEXTHOP or RTM_DELNEXTHOP of ni with the
// request's origin.
//
// Kernel: nexthop_notify (net/ipv4/nexthop.c).
func (n *Net) sendNexthop(ni *NexthopInfo, del bool, flags uint16) {
	m := Notification{Type: rt.RTMNewNexthop, Flags: flags, Origin: n.cur, Family: ni.Family, Nexthop: ni}
	if del {
		m.Type = rt.RTMDelNexthop
	}
	n.send(m)
}

// bucketAnnouncer is a namespace's listener of its resilient nexthop
// groups' bucket migrations.
type bucketAnnouncer struct{ n *Net }

func (a bucketAnnouncer) Wanted() bool { return a.n.notifyNeeded() }

// BucketMsg is nexthop_bucket_notify (net/ipv4/nexthop.c): the upkeep
// work's migration of one bucket, announced with NLM_F_REPLACE and no
// request's header.
func (a bucketAnnouncer) BucketMsg(g *nexthop.Nexthop, b nexthop.Bucket) {
	nb := nexthopBucket(g, b)
	a.n.send(Notification{Type: rt.RTMNewNexthopBucket, Flags: uint16(rt.NLMReplace), Bucket: &nb})
}
