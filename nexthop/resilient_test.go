package nexthop_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// resGroup is the config of a resilient group of the given members and
// weights (pairs id, weight).
func resGroup(id nexthop.ID, rc *nexthop.ResilientConfig, mw ...int) nexthop.Config {
	c := nexthop.Config{ID: id, GroupType: nexthop.GroupResilient, Resilient: rc}
	for i := 0; i < len(mw); i += 2 {
		c.Group = append(c.Group, nexthop.GroupMember{ID: nexthop.ID(mw[i]), Weight: uint16(mw[i+1])})
	}
	return c
}

// bucketIDs returns the member id of each bucket of group id.
func bucketIDs(tbl *nexthop.Table, id nexthop.ID) []nexthop.ID {
	var out []nexthop.ID
	for _, b := range tbl.Get(id).Buckets() {
		out = append(out, b.NexthopID)
	}
	return out
}

// resEnv is a table with single nexthops 1, 2, 3 on d0, d1, d2.
func resEnv(t *testing.T) (*env, *nexthop.Table) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred, e.single(1, "", "d0"), e.single(2, "", "d1"), e.single(3, "", "d2"))
	return e, tbl
}

// at moves the task to virtual time d after the World's start and runs the
// upkeep due by then.
func at(tb testing.TB, tbl *nexthop.Table, task *sim.Task, d time.Duration) {
	tb.Helper()
	task.SleepUntil(sim.Time(d))
	tbl.RunTimers(task)
	require.NoError(tb, tbl.CheckInvariants())
}

// use sends one flow to each given bucket (nexthop_select_path_res marks
// it busy).
func use(tbl *nexthop.Table, id nexthop.ID, buckets ...uint32) {
	for _, b := range buckets {
		tbl.Get(id).SelectPath(b)
	}
}

// TestResilientInsertFillsBuckets: a new group's buckets go to the
// underweight members, the last listed first (uw_nh_entries is filled
// with list_add), each until it has its share — the layout the real
// kernel shows for group 1/2,3 over 8 buckets and 1/2/3 over 5.
func TestResilientInsertFillsBuckets(t *testing.T) {
	e, tbl := resEnv(t)
	mustAdd(t, tbl, e.t,
		resGroup(10, &nexthop.ResilientConfig{Buckets: 8, HasBuckets: true}, 1, 1, 2, 3),
		resGroup(11, &nexthop.ResilientConfig{Buckets: 5, HasBuckets: true}, 1, 1, 2, 1, 3, 1))
	require.Equal(t, []nexthop.ID{2, 2, 2, 2, 2, 2, 1, 1}, bucketIDs(tbl, 10))
	require.Equal(t, []nexthop.ID{3, 3, 2, 1, 1}, bucketIDs(tbl, 11))
	ri, ok := tbl.Get(10).Resilient()
	require.True(t, ok)
	require.Equal(t, nexthop.ResilientInfo{Buckets: 8, IdleTimer: 120 * time.Second}, ri)
	require.Equal(t, grp(10, m(1), mw(2, 3)).res(8, 120), viewOf(tbl.Get(10)))
	require.NoError(t, tbl.CheckInvariants())
}

// TestResilientIdleTimer: after a weight change, a busy bucket of the
// overweight member moves only once it has been idle for idle_timer; until
// then the group is unbalanced and says for how long. Buckets never used
// since their migration move at once.
func TestResilientIdleTimer(t *testing.T) {
	e, tbl := resEnv(t)
	mustAdd(t, tbl, e.t, resGroup(10, &nexthop.ResilientConfig{Buckets: 4, HasBuckets: true, IdleTimer: 10 * time.Second, HasIdleTimer: true}, 1, 1, 2, 1))
	require.Equal(t, []nexthop.ID{2, 2, 1, 1}, bucketIDs(tbl, 10))

	at(t, tbl, e.t, time.Second)
	use(tbl, 10, 0, 1, 2, 3, 4) // hash 4 is bucket 0 again
	_, err := tbl.Replace(e.t, resGroup(10, nil, 1, 3, 2, 1), nil)
	require.NoError(t, err)
	require.NoError(t, tbl.CheckInvariants())
	// Member 2 wants 1 bucket and holds 2, both busy since 1 s.
	require.Equal(t, []nexthop.ID{2, 2, 1, 1}, bucketIDs(tbl, 10))

	at(t, tbl, e.t, 6*time.Second)
	ri, _ := tbl.Get(10).Resilient()
	require.Equal(t, 5*time.Second, ri.UnbalancedTime)
	require.Equal(t, []nexthop.ID{2, 2, 1, 1}, bucketIDs(tbl, 10))
	require.Equal(t, 5*time.Second, tbl.Get(10).Buckets()[0].IdleTime)

	at(t, tbl, e.t, 11*time.Second-time.Millisecond)
	require.Equal(t, []nexthop.ID{2, 2, 1, 1}, bucketIDs(tbl, 10))

	// At 11 s bucket 0 has been idle for 10 s: it moves, and the group is
	// balanced again.
	at(t, tbl, e.t, 12*time.Second)
	require.Equal(t, []nexthop.ID{1, 2, 1, 1}, bucketIDs(tbl, 10))
	ri, _ = tbl.Get(10).Resilient()
	require.Zero(t, ri.UnbalancedTime)
	bs := tbl.Get(10).Buckets()
	require.Equal(t, time.Second, bs[0].IdleTime) // migrated at 11 s
	require.Equal(t, 11*time.Second, bs[1].IdleTime)

	// Never used since the migration: a new change moves it at once.
	_, err = tbl.Replace(e.t, resGroup(10, nil, 1, 1, 2, 3), nil)
	require.NoError(t, err)
	require.NoError(t, tbl.CheckInvariants())
	require.Equal(t, []nexthop.ID{2, 2, 2, 1}, bucketIDs(tbl, 10))
}

// TestResilientUnbalancedTimer: buckets that stay busy move by force once
// the group has been unbalanced for unbalanced_timer; the upkeep runs no
// sooner than half a second after the previous one.
func TestResilientUnbalancedTimer(t *testing.T) {
	e, tbl := resEnv(t)
	mustAdd(t, tbl, e.t, resGroup(10, &nexthop.ResilientConfig{Buckets: 4, HasBuckets: true,
		IdleTimer: 100 * time.Second, HasIdleTimer: true, UnbalancedTimer: 3 * time.Second, HasUnbalancedTimer: true}, 1, 1, 2, 1))
	at(t, tbl, e.t, time.Second)
	use(tbl, 10, 0, 1, 2, 3)
	_, err := tbl.Replace(e.t, resGroup(10, nil, 1, 3, 2, 1), nil)
	require.NoError(t, err)
	for s := 1500 * time.Millisecond; s < 4500*time.Millisecond; s += 500 * time.Millisecond {
		at(t, tbl, e.t, s)
		use(tbl, 10, 0, 1, 2, 3)
		require.Equal(t, []nexthop.ID{2, 2, 1, 1}, bucketIDs(tbl, 10), "at %v", s)
	}
	// The upkeep at 4 s is not yet past the unbalanced point (time_after);
	// the next runs 0.5 s later and forces the move.
	at(t, tbl, e.t, 4500*time.Millisecond)
	require.Equal(t, []nexthop.ID{1, 2, 1, 1}, bucketIDs(tbl, 10))
	ri, _ := tbl.Get(10).Resilient()
	require.Zero(t, ri.UnbalancedTime)
}

// TestResilientMemberRemoval: a removed member's buckets go to the others
// at once, busy or not, and a member's replace leaves the buckets alone.
func TestResilientMemberRemoval(t *testing.T) {
	e, tbl := resEnv(t)
	mustAdd(t, tbl, e.t, resGroup(10, &nexthop.ResilientConfig{Buckets: 6, HasBuckets: true}, 1, 1, 2, 1, 3, 1))
	require.Equal(t, []nexthop.ID{3, 3, 2, 2, 1, 1}, bucketIDs(tbl, 10))
	at(t, tbl, e.t, time.Second)
	use(tbl, 10, 0, 1, 2, 3, 4, 5)
	_, err := tbl.Replace(e.t, e.single(1, "", "d1"), nil)
	require.NoError(t, err)
	require.Equal(t, []nexthop.ID{3, 3, 2, 2, 1, 1}, bucketIDs(tbl, 10))

	require.NoError(t, tbl.Del(e.t, 2, nil))
	require.NoError(t, tbl.CheckInvariants())
	require.Equal(t, []nexthop.ID{3, 3, 3, 1, 1, 1}, bucketIDs(tbl, 10)) // the underweight list is 3, 1
	ri, _ := tbl.Get(10).Resilient()
	require.Zero(t, ri.UnbalancedTime)

	// Its device going down removes member 3 the same way.
	e.setUp(t, "d2", false)
	tbl.FlushDev(e.t, e.d["d2"], netdev.EventDown, nil)
	require.NoError(t, tbl.CheckInvariants())
	require.Equal(t, []nexthop.ID{1, 1, 1, 1, 1, 1}, bucketIDs(tbl, 10))

	// The last member's removal removes the group and its upkeep.
	require.NoError(t, tbl.Del(e.t, 1, nil))
	require.Nil(t, tbl.Get(10))
	at(t, tbl, e.t, time.Hour)
}

// TestResilientErrors: the checks of rtm_to_nh_config_grp_res,
// nh_check_attr_group, insert_nexthop and replace_nexthop_grp, each
// leaving the table as it was.
func TestResilientErrors(t *testing.T) {
	e, tbl := resEnv(t)
	mustAdd(t, tbl, e.t, resGroup(10, &nexthop.ResilientConfig{Buckets: 4, HasBuckets: true}, 1, 1, 2, 1), group(12, 1, 2))
	before := snapshot(tbl)
	for _, c := range []struct {
		name    string
		cfg     nexthop.Config
		replace bool
		errno   syscall.Errno
		msg     string
	}{
		{"no buckets", resGroup(20, nil, 1, 1), false, syscall.EINVAL, "Number of buckets not specified for nexthop group insertion"},
		{"replace creating without buckets", resGroup(20, &nexthop.ResilientConfig{IdleTimer: time.Second, HasIdleTimer: true}, 1, 1), true, syscall.EINVAL, "Number of buckets not specified for nexthop group insertion"},
		{"resilient member", group(20, 1, 10), false, syscall.EINVAL, "Resilient group can not be a nexthop within a group"},
		{"resilient to mpath", group(10, 1, 2), true, syscall.EINVAL, "Can not replace a nexthop group with one of a different type."},
		{"mpath to resilient", resGroup(12, nil, 1, 1), true, syscall.EINVAL, "Can not replace a nexthop group with one of a different type."},
		{"other bucket count", resGroup(10, &nexthop.ResilientConfig{Buckets: 8, HasBuckets: true}, 1, 1), true, syscall.EINVAL, "Can not change number of buckets of a resilient nexthop group."},
		{"group to single", e.single(10, "", "d0"), true, syscall.EINVAL, "Can not replace a nexthop with a nexthop group."},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.replace {
				_, err = tbl.Replace(e.t, c.cfg, nil)
			} else {
				_, err = tbl.Add(e.t, c.cfg)
			}
			if c.name == "group to single" {
				// Replacing a group by a single nexthop is refused the
				// other way round: the candidate is the single one.
				requireErr(t, err, c.errno, "Can not replace a nexthop group with a nexthop.")
			} else {
				requireErr(t, err, c.errno, c.msg)
			}
			require.Equal(t, before, snapshot(tbl))
			require.NoError(t, tbl.CheckInvariants())
		})
	}
	_, err := tbl.FindResilient(e.t, 99)
	requireErr(t, err, syscall.ENOENT, "")
	_, err = tbl.FindResilient(e.t, 1)
	requireErr(t, err, syscall.EINVAL, "Not a nexthop group")
	_, err = tbl.FindResilient(e.t, 12)
	requireErr(t, err, syscall.EINVAL, "Nexthop group not of type resilient")
}

// TestResilientTimerWraps: a timer is kept in u32 jiffies (HZ 250), so
// ip's largest idle_timer, 42949671 s, comes back as 8589932.63 s, as the
// real kernel reports it.
func TestResilientTimerWraps(t *testing.T) {
	e, tbl := resEnv(t)
	mustAdd(t, tbl, e.t, resGroup(13, &nexthop.ResilientConfig{Buckets: 2, HasBuckets: true, IdleTimer: 42949671 * time.Second, HasIdleTimer: true}, 3, 1))
	ri, _ := tbl.Get(13).Resilient()
	require.Equal(t, 8589932630*time.Millisecond, ri.IdleTimer)
}
