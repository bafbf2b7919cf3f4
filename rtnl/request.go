// Requests: the rtnetlink message handlers netsim models, one Handle
// method per message type, as rtnetlink_rcv_msg dispatches them
// (net/core/rtnetlink.c) to the doit and dumpit handlers each subsystem
// registers with rtnl_register.
//
// A request is a Go value shaped like its message: RTM_NEW* requests carry
// their NLM_F_* flags (rt.NLMFlags), every request its Origin (the
// requester's port id, sequence number and flags, which the notifications
// it causes copy), and a device is named the way a message names it, by
// ifindex when one is given and by name otherwise (netdev.Table.Find). A
// handler answers with typed values and the kernel's errors with their
// extack text; a dump handler returns a cursor that a front end drains in
// parts (dump.go), with the kernel's filters, strict checks and errors
// applied here. The front ends (iproute, nlwire) only translate: they
// parse into a request and turn its answer into text or attributes.

package rtnl

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
)

// GetChecks is what the kernel checks of an RTM_GET* request without
// NLM_F_DUMP before it looks anything up (rtnl_valid_getlink_req,
// inet6_rtm_valid_getaddr_req): on a strict socket
// (NETLINK_GET_STRICT_CHK) the header's values and the attributes, the
// attributes' parse error on any, then the attributes the request
// refuses.
type GetChecks struct {
	Strict bool
	// BadHeader: the header has a value a strict request may not carry.
	BadHeader bool
	// AttrErr is the attributes' parse error.
	AttrErr error
	// Unsupported: the request carries an attribute a strict request may
	// not carry.
	Unsupported bool
	// Refused is the error of an attribute the request refuses after
	// the checks above (a namespace attribute: rtnl_ensure_unique_netns;
	// netsim has no peer namespaces).
	Refused error
}

// err is the first error of the checks, with the extack messages of a
// bad header and of an unsupported attribute.
func (c GetChecks) err(badHeader, unsupported string) error {
	switch {
	case c.Strict && c.BadHeader:
		return errno.New(syscall.EINVAL, badHeader)
	case c.AttrErr != nil:
		return c.AttrErr
	case c.Strict && c.Unsupported:
		return errno.New(syscall.EINVAL, unsupported)
	}
	return c.Refused
}
