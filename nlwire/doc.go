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
//
// A socket is opened in the namespace it is dialled in or, with
// netlink.Config.NetNS, in the one a namespace descriptor names (see
// below), as netlink.Dial enters a namespace to open its socket.
//
// A request that names another namespace (IFLA_NET_NS_PID or
// IFLA_NET_NS_FD on RTM_NEWLINK and RTM_SETLINK) names a simulated one:
// the pid is rtnl.Net.PID (1 for the initial namespace), the descriptor
// one that rtnl.Kernel.OpenNetnsFD gave, which holds the namespace until
// rtnl.Kernel.CloseNetnsFD; neither is a host process or file. Namespace
// ids are not modelled: IFLA_TARGET_NETNSID resolves to none (EINVAL), a
// device whose link or peer is elsewhere is sent IFLA_LINK without
// IFLA_LINK_NETNSID, and the RTM_DELLINK of a device that moved carries
// its IFLA_NEW_IFINDEX without IFLA_NEW_NETNSID.
package nlwire
