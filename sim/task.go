package sim

// Task is a simulated process or kernel thread. (Being written.)
type Task struct {
	counters Counters
}

// Charge records n units of work of kind k. A nil Task records nothing.
func (t *Task) Charge(k Kind, n int64) {
	if t == nil || n == 0 {
		return
	}
	t.counters[k] += n
}

// Counters returns the task's work counters.
func (t *Task) Counters() Counters { return t.counters }
