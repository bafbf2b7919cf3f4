package rtnl_test

import (
	"fmt"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// nsidNotes records the RTM_NEWNSID and RTM_DELNSID notifications of a
// namespace.
func nsidNotes(n *rtnl.Net) *[]string {
	var out []string
	n.Subscribe(func(m rtnl.Notification) {
		if m.Nsid == nil {
			return
		}
		typ := "RTM_NEWNSID"
		if m.Type == rt.RTMDelNsid {
			typ = "RTM_DELNSID"
		}
		out = append(out, fmt.Sprintf("%s %d seq %d", typ, m.Nsid.NSID, m.Origin.Seq))
	})
	return &out
}

// nsidList is the dump of h's namespace ids as "ID:NAME".
func nsidList(t *testing.T, h *rtnl.Handle, names map[*rtnl.Net]string) []string {
	t.Helper()
	d, err := h.DumpNsids(rtnl.NsidDumpRequest{})
	require.NoError(t, err)
	var out []string
	require.True(t, d.Next(func(i *rtnl.NsidInfo) bool {
		for n, name := range names {
			if id, err := h.NetnsID(n); err == nil && id == i.NSID {
				out = append(out, fmt.Sprintf("%d:%s", i.NSID, name))
				return true
			}
		}
		out = append(out, fmt.Sprintf("%d:?", i.NSID))
		return true
	}))
	return out
}

// The ids of a namespace are an IDR: a requested id, or the lowest free
// one for a negative id; a taken id and a peer that has one already are
// EEXIST, each with its own message; the peer is named by pid or
// descriptor only. The sequence is the one the real kernel answered for
// `ip netns set` (the move of v1 gave a and b ids for each other first).
//
// Kernel: rtnl_net_newid, alloc_netid (net/core/net_namespace.c).
func TestNewNsid(t *testing.T) {
	m := newMoveRig(t)
	c, err := m.k.NewNet(m.t, "c")
	m.ok(err)
	m.ok(m.ha.SetLink(rtnl.LinkRequest{Name: "v1", Change: rtnl.LinkChange{Netns: rtnl.NetnsRef{Net: m.b}}}))
	notes := nsidNotes(m.b)
	id := func(v int32) *int32 { return &v }
	newid := func(nsid *int32, peer rtnl.NetnsRef) error {
		return m.hb.NewNsid(rtnl.NsidRequest{Origin: rtnl.Origin{Seq: 7}, NSID: nsid, Peer: peer})
	}
	m.ok(newid(id(5), rtnl.NetnsRef{PID: ptr(c.PID())}))
	for _, tc := range []struct {
		nsid *int32
		peer rtnl.NetnsRef
		err  syscall.Errno
		msg  string
	}{
		{id(6), rtnl.NetnsRef{Net: c}, syscall.EEXIST, "Peer netns already has a nsid assigned"},
		{id(5), rtnl.NetnsRef{Net: m.a}, syscall.EEXIST, "Peer netns already has a nsid assigned"}, // a has 0 from the move
		{id(5), rtnl.NetnsRef{Net: m.k.InitNet()}, syscall.EEXIST, "The specified nsid is already used"},
		{nil, rtnl.NetnsRef{Net: c}, syscall.EINVAL, "nsid is missing"},
		{id(1), rtnl.NetnsRef{}, syscall.EINVAL, "Peer netns reference is missing"},
		{id(1), rtnl.NetnsRef{NSID: id(5)}, syscall.EINVAL, "Peer netns reference is missing"},
		{id(1), rtnl.NetnsRef{PID: ptr(uint32(4242))}, syscall.ESRCH, "Peer netns reference is invalid"},
		{id(1), rtnl.NetnsRef{FD: ptr(uint32(99))}, syscall.EBADF, "Peer netns reference is invalid"},
	} {
		err := newid(tc.nsid, tc.peer)
		require.ErrorIs(t, err, tc.err)
		assert.Equal(t, tc.msg, errMsg(err))
	}
	m.ok(newid(id(-1), rtnl.NetnsRef{Net: m.b})) // a namespace may have an id for itself
	m.ok(newid(id(-7), rtnl.NetnsRef{Net: m.k.InitNet()}))
	names := map[*rtnl.Net]string{m.a: "a", m.b: "b", c: "c", m.k.InitNet(): "init"}
	assert.Equal(t, []string{"0:a", "1:b", "2:init", "5:c"}, nsidList(t, m.hb, names))
	assert.Equal(t, []string{"RTM_NEWNSID 5 seq 7", "RTM_NEWNSID 1 seq 7", "RTM_NEWNSID 2 seq 7"}, *notes)
	assert.Equal(t, []string{"0:b"}, nsidList(t, m.ha, names), "ids are per namespace")
}

// RTM_GETNSID answers the id the requester (or, with a target, the
// namespace it calls that) has for the peer, and with a target the
// requester's own id for the peer as NETNSA_CURRENT_NSID; an unknown peer
// id is ENOENT, an unknown target EINVAL.
//
// Kernel: rtnl_net_getid (net/core/net_namespace.c).
func TestGetNsid(t *testing.T) {
	m := newMoveRig(t)
	c, err := m.k.NewNet(m.t, "c")
	m.ok(err)
	m.ok(m.ha.SetNetnsID(c, 3))
	m.ok(m.ha.SetNetnsID(m.b, 4))
	hc := c.Handle(m.t)
	defer hc.Close()
	m.ok(hc.SetNetnsID(m.b, 9))
	get := func(r rtnl.NsidGetRequest) (rtnl.NsidInfo, error) { return m.ha.GetNsid(r) }
	info, err := get(rtnl.NsidGetRequest{Peer: rtnl.NetnsRef{PID: ptr(m.b.PID())}})
	m.ok(err)
	assert.Equal(t, rtnl.NsidInfo{NSID: 4}, info)
	info, err = get(rtnl.NsidGetRequest{Peer: rtnl.NetnsRef{NSID: ptr(int32(4))}, TargetNSID: ptr(int32(3))})
	m.ok(err)
	assert.Equal(t, rtnl.NsidInfo{NSID: 9, HasCurrent: true, CurrentNSID: 4}, info, "c calls b 9, a calls it 4")
	info, err = get(rtnl.NsidGetRequest{Peer: rtnl.NetnsRef{Net: m.k.InitNet()}})
	m.ok(err)
	assert.Equal(t, rtnl.NsidNotAssigned, info.NSID)
	_, err = get(rtnl.NsidGetRequest{Peer: rtnl.NetnsRef{NSID: ptr(int32(8))}})
	require.ErrorIs(t, err, syscall.ENOENT)
	assert.Equal(t, "Peer netns reference is invalid", errMsg(err))
	_, err = get(rtnl.NsidGetRequest{Peer: rtnl.NetnsRef{NSID: ptr(int32(4))}, TargetNSID: ptr(int32(8))})
	require.ErrorIs(t, err, syscall.EINVAL)
	assert.Equal(t, "Target netns reference is invalid", errMsg(err))
	_, err = get(rtnl.NsidGetRequest{})
	assert.Equal(t, "Peer netns reference is missing", errMsg(err))
	_, err = get(rtnl.NsidGetRequest{GetChecks: rtnl.GetChecks{Strict: true, Unsupported: true}, Peer: rtnl.NetnsRef{Net: m.b}})
	assert.Equal(t, "Unsupported attribute in peer netns getid request", errMsg(err))
}

// A dump lists the ids in increasing order; on a strict socket a target
// namespace's table, each with the requester's own id for the peer, and
// the attributes refused in type order; a non-strict dump reads no
// attribute.
//
// Kernel: rtnl_net_dumpid, rtnl_valid_dump_net_req.
func TestDumpNsids(t *testing.T) {
	m := newMoveRig(t)
	m.ok(m.ha.SetNetnsID(m.b, 2))
	m.ok(m.ha.SetNetnsID(m.k.InitNet(), 0))
	m.ok(m.hb.SetNetnsID(m.k.InitNet(), 5))
	dump := func(r rtnl.NsidDumpRequest) ([]rtnl.NsidInfo, error) {
		d, err := m.ha.DumpNsids(r)
		if err != nil {
			return nil, err
		}
		var out []rtnl.NsidInfo
		for done := false; !done; {
			first := true
			done = d.Next(func(i *rtnl.NsidInfo) bool {
				if !first {
					return false // one entry per part: the cursor resumes
				}
				first = false
				out = append(out, *i)
				return true
			})
		}
		return out, nil
	}
	got, err := dump(rtnl.NsidDumpRequest{TargetNSID: ptr(int32(2))})
	m.ok(err)
	assert.Equal(t, []rtnl.NsidInfo{{NSID: 0}, {NSID: 2}}, got, "a non-strict dump ignores the target")
	got, err = dump(rtnl.NsidDumpRequest{Strict: true, TargetNSID: ptr(int32(2))})
	m.ok(err)
	assert.Equal(t, []rtnl.NsidInfo{{NSID: 5, HasCurrent: true, CurrentNSID: 0}}, got)
	_, err = dump(rtnl.NsidDumpRequest{Strict: true, TargetNSID: ptr(int32(7))})
	require.ErrorIs(t, err, syscall.EINVAL)
	assert.Equal(t, "Invalid target network namespace id", errMsg(err))
	nsidAttr, currentAttr := uint16(1), uint16(5)
	_, err = dump(rtnl.NsidDumpRequest{Strict: true, TargetNSID: ptr(int32(7)), Unsupported: &nsidAttr})
	assert.Equal(t, "Unsupported attribute in dump request", errMsg(err), "NETNSA_NSID comes before NETNSA_TARGET_NSID")
	_, err = dump(rtnl.NsidDumpRequest{Strict: true, TargetNSID: ptr(int32(7)), Unsupported: &currentAttr})
	assert.Equal(t, "Invalid target network namespace id", errMsg(err), "NETNSA_CURRENT_NSID comes after it")
}

// The kernel gives ids when a message must name a namespace: a device's
// RTM_NEWLINK whose peer is elsewhere (not the peer's first one, sent
// before the pair is tied), and a move, which names the new namespace in
// the old one's RTM_DELLINK and the old one in the new one's RTM_NEWLINK
// of a veth. The real kernel gave exactly these ids.
//
// Kernel: peernet2id_alloc from rtnl_fill_link_netnsid and
// __dev_change_net_namespace.
func TestNsidGivenByMessages(t *testing.T) {
	r := newRig(t, rtnl.Config{})
	var nets []*rtnl.Net
	var hs []*rtnl.Handle
	for _, name := range []string{"a", "b", "c"} {
		n, err := r.k.NewNet(r.t, name)
		r.ok(err)
		nets = append(nets, n)
		hs = append(hs, n.Handle(r.t))
	}
	a, b, c := nets[0], nets[1], nets[2]
	names := map[*rtnl.Net]string{a: "a", b: "b", c: "c"}
	r.ok(hs[0].NewLink(rtnl.LinkRequest{Flags: rt.NLMCreate | rt.NLMExcl, Spec: netdev.Veth{Name: "v0", Peer: "v1"},
		Peer: &rtnl.LinkChange{Netns: rtnl.NetnsRef{Net: c}}}))
	assert.Equal(t, []string{"0:c"}, nsidList(t, hs[0], names), "v0's RTM_NEWLINK names c")
	assert.Empty(t, nsidList(t, hs[2], names), "v1's first RTM_NEWLINK had no peer")
	r.ok(hs[0].LinkDel("v0"))
	r.ok(hs[0].LinkAdd(netdev.Veth{Name: "w0", Peer: "w1"}))
	r.ok(hs[0].SetLink(rtnl.LinkRequest{Name: "w1", Change: rtnl.LinkChange{Netns: rtnl.NetnsRef{Net: b}}}))
	assert.Equal(t, []string{"0:c", "1:b"}, nsidList(t, hs[0], names))
	assert.Equal(t, []string{"0:a"}, nsidList(t, hs[1], names))
	l, err := hs[0].LinkByName("w0")
	r.ok(err)
	assert.True(t, l.LinkNetns)
	assert.Equal(t, int32(1), l.LinkNetnsID)
	for _, h := range hs {
		h.Close()
	}
}

// A namespace that goes away takes its id out of every namespace that
// had one for it, each hearing RTM_DELNSID; a namespace being dismantled
// gets no new id.
//
// Kernel: unhash_nsid (cleanup_net), peernet2id_alloc's check_net.
func TestNsidUnhash(t *testing.T) {
	m := newMoveRig(t)
	m.ok(m.ha.SetNetnsID(m.b, 3))
	hi := m.k.InitNet().Handle(m.t)
	defer hi.Close()
	m.ok(hi.SetNetnsID(m.b, 0))
	m.ok(hi.SetNetnsID(m.a, 1))
	na, ni := nsidNotes(m.a), nsidNotes(m.k.InitNet())
	m.hb.Close()
	m.ok(m.k.DelNet(m.t, "b"))
	m.settle()
	assert.Equal(t, []string{"RTM_DELNSID 3 seq 0"}, *na)
	assert.Equal(t, []string{"RTM_DELNSID 0 seq 0"}, *ni)
	names := map[*rtnl.Net]string{m.a: "a"}
	assert.Equal(t, []string{"1:a"}, nsidList(t, hi, names))
	_, err := hi.GetNsid(rtnl.NsidGetRequest{Peer: rtnl.NetnsRef{NSID: ptr(int32(0))}})
	require.ErrorIs(t, err, syscall.ENOENT)
}

// IFLA_LINK_NETNSID is an id of the namespace the device is created in:
// a veth's peer without a namespace of its own goes there, a macvlan's
// lower device is found there, and an id the target has not given is
// EINVAL.
//
// Kernel: rtnl_newlink (get_net_ns_by_id(tgt_net, ...)),
// rtnl_get_peer_net, macvlan_common_newlink.
func TestNewLinkLinkNsid(t *testing.T) {
	m := newMoveRig(t)
	m.ok(m.ha.SetNetnsID(m.b, 4))
	id := func(v int32) *int32 { return &v }
	create := rt.NLMCreate | rt.NLMExcl
	m.ok(m.ha.NewLink(rtnl.LinkRequest{Flags: create, Spec: netdev.Veth{Name: "p0", Peer: "p1"}, LinkNSID: id(4)}))
	assert.Equal(t, []string{"1:lo", "2:p1"}, linkIdxNames(t, m.hb))
	m.ok(m.hb.LinkAdd(netdev.Veth{Name: "q0", Peer: "q1"}))
	m.ok(m.ha.NewLink(rtnl.LinkRequest{Flags: create, Spec: netdev.Macvlan{Name: "mv0", Link: "q0"}, LinkNSID: id(4)}))
	mv, err := m.ha.LinkByName("mv0")
	m.ok(err)
	assert.True(t, mv.LinkNetns, "the lower device is b's q0")
	assert.Equal(t, int32(4), mv.LinkNetnsID)
	for _, r := range []rtnl.LinkRequest{
		{Flags: create, Spec: netdev.Veth{Name: "x0", Peer: "x1"}, LinkNSID: id(7)},
		{Flags: create, Spec: netdev.Veth{Name: "x0", Peer: "x1"}, LinkNSID: id(4), Change: rtnl.LinkChange{Netns: rtnl.NetnsRef{Net: m.b}}}, // b has no id 4
	} {
		err := m.ha.NewLink(r)
		require.ErrorIs(t, err, syscall.EINVAL)
		assert.Equal(t, "Unknown network namespace id", errMsg(err))
	}
}

// A move names the new namespace in the old one's RTM_DELLINK, giving it
// an id first, which the old namespace hears as RTM_NEWNSID before the
// RTM_DELLINK: the real kernel's `ip -n a monitor link nsid` printed
// "nsid 0 (iproute2 netns name: b)", then "Deleted 2: v1@v0 ... new-netns
// b new-ifindex 2".
//
// Kernel: __dev_change_net_namespace (peernet2id_alloc, then
// rtmsg_ifinfo_newnet).
func TestMoveNamesNewNamespace(t *testing.T) {
	m := newMoveRig(t)
	var seen []string
	m.a.Subscribe(func(n rtnl.Notification) {
		switch {
		case n.Nsid != nil:
			seen = append(seen, fmt.Sprintf("nsid %d", n.Nsid.NSID))
		case n.Link != nil && n.Type == rt.RTMDelLink:
			seen = append(seen, fmt.Sprintf("Deleted %d: %s new-netnsid %d new-ifindex %d", n.Link.Index, n.Link.Name, n.Link.NewNetnsID, n.Link.NewIndex))
		}
	})
	m.ok(m.ha.LinkSetNs("v1", m.b))
	assert.Equal(t, []string{"nsid 0", "Deleted 2: v1 new-netnsid 0 new-ifindex 2"}, seen)
}
