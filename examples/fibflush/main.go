// Fibflush shows seed 000, "ipv4: nexthop: Defer FIB flush when removing
// many nexthops" in a simulated kernel.
//
// Thousands of nexthop objects use one device, each by one /32 route. When
// the device goes down, every nexthop on it is removed. Before the patch,
// removing a nexthop that routes use flushed the FIB at once: a walk of the
// whole trie per nexthop, so N nexthops cost N walks over N routes —
// quadratic, and all of it under RTNL, which every other network
// configuration request (here a DHCP client renewing its lease every
// second) waits for. The patch marks the routes dead and flushes once,
// after the last nexthop: linear.
//
//	go run ./examples/fibflush
package main

import (
	"fmt"
	"log"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

func main() {
	took := map[string][]float64{}
	for _, n := range []int{4096, 16384} {
		for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
			r, err := scenario.Seed000(cfg, scenario.Seed000Params{Nexthops: n})
			if err != nil {
				log.Fatal(err)
			}
			p, _ := r.Phase("link down")
			fmt.Printf("%5d nexthops, %-6s `ip link set testnh0 down`: %9.3fs virtual, %6d FIB flushes, %11d leaves visited, bystander waited %.3fs for RTNL\n",
				n, cfg, p.Virtual.Seconds(), p.Counters.Get(sim.NexthopFIBFlush), p.Counters.Get(sim.TrieLeafVisit), r.BystanderMax.Seconds())
			took[cfg.String()] = append(took[cfg.String()], p.Virtual.Seconds())
		}
	}
	fmt.Printf("Four times the nexthops: before took %.1f times as long (quadratic), after %.1f times (linear).\n",
		took["before"][1]/took["before"][0], took["after"][1]/took["after"][0])
}
