package nexthop_test

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// Using package nexthop on its own: a device from package netdev, a table,
// single nexthops, a weighted group and a blackhole, with what a dump
// reports of them; a group inside a group and an unknown id are refused
// with the kernel's errors. Package rtnl holds RTNL around these calls; so
// does this example.
func Example() {
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	s, _ := netdev.NewStack(w, rtnl, netdev.Config{})
	t := w.NewTask("ip")
	rtnl.Lock(t)
	defer rtnl.Unlock(t)
	devs, _ := s.NewTable(t, "")
	d, _ := devs.NewLink(t, netdev.Dummy{Name: "testnh0"})
	_ = d[0].SetUp(t, true)

	tbl := nexthop.NewTable(nexthop.FlushDeferred)
	_, _ = tbl.Add(t, nexthop.Config{ID: 1, Gateway: netip.MustParseAddr("198.51.100.2"), Dev: d[0]})
	_, _ = tbl.Add(t, nexthop.Config{ID: 2, Family: syscall.AF_INET, Dev: d[0]})
	_, _ = tbl.Add(t, nexthop.Config{ID: 3, Group: []nexthop.GroupMember{{ID: 1}, {ID: 2, Weight: 3}}})
	_, _ = tbl.Add(t, nexthop.Config{ID: 4, Blackhole: true})
	for _, nh := range tbl.List() {
		describe(nh)
	}

	_, err := tbl.Add(t, nexthop.Config{ID: 5, Group: []nexthop.GroupMember{{ID: 3}}})
	fmt.Println(err)
	err = tbl.Del(t, 9, nil)
	fmt.Println(errors.Is(err, syscall.ENOENT), err)

	// Deleting 1 shrinks the group; deleting 2 as well removes it.
	_ = tbl.Del(t, 1, nil)
	describe(tbl.Get(3))
	_ = tbl.Del(t, 2, nil)
	fmt.Println(tbl.Get(3) == nil, tbl.Len())
	// Output:
	// 1: gateway 198.51.100.2 device testnh0 scope 253
	// 2: gateway invalid IP device testnh0 scope 254
	// 3: group [{ID:1 Weight:1} {ID:2 Weight:3}]
	// 4: blackhole
	// invalid argument: Hash-threshold group can not be a nexthop within a group
	// true no such file or directory
	// 3: group [{ID:2 Weight:3}]
	// true 1
}

// describe prints what a dump reports of a nexthop: a group's members
// with their weights, a blackhole, or a gateway (the zero Addr, "invalid
// IP", when none), a device and a scope (RT_SCOPE_LINK 253, RT_SCOPE_HOST
// 254).
func describe(nh *nexthop.Nexthop) {
	switch {
	case nh.IsGroup():
		fmt.Printf("%d: group %+v\n", nh.ID(), nh.Members())
	case nh.Blackhole():
		fmt.Printf("%d: blackhole\n", nh.ID())
	default:
		fmt.Printf("%d: gateway %v device %s scope %d\n", nh.ID(), nh.Gateway(), nh.Dev().Name(), nh.Scope())
	}
}

// route is a stand-in for the FIB's fib_info: one route using a nexthop.
type route struct{ dead bool }

func (r *route) MarkDead() { r.dead = true }

// countingFIB counts fib_flush calls instead of walking a trie.
type countingFIB struct{ flushes int }

func (f *countingFIB) FlushFIB(*sim.Task) { f.flushes++ }

// Seed 000 in miniature: 1000 nexthops on one device, each used by one
// route. When the device goes down, the kernel before the patch flushed the
// FIB once per nexthop; after it, once.
func ExampleTable_FlushDev() {
	for _, p := range []nexthop.Policy{nexthop.FlushPerNexthop, nexthop.FlushDeferred} {
		w := sim.MustNewWorld(sim.Options{})
		rtnl := w.NewMutex("RTNL")
		s, _ := netdev.NewStack(w, rtnl, netdev.Config{})
		t := w.NewTask("ip")
		rtnl.Lock(t)
		devs, _ := s.NewTable(t, "")
		d, _ := devs.NewLink(t, netdev.Dummy{Name: "testnh0"})
		dev := d[0]
		_ = dev.SetUp(t, true)

		tbl := nexthop.NewTable(p)
		gw := netip.MustParseAddr("198.51.100.2")
		for i := 1; i <= 1000; i++ {
			nh, _ := tbl.Add(t, nexthop.Config{ID: nexthop.ID(i), Gateway: gw, Dev: dev})
			nh.AddFIBUser(&route{})
		}
		fib := &countingFIB{}
		_ = dev.SetUp(t, false)
		tbl.FlushDev(t, dev, netdev.EventDown, fib) // what the netdev notifier does
		rtnl.Unlock(t)
		fmt.Printf("%-11s %4d fib_flush calls, %d nexthops left, %d removed\n",
			p, fib.flushes, tbl.Len(), t.Counters().Get(sim.NexthopRemove))
	}
	// Output:
	// per-nexthop 1000 fib_flush calls, 0 nexthops left, 1000 removed
	// deferred       1 fib_flush calls, 0 nexthops left, 1000 removed
}

// A replace changes the nexthop in place: the routes using it stay.
func ExampleTable_Replace() {
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	s, _ := netdev.NewStack(w, rtnl, netdev.Config{})
	t := w.NewTask("ip")
	rtnl.Lock(t)
	defer rtnl.Unlock(t)
	devs, _ := s.NewTable(t, "")
	d, _ := devs.NewLink(t, netdev.Dummy{Name: "veth1"})
	_ = d[0].SetUp(t, true)

	tbl := nexthop.NewTable(nexthop.FlushDeferred)
	nh, _ := tbl.Add(t, nexthop.Config{ID: 23, Blackhole: true})
	r := &route{}
	nh.AddFIBUser(r)
	_, _ = tbl.Replace(t, nexthop.Config{ID: 23, Gateway: netip.MustParseAddr("172.16.1.2"), Dev: d[0]}, nil)
	describe(nh)
	fmt.Println(nh.FIBUsers(), r.dead)
	_, err := tbl.Replace(t, nexthop.Config{ID: 23, Group: []nexthop.GroupMember{{ID: 23}}}, nil)
	fmt.Println(err)
	// Output:
	// 23: gateway 172.16.1.2 device veth1 scope 253
	// 1 false
	// invalid argument: Can not replace a nexthop with a nexthop group.
}
