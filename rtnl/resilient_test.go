package rtnl_test

import (
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// resilientRig has nexthops 1 and 2 on veth1, 3 on veth2, the resilient
// group 10 of 1/2 over 8 buckets with a 10 s idle timer, and a route to
// 10.0.0.0/8 through it.
func resilientRig(t *testing.T) *rig {
	r := newRig(t, rtnl.After)
	r.vethNexthops()
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 10, Group: []nexthop.GroupEntry{{ID: 1}, {ID: 2}}, GroupType: nexthop.GroupResilient,
		Resilient: &nexthop.ResilientConfig{Buckets: 8, HasBuckets: true, IdleTimer: 10 * time.Second, HasIdleTimer: true}}))
	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("10.0.0.0/8"), NexthopID: 10}))
	return r
}

// vethNexthops adds the veth pairs veth1/peer1 (172.16.1.1/24) and
// veth2/peer2 (172.16.2.1/24), all up with lo, and the nexthops 1 via
// 172.16.1.2 and 2 via 172.16.1.3 on veth1, 3 via 172.16.2.4 on veth2.
func (r *rig) vethNexthops() {
	r.tb.Helper()
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "veth1", Peer: "peer1"}))
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "veth2", Peer: "peer2"}))
	r.up("lo", "peer1", "peer2", "veth1", "veth2")
	r.ok(r.h.AddrAdd("veth1", pfx("172.16.1.1/24")))
	r.ok(r.h.AddrAdd("veth2", pfx("172.16.2.1/24")))
	ip := netip.MustParseAddr
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 1, Gateway: ip("172.16.1.2"), Dev: "veth1"}))
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 2, Gateway: ip("172.16.1.3"), Dev: "veth1"}))
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 3, Gateway: ip("172.16.2.4"), Dev: "veth2"}))
}

// buckets lists group 10's buckets.
func (r *rig) buckets() []rtnl.NexthopBucket {
	r.tb.Helper()
	bs, err := r.h.NexthopBucketList(rtnl.NexthopBucketDumpRequest{ID: 10})
	require.NoError(r.tb, err)
	return bs
}

// sleepUntil moves the rig's task to virtual time d after the World began.
func (r *rig) sleepUntil(d time.Duration) { r.t.SleepUntil(sim.Time(d)) }

// TestResilientRouteGetMarksBucketBusy: `ip route get` through a resilient
// group takes the member of the flow's bucket and marks the bucket busy
// (nexthop_select_path_res, nh_res_bucket_set_busy): its idle time starts
// again while the others' grow in virtual time.
func TestResilientRouteGetMarksBucketBusy(t *testing.T) {
	r := resilientRig(t)
	r.sleepUntil(5 * time.Second)
	got, err := r.h.RouteGet(netip.MustParseAddr("10.1.2.3"))
	r.ok(err)
	r.sleepUntil(7 * time.Second)
	busy := 0
	for _, b := range r.buckets() {
		switch b.IdleTime {
		case 2 * time.Second:
			busy++
			nh, err := r.h.NexthopGet(b.NexthopID)
			r.ok(err)
			require.Equal(t, got.Gateway, nh.Gateway, "the route took bucket %d's member", b.Index)
		default:
			// Never used: idle since the group was built, at about 0 s.
			require.InDelta(t, 7*time.Second, b.IdleTime, float64(20*time.Millisecond), "bucket %d", b.Index)
		}
	}
	require.Equal(t, 1, busy)
	nb, err := r.h.NexthopBucketGet(10, 7)
	r.ok(err)
	require.Equal(t, nexthop.ID(10), nb.ID)
	require.Equal(t, uint16(7), nb.Index)
}

// TestResilientFlowsKeepTheirPath: after a weight change a flow that keeps
// sending keeps its member: its bucket is busy, so only idle buckets move;
// once the flow stops for the idle timer, the upkeep (run in virtual time)
// moves it and the group is balanced.
func TestResilientFlowsKeepTheirPath(t *testing.T) {
	r := resilientRig(t)
	dsts := make([]netip.Addr, 0, 64)
	for i := range 64 {
		dsts = append(dsts, netip.AddrFrom4([4]byte{10, 9, byte(i), 1}))
	}
	r.sleepUntil(time.Second)
	before := map[netip.Addr]netip.Addr{}
	for _, d := range dsts {
		got, err := r.h.RouteGet(d)
		r.ok(err)
		before[d] = got.Gateway
	}
	// Member 2 now wants 2 buckets of 8: its 4 are busy.
	r.ok(r.h.NexthopReplace(rtnl.NexthopRequest{ID: 10, Group: []nexthop.GroupEntry{{ID: 1, Weight: 3}, {ID: 2}}, GroupType: nexthop.GroupResilient}))
	for s := 2; s <= 30; s++ {
		r.sleepUntil(time.Duration(s) * time.Second)
		for _, d := range dsts {
			got, err := r.h.RouteGet(d)
			r.ok(err)
			require.Equal(t, before[d], got.Gateway, "flow to %v moved at %d s", d, s)
		}
	}
	ni, err := r.h.NexthopGet(10)
	r.ok(err)
	require.Equal(t, 29*time.Second, ni.Resilient.UnbalancedTime)

	// The flows stop: 10 s later the busy buckets are idle and move.
	r.sleepUntil(41 * time.Second)
	ni, err = r.h.NexthopGet(10)
	r.ok(err)
	require.Zero(t, ni.Resilient.UnbalancedTime)
	n := map[nexthop.ID]int{}
	for _, b := range r.buckets() {
		n[b.NexthopID]++
	}
	require.Equal(t, map[nexthop.ID]int{1: 6, 2: 2}, n)
	require.NoError(t, r.k.CheckInvariants())
}

// TestResilientBucketErrors: the errors of RTM_GETNEXTHOPBUCKET.
func TestResilientBucketErrors(t *testing.T) {
	r := resilientRig(t)
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 11, Group: []nexthop.GroupEntry{{ID: 1}}}))
	for _, c := range []struct {
		name  string
		err   error
		errno syscall.Errno
		msg   string
	}{
		{"unknown group", second(r.h.NexthopBucketGet(99, 0)), syscall.ENOENT, ""},
		{"single nexthop", second(r.h.NexthopBucketGet(1, 0)), syscall.EINVAL, "Not a nexthop group"},
		{"mpath group", second(r.h.NexthopBucketGet(11, 0)), syscall.EINVAL, "Nexthop group not of type resilient"},
		{"index past the end", second(r.h.NexthopBucketGet(10, 8)), syscall.ENOENT, "Bucket index out of bounds"},
		{"id 0", second(r.h.NexthopBucketGet(0, 0)), syscall.EINVAL, "Invalid nexthop id"},
		{"dump of an unknown group", second(r.h.NexthopBucketList(rtnl.NexthopBucketDumpRequest{ID: 99})), syscall.ENOENT, ""},
		{"dump of an mpath group", second(r.h.NexthopBucketList(rtnl.NexthopBucketDumpRequest{ID: 11})), syscall.EINVAL, "Nexthop group not of type resilient"},
		{"dump with NHA_GROUPS", second(r.h.NexthopBucketList(rtnl.NexthopBucketDumpRequest{NexthopDumpRequest: rtnl.NexthopDumpRequest{Groups: true}})), syscall.EINVAL, ""},
	} {
		require.ErrorIs(t, c.err, c.errno, c.name)
		var ee *errno.Error
		require.ErrorAs(t, c.err, &ee, c.name)
		require.Equal(t, c.msg, ee.Msg, c.name)
	}
	// Filters: by member and by the member's device.
	bs, err := r.h.NexthopBucketList(rtnl.NexthopBucketDumpRequest{NexthopID: 2})
	r.ok(err)
	require.Len(t, bs, 4)
	bs, err = r.h.NexthopBucketList(rtnl.NexthopBucketDumpRequest{NexthopDumpRequest: rtnl.NexthopDumpRequest{DevIndex: r.h.LinkIndex("veth2")}})
	r.ok(err)
	require.Empty(t, bs)
}

func second[T any](_ T, err error) error { return err }
