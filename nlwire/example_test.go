package nlwire_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"net"
	"syscall"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/jsimonetti/rtnetlink/v2/driver"
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/rtnl"
)

// An agent written against jsimonetti/rtnetlink, served by a simulated
// kernel: create a veth pair, address it, bring it up, add a route, and
// see the link notifications on a second socket joined to RTNLGRP_LINK.
func ExampleDialRTNetlink() {
	k := rtnl.MustNewKernel(rtnl.After)
	conn, err := nlwire.DialRTNetlink(k.InitNet())
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	watch, err := nlwire.DialRTNetlink(k.InitNet())
	if err != nil {
		log.Fatal(err)
	}
	defer watch.Close()
	const rtnlgrpLink = 1 // RTNLGRP_LINK
	if err := watch.JoinGroup(rtnlgrpLink); err != nil {
		log.Fatal(err)
	}

	err = conn.Link.New(&rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{
		Name:    "veth0",
		Address: net.HardwareAddr{2, 0, 0, 0, 0, 1},
		Info: &rtnetlink.LinkInfo{Kind: "veth", Data: &driver.Veth{PeerInfo: &rtnetlink.LinkMessage{
			Attributes: &rtnetlink.LinkAttributes{Name: "veth1", Address: net.HardwareAddr{2, 0, 0, 0, 0, 2}},
		}}},
	}})
	if err != nil {
		log.Fatal(err)
	}
	links, err := conn.Link.List()
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range links {
		fmt.Println("link", l.Index, l.Attributes.Name, l.Attributes.Address)
	}

	const iffUp = 1 // IFF_UP
	for _, idx := range []uint32{2, 3} {
		if err := conn.Link.Set(&rtnetlink.LinkMessage{Index: idx, Flags: iffUp, Change: iffUp}); err != nil {
			log.Fatal(err)
		}
	}
	ip := net.ParseIP("10.0.0.1").To4()
	err = conn.Address.New(&rtnetlink.AddressMessage{Family: 2, PrefixLength: 24, Index: 3,
		Attributes: &rtnetlink.AddressAttributes{Address: ip, Local: ip}})
	if err != nil {
		log.Fatal(err)
	}
	err = conn.Route.Add(&rtnetlink.RouteMessage{Family: 2, DstLength: 24, Table: 254, Protocol: 4, Type: 1,
		Attributes: rtnetlink.RouteAttributes{Dst: net.ParseIP("192.0.2.0").To4(), Gateway: net.ParseIP("10.0.0.2").To4(), OutIface: 3}})
	if err != nil {
		log.Fatal(err)
	}
	routes, err := conn.Route.List()
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range routes {
		if r.Table == 254 {
			fmt.Printf("route %s/%d via %v dev %d\n", r.Attributes.Dst, r.DstLength, r.Attributes.Gateway, r.Attributes.OutIface)
		}
	}
	// Adding it again is refused, as the kernel refuses it.
	err = conn.Route.Add(&rtnetlink.RouteMessage{Family: 2, DstLength: 24, Table: 254, Protocol: 4, Type: 1,
		Attributes: rtnetlink.RouteAttributes{Dst: net.ParseIP("192.0.2.0").To4(), Gateway: net.ParseIP("10.0.0.2").To4(), OutIface: 3}})
	fmt.Println("again:", errors.Is(err, syscall.EEXIST))

	// The watcher's queue holds every link notification so far.
	for seen := 0; seen < 5; {
		msgs, _, err := watch.Receive()
		if err != nil {
			log.Fatal(err)
		}
		for _, m := range msgs {
			if l, ok := m.(*rtnetlink.LinkMessage); ok {
				fmt.Printf("notified: %s flags %#x operstate %d\n", l.Attributes.Name, l.Flags, l.Attributes.OperationalState)
				seen++
			}
		}
	}
	// Output:
	// link 1 lo 00:00:00:00:00:00
	// link 2 veth1 02:00:00:00:00:02
	// link 3 veth0 02:00:00:00:00:01
	// route 10.0.0.0/24 via <nil> dev 3
	// route 192.0.2.0/24 via 10.0.0.2 dev 3
	// route fe80::/64 via <nil> dev 3
	// route fe80::/64 via <nil> dev 2
	// again: true
	// notified: veth1 flags 0x1002 operstate 2
	// notified: veth0 flags 0x1002 operstate 2
	// notified: veth1 flags 0x1003 operstate 3
	// notified: veth0 flags 0x11003 operstate 3
	// notified: veth0 flags 0x11043 operstate 6
}

// A tool using mdlayher/netlink directly: dump the links (RTM_GETLINK
// with NLM_F_DUMP) and decode their names; ask for a missing one.
func ExampleDial() {
	k := rtnl.MustNewKernel(rtnl.After)
	h := k.InitNet().Handle(k.World().NewTask("setup"))
	if err := h.LinkAdd(netdev.Veth{Name: "veth0", Peer: "veth1"}); err != nil {
		log.Fatal(err)
	}
	c, err := nlwire.Dial(k.InitNet())
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	const rtmGetLink, iflaIfname = 18, 3 // RTM_GETLINK, IFLA_IFNAME
	msgs, err := c.Execute(netlink.Message{
		Header: netlink.Header{Type: rtmGetLink, Flags: netlink.Request | netlink.Dump},
		Data:   make([]byte, 16), // struct ifinfomsg
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range msgs {
		ad, err := netlink.NewAttributeDecoder(m.Data[16:])
		if err != nil {
			log.Fatal(err)
		}
		for ad.Next() {
			if ad.Type() == iflaIfname {
				fmt.Println(binary.NativeEndian.Uint32(m.Data[4:8]), ad.String())
			}
		}
	}
	get := make([]byte, 16)
	binary.NativeEndian.PutUint32(get[4:], 99)
	_, err = c.Execute(netlink.Message{Header: netlink.Header{Type: rtmGetLink, Flags: netlink.Request}, Data: get})
	fmt.Println(errors.Is(err, syscall.ENODEV))
	// Output:
	// 1 lo
	// 2 veth1
	// 3 veth0
	// true
}
