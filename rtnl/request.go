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
