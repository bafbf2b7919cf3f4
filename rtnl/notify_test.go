package rtnl_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

// notifyLog records a namespace's notifications as one line each: the
// message type, its nlmsg flags, whether it carries a request's header
// ("req") or not ("k"), and the object's key fields, in the form a small
// NETLINK_ROUTE listener printed them from the real kernel. A link's
// flags are left out (IFF_RUNNING is the codec's concern).
type notifyLog struct{ lines []string }

func (l *notifyLog) add(m rtnl.Notification) {
	o := "k"
	if m.Origin != (rtnl.Origin{}) {
		o = "req"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s f=%#x o=%s", msgName(m.Type), m.Flags, o)
	switch {
	case m.Link != nil:
		fmt.Fprintf(&b, " %s change=%#x mtu=%d", m.Link.Name, m.Change, m.Link.MTU)
		if m.Link.Master != "" {
			fmt.Fprintf(&b, " master=%s", m.Link.Master)
		}
	case m.Addr != nil:
		a := m.Addr
		pfx := a.Prefix.String()
		if a.Prefix.Addr().Is6() && a.Prefix.Addr().IsLinkLocalUnicast() {
			pfx = "fe80::LL/64"
		}
		fmt.Fprintf(&b, " fam=%d %s %s flags=%#x", m.Family, a.Link, pfx, uint32(a.Flags))
	case m.Route != nil:
		r := m.Route
		dst := r.Dst.String()
		if r.Dst.Addr().Is6() && r.Dst.Addr().IsLinkLocalUnicast() && r.Dst.Bits() == 128 {
			dst = "fe80::LL/128"
		}
		fmt.Fprintf(&b, " fam=%d t=%d %s type=%d proto=%d", m.Family, r.Table, dst, r.Type, r.Protocol)
		if r.Gateway.IsValid() {
			fmt.Fprintf(&b, " via=%s", r.Gateway)
		}
		if r.Dev != "" {
			fmt.Fprintf(&b, " dev=%s", r.Dev)
		}
		if r.NexthopID != 0 {
			fmt.Fprintf(&b, " nhid=%d", r.NexthopID)
		}
		if len(r.Multipath) > 0 {
			b.WriteString(" mp=[")
			for _, p := range r.Multipath {
				fmt.Fprintf(&b, " %s:%s:w%d", p.Gateway, p.Dev, p.Weight)
			}
			b.WriteString(" ]")
		}
	case m.Rule != nil:
		fmt.Fprintf(&b, " fam=%d pref=%d t=%d", m.Family, m.Rule.Pref, m.Rule.Table)
	case m.Nexthop != nil:
		n := m.Nexthop
		fmt.Fprintf(&b, " fam=%d id=%d", m.Family, n.ID)
		if n.Gateway.IsValid() {
			fmt.Fprintf(&b, " via=%s", n.Gateway)
		}
		if n.Dev != "" {
			fmt.Fprintf(&b, " dev=%s", n.Dev)
		}
		if len(n.Group) > 0 {
			b.WriteString(" group=")
			for _, g := range n.Group {
				fmt.Fprintf(&b, "%d,%d/", g.ID, g.Weight)
			}
		}
	}
	l.lines = append(l.lines, b.String())
}

// step marks the start of a request in the log, as the real-kernel
// transcript does.
func (l *notifyLog) step(s string) { l.lines = append(l.lines, "== "+s) }

func msgName(t rt.MsgType) string {
	return map[rt.MsgType]string{
		rt.RTMNewLink: "NEWLINK", rt.RTMDelLink: "DELLINK", rt.RTMNewAddr: "NEWADDR", rt.RTMDelAddr: "DELADDR",
		rt.RTMNewRoute: "NEWROUTE", rt.RTMDelRoute: "DELROUTE", rt.RTMNewRule: "NEWRULE", rt.RTMDelRule: "DELRULE",
		rt.RTMNewNexthop: "NEWNEXTHOP", rt.RTMDelNexthop: "DELNEXTHOP",
	}[t]
}

// notifyStep is one request of a scenario: what ip ran on the real
// kernel, and the same through a Handle.
type notifyStep struct {
	cmd string
	do  func(h *rtnl.Handle) error
	// req, when set, is the step's request made with its origin instead
	// of do.
	req    func(h *rtnl.Handle, o rtnl.Origin) error
	settle bool // let DAD and linkwatch finish afterwards (the transcript waited)
}

// runNotify runs steps on a new kernel with a subscriber and returns the
// log. Each request has its own origin (a port id and sequence number), as
// ip's requests do.
func runNotify(t *testing.T, steps []notifyStep) []string {
	r := newRig(t, rtnl.After)
	var l notifyLog
	cancel := r.k.InitNet().Subscribe(l.add)
	defer cancel()
	for i, s := range steps {
		l.step(s.cmd)
		o := rtnl.Origin{PortID: 4242, Seq: uint32(i + 1)}
		stepOrigin = o
		require.NoError(t, s.run(r.h, o), s.cmd)
		if s.settle {
			r.settle()
		}
	}
	return l.lines
}

// stepOrigin is the origin of the request a step of runNotify makes.
var stepOrigin rtnl.Origin

// stepNexthopAdd is `ip nexthop add` from the step's origin.
func stepNexthopAdd(h *rtnl.Handle, nh rtnl.NexthopRequest) error {
	nh.Origin, nh.Flags = stepOrigin, rt.NLMCreate|rt.NLMExcl
	return h.NewNexthop(nh)
}

// stepRuleAdd is `ip rule add` from the step's origin.
func stepRuleAdd(h *rtnl.Handle, fam rt.Family, r fibrules.Rule) error {
	return h.NewRule(rtnl.RuleRequest{Origin: stepOrigin, Flags: rt.NLMCreate | rt.NLMExcl, Family: fam, Rule: r})
}

var ip = netip.MustParseAddr

func route(dst, gw string) rtnl.Route {
	r := rtnl.Route{Dst: pfx(dst)}
	if gw != "" {
		r.Gateway = ip(gw)
	}
	return r
}

func step(cmd string, settle bool, do func(h *rtnl.Handle) error) notifyStep {
	return notifyStep{cmd: cmd, do: do, settle: settle}
}

// run makes the step's request from origin o.
func (s notifyStep) run(h *rtnl.Handle, o rtnl.Origin) error {
	if s.req != nil {
		return s.req(h, o)
	}
	return s.do(h)
}

// reqStep is a step whose request carries its origin.
func reqStep(cmd string, settle bool, req func(h *rtnl.Handle, o rtnl.Origin) error) notifyStep {
	return notifyStep{cmd: cmd, req: req, settle: settle}
}

// ipRoute is the RTM_NEWROUTE `ip route` sends with flags for r.
func ipRoute(flags rt.NLMFlags, r rtnl.Route) func(h *rtnl.Handle, o rtnl.Origin) error {
	return func(h *rtnl.Handle, o rtnl.Origin) error {
		r.Protocol = fib.ProtoBoot
		_, err := h.NewRoute(rtnl.RouteRequest{Origin: o, Flags: flags, Route: r})
		return err
	}
}

// ipRouteDel is the RTM_DELROUTE `ip route del` sends for r.
func ipRouteDel(r rtnl.Route) func(h *rtnl.Handle, o rtnl.Origin) error {
	return func(h *rtnl.Handle, o rtnl.Origin) error {
		r.Scope = fib.ScopeNowhere
		return h.DelRoute(rtnl.RouteRequest{Origin: o, Route: r})
	}
}

// ipAddr is the RTM_NEWADDR `ip addr add` sends for a.
func ipAddr(a netdev.Addr) func(h *rtnl.Handle, o rtnl.Origin) error {
	return func(h *rtnl.Handle, o rtnl.Origin) error {
		return h.NewAddr(rtnl.AddrRequest{Origin: o, Flags: rt.NLMCreate | rt.NLMExcl, Link: "v0", Addr: a})
	}
}

// ipAddrDel is the RTM_DELADDR `ip addr del` sends for p.
func ipAddrDel(p netip.Prefix) func(h *rtnl.Handle, o rtnl.Origin) error {
	return func(h *rtnl.Handle, o rtnl.Origin) error {
		return h.DelAddr(rtnl.AddrRequest{Origin: o, Link: "v0", Addr: netdev.Addr{Prefix: p}})
	}
}

// setupSteps begin both scenarios: a veth pair, both ends up, and an
// IPv4 address on v0.
var setupSteps = []notifyStep{
	step("ip link add v0 type veth peer name v1", false, func(h *rtnl.Handle) error { return h.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}) }),
	step("ip link set v0 up", false, func(h *rtnl.Handle) error { return h.LinkSetUp("v0") }),
	step("ip link set v1 up", true, func(h *rtnl.Handle) error { return h.LinkSetUp("v1") }),
	reqStep("ip addr add 10.0.0.1/24 dev v0", false, ipAddr(netdev.Addr{Prefix: pfx("10.0.0.1/24")})),
}

// scenario1 is links, addresses and routes: a veth pair, IPv4 and IPv6
// addresses, route add/replace/append/prepend/del of both families, an
// IPv4 multipath route, an MTU change, down and up, and the deletion.
var scenario1 = append(setupSteps[:len(setupSteps):len(setupSteps)],
	reqStep("ip addr add 2001:db8::1/64 dev v0", true, ipAddr(netdev.Addr{Prefix: pfx("2001:db8::1/64")})),
	reqStep("ip route add 10.1.0.0/16 via 10.0.0.2", false, ipRoute(rt.ModeAdd, route("10.1.0.0/16", "10.0.0.2"))),
	reqStep("ip route replace 10.1.0.0/16 via 10.0.0.3", false, ipRoute(rt.ModeReplace, route("10.1.0.0/16", "10.0.0.3"))),
	reqStep("ip route append 10.1.0.0/16 via 10.0.0.4", false, ipRoute(rt.ModeAppend, route("10.1.0.0/16", "10.0.0.4"))),
	reqStep("ip route prepend 10.1.0.0/16 via 10.0.0.5", false, ipRoute(rt.ModePrepend, route("10.1.0.0/16", "10.0.0.5"))),
	reqStep("ip route del 10.1.0.0/16", false, ipRouteDel(route("10.1.0.0/16", ""))),
	reqStep("ip route add 10.2.0.0/16 nexthop via 10.0.0.2 nexthop via 10.0.0.3 weight 2", false, ipRoute(rt.ModeAdd, rtnl.Route{Dst: pfx("10.2.0.0/16"), Multipath: []rtnl.RoutePath{{Gateway: ip("10.0.0.2")}, {Gateway: ip("10.0.0.3"), Weight: 2}}})),
	reqStep("ip -6 route add 2001:db8:1::/64 via 2001:db8::2", false, ipRoute(rt.ModeAdd, route("2001:db8:1::/64", "2001:db8::2"))),
	reqStep("ip -6 route replace 2001:db8:1::/64 via 2001:db8::3", false, ipRoute(rt.ModeReplace, route("2001:db8:1::/64", "2001:db8::3"))),
	reqStep("ip -6 route append 2001:db8:1::/64 via 2001:db8::4", false, ipRoute(rt.ModeAppend, route("2001:db8:1::/64", "2001:db8::4"))),
	reqStep("ip -6 route del 2001:db8:1::/64 via 2001:db8::3", false, ipRouteDel(route("2001:db8:1::/64", "2001:db8::3"))),
	step("ip link set v0 mtu 1400", false, func(h *rtnl.Handle) error { return h.LinkSetMTU("v0", 1400) }),
	step("ip link set v0 down", false, func(h *rtnl.Handle) error { return h.LinkSetDown("v0") }),
	step("ip link set v0 up", true, func(h *rtnl.Handle) error { return h.LinkSetUp("v0") }),
	step("ip link del v0", false, func(h *rtnl.Handle) error { return h.LinkDel("v0") }),
)

func group(ids ...nexthop.ID) []nexthop.GroupEntry {
	var g []nexthop.GroupEntry
	for _, id := range ids {
		g = append(g, nexthop.GroupEntry{ID: id, Weight: 1})
	}
	return g
}

func rule(pref, table uint32) fibrules.Rule {
	return fibrules.Rule{Pref: pref, Table: table, Action: fibrules.ActToTable, Attrs: fibrules.AttrPriority}
}

// scenario2 is nexthops, rules, IPv6 multipath routes, address removal and
// link attribute changes.
var scenario2 = append(setupSteps[:len(setupSteps):len(setupSteps)],
	reqStep("ip addr add 10.0.0.2/24 dev v0", false, ipAddr(netdev.Addr{Prefix: pfx("10.0.0.2/24")})),
	reqStep("ip -6 addr add 2001:db8::1/64 dev v0 nodad", true, ipAddr(netdev.Addr{Prefix: pfx("2001:db8::1/64"), Flags: netdev.AddrNoDAD})),
	step("ip nexthop add id 1 via 10.0.0.5 dev v0", false, func(h *rtnl.Handle) error {
		return stepNexthopAdd(h, rtnl.NexthopRequest{ID: 1, Gateway: ip("10.0.0.5"), Dev: "v0"})
	}),
	step("ip nexthop add id 2 via 10.0.0.6 dev v0", false, func(h *rtnl.Handle) error {
		return stepNexthopAdd(h, rtnl.NexthopRequest{ID: 2, Gateway: ip("10.0.0.6"), Dev: "v0"})
	}),
	step("ip nexthop add id 3 dev v1", false, func(h *rtnl.Handle) error { return stepNexthopAdd(h, rtnl.NexthopRequest{ID: 3, Dev: "v1"}) }),
	step("ip nexthop add id 10 group 1/2", false, func(h *rtnl.Handle) error { return stepNexthopAdd(h, rtnl.NexthopRequest{ID: 10, Group: group(1, 2)}) }),
	step("ip nexthop add id 11 group 1/3", false, func(h *rtnl.Handle) error { return stepNexthopAdd(h, rtnl.NexthopRequest{ID: 11, Group: group(1, 3)}) }),
	reqStep("ip route add 10.9.0.0/16 nhid 10", false, ipRoute(rt.ModeAdd, rtnl.Route{Dst: pfx("10.9.0.0/16"), NexthopID: 10})),
	step("ip nexthop del id 1", false, func(h *rtnl.Handle) error {
		return h.DelNexthop(rtnl.NexthopDelRequest{Origin: stepOrigin, ID: 1})
	}),
	step("ip rule add pref 100 table 100", false, func(h *rtnl.Handle) error { return stepRuleAdd(h, rt.FamilyInet, rule(100, 100)) }),
	step("ip -6 rule add pref 200 table 200", false, func(h *rtnl.Handle) error { return stepRuleAdd(h, rt.FamilyInet6, rule(200, 200)) }),
	step("ip rule del pref 100", false, func(h *rtnl.Handle) error {
		return h.DelRule(rtnl.RuleRequest{Origin: stepOrigin, Family: rt.FamilyInet, Rule: fibrules.Rule{Pref: 100, Attrs: fibrules.AttrPriority}})
	}),
	reqStep("ip -6 route add 2001:db8:5::/64 nexthop via 2001:db8::2 nexthop via 2001:db8::3", false, ipRoute(rt.ModeAdd, rtnl.Route{Dst: pfx("2001:db8:5::/64"), Multipath: []rtnl.RoutePath{{Gateway: ip("2001:db8::2")}, {Gateway: ip("2001:db8::3")}}})),
	reqStep("ip -6 route append 2001:db8:5::/64 nexthop via 2001:db8::4", false, ipRoute(rt.ModeAppend, rtnl.Route{Dst: pfx("2001:db8:5::/64"), Multipath: []rtnl.RoutePath{{Gateway: ip("2001:db8::4")}}})),
	reqStep("ip -6 route del 2001:db8:5::/64", false, ipRouteDel(route("2001:db8:5::/64", ""))),
	reqStep("ip addr del 10.0.0.1/24 dev v0", false, ipAddrDel(pfx("10.0.0.1/24"))),
	reqStep("ip -6 addr del 2001:db8::1/64 dev v0", false, ipAddrDel(pfx("2001:db8::1/64"))),
	step("ip link set v1 name v1x", false, func(h *rtnl.Handle) error { return h.LinkSetName("v1", "v1x") }),
	step("ip link set v1x txqueuelen 500", false, func(h *rtnl.Handle) error { return h.LinkSetTxQueueLen("v1x", 500) }),
	step("ip link set v1x alias foo", false, func(h *rtnl.Handle) error { return h.LinkSetAlias("v1x", "foo") }),
	step("ip link set v1x promisc on", false, func(h *rtnl.Handle) error {
		return h.LinkChangeFlags("v1x", netdev.FlagPromisc, netdev.FlagPromisc)
	}),
)

// The want sequences below are the real kernel's (Linux 6.18), recorded
// by a NETLINK_ROUTE listener joined to RTNLGRP_LINK, IPV4_IFADDR,
// IPV6_IFADDR, IPV4_ROUTE, IPV6_ROUTE, IPV4_RULE, IPV6_RULE and NEXTHOP in
// a private namespace while ip ran the same commands (the transcript's
// link-local addresses written fe80::LL). One thing is placed differently:
// the two link-local addresses' DAD completions, whose order and time in
// the kernel depend on DAD's random delays; netsim's come when it settles.

// wantSetup is the transcript of setupSteps.
const wantSetup = `
== ip link add v0 type veth peer name v1
NEWLINK f=0x0 o=k v1 change=0xffffffff mtu=1500
NEWLINK f=0x0 o=k v0 change=0xffffffff mtu=1500
== ip link set v0 up
NEWLINK f=0x0 o=k v0 change=0x1 mtu=1500
== ip link set v1 up
NEWLINK f=0x0 o=k v1 change=0x1 mtu=1500
NEWROUTE f=0x600 o=k fam=10 t=255 ff00::/8 type=5 proto=2 dev=v1
NEWROUTE f=0x600 o=k fam=10 t=254 fe80::/64 type=1 proto=2 dev=v1
NEWLINK f=0x0 o=k v1 change=0x0 mtu=1500
NEWROUTE f=0x400 o=k fam=10 t=255 ff00::/8 type=5 proto=2 dev=v0
NEWROUTE f=0x400 o=k fam=10 t=254 fe80::/64 type=1 proto=2 dev=v0
NEWLINK f=0x0 o=k v0 change=0x0 mtu=1500
NEWADDR f=0x0 o=k fam=10 v1 fe80::LL/64 flags=0x80
NEWROUTE f=0x600 o=k fam=10 t=255 fe80::LL/128 type=2 proto=2 dev=v1
NEWADDR f=0x0 o=k fam=10 v0 fe80::LL/64 flags=0x80
NEWROUTE f=0x600 o=k fam=10 t=255 fe80::LL/128 type=2 proto=2 dev=v0
== ip addr add 10.0.0.1/24 dev v0
NEWADDR f=0x0 o=req fam=2 v0 10.0.0.1/24 flags=0x80
NEWROUTE f=0x600 o=k fam=2 t=255 10.0.0.1/32 type=2 proto=2 dev=v0
NEWROUTE f=0x600 o=k fam=2 t=254 10.0.0.0/24 type=1 proto=2 dev=v0
NEWROUTE f=0x600 o=k fam=2 t=255 10.0.0.255/32 type=3 proto=2 dev=v0
`

const wantScenario1 = wantSetup + `== ip addr add 2001:db8::1/64 dev v0
NEWROUTE f=0x600 o=k fam=10 t=254 2001:db8::/64 type=1 proto=2 dev=v0
NEWADDR f=0x0 o=k fam=10 v0 2001:db8::1/64 flags=0xc0
NEWADDR f=0x0 o=k fam=10 v0 2001:db8::1/64 flags=0x80
NEWROUTE f=0x600 o=k fam=10 t=255 2001:db8::1/128 type=2 proto=2 dev=v0
== ip route add 10.1.0.0/16 via 10.0.0.2
NEWROUTE f=0x600 o=req fam=2 t=254 10.1.0.0/16 type=1 proto=3 via=10.0.0.2 dev=v0
== ip route replace 10.1.0.0/16 via 10.0.0.3
NEWROUTE f=0x100 o=req fam=2 t=254 10.1.0.0/16 type=1 proto=3 via=10.0.0.3 dev=v0
== ip route append 10.1.0.0/16 via 10.0.0.4
NEWROUTE f=0xc00 o=req fam=2 t=254 10.1.0.0/16 type=1 proto=3 via=10.0.0.4 dev=v0
== ip route prepend 10.1.0.0/16 via 10.0.0.5
NEWROUTE f=0x400 o=req fam=2 t=254 10.1.0.0/16 type=1 proto=3 via=10.0.0.5 dev=v0
== ip route del 10.1.0.0/16
DELROUTE f=0x0 o=req fam=2 t=254 10.1.0.0/16 type=1 proto=3 via=10.0.0.5 dev=v0
== ip route add 10.2.0.0/16 nexthop via 10.0.0.2 nexthop via 10.0.0.3 weight 2
NEWROUTE f=0x600 o=req fam=2 t=254 10.2.0.0/16 type=1 proto=3 mp=[ 10.0.0.2:v0:w1 10.0.0.3:v0:w2 ]
== ip -6 route add 2001:db8:1::/64 via 2001:db8::2
NEWROUTE f=0x600 o=req fam=10 t=254 2001:db8:1::/64 type=1 proto=3 via=2001:db8::2 dev=v0
== ip -6 route replace 2001:db8:1::/64 via 2001:db8::3
NEWROUTE f=0x100 o=req fam=10 t=254 2001:db8:1::/64 type=1 proto=3 via=2001:db8::3 dev=v0
== ip -6 route append 2001:db8:1::/64 via 2001:db8::4
NEWROUTE f=0xc00 o=req fam=10 t=254 2001:db8:1::/64 type=1 proto=3 mp=[ 2001:db8::4:v0:w1 2001:db8::3:v0:w1 ]
== ip -6 route del 2001:db8:1::/64 via 2001:db8::3
DELROUTE f=0x0 o=req fam=10 t=254 2001:db8:1::/64 type=1 proto=3 via=2001:db8::3 dev=v0
== ip link set v0 mtu 1400
NEWLINK f=0x0 o=k v0 change=0x0 mtu=1400
== ip link set v0 down
NEWLINK f=0x0 o=k v0 change=0x1 mtu=1400
DELROUTE f=0x0 o=k fam=10 t=254 2001:db8::/64 type=1 proto=2 dev=v0
DELROUTE f=0x0 o=k fam=10 t=254 2001:db8:1::/64 type=1 proto=3 via=2001:db8::4 dev=v0
DELROUTE f=0x0 o=k fam=10 t=254 fe80::/64 type=1 proto=2 dev=v0
DELROUTE f=0x0 o=k fam=10 t=255 2001:db8::1/128 type=2 proto=2 dev=v0
DELROUTE f=0x0 o=k fam=10 t=255 fe80::LL/128 type=2 proto=2 dev=v0
DELROUTE f=0x0 o=k fam=10 t=255 ff00::/8 type=5 proto=2 dev=v0
DELADDR f=0x0 o=k fam=10 v0 2001:db8::1/64 flags=0x80
DELADDR f=0x0 o=k fam=10 v0 fe80::LL/64 flags=0x80
NEWLINK f=0x0 o=k v1 change=0x0 mtu=1500
== ip link set v0 up
NEWLINK f=0x0 o=k v0 change=0x1 mtu=1400
NEWROUTE f=0x600 o=k fam=2 t=254 10.0.0.0/24 type=1 proto=2 dev=v0
NEWROUTE f=0x600 o=k fam=2 t=255 10.0.0.255/32 type=3 proto=2 dev=v0
NEWROUTE f=0x400 o=k fam=10 t=255 ff00::/8 type=5 proto=2 dev=v0
NEWROUTE f=0x400 o=k fam=10 t=254 fe80::/64 type=1 proto=2 dev=v0
NEWLINK f=0x0 o=k v0 change=0x0 mtu=1400
NEWLINK f=0x0 o=k v1 change=0x0 mtu=1500
NEWADDR f=0x0 o=k fam=10 v0 fe80::LL/64 flags=0x80
NEWROUTE f=0x600 o=k fam=10 t=255 fe80::LL/128 type=2 proto=2 dev=v0
== ip link del v0
NEWLINK f=0x0 o=k v0 change=0x41 mtu=1400
DELROUTE f=0x0 o=k fam=10 t=254 fe80::/64 type=1 proto=2 dev=v0
DELROUTE f=0x0 o=k fam=10 t=255 fe80::LL/128 type=2 proto=2 dev=v0
DELROUTE f=0x0 o=k fam=10 t=255 ff00::/8 type=5 proto=2 dev=v0
DELADDR f=0x0 o=k fam=10 v0 fe80::LL/64 flags=0x80
NEWLINK f=0x0 o=k v1 change=0x41 mtu=1500
DELROUTE f=0x0 o=k fam=10 t=254 fe80::/64 type=1 proto=2 dev=v1
DELROUTE f=0x0 o=k fam=10 t=255 fe80::LL/128 type=2 proto=2 dev=v1
DELROUTE f=0x0 o=k fam=10 t=255 ff00::/8 type=5 proto=2 dev=v1
DELADDR f=0x0 o=k fam=10 v1 fe80::LL/64 flags=0x80
DELADDR f=0x0 o=k fam=2 v0 10.0.0.1/24 flags=0x80
DELROUTE f=0x0 o=k fam=2 t=255 10.0.0.1/32 type=2 proto=2 dev=v0
DELLINK f=0x0 o=k v0 change=0xffffffff mtu=1400
DELLINK f=0x0 o=k v1 change=0xffffffff mtu=1500
`

const wantScenario2 = wantSetup + `== ip addr add 10.0.0.2/24 dev v0
NEWADDR f=0x0 o=req fam=2 v0 10.0.0.2/24 flags=0x81
NEWROUTE f=0x600 o=k fam=2 t=255 10.0.0.2/32 type=2 proto=2 dev=v0
== ip -6 addr add 2001:db8::1/64 dev v0 nodad
NEWROUTE f=0x600 o=k fam=10 t=254 2001:db8::/64 type=1 proto=2 dev=v0
NEWADDR f=0x0 o=k fam=10 v0 2001:db8::1/64 flags=0x82
NEWROUTE f=0x600 o=k fam=10 t=255 2001:db8::1/128 type=2 proto=2 dev=v0
== ip nexthop add id 1 via 10.0.0.5 dev v0
NEWNEXTHOP f=0x605 o=req fam=2 id=1 via=10.0.0.5 dev=v0
== ip nexthop add id 2 via 10.0.0.6 dev v0
NEWNEXTHOP f=0x605 o=req fam=2 id=2 via=10.0.0.6 dev=v0
== ip nexthop add id 3 dev v1
NEWNEXTHOP f=0x605 o=req fam=2 id=3 dev=v1
== ip nexthop add id 10 group 1/2
NEWNEXTHOP f=0x605 o=req fam=0 id=10 group=1,1/2,1/
== ip nexthop add id 11 group 1/3
NEWNEXTHOP f=0x605 o=req fam=0 id=11 group=1,1/3,1/
== ip route add 10.9.0.0/16 nhid 10
NEWROUTE f=0x600 o=req fam=2 t=254 10.9.0.0/16 type=1 proto=3 nhid=10 mp=[ 10.0.0.5:v0:w1 10.0.0.6:v0:w1 ]
== ip nexthop del id 1
DELNEXTHOP f=0x5 o=req fam=2 id=1 via=10.0.0.5 dev=v0
NEWNEXTHOP f=0x5 o=req fam=0 id=11 group=3,1/
NEWNEXTHOP f=0x5 o=req fam=0 id=10 group=2,1/
== ip rule add pref 100 table 100
NEWRULE f=0x0 o=req fam=2 pref=100 t=100
== ip -6 rule add pref 200 table 200
NEWRULE f=0x0 o=req fam=10 pref=200 t=200
== ip rule del pref 100
DELRULE f=0x0 o=req fam=2 pref=100 t=100
== ip -6 route add 2001:db8:5::/64 nexthop via 2001:db8::2 nexthop via 2001:db8::3
NEWROUTE f=0x400 o=req fam=10 t=254 2001:db8:5::/64 type=1 proto=3 mp=[ 2001:db8::2:v0:w1 2001:db8::3:v0:w1 ]
== ip -6 route append 2001:db8:5::/64 nexthop via 2001:db8::4
NEWROUTE f=0xc00 o=req fam=10 t=254 2001:db8:5::/64 type=1 proto=3 mp=[ 2001:db8::2:v0:w1 2001:db8::3:v0:w1 2001:db8::4:v0:w1 ]
== ip -6 route del 2001:db8:5::/64
DELROUTE f=0x0 o=req fam=10 t=254 2001:db8:5::/64 type=1 proto=3 mp=[ 2001:db8::2:v0:w1 2001:db8::3:v0:w1 2001:db8::4:v0:w1 ]
== ip addr del 10.0.0.1/24 dev v0
DELADDR f=0x0 o=req fam=2 v0 10.0.0.2/24 flags=0x81
DELROUTE f=0x0 o=k fam=2 t=255 10.0.0.2/32 type=2 proto=2 dev=v0
DELADDR f=0x0 o=req fam=2 v0 10.0.0.1/24 flags=0x80
DELROUTE f=0x0 o=k fam=2 t=254 10.0.0.0/24 type=1 proto=2 dev=v0
DELROUTE f=0x0 o=k fam=2 t=255 10.0.0.255/32 type=3 proto=2 dev=v0
DELROUTE f=0x0 o=k fam=2 t=255 10.0.0.1/32 type=2 proto=2 dev=v0
== ip -6 addr del 2001:db8::1/64 dev v0
DELADDR f=0x0 o=k fam=10 v0 2001:db8::1/64 flags=0x82
DELROUTE f=0x0 o=k fam=10 t=255 2001:db8::1/128 type=2 proto=2 dev=v0
DELROUTE f=0x0 o=k fam=10 t=254 2001:db8::/64 type=1 proto=2 dev=v0
== ip link set v1 name v1x
NEWLINK f=0x0 o=k v1x change=0x0 mtu=1500
== ip link set v1x txqueuelen 500
NEWLINK f=0x0 o=k v1x change=0x0 mtu=1500
== ip link set v1x alias foo
NEWLINK f=0x0 o=k v1x change=0x0 mtu=1500
== ip link set v1x promisc on
NEWLINK f=0x0 o=k v1x change=0x100 mtu=1500
`

// TestNotifySequence checks the notifications of two scenarios, in order
// and with their flags and origins, against the real kernel's.
func TestNotifySequence(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []notifyStep
		want  string
	}{
		{"links-addresses-routes", scenario1, wantScenario1},
		{"nexthops-rules-attributes", scenario2, wantScenario2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runNotify(t, tc.steps)
			require.Equal(t, strings.Split(strings.TrimSpace(tc.want), "\n"), got)
		})
	}
}

// TestNotifyUnsubscribedCostsNothing checks that notifications cost no
// work or virtual time: a namespace with a listener does what one without
// does, counter for counter and to the nanosecond.
func TestNotifyUnsubscribedCostsNothing(t *testing.T) {
	run := func(listen bool) (string, int64) {
		r := newRig(t, rtnl.After)
		n := 0
		if listen {
			r.k.InitNet().Subscribe(func(rtnl.Notification) { n++ })
		}
		for _, s := range append(append([]notifyStep{}, scenario2...), scenario1[len(scenario1)-1:]...) {
			if s.cmd == "ip link del v0" {
				r.ok(r.h.LinkDel("v1x"))
				continue
			}
			r.ok(s.run(r.h, rtnl.Origin{}))
			if s.settle {
				r.settle()
			}
		}
		if listen {
			require.Greater(t, n, 50)
		}
		return fmt.Sprint(r.counters()), int64(r.t.Now())
	}
	c0, t0 := run(false)
	c1, t1 := run(true)
	require.Equal(t, c0, c1)
	require.Equal(t, t0, t1)
}

// TestNotifyEchoOrigin checks which notifications carry the request's
// origin: a link's only when the request asked for an echo
// (rtmsg_ifinfo_build_skb), an IPv4 address's always, an
// IPv6 address's never (inet6_ifa_notify).
func TestNotifyEchoOrigin(t *testing.T) {
	r := newRig(t, rtnl.After)
	var got []rtnl.Notification
	r.k.InitNet().Subscribe(func(m rtnl.Notification) { got = append(got, m) })
	o := rtnl.Origin{PortID: 7, Seq: 9, Echo: true}
	r.ok(r.h.NewLink(rtnl.LinkRequest{Origin: o, Flags: rt.NLMCreate | rt.NLMExcl, Spec: netdev.Dummy{Name: "d0"}}))
	r.ok(r.h.NewLink(rtnl.LinkRequest{Origin: rtnl.Origin{PortID: 7, Seq: 10}, Name: "d0", Change: rtnl.LinkChange{Up: new(true)}}))
	o10 := rtnl.Origin{PortID: 7, Seq: 10}
	r.ok(r.h.NewAddr(rtnl.AddrRequest{Origin: o10, Flags: rt.NLMCreate | rt.NLMExcl, Link: "d0", Addr: netdev.Addr{Prefix: pfx("10.1.1.1/24")}}))
	r.ok(r.h.NewAddr(rtnl.AddrRequest{Origin: o10, Flags: rt.NLMCreate | rt.NLMExcl, Link: "d0", Addr: netdev.Addr{Prefix: pfx("2001:db8:1::1/64")}}))
	require.Equal(t, rt.RTMNewLink, got[0].Type)
	require.Equal(t, o, got[0].Origin, "a created device's RTM_NEWLINK echoes the request")
	require.Equal(t, netdev.ChangeAll, got[0].Change)
	require.Equal(t, rtnl.Origin{}, got[1].Origin, "dev_change_flags sends no request header")
	var addr4, addr6 int
	for _, m := range got[2:] {
		switch {
		case m.Addr != nil && m.Family == rt.FamilyInet:
			addr4++
			require.Equal(t, uint32(10), m.Origin.Seq)
		case m.Addr != nil:
			addr6++
			require.Equal(t, rtnl.Origin{}, m.Origin)
		}
	}
	require.Equal(t, 1, addr4, "one RTM_NEWADDR for the IPv4 address")
	require.NotZero(t, addr6, "RTM_NEWADDR for the IPv6 address")
}
