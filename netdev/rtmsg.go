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

// SetAnnouncer installs a; nil sends nothing (the default). Call it while
// setting up.
func (s *Stack) SetAnnouncer(a Announcer) { s.announce = a }

// linkMsg sends an RTM_NEWLINK or RTM_DELLINK of d.
//
// Kernel: rtmsg_ifinfo (net/core/rtnetlink.c).
func (s *Stack) linkMsg(t *sim.Task, d *Device, del bool, change uint32, req bool) {
	if s.announce != nil {
		s.announce.LinkMsg(t, d, del, change, req)
	}
}

// addrMsg sends an RTM_NEWADDR or RTM_DELADDR of a.
//
// Kernel: rtmsg_ifa (net/ipv4/devinet.c), inet6_ifa_notify
// (net/ipv6/addrconf.c).
func (s *Stack) addrMsg(t *sim.Task, d *Device, a Addr, del bool, req bool) {
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
