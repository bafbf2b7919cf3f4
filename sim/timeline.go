// The one queue of things due at virtual times: RCU callbacks (World's
// events) and deferred work (WorkQueue) are both timelines.

package sim

// A timeline holds values due at virtual times: a binary min-heap by due
// time and, at one time, by the order they were added, so that equal
// times keep their order on every run. The zero timeline is empty. It is
// not safe for concurrent use: its owner guards it.
type timeline[T any] struct {
	items []timed[T]
	seq   uint64
}

type timed[T any] struct {
	at  Time
	seq uint64
	v   T
}

func (q *timeline[T]) len() int { return len(q.items) }

// next returns when the earliest value is due, and false when there is
// none.
func (q *timeline[T]) next() (Time, bool) {
	if len(q.items) == 0 {
		return 0, false
	}
	return q.items[0].at, true
}

// dueBy reports whether a value is due at or before upTo.
func (q *timeline[T]) dueBy(upTo Time) bool {
	at, ok := q.next()
	return ok && at <= upTo
}

// push adds v, due at at.
func (q *timeline[T]) push(at Time, v T) {
	q.seq++
	q.items = append(q.items, timed[T]{at: at, seq: q.seq, v: v})
	for i := len(q.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.items[i], q.items[p] = q.items[p], q.items[i]
		i = p
	}
}

// pop removes and returns the earliest value and its due time; the
// timeline must not be empty.
func (q *timeline[T]) pop() (Time, T) {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items[last] = timed[T]{}
	q.items = q.items[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= last {
			break
		}
		if c+1 < last && q.less(c+1, c) {
			c++
		}
		if !q.less(c, i) {
			break
		}
		q.items[i], q.items[c] = q.items[c], q.items[i]
		i = c
	}
	return top.at, top.v
}

func (q *timeline[T]) less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}
