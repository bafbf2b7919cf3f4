// Rulelock shows seed 003, "net: fib_rules: RTNL-less RTM_NEWRULE and
// RTM_DELRULE", in a simulated kernel.
//
// Many network namespaces, each filled with policy routing rules by its
// own process, all at once on a many-CPU machine. Every rule add held
// RTNL — one mutex for the whole machine — though it only touches its
// own namespace's rule list: the adds ran one at a time, and the waiting
// CPUs spun on the mutex. The series gives each namespace's rules their
// own lock and takes RTNL only for a namespace's first IPv4 rule, which
// splits the local and main FIB tables: namespaces no longer wait for
// each other.
//
//	go run ./examples/rulelock
package main

import (
	"fmt"
	"log"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
)

func main() {
	for _, k := range []int{64, 256} {
		for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
			r, err := scenario.Seed003(cfg, scenario.Seed003Params{Netns: k, Rules: 256, Start: scenario.AllAtOnce})
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%3d namespaces × 256 rules, %-6s %6.3fs virtual, RTNL taken %6d times, %3.0f%% of the CPU time spent spinning on it\n",
				k, cfg, r.Makespan.Seconds(), r.RTNLAcquires, 100*r.RTNL.SpinCPU.Seconds()/(r.Sys+r.User).Seconds())
		}
	}
	fmt.Println("Before: four times the namespaces, four times as long; after: as long (the machine has 256 CPUs).")
}
