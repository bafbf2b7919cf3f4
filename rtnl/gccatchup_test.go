package rtnl_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The IPv6 route garbage collector runs once for a clock that passed many
// of its 30 s intervals at once (Settle to an address lifetime's end, one
// year on), not once for each interval missed, and leaves the table as the
// kernel's would: a route that expired is gone, one that has not stays,
// and the collector stays armed, 30 s apart on whole seconds.
// Kernel: fib6_run_gc, fib6_age (net/ipv6/ip6_fib.c).
func TestFib6GCAfterClockJump(t *testing.T) {
	r := addrRig(t)
	r.settle()
	for i := range 100 {
		r.ok(r.h.RouteAdd(rtnl.Route{Dst: netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 1, byte(i)}), 64), Dev: "va"}))
	}
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:db8:2::/64"), Dev: "va", Expires: 200 * 24 * time.Hour}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:db8:3::/64"), Dev: "va", Expires: 2 * 365 * 24 * time.Hour}))
	const year = 365 * 24 * time.Hour
	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: pfx("10.9.0.1/24"), ValidLft: uint32(year / time.Second), PreferredLft: 1}))
	f := r.k.InitNet().FIB6()
	before := f.GCRuns()
	a, ok := r.addr("va", "10.9.0.1")
	require.True(t, ok)
	noHang(t, "Settle", func() { r.settle() })
	require.GreaterOrEqual(t, r.t.Now(), a.Stamp().Add(year), "Settle ran the lifetime's end")
	require.Less(t, r.t.Now(), a.Stamp().Add(year+time.Millisecond))
	assert.Equal(t, before, f.GCRuns(), "the collector runs lazily, before a request")

	l := r.routes6() // a request: the collector runs
	assert.Equal(t, before+1, f.GCRuns(), "one run for a year of missed intervals (1051200 of them)")
	t.Logf("a jump of a year: %d collector run(s) for %d missed 30 s intervals", f.GCRuns()-before, int64(year/(30*time.Second)))
	assert.NotContains(t, l, "2001:db8:2::/64 dev va metric 1024")
	found := false
	for _, s := range l {
		found = found || len(s) > 16 && s[:16] == "2001:db8:3::/64 "
	}
	assert.True(t, found, "the route with a year left stays: %v", l)

	// Armed still, on the kernel's schedule: every 30 s.
	r.k.SettleFor(r.t, 29*time.Second)
	r.routes6()
	runs := f.GCRuns()
	r.k.SettleFor(r.t, 2*time.Second)
	r.routes6()
	assert.Equal(t, runs+1, f.GCRuns(), "the next run within 31 s")
}
