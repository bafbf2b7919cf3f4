// Opening a NETLINK_ROUTE socket in a simulated namespace
// (netlink_create in net/netlink/af_netlink.c) as a mdlayher/netlink
// connection.

package nlwire

import (
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/rtnl"
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
	s := NewSocket(n)
	return netlink.NewConn(s, s.PID()), nil
}
