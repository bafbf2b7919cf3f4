package rtnl_test

import (
	"fmt"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

// A multipath IPv6 route with two paths through one device, refused on its
// first path's insertion (a route of its metric is there: EEXIST), keeps no
// reference to the device: the path never inserted is released with the
// others (ip6_route_multipath_add's cleanup), the device's references are
// its IP state's again, and unregistering it finishes. Linux 6.18:
//
//	ip -6 route add 2001:db8:1:2::5/128 dev va0
//	ip -6 route add 2001:db8:1:2::5/128 nexthop via fe80::2 dev vb0 nexthop via fe80::1 dev vb0 weight 2
//	RTNETLINK answers: File exists
//	ip link del vb0        (returns at once)
func TestMultipath6RefusedOnOneDeviceReleasesIt(t *testing.T) {
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After, withCountedWalks(rtnl.Before), withCountedWalks(rtnl.After)} {
		t.Run(fmt.Sprintf("%v,counted=%v", cfg, cfg.CountedWalks), func(t *testing.T) {
			r := newRig(t, cfg)
			r.ok(r.h.LinkAdd(netdev.Veth{Name: "va0", Peer: "vb0"}))
			r.up("lo", "va0", "vb0")
			r.settle()
			vb0 := r.dev("vb0")
			before := vb0.RefCount()
			dst := netip.MustParsePrefix("2001:db8:1:2::5/128")
			r.ok(r.h.RouteAdd(rtnl.Route{Dst: dst, Dev: "va0"}))
			err := r.h.RouteAdd(rtnl.Route{Dst: dst, Multipath: []rtnl.RoutePath{
				{Gateway: netip.MustParseAddr("fe80::2"), Dev: "vb0"},
				{Gateway: netip.MustParseAddr("fe80::1"), Dev: "vb0", Weight: 2},
			}})
			var en *errno.Error
			require.ErrorAs(t, err, &en)
			require.Equal(t, syscall.EEXIST, en.Errno)
			r.settle()
			require.Equal(t, before, vb0.RefCount(), "the refused paths hold no reference to vb0")
			require.NoError(t, r.k.CheckInvariants())

			// LinkDel must return: with a leaked reference it would wait in
			// netdev_wait_allrefs (bounded by the rig's RefWaitLimit; the
			// wall-clock guard is for a limit that does not work).
			done := make(chan error, 1)
			go func() {
				defer func() {
					if p := recover(); p != nil {
						done <- fmt.Errorf("panic: %v", p)
					}
				}()
				done <- r.h.LinkDel("vb0")
			}()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(30 * time.Second):
				t.Fatal("LinkDel vb0 did not return: a leaked device reference")
			}
			r.settle()
			require.NoError(t, netdev.CheckReleased(vb0))
			require.NoError(t, r.k.CheckInvariants())
		})
	}
}

func withCountedWalks(c rtnl.Config) rtnl.Config {
	c.CountedWalks = true
	return c
}
