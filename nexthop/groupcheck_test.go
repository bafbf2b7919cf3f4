package nexthop_test

import (
	"errors"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nexthop"
)

// TestGroupConfigChecked: a group Config made of Go values, which no
// rtnl request checked, is refused as the kernel refuses the message it
// stands for, and the table stays whole (a duplicate member used to be
// accepted and made the member's removal panic).
func TestGroupConfigChecked(t *testing.T) {
	e := newEnv(t)
	tbl := nexthop.NewTable(nexthop.FlushDeferred)
	mustAdd(t, tbl, e.t, e.single(1, "192.0.2.2", "d0"), e.single(2, "192.0.2.3", "d0"))
	for _, c := range []struct {
		cfg  nexthop.Config
		want string
	}{
		{nexthop.Config{ID: 10, Group: []nexthop.GroupMember{{ID: 1}, {ID: 2}, {ID: 1}}}, "Nexthop id can not be used twice in a group"},
		{nexthop.Config{ID: 11, Group: []nexthop.GroupMember{}}, "Invalid length for nexthop group attribute"},
		{nexthop.Config{ID: 12, Group: []nexthop.GroupMember{{ID: 1}}, GroupType: nexthop.GroupTypeMax + 1}, "Invalid group type"},
		{nexthop.Config{ID: 13, Group: []nexthop.GroupMember{{ID: 1}}, GroupType: nexthop.GroupResilient,
			Resilient: &nexthop.ResilientConfig{HasBuckets: true}}, "Number of buckets needs to be non-0"},
		{nexthop.Config{ID: 14, Group: []nexthop.GroupMember{{ID: 1}}, GroupType: nexthop.GroupResilient,
			Resilient: &nexthop.ResilientConfig{Buckets: 8, HasBuckets: true, IdleTimer: nexthop.MaxResilientTimer, HasIdleTimer: true}}, "Timer value too large"},
	} {
		_, err := tbl.Add(e.t, c.cfg)
		require.ErrorIs(t, err, syscall.EINVAL, c.want)
		require.Equal(t, c.want, msg(err))
		_, err = tbl.Replace(e.t, c.cfg, nil)
		require.ErrorIs(t, err, syscall.EINVAL, c.want)
		require.Nil(t, tbl.Get(c.cfg.ID))
		require.NoError(t, tbl.CheckInvariants())
	}
	require.NoError(t, tbl.Del(e.t, 1, nil))
	require.NoError(t, tbl.CheckInvariants())
}

// TestCheckGroupKernelOrder: CheckGroup's one pass finds the error the
// kernel's walk finds first, which compares each entry with the later
// ones: an id repeated later is refused at its first entry, before a bad
// weight between the two.
func TestCheckGroupKernelOrder(t *testing.T) {
	err := nexthop.CheckGroup([]nexthop.GroupEntry{{ID: 1}, {ID: 2, Weight: 70000}, {ID: 1}})
	require.Equal(t, "Nexthop id can not be used twice in a group", msg(err))
	err = nexthop.CheckGroup([]nexthop.GroupEntry{{ID: 3}, {ID: 2, Weight: 70000}, {ID: 1}, {ID: 2}})
	require.Equal(t, "Invalid value for weight", msg(err))
	err = nexthop.CheckGroup([]nexthop.GroupEntry{{ID: 3}, {ID: 2, Resvd: 1}})
	require.Equal(t, "Reserved field in nexthop_grp must be 0", msg(err))
	require.NoError(t, nexthop.CheckGroup([]nexthop.GroupEntry{{ID: 3, Weight: nexthop.MaxWeight}, {ID: 2}}))
	require.ErrorIs(t, nexthop.CheckGroup(make([]nexthop.GroupEntry, nexthop.MaxGroupMembers+1)), syscall.EMSGSIZE)
}

// msg is the extack message of err, an *errno.Error.
func msg(err error) string {
	var e *errno.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return ""
}
