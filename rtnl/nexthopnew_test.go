package rtnl_test

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nexthop"
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
	requireErrno(r.h.NexthopNew(rtnl.Nexthop{Dev: "veth2"}, true, false), syscall.EINVAL, "Replace requires nexthop id")
	requireErrno(r.h.NexthopNew(rtnl.Nexthop{ID: 50, Dev: "nosuch"}, true, false), syscall.ENODEV, `Cannot find device "nosuch"`)
	requireErrno(r.h.NexthopNew(rtnl.Nexthop{ID: 50, Dev: "veth2", Gateway: ip("192.0.2.1")}, true, false),
		syscall.ENETUNREACH, "Nexthop has invalid gateway")
	requireErrno(r.h.NexthopNew(rtnl.Nexthop{ID: 50, Group: []nexthop.GroupMember{{ID: 7}}}, true, false),
		syscall.EINVAL, "Invalid nexthop id")
	noEntry := "Replace specified without create and no entry exists"
	requireErrno(r.h.NexthopNew(rtnl.Nexthop{ID: 50, Dev: "veth2"}, true, false), syscall.ENOENT, noEntry)
	res := rtnl.Nexthop{ID: 51, Group: []nexthop.GroupMember{{ID: 1}, {ID: 2}}, GroupType: nexthop.GroupResilient}
	requireErrno(r.h.NexthopNew(res, true, false), syscall.ENOENT, noEntry)
	requireErrno(r.h.NexthopNew(res, true, true), syscall.EINVAL, "Number of buckets not specified for nexthop group insertion")
	_, err := r.h.NexthopGet(50)
	requireErrno(err, syscall.ENOENT, "Nexthop id does not exist")
	require.Empty(t, got, "a refused request announces nothing")

	requireErrno(r.h.NexthopNew(rtnl.Nexthop{ID: 2, Dev: "veth2"}, false, false), syscall.EEXIST, "")
	r.ok(r.h.NexthopNew(rtnl.Nexthop{ID: 60, Dev: "veth2"}, false, false))
	r.ok(r.h.NexthopNew(rtnl.Nexthop{ID: 60, Dev: "veth1", Protocol: 9}, true, false))
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
