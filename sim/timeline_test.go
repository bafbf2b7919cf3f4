package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTimelineOrder pops values by due time and, at equal times, in the
// order they were pushed, against a stable sort of the same values.
func TestTimelineOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 50; round++ {
		var q timeline[int]
		type item struct {
			at Time
			v  int
		}
		var want []item
		n := rng.IntN(200)
		for i := 0; i < n; i++ {
			at := Time(rng.IntN(20))
			q.push(at, i)
			want = append(want, item{at, i})
			if rng.IntN(4) == 0 && q.len() > 0 {
				// Interleave pops: the earliest pushed so far goes.
				slices.SortStableFunc(want, func(a, b item) int { return int(a.at - b.at) })
				at, v := q.pop()
				require.Equal(t, want[0], item{at, v})
				want = want[1:]
			}
		}
		slices.SortStableFunc(want, func(a, b item) int { return int(a.at - b.at) })
		for _, w := range want {
			require.True(t, q.dueBy(w.at))
			at, v := q.pop()
			require.Equal(t, w, item{at, v})
		}
		_, ok := q.next()
		require.False(t, ok)
		require.False(t, q.dueBy(End))
	}
}
