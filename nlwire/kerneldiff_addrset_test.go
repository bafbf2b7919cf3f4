package nlwire_test

// A device given the hardware address it already has: the driver is not
// called, but the address becomes the user's (NET_ADDR_SET) and
// NETDEV_CHANGEADDR is announced as for a new address: an RTM_NEWLINK, and
// for a bridge port its AF_BRIDGE RTM_NEWLINK too (br_device_event).
// Kernel: netif_set_mac_address (net/core/dev.c), do_setlink
// (net/core/rtnetlink.c).

import (
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	W "github.com/netsimlab/netsim/nlwire/internal/wiretest"
)

func init() {
	setAddr := func(index int32, mac string) netlink.Message {
		return W.Msg(uapi.RTM_NEWLINK, W.Ack, W.IfInfo{Index: index}.Bytes(), W.MAC(uapi.IFLA_ADDRESS, mac))
	}
	sequences = append(sequences, W.Seq{
		Name:    "link_addr_same",
		Doc:     "a device given the address it has: announced as a change; a bridge port's AF_BRIDGE message too",
		Options: extAck,
		Groups:  []uint32{uapi.RTNLGRP_LINK},
		Steps: steps(
			vethPair(),
			note("veth0 given its own address", setAddr(ifVeth0, "02:00:00:00:00:01")),
			note("a bridge (ifindex 4) with veth0 as its port", W.Msg(uapi.RTM_NEWLINK, W.Create, W.IfInfo{}.Bytes(),
				W.Str(uapi.IFLA_IFNAME, "br0"), W.MAC(uapi.IFLA_ADDRESS, "02:00:00:00:00:10"),
				W.Nest(uapi.IFLA_LINKINFO, W.Str(uapi.IFLA_INFO_KIND, "bridge")))),
			W.Msg(uapi.RTM_NEWLINK, W.Ack, W.IfInfo{Index: ifVeth0}.Bytes(), W.U32(uapi.IFLA_MASTER, ifBr0)),
			note("the port given its own address", setAddr(ifVeth0, "02:00:00:00:00:01")),
			note("the bridge given its own address", setAddr(ifBr0, "02:00:00:00:00:10")),
			note("a new address for the port", setAddr(ifVeth0, "02:00:00:00:00:03")),
		),
	})
}
