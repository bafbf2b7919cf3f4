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
// rtnl.Kernel.CloseNetnsFD; neither is a host process or file (so too
// NETNSA_PID and NETNSA_FD of RTM_NEWNSID and RTM_GETNSID). A namespace
// id (IFLA_TARGET_NETNSID, IFLA_LINK_NETNSID, IFLA_NEW_NETNSID) is one of
// the requester's namespace's ids, which rtnl keeps as the kernel does
// (peernet2id_alloc gives them where a message must name a namespace).
package nlwire
