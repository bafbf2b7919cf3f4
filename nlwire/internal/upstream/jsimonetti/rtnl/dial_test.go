//go:build linux

// What jsimonetti/rtnetlink's rtnl live tests call instead of rtnl.Dial
// when they run on netsim, and the resolver they may not use.

package rtnl

import (
	"context"
	"errors"
	"net"

	"github.com/jsimonetti/rtnetlink/v2/rtnl"
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire/internal/upstream/jsimonetti/testutils"
)

// dial stands in for rtnl.Dial in upstream's live tests: a connection to
// the simulated machine, in the namespace of cfg.NetNS if set, wrapped as
// rtnl.Dial wraps its rtnetlink connection.
func dial(cfg *netlink.Config) (*rtnl.Conn, error) {
	conn, err := testutils.Dial(cfg)
	if err != nil {
		return nil, err
	}
	return &rtnl.Conn{Conn: conn}, nil
}

// TestLiveNeighbours looks a name up only for its side effect on a real
// kernel's neighbour table (the gateway's entry); netsim moves no packets,
// and the lookup must not leave this machine: the package's resolver
// fails at once, without sending a query.
func init() {
	net.DefaultResolver = &net.Resolver{
		PreferGo: true,
		Dial: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("no network: the tests run on a simulated machine")
		},
	}
}
