// Virtual time: a point in a World's time line, saturating at End.

package sim

import (
	"fmt"
	"math"
	"time"
)

// Time is a point in virtual time: nanoseconds since the World began. The zero
// Time is the World's start. Durations between Times are time.Duration.
//
// Virtual time ends at End, about 292 years after the World began. Time
// arithmetic saturates there instead of overflowing: a task whose clock
// would pass End stays at End, and a timer that would fire at or after End
// never fires (WorkQueue drops it). The
// kernel's own clock (64-bit jiffies) runs for hundreds of millions of
// years; netsim's stops at End, which is still twice the longest finite
// lifetime an address or route can have (4294967294 s, about 136 years).
type Time int64

// End is the last point in virtual time: every Time is at or before it.
const End Time = math.MaxInt64

// Add returns t+d, saturated at End (and at the most negative Time for a
// negative d): virtual time never overflows.
func (t Time) Add(d time.Duration) Time {
	s := t + Time(d)
	switch {
	case d > 0 && s < t:
		return End
	case d < 0 && s > t:
		return math.MinInt64
	}
	return s
}

// Sub returns the duration t-u, saturated at the longest (or most
// negative) time.Duration.
func (t Time) Sub(u Time) time.Duration {
	d := time.Duration(t - u)
	switch {
	case u < 0 && d < 0 && t >= 0:
		return math.MaxInt64
	case u > 0 && d > 0 && t < 0:
		return math.MinInt64
	}
	return d
}

// Seconds returns t as seconds since the World began.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// String formats t as seconds with microsecond precision, e.g. "31.522000s".
func (t Time) String() string { return fmt.Sprintf("%.6fs", t.Seconds()) }

func maxTime(a, b Time) Time {
	if a > b {
		return a
	}
	return b
}
