// A namespace's references. A struct net lives while anything holds it:
// the nsfs mount that gives it a name under /run/netns, every process
// inside it (its nsproxy), every socket opened in it (sk_alloc takes a
// reference for a user socket, __sk_destruct drops it). `ip netns del`
// only unmounts the name; the namespace is dismantled when its count
// reaches zero, by cleanup_net on the netns workqueue, never under a user.
//
// netsim counts the same references: the name's (from NewNet until
// DelNet; the initial namespace's is never dropped) and each open
// Handle's (Net.Handle to Handle.Close; an nlwire socket holds its
// Handle's until the socket closes). The put that drops the last one
// queues cleanupNet as kernel work, as __put_net queues cleanup_net.
//
// Kernel: get_net, maybe_get_net, put_net (include/net/net_namespace.h);
// __put_net, cleanup_net (net/core/net_namespace.c); sk_alloc,
// __sk_destruct (net/core/sock.c).

package rtnl

import (
	"sync/atomic"

	"github.com/netsimlab/netsim/sim"
)

// netRef is a namespace's reference count (net->ns.count). Zero means the
// namespace's cleanup is queued or done: no reference can be taken again.
type netRef struct {
	count atomic.Int64
}

// init gives a new namespace its first reference: its name's.
func (r *netRef) init() { r.count.Store(1) }

// tryGet takes a reference unless the count has reached zero, and reports
// whether it did.
//
// Kernel: maybe_get_net (refcount_inc_not_zero).
func (r *netRef) tryGet() bool {
	for {
		c := r.count.Load()
		if c <= 0 {
			return false
		}
		if r.count.CompareAndSwap(c, c+1) {
			return true
		}
	}
}

// put drops one of n's references, t's; the last queues the namespace's
// cleanup as kernel work, due at t's time.
//
// Kernel: put_net → __put_net (net/core/net_namespace.c).
func (n *Net) put(t *sim.Task) {
	switch c := n.ref.count.Add(-1); {
	case c == 0:
		n.k.wq.Queue(t, 0, cleanupNetWork, func(kw *sim.Task) { n.k.cleanupNet(kw, n) })
	case c < 0:
		panic("rtnl: put_net of " + n.String() + " without a reference")
	}
}
