package fib

// The text `ip route show` prints for a route, which the tests compare
// with transcripts of the real kernel (iproute2's print_route and
// print_rta_metrics; package iproute has the printer itself).

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/netsimlab/netsim/rt"
)

// routeString renders the route as `ip route show table all` prints it (the
// table is named unless it is main), without the trailing space iproute2
// leaves on each line; a multipath route takes one line per path:
//
//	198.51.100.0/24 dev eth0 proto kernel scope link src 198.51.100.1
//	local 198.51.100.1 dev eth0 table local proto kernel scope host src 198.51.100.1
//	10.0.0.0 nhid 1 via 198.51.100.2 dev eth0
//	10.1.0.0/16
//		nexthop via 198.51.100.2 dev eth0 weight 1
//		nexthop via 198.51.100.3 dev eth0 weight 3
func routeString(r Route) string {
	s := ipFormat(r)
	return strings.ReplaceAll(strings.TrimRight(s, " "), " \n", "\n")
}

// ipFormat renders the route exactly as iproute2 prints it, trailing spaces
// included, without the final newline.
//
// Kernel: fib_dump_info (net/ipv4/fib_semantics.c); iproute2: print_route.
func ipFormat(r Route) string {
	var b strings.Builder
	ty := r.Type
	if ty == TypeUnspec {
		ty = TypeUnicast
	}
	if ty != TypeUnicast {
		b.WriteString(ty.String())
		b.WriteByte(' ')
	}
	switch {
	case !r.Dst.IsValid() || r.Dst.Bits() == 0:
		b.WriteString("default ")
	case r.Dst.Bits() == 32:
		b.WriteString(r.Dst.Addr().String() + " ")
	default:
		b.WriteString(r.Dst.String() + " ")
	}
	// print_route prints the nexthop id before the tos.
	if r.NexthopID != 0 {
		b.WriteString("nhid " + strconv.FormatUint(uint64(r.NexthopID), 10) + " ")
	}
	if r.TOS != 0 {
		b.WriteString("tos 0x" + strconv.FormatUint(uint64(r.TOS)|0x100, 16)[1:] + " ")
	}
	if len(r.Multipath) == 0 {
		writeVia(&b, r.Gateway)
		if r.Dev != nil {
			b.WriteString("dev " + r.Dev.Name() + " ")
		}
	}
	if r.Table != TableMain && r.Table != TableUnspec {
		b.WriteString("table " + rt.TableName(r.Table) + " ")
	}
	if r.Protocol != ProtoBoot {
		b.WriteString("proto " + r.Protocol.String() + " ")
	}
	if r.Scope != ScopeUniverse {
		b.WriteString("scope " + r.Scope.String() + " ")
	}
	if r.PrefSrc.IsValid() {
		b.WriteString("src " + r.PrefSrc.String() + " ")
	}
	if r.Priority != 0 {
		b.WriteString("metric " + strconv.FormatUint(uint64(r.Priority), 10) + " ")
	}
	if f := r.Flags.String(); f != "" {
		b.WriteString(f + " ")
	}
	b.WriteString(metricsText(r.Metrics))
	for _, nh := range r.Multipath {
		b.WriteString("\n\tnexthop ")
		writeVia(&b, nh.Gateway)
		if nh.Dev != nil {
			b.WriteString("dev " + nh.Dev.Name() + " ")
		}
		w := nh.Weight
		if w == 0 {
			w = 1
		}
		b.WriteString("weight " + strconv.Itoa(w) + " ")
		if f := nh.Flags.String(); f != "" {
			b.WriteString(f + " ")
		}
	}
	return b.String()
}

func writeVia(b *strings.Builder, gw netip.Addr) {
	switch {
	case !gw.IsValid():
	case gw.Is4():
		b.WriteString("via " + gw.String() + " ")
	default:
		b.WriteString("via inet6 " + gw.String() + " ")
	}
}

// metricsText renders the metrics as iproute2's print_rta_metrics does: each
// set (or locked) metric by name, "lock" for a locked one, RTT, RTTVar and
// RTOMin converted to ms (or s from 1000 ms on), features by name, every
// field followed by a space.
//
// Kernel: rtnetlink_put_metrics (net/core/rtnetlink.c); iproute2:
// print_rta_metrics.
func metricsText(m Metrics) string {
	var b strings.Builder
	for k := rt.MetricMTU; k <= rt.MetricMax; k++ {
		v := m.Values[k]
		locked := m.Lock&(1<<k) != 0
		set := v != 0
		if k == rt.MetricCongCtl {
			set = m.CongCtl != ""
		}
		if k == rt.MetricFeatures {
			v &^= featureECNCA
			set = v != 0
		}
		if !set && !locked {
			continue
		}
		b.WriteString(k.String() + " ")
		if locked {
			b.WriteString("lock ")
		}
		switch k {
		case rt.MetricFeatures:
			if v&FeatureECN != 0 {
				b.WriteString("ecn ")
			}
			if v&^FeatureECN != 0 {
				b.WriteString("0x" + strconv.FormatUint(uint64(v), 16) + " ")
			}
		case rt.MetricRTT, rt.MetricRTTVar, rt.MetricRTOMin:
			switch k {
			case rt.MetricRTT:
				v /= 8
			case rt.MetricRTTVar:
				v /= 4
			}
			if v >= 1000 {
				b.WriteString(strconv.FormatFloat(float64(v)/1e3, 'g', 6, 64) + "s ")
			} else {
				b.WriteString(strconv.FormatUint(uint64(v), 10) + "ms ")
			}
		case rt.MetricCongCtl:
			b.WriteString(m.CongCtl + " ")
		default:
			b.WriteString(strconv.FormatUint(uint64(v), 10) + " ")
		}
	}
	return b.String()
}
