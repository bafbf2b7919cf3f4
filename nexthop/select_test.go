package nexthop_test

import (
	"testing"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/stretchr/testify/require"
)

// TestUpperBound: the thresholds split [0, 2³¹) by weight, rounded to the
// closest integer as DIV_ROUND_CLOSEST_ULL does, and the last live path's
// is always 2³¹-1, so every hash has a path.
func TestUpperBound(t *testing.T) {
	require.Equal(t, int64(357913940), nexthop.UpperBound(1, 6))  // 2³¹/6 = 357913941.33
	require.Equal(t, int64(1073741823), nexthop.UpperBound(3, 6)) // exactly half
	require.Equal(t, int64(1<<31-1), nexthop.UpperBound(6, 6))
	require.Equal(t, int64(715827882), nexthop.UpperBound(1, 3)) // 2³¹/3 = 715827882.67 rounds up
	for total := 1; total <= 300; total++ {
		require.Equal(t, int64(1<<31-1), nexthop.UpperBound(total, total))
		for cum := 1; cum < total; cum++ {
			require.Less(t, nexthop.UpperBound(cum, total), nexthop.UpperBound(cum+1, total))
		}
	}
	require.Equal(t, int64(-1), nexthop.UpperBound(0, 0)) // no live path
}
