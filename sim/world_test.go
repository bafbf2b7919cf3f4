package sim_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

func TestNewWorldRejectsBadOptions(t *testing.T) {
	_, err := sim.NewWorld(sim.Options{CPUs: -1})
	require.ErrorIs(t, err, syscall.EINVAL)
	require.ErrorContains(t, err, "negative number of virtual CPUs")

	c := sim.DefaultCosts
	c.GracePeriod = -time.Millisecond
	_, err = sim.NewWorld(sim.Options{Costs: &c})
	require.ErrorIs(t, err, syscall.EINVAL)
	require.ErrorContains(t, err, "cost GracePeriod is negative")

	w, err := sim.NewWorld(sim.Options{})
	require.NoError(t, err)
	require.Equal(t, 1, w.CPUs())
	require.Equal(t, sim.DefaultCosts, w.Costs())
	require.Panics(t, func() { sim.MustNewWorld(sim.Options{CPUs: -3}) })
}
