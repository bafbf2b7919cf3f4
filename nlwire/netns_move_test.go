package nlwire

import (
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
)

// RTM_SETLINK and RTM_NEWLINK move a device to the namespace their
// IFLA_NET_NS_PID or IFLA_NET_NS_FD names (a pid from rtnl.Net.PID, a
// descriptor from rtnl.Kernel.OpenNetnsFD); an unknown pid is a bare
// ESRCH, an unknown descriptor EBADF, a namespace id EINVAL, and two of
// them at once the kernel's EINVAL.
//
// Kernel: rtnl_setlink, rtnl_ensure_unique_netns,
// rtnl_link_get_net_by_nlattr, do_setlink.
func TestSetLinkNetns(t *testing.T) {
	h := testHandle(t)
	k := h.Net().Kernel()
	b, err := k.NewNet(h.Task(), "b")
	require.NoError(t, err)
	require.NoError(t, h.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}))
	v0, v1 := h.LinkIndex("v0"), h.LinkIndex("v1")
	move := func(typ rt.MsgType, index int32, fn func(ae *netlink.AttributeEncoder)) error {
		_, err := serve(t, h, typ, netlink.Request|netlink.Acknowledge, append(ifi(index, 0, 0), attrBytes(t, fn)...), false)
		return err
	}
	require.NoError(t, move(rt.RTMSetLink, int32(v1), func(ae *netlink.AttributeEncoder) { ae.Uint32(uapi.IFLA_NET_NS_PID, b.PID()) }))
	fd, err := k.OpenNetnsFD(b)
	require.NoError(t, err)
	require.NoError(t, move(rt.RTMNewLink, int32(v0), func(ae *netlink.AttributeEncoder) { ae.Uint32(uapi.IFLA_NET_NS_FD, fd) }))
	require.NoError(t, k.CloseNetnsFD(h.Task(), fd))
	hb := b.Handle(h.Task())
	defer hb.Close()
	assert.Equal(t, v1, hb.LinkIndex("v1"))
	assert.Equal(t, v0, hb.LinkIndex("v0"))
	assert.Zero(t, h.LinkIndex("v0"))

	lo := int32(1)
	assertErr(t, move(rt.RTMSetLink, lo, func(ae *netlink.AttributeEncoder) { ae.Uint32(uapi.IFLA_NET_NS_PID, 999) }), syscall.ESRCH, "")
	assertErr(t, move(rt.RTMSetLink, lo, func(ae *netlink.AttributeEncoder) { ae.Uint32(uapi.IFLA_NET_NS_FD, fd) }), syscall.EBADF, "")
	assertErr(t, move(rt.RTMSetLink, lo, func(ae *netlink.AttributeEncoder) { ae.Int32(uapi.IFLA_TARGET_NETNSID, 0) }), syscall.EINVAL, "")
	assertErr(t, move(rt.RTMSetLink, lo, func(ae *netlink.AttributeEncoder) {
		ae.Uint32(uapi.IFLA_NET_NS_PID, b.PID())
		ae.Uint32(uapi.IFLA_NET_NS_FD, fd)
	}), syscall.EINVAL, "multiple netns identifying attributes specified")
	assertErr(t, move(rt.RTMSetLink, lo, func(ae *netlink.AttributeEncoder) { ae.Uint32(uapi.IFLA_NET_NS_PID, b.PID()) }), syscall.EINVAL, "The interface netns is immutable")
}
