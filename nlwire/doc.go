// Package nlwire serves the rtnetlink protocol from a simulated namespace:
// a github.com/mdlayher/netlink Socket whose requests an rtnl.Net answers
// as a NETLINK_ROUTE socket in that namespace would, so that unmodified Go
// agent code written against mdlayher/netlink or jsimonetti/rtnetlink runs
// against a simulated kernel, in-process, without root.
//
// It is a front end beside iproute: it decodes requests into the typed
// requests of rtnl's Handle, and encodes the structured values rtnl's
// dumps and notifications return, never text. Its constants are its own
// table of the Linux ABI (internal/uapi), so it builds on every platform.
package nlwire
