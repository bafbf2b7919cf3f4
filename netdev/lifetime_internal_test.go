package netdev

import (
	"net/netip"
	"testing"
	"time"

	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/assert"
)

// Remaining is what IFA_CACHEINFO reports: whole seconds off both
// lifetimes, never below zero; a permanent IPv4 address shows forever
// whatever its preferred lifetime; an IPv6 one counts a finite preferred
// lifetime down; the valid lifetime counts only while the preferred one is
// finite. Kernel: inet_fill_ifaddr, inet6_fill_ifaddr.
func TestAddrRemaining(t *testing.T) {
	at := func(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }
	v4, v6 := netip.MustParsePrefix("10.0.0.1/24"), netip.MustParsePrefix("2001:db8::1/64")
	set := func(p netip.Prefix, valid, preferred uint32) Addr {
		a := Addr{Prefix: p}
		a.setLifetime(at(10), valid, preferred)
		return a
	}
	for _, tc := range []struct {
		name             string
		a                Addr
		now              sim.Time
		valid, preferred uint32
	}{
		{"no lifetimes given", Addr{Prefix: v4, Flags: AddrPermanent}, at(1e6), LifetimeForever, LifetimeForever},
		{"just set", set(v4, 100, 50), at(10), 100, 50},
		{"partial second", set(v4, 100, 50), at(10.999), 100, 50},
		{"counting down", set(v4, 100, 50), at(30.5), 80, 30},
		{"preferred over", set(v4, 100, 50), at(70), 40, 0},
		{"both over", set(v6, 100, 50), at(1000), 0, 0},
		{"ipv4 permanent, finite preferred", set(v4, LifetimeForever, 50), at(30), LifetimeForever, LifetimeForever},
		{"ipv6 permanent, finite preferred", set(v6, LifetimeForever, 50), at(30), LifetimeForever, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, p := tc.a.Remaining(tc.now)
			assert.Equal(t, tc.valid, v, "valid")
			assert.Equal(t, tc.preferred, p, "preferred")
		})
	}
}

// setLifetime sets IFA_F_PERMANENT for an infinite valid lifetime and
// IFA_F_DEPRECATED for a zero preferred one, clearing both first.
// Kernel: set_ifa_lifetime.
func TestSetLifetimeFlags(t *testing.T) {
	a := Addr{Prefix: netip.MustParsePrefix("10.0.0.1/24"), Flags: AddrDeprecated | AddrNoPrefixRoute}
	a.setLifetime(0, LifetimeForever, LifetimeForever)
	assert.Equal(t, AddrPermanent|AddrNoPrefixRoute, a.Flags)
	a.setLifetime(0, 10, 0)
	assert.Equal(t, AddrDeprecated|AddrNoPrefixRoute, a.Flags)
}
