package rt_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/netsimlab/netsim/rt"
)

func TestMetricNames(t *testing.T) {
	assert.Equal(t, "mtu", rt.MetricMTU.String())
	assert.Equal(t, "rto_min", rt.MetricRTOMin.String())
	assert.Equal(t, "congctl", rt.MetricCongCtl.String())
	assert.Equal(t, "fastopen_no_cookie", rt.MetricMax.String())
	assert.Equal(t, "metric 1", rt.MetricLock.String(), "RTAX_LOCK has no name in mx_names")
	assert.Equal(t, "metric 18", rt.Metric(18).String())
}

func TestRouteFlagNames(t *testing.T) {
	assert.Equal(t, []string{"dead", "onlink", "notify", "linkdown", "rt_offload_failed"},
		rt.RouteFlagNames(uint32(rt.FlagLinkDown|rt.FlagOnLink|rt.FlagDead)|rt.RTMFNotify|rt.RTMFOffloadFailed|rt.RTMFCloned))
	assert.Empty(t, rt.RouteFlagNames(rt.RTMFCloned))

	names, rest := rt.CacheFlagNames(0x80000000 | 0x10000000 | 0x02000000 | rt.RTMFCloned)
	assert.Equal(t, []string{"local", "brd"}, names)
	assert.Equal(t, uint32(0x02000000), rest, "RTCF's unnamed bit is left; the low 16 bits are not cache flags")
}
