// The conveniences: vishvananda/netlink-style one-line wrappers over the
// requests, for a Go program that configures a namespace the way `ip`
// does. Each builds the request `ip` would send (its NLM flags, devices by
// name) and makes it; everything the kernel decides is in the request
// handlers (request.go and the files named after each object).

package rtnl

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
)

// Links.

// LinkAdd creates the device(s) spec describes: netdev.Dummy, Veth,
// Macvlan, Vlan, Bond, VRF or Bridge (`ip link add`); EINVAL without one.
func (h *Handle) LinkAdd(spec netdev.LinkSpec) error {
	return h.NewLink(LinkRequest{Flags: rt.NLMCreate | rt.NLMExcl, Spec: spec, KindErr: errno.New(syscall.EINVAL, "No link specification")})
}

// LinkDel deletes the device named name, and a veth's peer with it (`ip link del NAME`).
func (h *Handle) LinkDel(name string) error { return h.DelLink(LinkRequest{Name: name}) }

// LinkDelGroup deletes every device of group g in one request (`ip link del group G`).
func (h *Handle) LinkDelGroup(g uint32) error { return h.DelLink(LinkRequest{Group: &g}) }

// LinkDelList deletes the devices with the given ifindexes in one request
// (seed 004's IFLA_IFINDEX_LIST; see DelLink).
func (h *Handle) LinkDelList(idx []netdev.IfIndex) error {
	return h.DelLink(LinkRequest{IfindexList: append(make([]netdev.IfIndex, 0, len(idx)), idx...)})
}

// LinkSetUp brings the device up (`ip link set NAME up`).
func (h *Handle) LinkSetUp(name string) error { return h.setLink(name, LinkChange{Up: new(true)}) }

// LinkSetDown brings the device down (`ip link set NAME down`).
func (h *Handle) LinkSetDown(name string) error { return h.setLink(name, LinkChange{Up: new(false)}) }

// LinkChangeFlags sets the device's flags of mask (netdev.UserFlags: up,
// arp, multicast, promisc, allmulticast; 0 stands for every flag) to their
// values in flags (`ip link set NAME promisc on arp off ...`).
func (h *Handle) LinkChangeFlags(name string, flags, mask netdev.Flags) error {
	return h.setLink(name, LinkChange{SetFlags: true, Flags: flags, Change: mask})
}

// LinkSetMaster enslaves the device to master, a bond, a vrf or a bridge
// (`ip link set NAME master MASTER`).
func (h *Handle) LinkSetMaster(name, master string) error {
	return h.setLink(name, LinkChange{MasterName: &master})
}

// LinkSetNoMaster releases the device from its master (`ip link set NAME nomaster`).
func (h *Handle) LinkSetNoMaster(name string) error {
	return h.setLink(name, LinkChange{Master: new(netdev.IfIndex(0))})
}

// LinkSetBridge changes a bridge's IFLA_BR_* attributes; a device of
// another kind refuses with EOPNOTSUPP (`ip link set NAME type bridge ...`).
func (h *Handle) LinkSetBridge(name string, s netdev.BridgeSettings) error {
	return h.setLink(name, LinkChange{Bridge: &s})
}

// LinkSetBridgePort changes a bridge port's IFLA_BRPORT_* attributes; a
// device that is not a bridge port refuses with EOPNOTSUPP
// (`ip link set NAME type bridge_slave ...`).
func (h *Handle) LinkSetBridgePort(name string, s netdev.BridgePortSettings) error {
	return h.setLink(name, LinkChange{BridgePort: &s})
}

// LinkSetGroup puts the device in group g (`ip link set NAME group G`).
func (h *Handle) LinkSetGroup(name string, g uint32) error {
	return h.setLink(name, LinkChange{Group: &g})
}

// LinkSetMTU sets the device's MTU (`ip link set NAME mtu M`).
func (h *Handle) LinkSetMTU(name string, mtu int) error {
	return h.setLink(name, LinkChange{MTU: &mtu})
}

// LinkSetName renames the device (`ip link set NAME name NEW`).
func (h *Handle) LinkSetName(name, newName string) error {
	return h.setLink(name, LinkChange{NewName: &newName})
}

// LinkSetHardwareAddr sets the device's hardware address (`ip link set NAME address MAC`).
func (h *Handle) LinkSetHardwareAddr(name string, mac netdev.MAC) error {
	return h.setLink(name, LinkChange{Addr: &mac})
}

// LinkSetTxQueueLen sets the device's transmit queue length. n travels as
// the u32 IFLA_TXQLEN: 0 is a valid length, and -1 is 2^32-1
// (`ip link set NAME txqueuelen N`).
func (h *Handle) LinkSetTxQueueLen(name string, n int) error {
	return h.setLink(name, LinkChange{TxQueueLen: &n})
}

// LinkSetAlias sets the device's alias; "" clears it. An alias of
// netdev.IFALIASZ bytes or more fails the netlink policy, ERANGE
// (`ip link set NAME alias ALIAS`).
func (h *Handle) LinkSetAlias(name, alias string) error {
	return h.setLink(name, LinkChange{Alias: &alias})
}

// setLink is `ip link set NAME ...`: an RTM_NEWLINK without NLM flags for
// an existing device.
func (h *Handle) setLink(name string, c LinkChange) error {
	return h.NewLink(LinkRequest{Name: name, Change: c})
}

// LinkByName returns a snapshot of the device named name.
func (h *Handle) LinkByName(name string) (LinkInfo, error) {
	return h.GetLink(LinkGetRequest{Name: name})
}

// LinkList returns a snapshot of every device, in the order `ip link show`
// lists them: a link dump read whole in one part.
func (h *Handle) LinkList() ([]LinkInfo, error) {
	var out []LinkInfo
	d, _ := h.DumpLinks(LinkDumpRequest{})
	_, err := d.Next(func(li *LinkInfo) bool { out = append(out, *li); return true })
	return out, err
}

// Addresses.

// AddrAdd adds address p to the device named link (`ip addr add P dev LINK`).
func (h *Handle) AddrAdd(link string, p netip.Prefix) error {
	return h.AddrAddWith(link, netdev.Addr{Prefix: p})
}

// AddrAddWith adds a with its optional fields; EEXIST if the device has
// the address (`ip addr add`).
func (h *Handle) AddrAddWith(link string, a netdev.Addr) error {
	return h.NewAddr(AddrRequest{Flags: rt.NLMCreate | rt.NLMExcl, Link: link, Addr: a})
}

// AddrReplace adds a, or if the device has it, updates it (`ip addr replace`).
func (h *Handle) AddrReplace(link string, a netdev.Addr) error {
	return h.NewAddr(AddrRequest{Flags: rt.NLMCreate | rt.NLMReplace, Link: link, Addr: a})
}

// AddrChange is `ip addr change`: NLM_F_REPLACE without NLM_F_CREATE. The
// kernel does not look at NLM_F_CREATE for addresses, so a missing address
// is created, as by AddrReplace.
func (h *Handle) AddrChange(link string, a netdev.Addr) error {
	return h.NewAddr(AddrRequest{Flags: rt.NLMReplace, Link: link, Addr: a})
}

// AddrDel removes address p (address and prefix length) from the device
// (`ip addr del P dev LINK`).
func (h *Handle) AddrDel(link string, p netip.Prefix) error {
	return h.AddrDelWith(link, netdev.Addr{Prefix: p})
}

// AddrDelWith removes the address that matches m, as `ip addr del` with
// m's fields selects it (see AddrRequest.Addr).
func (h *Handle) AddrDelWith(link string, m netdev.Addr) error {
	return h.DelAddr(AddrRequest{Link: link, Addr: m})
}

// Routes.

// Nexthops.

// Rules.
