package rtnl_test

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// TestNexthopNewFlags: RTM_NEWNEXTHOP with the request's NLM_F_REPLACE and
// NLM_F_CREATE, as Linux 6.18 answered them: a replace without create
// checks the new nexthop before it looks its id up, and refuses a missing
// id before a new resilient group's missing bucket count; an add needs no
// create and refuses an existing id with a bare EEXIST.
func TestNexthopNewFlags(t *testing.T) {
	r := nexthopRig(t)
	var got []rtnl.Notification
	r.k.InitNet().Subscribe(func(m rtnl.Notification) { got = append(got, m) })
	requireErrno := func(err error, en syscall.Errno, msg string) {
		t.Helper()
		var e *errno.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, en, e.Errno)
		require.Equal(t, msg, e.Msg)
	}
	ip := netip.MustParseAddr
	newNH := func(nh rtnl.NexthopRequest, f rt.NLMFlags) error {
		nh.Flags = f
		return r.h.NewNexthop(nh)
	}
	requireErrno(newNH(rtnl.NexthopRequest{Dev: "veth2"}, rt.NLMReplace), syscall.EINVAL, "Replace requires nexthop id")
	requireErrno(newNH(rtnl.NexthopRequest{ID: 50, Dev: "nosuch"}, rt.NLMReplace), syscall.ENODEV, `Cannot find device "nosuch"`)
	requireErrno(newNH(rtnl.NexthopRequest{ID: 50, Dev: "veth2", Gateway: ip("192.0.2.1")}, rt.NLMReplace),
		syscall.ENETUNREACH, "Nexthop has invalid gateway")
	requireErrno(newNH(rtnl.NexthopRequest{ID: 50, Group: []nexthop.GroupEntry{{ID: 7}}}, rt.NLMReplace),
		syscall.EINVAL, "Invalid nexthop id")
	noEntry := "Replace specified without create and no entry exists"
	requireErrno(newNH(rtnl.NexthopRequest{ID: 50, Dev: "veth2"}, rt.NLMReplace), syscall.ENOENT, noEntry)
	res := rtnl.NexthopRequest{ID: 51, Group: []nexthop.GroupEntry{{ID: 1}, {ID: 2}}, GroupType: nexthop.GroupResilient}
	requireErrno(newNH(res, rt.NLMReplace), syscall.ENOENT, noEntry)
	requireErrno(newNH(res, rt.NLMReplace|rt.NLMCreate), syscall.EINVAL, "Number of buckets not specified for nexthop group insertion")
	_, err := r.h.NexthopGet(50)
	requireErrno(err, syscall.ENOENT, "Nexthop id does not exist")
	require.Empty(t, got, "a refused request announces nothing")

	requireErrno(newNH(rtnl.NexthopRequest{ID: 2, Dev: "veth2"}, 0), syscall.EEXIST, "")
	r.ok(newNH(rtnl.NexthopRequest{ID: 60, Dev: "veth2"}, 0))
	r.ok(newNH(rtnl.NexthopRequest{ID: 60, Dev: "veth1", Protocol: 9}, rt.NLMReplace))
	ni, err := r.h.NexthopGet(60)
	r.ok(err)
	require.Equal(t, "veth1", ni.Dev)
	require.EqualValues(t, 9, ni.Protocol)
	// Without a socket's flags (Origin.Flags), a notification carries
	// NLM_F_REQUEST|NLM_F_ACK and the request's create and replace.
	require.Len(t, got, 2)
	require.Equal(t, uint16(0x5), got[0].Flags)
	require.Equal(t, uint16(0x105), got[1].Flags)
}
