package fibrules_test

import (
	"runtime"
	"testing"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// BenchmarkAdd1024 is one netns of seed 003: 1024 `ip rule add from all
// table N` with NLM_F_EXCL, so each add walks the rules already there.
func BenchmarkAdd1024(b *testing.B) {
	for _, fam := range []rt.Family{rt.FamilyInet, rt.FamilyInet6} {
		b.Run(fam.String(), func(b *testing.B) {
			w := sim.MustNewWorld(sim.Options{})
			rtnl, t := w.NewMutex("RTNL"), w.NewTask("ip")
			var scans int64
			for b.Loop() {
				o, _ := fibrules.NewOps(w, fibrules.Config{Family: fam, Policy: fibrules.LockPerOps})
				before := t.Counters().Get(sim.RuleScan)
				for n := uint32(1); n <= 1024; n++ {
					if err := o.Add(t, rtnl, fibrules.Rule{Action: fibrules.ActToTable, Table: n}, true); err != nil {
						b.Fatal(err)
					}
				}
				scans += t.Counters().Get(sim.RuleScan) - before
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1024, "ns/add")
			b.ReportMetric(float64(scans)/float64(b.N)/1024, "scans/add")
		})
	}
}

// BenchmarkMemory reports the heap bytes per rule of 64 ops × 1024 rules
// (seed 003 has 4096 × 1024).
func BenchmarkMemory(b *testing.B) {
	w := sim.MustNewWorld(sim.Options{})
	rtnl, t := w.NewMutex("RTNL"), w.NewTask("ip")
	const nops, per = 64, 1024
	var perRule float64
	for b.Loop() {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		ops := make([]*fibrules.Ops, nops)
		for i := range ops {
			ops[i], _ = fibrules.NewOps(w, fibrules.Config{Family: rt.FamilyInet, Policy: fibrules.LockPerOps})
			for n := uint32(1); n <= per; n++ {
				_ = ops[i].Add(t, rtnl, fibrules.Rule{Action: fibrules.ActToTable, Table: n}, true)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		perRule = float64(m1.HeapAlloc-m0.HeapAlloc) / (nops * per)
		runtime.KeepAlive(ops)
	}
	b.ReportMetric(perRule, "B/rule")
	b.ReportMetric(perRule*4096*1024/(1<<30), "GiB/seed003")
}
