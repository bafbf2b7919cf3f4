package sim_test

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// panicOf returns what f panics with, nil if it returns.
func panicOf(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// requireSimError checks that err is of kind k, carries k's errno (as
// errors.Is and errno.Of see it) and reads msg.
func requireSimError(t *testing.T, err error, k *sim.Error, msg string) {
	t.Helper()
	require.ErrorIs(t, err, k)
	require.ErrorIs(t, err, k.Errno)
	require.Equal(t, k.Errno, errno.Of(err))
	require.EqualError(t, err, msg)
	for _, other := range []*sim.Error{sim.ErrBadOptions, sim.ErrBadCosts, sim.ErrDeadlock, sim.ErrHeldAtExit,
		sim.ErrRunning, sim.ErrNotOwner, sim.ErrBlockedInKernelThread, sim.ErrCoarseOrder} {
		if other != k {
			require.NotErrorIs(t, err, other)
		}
	}
}

// TestErrorsReturned: bad options and a bad cost table are *sim.Error
// values of their kind, EINVAL, in errno's text form.
func TestErrorsReturned(t *testing.T) {
	_, err := sim.NewWorld(sim.Options{CPUs: -1})
	requireSimError(t, err, sim.ErrBadOptions, "invalid argument: sim: negative number of virtual CPUs -1")
	var se *sim.Error
	require.ErrorAs(t, err, &se)

	c := sim.DefaultCosts
	c.GracePeriod = -time.Millisecond
	_, err = sim.NewWorld(sim.Options{Costs: &c})
	requireSimError(t, err, sim.ErrBadCosts, "invalid argument: sim: cost GracePeriod is negative (-1ms)")
	requireSimError(t, c.Validate(), sim.ErrBadCosts, "invalid argument: sim: cost GracePeriod is negative (-1ms)")
	require.ErrorIs(t, panicOf(func() { sim.MustNewWorld(sim.Options{CPUs: -3}) }).(error), sim.ErrBadOptions)
}

// TestErrorsRaisedByRun: the failures that stop a run reach Run's caller
// as errors of their kind, wrapped with the task that met them.
func TestErrorsRaisedByRun(t *testing.T) {
	run := func(opts sim.Options, setup func(w *sim.World)) error {
		w := sim.MustNewWorld(opts)
		setup(w)
		p := panicOf(func() { w.Run() })
		err, ok := p.(error)
		require.True(t, ok, "Run panics with an error, not %#v", p)
		return err
	}

	err := run(sim.Options{Costs: testCosts()}, func(w *sim.World) {
		a, b := w.NewMutex("a"), w.NewMutex("b")
		w.Spawn("ab", func(t *sim.Task) { a.Lock(t); t.Sleep(time.Millisecond); b.Lock(t) })
		w.Spawn("ba", func(t *sim.Task) { b.Lock(t); t.Sleep(time.Millisecond); a.Lock(t) })
	})
	requireSimError(t, err, sim.ErrDeadlock,
		"resource deadlock avoided: sim: no runnable task; blocked: ab#2(at 0.001000s) ba#3(at 0.001000s)")

	err = run(sim.Options{Costs: testCosts()}, func(w *sim.World) {
		m := w.NewMutex("RTNL")
		w.Spawn("leaker", func(t *sim.Task) { m.Lock(t) })
	})
	requireSimError(t, err, sim.ErrHeldAtExit,
		"sim: task leaker#2 panicked: resource deadlock avoided: sim: finished holding 1 mutex(es)")

	err = run(sim.Options{}, func(w *sim.World) {
		w.Spawn("again", func(t *sim.Task) { w.Run() })
	})
	requireSimError(t, err, sim.ErrRunning,
		"sim: task again#2 panicked: device or resource busy: sim: World.Run called while running")

	err = run(sim.Options{}, func(w *sim.World) {
		m := w.NewMutex("RTNL")
		w.Spawn("stranger", func(t *sim.Task) { m.Unlock(t) })
	})
	requireSimError(t, err, sim.ErrNotOwner,
		"sim: task stranger#2 panicked: operation not permitted: sim: stranger#2 unlocks RTNL, which no task holds")

	err = run(sim.Options{Costs: testCosts()}, func(w *sim.World) {
		m := w.NewMutex("RTNL")
		w.Spawn("holder", func(t *sim.Task) { m.Lock(t); t.Sleep(time.Millisecond); m.Unlock(t) })
		w.Spawn("stranger", func(t *sim.Task) { m.Unlock(t) })
	})
	requireSimError(t, err, sim.ErrNotOwner,
		"sim: task stranger#3 panicked: operation not permitted: sim: stranger#3 unlocks RTNL held by holder#2")

	err = run(sim.Options{Costs: testCosts()}, func(w *sim.World) {
		w.Spawn("caller", func(t *sim.Task) {
			w.RCU().Call(t, func(k *sim.Task) { k.Sleep(time.Millisecond) })
			w.RCU().Barrier(t)
		})
	})
	require.ErrorIs(t, err, sim.ErrBlockedInKernelThread)
	require.ErrorIs(t, err, syscall.EINVAL)
	require.ErrorContains(t, err, "invalid argument: sim: sleep in kernel thread")
	require.ErrorContains(t, err, "(RCU callbacks cannot block)")
}

// TestSentinels: a sentinel is itself of no kind but its own errno, so
// that errors.Is matches an error of the kind, never the other way round.
func TestSentinels(t *testing.T) {
	require.False(t, errors.Is(sim.ErrDeadlock, sim.ErrHeldAtExit))
	require.ErrorIs(t, sim.ErrDeadlock, syscall.EDEADLK)
	require.Equal(t, "resource deadlock avoided: sim: deadlock", sim.ErrDeadlock.Error())
	require.Equal(t, "invalid argument", (&sim.Error{Errno: syscall.EINVAL}).Error())
}
