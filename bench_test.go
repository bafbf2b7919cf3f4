package netsim_test

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

var modes = []rtnl.Config{rtnl.Before, rtnl.After}

// BenchmarkCreateDevices creates N dummy devices, each up with an IPv6
// address, in one namespace: the real cost of the simulator's device and
// address machinery (target: 10K devices in under 1 s).
func BenchmarkCreateDevices(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var virtual float64
			for b.Loop() {
				k := rtnl.MustNewKernel(rtnl.After)
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
		})
	}
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
// routes through the Handle API (target: under 100 ms).
func BenchmarkSeed000Setup(b *testing.B) {
	gw := netip.MustParseAddr("198.51.100.2")
	for b.Loop() {
		b.StopTimer()
		k := rtnl.MustNewKernel(rtnl.After)
		t := k.World().NewTask("ip")
		h := k.InitNet().Handle(t)
		for _, err := range []error{
			h.LinkAdd(netdev.Veth{Name: "eth2", Peer: "eth2p"}), h.LinkSetUp("eth2p"), h.LinkSetUp("eth2"),
			h.LinkAdd(netdev.Macvlan{Name: "testnh0", Link: "eth2", Mode: netdev.MacvlanBridge}),
			h.AddrAdd("testnh0", netip.MustParsePrefix("198.51.100.1/24")), h.LinkSetUp("testnh0"),
		} {
			if err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		for i := 1; i <= 65536; i++ {
			if err := h.NexthopAdd(rtnl.Nexthop{ID: nexthop.ID(i), Gateway: gw, Dev: "testnh0"}); err != nil {
				b.Fatal(err)
			}
		}
		for i := 1; i <= 65536; i++ {
			dst := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte((i - 1) / 256), byte((i - 1) % 256), 0}), 32)
			if err := h.RouteAdd(rtnl.Route{Dst: dst, NexthopID: nexthop.ID(i)}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(2*65536/(float64(b.Elapsed().Seconds())/float64(b.N)), "requests/s")
}
