// Statistics of a run: latency histograms, lock usage (LockStats) and the
// occupancy of virtual CPUs over time.

package sim

import (
	"math/bits"
	"time"
)

// Histogram records durations in log-linear buckets (32 per power of two,
// so a percentile is within 3% of the true value) and keeps the exact count,
// sum and maximum. It allocates only the range of buckets it has seen. The
// zero Histogram is empty and ready to use.
type Histogram struct {
	n      int64
	sum    time.Duration
	max    time.Duration
	base   int     // bucket index of counts[0]
	counts []int64 // counts[i] is the number of values in bucket base+i
}

const subBits = 5 // 32 sub-buckets per power of two

func bucketOf(v time.Duration) int {
	if v < 1<<(subBits+1) {
		return int(max(v, 0))
	}
	p := bits.Len64(uint64(v))
	shift := p - subBits - 1
	return 1<<(subBits+1) + (shift-1)<<subBits + int(uint64(v)>>shift) - 1<<subBits
}

// bucketHigh returns the largest value that falls in bucket i.
func bucketHigh(i int) time.Duration {
	if i < 1<<(subBits+1) {
		return time.Duration(i)
	}
	k := i - 1<<(subBits+1)
	shift := k>>subBits + 1
	m := k&(1<<subBits-1) + 1<<subBits
	return time.Duration((uint64(m)+1)<<shift - 1)
}

// Record adds one value.
func (h *Histogram) Record(v time.Duration) {
	h.n++
	h.sum += v
	if v > h.max {
		h.max = v
	}
	b := bucketOf(v)
	switch {
	case h.counts == nil:
		h.base = b
		h.counts = make([]int64, 1)
	case b < h.base:
		grown := make([]int64, len(h.counts)+h.base-b)
		copy(grown[h.base-b:], h.counts)
		h.counts, h.base = grown, b
	case b >= h.base+len(h.counts):
		h.counts = append(h.counts, make([]int64, b-h.base-len(h.counts)+1)...)
	}
	h.counts[b-h.base]++
}

// Count returns the number of values recorded.
func (h *Histogram) Count() int64 { return h.n }

// Sum returns the sum of the values recorded.
func (h *Histogram) Sum() time.Duration { return h.sum }

// Max returns the largest value recorded.
func (h *Histogram) Max() time.Duration { return h.max }

// Mean returns the mean value, or 0 when empty.
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return h.sum / time.Duration(h.n)
}

// Percentile returns the value at or below which a fraction q (0..1) of the
// recorded values fall, rounded up to its bucket's upper bound and capped at
// Max. It returns 0 when empty.
func (h *Histogram) Percentile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := int64(q*float64(h.n) + 0.5)
	rank = min(max(rank, 1), h.n)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(bucketHigh(h.base+i), h.max)
		}
	}
	return h.max
}

// LockStats summarises how a Mutex was used.
type LockStats struct {
	Name      string
	Acquires  int64         // acquisitions
	Contended int64         // acquisitions that had to wait
	HoldTotal time.Duration // total time held
	HoldMax   time.Duration // longest single hold
	HoldMaxBy string        // the task that held it longest
	HoldMaxAt Time          // when that hold began
	HoldP50   time.Duration
	HoldP99   time.Duration
	WaitTotal time.Duration // total time tasks waited to acquire
	WaitMax   time.Duration // longest single wait
	WaitP50   time.Duration // over all acquisitions, uncontended ones waiting 0
	WaitP99   time.Duration
	// SpinCPU is the CPU time spinning waiters burnt (SetSpin): at any
	// moment as many waiters as there are CPUs not busy with charged work,
	// in 100 µs steps. With more waiters than CPUs, work and spinning
	// together keep every CPU busy while the lock is wanted.
	SpinCPU time.Duration
}

// occupancy sums overlapping intervals of virtual time in fixed buckets, so
// that the number of intervals covering any moment can be capped: full
// counts the buckets an interval covers completely (as a difference array),
// part the nanoseconds of the buckets it covers partly.
type occupancy struct {
	full []int64
	part []int64
}

const occupancyBucket = 100 * Time(time.Microsecond)

func (o *occupancy) add(from, to Time) {
	if to <= from {
		return
	}
	a, b := int(from/occupancyBucket), int(to/occupancyBucket)
	for len(o.part) <= b+1 {
		o.part = append(o.part, 0)
		o.full = append(o.full, 0)
	}
	if a == b {
		o.part[a] += int64(to - from)
		return
	}
	o.part[a] += int64(Time(a+1)*occupancyBucket - from)
	o.part[b] += int64(to - Time(b)*occupancyBucket)
	if a+1 < b {
		o.full[a+1]++
		o.full[b]--
	}
}

// total returns the covered time with at most p intervals counted at once,
// less, in each bucket, what busy covers there (the CPUs busy with other
// work; nil for none).
func (o *occupancy) total(p int, busy *occupancy) time.Duration {
	var sum, run, runBusy int64
	limit := int64(p) * int64(occupancyBucket)
	for i := range o.part {
		run += o.full[i]
		free := limit
		if busy != nil && i < len(busy.part) {
			runBusy += busy.full[i]
			free -= min(runBusy*int64(occupancyBucket)+busy.part[i], limit)
		}
		sum += min(run*int64(occupancyBucket)+o.part[i], free)
	}
	return time.Duration(sum)
}
