// Netlink request flags of a new-object request (NLM_F_CREATE, NLM_F_EXCL,
// NLM_F_REPLACE, NLM_F_APPEND: include/uapi/linux/netlink.h) and the sets
// iproute2's commands send.

package rt

// NLMFlags are the NLM_F_* flags of a request that creates or changes an
// object (include/uapi/linux/netlink.h): what the handler does when an
// equal object exists or none does. Every RTM_NEW* handler reads them:
// fib_table_insert and ip6_route_add for routes, rtnl_newlink for links,
// inet_rtm_newaddr and inet6_rtm_newaddr for addresses, rtm_new_nexthop
// and fib_nl_newrule.
type NLMFlags uint16

// The request flags of a new-object request.
const (
	NLMReplace NLMFlags = 0x100 // NLM_F_REPLACE: replace the existing object
	NLMExcl    NLMFlags = 0x200 // NLM_F_EXCL: fail with EEXIST if one exists
	NLMCreate  NLMFlags = 0x400 // NLM_F_CREATE: create it if none exists
	NLMAppend  NLMFlags = 0x800 // NLM_F_APPEND: add after the existing ones
)

// The flags iproute2's route commands send (ip/iproute.c, do_iproute).
const (
	ModeAdd     = NLMCreate | NLMExcl    // ip route add
	ModeReplace = NLMCreate | NLMReplace // ip route replace
	ModeChange  = NLMReplace             // ip route change
	ModeAppend  = NLMCreate | NLMAppend  // ip route append
	ModePrepend = NLMCreate              // ip route prepend
)
