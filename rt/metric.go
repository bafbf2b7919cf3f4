// Route metrics (RTAX_*: include/uapi/linux/rtnetlink.h) and their names
// as iproute2 prints them (mx_names: ip/iproute.c).

package rt

import "strconv"

// Metric is the index of a route metric (enum RTAX_*, the attributes of
// RTA_METRICS). The zero Metric is RTAX_UNSPEC, which names no metric.
type Metric uint8

// The route metrics.
const (
	MetricLock             Metric = 1                      // RTAX_LOCK: the bit mask of locked metrics
	MetricMTU              Metric = 2                      // RTAX_MTU: path MTU
	MetricWindow           Metric = 3                      // RTAX_WINDOW: TCP window clamp
	MetricRTT              Metric = 4                      // RTAX_RTT: initial RTT in 1/8 ms
	MetricRTTVar           Metric = 5                      // RTAX_RTTVAR: initial RTT variance in 1/4 ms
	MetricSSThresh         Metric = 6                      // RTAX_SSTHRESH: initial slow start threshold
	MetricCwnd             Metric = 7                      // RTAX_CWND: congestion window clamp
	MetricAdvMSS           Metric = 8                      // RTAX_ADVMSS: advertised MSS
	MetricReordering       Metric = 9                      // RTAX_REORDERING: initial reordering degree
	MetricHopLimit         Metric = 10                     // RTAX_HOPLIMIT: TTL
	MetricInitCwnd         Metric = 11                     // RTAX_INITCWND: initial congestion window
	MetricFeatures         Metric = 12                     // RTAX_FEATURES: RTAX_FEATURE_* bits
	MetricRTOMin           Metric = 13                     // RTAX_RTO_MIN: minimum retransmission timeout in ms
	MetricInitRwnd         Metric = 14                     // RTAX_INITRWND: initial receive window
	MetricQuickAck         Metric = 15                     // RTAX_QUICKACK: 1 disables delayed ACKs
	MetricCongCtl          Metric = 16                     // RTAX_CC_ALGO: congestion control, by name
	MetricFastOpenNoCookie Metric = 17                     // RTAX_FASTOPEN_NO_COOKIE: TCP Fast Open without cookie
	MetricMax                     = MetricFastOpenNoCookie // RTAX_MAX
)

// metricNames are iproute2's mx_names (ip/iproute.c), by Metric.
var metricNames = [MetricMax + 1]string{
	MetricMTU: "mtu", MetricWindow: "window", MetricRTT: "rtt", MetricRTTVar: "rttvar",
	MetricSSThresh: "ssthresh", MetricCwnd: "cwnd", MetricAdvMSS: "advmss",
	MetricReordering: "reordering", MetricHopLimit: "hoplimit", MetricInitCwnd: "initcwnd",
	MetricFeatures: "features", MetricRTOMin: "rto_min", MetricInitRwnd: "initrwnd",
	MetricQuickAck: "quickack", MetricCongCtl: "congctl", MetricFastOpenNoCookie: "fastopen_no_cookie",
}

// String returns the metric's name in iproute2's mx_names ("mtu",
// "rto_min", ...), which print_rta_metrics prints and uses as the JSON
// key, or "metric N" for one without a name.
func (m Metric) String() string {
	if m <= MetricMax && metricNames[m] != "" {
		return metricNames[m]
	}
	return "metric " + strconv.Itoa(int(m))
}
