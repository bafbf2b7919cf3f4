// The engine run on a simulated kernel, against the state docker.ip leaves
// on Linux 6.18.

package main

import (
	"testing"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/rtnl"
)

// TestAgent runs the engine on a simulated kernel, without root: the
// containers' namespaces are made as `ip netns add` makes them, their
// descriptors opened as the engine opens /run/netns files, and the state
// it leaves is what docker.ip leaves on Linux 6.18.
func TestAgent(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	runtime := k.World().NewTask("runtime")
	e := Engine{Dial: func(cfg *netlink.Config) (*rtnetlink.Conn, error) {
		return nlwire.DialRTNetlinkConfig(k.InitNet(), cfg)
	}}
	require.NoError(t, e.CreateBridge(Docker0))
	for _, c := range Containers {
		n, err := k.NewNet(runtime, c.NetNS)
		require.NoError(t, err)
		fd, err := k.OpenNetnsFD(n)
		require.NoError(t, err)
		c.Container.NetNS = int(fd)
		require.NoError(t, e.Join(Docker0, c.Container))
		require.NoError(t, k.CloseNetnsFD(runtime, fd))
	}
	example.Check(t, k, "the agent")
}
