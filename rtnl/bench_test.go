package rtnl_test

import (
	"net/netip"
	"testing"

	"github.com/netsimlab/netsim/neigh"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// BenchmarkRoute6Add adds IPv6 routes 2001:db8:X:Y::/64 dev veth0 through
// Handle.RouteAdd, one request each, as `ip -6 -batch` of `route add
// 2001:db8:X:Y::/64 dev veth0` lines does on a real kernel; it reports
// the rate in routes per second. Run it with -benchtime 100000x to add the
// kernel measurement's 100 000 routes.
func BenchmarkRoute6Add(b *testing.B) {
	benchRouteAdd(b, func(i int) netip.Prefix {
		a := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)})
		return netip.PrefixFrom(a, 64)
	})
}

// benchRouteAdd adds the routes dst(0), dst(1), ... through veth0, one
// Handle.RouteAdd each, and reports the rate in routes per second.
func benchRouteAdd(b *testing.B, dst func(i int) netip.Prefix) {
	r := newRig(b, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "veth0", Peer: "veth1"}))
	r.up("veth0", "veth1")
	r.settle()
	i := 0
	for b.Loop() {
		if err := r.h.RouteAdd(rtnl.Route{Dst: dst(i), Dev: "veth0"}); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "routes/s")
}

// BenchmarkRoute4Add adds IPv4 routes 10.X.Y.Z/32 dev veth0 through
// Handle.RouteAdd, one request each, as `ip -batch` of `route add
// 10.X.Y.Z/32 dev veth0` lines does on a real kernel; it reports the rate
// in routes per second. Run it with -benchtime 100000x to add the kernel
// measurement's 100 000 routes.
func BenchmarkRoute4Add(b *testing.B) {
	benchRouteAdd(b, func(i int) netip.Prefix {
		return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32)
	})
}

// BenchmarkNeighAdd adds permanent IPv4 neighbours 10.X.Y.Z lladdr
// 02:00:00:X:Y:Z on veth0 through Handle.NewNeigh, one request each, as
// `ip -batch` of `neigh add 10.X.Y.Z lladdr 02:00:00:X:Y:Z dev v0` lines
// does on a real kernel (internal/measure/neigh.sh); it reports the rate
// in neighbours per second and the virtual time of an add. Run it with
// -benchtime 30000x to add the kernel measurement's 30 000 entries.
func BenchmarkNeighAdd(b *testing.B) {
	r := newRig(b, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "veth0", Peer: "veth1"}))
	r.up("veth0", "veth1")
	r.settle()
	q := rtnl.NeighRequest{Flags: rt.NLMCreate | rt.NLMExcl, Family: rt.FamilyInet, Index: r.dev("veth0").Index(), State: neigh.StatePermanent}
	i := 0
	start := r.t.Now()
	for b.Loop() {
		a := [4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}
		q.Dst = a[:]
		q.LLAddr = []byte{2, 0, 0, a[1], a[2], a[3]}
		if err := r.h.NewNeigh(q); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "neighs/s")
	b.ReportMetric(r.t.Now().Sub(start).Seconds()/float64(i)*1e6, "virtual-µs/op")
}

// BenchmarkLinkSetNs moves one end of a veth pair between two namespaces
// through Handle.SetLink, one request each, as `ip -batch` of `link set
// DEV netns NS` lines does on a real kernel; it reports the rate in moves
// per second and each move's virtual time.
func BenchmarkLinkSetNs(b *testing.B) {
	r := newRig(b, rtnl.After)
	na, err := r.k.NewNet(r.t, "a")
	r.ok(err)
	nb, err := r.k.NewNet(r.t, "b")
	r.ok(err)
	ha, hb := na.Handle(r.t), nb.Handle(r.t)
	r.ok(ha.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}))
	r.settle()
	from, to := ha, nb
	start := r.t.Now()
	n := 0
	for b.Loop() {
		if err := from.LinkSetNs("v1", to); err != nil {
			b.Fatal(err)
		}
		if from == ha {
			from, to = hb, na
		} else {
			from, to = ha, nb
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "moves/s")
	b.ReportMetric(float64(r.t.Now()-start)/1e9/float64(n), "virtual-s/op")
}
