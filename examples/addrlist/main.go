// Addrlist shows seed 001, "net-next: Improve perf of bond/vlans
// modification", in a simulated kernel.
//
// A bond with many VLANs on it: every VLAN's IPv6 multicast addresses are
// synced into the bond's (and its slave's) hardware address lists. Those
// lists were plain linked lists, searched linearly on every add and on
// every resync, so with M VLANs giving each an address walks lists of
// length ~M, M times: quadratic. The patch indexes the lists with a
// red-black tree (hwaddr.TreeIndexed): each search is logarithmic.
//
//	go run ./examples/addrlist
package main

import (
	"fmt"
	"log"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

func main() {
	compares := map[string][]int64{}
	for _, vlans := range []int{750, 1500} {
		for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
			r, err := scenario.Seed001(cfg, scenario.Seed001Params{VLANs: vlans, Phases: 3})
			if err != nil {
				log.Fatal(err)
			}
			p, _ := r.Phase("assign addresses")
			fmt.Printf("%4d VLANs, %-6s assigning an IPv6 address to each: %7.3fs virtual, %10d address-list compares\n",
				vlans, cfg, p.Virtual.Seconds(), p.Counters.Get(sim.HWAddrCompare))
			compares[cfg.String()] = append(compares[cfg.String()], p.Counters.Get(sim.HWAddrCompare))
		}
	}
	fmt.Printf("Twice the VLANs: before compares %.1f times as many list entries (longer lists, searched more often), after %.1f times.\n",
		float64(compares["before"][1])/float64(compares["before"][0]), float64(compares["after"][1])/float64(compares["after"][0]))
}
