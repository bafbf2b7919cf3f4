package nlwire

import (
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rtnl"
)

// DialConfig: port ids are unique within a namespace (the kernel's
// table is keyed by namespace and port id); a requested one is taken
// from autobind's choices; NetNS is refused by name; the deprecated
// DisableNSLockThread changes nothing, as in mdlayher/netlink.
func TestDialConfig(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	n := k.InitNet()
	t0 := k.World().NewTask("t0")
	other, err := k.NewNet(t0, "other")
	require.NoError(t, err)
	task := k.World().NewTask("agent")

	a, err := NewSocketConfig(n, task, &netlink.Config{PID: uint32(task.ID())})
	require.NoError(t, err)
	defer a.Close()
	b := NewSocketTask(n, task)
	defer b.Close()
	require.Equal(t, uint32(0xffffefff), b.PID(), "the task's id is taken: autobind's rover")
	c := NewSocketTask(other, task)
	defer c.Close()
	require.Equal(t, uint32(task.ID()), c.PID(), "another namespace: the task's id is free there")
	d, err := NewSocketConfig(other, task, &netlink.Config{PID: 0xffffefff})
	require.NoError(t, err, "the same port id in another namespace")
	defer d.Close()
	_, err = NewSocketConfig(other, task, &netlink.Config{PID: 0xffffefff})
	require.ErrorIs(t, err, syscall.EADDRINUSE)
	require.EqualError(t, err, "bind: address already in use")

	_, err = DialConfig(n, &netlink.Config{NetNS: 3})
	require.ErrorIs(t, err, syscall.EOPNOTSUPP)
	require.EqualError(t, err, "operation not supported: netlink.Config.NetNS is not modelled by netsim: "+
		"a socket's namespace is the rtnl.Net it is dialled in")

	conn, err := DialConfig(n, &netlink.Config{DisableNSLockThread: true, Strict: true, Groups: 1 << 31})
	require.NoError(t, err, "DisableNSLockThread is accepted, as netlink.Dial accepts it")
	require.NoError(t, conn.Close())
}

// Groups at bind are those of the mask, and a socket dialled with groups
// is a listener like one that joined them: closing it ends the
// namespace's subscription.
func TestDialConfigGroups(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	n := k.InitNet()
	s, err := NewSocketConfig(n, k.World().NewTask("l"), &netlink.Config{Groups: 1<<(uapi.RTNLGRP_LINK-1) | 1<<31})
	require.NoError(t, err)
	s.mu.Lock()
	require.True(t, s.joinedLocked(uapi.RTNLGRP_LINK) && s.joinedLocked(32))
	require.False(t, s.joinedLocked(uapi.RTNLGRP_IPV4_IFADDR))
	s.mu.Unlock()
	s.ns.mu.Lock()
	require.Equal(t, 1, s.ns.listeners)
	s.ns.mu.Unlock()
	require.NoError(t, s.LeaveGroup(uapi.RTNLGRP_LINK))
	require.NoError(t, s.Close())
	s.ns.mu.Lock()
	require.Zero(t, s.ns.listeners)
	require.Nil(t, s.ns.cancel)
	s.ns.mu.Unlock()
}
