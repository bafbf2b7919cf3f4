package netsim_test

import (
	"fmt"
	"net/netip"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

var modes = []rtnl.Config{rtnl.Before, rtnl.After}

// BenchmarkCreateDevices creates N dummy devices, each up with an IPv6
// address, in one namespace: the real cost of the simulator's device and
// address machinery (target: 10K devices in under 1 s). Each device's up
// walks every IPv6 route so far (rt6_sync_up): walks=real does those walks,
// walks=counted counts them (rtnl.Config.CountedWalks, the seeds' setting),
// with the same virtual time.
func BenchmarkCreateDevices(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, counted := range []bool{false, true} {
			cfg := rtnl.After
			cfg.CountedWalks = counted
			b.Run(fmt.Sprintf("n=%d/walks=%s", n, map[bool]string{false: "real", true: "counted"}[counted]), func(b *testing.B) {
				benchCreateDevices(b, cfg, n)
			})
		}
	}
}

func benchCreateDevices(b *testing.B, cfg rtnl.Config, n int) {
	var virtual float64
	for b.Loop() {
		k := rtnl.MustNewKernel(cfg)
		t := k.World().NewTask("ip")
		h := k.InitNet().Handle(t)
		for i := range n {
			name := fmt.Sprintf("d%d", i)
			a := netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 4: byte(i >> 8), 5: byte(i), 15: 1}), 64)
			if err := h.LinkAdd(netdev.Dummy{Name: name}); err != nil {
				b.Fatal(err)
			}
			if err := h.LinkSetUp(name); err != nil {
				b.Fatal(err)
			}
			if err := h.AddrAdd(name, a); err != nil {
				b.Fatal(err)
			}
		}
		k.Settle(t)
		virtual = t.Now().Seconds()
	}
	b.ReportMetric(virtual, "virtual-s/op")
	b.ReportMetric(float64(n), "devices/op")
}

// BenchmarkBuild runs the build scenario (scenario.Build) in each mode and
// reports its virtual time and the counters that differ between the modes.
func BenchmarkBuild(b *testing.B) {
	for _, cfg := range modes {
		b.Run(cfg.String(), func(b *testing.B) {
			var r *scenario.Report
			for b.Loop() {
				var err error
				if r, err = scenario.Build(cfg, scenario.BuildParams{Dummies: 1000, VLANs: 200, OneByOne: 10}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(r.Virtual().Seconds(), "virtual-s/op")
			b.ReportMetric(float64(r.Counters.Get(sim.HWAddrCompare)), "hwaddr-compares/op")
			b.ReportMetric(float64(r.Counters.Get(sim.RCUBarrier)), "rcu-barriers/op")
		})
	}
}

// BenchmarkSeed001 reruns seed 001 (1500 VLANs on a bond with IPv6, then
// enslaved to a VRF) in each mode.
func BenchmarkSeed001(b *testing.B) {
	for _, cfg := range modes {
		b.Run(cfg.String(), func(b *testing.B) {
			var r *scenario.Report
			for b.Loop() {
				var err error
				if r, err = scenario.Seed001(cfg, scenario.Seed001Params{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(r.Virtual().Seconds(), "virtual-s/op")
			b.ReportMetric(float64(r.Counters.Get(sim.HWAddrCompare)), "hwaddr-compares/op")
			b.ReportMetric(float64(r.Counters.Get(sim.RxModeSync)), "rx-mode-syncs/op")
		})
	}
}

// BenchmarkSeed002 reruns seed 002's script (100 IPv6-forwarding dummies
// created, then deleted one by one) in each mode.
func BenchmarkSeed002(b *testing.B) {
	for _, cfg := range modes {
		b.Run(cfg.String(), func(b *testing.B) {
			var r *scenario.Report
			for b.Loop() {
				var err error
				if r, err = scenario.Seed002(cfg, scenario.Seed002Params{}); err != nil {
					b.Fatal(err)
				}
			}
			p, _ := r.Phase("script")
			b.ReportMetric(p.Virtual.Seconds(), "virtual-s/op")
			b.ReportMetric(float64(p.Counters.Get(sim.Sleep)), "msleeps/op")
			b.ReportMetric(float64(p.Counters.Get(sim.RCUBarrier)), "rcu-barriers/op")
		})
	}
}

// BenchmarkSeed004 reruns seed 004's deletion of 10 000 devices: one by
// one from 1, 10 and 50 tasks and by group (before), by ifindex list
// (after).
func BenchmarkSeed004(b *testing.B) {
	runs := []struct {
		cfg rtnl.Config
		p   scenario.Seed004Params
	}{
		{rtnl.Before, scenario.Seed004Params{Threads: 1}},
		{rtnl.Before, scenario.Seed004Params{Threads: 10}},
		{rtnl.Before, scenario.Seed004Params{Threads: 50}},
		{rtnl.Before, scenario.Seed004Params{Method: scenario.ByGroup}},
		{rtnl.After, scenario.Seed004Params{Method: scenario.ByList}},
	}
	for _, run := range runs {
		name := fmt.Sprintf("%s/%s", run.cfg, run.p.Method)
		if run.p.Method == scenario.OneByOne {
			name = fmt.Sprintf("%s-%d", name, run.p.Threads)
		}
		b.Run(name, func(b *testing.B) {
			var r *scenario.Report
			for b.Loop() {
				var err error
				if r, err = scenario.Seed004(run.cfg, run.p); err != nil {
					b.Fatal(err)
				}
			}
			p := r.Phases[len(r.Phases)-1]
			b.ReportMetric(p.Virtual.Seconds(), "virtual-s/op")
			b.ReportMetric(float64(p.Counters.Get(sim.RCUBarrier)), "rcu-barriers/op")
			b.ReportMetric(float64(p.Counters.Get(sim.Fib6Visit)), "fib6-visits/op")
			b.ReportMetric(r.RTNL.HoldMax.Seconds(), "rtnl-max-hold-s")
		})
	}
}

// BenchmarkSeed000Setup builds seed 000's 65 536 nexthops and 65 536 /32
// routes through the Handle API (target: under 100 ms). Each iteration
// builds a new kernel; the garbage collector carries on from the previous
// iterations, as in any benchmark loop. BenchmarkSeed000SetupFresh is the
// first build in a fresh process instead.
func BenchmarkSeed000Setup(b *testing.B) { benchSeed000Setup(b, false) }

// BenchmarkSeed000SetupFresh is BenchmarkSeed000Setup with each iteration
// starting from a collected heap whose free memory went back to the
// operating system, like the first build in a new process: the garbage
// collector starts from a small heap (more cycles) and the memory the
// build touches page-faults in again.
func BenchmarkSeed000SetupFresh(b *testing.B) { benchSeed000Setup(b, true) }

func benchSeed000Setup(b *testing.B, fresh bool) {
	var faults int64
	for b.Loop() {
		b.StopTimer()
		k := rtnl.MustNewKernel(rtnl.After)
		t := k.World().NewTask("ip")
		h := k.InitNet().Handle(t)
		for _, step := range scenario.Seed000Devices(h) {
			if err := step(); err != nil {
				b.Fatal(err)
			}
		}
		if fresh {
			debug.FreeOSMemory()
		}
		f0 := minorFaults()
		b.StartTimer()
		for i := 1; i <= 65536; i++ {
			if err := h.NexthopAdd(scenario.Seed000Nexthop(i)); err != nil {
				b.Fatal(err)
			}
		}
		for i := 1; i <= 65536; i++ {
			if err := h.RouteAdd(scenario.Seed000Route(i)); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		faults += minorFaults() - f0
		b.StartTimer()
	}
	b.ReportMetric(2*65536/(float64(b.Elapsed().Seconds())/float64(b.N)), "requests/s")
	b.ReportMetric(float64(faults)/float64(b.N), "page-faults/op")
}

// BenchmarkSeed003 reruns seed 003 at full scale — 4096 namespaces, each
// adding 1024 rules from its own `ip -batch` job, on 256 virtual CPUs —
// for IPv4 and IPv6, before and after.
func BenchmarkSeed003(b *testing.B) {
	for _, fam := range []rt.Family{rt.FamilyInet, rt.FamilyInet6} {
		for _, cfg := range modes {
			b.Run(fmt.Sprintf("%s/ipv%d", cfg, map[rt.Family]int{rt.FamilyInet: 4, rt.FamilyInet6: 6}[fam]), func(b *testing.B) {
				var r *scenario.Seed003Result
				for b.Loop() {
					var err error
					if r, err = scenario.Seed003(cfg, scenario.Seed003Params{Family: fam}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(r.Makespan.Seconds(), "virtual-s/op")
				b.ReportMetric(r.Sys.Seconds(), "virtual-sys-s/op")
				b.ReportMetric(float64(r.RTNLAcquires), "rtnl-acquires/op")
				b.ReportMetric(float64(r.Phases[1].Counters.Get(sim.RuleScan)), "rule-scans/op")
			})
		}
	}
}

// BenchmarkSeed003Memory builds 256 namespaces of seed 003 with 1024 IPv4
// rules each through the Handle API and reports the heap per rule,
// namespaces included, and what seed 003's 4096 × 1024 rules take.
func BenchmarkSeed003Memory(b *testing.B) {
	const nets, rules = 256, 1024
	var perRule float64
	for b.Loop() {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		k := rtnl.MustNewKernel(rtnl.After)
		t := k.World().NewTask("ip")
		for i := range nets {
			n, err := k.NewNet(t, fmt.Sprintf("ns-%d", i))
			if err != nil {
				b.Fatal(err)
			}
			h := n.Handle(t)
			for tbl := uint32(1); tbl <= rules; tbl++ {
				if err := h.RuleAdd(rt.FamilyInet, fibrules.Rule{Action: fibrules.ActToTable, Table: tbl}); err != nil {
					b.Fatal(err)
				}
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		perRule = float64(m1.HeapAlloc-m0.HeapAlloc) / (nets * rules)
		runtime.KeepAlive(k)
	}
	b.ReportMetric(perRule, "B/rule")
	b.ReportMetric(perRule*4096*1024/(1<<30), "GiB/seed003")
}

// BenchmarkSeed003RuleAdd adds rules from parallel goroutines, each in its
// own namespace (a new one every 1024 rules), with real locks: before, every
// add holds the global RTNL, so adds do not scale with GOMAXPROCS; after,
// each namespace has its own lock and they do. Run with -cpu 1,2,...
func BenchmarkSeed003RuleAdd(b *testing.B) {
	for _, cfg := range modes {
		b.Run(cfg.String(), func(b *testing.B) {
			k := rtnl.MustNewKernel(cfg)
			w := k.World()
			var nsID atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				t := w.NewTask("ip")
				var h *rtnl.Handle
				tbl := uint32(rulesPerNetns)
				for pb.Next() {
					if tbl == rulesPerNetns {
						n, err := k.NewNet(t, fmt.Sprintf("ns-%d", nsID.Add(1)))
						if err != nil {
							b.Error(err)
							return
						}
						h, tbl = n.Handle(t), 0
					}
					tbl++
					if err := h.RuleAdd(rt.FamilyInet, fibrules.Rule{Action: fibrules.ActToTable, Table: tbl}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rules/s")
		})
	}
}

const rulesPerNetns = 1024

// BenchmarkNetns creates 4096 namespaces (seed 003's), each with its
// loopback device and IPv4/IPv6 rule ops, then deletes them all and lets
// their cleanup run.
func BenchmarkNetns(b *testing.B) {
	const n = 4096
	var virtual time.Duration
	for b.Loop() {
		k := rtnl.MustNewKernel(rtnl.After)
		t := k.World().NewTask("ip")
		start := t.Now()
		for i := range n {
			if _, err := k.NewNet(t, fmt.Sprintf("ns-%d", i)); err != nil {
				b.Fatal(err)
			}
		}
		for i := range n {
			if err := k.DelNet(t, fmt.Sprintf("ns-%d", i)); err != nil {
				b.Fatal(err)
			}
		}
		k.Settle(t)
		if names := k.NetNames(); len(names) != 0 {
			b.Fatalf("%d namespaces left", len(names))
		}
		virtual = t.Now().Sub(start)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/netns")
	b.ReportMetric(virtual.Seconds(), "virtual-s/op")
}
