package nlwire

import (
	"encoding/binary"
	"net/netip"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// afterLink returns IFLA_LINK and the two attribute types that follow it.
func afterLink(types []uint16) []uint16 {
	for i, t := range types {
		if t == uapi.IFLA_LINK && i+2 < len(types) {
			return types[i : i+3]
		}
	}
	return nil
}

// RTM_SETLINK and RTM_NEWLINK move a device to the namespace their
// IFLA_NET_NS_PID or IFLA_NET_NS_FD names (a pid from rtnl.Net.PID, a
// descriptor from rtnl.Kernel.OpenNetnsFD) or IFLA_TARGET_NETNSID (an id
// of the requester's); an unknown pid is a bare ESRCH, an unknown
// descriptor EBADF, an unassigned namespace id EINVAL, and two of them at
// once the kernel's EINVAL. The RTM_DELLINK of the move carries the id
// the old namespace gave the new one (IFLA_NEW_NETNSID) before the new
// ifindex.
//
// Kernel: rtnl_setlink, rtnl_ensure_unique_netns,
// rtnl_link_get_net_by_nlattr, do_setlink, __dev_change_net_namespace.
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
	var del []byte
	cancel := h.Net().Subscribe(func(n rtnl.Notification) {
		if n.Type == rt.RTMDelLink {
			del = linkMessage(*n.Link, n.Change)
		}
	})
	require.NoError(t, move(rt.RTMSetLink, int32(v1), func(ae *netlink.AttributeEncoder) { ae.Uint32(uapi.IFLA_NET_NS_PID, b.PID()) }))
	cancel()
	require.NotNil(t, del, "the old namespace hears RTM_DELLINK")
	assert.Equal(t, uint32(v1), rawU32(t, del[ifinfomsgLen:], uapi.IFLA_NEW_IFINDEX))
	types := attrTypes(t, del[ifinfomsgLen:])
	assert.Equal(t, []uint16{uapi.IFLA_LINK, uapi.IFLA_NEW_NETNSID, uapi.IFLA_NEW_IFINDEX}, afterLink(types), "IFLA_NEW_NETNSID and IFLA_NEW_IFINDEX follow IFLA_LINK (rtnl_fill_ifinfo)")
	assert.Equal(t, uint32(0), rawU32(t, del[ifinfomsgLen:], uapi.IFLA_NEW_NETNSID), "the move gave b the id 0 (peernet2id_alloc)")
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
	assertErr(t, move(rt.RTMSetLink, lo, func(ae *netlink.AttributeEncoder) { ae.Int32(uapi.IFLA_TARGET_NETNSID, 7) }), syscall.EINVAL, "")
	assertErr(t, move(rt.RTMSetLink, lo, func(ae *netlink.AttributeEncoder) { ae.Int32(uapi.IFLA_TARGET_NETNSID, 0) }), syscall.EINVAL, "The interface netns is immutable")
	assertErr(t, move(rt.RTMSetLink, lo, func(ae *netlink.AttributeEncoder) {
		ae.Uint32(uapi.IFLA_NET_NS_PID, b.PID())
		ae.Uint32(uapi.IFLA_NET_NS_FD, fd)
	}), syscall.EINVAL, "multiple netns identifying attributes specified")
	assertErr(t, move(rt.RTMSetLink, lo, func(ae *netlink.AttributeEncoder) { ae.Uint32(uapi.IFLA_NET_NS_PID, b.PID()) }), syscall.EINVAL, "The interface netns is immutable")
}

// A veth's peer goes to the namespace its VETH_INFO_PEER's IFLA_NET_NS_PID
// names; two namespace attributes in the peer are the kernel's EINVAL.
//
// Kernel: rtnl_get_peer_net, veth_newlink.
func TestNewLinkVethPeerNetns(t *testing.T) {
	h := testHandle(t)
	b, err := h.Net().Kernel().NewNet(h.Task(), "b")
	require.NoError(t, err)
	veth := func(name string, peer func(ae *netlink.AttributeEncoder)) error {
		body := append(ifi(0, 0, 0), attrBytes(t, func(ae *netlink.AttributeEncoder) {
			ae.String(uapi.IFLA_IFNAME, name)
			ae.Nested(uapi.IFLA_LINKINFO, func(li *netlink.AttributeEncoder) error {
				li.String(uapi.IFLA_INFO_KIND, "veth")
				li.Nested(uapi.IFLA_INFO_DATA, func(d *netlink.AttributeEncoder) error {
					d.Bytes(uapi.VETH_INFO_PEER, append(ifi(0, 0, 0), attrBytes(t, peer)...))
					return nil
				})
				return nil
			})
		})...)
		_, err := serve(t, h, rt.RTMNewLink, createExcl, body, false)
		return err
	}
	require.NoError(t, veth("p0", func(ae *netlink.AttributeEncoder) {
		ae.String(uapi.IFLA_IFNAME, "p1")
		ae.Uint32(uapi.IFLA_NET_NS_PID, b.PID())
	}))
	hb := b.Handle(h.Task())
	defer hb.Close()
	assert.NotZero(t, hb.LinkIndex("p1"))
	assert.Zero(t, h.LinkIndex("p1"))
	p0, err := h.LinkByName("p0")
	require.NoError(t, err)
	assert.True(t, p0.LinkNetns)
	msg := linkMessage(p0, 0)
	assert.Equal(t, uint32(hb.LinkIndex("p1")), rawU32(t, msg[ifinfomsgLen:], uapi.IFLA_LINK))
	assertErr(t, veth("q0", func(ae *netlink.AttributeEncoder) {
		ae.String(uapi.IFLA_IFNAME, "q1")
		ae.Uint32(uapi.IFLA_NET_NS_PID, b.PID())
		ae.Uint32(uapi.IFLA_NET_NS_FD, 3)
	}), syscall.EINVAL, "multiple netns identifying attributes specified")
	assertErr(t, veth("q0", func(ae *netlink.AttributeEncoder) {
		ae.String(uapi.IFLA_IFNAME, "q1")
		ae.Uint32(uapi.IFLA_NET_NS_PID, 4242)
	}), syscall.ESRCH, "")
}

// A namespace that goes away takes its id out of the namespaces that had
// one, each sending RTM_DELNSID to RTNLGRP_NSID; a link whose peer is in
// another namespace carries the id the requester has for it
// (IFLA_LINK_NETNSID) before IFLA_LINK.
//
// Kernel: unhash_nsid, rtnl_net_notifyid (net/core/net_namespace.c),
// rtnl_fill_link_netnsid (net/core/rtnetlink.c).
func TestNsidAcrossNamespaces(t *testing.T) {
	h := testHandle(t)
	k := h.Net().Kernel()
	b, err := k.NewNet(h.Task(), "b")
	require.NoError(t, err)
	require.NoError(t, h.NewLink(rtnl.LinkRequest{Flags: rt.NLMCreate | rt.NLMExcl, Spec: netdev.Veth{Name: "v0", Peer: "v1"},
		Peer: &rtnl.LinkChange{Netns: rtnl.NetnsRef{Net: b}}}))
	msgs, err := serve(t, h, rt.RTMGetLink, netlink.Request, append(ifi(int32(h.LinkIndex("v0")), 0, 0), attrBytes(t, func(*netlink.AttributeEncoder) {})...), false)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	body := msgs[0].Data[ifinfomsgLen:]
	assert.Equal(t, uint32(0), rawU32(t, body, uapi.IFLA_LINK_NETNSID), "v0's creation gave b the id 0")
	types := attrTypes(t, body)
	for i, typ := range types {
		if typ == uapi.IFLA_LINK_NETNSID {
			require.Less(t, i+1, len(types))
			assert.Equal(t, uint16(uapi.IFLA_LINK), types[i+1], "rtnl_fill_link_netnsid puts IFLA_LINK after the id")
		}
	}

	c, err := Dial(h.Net())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.JoinGroup(uapi.RTNLGRP_NSID))
	require.NoError(t, k.DelNet(h.Task(), "b"))
	k.Settle(h.Task())
	got, err := c.Receive()
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, netlink.HeaderType(uapi.RTM_DELNSID), got[0].Header.Type)
	assert.Equal(t, uint32(0), rawU32(t, got[0].Data[4:], netnsaNSID))
}

// A request with IFLA_TARGET_NETNSID or IFA_TARGET_NETNSID lists, gets
// or deletes in the namespace that an id of the requester's names. A
// device there whose peer is in the requester's namespace carries, as
// IFLA_LINK_NETNSID, the id the requester has for itself, given by the
// dump if it had none (on Linux 6.18: after `ip link add v0 type veth
// peer name v1 netns tb`, a dump of tb's devices by its id 0 gives v1
// IFLA_LINK_NETNSID 1, and the requester then lists ids 0 and 1).
//
// Kernel: rtnl_dump_ifinfo, rtnl_getlink, rtnl_dellink with
// rtnl_get_net_ns_capable; rtnl_fill_link_netnsid → peernet2id_alloc
// (net/core/rtnetlink.c, net/core/net_namespace.c); inet_dump_ifaddr
// (net/ipv4/devinet.c).
func TestTargetNetnsidAcrossNamespaces(t *testing.T) {
	h := testHandle(t)
	k := h.Net().Kernel()
	b, err := k.NewNet(h.Task(), "tb")
	require.NoError(t, err)
	require.NoError(t, h.NewLink(rtnl.LinkRequest{Flags: rt.NLMCreate | rt.NLMExcl, Spec: netdev.Veth{Name: "v0", Peer: "v1"},
		Peer: &rtnl.LinkChange{Netns: rtnl.NetnsRef{Net: b}}}))
	hb := b.Handle(h.Task())
	defer hb.Close()
	v1 := hb.LinkIndex("v1")
	require.NoError(t, hb.AddrAdd("v1", netip.MustParsePrefix("10.1.0.1/24")))
	target := func(typ uint16, id int32) []byte {
		return attrBytes(t, func(ae *netlink.AttributeEncoder) { ae.Int32(typ, id) })
	}

	msgs, err := serve(t, h, rt.RTMGetLink, netlink.Dump, append(ifi(0, 0, 0), target(uapi.IFLA_TARGET_NETNSID, 0)...), false)
	require.NoError(t, err)
	var names []string
	for _, m := range msgs {
		body := m.Data[ifinfomsgLen:]
		require.Equal(t, []uint16{uapi.IFLA_TARGET_NETNSID, uapi.IFLA_IFNAME}, attrTypes(t, body)[:2])
		assert.Equal(t, uint32(0), rawU32(t, body, uapi.IFLA_TARGET_NETNSID))
		names = append(names, rawStr(t, body, uapi.IFLA_IFNAME))
		if rawStr(t, body, uapi.IFLA_IFNAME) == "v1" {
			assert.Equal(t, uint32(1), rawU32(t, body, uapi.IFLA_LINK_NETNSID), "the requester's id for itself, given now")
			assert.Equal(t, uint32(h.LinkIndex("v0")), rawU32(t, body, uapi.IFLA_LINK))
		}
	}
	assert.Equal(t, []string{"lo", "v1"}, names, "tb's devices, not the requester's")

	got, err := serve(t, h, rt.RTMGetLink, netlink.Request, append(ifi(int32(v1), 0, 0), target(uapi.IFLA_TARGET_NETNSID, 0)...), false)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "v1", rawStr(t, got[0].Data[ifinfomsgLen:], uapi.IFLA_IFNAME))

	addrs, err := serve(t, h, rt.RTMGetAddr, netlink.Dump, append(ifaddrmsg{family: uapi.AF_INET}.marshal(), target(uapi.IFA_TARGET_NETNSID, 0)...), true)
	require.NoError(t, err)
	require.Len(t, addrs, 1)
	assert.Equal(t, uint32(v1), binary.LittleEndian.Uint32(addrs[0].Data[4:8]))
	assert.Equal(t, uint32(0), rawU32(t, addrs[0].Data[ifaddrmsgLen:], uapi.IFA_TARGET_NETNSID))

	_, err = serve(t, h, rt.RTMDelLink, netlink.Request|netlink.Acknowledge, append(ifi(int32(v1), 0, 0), target(uapi.IFLA_TARGET_NETNSID, 2)...), false)
	assertErr(t, err, syscall.EINVAL, "")
	_, err = serve(t, h, rt.RTMDelLink, netlink.Request|netlink.Acknowledge, append(ifi(int32(v1), 0, 0), target(uapi.IFLA_TARGET_NETNSID, 0)...), false)
	require.NoError(t, err)
	assert.Zero(t, hb.LinkIndex("v1"))
	assert.Zero(t, h.LinkIndex("v0"), "the veth's other end goes with it")
}
