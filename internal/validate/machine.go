// The machine profile a validation predicts for.

package validate

import (
	"fmt"

	"github.com/netsimlab/netsim/sim"
)

// LoadCosts returns the costs of the machine profile name: "devvm", the
// development VM, is sim.DefaultCosts.
func LoadCosts(name string) (sim.Costs, error) {
	if name == "devvm" {
		return sim.DefaultCosts, nil
	}
	return sim.Costs{}, fmt.Errorf("machine %q: unknown profile (known: devvm)", name)
}

// MustCosts is LoadCosts for a profile that must exist.
func MustCosts(name string) sim.Costs {
	c, err := LoadCosts(name)
	if err != nil {
		panic(err)
	}
	return c
}
