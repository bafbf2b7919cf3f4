package nlwire_test

// The kernel-diff sequence of namespace ids: RTM_NEWNSID with its errors,
// RTM_GETNSID as a doit (by process id and by id, with a target) and as
// dumps (with NETNSA_TARGET_NSID, which only a strict socket reads, and
// strict checks), and the RTNLGRP_NSID notification (rtnl_net_newid,
// rtnl_net_getid, rtnl_net_dumpid and rtnl_net_notifyid in
// net/core/net_namespace.c). The namespace names itself: NETNSA_PID is a
// process of its own (its id differs between the sides and prints as
// "*"). Its transcript is testdata/nsid.transcript.

import (
	"encoding/binary"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	W "github.com/netsimlab/netsim/nlwire/internal/wiretest"
)

// NETNSA_* (include/uapi/linux/net_namespace.h).
const (
	netnsaNSID        = 1
	netnsaPID         = 2
	netnsaFD          = 3
	netnsaTargetNSID  = 4
	netnsaCurrentNSID = 5
)

// rtgen is a struct rtgenmsg of AF_UNSPEC, padded as ip sends it.
var rtgen = []byte{uapi.AF_UNSPEC, 0, 0, 0}

func s32(t uint16, v int32) W.Attr {
	return W.Attr{Type: t, Data: binary.LittleEndian.AppendUint32(nil, uint32(v))}
}

func nsidMsg(typ, flags uint16, attrs ...W.Attr) netlink.Message {
	return W.Msg(typ, flags, rtgen, attrs...)
}

// selfNsid is a request that names the side's own namespace by a process
// of it, with attrs after NETNSA_PID.
func selfNsid(typ, flags uint16, attrs ...W.Attr) W.Step {
	return W.Step{SendPID: func(pid uint32) netlink.Message {
		return nsidMsg(typ, flags, append([]W.Attr{W.U32(netnsaPID, pid)}, attrs...)...)
	}}
}

func init() {
	sequences = append(sequences, W.Seq{
		Name:    "nsid",
		Doc:     "namespace ids: RTM_NEWNSID and its errors, RTM_GETNSID by pid and by id, with a target, dumps with strict checks, RTNLGRP_NSID",
		Options: extAck,
		Groups:  []uint32{uapi.RTNLGRP_NSID},
		Steps: steps(
			note("no id yet", nsidMsg(uapi.RTM_GETNSID, W.Dump)),
			note("no NETNSA_NSID", nsidMsg(uapi.RTM_NEWNSID, W.Ack)),
			note("no peer", nsidMsg(uapi.RTM_NEWNSID, W.Ack, s32(netnsaNSID, 5))),
			note("a process that does not exist", nsidMsg(uapi.RTM_NEWNSID, W.Ack, s32(netnsaNSID, 5), W.U32(netnsaPID, 4194305))),
			note("a descriptor that is not open", nsidMsg(uapi.RTM_NEWNSID, W.Ack, s32(netnsaNSID, 5), W.U32(netnsaFD, 999))),
			note("the namespace gives itself the id 5", selfNsid(uapi.RTM_NEWNSID, W.Ack, s32(netnsaNSID, 5))),
			note("it has one", selfNsid(uapi.RTM_NEWNSID, W.Ack, s32(netnsaNSID, 6))),
			note("auto: it has one", selfNsid(uapi.RTM_NEWNSID, W.Ack, s32(netnsaNSID, -1))),
			selfNsid(uapi.RTM_GETNSID, W.Req),
			nsidMsg(uapi.RTM_GETNSID, W.Req, s32(netnsaNSID, 5)),
			note("an id nobody has", nsidMsg(uapi.RTM_GETNSID, W.Req, s32(netnsaNSID, 7))),
			note("a target: its id and ours", nsidMsg(uapi.RTM_GETNSID, W.Req, s32(netnsaNSID, 5), s32(netnsaTargetNSID, 5))),
			note("an unknown target", nsidMsg(uapi.RTM_GETNSID, W.Req, s32(netnsaNSID, 5), s32(netnsaTargetNSID, 9))),
			note("no peer", nsidMsg(uapi.RTM_GETNSID, W.Req)),
			nsidMsg(uapi.RTM_GETNSID, W.Dump),
			note("not strict: the target is not read", nsidMsg(uapi.RTM_GETNSID, W.Dump, s32(netnsaTargetNSID, 9))),
			option(netlink.GetStrictCheck, true),
			nsidMsg(uapi.RTM_GETNSID, W.Dump, s32(netnsaTargetNSID, 5)),
			note("strict: an unknown target", nsidMsg(uapi.RTM_GETNSID, W.Dump, s32(netnsaTargetNSID, 9))),
			note("strict: NETNSA_NSID in a dump", nsidMsg(uapi.RTM_GETNSID, W.Dump, s32(netnsaNSID, 5), s32(netnsaTargetNSID, 9))),
			note("strict: NETNSA_CURRENT_NSID after an unknown target", nsidMsg(uapi.RTM_GETNSID, W.Dump, s32(netnsaTargetNSID, 9), s32(netnsaCurrentNSID, 1))),
			note("strict: NETNSA_CURRENT_NSID in a get", nsidMsg(uapi.RTM_GETNSID, W.Req, s32(netnsaNSID, 5), s32(netnsaCurrentNSID, 1))),
			option(netlink.GetStrictCheck, false),
		),
	})
}

// The kernel-diff sequence of IFLA_TARGET_NETNSID and IFA_TARGET_NETNSID:
// requests for the devices and addresses of the namespace an id names,
// here the requester's own under an id it gives itself (rtnl_getlink,
// rtnl_dump_ifinfo and rtnl_dellink with rtnl_get_net_ns_capable;
// inet_dump_ifaddr and inet6_dump_addr, which read the target only from a
// strict socket). Every message about the target's devices carries the
// id. Its transcript is testdata/target_netnsid.transcript.
func init() {
	target := func(id int32) W.Attr { return s32(uapi.IFLA_TARGET_NETNSID, id) }
	addrTarget := func(id int32) W.Attr { return s32(uapi.IFA_TARGET_NETNSID, id) }
	sequences = append(sequences, W.Seq{
		Name:    "target_netnsid",
		Doc:     "IFLA_TARGET_NETNSID in link gets, dumps and deletes; IFA_TARGET_NETNSID in address dumps",
		Options: extAck,
		Groups:  []uint32{uapi.RTNLGRP_LINK},
		Steps: steps(
			send(vethPair()),
			W.Msg(uapi.RTM_NEWADDR, W.Create, W.IfAddr{Family: uapi.AF_INET, Prefixlen: 24, Index: ifVeth0}.Bytes(),
				W.IP(uapi.IFA_LOCAL, "10.0.0.1"), W.IP(uapi.IFA_ADDRESS, "10.0.0.1")),
			W.Msg(uapi.RTM_NEWADDR, W.Create, W.IfAddr{Family: uapi.AF_INET6, Prefixlen: 64, Index: ifVeth0}.Bytes(),
				W.IP(uapi.IFA_LOCAL, "2001:db8::1"), W.U32(uapi.IFA_FLAGS, uapi.IFA_F_NODAD)),
			note("an id nobody has", W.Msg(uapi.RTM_GETLINK, W.Dump, W.IfInfo{}.Bytes(), target(5))),
			note("a get with it", W.Msg(uapi.RTM_GETLINK, W.Req, W.IfInfo{Index: 1}.Bytes(), target(5))),
			note("a delete with it", W.Msg(uapi.RTM_DELLINK, W.Ack, W.IfInfo{Index: ifVeth0}.Bytes(), target(5))),
			note("the namespace gives itself the id 5", selfNsid(uapi.RTM_NEWNSID, W.Ack, s32(netnsaNSID, 5))),
			note("a dump of the namespace id 5 names", W.Msg(uapi.RTM_GETLINK, W.Dump, W.IfInfo{}.Bytes(), target(5))),
			note("a dump filtered by kind", W.Msg(uapi.RTM_GETLINK, W.Dump, W.IfInfo{}.Bytes(), target(5),
				W.Nest(uapi.IFLA_LINKINFO, W.Str(uapi.IFLA_INFO_KIND, "veth")))),
			note("a get by index", W.Msg(uapi.RTM_GETLINK, W.Req, W.IfInfo{Index: ifVeth1}.Bytes(), target(5))),
			note("a get by name", W.Msg(uapi.RTM_GETLINK, W.Req, W.IfInfo{}.Bytes(), W.Str(uapi.IFLA_IFNAME, "lo"), target(5))),
			note("a get of a device it does not have", W.Msg(uapi.RTM_GETLINK, W.Req, W.IfInfo{Index: 99}.Bytes(), target(5))),
			note("an IPv6 address get", W.Msg(uapi.RTM_GETADDR, W.Req, W.IfAddr{Family: uapi.AF_INET6}.Bytes(), W.IP(uapi.IFA_ADDRESS, "2001:db8::1"), addrTarget(5))),
			note("an IPv6 address get with an unknown target", W.Msg(uapi.RTM_GETADDR, W.Req, W.IfAddr{Family: uapi.AF_INET6}.Bytes(), W.IP(uapi.IFA_ADDRESS, "2001:db8::1"), addrTarget(9))),
			note("an address dump that is not strict does not read the target", W.Msg(uapi.RTM_GETADDR, W.Dump, W.IfAddr{Family: uapi.AF_INET}.Bytes(), addrTarget(9))),
			option(netlink.GetStrictCheck, true),
			note("strict: a link dump", W.Msg(uapi.RTM_GETLINK, W.Dump, W.IfInfo{}.Bytes(), target(5))),
			note("strict: an unknown target", W.Msg(uapi.RTM_GETLINK, W.Dump, W.IfInfo{}.Bytes(), target(9))),
			note("strict: an IPv4 address dump", W.Msg(uapi.RTM_GETADDR, W.Dump, W.IfAddr{Family: uapi.AF_INET}.Bytes(), addrTarget(5))),
			note("strict: an IPv6 address dump of one device", W.Msg(uapi.RTM_GETADDR, W.Dump, W.IfAddr{Family: uapi.AF_INET6, Index: 1}.Bytes(), addrTarget(5))),
			note("strict: an address dump of every family", W.Msg(uapi.RTM_GETADDR, W.Dump, W.IfAddr{}.Bytes(), addrTarget(5))),
			note("strict: an unknown address target", W.Msg(uapi.RTM_GETADDR, W.Dump, W.IfAddr{Family: uapi.AF_INET}.Bytes(), addrTarget(9))),
			note("strict: an unsupported attribute after the target", W.Msg(uapi.RTM_GETADDR, W.Dump, W.IfAddr{Family: uapi.AF_INET}.Bytes(), W.U32(uapi.IFA_FLAGS, 0), addrTarget(5))),
			note("strict: a link dump's unsupported attribute before the target", W.Msg(uapi.RTM_GETLINK, W.Dump, W.IfInfo{}.Bytes(), W.U32(uapi.IFLA_MTU, 1500), target(9))),
			option(netlink.GetStrictCheck, false),
			note("a delete in it", W.Msg(uapi.RTM_DELLINK, W.Ack, W.IfInfo{Index: ifVeth0}.Bytes(), target(5))),
			W.Msg(uapi.RTM_GETLINK, W.Dump, W.IfInfo{}.Bytes()),
		),
	})
}
