// Cnibridge is the CNI bridge plugin (containernetworking/plugins,
// plugins/main/bridge) adding pods to a bridge network, request for
// request as the plugin's ADD makes them: the bridge ensured (created if
// missing, promiscuous or not, up); a veth pair made from the pod's
// namespace with its host end created in the host's, both ends up, the
// host end attached to the bridge with hairpin mode as configured; the
// IPAM result's address and routes in the pod; the gateway's address on
// the bridge and, when it is first added, the bridge's MAC set to itself
// so that it stops following its ports'. It talks rtnetlink through
// github.com/jsimonetti/rtnetlink and reaches a namespace through a
// descriptor of it (netlink.Config.NetNS, a veth peer's IFLA_NET_NS_FD),
// as the plugin does.
//
// cni.ip is the same from the host's side, as an ip script (its veths are
// made from the host, their container end created in the pod's
// namespace: the same devices, in the same namespaces, with the same
// ifindexes). Run as root after `ip netns add cni-3e2f9a1c; ip netns add
// cni-b71d5e04` the agent configures the machine it runs on; its test runs
// it on a simulated kernel (nlwire) and holds the result to what cni.ip
// leaves on Linux. The plugin's sysctls and ipMasq's iptables rules are
// left out, as in cni.ip.
package main

import (
	"errors"
	"fmt"
	"log"
	"net"
	"net/netip"
	"os"
	"syscall"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/jsimonetti/rtnetlink/v2/driver"
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/examples/internal/nlops"
)

// The constants of the Linux ABI the plugin's requests use, spelled out so
// that it builds everywhere (golang.org/x/sys/unix has them only on Linux).
const (
	afInet      = 2     // AF_INET
	iffUp       = 0x1   // IFF_UP
	iffPromisc  = 0x100 // IFF_PROMISC
	rtTableMain = 254   // RT_TABLE_MAIN
	rtprotBoot  = 3     // RTPROT_BOOT, vishvananda/netlink's default
	rtnUnicast  = 1     // RTN_UNICAST
)

// Network is the plugin's configuration (the parts the host side uses).
type Network struct {
	Bridge      string
	BridgeMAC   net.HardwareAddr // the kernel's random one under the plugin; fixed here
	IsGateway   bool
	PromiscMode bool
	HairpinMode bool
}

// Pod is one ADD: the pod's namespace, the veth, and host-local IPAM's
// result.
type Pod struct {
	NetNS    int    // a descriptor of the pod's namespace
	IfName   string // CNI_IFNAME
	HostVeth string
	HostMAC  net.HardwareAddr // random under the plugin; fixed here
	ContMAC  net.HardwareAddr // likewise
	Addr     netip.Prefix
	Gateway  netip.Addr
	Routes   []netip.Prefix // through Gateway
}

// Plugin runs ADDs on the kernel Dial reaches: rtnetlink.Dial on Linux, a
// simulated kernel in the test.
type Plugin struct {
	Dial   func(*netlink.Config) (*rtnetlink.Conn, error)
	HostNS int // a descriptor of the host's namespace (the plugin's own)
}

// Add is the plugin's cmdAdd for pod p on network n.
func (pl Plugin) Add(n Network, p Pod) error {
	if n.HairpinMode && n.PromiscMode {
		return errors.New("cannot set hairpin mode and promiscuous mode at the same time")
	}
	host, err := pl.Dial(nil)
	if err != nil {
		return err
	}
	defer host.Close()
	pod, err := pl.Dial(&netlink.Config{NetNS: p.NetNS})
	if err != nil {
		return fmt.Errorf("enter the pod's namespace: %w", err)
	}
	defer pod.Close()

	// ensureBridge
	err = host.Link.New(&rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{
		Name: n.Bridge, Address: n.BridgeMAC, Info: &rtnetlink.LinkInfo{Kind: "bridge"},
	}})
	if err != nil && !errors.Is(err, syscall.EEXIST) {
		return fmt.Errorf("could not add %q: %w", n.Bridge, err)
	}
	br, err := nlops.LinkIndex(host, n.Bridge)
	if err != nil {
		return err
	}
	if n.PromiscMode {
		if err := nlops.SetFlag(host, br, iffPromisc); err != nil {
			return err
		}
	}
	if err := nlops.SetFlag(host, br, iffUp); err != nil {
		return err
	}

	// setupVeth: the pair is made from the pod's namespace, its host end
	// created in the host's (ip.SetupVeth's PeerNamespace).
	err = pod.Link.New(&rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{
		Name: p.IfName, Address: p.ContMAC,
		Info: &rtnetlink.LinkInfo{Kind: "veth", Data: &driver.Veth{
			PeerInfo: &rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{
				Name: p.HostVeth, Address: p.HostMAC, NetNS: rtnetlink.NetNSForFD(uint32(pl.HostNS)),
			}},
		}},
	}})
	if err != nil {
		return fmt.Errorf("create %s: %w", p.IfName, err)
	}
	cont, err := nlops.LinkIndex(pod, p.IfName)
	if err != nil {
		return err
	}
	if err := nlops.SetFlag(pod, cont, iffUp); err != nil {
		return err
	}
	veth, err := nlops.LinkIndex(host, p.HostVeth)
	if err != nil {
		return err
	}
	if err := nlops.SetFlag(host, veth, iffUp); err != nil {
		return err
	}
	if err := host.Link.Set(&rtnetlink.LinkMessage{Index: veth, Attributes: &rtnetlink.LinkAttributes{Master: &br}}); err != nil {
		return fmt.Errorf("failed to connect %q to bridge %v: %w", p.HostVeth, n.Bridge, err)
	}
	hairpin := driver.BridgeEnableDisabled
	if n.HairpinMode {
		hairpin = driver.BridgeEnableEnabled
	}
	if err := host.Link.Set(&rtnetlink.LinkMessage{Index: veth, Attributes: &rtnetlink.LinkAttributes{
		Info: &rtnetlink.LinkInfo{SlaveKind: "bridge", SlaveData: &driver.BridgePort{Mode: &hairpin}},
	}}); err != nil {
		return fmt.Errorf("failed to setup hairpin mode for %v: %w", p.HostVeth, err)
	}

	// ipam.ConfigureIface in the pod.
	if err := nlops.AddAddr4(pod, cont, p.Addr); err != nil {
		return err
	}
	if err := nlops.SetFlag(pod, cont, iffUp); err != nil {
		return err
	}
	for _, r := range p.Routes {
		if err := pod.Route.Add(&rtnetlink.RouteMessage{
			Family: afInet, DstLength: uint8(r.Bits()), Table: rtTableMain, Protocol: rtprotBoot, Type: rtnUnicast,
			Attributes: rtnetlink.RouteAttributes{
				Dst: net.IP(r.Addr().AsSlice()), Gateway: net.IP(p.Gateway.AsSlice()), OutIface: cont,
			},
		}); err != nil {
			return fmt.Errorf("route %s: %w", r, err)
		}
	}

	// isGateway: ensureAddr on the bridge.
	if !n.IsGateway {
		return nil
	}
	gw := netip.PrefixFrom(p.Gateway, p.Addr.Bits())
	addrs, err := host.Address.List()
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if a.Index == br && a.Attributes != nil && a.PrefixLength == uint8(gw.Bits()) && a.Attributes.Address.Equal(net.IP(gw.Addr().AsSlice())) {
			return nil
		}
	}
	if err := nlops.AddAddr4(host, br, gw); err != nil {
		return err
	}
	if err := host.Link.Set(&rtnetlink.LinkMessage{Index: br, Attributes: &rtnetlink.LinkAttributes{Address: n.BridgeMAC}}); err != nil {
		return fmt.Errorf("could not set bridge's mac: %w", err)
	}
	return nil
}

// ContainerdNet is containerd's default network as cni.ip configures it.
var ContainerdNet = Network{
	Bridge:      "cni0",
	BridgeMAC:   net.HardwareAddr{0x7a, 0x1c, 0x9e, 0x40, 0xd2, 0x5b},
	IsGateway:   true,
	PromiscMode: true,
}

// Pods are cni.ip's two pods, by namespace name, in order.
var Pods = []struct {
	NetNS string
	Pod
}{
	{"cni-3e2f9a1c", Pod{IfName: "eth0", HostVeth: "veth61d0a3f4",
		HostMAC: net.HardwareAddr{0xd6, 0x2b, 0x71, 0xc8, 0x05, 0x9e}, ContMAC: net.HardwareAddr{0x3e, 0x84, 0xf5, 0x12, 0x6a, 0xc0},
		Addr: netip.MustParsePrefix("10.88.0.2/16"), Gateway: netip.MustParseAddr("10.88.0.1"),
		Routes: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}}},
	{"cni-b71d5e04", Pod{IfName: "eth0", HostVeth: "veth0f9b2c71",
		HostMAC: net.HardwareAddr{0x4a, 0xe3, 0x0d, 0x96, 0x7b, 0x12}, ContMAC: net.HardwareAddr{0x92, 0x5f, 0xc8, 0x3b, 0xe1, 0x07},
		Addr: netip.MustParsePrefix("10.88.0.3/16"), Gateway: netip.MustParseAddr("10.88.0.1"),
		Routes: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}}},
}

func main() {
	host, err := os.Open("/proc/self/ns/net")
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close()
	pl := Plugin{Dial: rtnetlink.Dial, HostNS: int(host.Fd())}
	for _, p := range Pods {
		f, err := os.Open("/run/netns/" + p.NetNS)
		if err != nil {
			log.Fatal(errors.Join(err, errors.New("make the pods' namespaces first: ip netns add "+p.NetNS)))
		}
		p.Pod.NetNS = int(f.Fd())
		err = pl.Add(ContainerdNet, p.Pod)
		f.Close()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(p.NetNS, "added to", ContainerdNet.Bridge, "as", p.Addr)
	}
}
