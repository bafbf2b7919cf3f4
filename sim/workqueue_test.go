package sim_test

import (
	"testing"
	"time"

	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// repeat queues fn as background work that runs every period and counts
// its runs: a table's periodic gc.
func repeat(q *sim.WorkQueue, t *sim.Task, period time.Duration, runs *int) {
	q.QueueBackground(t, period, "periodic", func(kw *sim.Task) {
		*runs++
		repeat(q, kw, period, runs)
	})
}

// TestWorkQueueBackgroundScheduled: background work that queues itself
// for ever does not keep a scheduled World running: Run ends when the
// last other task does, having run the background work due before then,
// and foreground work still runs to its end.
func TestWorkQueueBackgroundScheduled(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{})
	q := w.NewWorkQueue(func(kw *sim.Task, _ string, fn func(*sim.Task)) { fn(kw) })
	runs, done := 0, false
	w.Spawn("ip", func(task *sim.Task) {
		repeat(q, task, 15*time.Second, &runs)
		q.Queue(task, 40*time.Second, "once", func(*sim.Task) { done = true })
		task.Sleep(time.Minute + time.Second)
	})
	end := w.Run()
	require.Equal(t, sim.Time(0).Add(time.Minute+time.Second), end)
	require.True(t, done)
	require.Equal(t, 4, runs) // at 15, 30, 45 and 60 s
}

// TestWorkQueueBackgroundDirect: for a direct task background work runs as
// time passes, and LastForeground, which settling runs the queue to,
// leaves it out.
func TestWorkQueueBackgroundDirect(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{})
	q := w.NewWorkQueue(func(kw *sim.Task, _ string, fn func(*sim.Task)) { fn(kw) })
	task := w.NewTask("ip")
	runs := 0
	repeat(q, task, 15*time.Second, &runs)
	_, ok := q.LastForeground()
	require.False(t, ok)
	q.Queue(task, 20*time.Second, "once", func(*sim.Task) {})
	q.Queue(task, 10*time.Second, "once", func(*sim.Task) {})
	last, ok := q.LastForeground()
	require.True(t, ok)
	require.Equal(t, sim.Time(0).Add(20*time.Second), last)
	q.RunDue(task, last)
	require.Equal(t, 1, runs)
	_, ok = q.LastForeground()
	require.False(t, ok)
	q.RunDue(task, sim.Time(0).Add(100*time.Second))
	require.Equal(t, 6, runs)
	require.True(t, q.DueBy(sim.Time(0).Add(105*time.Second)))
}
