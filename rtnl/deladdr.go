package rtnl

import (
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// Inet4DelMatch is what an IPv4 RTM_DELADDR request selects the address to
// delete by; a nil field is an attribute the request does not carry, and
// the first address that matches every given one is deleted.
type Inet4DelMatch struct {
	Local   *netip.Addr // IFA_LOCAL: the address's local address
	Label   *string     // IFA_LABEL: its label, compared whole
	Address *netip.Addr // IFA_ADDRESS: with PrefixLen, its prefix
	// PrefixLen is ifa_prefixlen, looked at only with Address: the
	// address's prefix length must equal it and Address must lie in the
	// address's subnet (that of its peer, if it has one).
	PrefixLen int
}

// matches reports whether a is selected by m.
//
// Kernel: the tests of inet_rtm_deladdr's loop, inet_ifa_match.
func (m Inet4DelMatch) matches(a netdev.Addr) bool {
	if m.Local != nil && a.Prefix.Addr() != *m.Local {
		return false
	}
	if m.Label != nil && *m.Label != a.Label {
		return false
	}
	if m.Address != nil {
		if a.Prefix.Bits() != m.PrefixLen {
			return false
		}
		if p, err := m.Address.Prefix(a.Prefix.Bits()); err != nil || p != a.Subnet() {
			return false
		}
	}
	return true
}

// AddrDelMatch4 deletes the first IPv4 address of the device named link
// that m selects: ENODEV "ipv4: Device not found" without such a device
// (or one without IPv4), EADDRNOTAVAIL "ipv4: Address not found" when no
// address matches.
//
// Kernel: inet_rtm_deladdr (net/ipv4/devinet.c).
func (h *Handle) AddrDelMatch4(link string, m Inet4DelMatch) error {
	return h.do("RTM_DELADDR", func(t *sim.Task, tb *netdev.Table) error {
		d, err := lookup(tb, link)
		if err != nil {
			return err
		}
		return d.DelInet4First(t, m.matches)
	})
}
