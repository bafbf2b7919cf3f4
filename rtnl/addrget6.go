package rtnl

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// AddrGet6 finds the IPv6 address addr as an RTM_GETADDR without
// NLM_F_DUMP does: on the device link names, or, when link is "" or names
// no device (an ifindex of 0 or an unknown one), on any device, where of
// several devices with the address the one added last answers. It fails
// with EADDRNOTAVAIL when none has it.
//
// Kernel: inet6_rtm_getaddr → ipv6_get_ifaddr (net/ipv6/addrconf.c).
func (h *Handle) AddrGet6(link string, addr netip.Addr) (AddrInfo, error) {
	var out AddrInfo
	err := h.do("RTM_GETADDR", func(t *sim.Task, tb *netdev.Table) error {
		var dev *netdev.Device
		if link != "" {
			dev, _ = lookup(tb, link)
		}
		d, a, ok := tb.Inet6AddrLookup(addr, dev)
		if !ok {
			return errno.New(syscall.EADDRNOTAVAIL, "")
		}
		a.ValidLft, a.PreferredLft = a.Remaining(t.Now())
		out = AddrInfo{Index: d.Index(), Link: d.Name(), Addr: a}
		return nil
	})
	return out, err
}
