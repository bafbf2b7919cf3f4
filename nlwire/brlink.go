// A bridge's link messages about its ports (AF_BRIDGE ifinfomsg).
// Kernel: br_ifinfo_notify, br_fill_ifinfo (net/bridge/br_netlink.c).

package nlwire

import (
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rtnl"
)

// bridgePortMessage is the AF_BRIDGE ifinfomsg the bridge sends about a
// port li (rt.FamilyBridge): the port's name, its bridge, MTU,
// operstate, address and iflink, and for an RTM_NEWLINK its
// IFLA_PROTINFO (the port's IFLA_BRPORT_* attributes, nested with
// NLA_F_NESTED). ifi_change is 0. No IFLA_AF_SPEC: netsim's bridges
// filter no VLANs, which is all the notification's filter
// (RTEXT_FILTER_BRVLAN_COMPRESSED) would add.
//
// Kernel: br_fill_ifinfo (net/bridge/br_netlink.c) from br_info_notify.
func bridgePortMessage(li rtnl.LinkInfo, del bool) []byte {
	hdr := ifinfomsg{family: uapi.AF_BRIDGE, typ: li.Type, index: int32(li.Index), flags: linkFlags(li)}.marshal()
	ae := netlink.NewAttributeEncoder()
	ae.String(uapi.IFLA_IFNAME, li.Name)
	ae.Uint32(uapi.IFLA_MASTER, uint32(li.MasterIndex))
	ae.Uint32(uapi.IFLA_MTU, uint32(li.MTU))
	oper := uint8(li.OperState)
	if li.Flags&netdev.FlagUp == 0 {
		oper = ifOperDown
	}
	ae.Uint8(uapi.IFLA_OPERSTATE, oper)
	ae.Bytes(uapi.IFLA_ADDRESS, li.Addr[:])
	if hasIflink(li) && li.LinkIndex != li.Index {
		ae.Uint32(uapi.IFLA_LINK, uint32(li.LinkIndex))
	}
	if !del && li.BridgePort != nil {
		ae.Nested(uapi.IFLA_PROTINFO, func(d *netlink.AttributeEncoder) error {
			fillBridgePort(d, li.BridgePort)
			return nil
		})
	}
	b, err := ae.Encode()
	if err != nil {
		panic("nlwire: encoding a bridge port: " + err.Error()) // no attribute is too long
	}
	return append(hdr, b...)
}
