package fib6

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
)

var atomicitySeed = flag.Uint64("fib6.seed", 0, "run TestRandomRequests with this seed only")

// TestRandomRequests applies seeded random route requests — good and bad
// gateways, devices, types, metrics, modes, multipath, deletes, device
// events — and checks after each that the tree's invariants hold and that
// a refused request changed no route. The one exception is the kernel's
// own: a multipath replace that fails after its first path leaves what it
// did ("multipath route replace failed"), and a multipath delete deletes
// path by path, returning the last error (ip6_route_multipath_del).
func TestRandomRequests(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, 6, 7, 8}
	if *atomicitySeed != 0 {
		seeds = []uint64{*atomicitySeed}
	}
	for _, seed := range seeds {
		e := newRouteEnv(t)
		r := rand.New(rand.NewPCG(seed, 0))
		dsts := []string{"::/0", "2001:db8:10::/64", "2001:db8:10::/48", "2001:db8:10:1::/64", "2001:db8:11::/64", "2001:db8:10::1/128", "2001:db8:20::/60"}
		srcs := []string{"", "", "", "2001:db8:99::/64", "2001:db8:98::/48"}
		gws := []string{"", "2001:db8::1", "2001:db8::3", "2001:db8:2::1", "2001:db8:2::5", "fe80::1", "2001:db8:77::1", "2001:db8::2", "ff02::1"}
		devs := []*netdev.Device{nil, e.d["v0"], e.d["v2"], e.lo}
		types := []rt.Type{0, 0, 0, rt.TypeBlackhole, rt.TypeUnreachable, rt.TypeProhibit, rt.TypeThrow}
		modes := []rt.NLMFlags{rt.ModeAdd, rt.ModeAppend, rt.ModePrepend, rt.ModeReplace, rt.ModeChange}
		pick := func(n int) int { return r.IntN(n) }
		var ok, refused int
		for step := range 400 {
			q := Route{Dst: pfx(dsts[pick(len(dsts))]), Type: types[pick(len(types))], Priority: uint32(pick(3)) * 512}
			if s := srcs[pick(len(srcs))]; s != "" {
				q.Src = pfx(s)
			}
			if g := gws[pick(len(gws))]; g != "" {
				q.Gateway = netip.MustParseAddr(g)
			}
			q.Dev = devs[pick(len(devs))]
			if pick(5) == 0 {
				q.Gateway, q.Dev = netip.Addr{}, nil
				for range 1 + pick(3) {
					p := fib.Path{Dev: devs[pick(3)], Weight: 1 + pick(3)}
					if g := gws[pick(len(gws))]; g != "" {
						p.Gateway = netip.MustParseAddr(g)
					}
					q.Multipath = append(q.Multipath, p)
				}
			}
			before := dumpText(e.f.Routes(0))
			var err error
			mode := modes[pick(len(modes))]
			partial := false
			switch pick(10) {
			case 0, 1, 2:
				err = e.f.Del(e.t, q)
				partial = len(q.Multipath) > 0
			case 3:
				d := devs[1+pick(2)]
				ev := []netdev.Event{netdev.EventChange, netdev.EventDown}[pick(2)]
				e.f.SyncDownDev(e.t, d, ev)
				e.f.SyncUp(e.t, d, uint8(rt.FlagDead|rt.FlagLinkDown))
			default:
				err = e.f.Add(e.t, q, mode)
			}
			require.NoError(t, e.f.CheckInvariants(), "seed %d step %d: %+v mode %#x", seed, step, q, mode)
			if err == nil {
				ok++
				continue
			}
			refused++
			if m := err.(*errno.Error).Msg; partial || m == "ipv6: multipath route replace failed (check consistency of installed routes)" {
				continue
			}
			require.Equal(t, before, dumpText(e.f.Routes(0)), "seed %d step %d: refused %+v mode %#x (%v) changed the routes", seed, step, q, mode, err)
		}
		require.Positive(t, ok, "seed %d: some requests succeed", seed)
		require.Positive(t, refused, "seed %d: some requests are refused", seed)
	}
}

// dumpText renders routes compactly, devices by name.
func dumpText(rs []Route) []string {
	var out []string
	for _, r := range rs {
		s := fmt.Sprintf("%d %v from %v type %v proto %v metric %d gw %v dev %v nhid %d flags %v exp %v",
			r.Table, r.Dst, r.Src, r.Type, r.Protocol, r.Priority, r.Gateway, r.Dev, r.NexthopID, r.Flags, r.Expires)
		for _, p := range r.Multipath {
			s += fmt.Sprintf(" [%v %v w%d %v]", p.Gateway, p.Dev, p.Weight, p.Flags)
		}
		out = append(out, s)
	}
	return out
}
