package fib6

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
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
	require.NoError(t, e.add(routeSpec{dst: "2001:db8::/32"}, rt.ModeAdd))
	require.Equal(t, "0001 0001 0000 0001 0000 0000 0000\n", f.rt6Stats())
	require.NoError(t, e.add(routeSpec{dst: "2001:db8:1::/48"}, rt.ModeAdd))
	require.NoError(t, e.add(routeSpec{dst: "2001:db8:1::/48", metric: 5}, rt.ModeAdd))
	require.NoError(t, e.add(routeSpec{dst: "2001:db8:2::/48", src: "2001:1::/32"}, rt.ModeAdd))
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
	for _, m := range []rt.NLMFlags{rt.ModeAppend, rt.ModeAdd, rt.ModePrepend} {
		requireErrno(t, e.add(routeSpec{dst: "2001:db8:1::/48"}, m), syscall.EEXIST, "")
	}
	require.NoError(t, e.add(routeSpec{dst: "2001:db8:1::/48"}, rt.ModeReplace))
	requireErrno(t, e.add(routeSpec{dst: "2001:db8:7::/48"}, rt.ModeChange), syscall.ENOENT,
		"Can not replace route - no match found")
	require.Equal(t, "0006 0003 0000 0003 0000 0000 0001\n", f.rt6Stats())
	require.NoError(t, f.checkTree())
}

// The real kernel leaks a null entry reference when `change` (replace
// without create) of a source-specific route finds the destination's node
// but creates its subtree in vain:
//
//	ip -6 route change unreachable ::/0 from ::/1
//	ip -6 route change unreachable 2001:db8::/32 from 2001::/16
//	cat /proc/net/ipv6_route /proc/net/rt6_stats
func TestKernelTranscriptChangeSubtreeLeak(t *testing.T) {
	e := newTreeEnv(t)
	f := e.f
	f.nullEntry.fnh.dev = e.lo
	requireErrno(t, e.add(routeSpec{dst: "::/0", src: "::/1"}, rt.ModeChange), syscall.ENOENT,
		"Can not replace route - no match found")
	requireErrno(t, e.add(routeSpec{dst: "2001:db8::/32", src: "2001::/16"}, rt.ModeChange), syscall.ENOENT,
		"Can not replace route - no match found")
	null := "00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000002 00000000 00200200       lo\n"
	require.Equal(t, null+null, f.ipv6Route())
	require.Equal(t, "0000 0000 0000 0000 0000 0000 0000\n", f.rt6Stats())
	require.NoError(t, f.checkTree())
}

func routeLines(s, prefix string) string {
	var out string
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out += l
		}
	}
	return out
}

// The real kernel, with veth v0 and v1 up:
//
//	ip -6 route add 2001:db8::/48 via fe80::1 dev v0
//	ip -6 route append 2001:db8::/48 via fe80::2 dev v0
//	ip -6 route append 2001:db8::/48 via fe80::3 dev v1
//	ip -6 route add unreachable 2001:db8::/48 metric 1024      # File exists
//	ip -6 route append 2001:db8::/48 dev v1
//	ip -6 route append 2001:db8::/48 via fe80::9 dev v1 metric 10
//	ip -6 route del 2001:db8::/48 via fe80::2 dev v0
//	ip -6 route replace 2001:db8::/48 via fe80::5 dev v0
//	ip -6 route add 2001:db8:1::/64 via fe80::1 dev v0
//	ip -6 route append 2001:db8:1::/64 via fe80::2 dev v1
//	ip -6 route replace 2001:db8:1::/64 dev v1
//	ip -6 route prepend 2001:db8:1::/64 via fe80::7 dev v1
func TestKernelTranscriptMultipath(t *testing.T) {
	e := newTreeEnv(t)
	f := e.f
	require.NoError(t, e.add(routeSpec{dst: "2001:db8::/48", gw: "fe80::1", dev: "v0"}, rt.ModeAdd))
	require.NoError(t, e.add(routeSpec{dst: "2001:db8::/48", gw: "fe80::2", dev: "v0"}, rt.ModeAppend))
	require.NoError(t, e.add(routeSpec{dst: "2001:db8::/48", gw: "fe80::3", dev: "v1"}, rt.ModeAppend))
	requireErrno(t, e.add(routeSpec{dst: "2001:db8::/48"}, rt.ModeAdd), syscall.EEXIST, "")
	require.NoError(t, e.add(routeSpec{dst: "2001:db8::/48", dev: "v1"}, rt.ModeAppend))
	require.NoError(t, e.add(routeSpec{dst: "2001:db8::/48", gw: "fe80::9", dev: "v1", metric: 10}, rt.ModeAppend))
	require.Equal(t, ""+
		"20010db8000000000000000000000000 30 00000000000000000000000000000000 00 fe800000000000000000000000000009 0000000a 00000001 00000000 00000003       v1\n"+
		"20010db8000000000000000000000000 30 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003       v0\n"+
		"20010db8000000000000000000000000 30 00000000000000000000000000000000 00 fe800000000000000000000000000002 00000400 00000001 00000000 00000003       v0\n"+
		"20010db8000000000000000000000000 30 00000000000000000000000000000000 00 fe800000000000000000000000000003 00000400 00000001 00000000 00000003       v1\n"+
		"20010db8000000000000000000000000 30 00000000000000000000000000000000 00 00000000000000000000000000000000 00000400 00000001 00000000 00000001       v1\n",
		routeLines(f.ipv6Route(), "20010db8"))
	fn := f.main.locate(mustKey("2001:db8::/48"), key{}, true)
	require.NotNil(t, fn)
	mp := fn.leaf.next
	require.Equal(t, 2, mp.nsiblings)
	// A dump shows the multipath route once.
	var dumped []uint32
	f.main.each(func(rt *Info) bool { dumped = append(dumped, rt.metric); return true })
	require.Equal(t, []uint32{10, 1024, 1024, ^uint32(0)}, dumped)

	require.True(t, e.del(routeSpec{dst: "2001:db8::/48", gw: "fe80::2"}))
	require.Equal(t, 1, mp.nsiblings)
	require.NoError(t, f.checkTree())
	require.NoError(t, e.add(routeSpec{dst: "2001:db8::/48", gw: "fe80::5", dev: "v0"}, rt.ModeReplace))
	require.Equal(t, ""+
		"20010db8000000000000000000000000 30 00000000000000000000000000000000 00 fe800000000000000000000000000009 0000000a 00000001 00000000 00000003       v1\n"+
		"20010db8000000000000000000000000 30 00000000000000000000000000000000 00 fe800000000000000000000000000005 00000400 00000001 00000000 00000003       v0\n"+
		"20010db8000000000000000000000000 30 00000000000000000000000000000000 00 00000000000000000000000000000000 00000400 00000001 00000000 00000001       v1\n",
		routeLines(f.ipv6Route(), "20010db8"))

	require.NoError(t, e.add(routeSpec{dst: "2001:db8:1::/64", gw: "fe80::1", dev: "v0"}, rt.ModeAdd))
	require.NoError(t, e.add(routeSpec{dst: "2001:db8:1::/64", gw: "fe80::2", dev: "v1"}, rt.ModeAppend))
	require.NoError(t, e.add(routeSpec{dst: "2001:db8:1::/64", dev: "v1"}, rt.ModeReplace))
	require.NoError(t, e.add(routeSpec{dst: "2001:db8:1::/64", gw: "fe80::7", dev: "v1"}, rt.ModePrepend))
	require.Equal(t, ""+
		"20010db8000100000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000400 00000001 00000000 00000001       v1\n"+
		"20010db8000100000000000000000000 40 00000000000000000000000000000000 00 fe800000000000000000000000000007 00000400 00000001 00000000 00000003       v1\n",
		routeLines(f.ipv6Route(), "20010db80001"))
	require.NoError(t, f.checkTree())
}

// The last reference to a route goes one grace period after its release,
// and its device reference with it; a release made inside an RCU callback
// (seed 002's anycast route) frees the device one grace period later
// still.
func TestReleaseChainDropsDeviceAfterGracePeriods(t *testing.T) {
	e := newTreeEnv(t)
	f := e.f
	d := e.d["d0"]
	base := d.RefCount()
	ri := e.newRoute(routeSpec{dst: "2001:db8::/64", gw: "fe80::1", dev: "d0"})
	require.NoError(t, f.main.add(e.t, ri, rt.ModeAdd))
	require.Equal(t, base+1, d.RefCount())
	// The route layer keeps its reference (addrconf's ifp->ri).
	require.NoError(t, f.del(e.t, ri))
	require.EqualValues(t, 1, ri.ref)
	e.w.Settle()
	require.Equal(t, base+1, d.RefCount(), "still referenced")
	start := e.t.Now()
	var releasedAt sim.Time
	var refAtRelease int64
	f.w.RCU().Call(e.t, func(k *sim.Task) {
		releasedAt = k.Now()
		f.release(k, ri)
		refAtRelease = d.RefCount()
	})
	e.w.Settle()
	require.Equal(t, base+1, refAtRelease, "the device reference goes one grace period after the release")
	require.Equal(t, base, d.RefCount())
	require.GreaterOrEqual(t, releasedAt, start.Add(sim.DefaultCosts.GracePeriod))
	require.Nil(t, ri.fnh.dev)
}

// cleanAll visits every route once, deletes what the callback asks, skips
// the rest of a multipath route on -2, and charges one Fib6Visit per route
// it gives the callback.
func TestCleanAll(t *testing.T) {
	e := newTreeEnv(t)
	f := e.f
	tb := f.newTable(100)
	for i := 0; i < 50; i++ {
		dev := []string{"d0", "d1"}[i%2]
		require.NoError(t, e.add(routeSpec{dst: fmt.Sprintf("2001:db8:%x::/48", i), gw: "fe80::1", dev: dev}, rt.ModeAdd))
		require.NoError(t, e.add(routeSpec{dst: fmt.Sprintf("2001:db8:%x::/64", i), dev: dev, table: 100}, rt.ModeAdd))
	}
	// A multipath route of three: the callback sees its first sibling only.
	for _, gw := range []string{"fe80::1", "fe80::2", "fe80::3"} {
		require.NoError(t, e.add(routeSpec{dst: "2001:db9::/32", gw: gw, dev: "d2"}, rt.ModeAppend))
	}
	require.Equal(t, 103, f.stats.FibRtEntries)
	before := e.t.Counters().Get(sim.Fib6Visit)
	seen := 0
	f.cleanAll(e.t, func(rt *Info) int {
		seen++
		if rt == f.nullEntry {
			return 0
		}
		if rt.nsiblings > 0 {
			return -2
		}
		if rt.fnh.dev == e.d["d0"] {
			return -1
		}
		return 0
	})
	// 101 routes and the null entry at each of the three tables' roots,
	// which fib6_clean_node gives the callback too.
	require.Equal(t, 104, seen)
	require.EqualValues(t, 104, e.t.Counters().Get(sim.Fib6Visit)-before)
	require.Equal(t, 53, f.stats.FibRtEntries)
	require.Equal(t, 50, f.stats.FibDiscardedRoute)
	require.NoError(t, f.checkTree())
	n := 0
	tb.each(func(rt *Info) bool {
		n++
		if rt != f.nullEntry {
			require.Same(t, e.d["d1"], rt.fnh.dev)
		}
		return true
	})
	require.Equal(t, 25+1, n) // and the null entry of the root
}

// Lookups: the longest prefix with routes; a source-specific destination
// shadows its plain routes for sources outside its subtree (checked on the
// real kernel: `ip -6 route get` answers with the shorter prefix's route);
// backtracking climbs to the next route node.
func TestNodeLookupAndBacktrack(t *testing.T) {
	e := newTreeEnv(t)
	f := e.f
	require.NoError(t, e.add(routeSpec{dst: "2001:db8::/32"}, rt.ModeAdd))
	require.NoError(t, e.add(routeSpec{dst: "2001::/16"}, rt.ModeAdd))
	require.NoError(t, e.add(routeSpec{dst: "2001:db8:1::/48"}, rt.ModeAdd))
	a := func(s string) [16]byte { return mustAddr16(s) }
	fn := f.main.nodeLookup(a("2001:db8:1::5"), [16]byte{})
	require.Equal(t, mustKey("2001:db8:1::/48"), fn.leaf.dst)
	fn = f.backtrack(fn, [16]byte{})
	require.Equal(t, mustKey("2001:db8::/32"), fn.leaf.dst)
	fn = f.backtrack(fn, [16]byte{})
	require.Equal(t, mustKey("2001::/16"), fn.leaf.dst)
	fn = f.backtrack(fn, [16]byte{})
	require.Equal(t, &f.main.root, fn)
	require.Nil(t, f.backtrack(fn, [16]byte{}))
	require.Equal(t, &f.main.root, f.main.nodeLookup(a("3000::1"), [16]byte{}))

	require.NoError(t, e.add(routeSpec{dst: "2001:db8::/32", src: "2001:1::/32"}, rt.ModeAdd))
	fn = f.main.nodeLookup(a("2001:db8::1"), a("2001:1::1"))
	require.Equal(t, mustKey("2001:1::/32"), fn.leaf.src)
	fn = f.main.nodeLookup(a("2001:db8::1"), a("2002::1"))
	require.Equal(t, mustKey("2001::/16"), fn.leaf.dst)

	require.Equal(t, mustKey("2001:db8:1::/48"), f.main.locate(mustKey("2001:db8:1::/48"), key{}, true).leaf.dst)
	require.Nil(t, f.main.locate(mustKey("2001:db8:1::/56"), key{}, true))
	require.Equal(t, mustKey("2001:db8:1::/48"), f.main.locate(mustKey("2001:db8:1::/56"), key{}, false).leaf.dst)
}

// Tables go into the hash newest first within a bucket; walks and dumps
// take them bucket by bucket.
func TestTableHashOrder(t *testing.T) {
	e := newTreeEnv(t)
	f := e.f
	f.newTable(254 + 256)
	f.newTable(1)
	f.newTable(1000)
	var ids []uint32
	f.eachTable(func(tb *Table) { ids = append(ids, tb.id) })
	require.Equal(t, []uint32{1, 1000, 510, 254, 255}, ids)
	require.Same(t, f.main, f.getTable(0))
	require.Nil(t, f.getTable(7))
}
