// Route metrics: the RTAX_* values a route carries for the transport
// protocols (path MTU, initial windows, RTT estimates, congestion control),
// as ip_metrics_convert (net/ipv4/metrics.c) validates and stores them in a
// fib_info, fib_metrics_match (net/ipv4/fib_semantics.c) compares them with
// a delete request and rtnetlink_put_metrics (net/core/rtnetlink.c) dumps
// them.

package fib

import "github.com/netsimlab/netsim/rt"

// Metric is the index of a route metric (enum RTAX_*, the constants
// rt.Metric*). The zero Metric is RTAX_UNSPEC, which names no metric. The
// kernel caps MTU at 65520, AdvMSS at 65495 and HopLimit at 255.
type Metric = rt.Metric

// FeatureECN is RTAX_FEATURE_ECN, the one feature bit a request may set
// (RTAX_FEATURE_MASK; the others are refused).
const FeatureECN uint32 = 1 << 0

// featureECNCA is DST_FEATURE_ECN_CA: set by the kernel, never dumped, when
// the congestion control needs ECN.
const featureECNCA uint32 = 1 << 31

// CongestionControls are the TCP congestion control algorithms a route may
// name (congctl): those of the reference kernel
// (net.ipv4.tcp_available_congestion_control: reno, cubic and bbr built
// in). None of them needs ECN, so none sets DST_FEATURE_ECN_CA.
var CongestionControls = []string{"reno", "bbr", "cubic"}

func congestionControlKnown(name string) bool {
	for _, n := range CongestionControls {
		if n == name {
			return true
		}
	}
	return false
}

// Metrics are a route's metrics (the RTA_METRICS nest): a comparable value.
// The zero Metrics has no metric set, which is what a route without
// RTA_METRICS has (dst_default_metrics).
//
// Values are in the kernel's units: RTT in 1/8 ms and RTTVar in 1/4 ms
// (ip multiplies its milliseconds by 8 and 4), RTOMin in ms. A zero value
// is an unset metric, except for Del (see Given).
type Metrics struct {
	// Values by Metric; Values[0], Values[rt.MetricLock] and
	// Values[rt.MetricCongCtl] are unused.
	Values [rt.MetricMax + 1]uint32
	// Lock is RTAX_LOCK: bit 1<<m locks metric m (ip's "lock").
	Lock uint32
	// CongCtl is RTAX_CC_ALGO, the congestion control's name; "" for none.
	CongCtl string
	// Given marks, in a delete request, metrics whose zero value is to be
	// compared (bit 1<<m, rt.MetricLock for Lock): `ip route del ... mtu 0`
	// matches only a route without an MTU. Nonzero values are always
	// compared. Adds and dumps ignore it.
	Given uint32
}

// IsZero reports whether no metric is set.
func (m Metrics) IsZero() bool { return m.zero() }

// zero is IsZero without copying m: a request's metrics are tested on
// every route add.
func (m *Metrics) zero() bool {
	if m.Lock != 0 || m.Given != 0 || m.CongCtl != "" {
		return false
	}
	return m.Values == [rt.MetricMax + 1]uint32{}
}

// Set sets metric k to v (and marks it Given).
func (m *Metrics) Set(k Metric, v uint32) {
	if k == rt.MetricLock {
		m.Lock = v
	} else if k <= rt.MetricMax {
		m.Values[k] = v
	}
	m.Given |= 1 << k
}

// ConvertMetrics is the stored form of a request's metrics, as
// ip_fib_metrics_init makes it for IPv4 and IPv6 routes alike: nil for none,
// MTU, AdvMSS and HopLimit capped, the kernel's EINVAL for an unknown
// congestion control or feature bit.
//
// Kernel: ip_fib_metrics_init, ip_metrics_convert (net/ipv4/metrics.c).
func ConvertMetrics(req *Metrics) (*Metrics, error) {
	if req == nil {
		return nil, nil
	}
	m := *req
	m.Given = 0
	if m.IsZero() {
		return nil, nil
	}
	// The attributes go in ip's order; all errors are EINVAL, so the
	// first one the kernel meets gives the message.
	for k := rt.MetricMTU; k <= rt.MetricMax; k++ {
		v := m.Values[k]
		switch k {
		case rt.MetricAdvMSS:
			v = min(v, 65535-40)
		case rt.MetricMTU:
			v = min(v, 65535-15)
		case rt.MetricHopLimit:
			v = min(v, 255)
		case rt.MetricFeatures:
			if v&^FeatureECN != 0 {
				return nil, einval("Unknown flag set in feature mask in metrics attribute")
			}
		case rt.MetricCongCtl:
			v = 0
			if m.CongCtl != "" && !congestionControlKnown(m.CongCtl) {
				return nil, einval("Unknown tcp congestion algorithm")
			}
		}
		m.Values[k] = v
	}
	return &m, nil
}

// metricsEqual is fib_find_info's comparison of two fib_infos' metrics.
func metricsEqual(a, b *Metrics) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// metricsMatch is fib_metrics_match: does every metric a delete request
// carries equal fi's. An unknown congestion control matches a route with
// none (its key is TCP_CA_UNSPEC, 0).
//
// Kernel: fib_metrics_match (net/ipv4/fib_semantics.c).
func metricsMatch(req *Metrics, fi *Metrics) bool {
	if req == nil {
		return true
	}
	var have Metrics
	if fi != nil {
		have = *fi
	}
	if (req.Lock != 0 || req.Given&(1<<rt.MetricLock) != 0) && req.Lock != have.Lock {
		return false
	}
	for k := rt.MetricMTU; k <= rt.MetricMax; k++ {
		if k == rt.MetricCongCtl {
			continue
		}
		if (req.Values[k] != 0 || req.Given&(1<<k) != 0) && req.Values[k] != have.Values[k] {
			return false
		}
	}
	if req.CongCtl != "" || req.Given&(1<<rt.MetricCongCtl) != 0 {
		want := req.CongCtl
		if !congestionControlKnown(want) {
			want = ""
		}
		if want != have.CongCtl {
			return false
		}
	}
	return true
}
