package rtnl_test

import (
	"fmt"
	"net/netip"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// TestRouteGetMetrics checks that the route ip route get builds carries
// the metrics of the FIB entry it came from (rt_set_nexthop), and a route
// without an entry none.
func TestRouteGetMetrics(t *testing.T) {
	r := routeRig(t, rtnl.After)
	var m fib.Metrics
	m.Set(rt.MetricMTU, 1400)
	m.Set(rt.MetricLock, 1<<rt.MetricMTU)
	m.CongCtl = "reno"
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.0.0/8"), Gateway: netip.MustParseAddr("198.51.100.2"), Metrics: m}))
	got, err := r.h.RouteGet(netip.MustParseAddr("10.1.2.3"))
	require.NoError(t, err)
	assert.Equal(t, uint32(1400), got.Metrics.Values[rt.MetricMTU])
	assert.Equal(t, uint32(1<<rt.MetricMTU), got.Metrics.Lock)
	assert.Equal(t, "reno", got.Metrics.CongCtl)

	l, err := r.h.RouteList(rt.FamilyInet, fib.TableMain)
	require.NoError(t, err)
	require.Contains(t, routeTexts(l), "10.0.0.0/8 via 198.51.100.2 dev eth0 mtu lock 1400 congctl reno")

	got, err = r.h.GetRoute(rtnl.RouteGetRequest{Dst: netip.MustParseAddr("255.255.255.255"), OIF: "eth0"})
	require.NoError(t, err)
	assert.True(t, got.Metrics.IsZero(), "a limited broadcast has no FIB entry")

	var bad fib.Metrics
	bad.CongCtl = "vegas"
	err = r.h.RouteAdd(rtnl.Route{Dst: pfx("10.9.0.0/16"), Dev: "eth0", Metrics: bad})
	require.ErrorIs(t, err, syscall.EINVAL)
	assert.Equal(t, "Unknown tcp congestion algorithm", err.(*errno.Error).Msg)
}

func routeTexts(l []rtnl.RouteInfo) []string {
	var out []string
	for _, ri := range l {
		out = append(out, routeLine(ri))
	}
	return out
}

// TestRouteGetFIBMatch checks RTM_F_FIB_MATCH: the matched entry, whole
// (all paths), with the built route's type; EHOSTUNREACH without an entry;
// EMSGSIZE for an entry longer than the reply's page.
func TestRouteGetFIBMatch(t *testing.T) {
	r := routeRig(t, rtnl.After)
	gw := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{198, 51, 100, byte(2 + i%250)}) }
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.0.0/8"), Multipath: []rtnl.RoutePath{{Gateway: gw(0)}, {Gateway: gw(1), Weight: 3}}}))
	got, err := r.h.GetRoute(rtnl.RouteGetRequest{Dst: netip.MustParseAddr("10.1.2.3"), FIBMatch: true})
	require.NoError(t, err)
	require.NotNil(t, got.Entry)
	assert.Equal(t, pfx("10.0.0.0/8"), got.Entry.Dst)
	assert.Equal(t, []rtnl.RoutePath{
		{Gateway: netip.MustParseAddr("198.51.100.2"), Dev: "eth0", DevIndex: 3, Weight: 1},
		{Gateway: netip.MustParseAddr("198.51.100.3"), Dev: "eth0", DevIndex: 3, Weight: 3},
	}, got.Entry.Multipath)

	got, err = r.h.GetRoute(rtnl.RouteGetRequest{Dst: netip.MustParseAddr("198.51.100.1"), FIBMatch: true})
	require.NoError(t, err)
	assert.Equal(t, fib.TypeLocal, got.Entry.Type)
	// Without rules local is merged into main, the table the lookup
	// reports (res.table), and the answer names no table.
	assert.Equal(t, fib.TableMain, got.Entry.Table)

	// An output device without a route: no entry.
	_, err = r.h.GetRoute(rtnl.RouteGetRequest{Dst: netip.MustParseAddr("192.0.2.1"), OIF: "eth0", FIBMatch: true})
	require.ErrorIs(t, err, syscall.EHOSTUNREACH)
	_, err = r.h.GetRoute(rtnl.RouteGetRequest{Dst: netip.MustParseAddr("192.0.2.1"), FIBMatch: true})
	require.ErrorIs(t, err, syscall.ENETUNREACH)

	// 233 paths with gateways fill the reply's 3776 bytes; 234 do not.
	for _, n := range []int{233, 234} {
		var mp []rtnl.RoutePath
		for i := range n {
			mp = append(mp, rtnl.RoutePath{Gateway: gw(i)})
		}
		dst := pfx(fmt.Sprintf("10.%d.0.0/16", n-200))
		r.ok(r.h.RouteAdd(rtnl.Route{Dst: dst, Multipath: mp}))
		got, err = r.h.GetRoute(rtnl.RouteGetRequest{Dst: dst.Addr().Next(), FIBMatch: true})
		if n == 233 {
			require.NoError(t, err)
			assert.Equal(t, 3776, got.Entry.Size)
		} else {
			require.ErrorIs(t, err, syscall.EMSGSIZE)
		}
	}
}

// TestMultipathTooLong checks the Go API's limit: paths beyond what
// RTA_MULTIPATH's 16-bit length can carry are refused with EMSGSIZE, and
// nothing changes.
func TestMultipathTooLong(t *testing.T) {
	r := routeRig(t, rtnl.After)
	paths := func(n int) []rtnl.RoutePath {
		mp := make([]rtnl.RoutePath, n)
		for i := range mp {
			mp[i] = rtnl.RoutePath{Gateway: netip.AddrFrom4([4]byte{198, 51, 100, byte(2 + i%250)})}
		}
		return mp
	}
	before := r.routes()
	require.ErrorIs(t, r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.0.0/8"), Multipath: paths(4096)}), syscall.EMSGSIZE)
	require.Equal(t, before, r.routes())
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.0.0/8"), Multipath: paths(4095)}))
	l, err := r.h.RouteList(rt.FamilyInet, fib.TableMain)
	require.NoError(t, err)
	for _, ri := range l {
		if ri.Dst == pfx("10.0.0.0/8") {
			assert.Len(t, ri.Multipath, 4095)
		}
	}
}
