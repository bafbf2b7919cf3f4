// The conveniences: vishvananda/netlink-style one-line wrappers over the
// requests, for a Go program that configures a namespace the way `ip`
// does. Each builds the request `ip` would send (its NLM flags, devices by
// name) and makes it; everything the kernel decides is in the request
// handlers (request.go and the files named after each object).

package rtnl

import (
	"math"
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/neigh"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
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

// LinkSetBond changes a bond's IFLA_BOND_* options; a device of another
// kind refuses with EOPNOTSUPP (`ip link set NAME type bond ...`).
func (h *Handle) LinkSetBond(name string, s netdev.BondSettings) error {
	return h.setLink(name, LinkChange{Bond: &s})
}

// LinkSetBondSlave changes a bond port's queue id and priority; a device
// that is not a bond's port refuses with EOPNOTSUPP (`ip link set NAME
// type bond_slave ...`).
func (h *Handle) LinkSetBondSlave(name string, s netdev.BondSlaveSettings) error {
	return h.setLink(name, LinkChange{BondSlave: &s})
}

// LinkSetVlan changes a vlan's flags and priority maps; a device of
// another kind refuses with EOPNOTSUPP (`ip link set NAME type vlan ...`).
func (h *Handle) LinkSetVlan(name string, s netdev.VlanSettings) error {
	return h.setLink(name, LinkChange{Vlan: &s})
}

// LinkSetMacvlan changes a macvlan's mode, flags and broadcast queue; a
// device of another kind refuses with EOPNOTSUPP (`ip link set NAME type
// macvlan ...`).
func (h *Handle) LinkSetMacvlan(name string, s netdev.MacvlanSettings) error {
	return h.setLink(name, LinkChange{Macvlan: &s})
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

// LinkSetNs moves the device to namespace n (`ip link set NAME netns
// NS`).
func (h *Handle) LinkSetNs(name string, n *Net) error {
	return h.setLink(name, LinkChange{Netns: NetnsRef{Net: n}})
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

// Neighbours.

// NeighAdd adds a neighbour of addr on the device named link with
// link-layer address mac in state (`ip neigh add ADDR lladdr MAC nud STATE
// dev LINK`); EEXIST if there is one.
func (h *Handle) NeighAdd(link string, addr netip.Addr, mac netdev.MAC, state neigh.State) error {
	return h.NewNeigh(neighRequest(rt.NLMCreate|rt.NLMExcl, link, addr, mac, state))
}

// NeighSet adds the neighbour or replaces its address and state (`ip
// neigh replace`).
func (h *Handle) NeighSet(link string, addr netip.Addr, mac netdev.MAC, state neigh.State) error {
	return h.NewNeigh(neighRequest(rt.NLMCreate|rt.NLMReplace, link, addr, mac, state))
}

// NeighDel deletes the neighbour of addr on the device named link (`ip
// neigh del ADDR dev LINK`).
func (h *Handle) NeighDel(link string, addr netip.Addr) error {
	r := neighRequest(0, link, addr, netdev.MAC{}, 0)
	r.LLAddr = nil
	return h.DelNeigh(r)
}

// NeighList returns the namespace's neighbours of family (rt.FamilyUnspec:
// both), as `ip neigh show nud all` reads them: a dump read whole.
func (h *Handle) NeighList(family rt.Family) ([]NeighInfo, error) {
	return ReadAll[NeighInfo](h.DumpNeighs(NeighDumpRequest{Family: family}))
}

func neighRequest(f rt.NLMFlags, link string, addr netip.Addr, mac netdev.MAC, state neigh.State) NeighRequest {
	fam := rt.FamilyInet
	if addr.Is6() {
		fam = rt.FamilyInet6
	}
	return NeighRequest{Flags: f, Family: fam, Link: link, State: state, Dst: addr.AsSlice(), LLAddr: mac[:]}
}

// Routes.

// RouteAdd adds a route as `ip route add` does; EEXIST if the same prefix,
// TOS and metric exist.
//
// Kernel: inet_rtm_newroute → fib_table_insert with NLM_F_CREATE|NLM_F_EXCL.
func (h *Handle) RouteAdd(r Route) error { return h.ipRouteNew(r, rt.ModeAdd) }

// RouteAppend adds a route after the existing ones for the same key
// (`ip route append`: NLM_F_CREATE|NLM_F_APPEND).
func (h *Handle) RouteAppend(r Route) error { return h.ipRouteNew(r, rt.ModeAppend) }

// RoutePrepend adds a route before the existing ones for the same key
// (`ip route prepend`: NLM_F_CREATE).
func (h *Handle) RoutePrepend(r Route) error { return h.ipRouteNew(r, rt.ModePrepend) }

// RouteReplace replaces the first route with the same key, or adds it
// (`ip route replace`: NLM_F_CREATE|NLM_F_REPLACE).
func (h *Handle) RouteReplace(r Route) error { return h.ipRouteNew(r, rt.ModeReplace) }

// RouteChange replaces the first route with the same key; ENOENT if none
// (`ip route change`: NLM_F_REPLACE).
func (h *Handle) RouteChange(r Route) error { return h.ipRouteNew(r, rt.ModeChange) }

// RouteTest is an RTM_NEWROUTE with NLM_F_EXCL alone: EEXIST if the
// route's key exists, and without NLM_F_CREATE nothing is added (`ip route
// test`).
func (h *Handle) RouteTest(r Route) error { return h.ipRouteNew(r, rt.NLMExcl) }

// ipRouteNew is the RTM_NEWROUTE `ip route` sends with flags: protocol
// boot unless r gives one (iproute_modify's RTPROT_BOOT).
func (h *Handle) ipRouteNew(r Route, flags rt.NLMFlags) error {
	if r.Protocol == fib.ProtoUnspec {
		r.Protocol = fib.ProtoBoot
	}
	_, err := h.newRoute(Origin{}, flags, &r)
	return err
}

// RouteDel deletes the first route matching r, as `ip route del` does:
// zero fields match anything, the scope included (ip sends
// RT_SCOPE_NOWHERE unless given one).
//
// Kernel: inet_rtm_delroute → fib_table_delete.
func (h *Handle) RouteDel(r Route) error { return h.DelRoute(RouteRequest{Route: anyScope(r)}) }

// anyScope is r with its zero scope made the delete's wildcard,
// RT_SCOPE_NOWHERE.
func anyScope(r Route) Route {
	if r.Scope == fib.ScopeUniverse {
		r.Scope = fib.ScopeNowhere
	}
	return r
}

// RouteList returns the routes of family (rt.FamilyInet, rt.FamilyInet6,
// or rt.FamilyUnspec for both, IPv4 first) in table (0: every table), in
// the kernel's dump order: the strict dump `ip route show table TABLE`
// asks for, read whole in one request. A table that does not exist is
// ENOENT for one family's dump, and contributes nothing to both's.
func (h *Handle) RouteList(family rt.Family, table uint32) ([]RouteInfo, error) {
	return drain(h.DumpRoutes(RouteDumpRequest{Family: family, Strict: true, Table: table}))
}

// drain reads the whole of a route dump.
func drain(d *RouteDump, err error) ([]RouteInfo, error) {
	var out []RouteInfo
	if err == nil {
		err = d.Drain(func(int) int { return math.MaxInt }, func(ri *RouteInfo) { out = append(out, *ri) })
	}
	return out, err
}

// RouteGet looks dst up as the kernel routes a locally generated packet
// to it (`ip route get DST`).
func (h *Handle) RouteGet(dst netip.Addr) (RouteResult, error) {
	return h.GetRoute(RouteGetRequest{Dst: dst})
}

// Nexthops.

// NexthopAdd adds a nexthop object, as `ip nexthop add` does
// (NLM_F_CREATE|NLM_F_EXCL: EEXIST for an id that exists).
func (h *Handle) NexthopAdd(nh NexthopRequest) error {
	return h.NewNexthop(nh.with(rt.NLMCreate | rt.NLMExcl))
}

// NexthopReplace replaces a nexthop object or adds it, as `ip nexthop
// replace` does (NLM_F_CREATE|NLM_F_REPLACE).
func (h *Handle) NexthopReplace(nh NexthopRequest) error {
	return h.NewNexthop(nh.with(rt.NLMCreate | rt.NLMReplace))
}

// NexthopDel deletes nexthop id; routes that use it go with it.
func (h *Handle) NexthopDel(id nexthop.ID) error {
	return h.DelNexthop(NexthopDelRequest{ID: id, HasID: true})
}

// NexthopGet returns nexthop id.
func (h *Handle) NexthopGet(id nexthop.ID) (NexthopInfo, error) {
	return h.GetNexthop(NexthopGetRequest{ID: id, HasID: true})
}

// NexthopList returns every nexthop object, by id.
func (h *Handle) NexthopList() ([]NexthopInfo, error) {
	return ReadAll[NexthopInfo](h.DumpNexthops(NexthopDumpRequest{}))
}

// NexthopBucketList returns the buckets of the resilient groups that req
// selects, by group id and bucket index.
func (h *Handle) NexthopBucketList(req NexthopBucketDumpRequest) ([]NexthopBucket, error) {
	return ReadAll[NexthopBucket](h.DumpNexthopBuckets(req))
}

// NexthopBucketGet returns bucket index of resilient group id.
func (h *Handle) NexthopBucketGet(id nexthop.ID, index uint16) (NexthopBucket, error) {
	return h.GetNexthopBucket(NexthopBucketGetRequest{ID: id, HasID: true, HasBucket: true, HasIndex: true, Index: index})
}

// Rules.

// RuleAdd adds a policy routing rule of family, as `ip rule add` does
// (NLM_F_EXCL: EEXIST for an identical rule).
func (h *Handle) RuleAdd(family rt.Family, r fibrules.Rule) error {
	return h.newRule(Origin{}, rt.NLMCreate|rt.NLMExcl, family, &r)
}

// RuleDel deletes the first rule of family matching r (zero fields match
// anything), as `ip rule del` does.
func (h *Handle) RuleDel(family rt.Family, r fibrules.Rule) error {
	return h.DelRule(RuleRequest{Family: family, Rule: r})
}

// RuleList returns the rules of family in lookup order, as `ip rule show`.
func (h *Handle) RuleList(family rt.Family) ([]fibrules.Rule, error) {
	return ReadAll[fibrules.Rule](h.DumpRules(RuleDumpRequest{Family: family}))
}
