// The plugin run on a simulated kernel, against the state cni.ip leaves on
// Linux 6.18.

package main

import (
	"testing"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/rtnl"
)

// TestAgent runs the plugin on a simulated kernel, without root: the
// pods' namespaces are made as `ip netns add` makes them, their
// descriptors opened as the plugin opens /run/netns files, and the state
// it leaves is what cni.ip leaves on Linux 6.18.
func TestAgent(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	runtime := k.World().NewTask("runtime")
	host, err := k.OpenNetnsFD(k.InitNet()) // the plugin's own namespace
	require.NoError(t, err)
	pl := Plugin{Dial: func(cfg *netlink.Config) (*rtnetlink.Conn, error) {
		return nlwire.DialRTNetlinkConfig(k.InitNet(), cfg)
	}, HostNS: int(host)}
	for _, p := range Pods {
		n, err := k.NewNet(runtime, p.NetNS)
		require.NoError(t, err)
		fd, err := k.OpenNetnsFD(n)
		require.NoError(t, err)
		p.Pod.NetNS = int(fd)
		require.NoError(t, pl.Add(ContainerdNet, p.Pod))
		require.NoError(t, k.CloseNetnsFD(runtime, fd))
	}
	example.Check(t, k, "the agent")
}
