// Refwait shows seed 002, "net: use exponential backoff in
// netdev_wait_allrefs", in a simulated kernel.
//
// Deleting a device waits until every reference to it is gone. IPv6
// routes hold references that RCU callbacks release, and with forwarding
// on, a subnet-router anycast route releases its reference through a
// second, chained callback that the first rcu_barrier does not wait for.
// The waiter then slept: msleep(250) before looking again. The patch
// polls with exponential backoff from 1 ms, so the delete returns soon
// after the last reference goes: each delete still sleeps once, but for
// a few milliseconds instead of a quarter of a second.
//
//	go run ./examples/refwait
package main

import (
	"fmt"
	"log"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

func main() {
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		r, err := scenario.Seed002(cfg, scenario.Seed002Params{Interfaces: 20})
		if err != nil {
			log.Fatal(err)
		}
		p, _ := r.Phase("delete")
		fmt.Printf("%-6s deleting 20 IPv6-forwarding dummies one by one: %6.3fs virtual, %.0f ms a delete (%d sleeps in netdev_wait_allrefs)\n",
			cfg, p.Virtual.Seconds(), p.Virtual.Seconds()/20*1000, p.Counters.Get(sim.Sleep))
	}
}
