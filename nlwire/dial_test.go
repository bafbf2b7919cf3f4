package nlwire

import (
	"os"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rtnl"
)

// DialConfig: port ids are unique within a namespace (the kernel's
// table is keyed by namespace and port id); a requested one is taken
// from autobind's choices; the deprecated
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

// Config.NetNS opens the socket in the namespace a descriptor names, as
// netlink.Dial enters it with setns(2) to create its socket; a descriptor
// not open fails as setns fails on Linux 6.18 (checked with
// netlink.Dial(0, &netlink.Config{NetNS: 999}) and NetNS: -5, as root:
// "setns: bad file descriptor", an *os.SyscallError).
func TestDialConfigNetNS(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	t0 := k.World().NewTask("t0")
	other, err := k.NewNet(t0, "other")
	require.NoError(t, err)
	fd, err := k.OpenNetnsFD(other)
	require.NoError(t, err)
	h := other.Handle(t0)
	require.NoError(t, h.LinkAdd(netdev.Dummy{Name: "only-in-other"}))

	conn, err := DialRTNetlinkConfig(k.InitNet(), &netlink.Config{NetNS: int(fd)})
	require.NoError(t, err)
	defer conn.Close()
	links, err := conn.Link.List()
	require.NoError(t, err)
	var names []string
	for _, l := range links {
		names = append(names, l.Attributes.Name)
	}
	require.Equal(t, []string{"lo", "only-in-other"}, names, "the socket is in the namespace of the descriptor")

	for _, bad := range []int{999, -5} {
		_, err = DialConfig(k.InitNet(), &netlink.Config{NetNS: bad})
		require.ErrorIs(t, err, syscall.EBADF)
		var se *os.SyscallError
		require.ErrorAs(t, err, &se)
		require.EqualError(t, err, "setns: bad file descriptor")
	}
	require.NoError(t, k.CloseNetnsFD(t0, fd))
	_, err = DialConfig(k.InitNet(), &netlink.Config{NetNS: int(fd)})
	require.ErrorIs(t, err, syscall.EBADF, "a closed descriptor")
}
