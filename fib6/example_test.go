package fib6_test

import (
	"fmt"
	"net/netip"

	"github.com/netsimlab/netsim/fib6"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// A connected route, a route through a gateway on it, a lookup, and a
// request the kernel refuses.
func Example() {
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	s, _ := netdev.NewStack(w, rtnl, netdev.Config{})
	t := w.NewTask("ip")
	rtnl.Lock(t)
	defer rtnl.Unlock(t)
	devs, _ := s.NewTable(t, "")
	_, _ = devs.NewLink(t, netdev.Veth{Name: "v0", Peer: "v1"})
	v0, v1 := devs.ByName("v0"), devs.ByName("v1")
	_ = v0.SetUp(t, true)
	_ = v1.SetUp(t, true)

	f := fib6.New(w, nil)
	f.SetLoopback(devs.Loopback())
	_ = f.Add(t, fib6.Route{Dst: netip.MustParsePrefix("2001:db8::/64"), Dev: v0}, rt.ModeAdd)
	_ = f.Add(t, fib6.Route{Dst: netip.MustParsePrefix("2001:db8:1::/48"), Gateway: netip.MustParseAddr("2001:db8::1")}, rt.ModeAdd)
	for _, r := range f.Routes(0) {
		fmt.Println(r.Dst, r.Gateway, r.Dev, r.Priority)
	}
	res, _ := f.Lookup(t, fib6.Flow{Dst: netip.MustParseAddr("2001:db8:1::7")})
	fmt.Println(res.Route.Dst, "via", res.Gateway, "dev", res.Dev)

	err := f.Add(t, fib6.Route{Dst: netip.MustParsePrefix("2001:db8:2::/64"), Gateway: netip.MustParseAddr("fe80::1")}, rt.ModeAdd)
	fmt.Println(err)
	// Output:
	// 2001:db8::/64 invalid IP v0 1024
	// 2001:db8:1::/48 2001:db8::1 v0 1024
	// 2001:db8:1::/48 via 2001:db8::1 dev v0
	// invalid argument: Egress device not specified
}
