// Opening a NETLINK_ROUTE socket in a simulated namespace
// (netlink_create and netlink_bind in net/netlink/af_netlink.c) as a
// mdlayher/netlink connection, configured as netlink.Dial configures one.

package nlwire

import (
	"math"
	"os"
	"syscall"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// Dial opens a NETLINK_ROUTE socket in namespace n, served by n as a
// socket in that namespace is by Linux, and returns a mdlayher/netlink
// connection over it. The socket's requests run as a new task of n's
// kernel (its own virtual clock, taking RTNL and counted like any other
// request). Closing the connection closes the socket.
//
// A netlink.Conn numbers its requests from a random sequence number; the
// socket's port id is deterministic (see Socket).
func Dial(n *rtnl.Net) (*netlink.Conn, error) {
	return DialConfig(n, nil)
}

// DialConfig is Dial with mdlayher/netlink's Config, each field of which
// is applied as netlink.Dial applies it on Linux, or refused by name:
//
//   - PID: the port id the socket binds to: EADDRINUSE (an
//     *os.SyscallError for "bind") if another socket of the namespace has
//     it; 0 gives the socket one of its own, as autobind does.
//   - Groups: the RTNLGRP_* groups 1 to 32 the socket joins at bind, one
//     bit each (bit g-1 for group g, as the RTMGRP_* masks are).
//   - Strict: ExtendedAcknowledge and GetStrictCheck set, as
//     NETLINK_EXT_ACK and NETLINK_GET_STRICT_CHK.
//   - DisableNSLockThread: ignored, as netlink.Dial ignores it (deprecated,
//     it has no effect).
//   - NetNS: a namespace descriptor of n's kernel (rtnl.Kernel.OpenNetnsFD):
//     the socket is opened in the namespace it names, not in n, as
//     netlink.Dial enters that namespace (setns) to create its socket;
//     0 is n itself. A descriptor not open is EBADF, an *os.SyscallError
//     for "setns", as on Linux.
//
// A nil Config is the zero Config.
//
// Kernel: netlink_create, netlink_bind; setns (kernel/nsproxy.c) for NetNS.
func DialConfig(n *rtnl.Net, cfg *netlink.Config) (*netlink.Conn, error) {
	s, err := NewSocketConfig(n, n.Kernel().World().NewTask("netlink"), cfg)
	if err != nil {
		return nil, err
	}
	return netlink.NewConn(s, s.PID()), nil
}

// NewSocketConfig is NewSocketTask for a socket configured by cfg, as
// DialConfig configures one.
//
// Kernel: netlink_create, netlink_bind.
func NewSocketConfig(n *rtnl.Net, t *sim.Task, cfg *netlink.Config) (*Socket, error) {
	if cfg == nil {
		cfg = &netlink.Config{}
	}
	n, err := socketNet(n, cfg.NetNS)
	if err != nil {
		return nil, err
	}
	s := newSocket(n, t)
	if err := bind(s, t, cfg.PID); err != nil {
		_ = s.h.Close()
		return nil, err
	}
	if cfg.Groups != 0 {
		s.mu.Lock()
		s.groups = uint64(cfg.Groups)
		s.ns.listening(true)
		s.mu.Unlock()
	}
	if cfg.Strict {
		s.mu.Lock()
		s.opts.extAck, s.opts.strict = true, true
		s.mu.Unlock()
	}
	return s, nil
}

// socketNet returns the namespace a socket dialled in n with Config.NetNS
// netns is opened in: n for 0, else the one the descriptor names.
//
// Kernel: setns (kernel/nsproxy.c) with a network namespace descriptor.
func socketNet(n *rtnl.Net, netns int) (*rtnl.Net, error) {
	if netns == 0 {
		return n, nil
	}
	if netns < 0 || int64(netns) > math.MaxUint32 {
		return nil, os.NewSyscallError("setns", syscall.EBADF)
	}
	to, err := n.Kernel().NetOfFD(uint32(netns))
	if err != nil {
		return nil, os.NewSyscallError("setns", syscall.EBADF)
	}
	return to, nil
}
