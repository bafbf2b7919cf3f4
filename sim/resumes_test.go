package sim

import (
	"fmt"
	"testing"
	"time"
)

// TestContendedHandOffResumes bounds what a contended Mutex costs the
// scheduler under Options.Coarse: with 64 tasks queued on a saturated
// lock, each acquisition resumes its task twice, once as the new owner and
// once after its unlock to run up to its next Lock. The yield on the way
// into Lock resumes nothing: the scheduler queues the task on the Mutex
// itself (enqueueWanted). Seed 003's before runs are this case, 4.2 M
// times a run.
func TestContendedHandOffResumes(t *testing.T) {
	const n, r = 64, 50
	w := MustNewWorld(Options{CPUs: 8, Costs: &Costs{HWAddrCompare: time.Microsecond}, Coarse: true})
	lock := w.NewMutex("RTNL")
	lock.SetSpin(true)
	for i := range n {
		w.Spawn(fmt.Sprint("ip", i), func(t *Task) {
			for range r {
				t.Charge(HWAddrCompare, 5) // outside the lock
				lock.Lock(t)
				t.Charge(HWAddrCompare, 20) // under it: the lock is the bottleneck
				lock.Unlock(t)
			}
		})
	}
	w.Run()
	st := lock.Stats()
	if st.Acquires != n*r || st.Contended < n*r-2*n {
		t.Fatalf("acquires %d, contended %d: want %d, nearly all contended", st.Acquires, st.Contended, n*r)
	}
	if limit := int64(2*n*r + 2*n); w.resumes > limit {
		t.Errorf("%d resumes for %d acquisitions: want at most 2 each (%d with each task's start and end)", w.resumes, n*r, limit)
	}
	t.Logf("%d resumes for %d acquisitions (%.3f each)", w.resumes, n*r, float64(w.resumes)/float64(n*r))
}
