// Quickstart deletes one IPv6-forwarding dummy device in a simulated kernel
// before and after seed 002's patch ("net: use exponential backoff in
// netdev_wait_allrefs") and prints how long `ip link del` took in virtual
// time and how many times netdev_wait_allrefs slept.
package main

import (
	"fmt"
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

func main() {
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		k := rtnl.MustNewKernel(cfg) // a simulated kernel, pre- or post-patch
		t := k.World().NewTask("ip") // the process doing the work, with its own virtual clock
		h := k.InitNet().Handle(t)   // like vishvananda/netlink's Handle
		check(h.Sysctl("net.ipv6.conf.default.forwarding", "1"))
		check(h.LinkAdd(netdev.Dummy{Name: "eth0"}))
		check(h.LinkSetUp("eth0"))
		check(h.AddrAdd("eth0", netip.MustParsePrefix("2021::1/120")))
		k.Settle(t) // let duplicate address detection finish
		start, before := t.Now(), t.Counters()
		check(h.LinkDel("eth0")) // waits for the anycast route's chained RCU release
		work := t.Counters().Sub(before)
		fmt.Printf("%-6s ip link del: %v virtual, %d rcu_barrier, %d msleep\n",
			cfg, t.Now().Sub(start), work.Get(sim.RCUBarrier), work.Get(sim.Sleep))
	}
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
