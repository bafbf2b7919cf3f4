package nexthop_test

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

var benchSizes = []int{1 << 10, 1 << 16}

// fillSeed000 adds n nexthops via 198.51.100.2 on dev, as seed 000's
// `seq 1 65536 | sed 's/.*/nexthop add id & via 198.51.100.2 dev testnh0/'`,
// each used by one route when routes is set.
func fillSeed000(b *testing.B, tbl *nexthop.Table, t *sim.Task, dev *netdev.Device, n int, routes bool) {
	gw := netip.MustParseAddr("198.51.100.2")
	for i := 1; i <= n; i++ {
		nh, err := tbl.Add(t, nexthop.Config{ID: nexthop.ID(i), Gateway: gw, Dev: dev})
		if err != nil {
			b.Fatal(err)
		}
		if routes {
			nh.AddFIBUser(&route{})
		}
	}
}

// Adding N nexthops on one device (the seed's setup).
func BenchmarkAdd(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			e := newEnv(b)
			for b.Loop() {
				tbl := nexthop.NewTable(nexthop.FlushDeferred)
				fillSeed000(b, tbl, e.t, e.d["d0"], n, false)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/nexthop")
		})
	}
}

// `ip link set testnh0 down` with N nexthops each used by one route: the
// nexthop side of seed 000, with a Flusher that only counts (the FIB's
// walks are measured by package fib). flushes/op is N before the patch
// and 1 after.
func BenchmarkFlushDev(b *testing.B) {
	for _, p := range []nexthop.Policy{nexthop.FlushPerNexthop, nexthop.FlushDeferred} {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%v/n=%d", p, n), func(b *testing.B) {
				e := newEnv(b)
				f := &countingFIB{}
				for b.Loop() {
					b.StopTimer()
					tbl := nexthop.NewTable(p)
					fillSeed000(b, tbl, e.t, e.d["d0"], n, true)
					b.StartTimer()
					tbl.FlushDev(e.t, e.d["d0"], netdev.EventDown, f)
					if tbl.Len() != 0 {
						b.Fatal("nexthops left")
					}
				}
				b.ReportMetric(float64(f.flushes)/float64(b.N), "flushes/op")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/nexthop")
			})
		}
	}
}
