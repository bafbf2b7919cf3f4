package nlwire_test

import (
	"encoding/binary"
	"net/netip"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	W "github.com/netsimlab/netsim/nlwire/internal/wiretest"
	"github.com/netsimlab/netsim/rtnl"
)

// limitsRig is a kernel with the veth pair of the kernel-diff sequences
// up (veth0 is ifindex 3), a requesting socket and a listening one.
type limitsRig struct {
	t    *testing.T
	h    *rtnl.Handle
	a, l *netlink.Conn
	seq  uint32
}

func newLimitsRig(t *testing.T) *limitsRig {
	k := rtnl.MustNewKernel(rtnl.After)
	h := k.InitNet().Handle(k.World().NewTask("test"))
	require.NoError(t, vethPairHandle(h))
	require.NoError(t, h.LinkSetUp("veth1"))
	require.NoError(t, h.LinkSetUp("veth0"))
	r := &limitsRig{t: t, h: h}
	var err error
	r.a, err = nlwire.Dial(k.InitNet())
	require.NoError(t, err)
	r.l, err = nlwire.Dial(k.InitNet())
	require.NoError(t, err)
	t.Cleanup(func() { r.a.Close(); r.l.Close() })
	return r
}

// do sends m from A and returns what A then holds.
func (r *limitsRig) do(m netlink.Message) []netlink.Message {
	r.t.Helper()
	r.seq++
	m.Header.Sequence = r.seq
	m.Header.Length = uint32(16 + (len(m.Data)+3)&^3)
	require.NoError(r.t, W.SocketOf(r.a).Send(m))
	got, err := W.Drain(r.a)
	require.NoError(r.t, err)
	return got
}

// listened is what L holds.
func (r *limitsRig) listened() []netlink.Message {
	r.t.Helper()
	got, err := W.Drain(r.l)
	require.NoError(r.t, err)
	return got
}

// errnoOf is the error an NLMSG_ERROR or NLMSG_DONE carries (0 for
// success).
func errnoOf(t *testing.T, m netlink.Message) syscall.Errno {
	t.Helper()
	require.Contains(t, []netlink.HeaderType{netlink.Error, netlink.Done}, m.Header.Type)
	return syscall.Errno(-int32(binary.LittleEndian.Uint32(m.Data)))
}

// rawAttr returns the type-t top-level attribute after a family header of
// hdr bytes: its nla_len as sent and its offset, reading only the
// attributes before it (an overlong nest's length may leave garbage after
// it).
func rawAttr(t *testing.T, m netlink.Message, hdr int, typ uint16) (nlaLen int, off int) {
	t.Helper()
	for off = hdr; off+4 <= len(m.Data); {
		l := int(binary.LittleEndian.Uint16(m.Data[off:]))
		if binary.LittleEndian.Uint16(m.Data[off+2:])&0x3fff == typ {
			return l, off
		}
		require.GreaterOrEqual(t, l, 4)
		off += (l + 3) &^ 3
	}
	t.Fatalf("no attribute %d", typ)
	return 0, 0
}

// TestAppend6PastOneRequest appends 2400 gateways to one IPv6 prefix over
// the wire, past the 2340 one RTA_MULTIPATH carries, with a listener on
// RTNLGRP_IPV6_ROUTE and without: every append is acknowledged; the
// listener gets every notification whole, its RTA_MULTIPATH's length
// modulo 65536 past 2340 paths as Linux 6.18 sends it; an IPv6 dump ends
// before the route with NLMSG_DONE 0, a dump of both families with
// EMSGSIZE; fibmatch is EMSGSIZE. (testdata/limits6.transcript is the
// real kernel's.)
func TestAppend6PastOneRequest(t *testing.T) {
	for _, listen := range []bool{false, true} {
		r := newLimitsRig(t)
		require.NoError(t, r.h.AddrAdd("veth0", netip.MustParsePrefix("2001:db8::1/64")))
		if listen {
			require.NoError(t, r.l.JoinGroup(uapi.RTNLGRP_IPV6_ROUTE))
		}
		var ns []netlink.Message
		for _, c := range [][2]int{{0, 1200}, {1200, 2340}, {2340, 2341}, {2341, 2400}} {
			got := r.do(gateways6(c[0], c[1]))
			require.Equal(t, 1, len(got))
			require.Equal(t, syscall.Errno(0), errnoOf(t, got[0]))
			ns = append(ns, r.listened()...)
		}
		if !listen {
			require.Empty(t, ns)
		} else {
			require.Equal(t, 4, len(ns))
			last := ns[3]
			require.Equal(t, 67312, int(last.Header.Length), "rtmsg, attributes and 2400 paths of 28 bytes")
			l, _ := rawAttr(t, last, 12, uapi.RTA_MULTIPATH)
			require.Equal(t, (4+2400*28)&0xffff, l, "nla_nest_end keeps 16 bits")
		}

		got := r.do(routeDump(uapi.AF_INET6))
		require.Equal(t, syscall.Errno(0), errnoOf(t, got[len(got)-1]))
		require.Equal(t, 2, len(got), "2001:db8::/64, then the end")
		got = r.do(routeDump(uapi.AF_UNSPEC))
		require.Equal(t, syscall.EMSGSIZE, errnoOf(t, got[len(got)-1]))
		got = r.do(routeGet(uapi.AF_INET6, "2001:db8:100::1", 128, uapi.RTM_F_FIB_MATCH))
		require.Equal(t, syscall.EMSGSIZE, errnoOf(t, got[0]))
		got = r.do(routeGet(uapi.AF_INET6, "2001:db8:100::1", 128, 0))
		require.Equal(t, netlink.HeaderType(uapi.RTM_NEWROUTE), got[0].Header.Type)
	}
}

// TestGroupAtLimitOverTheWire checks a group of 8191 members, the most
// NHA_GROUP holds: made over the wire, its notification and its get carry
// it whole with its id; a dump cannot hold it (EMSGSIZE after the
// nexthops before it). A group of 8192, which no request can carry, the
// Go API refuses too: the wire never answers a group without its
// attributes.
func TestGroupAtLimitOverTheWire(t *testing.T) {
	r := newLimitsRig(t)
	require.NoError(t, r.h.AddrAdd("veth0", netip.MustParsePrefix("10.0.0.1/16")))
	for i := 1; i <= nexthop.MaxGroupMembers+1; i++ {
		require.NoError(t, r.h.NexthopAdd(rtnl.NexthopRequest{ID: nexthop.ID(i),
			Gateway: netip.AddrFrom4([4]byte{10, 0, byte(i / 250), byte(i%250 + 2)}), Dev: "veth0"}))
	}
	err := r.h.NexthopAdd(rtnl.NexthopRequest{ID: 20000, Group: func() []nexthop.GroupEntry {
		g := make([]nexthop.GroupEntry, nexthop.MaxGroupMembers+1)
		for i := range g {
			g[i].ID = nexthop.ID(i + 1)
		}
		return g
	}()})
	require.ErrorIs(t, err, syscall.EMSGSIZE)
	got := r.do(nh(uapi.RTM_GETNEXTHOP, W.Req, uapi.AF_UNSPEC, W.U32(uapi.NHA_ID, 20000)))
	require.Equal(t, syscall.ENOENT, errnoOf(t, got[0]))

	require.NoError(t, r.l.JoinGroup(uapi.RTNLGRP_NEXTHOP))
	got = r.do(nh(uapi.RTM_NEWNEXTHOP, W.Create, uapi.AF_UNSPEC, W.U32(uapi.NHA_ID, 10000), groupOf(nexthop.MaxGroupMembers)))
	require.Equal(t, syscall.Errno(0), errnoOf(t, got[0]))
	whole := func(m netlink.Message) {
		t.Helper()
		require.Equal(t, netlink.HeaderType(uapi.RTM_NEWNEXTHOP), m.Header.Type)
		ad, err := netlink.NewAttributeDecoder(m.Data[8:])
		require.NoError(t, err)
		var id uint32
		var members int
		for ad.Next() {
			switch ad.Type() {
			case uapi.NHA_ID:
				id = ad.Uint32()
			case uapi.NHA_GROUP:
				members = len(ad.Bytes()) / 8
			}
		}
		require.NoError(t, ad.Err())
		require.Equal(t, uint32(10000), id)
		require.Equal(t, nexthop.MaxGroupMembers, members)
	}
	ns := r.listened()
	require.Equal(t, 1, len(ns))
	whole(ns[0])
	got = r.do(nh(uapi.RTM_GETNEXTHOP, W.Req, uapi.AF_UNSPEC, W.U32(uapi.NHA_ID, 10000)))
	require.Equal(t, 1, len(got))
	whole(got[0])
	got = r.do(nh(uapi.RTM_GETNEXTHOP, W.Dump, uapi.AF_UNSPEC))
	require.Equal(t, nexthop.MaxGroupMembers+2, len(got), "every single nexthop, then the end")
	require.Equal(t, syscall.EMSGSIZE, errnoOf(t, got[len(got)-1]))
}

// TestMultipath4AtLimitOverTheWire checks an IPv4 route of 4095 paths with
// gateways, the most one RTA_MULTIPATH carries (the Go API refuses 4096,
// rtnl's TestRequestLimits): made over the wire, its notification carries
// it whole; no dump can hold it, and an IPv4 dump ends before it.
func TestMultipath4AtLimitOverTheWire(t *testing.T) {
	r := newLimitsRig(t)
	require.NoError(t, r.h.AddrAdd("veth0", netip.MustParsePrefix("10.0.0.1/16")))
	require.NoError(t, r.l.JoinGroup(uapi.RTNLGRP_IPV4_ROUTE))
	hops := make([]W.Path, 4095)
	for i := range hops {
		gw := netip.AddrFrom4([4]byte{10, 0, byte(i / 250), byte(i%250 + 2)})
		hops[i] = W.Path{Ifindex: ifVeth0, Attrs: []W.Attr{{Type: uapi.RTA_GATEWAY, Data: gw.AsSlice()}}}
	}
	got := r.do(rt4(uapi.RTM_NEWROUTE, W.Create, "192.0.2.0", 24, W.Multipath(hops...)))
	require.Equal(t, syscall.Errno(0), errnoOf(t, got[0]))
	ns := r.listened()
	require.Equal(t, 1, len(ns))
	l, _ := rawAttr(t, ns[0], 12, uapi.RTA_MULTIPATH)
	require.Equal(t, 4+4095*16, l)
	got = r.do(routeDump(uapi.AF_INET))
	require.Equal(t, 2, len(got), "10.0.0.0/16, then the end")
	require.Equal(t, syscall.Errno(0), errnoOf(t, got[1]))
}
