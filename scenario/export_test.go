package scenario

import "github.com/netsimlab/netsim/rtnl"

// SetAfterPhase makes every scenario call check after each of its phases
// (nil: none).
func SetAfterPhase(check func(*rtnl.Kernel) error) { afterPhase = check }

// SetSeed003Fine runs seed 003 on the fine scheduler (true) or the coarse
// one it uses (false).
func SetSeed003Fine(on bool) { seed003Fine = on }
