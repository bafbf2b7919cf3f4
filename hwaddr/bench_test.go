package hwaddr_test

import (
	"fmt"
	"testing"

	"github.com/netsimlab/netsim/hwaddr"
)

// benchMode is a way of searching a list: a policy, and for ListOnly whether
// the walks are counted instead of walked.
type benchMode struct {
	name    string
	p       hwaddr.Policy
	counted bool
}

var benchModes = []benchMode{
	{"ListOnly", hwaddr.ListOnly, false},
	{"ListOnly-counted", hwaddr.ListOnly, true},
	{"TreeIndexed", hwaddr.TreeIndexed, false},
}

// list returns a list of n spread entries searched the mode's way.
func (m benchMode) list(tb testing.TB, n int) *hwaddr.List {
	l := build(tb, m.p, n)
	l.SetCountedWalk(m.counted)
	return l
}

// BenchmarkAddDel adds an address the list does not hold and deletes it again,
// on a list of n entries built before the timer starts: what dev_mc_add and
// dev_mc_del cost on a bond with n multicast entries. ListOnly walks the whole
// list twice (2n+1 compares); ListOnly-counted counts the same 2n+1 compares
// in O(log n) time; TreeIndexed descends the tree twice.
func BenchmarkAddDel(b *testing.B) {
	for _, mode := range benchModes {
		for _, n := range []int{100, 1_000, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/n=%d", mode.name, n), func(b *testing.B) {
				l := mode.list(b, n)
				// Absent addresses spread over the same key space as the
				// list's, so descents end all over the tree.
				probes := make([]hwaddr.Addr, 1024)
				for i := range probes {
					probes[i] = spread(n + i)
				}
				c0 := l.Compares()
				i := 0
				for b.Loop() {
					a := probes[i%len(probes)]
					i++
					if err := l.Add(nil, a, mc); err != nil {
						b.Fatal(err)
					}
					if err := l.Del(nil, a, mc); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(l.Compares()-c0)/float64(b.N), "compares/op")
			})
		}
	}
}

// BenchmarkResync is SEED001's expensive primitive: a bond with m multicast
// entries resyncs them to a slave that already holds them all
// (__hw_addr_sync_multiple, every add ending in EEXIST). m = 1503 is the
// seed's bond after its 1500 VLANs got their IPv6 addresses. ListOnly and
// ListOnly-counted report the same m(m+1)/2 compares/op.
func BenchmarkResync(b *testing.B) {
	for _, mode := range benchModes {
		for _, m := range []int{100, 1_000, 1_503} {
			b.Run(fmt.Sprintf("%s/m=%d", mode.name, m), func(b *testing.B) {
				bond, slave := mode.list(b, m), mode.list(b, 0)
				if err := hwaddr.SyncMultiple(nil, slave, bond); err != nil {
					b.Fatal(err)
				}
				c0 := slave.Compares()
				for b.Loop() {
					if err := hwaddr.SyncMultiple(nil, slave, bond); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(slave.Compares()-c0)/float64(b.N), "compares/op")
			})
		}
	}
}
