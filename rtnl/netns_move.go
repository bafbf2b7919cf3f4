// Link requests that name another namespace: the namespace attributes of
// RTM_NEWLINK and RTM_SETLINK (IFLA_NET_NS_PID, IFLA_NET_NS_FD,
// IFLA_TARGET_NETNSID), the process ids and namespace descriptors that
// stand for a simulated namespace, and the RTM_DELLINK a device sends to
// the namespace it leaves. Kernel: rtnl_link_get_net,
// rtnl_link_get_net_by_nlattr, rtnl_link_get_net_capable, do_setlink's
// __dev_change_net_namespace call, rtmsg_ifinfo_newnet
// (net/core/rtnetlink.c); get_net_ns_by_pid, get_net_ns_by_fd
// (net/core/net_namespace.c).
//
// netsim runs no processes and opens no files, so it stands in for them:
// every namespace has a process id, that of a process living in it from
// its creation until its last reference goes (the initial namespace's is 1, init's;
// the others' are handed out in order of creation from 1000), and
// Kernel.OpenNetnsFD gives a descriptor of a namespace, which holds it as
// an open /run/netns file does until CloseNetnsFD. IFLA_TARGET_NETNSID
// names a namespace by an id of the requester's (nsid.go).

package rtnl

import (
	"cmp"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// NetnsRef names the namespace a link request moves or creates its device
// in, as the message does: by process id (IFLA_NET_NS_PID), by namespace
// descriptor (IFLA_NET_NS_FD), by namespace id (IFLA_TARGET_NETNSID), or,
// for a Go caller, by *Net. At most one may be set; the zero NetnsRef
// names none (the requester's namespace).
type NetnsRef struct {
	Net  *Net
	PID  *uint32
	FD   *uint32
	NSID *int32
}

// firstPID is the process id of the first named namespace's process.
const firstPID = 1000

// PID returns the process id that stands for n in IFLA_NET_NS_PID and
// `ip link set DEV netns PID`: 1 for the initial namespace, and for a
// named one a number from 1000 on, in order of creation. It names n until
// n is dismantled.
func (n *Net) PID() uint32 {
	if n.name == "" {
		return 1
	}
	return uint32(firstPID - 1 + n.seq)
}

// OpenNetnsFD opens a descriptor of n, as opening /run/netns/NAME or
// /proc/PID/ns/net does: the lowest free number from 3 on. It holds a
// reference to n until CloseNetnsFD; a namespace already dismantled gives
// ENOENT.
func (k *Kernel) OpenNetnsFD(n *Net) (uint32, error) {
	if !n.ref.tryGet() {
		return 0, n.errDead()
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fds == nil {
		k.fds = map[uint32]*Net{}
	}
	fd := uint32(3)
	for k.fds[fd] != nil {
		fd++
	}
	k.fds[fd] = n
	return fd, nil
}

// CloseNetnsFD closes a descriptor OpenNetnsFD gave, as t: the last
// reference of a namespace deleted by name queues its cleanup. An unknown
// descriptor is EBADF.
func (k *Kernel) CloseNetnsFD(t *sim.Task, fd uint32) error {
	k.mu.Lock()
	n := k.fds[fd]
	delete(k.fds, fd)
	k.mu.Unlock()
	if n == nil {
		return errno.New(syscall.EBADF, "Bad file descriptor")
	}
	n.put(t)
	return nil
}

// NetOfFD returns the namespace a descriptor OpenNetnsFD gave names, as
// setns(2) resolves one: a descriptor not open is EBADF.
//
// Kernel: get_net_ns_by_fd (net/core/net_namespace.c).
func (k *Kernel) NetOfFD(fd uint32) (*Net, error) {
	k.mu.Lock()
	n := k.fds[fd]
	k.mu.Unlock()
	if n == nil {
		return nil, errno.New(syscall.EBADF, "")
	}
	return n, nil
}

// target returns the device table of the namespace r names, or nil for
// from's own (see resolve).
func (r NetnsRef) target(from *Net) (*netdev.Table, error) {
	if !r.set() {
		return nil, nil
	}
	n, err := r.resolve(from)
	if err != nil || n == from {
		return nil, err
	}
	return n.devs, nil
}

// peerTable returns the device table of the namespace a veth's peer is
// created in: the one its own attributes name (r.Peer.Netns), else the
// link namespace's (linkTb, IFLA_LINK_NETNSID's), else the requester's,
// n, whatever namespace the request creates the device in.
//
// Kernel: rtnl_get_peer_net (net/core/rtnetlink.c), veth_newlink.
func (r LinkRequest) peerTable(n *Net, linkTb *netdev.Table) (*netdev.Table, error) {
	if r.Peer == nil || !r.Peer.Netns.set() {
		return cmp.Or(linkTb, n.devs), nil
	}
	p, err := r.Peer.Netns.resolve(n)
	if err != nil {
		return nil, err
	}
	return p.devs, nil
}

// linkTable returns the device table of the namespace r.LinkNSID names,
// an id of the target namespace's (tgt, or n's when tgt is nil), or nil
// when r names none; an id the target has not given is EINVAL.
//
// Kernel: rtnl_newlink's get_net_ns_by_id(tgt_net, IFLA_LINK_NETNSID)
// (net/core/rtnetlink.c).
func (r LinkRequest) linkTable(n *Net, tgt *netdev.Table) (*netdev.Table, error) {
	if r.LinkNSID == nil {
		return nil, nil
	}
	tn := n
	if tgt != nil {
		tn = n.k.byTable[tgt]
	}
	ln := tn.find(*r.LinkNSID)
	if ln == nil {
		return nil, errno.New(syscall.EINVAL, "Unknown network namespace id")
	}
	return ln.devs, nil
}

// resolve returns the namespace r names, or from when it names none.
// A process id no live namespace has is ESRCH, a descriptor not open
// EBADF, a namespace id from's table does not hold EINVAL; all three
// bare, as the kernel answers them.
//
// Kernel: rtnl_link_get_net_by_nlattr → rtnl_link_get_net
// (get_net_ns_by_pid, get_net_ns_by_fd), get_net_ns_by_id.
func (r NetnsRef) resolve(from *Net) (*Net, error) {
	k := from.k
	switch {
	case r.Net != nil:
		if r.Net.k != k {
			return nil, errno.New(syscall.EINVAL, "Network namespace of another kernel")
		}
		if !r.Net.alive() {
			return nil, r.Net.errDead()
		}
		return r.Net, nil
	case r.PID != nil:
		k.mu.Lock()
		defer k.mu.Unlock()
		for _, n := range k.all {
			if n.PID() == *r.PID && n.alive() {
				return n, nil
			}
		}
		return nil, errno.New(syscall.ESRCH, "")
	case r.FD != nil:
		return k.NetOfFD(*r.FD)
	case r.NSID != nil:
		if n := from.find(*r.NSID); n != nil {
			return n, nil
		}
		return nil, errno.New(syscall.EINVAL, "")
	}
	return from, nil
}

// alive reports whether n still has a reference: one whose last went is
// being dismantled, and nothing may enter it (maybe_get_net fails). The
// caller holds RTNL.
func (n *Net) alive() bool { return n.ref.count.Load() > 0 }

// set reports whether r names a namespace.
func (r NetnsRef) set() bool { return r.Net != nil || r.PID != nil || r.FD != nil || r.NSID != nil }

// LinkMovedMsg is the RTM_DELLINK a device that moves sends to the
// namespace it leaves, with the ifindex it takes in the new one
// (IFLA_NEW_IFINDEX) and the id the namespace it leaves has for the new
// one (IFLA_NEW_NETNSID), given it here if it has none.
//
// Kernel: __dev_change_net_namespace's peernet2id_alloc (net/core/dev.c),
// rtmsg_ifinfo_newnet (net/core/rtnetlink.c).
func (a announcer) LinkMovedMsg(t *sim.Task, d *netdev.Device, to *netdev.Table, newIndex netdev.IfIndex) {
	n := a.net(d)
	if n == nil {
		return
	}
	newID := NsidNotAssigned
	if dst := a.k.byTable[to]; dst != nil {
		newID = n.peernet2idAlloc(t, dst)
	}
	id := n.linkNetnsid(t, d)
	if !n.notifyNeeded() {
		return
	}
	m := linkNotification(d, true)
	m.Change = netdev.ChangeAll
	m.Link.NewIndex, m.Link.NewNetnsID = newIndex, newID
	m.Link.LinkNetnsID = id
	n.send(m)
}
