package fib6

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
)

func requireErrno(t *testing.T, err error, want syscall.Errno, msg string) {
	t.Helper()
	require.Error(t, err)
	var e *errno.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, want, e.Errno)
	require.Equal(t, msg, e.Msg)
}

// The real kernel (Linux 6.18, unshare -n, lo down):
//
//	ip -6 route add blackhole 2001:db8::/32
//	ip -6 route add unreachable 2001:db8:1::/48
//	ip -6 route add unreachable 2001:db8:1::/48 metric 5
//	ip -6 route add unreachable 2001:db8:2::/48 from 2001:1::/32
//	cat /proc/net/rt6_stats /proc/net/ipv6_route
//	ip -6 route del 2001:db8:1::/48
//	cat /proc/net/rt6_stats
func TestKernelTranscriptRejectRoutes(t *testing.T) {
	e := newTreeEnv(t)
	f := e.f
	require.Equal(t, "0000 0000 0000 0000 0000 0000 0000\n", f.rt6Stats())
	require.Equal(t,
		"00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200         \n"+
			"00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200         \n",
		f.ipv6Route())
	f.nullEntry.fnh.dev = e.lo
	require.NoError(t, e.add(routeSpec{dst: "2001:db8::/32"}, fib.ModeAdd))
	require.Equal(t, "0001 0001 0000 0001 0000 0000 0000\n", f.rt6Stats())
	require.NoError(t, e.add(routeSpec{dst: "2001:db8:1::/48"}, fib.ModeAdd))
	require.NoError(t, e.add(routeSpec{dst: "2001:db8:1::/48", metric: 5}, fib.ModeAdd))
	require.NoError(t, e.add(routeSpec{dst: "2001:db8:2::/48", src: "2001:1::/32"}, fib.ModeAdd))
	require.Equal(t, "0006 0003 0000 0004 0000 0000 0000\n", f.rt6Stats())
	require.Equal(t, ""+
		"20010db8000100000000000000000000 30 00000000000000000000000000000000 00 00000000000000000000000000000000 00000005 00000002 00000000 00200200       lo\n"+
		"20010db8000100000000000000000000 30 00000000000000000000000000000000 00 00000000000000000000000000000000 00000400 00000001 00000000 00200200       lo\n"+
		"20010db8000200000000000000000000 30 20010001000000000000000000000000 20 00000000000000000000000000000000 00000400 00000002 00000000 00200200       lo\n"+
		"20010db8000000000000000000000000 20 00000000000000000000000000000000 00 00000000000000000000000000000000 00000400 00000001 00000000 00200200       lo\n"+
		"00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000002 00000000 00200200       lo\n"+
		"00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000002 00000000 00200200       lo\n",
		f.ipv6Route())
	require.True(t, e.del(routeSpec{dst: "2001:db8:1::/48"}))
	require.Equal(t, "0006 0003 0000 0003 0000 0000 0001\n", f.rt6Stats())

	// append, add and prepend of the same reject route: EEXIST (duplicate
	// nexthop); change of a missing prefix: ENOENT with fib6_add_1's text.
	for _, m := range []fib.Mode{fib.ModeAppend, fib.ModeAdd, fib.ModePrepend} {
		requireErrno(t, e.add(routeSpec{dst: "2001:db8:1::/48"}, m), syscall.EEXIST, "")
	}
	require.NoError(t, e.add(routeSpec{dst: "2001:db8:1::/48"}, fib.ModeReplace))
	requireErrno(t, e.add(routeSpec{dst: "2001:db8:7::/48"}, fib.ModeChange), syscall.ENOENT,
		"Can not replace route - no match found")
	require.Equal(t, "0006 0003 0000 0003 0000 0000 0001\n", f.rt6Stats())
	require.NoError(t, f.checkTree())
}
