package rtnl

import (
	"sync"
	"sync/atomic"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/rt"
)

// Notification is one rtnetlink notification: the message the kernel
// multicasts to the RTNLGRP_* listeners of a namespace when one of its
// objects changes, whatever made the change (a Handle, an ip script, a
// netlink socket, the kernel itself). Exactly one of Link, Addr, Route,
// Rule and Nexthop is set, as Type says.
type Notification struct {
	Type   rt.MsgType // RTM_NEWLINK, RTM_DELLINK, RTM_NEWADDR, ...
	Flags  uint16     // the nlmsg_flags the kernel sets (NLM_F_CREATE, NLM_F_REPLACE, ...)
	Origin Origin     // the request that caused it; zero for the kernel's own changes
	Family int        // FamilyV4 or FamilyV6 for addresses, routes, rules and nexthops

	Link    *LinkInfo
	Addr    *AddrInfo
	Route   *RouteInfo
	Rule    *fibrules.Rule
	Nexthop *NexthopInfo
}

// Origin identifies the netlink request a Handle is serving: the
// requester's port id and the request's sequence number, which the kernel
// copies into the notifications the request causes, and whether the
// request asked for them to be echoed (NLM_F_ECHO).
type Origin struct {
	PortID uint32
	Seq    uint32
	Echo   bool
}

// SetOrigin makes o the origin of the notifications the handle's next
// requests cause, until it is set again. A front end that speaks netlink
// sets it before each request; the zero Origin is a request from no socket.
func (h *Handle) SetOrigin(o Origin) { h.origin = o }

// notifiers is a namespace's notification listeners.
type notifiers struct {
	n    atomic.Int32 // len(subs), read without mu on every change
	mu   sync.Mutex
	next uint64
	subs []subscriber // in the order they subscribed
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
