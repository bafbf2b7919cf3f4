package rtnl_test

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/machine"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// A simulated kernel, a task that plays `ip`, and a Handle on init_net:
// create a veth pair and a macvlan on it, give it an address, bring it up.
// A request the kernel refuses returns the errno, with the extack-style
// message, and changes nothing.
func Example() {
	k := rtnl.MustNewKernel(rtnl.After)
	t := k.World().NewTask("ip")
	h := k.InitNet().Handle(t)

	_ = h.LinkAdd(netdev.Veth{Name: "eth2", Peer: "eth2p"})
	_ = h.LinkAdd(netdev.Macvlan{Name: "testnh0", Link: "eth2", Mode: netdev.MacvlanBridge})
	_ = h.AddrAdd("testnh0", netip.MustParsePrefix("198.51.100.1/24"))
	_ = h.LinkSetUp("eth2p")
	_ = h.LinkSetUp("eth2")
	_ = h.LinkSetUp("testnh0")

	links, _ := h.LinkList()
	for _, l := range links {
		fmt.Printf("%d: %s kind=%q link=%q state=%v <%v>\n", l.Index, l.Name, l.Kind, l.Link, l.OperState, l.Flags)
	}

	err := h.LinkAdd(netdev.Vlan{Name: "eth2.4095", Link: "eth2", ID: 4095})
	fmt.Println(errors.Is(err, syscall.ERANGE), err)
	err = h.LinkAdd(netdev.Dummy{Name: "eth2"})
	fmt.Println(errors.Is(err, syscall.EEXIST), err)
	// Output:
	// 1: lo kind="" link="" state=DOWN <LOOPBACK>
	// 2: eth2p kind="veth" link="eth2" state=UP <BROADCAST,MULTICAST,UP,LOWER_UP>
	// 3: eth2 kind="veth" link="eth2p" state=UP <BROADCAST,MULTICAST,UP,LOWER_UP>
	// 4: testnh0 kind="macvlan" link="eth2" state=UP <BROADCAST,MULTICAST,UP,LOWER_UP>
	// true numerical result out of range: 8021q: Invalid VLAN id
	// true file exists: Device "eth2" already exists
}

// Seed 002 in miniature: deleting devices one by one whose anycast routes
// release their device references through two chained RCU callbacks. The
// rcu_barrier in netdev_run_todo waits for the first callback only, so
// netdev_wait_allrefs has to poll once per device: msleep(250), which is 251
// ms at HZ=1000, before the patch (WaitFixed); msleep(16) after
// (WaitBackoff). A trace shows the sleeps. It runs on seed 002's machine
// (HZ=1000, every grace period GracePeriod long).
func Example_waitAllRefs() {
	seed002, _ := machine.Load("seed002")
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		tr := &sim.ChromeTrace{}
		k, _ := rtnl.NewKernelIn(sim.MustNewWorld(sim.Options{Tracer: tr, Costs: &seed002.Costs}), cfg)
		t := k.World().NewTask("ip")
		h := k.InitNet().Handle(t)
		_ = h.Sysctl("net.ipv6.conf.all.forwarding", "1")
		for i := range 4 {
			name := fmt.Sprintf("dummy%d", i)
			_ = h.LinkAdd(netdev.Dummy{Name: name})
			_ = h.LinkSetUp(name)
			_ = h.AddrAdd(name, netip.MustParsePrefix(fmt.Sprintf("2021:%d::1/120", i+1)))
		}
		k.Settle(t)

		before, mark := k.Counters(), len(tr.Events())
		for i := range 4 {
			_ = h.LinkDel(fmt.Sprintf("dummy%d", i))
		}
		d := k.Counters().Sub(before)
		var sleeps []string
		for _, e := range tr.Events()[mark:] {
			if e.Cat == "sleep" && e.Name != "sleep" {
				sleeps = append(sleeps, fmt.Sprintf("%s=%v", e.Name, e.Dur))
			}
		}
		fmt.Printf("%-7v barriers=%d %v\n", cfg.Wait, d.Get(sim.RCUBarrier), sleeps)
	}
	// Output:
	// fixed   barriers=4 [msleep(250)=251ms msleep(250)=251ms msleep(250)=251ms msleep(250)=251ms]
	// backoff barriers=4 [msleep(16)=17ms msleep(16)=17ms msleep(16)=17ms msleep(16)=17ms]
}

// Seed 004's bulk deletion: one request deletes the listed devices, or, if
// any cannot be deleted, none of them.
func ExampleHandle_LinkDelList() {
	k := rtnl.MustNewKernel(rtnl.After)
	t := k.World().NewTask("ip")
	h := k.InitNet().Handle(t)
	var idx []netdev.IfIndex
	for i := range 3 {
		_ = h.LinkAdd(netdev.Dummy{Name: fmt.Sprintf("d%d", i)})
		li, _ := h.LinkByName(fmt.Sprintf("d%d", i))
		idx = append(idx, li.Index)
	}

	err := h.LinkDelList(append(idx, netdev.LoopbackIfIndex))
	links, _ := h.LinkList()
	fmt.Println(errors.Is(err, syscall.EOPNOTSUPP), err, len(links))

	before := k.Counters()
	err = h.LinkDelList(idx)
	links, _ = h.LinkList()
	fmt.Println(err, len(links), "barriers:", k.Counters().Sub(before).Get(sim.RCUBarrier))
	// Output:
	// true operation not supported: Device "lo" cannot be deleted 4
	// <nil> 1 barriers: 1
}

// A route dump read in parts, as a netlink socket's reader drains it:
// each Next takes RTNL and goes on from where the last stopped; a route
// added ahead of the cursor between parts is seen, one added behind it is
// not.
func ExampleHandle_DumpRoutes() {
	k := rtnl.MustNewKernel(rtnl.After)
	h := k.InitNet().Handle(k.World().NewTask("ip"))
	for _, p := range []string{"10.0.1.0/24", "10.0.2.0/24", "10.0.4.0/24", "10.0.5.0/24"} {
		_ = h.RouteAdd(rtnl.Route{Dst: netip.MustParsePrefix(p), Type: fib.TypeBlackhole})
	}
	d, _ := h.DumpRoutes(rtnl.RouteDumpRequest{Family: rt.FamilyInet})
	defer d.Close()
	for part := 1; ; part++ {
		n := 0
		done, _ := d.Next(math.MaxInt, func(ri *rtnl.RouteInfo) bool {
			if n == 2 {
				return false // the part is full
			}
			n++
			fmt.Println("part", part, ri.Dst)
			return true
		})
		if done {
			break
		}
		if part == 1 {
			_ = h.RouteAdd(rtnl.Route{Dst: netip.MustParsePrefix("10.0.0.0/24"), Type: fib.TypeBlackhole})
			_ = h.RouteAdd(rtnl.Route{Dst: netip.MustParsePrefix("10.0.3.0/24"), Type: fib.TypeBlackhole})
		}
	}
	// Output:
	// part 1 10.0.1.0/24
	// part 1 10.0.2.0/24
	// part 2 10.0.3.0/24
	// part 2 10.0.4.0/24
	// part 3 10.0.5.0/24
}

// A namespace deleted by name lives on while a Handle holds it, as a
// struct net lives while a socket or process holds it: `ip netns del`
// drops only the name's reference. The last Close queues its cleanup.
func ExampleKernel_DelNet() {
	k := rtnl.MustNewKernel(rtnl.After)
	t := k.World().NewTask("ip")
	red, _ := k.NewNet(t, "red")
	h := red.Handle(t)
	_ = h.LinkAdd(netdev.Dummy{Name: "d0"})

	_ = k.DelNet(t, "red")
	fmt.Println(k.Net("red") == nil, k.NetNames())
	links, err := h.LinkList()
	fmt.Println(len(links), err)

	_ = h.Close()
	k.Settle(t) // cleanup_net runs
	fmt.Println(red.Devices().Len())
	err = h.LinkSetUp("d0")
	fmt.Println(errors.Is(err, syscall.EBADF), err)
	// Output:
	// true []
	// 2 <nil>
	// 0
	// true bad file descriptor: Request on a closed Handle
}

// A container's veth: one end moves into the container's namespace, where
// it keeps its ifindex and arrives down, without the addresses it had; its
// peer, left behind, names it by that ifindex only. A name in use in the
// target refuses the move, with the kernel's extack, and moves nothing.
func ExampleHandle_LinkSetNs() {
	k := rtnl.MustNewKernel(rtnl.After)
	t := k.World().NewTask("ip")
	h := k.InitNet().Handle(t)
	ctr, _ := k.NewNet(t, "ctr")
	hc := ctr.Handle(t)

	_ = h.LinkAdd(netdev.Veth{Name: "veth0", Peer: "eth0"})
	_ = h.AddrAdd("eth0", netip.MustParsePrefix("172.17.0.2/16"))
	_ = h.LinkSetUp("eth0")
	fmt.Println(h.LinkSetNs("eth0", ctr))

	eth0, _ := hc.LinkByName("eth0")
	addrs, _ := hc.AddrList("eth0", rt.FamilyInet)
	fmt.Printf("ctr: %d: %s <%v> addresses %d\n", eth0.Index, eth0.Name, eth0.Flags, len(addrs))
	veth0, _ := h.LinkByName("veth0")
	fmt.Printf("init_net: %d: %s@if%d (elsewhere: %v)\n", veth0.Index, veth0.Name, veth0.LinkIndex, veth0.LinkNetns)

	_ = h.LinkAdd(netdev.Dummy{Name: "eth0"})
	err := hc.LinkSetNs("eth0", k.InitNet())
	fmt.Println(errors.Is(err, syscall.EEXIST), err)
	// Output:
	// <nil>
	// ctr: 2: eth0 <BROADCAST,MULTICAST> addresses 0
	// init_net: 3: veth0@if2 (elsewhere: true)
	// true file exists: An interface with the same name exists in the target netns
}

// Namespace ids: each namespace numbers the others it knows of. Moving a
// veth end away gives the old namespace an id for the new one (and the
// new one an id for the old, to name the peer); `ip netns set` gives one
// by request, and a namespace that already has an id for a peer refuses
// another, with the kernel's extack.
func ExampleHandle_SetNetnsID() {
	k := rtnl.MustNewKernel(rtnl.After)
	t := k.World().NewTask("ip")
	h := k.InitNet().Handle(t)
	ctr, _ := k.NewNet(t, "ctr")
	web, _ := k.NewNet(t, "web")

	_ = h.LinkAdd(netdev.Veth{Name: "veth0", Peer: "eth0"})
	_ = h.LinkSetNs("eth0", ctr)
	veth0, _ := h.LinkByName("veth0")
	fmt.Printf("veth0's peer is in the namespace init_net calls %d\n", veth0.LinkNetnsID)

	fmt.Println(h.SetNetnsID(web, 5))
	id, _ := h.NetnsID(web)
	fmt.Println("web:", id)
	err := h.SetNetnsID(web, 6)
	fmt.Println(errors.Is(err, syscall.EEXIST), err)
	// Output:
	// veth0's peer is in the namespace init_net calls 0
	// <nil>
	// web: 5
	// true file exists: Peer netns already has a nsid assigned
}
