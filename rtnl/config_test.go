package rtnl_test

import (
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

func TestConstructorsRejectBadInput(t *testing.T) {
	_, err := rtnl.NewKernel(rtnl.Config{HWAddr: hwaddr.Policy(7)})
	require.ErrorIs(t, err, syscall.EINVAL)
	require.ErrorContains(t, err, "hardware address list policy")

	_, err = rtnl.NewKernel(rtnl.Config{Wait: netdev.WaitPolicy(9)})
	require.ErrorIs(t, err, syscall.EINVAL)
	require.ErrorContains(t, err, "netdev_wait_allrefs policy")

	_, err = rtnl.NewKernel(rtnl.Config{RefWaitLimit: -1})
	require.ErrorIs(t, err, syscall.EINVAL)
	require.ErrorContains(t, err, "netdev_wait_allrefs limit")

	_, err = rtnl.NewKernelIn(nil, rtnl.After)
	require.ErrorIs(t, err, syscall.EINVAL)

	_, err = netdev.NewStack(nil, nil, netdev.Config{})
	require.ErrorIs(t, err, syscall.EINVAL)

	_, err = rtnl.NewKernel(rtnl.Config{Nexthop: 5})
	require.ErrorIs(t, err, syscall.EINVAL)
	require.ErrorContains(t, err, "nexthop flush policy")

	require.Panics(t, func() { rtnl.MustNewKernel(rtnl.Config{HWAddr: 3}) })
	for _, cfg := range []rtnl.Config{rtnl.Before, rtnl.After, {HWAddr: hwaddr.TreeIndexed, Wait: netdev.WaitFixed}} {
		require.NoError(t, cfg.Validate())
		k, err := rtnl.NewKernel(cfg)
		require.NoError(t, err)
		require.Equal(t, cfg, k.Config())
	}
	require.Equal(t, "before", rtnl.Before.String())
	require.Equal(t, "after", rtnl.After.String())
	require.Equal(t, "hwaddr=TreeIndexed,wait=fixed,ifindex-list=false,nexthop=per-nexthop,rules=rtnl",
		rtnl.Config{HWAddr: hwaddr.TreeIndexed, Wait: netdev.WaitFixed}.String())
}
