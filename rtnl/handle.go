// The Handle: one task's requests in one network namespace, as a process
// holding a netlink socket there makes them; each runs under RTNL (do,
// doFrom). Kernel: netlink_rcv_skb → rtnetlink_rcv_msg, rtnl_lock and
// rtnl_unlock (net/core/rtnetlink.c), netlink_release (net/netlink/af_netlink.c).

package rtnl

import (
	"sync/atomic"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// Handle makes rtnetlink requests in one network namespace as one task, the
// way a process holding a netlink socket in that namespace would. Each
// method is one request: it enters the kernel (sim.Syscall), takes RTNL,
// does its work, and releases RTNL — which finishes any device it
// unregistered, waiting for RCU and for the device's last references in the
// caller's task, outside the lock.
//
// Errors are *errno.Error values: test them with errors.Is(err,
// syscall.EEXIST). A rejected request changes nothing.
//
// A Handle is used by one goroutine at a time (its task's). Handles of the
// same or of different namespaces may be used from different goroutines at
// once, each with its own task.
//
// A Handle holds a reference to its namespace, as a netlink socket does,
// from Net.Handle until Close: a namespace deleted by name stays alive and
// usable through its open Handles, and is dismantled when the last one
// closes. A Handle used for the kernel's whole life may simply never be
// closed.
type Handle struct {
	n *Net
	t *sim.Task
	// noNet: the namespace was dismantled before the Handle was made
	// (maybe_get_net failed); it holds no reference.
	noNet  bool
	closed atomic.Bool
}

// Close releases the Handle's reference to its namespace; the last
// reference of a namespace deleted by name queues its cleanup (see
// Kernel.DelNet). Requests on a closed Handle fail with EBADF, as they
// would on a closed socket. A second Close does nothing. Close always
// returns nil.
//
// Kernel: netlink_release → sk_free → put_net.
func (h *Handle) Close() error {
	if h.closed.Swap(true) || h.noNet {
		return nil
	}
	h.n.put(h.t)
	return nil
}

// usable is the check every request makes first: a closed Handle fails
// with EBADF, one made of a dismantled namespace with ENOENT. An open
// Handle holds a reference, so its namespace cannot be dismantled under
// it: the check reads only the Handle.
func (h *Handle) usable() error {
	if h.closed.Load() {
		return errno.New(syscall.EBADF, "Request on a closed Handle")
	}
	if h.noNet {
		return h.n.errDead()
	}
	return nil
}

// Task returns the task the handle acts as.
func (h *Handle) Task() *sim.Task { return h.t }

// Net returns the handle's namespace.
func (h *Handle) Net() *Net { return h.n }

// enter is what every request does first: let due deferred work run, open
// its trace span and enter the kernel. The caller defers the returned end.
func (h *Handle) enter(op string) (end func()) {
	t := h.t
	h.n.k.wq.RunDue(t, t.Now())
	end = t.Span(op)
	t.Charge(sim.Syscall, 1)
	return end
}

func (n *Net) errDead() error {
	return errno.Errorf(syscall.ENOENT, "Network namespace \"%s\" has been deleted", n.name)
}

// do runs one request from no socket (a Go caller's or ip's) with RTNL
// held: its notifications carry the zero Origin.
func (h *Handle) do(op string, fn func(t *sim.Task, tb *netdev.Table) error) error {
	return h.doFrom(Origin{}, op, fn)
}

// doFrom runs one request from origin o with RTNL held: the notifications
// it causes carry o.
func (h *Handle) doFrom(o Origin, op string, fn func(t *sim.Task, tb *netdev.Table) error) error {
	defer h.t.Frame("rtnetlink_rcv_msg")()
	defer h.enter(op)()
	if err := h.usable(); err != nil {
		return err
	}
	t, k := h.t, h.n.k
	k.lock(t)
	// The resilient nexthop groups' upkeep work due by now runs first.
	h.n.nh.RunTimers(t)
	h.n.syncTables6()
	h.n.cur = o
	err := fn(t, h.n.devs)
	h.n.cur = Origin{}
	h.n.syncTables6()
	k.unlock(t)
	return err
}
