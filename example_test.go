package netsim_test

import (
	"fmt"
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// Deleting an IPv6-forwarding dummy device waits in netdev_wait_allrefs for
// its anycast route's chained RCU release: one msleep(250) before seed 002's
// patch; after it msleep(16), then msleep(32), until the release (here its
// grace period, drawn on the development VM's 4 ms tick, outlasts the first).
func Example() {
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		k := rtnl.MustNewKernel(cfg)
		t := k.World().NewTask("ip")
		h := k.InitNet().Handle(t)
		_ = h.Sysctl("net.ipv6.conf.default.forwarding", "1")
		_ = h.LinkAdd(netdev.Dummy{Name: "eth0"})
		_ = h.LinkSetUp("eth0")
		_ = h.AddrAdd("eth0", netip.MustParsePrefix("2021::1/120"))
		k.Settle(t)
		start, before := t.Now(), t.Counters()
		_ = h.LinkDel("eth0")
		work := t.Counters().Sub(before)
		fmt.Println(cfg, t.Now().Sub(start), work.Get(sim.Sleep), "sleep")
	}
	k := rtnl.MustNewKernel(rtnl.After)
	err := k.InitNet().Handle(k.World().NewTask("ip")).LinkDel("lo")
	fmt.Println(err)
	// Output:
	// before 267.1ms 1 sleep
	// after 66.1ms 2 sleep
	// operation not supported: Device "lo" cannot be deleted
}
