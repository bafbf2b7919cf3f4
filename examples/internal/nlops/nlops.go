// Package nlops holds the rtnetlink requests the container examples'
// agents (dockerbridge, cnibridge) make alike, written as agents write
// them with github.com/jsimonetti/rtnetlink: a link found by name, a
// flag set, an IPv4 address added with its broadcast address.
package nlops

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/jsimonetti/rtnetlink/v2"
)

const afInet = 2 // AF_INET, spelled out so that the examples build everywhere

// LinkIndex returns the ifindex of the link called name.
func LinkIndex(conn *rtnetlink.Conn, name string) (uint32, error) {
	links, err := conn.Link.List()
	if err != nil {
		return 0, err
	}
	for _, l := range links {
		if l.Attributes != nil && l.Attributes.Name == name {
			return l.Index, nil
		}
	}
	return 0, fmt.Errorf("no link %s", name)
}

// SetFlag sets a link flag (IFF_UP, IFF_PROMISC).
func SetFlag(conn *rtnetlink.Conn, index, flag uint32) error {
	if err := conn.Link.Set(&rtnetlink.LinkMessage{Index: index, Flags: flag, Change: flag}); err != nil {
		return fmt.Errorf("set flag %#x on ifindex %d: %w", flag, index, err)
	}
	return nil
}

// AddAddr4 adds an IPv4 address with its broadcast address, as
// vishvananda/netlink's AddrAdd (which Docker and the CNI plugins call)
// does.
func AddAddr4(conn *rtnetlink.Conn, index uint32, p netip.Prefix) error {
	ip := net.IP(p.Addr().AsSlice())
	brd := make(net.IP, len(ip))
	mask := net.CIDRMask(p.Bits(), 32)
	for i := range ip {
		brd[i] = ip[i] | ^mask[i]
	}
	err := conn.Address.New(&rtnetlink.AddressMessage{
		Family: afInet, PrefixLength: uint8(p.Bits()), Index: index,
		Attributes: &rtnetlink.AddressAttributes{Address: ip, Local: ip, Broadcast: brd},
	})
	if err != nil {
		return fmt.Errorf("address %s: %w", p, err)
	}
	return nil
}
