package fib

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
)

func mtu(v uint32) Metrics {
	var m Metrics
	m.Set(rt.MetricMTU, v)
	return m
}

// TestMetricsConvert checks ip_metrics_convert's caps and refusals, and
// that a refused request changes nothing.
func TestMetricsConvert(t *testing.T) {
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	gw := netip.MustParseAddr("198.51.100.2")
	add := func(dst string, m Metrics) error {
		return e.do(func() error {
			return e.f.Add(e.t, Route{Dst: netip.MustParsePrefix(dst), Gateway: gw, Metrics: m}, rt.ModeAdd)
		})
	}
	var big Metrics
	big.Set(rt.MetricMTU, 100000)
	big.Set(rt.MetricAdvMSS, 70000)
	big.Set(rt.MetricHopLimit, 1000)
	require.NoError(t, add("10.1.0.0/16", big))
	var got Metrics
	for _, r := range e.f.Routes(TableMain) {
		if r.Dst.String() == "10.1.0.0/16" {
			got = r.Metrics
		}
	}
	assert.Equal(t, uint32(65520), got.Values[rt.MetricMTU])
	assert.Equal(t, uint32(65495), got.Values[rt.MetricAdvMSS])
	assert.Equal(t, uint32(255), got.Values[rt.MetricHopLimit])
	assert.Zero(t, got.Given, "a dump marks nothing as given")

	before := e.show()
	infos := e.f.InfoCount()
	for _, c := range []struct {
		name string
		m    Metrics
		msg  string
	}{
		{"unknown feature bit", Metrics{Values: [rt.MetricMax + 1]uint32{rt.MetricFeatures: 2}}, "Unknown flag set in feature mask in metrics attribute"},
		{"unknown congestion control", Metrics{CongCtl: "vegas"}, "Unknown tcp congestion algorithm"},
	} {
		err := add("10.2.0.0/16", c.m)
		require.ErrorIs(t, err, syscall.EINVAL, c.name)
		assert.Equal(t, c.msg, err.(*errno.Error).Msg, c.name)
	}
	assert.Equal(t, before, e.show())
	assert.Equal(t, infos, e.f.InfoCount())
	require.NoError(t, e.f.check())
}

// TestMetricsIdentity checks that metrics are part of a fib_info: routes
// that differ only in metrics do not share one, and append refuses only a
// route identical in metrics too; except that a route on a nexthop object
// without metrics takes any fib_info of that object (fib_find_info_nh does
// not compare metrics).
func TestMetricsIdentity(t *testing.T) {
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	e.mustIP("nexthop add id 1 via 198.51.100.2 dev vethA")
	gw := netip.MustParseAddr("198.51.100.2")
	dst := netip.MustParsePrefix("10.9.0.0/16")
	add := func(r Route, mode rt.NLMFlags) error {
		return e.do(func() error { return e.f.Add(e.t, r, mode) })
	}
	n := e.f.InfoCount()
	require.NoError(t, add(Route{Dst: dst, Gateway: gw, Metrics: mtu(1400)}, rt.ModeAdd))
	require.ErrorIs(t, add(Route{Dst: dst, Gateway: gw, Metrics: mtu(1400)}, rt.ModeAppend), syscall.EEXIST)
	require.NoError(t, add(Route{Dst: dst, Gateway: gw, Metrics: mtu(1300)}, rt.ModeAppend))
	require.NoError(t, add(Route{Dst: dst, Gateway: gw}, rt.ModeAppend))
	assert.Equal(t, n+3, e.f.InfoCount(), "one fib_info per set of metrics")
	require.NoError(t, add(Route{Dst: netip.MustParsePrefix("10.10.0.0/16"), Gateway: gw, Metrics: mtu(1300)}, rt.ModeAdd))
	assert.Equal(t, n+3, e.f.InfoCount(), "equal metrics share the fib_info")

	p := func(s string) netip.Prefix { return netip.MustParsePrefix(s) }
	require.NoError(t, add(Route{Dst: p("10.11.0.0/16"), NexthopID: 1, Metrics: mtu(1400)}, rt.ModeAdd))
	require.NoError(t, add(Route{Dst: p("10.12.0.0/16"), NexthopID: 1}, rt.ModeAdd))
	require.NoError(t, add(Route{Dst: p("10.13.0.0/16"), NexthopID: 1, Metrics: mtu(1300)}, rt.ModeAdd))
	want := map[string]uint32{"10.11.0.0/16": 1400, "10.12.0.0/16": 1400, "10.13.0.0/16": 1300}
	for _, r := range e.f.Routes(TableMain) {
		if w, ok := want[r.Dst.String()]; ok {
			assert.Equal(t, w, r.Metrics.Values[rt.MetricMTU], r.Dst.String())
		}
	}
	require.NoError(t, e.f.check())
}

// TestMetricsDelete checks fib_metrics_match: a delete request's metrics
// must equal the route's as stored (after the caps), a given zero too, the
// lock mask when sent, and an unknown congestion control matches a route
// without one.
func TestMetricsDelete(t *testing.T) {
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	gw := netip.MustParseAddr("198.51.100.2")
	dst := netip.MustParsePrefix("10.9.0.0/16")
	add := func(m Metrics) {
		require.NoError(t, e.do(func() error { return e.f.Add(e.t, Route{Dst: dst, Gateway: gw, Metrics: m}, rt.ModeAdd) }))
	}
	del := func(m Metrics) error {
		return e.do(func() error { return e.f.Del(e.t, Route{Dst: dst, Metrics: m}) })
	}
	add(mtu(100000))
	require.ErrorIs(t, del(mtu(100000)), syscall.ESRCH)
	require.NoError(t, del(mtu(65520)))

	add(mtu(1400))
	require.ErrorIs(t, del(mtu(0)), syscall.ESRCH, "a given zero is compared")
	locked := mtu(1400)
	locked.Set(rt.MetricLock, 1<<rt.MetricMTU)
	require.ErrorIs(t, del(locked), syscall.ESRCH)
	require.NoError(t, del(Metrics{Values: [rt.MetricMax + 1]uint32{rt.MetricMTU: 1400}, CongCtl: "nosuch"}))

	add(Metrics{CongCtl: "cubic"})
	require.ErrorIs(t, del(Metrics{CongCtl: "reno"}), syscall.ESRCH)
	require.ErrorIs(t, del(Metrics{CongCtl: "nosuch"}), syscall.ESRCH)
	require.NoError(t, del(Metrics{CongCtl: "cubic"}))
	require.NoError(t, e.f.check())
}

// TestMetricsFormat checks print_rta_metrics' rendering: order, lock,
// units, features, a locked metric without value.
func TestMetricsFormat(t *testing.T) {
	var m Metrics
	m.Set(rt.MetricMTU, 1400)
	m.Set(rt.MetricRTT, 800)     // 100 ms
	m.Set(rt.MetricRTTVar, 6000) // 1.5 s
	m.Set(rt.MetricRTOMin, 200)  // ms
	m.Set(rt.MetricFeatures, FeatureECN)
	m.Set(rt.MetricHopLimit, 0)
	m.CongCtl = "bbr"
	m.Lock = 1<<rt.MetricRTOMin | 1<<rt.MetricCwnd
	assert.Equal(t, "mtu 1400 rtt 100ms rttvar 1.5s cwnd lock 0 features ecn rto_min lock 200ms congctl bbr ", metricsText(m))
	assert.Equal(t, "", metricsText(Metrics{}))
}
