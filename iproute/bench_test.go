package iproute_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// BenchmarkAddrAddBatch runs what `netsim ip -batch FILE` runs for a FILE
// that creates a veth pair and adds N addresses to one end (left down):
// 10.x.y.z/32 for inet, 2001:db8::x:y/128 for inet6, one request each. The
// kernel walks the device's address list and the namespace's address hash
// on every add, so a run's virtual time grows as N²; netsim's real time
// (ns/op) does not. It reports the virtual time of the run (virtual-s/op)
// and the real time per address (ns/addr).
//
//	go test -run '^$' -bench AddrAddBatch -benchtime 1x ./iproute
func BenchmarkAddrAddBatch(b *testing.B) {
	for _, fam := range []struct {
		name  string
		sizes []int
		line  func(i int) string
	}{
		{"inet", []int{10000, 50000}, func(i int) string {
			return fmt.Sprintf("addr add 10.%d.%d.%d/32 dev v0\n", i>>16&255, i>>8&255, i&255)
		}},
		{"inet6", []int{20000, 80000}, func(i int) string {
			return fmt.Sprintf("addr add 2001:db8::%x:%x/128 dev v0\n", i>>16, i&0xffff)
		}},
	} {
		for _, n := range fam.sizes {
			var sb strings.Builder
			sb.WriteString("link add v0 type veth peer name v1\n")
			for i := range n {
				sb.WriteString(fam.line(i))
			}
			script := sb.String()
			b.Run(fmt.Sprintf("%s/%d", fam.name, n), func(b *testing.B) {
				var virtual float64
				for b.Loop() {
					cfg := rtnl.After
					cfg.CountedWalks = true
					w := sim.MustNewWorld(sim.Options{})
					k, err := rtnl.NewKernelIn(w, cfg)
					if err != nil {
						b.Fatal(err)
					}
					t := w.NewTask("ip")
					ip := iproute.New(k, t)
					ip.Stdin, ip.Stdout, ip.Stderr = strings.NewReader(script), io.Discard, io.Discard
					if st := ip.Main([]string{"-batch", "-"}); st != 0 {
						b.Fatalf("ip -batch: exit status %d", st)
					}
					virtual = t.Now().Sub(0).Seconds()
				}
				b.ReportMetric(virtual, "virtual-s/op")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/addr")
			})
		}
	}
}
