// Tests of the counted walks' leaf list index (counted.go) as
// fib6_add_rt2node (net/ipv6/ip6_fib.c) uses it: a duplicate added to a
// long leaf list.

package fib6

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/sim"
)

// TestLongLeafListDuplicate adds duplicates to a leaf list of 100 routes
// (one per metric) with the real and the counted walks: the same EEXIST,
// the same expiry updates of the route already there, and with counted
// walks the duplicate found from the index, not by a scan.
func TestLongLeafListDuplicate(t *testing.T) {
	run := func(counted bool) []string {
		e := newTreeEnv(t)
		e.f.SetCountedWalks(counted)
		spec := func(metric uint32) routeSpec {
			return routeSpec{dst: "2001:db8::/64", metric: metric, dev: "d0", table: 254}
		}
		addExpiring := func(metric uint32, expires sim.Time) error {
			r := e.newRoute(spec(metric))
			if expires != 0 {
				r.flags |= rtfExpires
				r.expires = expires
			}
			err := e.f.newTable(254).add(e.t, r, 0)
			e.f.release(e.t, r)
			return err
		}
		for m := uint32(1); m <= 100; m++ {
			var exp sim.Time
			if m == 60 {
				exp = 1000
			}
			require.NoError(t, addExpiring(m, exp))
		}
		fn := e.f.getTable(254).locate(mustKey("2001:db8::/64"), key{}, true)
		require.NotNil(t, fn)
		route := func(metric uint32) *Info {
			for r := fn.leaf; r != nil; r = r.next {
				if r.metric == metric {
					return r
				}
			}
			return nil
		}
		if counted {
			nrt := e.newRoute(spec(50))
			require.Same(t, route(50), e.f.duplicateAt(fn, nrt, 0, nrt.qualifyForECMP()))
			e.f.release(e.t, nrt)
		}
		var out []string
		step := func(what string, err error) {
			var en syscall.Errno
			if err != nil && !errors.As(err, &en) {
				t.Fatalf("%s: %v", what, err)
			}
			r60 := route(60)
			out = append(out, fmt.Sprintf("%s: %v; metric 60 flags %#x expires %d", what, en, r60.flags&rtfExpires, r60.expires))
			if counted {
				require.NoError(t, e.f.checkCounted(), what)
			}
		}
		step("duplicate of 50", addExpiring(50, 0))
		step("duplicate of 60 expiring at 2000", addExpiring(60, 2000))
		step("duplicate of 60", addExpiring(60, 0))
		step("duplicate of 60 expiring at 3000", addExpiring(60, 3000))
		require.True(t, e.del(spec(50)))
		step("50 again", addExpiring(50, 0))
		step("duplicate of 50 again", addExpiring(50, 0))
		step("new metric 150", addExpiring(150, 0))
		n := 0
		for r := fn.leaf; r != nil; r = r.next {
			n++
		}
		out = append(out, fmt.Sprintf("%d routes", n))
		return out
	}
	real, counted := run(false), run(true)
	require.Equal(t, []string{
		"duplicate of 50: file exists; metric 60 flags 0x400000 expires 1000",
		"duplicate of 60 expiring at 2000: file exists; metric 60 flags 0x400000 expires 2000",
		"duplicate of 60: file exists; metric 60 flags 0x0 expires 0",
		"duplicate of 60 expiring at 3000: file exists; metric 60 flags 0x0 expires 0", // no RTF_EXPIRES now: left alone
		"50 again: errno 0; metric 60 flags 0x0 expires 0",
		"duplicate of 50 again: file exists; metric 60 flags 0x0 expires 0",
		"new metric 150: errno 0; metric 60 flags 0x0 expires 0",
		"101 routes",
	}, real)
	require.Equal(t, real, counted)
}
