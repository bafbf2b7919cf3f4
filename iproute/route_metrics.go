// The metrics of `ip route add/change/replace/del`: iproute_modify's
// "mtu", "advmss", ... "fastopen_no_cookie" keywords, which it gathers in
// a 256-byte RTA_METRICS buffer (mxbuf) and sends as RTAX_* attributes.

package iproute

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/rt"
)

// metricKey is one metric keyword of iproute_modify.
type metricKey struct {
	name   string
	abbrev bool // matched as a prefix (iproute2's matches) rather than exactly
	lock   bool // takes "lock" before its value
	m      fib.Metric
	msg    string // invarg's message for a bad value
}

// routeMetricKeys are the metric keywords in the order iproute_modify tries
// them (which decides what an abbreviation means).
var routeMetricKeys = []metricKey{
	{"mtu", false, true, rt.MetricMTU, "\"mtu\" value is invalid\n"},
	{"hoplimit", false, true, rt.MetricHopLimit, "\"hoplimit\" value is invalid\n"},
	{"advmss", false, true, rt.MetricAdvMSS, "\"mss\" value is invalid\n"},
	{"reordering", true, true, rt.MetricReordering, "\"reordering\" value is invalid\n"},
	{"rtt", false, true, rt.MetricRTT, "\"rtt\" value is invalid\n"},
	{"rto_min", false, false, rt.MetricRTOMin, "\"rto_min\" value is invalid\n"},
	{"window", true, true, rt.MetricWindow, "\"window\" value is invalid\n"},
	{"cwnd", true, true, rt.MetricCwnd, "\"cwnd\" value is invalid\n"},
	{"initcwnd", true, true, rt.MetricInitCwnd, "\"initcwnd\" value is invalid\n"},
	{"initrwnd", true, true, rt.MetricInitRwnd, "\"initrwnd\" value is invalid\n"},
	{"features", true, false, rt.MetricFeatures, "\"features\" value not valid\n"},
	{"quickack", true, false, rt.MetricQuickAck, "\"quickack\" value is invalid\n"},
	{"congctl", true, true, rt.MetricCongCtl, ""},
	{"rttvar", true, true, rt.MetricRTTVar, "\"rttvar\" value is invalid\n"},
	{"ssthresh", true, true, rt.MetricSSThresh, "\"ssthresh\" value is invalid\n"},
	{"fastopen_no_cookie", true, false, rt.MetricFastOpenNoCookie, "\"fastopen_no_cookie\" value is invalid\n"},
}

// routeMetricKey returns the metric keyword w stands for, or nil.
func routeMetricKey(w string) *metricKey {
	for i := range routeMetricKeys {
		k := &routeMetricKeys[i]
		if w == k.name || k.abbrev && matches(w, k.name) {
			return k
		}
	}
	return nil
}

// mxBufSize is the size of iproute_modify's mxbuf: the RTA_METRICS
// attribute with its header. Its header takes 4 bytes, each number 8, a
// congestion control's name 4 plus its length rounded up to 4: 31 numbers
// fit, and ip drops (with a message) any attribute that does not.
const mxBufSize = 256

// mxBuf is iproute_modify's mxbuf: the metric attributes in the order
// given (the kernel applies them in order, the last of a kind wins), and
// the lock mask.
type mxBuf struct {
	n     int // rta_len
	attrs []mxAttr
	lock  uint32
}

type mxAttr struct {
	m   fib.Metric
	v   uint32
	alg string
}

// add is rta_addattr32 (or rta_addattr_l for the congestion control's
// name) into mxbuf: an attribute that does not fit is left out with
// iproute2's message.
func (ip *IP) mxAdd(b *mxBuf, at mxAttr) {
	if b.n == 0 {
		b.n = 4
	}
	size, fn := 8, "rta_addattr32"
	if at.m == rt.MetricCongCtl {
		size, fn = (4+len(at.alg)+3)&^3, "rta_addattr_l"
	}
	if b.n+size > mxBufSize {
		fmt.Fprintf(ip.Stderr, "%s: Error! max allowed bound %d exceeded\n", fn, mxBufSize)
		return
	}
	b.n += size
	b.attrs = append(b.attrs, at)
}

// endMetrics adds the lock mask (RTAX_LOCK) to mxbuf when any metric was
// given, and returns the metrics the request carries.
func (ip *IP) endMetrics(b *mxBuf) fib.Metrics {
	var m fib.Metrics
	if b.n <= 4 {
		return m
	}
	if b.lock != 0 {
		ip.mxAdd(b, mxAttr{m: rt.MetricLock, v: b.lock})
	}
	for _, at := range b.attrs {
		if at.m == rt.MetricCongCtl {
			m.CongCtl = at.alg
			m.Given |= 1 << rt.MetricCongCtl
			continue
		}
		m.Set(at.m, at.v)
	}
	return m
}

// parseMetric reads one metric keyword's value; a is at the keyword.
func (ip *IP) parseMetric(a *args, k *metricKey, b *mxBuf) error {
	v, err := a.next()
	if err != nil {
		return err
	}
	if k.lock && v == "lock" {
		b.lock |= 1 << k.m
		if v, err = a.next(); err != nil {
			return err
		}
	}
	at := mxAttr{m: k.m}
	switch k.m {
	case rt.MetricRTT, rt.MetricRTTVar, rt.MetricRTOMin:
		if k.m == rt.MetricRTOMin {
			b.lock |= 1 << k.m // ip always locks rto_min
		}
		t, raw, ok := getTimeRTT(v)
		if !ok {
			return invarg(k.msg, v)
		}
		switch {
		case raw || k.m == rt.MetricRTOMin:
		case k.m == rt.MetricRTT:
			t *= 8
		default:
			t *= 4
		}
		at.v = t
	case rt.MetricFeatures:
		if v != "ecn" {
			return invarg(k.msg, v)
		}
		at.v = fib.FeatureECN
	case rt.MetricCongCtl:
		at.alg = v
	default:
		n, ok := getUnsigned(v, 32)
		if !ok || k.m == rt.MetricHopLimit && n > 255 {
			return invarg(k.msg, v)
		}
		if (k.m == rt.MetricQuickAck || k.m == rt.MetricFastOpenNoCookie) && n > 1 {
			return invarg("\""+k.name+"\" value should be 0 or 1\n", v)
		}
		at.v = uint32(n)
	}
	ip.mxAdd(b, at)
	return nil
}

// getTimeRTT is iproute2's get_time_rtt: a number (with a fraction only
// if it has a point) and an optional unit, s/sec/secs or ms/msec/msecs, in
// ms rounded up; raw is true without a unit.
func getTimeRTT(s string) (v uint32, raw, ok bool) {
	var t float64
	var rest string
	if strings.Contains(s, ".") {
		i := floatPrefix(s)
		f, err := strconv.ParseFloat(s[:i], 64)
		if i == 0 || err != nil || f < 0 {
			return 0, false, false
		}
		t, rest = f, s[i:]
	} else {
		// An overflow is ULONG_MAX, which the bound below refuses.
		n, i, _ := strtoul(s, 0)
		if i == 0 {
			return 0, false, false
		}
		t, rest = float64(n), s[i:]
	}
	raw = rest == ""
	switch strings.ToLower(rest) {
	case "":
	case "s", "sec", "secs":
		t *= 1000
	case "ms", "msec", "msecs":
	default:
		return 0, false, false
	}
	if t >= 1<<32 {
		return 0, false, false
	}
	v = uint32(t)
	if float64(v) < t {
		v++
	}
	return v, raw, true
}

// floatPrefix is the length of the decimal number strtod reads at the
// start of s: digits, a point, digits, an exponent.
func floatPrefix(s string) int {
	i, digits := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	return i
}
