package sim

import (
	"fmt"
	"time"
)

// Time is a point in virtual time: nanoseconds since the World began. The zero
// Time is the World's start. Durations between Times are time.Duration.
type Time int64

// Add returns t+d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub returns the duration t-u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

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
