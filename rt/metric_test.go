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
