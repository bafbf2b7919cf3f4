package rtnl_test

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// moveRig is a rig with namespaces a and b (Handles ha, hb) and a veth
// pair v0/v1 in a, as the real kernel's answers below were taken in
// (Linux 6.18, `ip -n a link set DEV netns b`).
type moveRig struct {
	*rig
	a, b   *rtnl.Net
	ha, hb *rtnl.Handle
}

func newMoveRig(t *testing.T) *moveRig {
	r := newRig(t, rtnl.Config{})
	a, err := r.k.NewNet(r.t, "a")
	r.ok(err)
	b, err := r.k.NewNet(r.t, "b")
	r.ok(err)
	m := &moveRig{rig: r, a: a, b: b, ha: a.Handle(r.t), hb: b.Handle(r.t)}
	r.ok(m.ha.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}))
	return m
}

func linkIdxNames(t *testing.T, h *rtnl.Handle) []string {
	l, err := h.LinkList()
	require.NoError(t, err)
	var out []string
	for _, li := range l {
		out = append(out, fmt.Sprintf("%d:%s", li.Index, li.Name))
	}
	return out
}

// notes records the link notifications of a namespace as strings.
func notes(n *rtnl.Net) *[]string {
	var out []string
	n.Subscribe(func(m rtnl.Notification) {
		if m.Link != nil {
			typ := "RTM_NEWLINK"
			if m.Type == rt.RTMDelLink {
				typ = "RTM_DELLINK"
			}
			s := fmt.Sprintf("%s %d:%s", typ, m.Link.Index, m.Link.Name)
			if m.Link.NewIndex != 0 {
				s += fmt.Sprintf(" new_ifindex %d", m.Link.NewIndex)
			}
			out = append(out, s)
		}
	})
	return &out
}

// A device leaves its namespace as an unregistration would: closed,
// NETDEV_UNREGISTER (its addresses and routes go), RTM_DELLINK with its
// new ifindex, then NETDEV_REGISTER and RTM_NEWLINK in the new one; it
// keeps its ifindex, and its peer now links across namespaces.
//
// Kernel: __dev_change_net_namespace (net/core/dev.c).
func TestLinkSetNsMovesDevice(t *testing.T) {
	m := newMoveRig(t)
	m.ok(m.ha.AddrAdd("v1", pfx("10.0.0.1/24")))
	m.ok(m.ha.LinkSetUp("v1"))
	m.ok(m.ha.LinkSetUp("v0"))
	require.Contains(t, dsts(m.routesIn(m.ha)), "10.0.0.0/24")
	ev := m.watch("v1")
	oldNotes, newNotes := notes(m.a), notes(m.b)

	m.ok(m.ha.LinkSetNs("v1", m.b))

	assert.Equal(t, []string{"NETDEV_GOING_DOWN v1", "NETDEV_DOWN v1", "NETDEV_UNREGISTER v1", "NETDEV_REGISTER v1"}, ev.take())
	assert.Equal(t, []string{"1:lo", "3:v0"}, linkIdxNames(t, m.ha))
	assert.Equal(t, []string{"1:lo", "2:v1"}, linkIdxNames(t, m.hb))
	assert.NotContains(t, dsts(m.routesIn(m.ha)), "10.0.0.0/24")
	l, err := m.hb.AddrList("v1", rt.FamilyInet)
	m.ok(err)
	assert.Empty(t, l, "the addresses stay behind")
	v1, err := m.hb.LinkByName("v1")
	m.ok(err)
	assert.Zero(t, v1.Flags&netdev.FlagUp, "the device arrives down")
	assert.True(t, v1.LinkNetns)
	assert.Equal(t, netdev.IfIndex(3), v1.LinkIndex)
	assert.Equal(t, "", v1.Link)
	v0, err := m.ha.LinkByName("v0")
	m.ok(err)
	assert.True(t, v0.LinkNetns)
	assert.Equal(t, netdev.IfIndex(2), v0.LinkIndex)
	assert.Contains(t, *oldNotes, "RTM_DELLINK 2:v1 new_ifindex 2")
	assert.Equal(t, []string{"RTM_NEWLINK 2:v1"}, *newNotes)

	// Moving to its own namespace does nothing.
	m.ok(m.hb.LinkSetNs("v1", m.b))
	assert.Equal(t, []string{"1:lo", "2:v1"}, linkIdxNames(t, m.hb))
}

// routesIn lists h's IPv4 main-table routes' destinations.
func (r *rig) routesIn(h *rtnl.Handle) []rtnl.RouteInfo {
	l, err := h.RouteList(rt.FamilyInet, 254)
	require.NoError(r.tb, err)
	return l
}

func dsts(l []rtnl.RouteInfo) []string {
	var out []string
	for _, ri := range l {
		out = append(out, ri.Dst.String())
	}
	return out
}

// The kernel's refusals, each changing nothing; the messages are Linux
// 6.18's extack.
func TestLinkSetNsErrors(t *testing.T) {
	m := newMoveRig(t)
	m.ok(m.ha.LinkAdd(netdev.Bridge{Name: "br0"}))
	m.ok(m.hb.LinkAdd(netdev.Veth{Name: "v1", Peer: "w1"}))
	for _, c := range []struct {
		name, dev string
		ch        rtnl.LinkChange
		err       syscall.Errno
		msg       string
	}{
		{"loopback", "lo", rtnl.LinkChange{}, syscall.EINVAL, "The interface netns is immutable"},
		{"bridge", "br0", rtnl.LinkChange{}, syscall.EINVAL, "The interface netns is immutable"},
		{"name in use", "v1", rtnl.LinkChange{}, syscall.EEXIST, "An interface with the same name exists in the target netns"},
		// A message that names the device by IFLA_IFNAME offers that
		// name as the one to take.
		{"named by its name in use", "v1", rtnl.LinkChange{Name: "v1"}, syscall.EEXIST, "Unable to use 'v1' for the new interface name in the target netns"},
		{"new name in use", "v1", rtnl.LinkChange{NewName: ptr("w1")}, syscall.EEXIST, "Unable to use 'w1' for the new interface name in the target netns"},
		{"invalid new name", "v1", rtnl.LinkChange{NewName: ptr("a/b")}, syscall.EINVAL, "Unable to use 'a/b' for the new interface name in the target netns"},
		{"ifindex in use", "v0", rtnl.LinkChange{NewIndex: 2}, syscall.EBUSY, "The ifindex 2 is not available in the target netns"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch := c.ch
			ch.Netns = rtnl.NetnsRef{Net: m.b}
			before := linkIdxNames(t, m.ha)
			err := m.ha.SetLink(rtnl.LinkRequest{Name: c.dev, Change: ch})
			require.ErrorIs(t, err, c.err)
			assert.Equal(t, c.msg, errMsg(err))
			assert.Equal(t, before, linkIdxNames(t, m.ha))
		})
	}
}

func errMsg(err error) string {
	var e *errno.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return ""
}

// A name in use in the target is replaced by the request's name or
// template; an ifindex in use by the target's next free one; a requested
// ifindex is taken.
func TestLinkSetNsRenamesAndReindexes(t *testing.T) {
	m := newMoveRig(t)
	// b: lo, w0@w1 (2, 3), so v1 (2) cannot keep its ifindex.
	m.ok(m.hb.LinkAdd(netdev.Veth{Name: "v1", Peer: "w1"}))
	m.ok(m.hb.LinkDel("w1"))
	m.ok(m.hb.LinkAdd(netdev.Veth{Name: "w0", Peer: "v1"}))
	assert.Equal(t, []string{"1:lo", "4:v1", "5:w0"}, linkIdxNames(t, m.hb))
	m.ok(m.ha.SetLink(rtnl.LinkRequest{Name: "v1", Change: rtnl.LinkChange{NewName: ptr("v%d"), Netns: rtnl.NetnsRef{Net: m.b}}}))
	// v1 moved as v0 (the template's first free name), then do_setlink
	// renamed it with the template again: v0 is its own, v1 taken.
	assert.Equal(t, []string{"1:lo", "2:v2", "4:v1", "5:w0"}, linkIdxNames(t, m.hb), "ifindex 2 is free in b: kept")
	m.ok(m.ha.LinkAdd(netdev.Veth{Name: "x0", Peer: "x1", Attrs: netdev.Attrs{Index: 5}}))
	m.ok(m.ha.LinkSetNs("x0", m.b))
	assert.Equal(t, []string{"1:lo", "2:v2", "4:v1", "5:w0", "6:x0"}, linkIdxNames(t, m.hb), "ifindex 5 taken in b: the next free one")
	m.ok(m.ha.SetLink(rtnl.LinkRequest{Name: "x1", Change: rtnl.LinkChange{NewIndex: 40, Netns: rtnl.NetnsRef{Net: m.b}}}))
	assert.Equal(t, []string{"1:lo", "2:v2", "4:v1", "5:w0", "6:x0", "40:x1"}, linkIdxNames(t, m.hb))
}

// A master releases a port that leaves (br_del_if); the devices stacked
// on a lower that leaves stay, linked across namespaces
// (macvlan_device_event ignores a move).
func TestLinkSetNsMasterAndUppers(t *testing.T) {
	m := newMoveRig(t)
	m.ok(m.ha.LinkAdd(netdev.Bridge{Name: "br0"}))
	m.ok(m.ha.LinkSetMaster("v0", "br0"))
	m.ok(m.ha.LinkAdd(netdev.Macvlan{Name: "mv0", Link: "v1"}))
	m.ok(m.ha.LinkSetNs("v0", m.b))
	v0, err := m.hb.LinkByName("v0")
	m.ok(err)
	assert.Equal(t, "", v0.Master)
	m.ok(m.ha.LinkSetNs("v1", m.b))
	mv, err := m.ha.LinkByName("mv0")
	m.ok(err)
	assert.True(t, mv.LinkNetns)
	assert.Equal(t, netdev.IfIndex(2), mv.LinkIndex)
}

// A request names its target by process id or namespace descriptor; an
// unknown pid is ESRCH, a descriptor not open EBADF, a namespace id the
// requester has not given EINVAL, all bare.
//
// Kernel: rtnl_link_get_net, get_net_ns_by_pid, get_net_ns_by_fd,
// get_net_ns_by_id.
func TestLinkSetNsByPIDAndFD(t *testing.T) {
	m := newMoveRig(t)
	assert.Equal(t, uint32(1), m.k.InitNet().PID())
	assert.Equal(t, uint32(1000), m.a.PID())
	assert.Equal(t, uint32(1001), m.b.PID())
	move := func(dev string, ref rtnl.NetnsRef) error {
		return m.ha.SetLink(rtnl.LinkRequest{Name: dev, Change: rtnl.LinkChange{Netns: ref}})
	}
	m.ok(move("v1", rtnl.NetnsRef{PID: ptr(uint32(1001))}))
	fd, err := m.k.OpenNetnsFD(m.k.InitNet())
	m.ok(err)
	assert.Equal(t, uint32(3), fd)
	m.ok(move("v0", rtnl.NetnsRef{FD: &fd}))
	assert.Equal(t, []string{"1:lo", "3:v0"}, linkIdxNames(t, m.h))
	m.ok(m.k.CloseNetnsFD(m.t, fd))
	for _, c := range []struct {
		ref rtnl.NetnsRef
		err syscall.Errno
	}{
		{rtnl.NetnsRef{PID: ptr(uint32(999))}, syscall.ESRCH},
		{rtnl.NetnsRef{FD: &fd}, syscall.EBADF},
		{rtnl.NetnsRef{NSID: ptr(int32(5))}, syscall.EINVAL},
	} {
		err := move("nosuch", c.ref)
		require.ErrorIs(t, err, c.err, "the namespace is resolved before the device")
		assert.Equal(t, "", errMsg(err))
	}
	require.ErrorIs(t, m.k.CloseNetnsFD(m.t, fd), syscall.EBADF)
}

// A descriptor holds its namespace: deleted by name, it lives until the
// descriptor closes.
func TestNetnsFDHoldsNamespace(t *testing.T) {
	m := newMoveRig(t)
	fd, err := m.k.OpenNetnsFD(m.b)
	m.ok(err)
	m.ok(m.hb.Close())
	m.ok(m.k.DelNet(m.t, "b"))
	m.settle()
	m.ok(m.ha.SetLink(rtnl.LinkRequest{Name: "v1", Change: rtnl.LinkChange{Netns: rtnl.NetnsRef{FD: &fd}}}))
	assert.Equal(t, []string{"1:lo", "3:v0"}, linkIdxNames(t, m.ha))
	m.ok(m.k.CloseNetnsFD(m.t, fd))
	m.settle()
	// cleanup_net took v1 and, through veth_dellink, its peer v0.
	assert.Equal(t, []string{"1:lo"}, linkIdxNames(t, m.ha))
}

// RTM_NEWLINK with a target namespace creates the device there; a veth's
// peer goes where its own attributes say, else to the requester's
// namespace. Names and ifindexes are each namespace's own (Linux 6.18:
// testdata/link_netns_veth.txt in iproute).
//
// Kernel: rtnl_newlink_create → rtnl_create_link(tgt_net),
// rtnl_get_peer_net, veth_newlink.
func TestNewLinkInTargetNamespace(t *testing.T) {
	m := newMoveRig(t)
	add := func(name, peer string, dev, peerNs *rtnl.Net) error {
		r := rtnl.LinkRequest{Name: name, Flags: rt.NLMCreate | rt.NLMExcl, Spec: netdev.Veth{Name: name, Peer: peer}}
		if dev != nil {
			r.Change.Netns = rtnl.NetnsRef{Net: dev}
		}
		if peerNs != nil {
			r.Peer = &rtnl.LinkChange{Netns: rtnl.NetnsRef{Net: peerNs}}
		}
		return m.ha.NewLink(r)
	}
	m.ok(add("d0", "d1", m.b, nil))
	m.ok(add("e0", "e1", nil, m.b))
	m.ok(add("f0", "f1", m.b, m.b))
	require.ErrorIs(t, add("g0", "e1", nil, m.b), syscall.EEXIST)
	m.ok(add("g0", "g0", nil, m.b))
	err := m.ha.NewLink(rtnl.LinkRequest{Name: "h0", Flags: rt.NLMCreate, Spec: netdev.Veth{Name: "h0", Peer: "h1"},
		Peer: &rtnl.LinkChange{Netns: rtnl.NetnsRef{PID: ptr(uint32(7))}}})
	require.ErrorIs(t, err, syscall.ESRCH, "the peer's namespace is resolved first")
	assert.Equal(t, []string{"1:lo", "2:v1", "3:v0", "4:d1", "5:e0", "6:g0"}, linkIdxNames(t, m.ha))
	assert.Equal(t, []string{"1:lo", "2:d0", "3:e1", "4:f1", "5:f0", "6:g0"}, linkIdxNames(t, m.hb))
	d0, err := m.hb.LinkByName("d0")
	m.ok(err)
	assert.True(t, d0.LinkNetns)
	assert.Equal(t, netdev.IfIndex(4), d0.LinkIndex)
}

// Deleting a namespace deletes a veth whose peer is elsewhere with its
// peer, and charges cleanup_net's work to the kernel's worker.
//
// Kernel: cleanup_net → default_device_exit_batch → veth_dellink.
func TestDelNetTakesPeerElsewhere(t *testing.T) {
	m := newMoveRig(t)
	m.ok(m.ha.LinkSetNs("v1", m.b))
	oldNotes := notes(m.a)
	m.ok(m.hb.Close())
	before := m.counters()
	m.ok(m.k.DelNet(m.t, "b"))
	m.settle()
	assert.Equal(t, []string{"1:lo"}, linkIdxNames(t, m.ha))
	assert.Equal(t, []string{"RTM_DELLINK 3:v0"}, *oldNotes)
	after := m.counters()
	assert.Greater(t, after.Get(sim.DevUnregister), before.Get(sim.DevUnregister))
}

// A macvlan created in another namespace stacks on the requester's
// device that IFLA_LINK names, not on one of the target's.
//
// Kernel: rtnl_newlink_link_net, macvlan_common_newlink.
func TestNewLinkMacvlanElsewhere(t *testing.T) {
	m := newMoveRig(t)
	m.ok(m.ha.NewLink(rtnl.LinkRequest{
		Name: "mv0", Flags: rt.NLMCreate | rt.NLMExcl, Spec: netdev.Macvlan{Name: "mv0", Link: "v1"},
		Change: rtnl.LinkChange{Netns: rtnl.NetnsRef{Net: m.b}},
	}))
	mv, err := m.hb.LinkByName("mv0")
	m.ok(err)
	assert.True(t, mv.LinkNetns)
	assert.Equal(t, netdev.IfIndex(2), mv.LinkIndex)
	assert.Equal(t, []string{"1:lo", "2:mv0"}, linkIdxNames(t, m.hb))
}

// A namespace whose last reference went is being dismantled: nothing
// moves into it, by *Net or by its pid.
func TestLinkSetNsIntoDyingNamespace(t *testing.T) {
	m := newMoveRig(t)
	pid := m.b.PID()
	m.ok(m.hb.Close())
	m.ok(m.k.DelNet(m.t, "b"))
	err := m.ha.LinkSetNs("v1", m.b)
	require.ErrorIs(t, err, syscall.ENOENT)
	err = m.ha.SetLink(rtnl.LinkRequest{Name: "v1", Change: rtnl.LinkChange{Netns: rtnl.NetnsRef{PID: &pid}}})
	require.ErrorIs(t, err, syscall.ESRCH)
	assert.Equal(t, []string{"1:lo", "2:v1", "3:v0"}, linkIdxNames(t, m.ha))
}

// cleanup_net first takes the dying namespace's id out of the others
// (RTM_DELNSID), then deletes every device of it in one batch, in the
// reverse order of registration, loopback last, veths with their peers:
// the peers' namespace hears their RTM_DELLINKs newest first. The real
// kernel (Linux 6.18, `ip monitor link nsid` in a while `ip netns del b`
// dismantles b) sent exactly "Deleted nsid 0", then z0, y0, x0. The
// batch is one unregister_netdevice_many: two expedited grace periods
// (synchronize_net) and cleanup_net's own one before the exit methods.
//
// Kernel: cleanup_net, unhash_nsid (net/core/net_namespace.c),
// default_device_exit_batch, unregister_netdevice_many (net/core/dev.c).
func TestDelNetOneBatchNewestFirst(t *testing.T) {
	r := newRig(t, rtnl.Config{})
	a, err := r.k.NewNet(r.t, "a")
	r.ok(err)
	b, err := r.k.NewNet(r.t, "b")
	r.ok(err)
	ha, hb := a.Handle(r.t), b.Handle(r.t)
	defer ha.Close()
	for _, x := range []string{"x", "y", "z"} {
		r.ok(hb.NewLink(rtnl.LinkRequest{Flags: rt.NLMCreate | rt.NLMExcl, Spec: netdev.Veth{Name: x + "1", Peer: x + "0"},
			Peer: &rtnl.LinkChange{Netns: rtnl.NetnsRef{Net: a}}}))
	}
	_, err = ha.LinkList() // the dump gives a an id for b, as `ip -n a link show` did
	r.ok(err)
	r.ok(hb.Close())
	var seen []string
	a.Subscribe(func(m rtnl.Notification) {
		switch {
		case m.Nsid != nil && m.Type == rt.RTMDelNsid:
			seen = append(seen, fmt.Sprintf("Deleted nsid %d", m.Nsid.NSID))
		case m.Link != nil && m.Type == rt.RTMDelLink:
			seen = append(seen, fmt.Sprintf("Deleted %d: %s", m.Link.Index, m.Link.Name))
		}
	})
	order := r.watch()
	before := r.counters()
	r.ok(r.k.DelNet(r.t, "b"))
	r.settle()
	assert.Equal(t, []string{"Deleted nsid 0", "Deleted 4: z0", "Deleted 3: y0", "Deleted 2: x0"}, seen)
	var unreg []string
	for _, e := range order.take() {
		if strings.HasPrefix(e, "NETDEV_UNREGISTER ") {
			unreg = append(unreg, strings.TrimPrefix(e, "NETDEV_UNREGISTER "))
		}
	}
	assert.Equal(t, []string{"z1", "z0", "y1", "y0", "x1", "x0", "lo"}, unreg, "newest first, each veth with its peer, loopback last")
	after := r.counters()
	assert.Equal(t, int64(3), after.Get(sim.SyncExpedited)-before.Get(sim.SyncExpedited), "one batch: two synchronize_net, and cleanup_net's own")
}
