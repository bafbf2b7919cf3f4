// Nlagent is the kind of small network agent people write against
// github.com/jsimonetti/rtnetlink: it makes sure a veth pair exists, is
// up and addressed, and routes a prefix through it, doing nothing that is
// already done, and reports the link notifications it sees. Run as root it
// configures the machine it runs on; its test runs the same code against a
// simulated kernel (nlwire), without root.
package main

import (
	"errors"
	"fmt"
	"log"
	"net"
	"net/netip"
	"syscall"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/jsimonetti/rtnetlink/v2/driver"
	"github.com/mdlayher/netlink"
)

// The constants of the Linux ABI the agent uses, spelled out so that it
// builds everywhere (golang.org/x/sys/unix has them only on Linux).
const (
	afInet       = 2    // AF_INET
	iffUp        = 0x1  // IFF_UP
	rtTableMain  = 254  // RT_TABLE_MAIN
	rtprotStatic = 4    // RTPROT_STATIC
	rtnUnicast   = 1    // RTN_UNICAST
	rtnlgrpLink  = 0x1  // RTNLGRP_LINK
	rtmNewLink   = 0x10 // RTM_NEWLINK
)

// Config is what the agent makes true.
type Config struct {
	Name, Peer string       // the veth pair
	Addr       netip.Prefix // Name's address
	Route      netip.Prefix // routed through Gateway on Name
	Gateway    netip.Addr
}

// Ensure makes c true on conn's kernel and returns Name's ifindex. Each
// step first looks at what is there: running it twice changes nothing.
func Ensure(conn *rtnetlink.Conn, c Config) (uint32, error) {
	link, err := linkByName(conn, c.Name)
	if err != nil {
		return 0, err
	}
	if link == nil {
		err := conn.Link.New(&rtnetlink.LinkMessage{
			Attributes: &rtnetlink.LinkAttributes{
				Name: c.Name,
				Info: &rtnetlink.LinkInfo{Kind: "veth", Data: &driver.Veth{
					PeerInfo: &rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{Name: c.Peer}},
				}},
			},
		})
		if err != nil {
			return 0, fmt.Errorf("create %s: %w", c.Name, err)
		}
		if link, err = linkByName(conn, c.Name); err != nil || link == nil {
			return 0, fmt.Errorf("find %s after creating it: %v", c.Name, err)
		}
	}
	idx := link.Index
	for _, name := range []string{c.Peer, c.Name} {
		l, err := linkByName(conn, name)
		if err != nil || l == nil {
			return 0, fmt.Errorf("find %s: %v", name, err)
		}
		if l.Flags&iffUp == 0 {
			if err := conn.Link.Set(&rtnetlink.LinkMessage{Index: l.Index, Flags: iffUp, Change: iffUp}); err != nil {
				return 0, fmt.Errorf("set %s up: %w", name, err)
			}
		}
	}
	ip := net.IP(c.Addr.Addr().AsSlice())
	err = conn.Address.New(&rtnetlink.AddressMessage{
		Family: afInet, PrefixLength: uint8(c.Addr.Bits()), Index: idx,
		Attributes: &rtnetlink.AddressAttributes{Address: ip, Local: ip},
	})
	if err != nil && !errors.Is(err, syscall.EEXIST) {
		return 0, fmt.Errorf("address %s: %w", c.Addr, err)
	}
	err = conn.Route.Replace(&rtnetlink.RouteMessage{
		Family: afInet, DstLength: uint8(c.Route.Bits()), Table: rtTableMain,
		Protocol: rtprotStatic, Type: rtnUnicast,
		Attributes: rtnetlink.RouteAttributes{
			Dst:      net.IP(c.Route.Addr().AsSlice()),
			Gateway:  net.IP(c.Gateway.AsSlice()),
			OutIface: idx,
		},
	})
	if err != nil {
		return 0, fmt.Errorf("route %s: %w", c.Route, err)
	}
	return idx, nil
}

// linkByName returns the link called name, or nil.
func linkByName(conn *rtnetlink.Conn, name string) (*rtnetlink.LinkMessage, error) {
	links, err := conn.Link.List()
	if err != nil {
		return nil, err
	}
	for i := range links {
		if links[i].Attributes != nil && links[i].Attributes.Name == name {
			return &links[i], nil
		}
	}
	return nil, nil
}

// Watch opens the socket that receives the link notifications.
func Watch(watch *rtnetlink.Conn) error { return watch.JoinGroup(rtnlgrpLink) }

// LinkEvents receives the next batch of notifications on watch and
// returns its link messages as "NAME up" or "NAME down" (an agent would
// loop on it).
func LinkEvents(watch *rtnetlink.Conn) ([]string, error) {
	msgs, nl, err := watch.Receive()
	if err != nil {
		return nil, err
	}
	var out []string
	for i, m := range msgs {
		l, ok := m.(*rtnetlink.LinkMessage)
		if !ok || nl[i].Header.Type != rtmNewLink || l.Attributes == nil {
			continue
		}
		state := "down"
		if l.Flags&iffUp != 0 {
			state = "up"
		}
		out = append(out, l.Attributes.Name+" "+state)
	}
	return out, nil
}

func main() {
	conn, err := rtnetlink.Dial(&netlink.Config{Strict: true})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	idx, err := Ensure(conn, Config{
		Name: "veth-agent", Peer: "veth-agent-p",
		Addr:    netip.MustParsePrefix("192.168.250.1/24"),
		Route:   netip.MustParsePrefix("198.18.250.0/24"),
		Gateway: netip.MustParseAddr("192.168.250.2"),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("veth-agent is ifindex", idx)
}
