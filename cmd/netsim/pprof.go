// Virtual-time profiles: the -pprof file of seeds, ip, batch, build and
// sweep, written with package sim/vtprof.

package main

import (
	"fmt"
	"os"

	"github.com/netsimlab/netsim/sim"
	"github.com/netsimlab/netsim/sim/vtprof"
)

// writePprof writes p's profile to path.
func writePprof(path string, p *sim.Profiler) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	err = vtprof.Write(f, p)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	return nil
}
