package rtnl_test

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// routeLine summarises a dumped route in the words of `ip route show table
// all` (without iproute2's trailing spaces), so that tests can compare
// tables at a glance: type, prefix, nexthop id, TOS, gateway, device,
// table, protocol, scope, source, metric, flags, the metrics' values and
// one "nexthop" line per path.
func routeLine(r rtnl.RouteInfo) string {
	var w []string
	if r.Type != fib.TypeUnicast {
		w = append(w, r.Type.String())
	}
	switch {
	case r.Dst.Bits() == 0:
		w = append(w, "default")
	case r.Dst.Bits() == r.Dst.Addr().BitLen():
		w = append(w, r.Dst.Addr().String())
	default:
		w = append(w, r.Dst.String())
	}
	if r.NexthopID != 0 {
		w = append(w, "nhid", strconv.FormatUint(uint64(r.NexthopID), 10))
	}
	if r.TOS != 0 {
		w = append(w, "tos", "0x"+strconv.FormatUint(uint64(r.TOS)|0x100, 16)[1:])
	}
	w = via(w, r.Gateway)
	if r.Dev != "" {
		w = append(w, "dev", r.Dev)
	}
	if r.Table != fib.TableMain {
		w = append(w, "table", rt.TableName(r.Table))
	}
	if r.Protocol != fib.ProtoBoot {
		w = append(w, "proto", r.Protocol.String())
	}
	if r.Scope != fib.ScopeUniverse {
		w = append(w, "scope", r.Scope.String())
	}
	if r.PrefSrc.IsValid() {
		w = append(w, "src", r.PrefSrc.String())
	}
	if r.Priority != 0 {
		w = append(w, "metric", strconv.FormatUint(uint64(r.Priority), 10))
	}
	if f := r.Flags.String(); f != "" {
		w = append(w, f)
	}
	w = append(w, metricWords(r.Metrics)...)
	s := strings.Join(w, " ")
	for _, p := range r.Multipath {
		pw := via([]string{"nexthop"}, p.Gateway)
		if p.Dev != "" {
			pw = append(pw, "dev", p.Dev)
		}
		pw = append(pw, "weight", strconv.Itoa(p.Weight))
		if f := p.Flags.String(); f != "" {
			pw = append(pw, f)
		}
		s += "\n\t" + strings.Join(pw, " ")
	}
	return s
}

func via(w []string, gw netip.Addr) []string {
	if gw.IsValid() {
		w = append(w, "via", gw.String())
	}
	return w
}

// metricWords lists the metrics set, with "lock" for a locked one and the
// values in the kernel's units.
func metricWords(m fib.Metrics) []string {
	var w []string
	for k := rt.MetricMTU; k <= rt.MetricMax; k++ {
		locked := m.Lock&(1<<k) != 0
		v := strconv.FormatUint(uint64(m.Values[k]), 10)
		if k == rt.MetricCongCtl {
			v = m.CongCtl
		}
		if (v == "0" || v == "") && !locked {
			continue
		}
		w = append(w, k.String())
		if locked {
			w = append(w, "lock")
		}
		w = append(w, v)
	}
	return w
}
