package fib_test

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// setup returns a FIB wired to a namespace's devices the way package rtnl
// wires them, with a veth pair up and 198.51.100.1/24 on veth0.
func setup() (*sim.Task, *fib.FIB, *netdev.Device, func()) {
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	t := w.NewTask("ip")
	stack, _ := netdev.NewStack(w, rtnl, netdev.Config{})
	nh := nexthop.NewTable(nexthop.FlushDeferred)
	f := fib.New(nh)
	nh.SetGatewayScopeChecker(f.CheckGatewayScope)
	stack.RegisterNotifier(f)
	stack.RegisterAddrNotifier(f.InetAddrEvent)
	rtnl.Lock(t)
	devs, _ := stack.NewTable(t, "")
	veth, _ := devs.NewLink(t, netdev.Veth{Name: "veth0", Peer: "veth1"})
	for _, d := range veth {
		_ = d.SetUp(t, true)
	}
	veth0 := devs.ByName("veth0")
	_ = veth0.AddInet4(t, netdev.Addr{Prefix: netip.MustParsePrefix("198.51.100.1/24")})
	return t, f, veth0, func() { rtnl.Unlock(t) }
}

func Example() {
	t, f, veth0, done := setup()
	defer done()

	// The address brought its routes; add two of ours.
	_ = f.Add(t, fib.Route{Dst: netip.MustParsePrefix("10.0.0.0/8"),
		Gateway: netip.MustParseAddr("198.51.100.2"), Protocol: fib.ProtoBoot}, rt.ModeAdd)
	_ = f.Add(t, fib.Route{Dst: netip.MustParsePrefix("10.1.0.0/16"), Type: fib.TypeUnreachable,
		Protocol: fib.ProtoBoot}, rt.ModeAdd)
	for _, r := range f.AllRoutes() {
		dev := ""
		if r.Dev != nil {
			dev = r.Dev.Name()
		}
		fmt.Println(r.Table, r.Type, r.Dst, r.Gateway, dev, r.Protocol, r.Scope, r.PrefSrc)
	}

	res, _ := f.Lookup(t, fib.Flow{Dst: netip.MustParseAddr("10.2.3.4")})
	fmt.Println("10.2.3.4:", res.Prefix, "via", res.Gateway, "dev", res.Dev)
	_, err := f.Lookup(t, fib.Flow{Dst: netip.MustParseAddr("10.1.3.4")})
	fmt.Println("10.1.3.4:", err)

	// A gateway must be reachable on the link.
	err = f.Add(t, fib.Route{Dst: netip.MustParsePrefix("10.3.0.0/16"),
		Gateway: netip.MustParseAddr("192.0.2.1"), Dev: veth0}, rt.ModeAdd)
	fmt.Println(errors.Is(err, syscall.ENETUNREACH), err)
	// Output:
	// 254 unicast 10.0.0.0/8 198.51.100.2 veth0 boot global invalid IP
	// 254 unreachable 10.1.0.0/16 invalid IP  boot global invalid IP
	// 254 unicast 198.51.100.0/24 invalid IP veth0 kernel link 198.51.100.1
	// 255 local 198.51.100.1/32 invalid IP veth0 kernel host 198.51.100.1
	// 255 broadcast 198.51.100.255/32 invalid IP veth0 kernel link 198.51.100.1
	// 10.2.3.4: 10.0.0.0/8 via 198.51.100.2 dev veth0
	// 10.1.3.4: no route to host
	// true network is unreachable: Nexthop has invalid gateway
}

// The shape of the trie is the kernel's: /proc/net/fib_triestat for a veth
// with one /24 address, as the kernel prints it.
func ExampleFIB_TrieStat() {
	_, f, _, done := setup()
	defer done()
	fmt.Print(f.TrieStat())
	// Output:
	// Basic info: size of leaf: 48 bytes, size of tnode: 40 bytes.
	// Main:
	// 	Aver depth:     1.66
	// 	Max depth:      2
	// 	Leaves:         3
	// 	Prefixes:       3
	// 	Internal nodes: 2
	// 	  1: 1  2: 1
	// 	Pointers: 6
	// Null ptrs: 2
	// Total size: 1  kB
	// Local:
	// 	Aver depth:     1.66
	// 	Max depth:      2
	// 	Leaves:         3
	// 	Prefixes:       3
	// 	Internal nodes: 2
	// 	  1: 1  2: 1
	// 	Pointers: 6
	// Null ptrs: 2
	// Total size: 1  kB
}

// Seed 000 in miniature: routes that use nexthop objects on a device leave
// with them, in one FIB flush (FlushDeferred) that walks main and local.
func ExampleFIB_FlushFIB() {
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	t := w.NewTask("ip")
	stack, _ := netdev.NewStack(w, rtnl, netdev.Config{})
	nh := nexthop.NewTable(nexthop.FlushDeferred)
	f := fib.New(nh)
	nh.SetGatewayScopeChecker(f.CheckGatewayScope)
	stack.RegisterNotifier(netdev.NotifierFunc(func(t *sim.Task, ev netdev.Event, d *netdev.Device) error {
		if ev == netdev.EventDown || ev == netdev.EventUnregister {
			nh.FlushDev(t, d, ev, f) // nh_netdev_event runs before the FIB's
		}
		return nil
	}))
	stack.RegisterNotifier(f)
	stack.RegisterAddrNotifier(f.InetAddrEvent)
	rtnl.Lock(t)
	defer rtnl.Unlock(t)
	devs, _ := stack.NewTable(t, "")
	_, _ = devs.NewLink(t, netdev.Veth{Name: "veth0", Peer: "veth1"})
	veth0 := devs.ByName("veth0")
	_ = veth0.SetUp(t, true)
	_ = devs.ByName("veth1").SetUp(t, true)
	_ = veth0.AddInet4(t, netdev.Addr{Prefix: netip.MustParsePrefix("198.51.100.1/24")})
	for i := 1; i <= 100; i++ {
		_, _ = nh.Add(t, nexthop.Config{ID: nexthop.ID(i), Family: syscall.AF_INET,
			Gateway: netip.MustParseAddr("198.51.100.2"), Dev: veth0})
		_ = f.Add(t, fib.Route{Dst: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i), 0}), 32),
			NexthopID: nexthop.ID(i)}, rt.ModeAdd)
	}
	before := t.Counters()
	_ = veth0.SetUp(t, false)
	work := t.Counters().Sub(before)
	fmt.Println("fib_flush calls:", work.Get(sim.FIBFlush))
	fmt.Println("leaves visited:", work.Get(sim.TrieLeafVisit))
	fmt.Println("routes left:", f.Len())
	// Output:
	// fib_flush calls: 2
	// leaves visited: 111
	// routes left: 1
}

// Metrics are kept in the kernel's units: RTT in 1/8 ms, RTO_MIN in ms,
// a locked metric as its bit in Lock.
func ExampleMetrics() {
	var m fib.Metrics
	m.Set(rt.MetricMTU, 1400)
	m.Set(rt.MetricRTT, 100*8) // 100 ms
	m.Set(rt.MetricRTOMin, 2000)
	m.Lock = 1 << rt.MetricRTOMin
	m.CongCtl = "cubic"
	for k := rt.MetricMTU; k <= rt.MetricMax; k++ {
		if m.Values[k] != 0 {
			fmt.Println(k, m.Values[k], m.Lock&(1<<k) != 0)
		}
	}
	fmt.Println(rt.MetricCongCtl, m.CongCtl)
	// Output:
	// mtu 1400 false
	// rtt 800 false
	// rto_min 2000 true
	// congctl cubic
}
