package netdev_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// TestAddrAddIndexWalksNothing: netsim finds where a new address goes from
// its indexes, not by walking the device's lists as the kernel does (the
// kernel's walks are charged, not done): adding n new IPv4 and IPv6
// addresses to one device examines no list entry in Go, however large n,
// while the charged scans grow as n².
func TestAddrAddIndexWalksNothing(t *testing.T) {
	for _, n := range []int{100, 1000, 4000} {
		e := newEnv(t, netdev.Config{})
		e.add(netdev.Veth{Name: "v0", Peer: "v1"})
		d := e.dev("v0")
		before := e.w.Counters()
		e.do(func() error {
			for i := range n {
				b := [4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}
				if err := d.AddInet4(e.t, netdev.Addr{Prefix: netip.PrefixFrom(netip.AddrFrom4(b), 32)}); err != nil {
					return err
				}
				if err := d.AddInet6(e.t, netdev.Addr{Prefix: netip.MustParsePrefix(fmt.Sprintf("2001:db8::%x:%x/128", i>>16, i&0xffff))}); err != nil {
					return err
				}
			}
			return nil
		})
		c := e.w.Counters().Sub(before)
		require.Equal(t, int64(n*(n-1)), c.Get(sim.IfaScan), "n=%d: the kernel's walks are charged", n)
		require.Greater(t, c.Get(sim.McListScan), int64(n*(n-1)/2), "n=%d", n)
		inet4, mc6 := d.IndexWalks()
		require.Zero(t, inet4, "n=%d: IPv4 list entries examined in Go", n)
		require.Zero(t, mc6, "n=%d: IPv6 groups examined in Go", n)
	}
}

// refAddr is an address of refList.
type refAddr struct {
	p     netip.Prefix
	scope netdev.Scope
	sec   bool
}

func (a refAddr) subnet() netip.Prefix { return a.p.Masked() }

// refList is the obviously correct twin of a device's IPv4 list: the
// kernel's walks, done for real. scans counts the entries its walks examine.
type refList struct {
	l       []refAddr
	promote bool
	scans   int64
}

// add is find_matching_ifa then __inet_insert_ifa.
func (r *refList) add(a refAddr) error {
	for i, o := range r.l {
		if o.subnet() == a.subnet() && o.p.Addr() == a.p.Addr() {
			r.scans += int64(i + 1)
			return syscall.EEXIST
		}
	}
	r.scans += int64(len(r.l))
	last := 0
	for i, o := range r.l {
		if !o.sec && a.scope <= o.scope {
			last = i + 1
		}
		if o.subnet() == a.subnet() {
			if o.p.Addr() == a.p.Addr() {
				r.scans += int64(i + 1)
				return syscall.EEXIST
			}
			if o.scope != a.scope {
				r.scans += int64(i + 1)
				return syscall.EINVAL
			}
			a.sec = true
		}
	}
	r.scans += int64(len(r.l))
	if a.sec {
		r.l = append(r.l, a)
	} else {
		r.l = slices.Insert(r.l, last, a)
	}
	return nil
}

// del is inet_rtm_deladdr's search, then __inet_del_ifa as netdev models it.
func (r *refList) del(p netip.Prefix) error {
	i := slices.IndexFunc(r.l, func(o refAddr) bool { return o.p == p })
	if i < 0 {
		r.scans += int64(len(r.l))
		return syscall.EADDRNOTAVAIL
	}
	r.scans += int64(i + 1)
	v := r.l[i]
	if v.sec || !r.promote {
		r.l = slices.Delete(r.l, i, i+1)
		if !v.sec {
			r.l = slices.DeleteFunc(r.l, func(o refAddr) bool { return o.sec && o.subnet() == v.subnet() })
		}
		return nil
	}
	// The walk from the victim's next: last_prim (a slot of the list once
	// the victim is gone: the victim's own, or the one after a primary of
	// its scope or a narrower one), prev_prom, and the subnet's first
	// secondary.
	lastPrim, prevProm, promote := i, -1, -1
	for k := i + 1; k < len(r.l); k++ {
		o := r.l[k]
		if !o.sec && v.scope <= o.scope {
			lastPrim = k
		}
		if !o.sec || o.subnet() != v.subnet() {
			prevProm = k
			continue
		}
		promote = k
		break
	}
	r.l = slices.Delete(r.l, i, i+1)
	if promote < 0 {
		return nil
	}
	pr := r.l[promote-1]
	pr.sec = false
	r.l[promote-1] = pr
	if prevProm >= 0 {
		r.l = slices.Delete(r.l, promote-1, promote)
		r.l = slices.Insert(r.l, lastPrim, pr)
	}
	return nil
}

// TestAddrIndexAgainstWalks: random adds and deletes of IPv4 addresses
// (a few local addresses, prefix lengths and scopes, so that secondaries,
// refusals and promotions are frequent) leave the device's list as the
// walking twin leaves it, refuse the same requests with the same errors,
// and charge the scans the twin counts.
func TestAddrIndexAgainstWalks(t *testing.T) {
	scopes := []netdev.Scope{netdev.ScopeUniverse, netdev.ScopeLink, netdev.ScopeHost}
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 22))
		e := newEnv(t, netdev.Config{})
		ref := &refList{promote: seed%2 == 1}
		e.tbl.IPv4All.PromoteSecondaries = ref.promote
		e.add(netdev.Veth{Name: "v0", Peer: "v1"})
		d := e.dev("v0")
		var ops []string
		scans0 := e.w.Counters().Get(sim.IfaScan)
		for range 300 {
			p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(rng.IntN(3)), byte(1 + rng.IntN(6))}), []int{16, 24, 30, 32}[rng.IntN(4)])
			var got, want error
			if rng.IntN(3) > 0 {
				s := scopes[rng.IntN(len(scopes))]
				ops = append(ops, fmt.Sprintf("add %v scope %v", p, s))
				want = ref.add(refAddr{p: p, scope: s})
				got = e.try(func() error { return d.AddInet4(e.t, netdev.Addr{Prefix: p, Scope: s}) })
			} else {
				ops = append(ops, fmt.Sprintf("del %v", p))
				want = ref.del(p)
				got = e.try(func() error { return d.DelInet4(e.t, p) })
			}
			last := ops[max(len(ops)-8, 0):]
			if want == nil {
				require.NoError(t, got, "seed %d, last ops %q", seed, last)
			} else {
				require.True(t, errors.Is(got, want), "seed %d, last ops %q: got %v, want %v", seed, last, got, want)
			}
			var l []refAddr
			for _, a := range d.Inet4Addrs() {
				l = append(l, refAddr{p: a.Prefix, scope: a.Scope, sec: a.Flags&netdev.AddrSecondary != 0})
			}
			require.Equal(t, ref.l, l, "seed %d, last ops %q", seed, last)
			require.Equal(t, ref.scans, e.w.Counters().Get(sim.IfaScan)-scans0, "seed %d, last ops %q: scans", seed, last)
		}
	}
}

// TestInet6ListOrder: a device's IPv6 list keeps the kernel's order (global
// addresses first, newest first; then link-local) through random adds and
// deletes, with the global ones put first without moving the others.
//
// Kernel: ipv6_link_dev_addr (net/ipv6/addrconf.c).
func TestInet6ListOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 22))
	e := newEnv(t, netdev.Config{})
	e.add(netdev.Veth{Name: "v0", Peer: "v1"})
	d := e.dev("v0")
	var want []netip.Prefix // the reference list
	for range 2000 {
		p := netip.MustParsePrefix(fmt.Sprintf("2001:db8::%x/128", rng.IntN(64)))
		if rng.IntN(8) == 0 {
			p = netip.MustParsePrefix(fmt.Sprintf("fe80::%x/64", 1+rng.IntN(4)))
		}
		i := slices.Index(want, p)
		if rng.IntN(3) > 0 {
			err := e.try(func() error { return d.AddInet6(e.t, netdev.Addr{Prefix: p}) })
			if i >= 0 {
				require.ErrorIs(t, err, syscall.EEXIST)
				continue
			}
			require.NoError(t, err)
			at := len(want)
			if p.Addr().IsLinkLocalUnicast() {
				at = slices.IndexFunc(want, func(o netip.Prefix) bool { return o.Addr().IsLinkLocalUnicast() })
				if at < 0 {
					at = len(want)
				}
			} else {
				at = 0
			}
			want = slices.Insert(want, at, p)
		} else {
			err := e.try(func() error { return d.DelInet6(e.t, p) })
			if i < 0 {
				require.ErrorIs(t, err, syscall.EADDRNOTAVAIL)
				continue
			}
			require.NoError(t, err)
			want = slices.Delete(want, i, i+1)
		}
		var got []netip.Prefix
		for _, a := range d.Inet6Addrs() {
			got = append(got, a.Prefix)
		}
		require.Equal(t, want, got)
	}
}
