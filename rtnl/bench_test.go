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
	r := newRig(b, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "veth0", Peer: "veth1"}))
	r.up("veth0", "veth1")
	r.settle()
	i := 0
	for b.Loop() {
		a := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)})
		if err := r.h.RouteAdd(rtnl.Route{Dst: netip.PrefixFrom(a, 64), Dev: "veth0"}); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "routes/s")
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
