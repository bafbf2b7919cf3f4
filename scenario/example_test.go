package scenario_test

import (
	"fmt"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
)

// Seed 000 at 1/256 scale: taking the device of 256 nexthops down flushes
// the FIB for every nexthop removed before the patch and twice in all
// after it, and the leaves visited fall from about N·R to N+R.
func ExampleSeed000() {
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		r, err := scenario.Seed000(cfg, scenario.Seed000Params{Nexthops: 256})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-6s fib_flush %3d times, %5d leaves visited, RTNL held %v\n", cfg, r.Flushes, r.LeafVisits, r.Hold)
	}
	// Output:
	// before fib_flush 257 times, 67077 leaves visited, RTNL held 698.955µs
	// after  fib_flush   2 times,   267 leaves visited, RTNL held 416.125µs
}

// Seed 002 with 4 interfaces: every deletion waits in
// netdev_wait_allrefs, 250 ms a poll before the patch, 16 ms after.
func ExampleSeed002() {
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After} {
		r, err := scenario.Seed002(cfg, scenario.Seed002Params{Interfaces: 4})
		if err != nil {
			fmt.Println(err)
			return
		}
		del, _ := r.Phase("delete")
		fmt.Printf("%-6s delete 4 interfaces: %v\n", cfg, del.Virtual)
	}
	// Output:
	// before delete 4 interfaces: 1.13327918s
	// after  delete 4 interfaces: 197.27918ms
}

// GrowthExponent fits y = c·x^e: seed 003's makespan grows linearly with
// the namespaces before the series (e ≈ 1) and stays flat after (e ≈ 0).
func ExampleGrowthExponent() {
	ks := []float64{256, 512, 1024, 2048}
	linear := []float64{1.4, 2.8, 5.6, 11.2}
	flat := []float64{0.9, 0.9, 0.9, 0.9}
	e1, _ := scenario.GrowthExponent(ks, linear)
	e0, _ := scenario.GrowthExponent(ks, flat)
	fmt.Printf("linear: K^%.2f, flat: K^%.2f\n", e1, e0)
	_, err := scenario.GrowthExponent(ks[:1], linear[:1])
	fmt.Println(err)
	// Output:
	// linear: K^1.00, flat: K^0.00
	// growth exponent: need two or more (x, y) points, have 1 and 1
}
