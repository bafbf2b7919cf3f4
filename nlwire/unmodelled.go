// The rtnetlink requests Linux 6.18 serves and netsim does not model: the
// doits and dumpits of the kernel's rtnl_register calls (net/core/
// rtnetlink.c, neighbour.c, net_namespace.c; net/sched; net/ipv4/devinet.c,
// ipmr.c; net/ipv6/addrconf.c, addrlabel.c, ip6mr.c; net/bridge;
// drivers/net/vxlan) for the message types and families netsim has no
// model of, each answered EOPNOTSUPP with an extack message saying what is
// not modelled, where an unknown request gets a bare EOPNOTSUPP. The table
// says which of doit and dumpit the kernel registers, so that a request
// the kernel has no handler for either still gets the bare answer.

package nlwire

import (
	"syscall"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
)

// An unmodelledEntry is one kernel registration netsim answers with
// EOPNOTSUPP: whether the kernel has a doit and a dumpit, whether the doit
// takes NLM_F_BULK, and the extack message.
type unmodelledEntry struct {
	do, dump, bulk bool
	msg            string
}

func (u unmodelledEntry) serve(*request) ([]netlink.Message, error) {
	return nil, errno.New(syscall.EOPNOTSUPP, u.msg)
}

func (u unmodelledEntry) dumpit(*request) (dumper, error) {
	return nil, errno.New(syscall.EOPNOTSUPP, u.msg)
}

// unmodelled is consulted after handlers, for the family and then for
// PF_UNSPEC, so that a handler netsim comes to serve takes precedence.
var unmodelled = map[handlerKey]unmodelledEntry{}

func init() {
	const (
		unspec = uapi.AF_UNSPEC
		inet   = uapi.AF_INET
		inet6  = uapi.AF_INET6
		bridge = uapi.AF_BRIDGE
		ipmr   = 128 // RTNL_FAMILY_IPMR
		ip6mr  = 129 // RTNL_FAMILY_IP6MR
	)
	const do, dump, both = 1, 2, 3
	add := func(family uint8, what string, regs ...[2]int) {
		for _, r := range regs {
			k := handlerKey{family, rt.MsgType(r[0])}
			unmodelled[k] = unmodelledEntry{do: r[1]&do != 0, dump: r[1]&dump != 0, msg: what + " not modelled by netsim"}
		}
	}
	add(unspec, "Neighbour table parameters are", [2]int{uapi.RTM_GETNEIGHTBL, dump}, [2]int{uapi.RTM_SETNEIGHTBL, do})
	tc := "Traffic control is"
	for _, base := range []int{uapi.RTM_NEWQDISC, uapi.RTM_NEWTCLASS, uapi.RTM_NEWTFILTER, uapi.RTM_NEWACTION, uapi.RTM_NEWCHAIN} {
		add(unspec, tc, [2]int{base, do}, [2]int{base + 1, do}, [2]int{base + 2, both})
	}
	add(unspec, "Netconf is", [2]int{uapi.RTM_GETNETCONF, dump})
	add(inet, "Netconf is", [2]int{uapi.RTM_GETNETCONF, both})
	add(inet6, "Netconf is", [2]int{uapi.RTM_GETNETCONF, both})
	add(unspec, "Link statistics are", [2]int{uapi.RTM_GETSTATS, both}, [2]int{uapi.RTM_SETSTATS, do})
	add(unspec, "Alternative interface names are", [2]int{uapi.RTM_NEWLINKPROP, do}, [2]int{uapi.RTM_DELLINKPROP, do})
	add(unspec, "Resilient nexthop group buckets are", [2]int{uapi.RTM_GETNEXTHOPBUCKET, both})
	add(bridge, "Bridge port settings (AF_BRIDGE) are", [2]int{uapi.RTM_GETLINK, dump},
		[2]int{uapi.RTM_DELLINK, do}, [2]int{uapi.RTM_SETLINK, do})
	add(bridge, "The bridge forwarding database is", [2]int{uapi.RTM_NEWNEIGH, do}, [2]int{uapi.RTM_DELNEIGH, do},
		[2]int{uapi.RTM_GETNEIGH, both})
	add(bridge, "The bridge multicast database is", [2]int{uapi.RTM_NEWMDB, do}, [2]int{uapi.RTM_DELMDB, do},
		[2]int{uapi.RTM_GETMDB, both})
	add(bridge, "Bridge VLANs are", [2]int{uapi.RTM_NEWVLAN, do}, [2]int{uapi.RTM_DELVLAN, do}, [2]int{uapi.RTM_GETVLAN, dump})
	add(bridge, "VXLAN VNI filtering is", [2]int{uapi.RTM_NEWTUNNEL, do}, [2]int{uapi.RTM_DELTUNNEL, do},
		[2]int{uapi.RTM_GETTUNNEL, dump})
	for _, k := range []rt.MsgType{rt.RTMDelNeigh, uapi.RTM_DELMDB} {
		e := unmodelled[handlerKey{bridge, k}]
		e.bulk = true // RTNL_FLAG_BULK_DEL_SUPPORTED
		unmodelled[handlerKey{bridge, k}] = e
	}
	add(inet6, "IPv6 link information (AF_INET6 link dumps) is", [2]int{uapi.RTM_GETLINK, dump})
	add(inet, "IPv4 multicast address dumps are", [2]int{uapi.RTM_GETMULTICAST, dump})
	add(inet6, "IPv6 multicast address dumps are", [2]int{uapi.RTM_GETMULTICAST, dump})
	add(inet6, "IPv6 anycast address dumps are", [2]int{uapi.RTM_GETANYCAST, dump})
	add(inet6, "IPv6 address labels are", [2]int{uapi.RTM_NEWADDRLABEL, do}, [2]int{uapi.RTM_DELADDRLABEL, do},
		[2]int{uapi.RTM_GETADDRLABEL, both})
	add(ipmr, "Multicast routing is", [2]int{uapi.RTM_GETLINK, dump}, [2]int{uapi.RTM_NEWROUTE, do},
		[2]int{uapi.RTM_DELROUTE, do}, [2]int{uapi.RTM_GETROUTE, both})
	add(ip6mr, "Multicast routing is", [2]int{uapi.RTM_GETROUTE, both})
}
