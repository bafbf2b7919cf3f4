// Bulkdelete shows seed 004, "rtnetlink: Support fine-grained netdevice
// bulk deletion", in a simulated kernel.
//
// Deleting devices one request at a time pays, per device, an RCU barrier
// and two walks of the namespace's IPv6 routes while holding RTNL; several
// deleting processes queue on RTNL. Deleting a group in one request
// batches the barrier. The patch lets one request name any devices by
// ifindex (IFLA_IFINDEX_LIST), with the cost of group deletion.
//
//	go run ./examples/bulkdelete
package main

import (
	"fmt"
	"log"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

func main() {
	runs := []struct {
		cfg rtnl.Config
		p   scenario.Seed004Params
	}{
		{rtnl.Before, scenario.Seed004Params{Devices: 2000, Threads: 1}},
		{rtnl.Before, scenario.Seed004Params{Devices: 2000, Threads: 10}},
		{rtnl.Before, scenario.Seed004Params{Devices: 2000, Method: scenario.ByGroup}},
		{rtnl.After, scenario.Seed004Params{Devices: 2000, Method: scenario.ByList}},
	}
	for _, run := range runs {
		r, err := scenario.Seed004(run.cfg, run.p)
		if err != nil {
			log.Fatal(err)
		}
		p := r.Phases[len(r.Phases)-1]
		fmt.Printf("%-6s 2000 devices, %-14s %7.3fs virtual, %5d rcu_barriers\n",
			run.cfg, p.Name+":", p.Virtual.Seconds(), p.Counters.Get(sim.RCUBarrier))
	}
}
