package nlwire

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// TestNexthopBucketNotification replays what Linux 6.18 multicast to
// RTNLGRP_NEXTHOP for a resilient group of two buckets whose buckets
// route lookups made busy, replaced with weights that leave member 1 no
// bucket, idle timer 1 s and no unbalanced timer (a lookup in the same
// jiffy as a bucket's migration leaves it idle, so time passes first): the add and the replace
// announce the group whole (no bucket message, although the replace's
// upkeep runs), and the upkeep work a second later migrates bucket 1 to
// member 2 and announces that bucket alone, from no request, with
// NLM_F_REPLACE and idle time 0.
func TestNexthopBucketNotification(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	task := k.World().NewTask("ip")
	var got []rtnl.Notification
	cancel := k.InitNet().Subscribe(func(n rtnl.Notification) {
		if n.Type == rt.RTMNewNexthopBucket || n.Type == rt.RTMNewNexthop {
			got = append(got, n)
		}
	})
	defer cancel()
	ip := iproute.New(k, task)
	for _, cmd := range []string{
		"link set lo up", "link add v0 type veth peer name v1", "link set v0 up", "link set v1 up",
		"addr add 10.0.0.1/24 dev v0",
		"nexthop add id 1 via 10.0.0.2 dev v0", "nexthop add id 2 via 10.0.0.3 dev v0",
		"nexthop add id 10 group 1/2 type resilient buckets 2 idle_timer 1 unbalanced_timer 0",
		"route add 10.9.0.0/16 nhid 10",
		"", // the real kernel's lookups came 60 ms after the group's creation
		"route get 10.9.0.1", "route get 10.9.0.2", "route get 10.9.0.3", "route get 10.9.0.4",
		"route get 10.9.0.5", "route get 10.9.0.6", "route get 10.9.0.7", "route get 10.9.0.8",
		"nexthop replace id 10 group 1,1/2,4 type resilient idle_timer 1 unbalanced_timer 0",
	} {
		if cmd == "" {
			task.Sleep(60 * time.Millisecond)
			continue
		}
		require.NoError(t, ip.Run(strings.Fields(cmd)...), cmd)
	}
	require.Len(t, got, 4, "two nexthops and the group twice, no bucket yet")
	task.Sleep(2 * time.Second)
	require.NoError(t, ip.Run("nexthop", "bucket", "show"))
	require.Len(t, got, 5)
	n := got[4]
	assert.Equal(t, rt.RTMNewNexthopBucket, n.Type)
	assert.Equal(t, uint16(uapi.NLM_F_REPLACE), n.Flags)
	assert.Equal(t, rtnl.Origin{}, n.Origin)
	body, group, err := notifiers[n.Type](n)
	require.NoError(t, err)
	assert.Equal(t, uint32(uapi.RTNLGRP_NEXTHOP), group)
	assert.Equal(t, "0000000000000000080001000a00000020000d80060001000100000008000300020000000c0002000000000000000000",
		hex.EncodeToString(body))
}
