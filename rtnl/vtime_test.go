package rtnl_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noHang runs fn and fails the test if it has not returned after 20 s of
// real time: a guard against a virtual clock that spins, not an assertion
// on speed (the test's assertions are on virtual time).
func noHang(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not return: the virtual clock spins", what)
	}
}

// The longest finite lifetime, 4294967294 s (INFINITY_LIFE_TIME less one,
// about 136 years), runs out: Settle moves the clock to its end, however
// far the clock has run already; a lifetime that would end past the end of
// virtual time (sim.End, about 292 years) never runs out, and Settle
// neither spins nor overflows the clock. Kernel: set_ifa_lifetime,
// check_lifetime (net/ipv4/devinet.c).
func TestSettleLongestFiniteLifetime(t *testing.T) {
	const lft = 4294967294
	r := addrRig(t)
	r.settle()
	var stamps, ends [3]sim.Time
	var present [3]bool
	noHang(t, "Settle", func() {
		for i := range 3 {
			p := pfx(fmt.Sprintf("10.0.%d.1/24", i))
			if r.h.AddrAddWith("va", netdev.Addr{Prefix: p, ValidLft: lft, PreferredLft: lft}) != nil {
				return
			}
			l, _ := r.h.AddrList("va", rt.FamilyInet)
			for _, a := range l {
				if a.Prefix == p {
					stamps[i] = a.Stamp()
				}
			}
			r.settle()
			ends[i] = r.t.Now()
		}
	})
	for i := range 3 {
		_, present[i] = r.addr("va", fmt.Sprintf("10.0.%d.1", i))
	}
	life := time.Duration(lft) * time.Second
	// Settle ends when the removal does: the lifetime's end and the
	// removal's cost.
	for i := range 2 {
		assert.False(t, present[i], "address %d", i)
		assert.GreaterOrEqual(t, ends[i], stamps[i].Add(life), "address %d ran out 4294967294 s after its add", i)
		assert.Less(t, ends[i], stamps[i].Add(life+time.Millisecond), "address %d", i)
	}
	require.Greater(t, stamps[1], sim.Time(life), "the second was added 136 years on")
	require.Greater(t, stamps[2], sim.End-sim.Time(life), "the third would end past the end of virtual time")
	assert.Less(t, ends[2], stamps[2].Add(time.Millisecond), "Settle returns at once: nothing can run")
	assert.True(t, present[2], "it never runs out")
	a, ok := r.addr("va", "10.0.2.1")
	require.True(t, ok)
	assert.Equal(t, uint32(lft), a.ValidLft, "ip shows its time left")

	// SettleFor to the end of virtual time neither spins nor overflows.
	noHang(t, "SettleFor", func() { r.k.SettleFor(r.t, 1<<62) })
	assert.Equal(t, sim.End, r.t.Now(), "the clock stops at sim.End")
	a, ok = r.addr("va", "10.0.2.1")
	require.True(t, ok)
	left := uint32(lft - int64(sim.End.Sub(stamps[2])/time.Second))
	assert.Equal(t, left, a.ValidLft)
	assert.Equal(t, left, a.PreferredLft)
	r.t.Sleep(time.Hour)
	assert.Equal(t, sim.End, r.t.Now(), "a task's clock saturates at sim.End")
}
