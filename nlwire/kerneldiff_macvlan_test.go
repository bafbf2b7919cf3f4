package nlwire_test

// A macvlan's flags, broadcast queue and cutoff, recorded on the real
// kernel: the port's used queue length (the largest its macvlans ask for),
// a change of a down macvlan (announced by nobody), a passthru macvlan's
// nopromisc and its change (which gives the lower its promiscuity back at
// once), and macvlan_validate's and macvlan_changelink's refusals.
// Kernel: macvlan_validate, macvlan_common_newlink, macvlan_changelink,
// macvlan_fill_info, update_port_bc_queue_len (drivers/net/macvlan.c).

import (
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	W "github.com/netsimlab/netsim/nlwire/internal/wiretest"
)

func init() {
	const (
		ifMvA = 4 // macvlan on veth1, mode bridge
		ifMvB = 5 // macvlan on veth1, mode source
		ifMvP = 6 // passthru macvlan on veth0
	)
	macvlan := func(name, mac string, link int32, data ...W.Attr) netlink.Message {
		return W.Msg(uapi.RTM_NEWLINK, W.Create, W.IfInfo{}.Bytes(),
			W.Str(uapi.IFLA_IFNAME, name), W.MAC(uapi.IFLA_ADDRESS, mac), W.U32(uapi.IFLA_LINK, uint32(link)),
			W.Nest(uapi.IFLA_LINKINFO, W.Str(uapi.IFLA_INFO_KIND, "macvlan"), W.Nest(uapi.IFLA_INFO_DATA, data...)))
	}
	change := func(index int32, data ...W.Attr) netlink.Message {
		return W.Msg(uapi.RTM_NEWLINK, W.Ack, W.IfInfo{Index: index}.Bytes(),
			W.Nest(uapi.IFLA_LINKINFO, W.Str(uapi.IFLA_INFO_KIND, "macvlan"), W.Nest(uapi.IFLA_INFO_DATA, data...)))
	}
	get := func(index int32) netlink.Message {
		return W.Msg(uapi.RTM_GETLINK, W.Req, W.IfInfo{Index: index}.Bytes())
	}
	mode := func(m uint32) W.Attr { return W.U32(uapi.IFLA_MACVLAN_MODE, m) }
	sequences = append(sequences, W.Seq{
		Name:    "macvlan_opts",
		Doc:     "macvlan flags, broadcast queue length and cutoff: creation, changes, the port's used length, passthru nopromisc, refusals",
		Options: extAck,
		Groups:  []uint32{uapi.RTNLGRP_LINK},
		Steps: steps(
			vethPair(),
			note("a bridge-mode macvlan asking for a queue of 50", macvlan("mva", "02:00:00:00:00:30", ifVeth1,
				mode(uapi.MACVLAN_MODE_BRIDGE), W.U32(uapi.IFLA_MACVLAN_BC_QUEUE_LEN, 50))),
			note("a source-mode one with nodst asking for 2000: the port uses 2000", macvlan("mvb", "02:00:00:00:00:31", ifVeth1,
				mode(uapi.MACVLAN_MODE_SOURCE), W.U16(uapi.IFLA_MACVLAN_FLAGS, 2), W.U32(uapi.IFLA_MACVLAN_BC_QUEUE_LEN, 2000))),
			get(ifMvA),
			note("a down macvlan changed: its queue and the port's cutoff; nobody is told", change(ifMvA,
				W.U32(uapi.IFLA_MACVLAN_BC_QUEUE_LEN, 3000), W.U32(uapi.IFLA_MACVLAN_BC_CUTOFF, 5))),
			get(ifMvA),
			note("its mode changed", change(ifMvA, mode(uapi.MACVLAN_MODE_VEPA))),
			get(ifMvA),
			note("refused: to passthru, unknown flags, an address count, an address mode outside source mode",
				change(ifMvA, mode(uapi.MACVLAN_MODE_PASSTHRU))),
			change(ifMvA, W.U16(uapi.IFLA_MACVLAN_FLAGS, 4)),
			change(ifMvA, W.U32(uapi.IFLA_MACVLAN_MACADDR_COUNT, 0)),
			change(ifMvA, W.U32(uapi.IFLA_MACVLAN_MACADDR_MODE, 0)),
			change(ifMvA, W.U32(uapi.IFLA_MACVLAN_BC_QUEUE_LEN_USED, 0)),
			note("the source one deleted: the port's used length drops to 3000", W.Msg(uapi.RTM_DELLINK, W.Ack, W.IfInfo{Index: ifMvB}.Bytes())),
			get(ifMvA),
			note("a passthru macvlan with nopromisc on veth0", macvlan("mvp", "02:00:00:00:00:32", ifVeth0,
				mode(uapi.MACVLAN_MODE_PASSTHRU), W.U16(uapi.IFLA_MACVLAN_FLAGS, 1))),
			note("up: veth0 stays not promiscuous", linkUp(ifMvP)),
			get(ifVeth0),
			note("nopromisc cleared: veth0 promiscuous at once", change(ifMvP, W.U16(uapi.IFLA_MACVLAN_FLAGS, 0))),
			get(ifVeth0),
			note("down: the promiscuity it took goes back", linkDown(ifMvP)),
			get(ifVeth0),
		),
	})
}
