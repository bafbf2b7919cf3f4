// The rtnetlink messages the device and address code sends itself: the
// rtmsg_ifinfo calls of net/core/dev.c and rtnetlink_event
// (net/core/rtnetlink.c), rtmsg_ifa (net/ipv4/devinet.c) and
// inet6_ifa_notify (net/ipv6/addrconf.c).

package netdev

import "github.com/netsimlab/netsim/sim"

// ChangeAll is the ifi_change of a message about a whole device: a new
// one (rtnl_configure_link) or one going away (RTM_DELLINK).
const ChangeAll = ^uint32(0)

// Announcer receives the link and address messages the kernel multicasts,
// at the points where it sends them, with RTNL held. Package rtnl turns
// them into notifications.
type Announcer interface {
	// LinkMsg is an RTM_NEWLINK (del false) or RTM_DELLINK of d, with
	// ifi_change change. req says that the message carries the header of
	// the request under way (rtnl_configure_link of the device a request
	// created); the others carry none.
	LinkMsg(t *sim.Task, d *Device, del bool, change uint32, req bool)
	// AddrMsg is an RTM_NEWADDR (del false) or RTM_DELADDR of a, an
	// address of d. req says that it carries the header of the request
	// under way (rtmsg_ifa with the request's nlh).
	AddrMsg(t *sim.Task, d *Device, a Addr, del bool, req bool)
}

// BridgeAnnouncer is an Announcer that receives two more kinds of link
// message: the AF_BRIDGE RTM_NEWLINK and RTM_DELLINK of a bridge port,
// which the kernel sends to RTNLGRP_LINK as well, and an RTM_NEWLINK that
// carries an IFLA_EVENT. An Announcer that does not implement it gets
// neither.
type BridgeAnnouncer interface {
	Announcer
	// BridgePortMsg is the AF_BRIDGE RTM_NEWLINK (del false) or
	// RTM_DELLINK of port, a bridge port still. It carries no request's
	// header.
	BridgePortMsg(t *sim.Task, port *Device, del bool)
	// LinkEventMsg is an RTM_NEWLINK of d, ifi_change 0, with IFLA_EVENT
	// event (IFLA_EVENT_*), without a request's header.
	LinkEventMsg(t *sim.Task, d *Device, event uint32)
}

// iflaEventFeatures is IFLA_EVENT_FEATURES, the IFLA_EVENT of
// NETDEV_FEAT_CHANGE.
const iflaEventFeatures = 2

// linkEventMsg sends an RTM_NEWLINK of d with IFLA_EVENT event: what
// rtnetlink_event sends for the events that have one (NETDEV_FEAT_CHANGE),
// where netsim runs no notifier chain for them.
//
// Kernel: rtmsg_ifinfo_event with rtnl_get_event (net/core/rtnetlink.c).
func (s *Stack) linkEventMsg(t *sim.Task, d *Device, event uint32) {
	if a, ok := s.announce.(BridgeAnnouncer); ok {
		a.LinkEventMsg(t, d, event)
	}
}

// SetAnnouncer installs a; nil sends nothing (the default). Call it while
// setting up.
func (s *Stack) SetAnnouncer(a Announcer) { s.announce = a }

// linkMsg sends an RTM_NEWLINK or RTM_DELLINK of d.
//
// Kernel: rtmsg_ifinfo (net/core/rtnetlink.c).
func (s *Stack) linkMsg(t *sim.Task, d *Device, del bool, change uint32, req bool) {
	defer t.Frame("rtmsg_ifinfo")()
	if s.announce != nil {
		s.announce.LinkMsg(t, d, del, change, req)
	}
}

// brPortMsg sends the AF_BRIDGE RTM_NEWLINK or RTM_DELLINK of bridge port
// p.
//
// Kernel: br_ifinfo_notify (net/bridge/br_netlink.c).
func (s *Stack) brPortMsg(t *sim.Task, p *Device, del bool) {
	if a, ok := s.announce.(BridgeAnnouncer); ok {
		a.BridgePortMsg(t, p, del)
	}
}

// addrMsg sends an RTM_NEWADDR or RTM_DELADDR of a.
//
// Kernel: rtmsg_ifa (net/ipv4/devinet.c), inet6_ifa_notify
// (net/ipv6/addrconf.c).
func (s *Stack) addrMsg(t *sim.Task, d *Device, a Addr, del bool, req bool) {
	defer t.Frame("rtmsg_ifa")()
	if s.announce != nil {
		s.announce.AddrMsg(t, d, a, del, req)
	}
}

// rtnetlinkEvent is the rtnetlink notifier, first on the netdev chain
// (registered by rtnetlink_init at core_initcall): the events after which
// the kernel announces the device with an RTM_NEWLINK that carries no
// request's header.
//
// Kernel: rtnetlink_event (net/core/rtnetlink.c).
func (s *Stack) rtnetlinkEvent(t *sim.Task, ev Event, d *Device) {
	switch ev {
	case EventChangeMTU, EventChangeAddr, EventChangeName, EventChangeUpper:
		s.linkMsg(t, d, false, 0, false)
	}
}

// StateChange announces a change of d's attributes that has no event of
// its own (an alias, a group): an RTM_NEWLINK if d is up. Unlike the
// kernel's netdev_state_change it sends no NETDEV_CHANGE down the
// notifier chain, which no subsystem netsim models acts on for these.
//
// Kernel: netdev_state_change (net/core/dev.c), from do_setlink's
// DO_SETLINK_NOTIFY.
func (d *Device) StateChange(t *sim.Task) {
	if d.IsUp() {
		d.tbl.s.linkMsg(t, d, false, 0, false)
	}
}
