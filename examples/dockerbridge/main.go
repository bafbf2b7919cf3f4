// Dockerbridge is the network part of a container engine on Docker's
// default bridge network, written as dockerd's bridge driver does it: the
// bridge docker0 with its gateway address and a MAC of its own, and per
// container a veth pair made in the host namespace, its host end attached
// to docker0, its other end moved into the container's namespace,
// renamed eth0, given the MAC docker derives from the address, addressed,
// up, with a default route through the bridge. It talks rtnetlink through
// github.com/jsimonetti/rtnetlink, reaching a container's namespace
// through a descriptor of it (netlink.Config.NetNS), as an engine does.
//
// docker.ip is the same, request for request, as an ip script. Run as root
// after `ip netns add c1; ip netns add c2` it configures the machine it
// runs on; its test runs it on a simulated kernel (nlwire) and holds the
// result to what docker.ip leaves on Linux. Docker's iptables rules and
// sysctls are left out, as in docker.ip.
package main

import (
	"errors"
	"fmt"
	"log"
	"net"
	"net/netip"
	"os"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/jsimonetti/rtnetlink/v2/driver"
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/examples/internal/nlops"
)

// The constants of the Linux ABI the agent uses, spelled out so that it
// builds everywhere (golang.org/x/sys/unix has them only on Linux).
const (
	afInet      = 2   // AF_INET
	iffUp       = 0x1 // IFF_UP
	rtTableMain = 254 // RT_TABLE_MAIN
	rtprotBoot  = 3   // RTPROT_BOOT, what ip and vishvananda/netlink send by default
	rtnUnicast  = 1   // RTN_UNICAST
	loIndex     = 1   // the loopback device of every namespace
)

// Bridge is the engine's bridge network.
type Bridge struct {
	Name string
	MAC  net.HardwareAddr // given at creation, so that the bridge does not take its ports'
	Addr netip.Prefix     // the gateway's address, on the bridge
}

// Container is one container's endpoint on the bridge.
type Container struct {
	NetNS    int              // a descriptor of the container's namespace
	HostVeth string           // the veth's host end
	HostMAC  net.HardwareAddr // the host end's MAC (the kernel's random one under docker)
	Peer     string           // the other end's name until it is eth0
	Addr     netip.Prefix     // eth0's address
}

// Engine configures the kernel that Dial reaches: rtnetlink.Dial on
// Linux, a simulated kernel in the test.
type Engine struct {
	Dial func(*netlink.Config) (*rtnetlink.Conn, error)
}

// CreateBridge makes the bridge network: the bridge with its MAC, its
// address, up.
func (e Engine) CreateBridge(b Bridge) error {
	conn, err := e.Dial(nil)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.Link.New(&rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{
		Name: b.Name, Address: b.MAC, Info: &rtnetlink.LinkInfo{Kind: "bridge"},
	}}); err != nil {
		return fmt.Errorf("create %s: %w", b.Name, err)
	}
	br, err := nlops.LinkIndex(conn, b.Name)
	if err != nil {
		return err
	}
	if err := nlops.AddAddr4(conn, br, b.Addr); err != nil {
		return err
	}
	return nlops.SetFlag(conn, br, iffUp)
}

// Join connects container c to bridge b.
func (e Engine) Join(b Bridge, c Container) error {
	host, err := e.Dial(nil)
	if err != nil {
		return err
	}
	defer host.Close()
	// The sandbox's loopback device comes up with the sandbox.
	sandbox, err := e.Dial(&netlink.Config{NetNS: c.NetNS})
	if err != nil {
		return fmt.Errorf("enter the container's namespace: %w", err)
	}
	defer sandbox.Close()
	if err := nlops.SetFlag(sandbox, loIndex, iffUp); err != nil {
		return err
	}

	if err := host.Link.New(&rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{
		Name: c.HostVeth, Address: c.HostMAC,
		Info: &rtnetlink.LinkInfo{Kind: "veth", Data: &driver.Veth{
			PeerInfo: &rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{Name: c.Peer}},
		}},
	}}); err != nil {
		return fmt.Errorf("create %s: %w", c.HostVeth, err)
	}
	veth, err := nlops.LinkIndex(host, c.HostVeth)
	if err != nil {
		return err
	}
	br, err := nlops.LinkIndex(host, b.Name)
	if err != nil {
		return err
	}
	if err := host.Link.Set(&rtnetlink.LinkMessage{Index: veth, Attributes: &rtnetlink.LinkAttributes{Master: &br}}); err != nil {
		return fmt.Errorf("attach %s to %s: %w", c.HostVeth, b.Name, err)
	}
	if err := nlops.SetFlag(host, veth, iffUp); err != nil {
		return err
	}
	peer, err := nlops.LinkIndex(host, c.Peer)
	if err != nil {
		return err
	}
	if err := host.Link.Set(&rtnetlink.LinkMessage{Index: peer, Attributes: &rtnetlink.LinkAttributes{
		NetNS: rtnetlink.NetNSForFD(uint32(c.NetNS)),
	}}); err != nil {
		return fmt.Errorf("move %s into the container: %w", c.Peer, err)
	}

	// In the container: the moved end becomes eth0.
	eth0, err := nlops.LinkIndex(sandbox, c.Peer)
	if err != nil {
		return err
	}
	if err := sandbox.Link.Set(&rtnetlink.LinkMessage{Index: eth0, Attributes: &rtnetlink.LinkAttributes{Name: "eth0"}}); err != nil {
		return fmt.Errorf("rename %s: %w", c.Peer, err)
	}
	if err := sandbox.Link.Set(&rtnetlink.LinkMessage{Index: eth0, Attributes: &rtnetlink.LinkAttributes{Address: MAC(c.Addr.Addr())}}); err != nil {
		return fmt.Errorf("set eth0's MAC: %w", err)
	}
	if err := nlops.AddAddr4(sandbox, eth0, c.Addr); err != nil {
		return err
	}
	if err := nlops.SetFlag(sandbox, eth0, iffUp); err != nil {
		return err
	}
	gw := net.IP(b.Addr.Addr().AsSlice())
	if err := sandbox.Route.Add(&rtnetlink.RouteMessage{
		Family: afInet, Table: rtTableMain, Protocol: rtprotBoot, Type: rtnUnicast,
		Attributes: rtnetlink.RouteAttributes{Gateway: gw, OutIface: eth0},
	}); err != nil {
		return fmt.Errorf("default route: %w", err)
	}
	return nil
}

// MAC is the MAC docker gives a container's eth0: 02:42 and the four
// bytes of its IPv4 address (libnetwork's GenerateMACFromIP).
func MAC(a netip.Addr) net.HardwareAddr {
	b := a.As4()
	return net.HardwareAddr{0x02, 0x42, b[0], b[1], b[2], b[3]}
}

// Docker0 is Docker's default bridge network as docker.ip makes it.
var Docker0 = Bridge{
	Name: "docker0",
	MAC:  net.HardwareAddr{0x02, 0x42, 0x5d, 0x3a, 0x1c, 0x07},
	Addr: netip.MustParsePrefix("172.17.0.1/16"),
}

// Containers are docker.ip's two containers, by namespace name, in order.
var Containers = []struct {
	NetNS string
	Container
}{
	{"c1", Container{HostVeth: "veth3f1a2b7", HostMAC: net.HardwareAddr{0x1a, 0x6e, 0x53, 0x0b, 0x8c, 0x21}, Peer: "veth9c04d1e",
		Addr: netip.MustParsePrefix("172.17.0.2/16")}},
	{"c2", Container{HostVeth: "veth7d2e6a0", HostMAC: net.HardwareAddr{0x8e, 0xb1, 0x04, 0x77, 0x3d, 0x5f}, Peer: "veth51f8c93",
		Addr: netip.MustParsePrefix("172.17.0.3/16")}},
}

func main() {
	e := Engine{Dial: rtnetlink.Dial}
	if err := e.CreateBridge(Docker0); err != nil {
		log.Fatal(err)
	}
	for _, c := range Containers {
		f, err := os.Open("/run/netns/" + c.NetNS)
		if err != nil {
			log.Fatal(errors.Join(err, errors.New("make the containers' namespaces first: ip netns add "+c.NetNS)))
		}
		c.Container.NetNS = int(f.Fd())
		err = e.Join(Docker0, c.Container)
		f.Close()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(c.NetNS, "joined", Docker0.Name, "as", c.Addr)
	}
}
