// The machine profile a validation predicts for.

package validate

import (
	"github.com/netsimlab/netsim/machine"
	"github.com/netsimlab/netsim/sim"
)

// LoadCosts returns the costs of machine profile name: a shipped profile's
// name ("devvm", the development VM) or a profile file.
func LoadCosts(name string) (sim.Costs, error) {
	p, err := machine.Load(name)
	if err != nil {
		return sim.Costs{}, err
	}
	return p.Costs, nil
}

// MustCosts is LoadCosts for a profile that must exist.
func MustCosts(name string) sim.Costs {
	c, err := LoadCosts(name)
	if err != nil {
		panic(err)
	}
	return c
}
