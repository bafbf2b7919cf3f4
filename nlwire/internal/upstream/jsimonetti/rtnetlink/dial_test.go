//go:build linux

// What jsimonetti/rtnetlink's root-package live tests call instead of
// rtnetlink.Dial when they run on netsim.

package rtnetlink

import (
	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire/internal/upstream/jsimonetti/testutils"
)

// dial stands in for rtnetlink.Dial in upstream's live tests: a
// connection to the simulated machine, in the namespace of config.NetNS
// if set.
func dial(config *netlink.Config) (*rtnetlink.Conn, error) {
	return testutils.Dial(config)
}
