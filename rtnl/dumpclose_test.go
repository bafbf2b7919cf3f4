package rtnl_test

import (
	"fmt"
	"math"
	"net/netip"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// An IPv6 route dump keeps a walker registered in the FIB between its
// parts. Closing its Handle first, whether the dump is then closed or
// read on (which fails with EBADF), must not leave the walker behind, as
// the kernel's cb->done runs before a socket drops its namespace.
func TestRouteDumpAfterHandleClose(t *testing.T) {
	for _, then := range []string{"close", "next"} {
		t.Run(then, func(t *testing.T) {
			k := rtnl.MustNewKernel(rtnl.After)
			task := k.World().NewTask("ip")
			n := k.InitNet()
			h := n.Handle(task)
			for i := range 4 {
				p := netip.MustParsePrefix(fmt.Sprintf("2001:db8:%d::/64", i+1))
				require.NoError(t, h.RouteAdd(rtnl.Route{Dst: p, Type: fib.TypeBlackhole}))
			}
			d, err := h.DumpRoutes(rtnl.RouteDumpRequest{Family: rt.FamilyInet6})
			require.NoError(t, err)
			seen := 0
			done, err := d.Next(math.MaxInt, func(*rtnl.RouteInfo) bool {
				seen++
				return seen < 2
			})
			require.NoError(t, err)
			require.False(t, done)
			require.Equal(t, 1, n.FIB6().Walkers(), "the walker stays registered between parts")

			require.NoError(t, h.Close())
			if then == "next" {
				_, err = d.Next(math.MaxInt, func(*rtnl.RouteInfo) bool { return true })
				require.ErrorIs(t, err, syscall.EBADF)
			}
			d.Close()
			require.Zero(t, n.FIB6().Walkers())
		})
	}
}
