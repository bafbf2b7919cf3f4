package rtnl_test

import (
	"net/netip"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// addrRig is a rig with a veth pair va/vb, both up.
func addrRig(t *testing.T) *rig {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb"}))
	r.up("va", "vb")
	return r
}

// addr returns the listed address of dev whose local address is a, and
// false if there is none.
func (r *rig) addr(dev, a string) (rtnl.AddrInfo, bool) {
	r.tb.Helper()
	as, err := r.h.AddrList(dev, rt.FamilyUnspec)
	require.NoError(r.tb, err)
	for _, x := range as {
		if x.Prefix.Addr() == netip.MustParseAddr(a) {
			return x, true
		}
	}
	return rtnl.AddrInfo{}, false
}

// Lifetimes count down in virtual time: the address is deprecated when its
// preferred lifetime is over and removed, with its routes, when its valid
// lifetime is. Kernel: check_lifetime (net/ipv4/devinet.c),
// addrconf_verify_rtnl (net/ipv6/addrconf.c).
func TestAddrLifetimeExpiry(t *testing.T) {
	for _, tc := range []struct {
		name, addr string
		flags      netdev.AddrFlags
	}{
		{"ipv4", "10.0.0.1/24", 0},
		{"ipv6", "2001:db8::1/64", netdev.AddrNoDAD},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := addrRig(t)
			r.settle() // link-local DAD done, before any lifetime starts
			base := r.dev("va").IPv6Routes()
			p := pfx(tc.addr)
			r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: p, Flags: tc.flags, ValidLft: 100, PreferredLft: 50}))
			a, ok := r.addr("va", p.Addr().String())
			require.True(t, ok)
			assert.Equal(t, uint32(100), a.ValidLft)
			assert.Equal(t, uint32(50), a.PreferredLft)
			assert.Zero(t, a.Flags&(netdev.AddrPermanent|netdev.AddrDeprecated), "dynamic, not deprecated")

			r.t.Sleep(49*time.Second + 500*time.Millisecond)
			a, ok = r.addr("va", p.Addr().String())
			require.True(t, ok)
			assert.Equal(t, uint32(51), a.ValidLft, "whole seconds elapsed are taken off")
			assert.Equal(t, uint32(1), a.PreferredLft)
			assert.Zero(t, a.Flags&netdev.AddrDeprecated)

			r.t.Sleep(time.Second)
			a, ok = r.addr("va", p.Addr().String())
			require.True(t, ok)
			assert.NotZero(t, a.Flags&netdev.AddrDeprecated, "deprecated after 50 s")
			assert.Equal(t, uint32(0), a.PreferredLft)
			assert.Equal(t, uint32(50), a.ValidLft)

			r.t.Sleep(50 * time.Second)
			_, ok = r.addr("va", p.Addr().String())
			assert.False(t, ok, "removed after 100 s")
			if p.Addr().Is4() {
				for _, l := range r.routes() {
					assert.NotContains(t, l, "10.0.0.")
				}
			} else {
				// The local route went with the address; the prefix
				// route, which expired with it, stays until the
				// collector runs (at most gc_interval, 30 s, later), as
				// on Linux 6.18 (`ip -6 route` shows "expires -5sec").
				assert.Equal(t, base+1, r.dev("va").IPv6Routes())
				assert.Contains(t, r.routes6(), "2001:db8::/64 dev va proto kernel metric 256")
				assert.NotContains(t, strings.Join(r.routes6(), "\n"), "local 2001:db8::1")
				r.t.Sleep(30 * time.Second)
				assert.NotContains(t, strings.Join(r.routes6(), "\n"), "2001:db8::")
				assert.Equal(t, base, r.dev("va").IPv6Routes(), "the collector removed the prefix route")
			}
		})
	}
}

// Replacing an address restarts its lifetimes; an infinite valid lifetime
// makes it permanent, and it never expires.
func TestAddrReplaceLifetimes(t *testing.T) {
	r := addrRig(t)
	p := pfx("10.0.0.1/24")
	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: p, ValidLft: 10, PreferredLft: 10}))
	r.t.Sleep(8 * time.Second)
	r.ok(r.h.AddrReplace("va", netdev.Addr{Prefix: p, ValidLft: 10, PreferredLft: 5}))
	r.t.Sleep(8 * time.Second)
	a, ok := r.addr("va", "10.0.0.1")
	require.True(t, ok, "the replace restarted the valid lifetime")
	assert.Equal(t, uint32(2), a.ValidLft)
	assert.NotZero(t, a.Flags&netdev.AddrDeprecated)

	r.ok(r.h.AddrChange("va", netdev.Addr{Prefix: p}))
	r.t.Sleep(time.Hour)
	a, ok = r.addr("va", "10.0.0.1")
	require.True(t, ok, "permanent now")
	assert.Equal(t, netdev.LifetimeForever, a.ValidLft)
	assert.Equal(t, netdev.LifetimeForever, a.PreferredLft)
	assert.Equal(t, netdev.AddrPermanent, a.Flags)
}

// An IPv4 replace changes only the lifetimes of an existing address; a
// plain add of it is EEXIST; replace and change create a missing one.
// Kernel: inet_rtm_newaddr (net/ipv4/devinet.c).
func TestAddrReplaceIPv4(t *testing.T) {
	r := addrRig(t)
	p := pfx("10.0.0.1/24")
	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: p, Label: "va:1"}))
	err := r.h.AddrAdd("va", p)
	require.ErrorIs(t, err, syscall.EEXIST)
	assert.EqualError(t, err, "file exists: ipv4: Address already assigned")

	r.ok(r.h.AddrReplace("va", netdev.Addr{Prefix: p, Label: "other", Scope: netdev.ScopeLink,
		Broadcast: netip.MustParseAddr("10.0.0.255"), PreferredLft: 0, ValidLft: netdev.LifetimeForever}))
	a, _ := r.addr("va", "10.0.0.1")
	assert.Equal(t, "va:1", a.Label)
	assert.Equal(t, netdev.ScopeUniverse, a.Scope)
	assert.False(t, a.Broadcast.IsValid())
	assert.Equal(t, netdev.AddrPermanent|netdev.AddrDeprecated, a.Flags)

	r.ok(r.h.AddrChange("va", netdev.Addr{Prefix: pfx("10.0.0.1/16")}))
	r.ok(r.h.AddrReplace("va", netdev.Addr{Prefix: pfx("10.1.0.1/16")}))
	as, err := r.h.AddrList("va", rt.FamilyInet)
	r.ok(err)
	var got []string
	for _, a := range as {
		got = append(got, a.Prefix.String())
	}
	assert.Equal(t, []string{"10.0.0.1/24", "10.0.0.1/16", "10.1.0.1/16"}, got)
}

// An IPv6 replace modifies the address whatever prefix length it names:
// lifetimes and flags, with noprefixroute taking the prefix route away and
// back. Kernel: inet6_addr_modify (net/ipv6/addrconf.c).
func TestAddrReplaceIPv6(t *testing.T) {
	r := addrRig(t)
	r.settle()
	d := r.dev("va")
	before := d.IPv6Routes()
	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: pfx("2001:db8::1/64"), Flags: netdev.AddrNoDAD}))
	r.settle()
	withPrefix := d.IPv6Routes()
	assert.Equal(t, before+2, withPrefix, "prefix route and host route")

	r.ok(r.h.AddrReplace("va", netdev.Addr{Prefix: pfx("2001:db8::1/48"), Flags: netdev.AddrNoPrefixRoute, PreferredLft: 0, ValidLft: netdev.LifetimeForever}))
	a, ok := r.addr("va", "2001:db8::1")
	require.True(t, ok)
	assert.Equal(t, 64, a.Prefix.Bits(), "the prefix length stays")
	assert.Equal(t, netdev.AddrNoPrefixRoute|netdev.AddrPermanent|netdev.AddrDeprecated, a.Flags, "nodad cleared")
	assert.Equal(t, uint32(0), a.PreferredLft)
	assert.Equal(t, withPrefix-1, d.IPv6Routes(), "no prefix route")

	r.ok(r.h.AddrChange("va", netdev.Addr{Prefix: pfx("2001:db8::1/64")}))
	assert.Equal(t, withPrefix, d.IPv6Routes(), "the prefix route is back")
	err := r.h.AddrAdd("va", pfx("2001:db8::1/64"))
	require.ErrorIs(t, err, syscall.EEXIST)
}

// Bad lifetimes are refused and change nothing.
func TestAddrBadLifetimes(t *testing.T) {
	r := addrRig(t)
	for _, a := range []netdev.Addr{
		{Prefix: pfx("10.0.0.1/24"), ValidLft: 0, PreferredLft: 5},
		{Prefix: pfx("10.0.0.1/24"), ValidLft: 5, PreferredLft: 6},
		{Prefix: pfx("2001:db8::1/64"), ValidLft: 5, PreferredLft: 6},
	} {
		err := r.h.AddrAddWith("va", a)
		require.ErrorIs(t, err, syscall.EINVAL)
		assert.Contains(t, err.Error(), "address lifetime invalid")
		_, ok := r.addr("va", a.Prefix.Addr().String())
		assert.False(t, ok)
	}
}

// A point-to-point address's prefix route goes to the peer's prefix;
// noprefixroute leaves the prefix route out. Kernel: fib_add_ifaddr
// (net/ipv4/fib_frontend.c).
func TestAddrPeerAndNoPrefixRoute(t *testing.T) {
	r := addrRig(t)
	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: pfx("10.1.0.1/24"), Peer: netip.MustParseAddr("10.2.0.0")}))
	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: pfx("10.3.0.1/24"), Flags: netdev.AddrNoPrefixRoute}))
	main := r.routes()
	assert.Contains(t, main, "10.2.0.0/24 dev va proto kernel scope link src 10.1.0.1")
	for _, l := range main {
		assert.NotContains(t, l, "10.1.0.0/24")
		assert.NotContains(t, l, "10.3.0.0/24")
	}
	a, _ := r.addr("va", "10.1.0.1")
	assert.Equal(t, netip.MustParseAddr("10.2.0.0"), a.Peer)

	// A delete names the peer's prefix, not the local address's.
	err := r.h.AddrDel("va", pfx("10.1.0.1/24"))
	require.ErrorIs(t, err, syscall.EADDRNOTAVAIL)
	r.ok(r.h.AddrDelWith("va", netdev.Addr{Prefix: pfx("10.1.0.1/24"), Peer: netip.MustParseAddr("10.2.0.0")}))
	assert.False(t, slices.Contains(r.routes(), "10.2.0.0/24 dev va proto kernel scope link src 10.1.0.1"))
}

// A delete with a label removes only an address with that label; 0.0.0.0
// is accepted and stored nowhere. Kernel: inet_rtm_deladdr,
// __inet_insert_ifa (net/ipv4/devinet.c).
func TestAddrDelLabelAndZero(t *testing.T) {
	r := addrRig(t)
	r.ok(r.h.AddrAddWith("va", netdev.Addr{Prefix: pfx("10.0.0.1/24"), Label: "web"}))
	err := r.h.AddrDelWith("va", netdev.Addr{Prefix: pfx("10.0.0.1/24"), Label: "va"})
	require.ErrorIs(t, err, syscall.EADDRNOTAVAIL)
	assert.EqualError(t, err, "cannot assign requested address: ipv4: Address not found")
	_, ok := r.addr("va", "10.0.0.1")
	assert.True(t, ok, "a refused delete changes nothing")
	r.ok(r.h.AddrDelWith("va", netdev.Addr{Prefix: pfx("10.0.0.1/24"), Label: "web"}))

	r.ok(r.h.AddrAdd("va", pfx("0.0.0.0/0")))
	as, err := r.h.AddrList("va", rt.FamilyInet)
	r.ok(err)
	assert.Empty(t, as)
}

// Under the scheduler the lifetime check is a kworker task sleeping until
// the address runs out; the address goes at that virtual time.
func TestAddrLifetimeScheduled(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{})
	k, err := rtnl.NewKernelIn(w, rtnl.After)
	require.NoError(t, err)
	var before, after []rtnl.AddrInfo
	w.Spawn("ip", func(t2 *sim.Task) {
		h := k.InitNet().Handle(t2)
		require.NoError(t, h.LinkAdd(netdev.Dummy{Name: "d0"}))
		require.NoError(t, h.AddrAddWith("d0", netdev.Addr{Prefix: pfx("10.0.0.1/24"), ValidLft: 5, PreferredLft: 5}))
		t2.Sleep(4 * time.Second)
		before, _ = h.AddrList("d0", rt.FamilyInet)
		t2.Sleep(2 * time.Second)
		after, _ = h.AddrList("d0", rt.FamilyInet)
	})
	end := w.Run()
	require.Len(t, before, 1)
	assert.Equal(t, uint32(1), before[0].ValidLft)
	assert.Empty(t, after, "removed by check_lifetime at 5 s")
	assert.GreaterOrEqual(t, end, sim.Time(6*time.Second))
}
