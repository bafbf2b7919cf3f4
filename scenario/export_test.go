package scenario

import "github.com/netsimlab/netsim/rtnl"

// SetAfterPhase makes every scenario call check after each of its phases
// (nil: none).
func SetAfterPhase(check func(*rtnl.Kernel) error) { afterPhase = check }
