package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/assert"
)

// Virtual time saturates at sim.End instead of overflowing.
func TestTimeSaturates(t *testing.T) {
	const year = 365 * 24 * time.Hour
	lft := time.Duration(math.MaxUint32-1) * time.Second // the longest finite address lifetime
	assert.Equal(t, sim.End, sim.End.Add(1))
	assert.Equal(t, sim.End, sim.Time(2*lft).Add(lft), "past 292 years")
	assert.Equal(t, sim.Time(2*lft), sim.Time(lft).Add(lft), "within virtual time: exact")
	assert.Equal(t, sim.Time(math.MinInt64), sim.Time(-1).Add(math.MinInt64))
	assert.Equal(t, sim.Time(0), sim.Time(year).Add(-year))
	assert.Equal(t, time.Duration(math.MaxInt64), sim.End.Sub(-1))
	assert.Equal(t, time.Duration(math.MinInt64), sim.Time(-2).Sub(sim.End))
	assert.Equal(t, time.Duration(sim.End), sim.End.Sub(0))

	w := sim.MustNewWorld(sim.Options{})
	tk := w.NewTask("t")
	tk.Sleep(lft)
	tk.Sleep(lft)
	assert.Equal(t, sim.Time(2*lft), tk.Now())
	tk.Sleep(lft)
	assert.Equal(t, sim.End, tk.Now(), "a task's clock stops at sim.End")
	assert.Equal(t, time.Duration(sim.End), tk.SleepTime(), "the time it slept is the time that passed")
	tk.Msleep(1000)
	tk.Charge(sim.Syscall, 1)
	tk.Sleep(year)
	assert.Equal(t, sim.End, tk.Now())
	assert.Equal(t, sim.End, w.Now())
	assert.Equal(t, time.Duration(sim.End), tk.SleepTime())
}

// An RCU callback queued at the end of virtual time runs there.
func TestRCUAtEnd(t *testing.T) {
	w := sim.MustNewWorld(sim.Options{})
	tk := w.NewTask("t")
	tk.SleepUntil(sim.End)
	ran := false
	w.RCU().Call(tk, func(*sim.Task) { ran = true })
	w.RCU().Synchronize(tk)
	w.Settle()
	assert.True(t, ran)
	assert.Equal(t, sim.End, tk.Now())
	assert.Zero(t, w.RCU().Pending())
}
