package rtnl_test

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// nexthopRig has veth1 enslaved to bridge br0 and veth2 on its own, with
// nexthop 1 via 172.16.1.2 on veth1 (onlink, proto static), 2 on veth2,
// an IPv6 one (3), a blackhole (4) and the group 10 of 1 and 2,3.
func nexthopRig(t *testing.T) *rig {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Bridge{Name: "br0"}))
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "veth1", Peer: "peer1"}))
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "veth2", Peer: "peer2"}))
	r.ok(r.h.LinkSetMaster("veth1", "br0"))
	r.up("lo", "br0", "peer1", "peer2", "veth1", "veth2")
	ip := netip.MustParseAddr
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 1, Gateway: ip("172.16.1.2"), Dev: "veth1", NHFlags: rt.FlagOnLink, Protocol: 4}))
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 2, Dev: "veth2"}))
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 3, Gateway: ip("fe80::1"), Dev: "veth2"}))
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 4, Blackhole: true}))
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 10, Group: []nexthop.GroupEntry{{ID: 1}, {ID: 2, Weight: 3}}}))
	return r
}

// TestNexthopInfo: a dump reports what nh_fill_node puts in nhmsg and
// its attributes.
func TestNexthopInfo(t *testing.T) {
	r := nexthopRig(t)
	l, err := r.h.NexthopList()
	r.ok(err)
	require.Len(t, l, 5)
	veth1, veth2 := r.h.LinkIndex("veth1"), r.h.LinkIndex("veth2")
	require.Equal(t, rtnl.NexthopInfo{ID: 1, Family: syscall.AF_INET, Scope: rt.ScopeLink, Protocol: rt.ProtoStatic,
		Flags: rt.FlagOnLink, Gateway: netip.MustParseAddr("172.16.1.2"), Dev: "veth1", DevIndex: veth1}, l[0])
	require.Equal(t, rtnl.NexthopInfo{ID: 2, Family: syscall.AF_INET, Scope: rt.ScopeHost, Dev: "veth2", DevIndex: veth2}, l[1])
	require.Equal(t, rtnl.NexthopInfo{ID: 3, Family: syscall.AF_INET6, Scope: rt.ScopeLink,
		Gateway: netip.MustParseAddr("fe80::1"), Dev: "veth2", DevIndex: veth2}, l[2])
	// A blackhole: no device, no scope.
	require.Equal(t, rtnl.NexthopInfo{ID: 4, Family: syscall.AF_INET, Blackhole: true}, l[3])
	require.Equal(t, rtnl.NexthopInfo{ID: 10, Group: []nexthop.GroupMember{{ID: 1, Weight: 1}, {ID: 2, Weight: 3}}}, l[4])
}

// TestNexthopDump: nh_dump_filtered's selection.
func TestNexthopDump(t *testing.T) {
	r := nexthopRig(t)
	ids := func(f rtnl.NexthopDumpRequest) []nexthop.ID {
		l, err := rtnl.ReadAll[rtnl.NexthopInfo](r.h.DumpNexthops(f))
		r.ok(err)
		var out []nexthop.ID
		for _, ni := range l {
			out = append(out, ni.ID)
		}
		return out
	}
	cases := []struct {
		name string
		f    rtnl.NexthopDumpRequest
		want []nexthop.ID
	}{
		{"all", rtnl.NexthopDumpRequest{}, []nexthop.ID{1, 2, 3, 4, 10}},
		{"fdb selects nothing out", rtnl.NexthopDumpRequest{FDB: true}, []nexthop.ID{1, 2, 3, 4, 10}},
		{"groups", rtnl.NexthopDumpRequest{Groups: true}, []nexthop.ID{10}},
		{"a family leaves groups out", rtnl.NexthopDumpRequest{Family: syscall.AF_INET}, []nexthop.ID{1, 2, 4}},
		{"IPv6", rtnl.NexthopDumpRequest{Family: syscall.AF_INET6}, []nexthop.ID{3}},
		{"device", rtnl.NexthopDumpRequest{DevIndex: r.h.LinkIndex("veth2")}, []nexthop.ID{2, 3}},
		{"a blackhole is on loopback", rtnl.NexthopDumpRequest{DevIndex: r.h.LinkIndex("lo")}, []nexthop.ID{4}},
		{"master", rtnl.NexthopDumpRequest{MasterIndex: r.h.LinkIndex("br0")}, []nexthop.ID{1}},
		{"master and device", rtnl.NexthopDumpRequest{MasterIndex: r.h.LinkIndex("br0"), DevIndex: r.h.LinkIndex("veth2")}, nil},
		{"a device is no master", rtnl.NexthopDumpRequest{MasterIndex: r.h.LinkIndex("veth1")}, nil},
		{"groups and a device", rtnl.NexthopDumpRequest{Groups: true, DevIndex: r.h.LinkIndex("veth1")}, nil},
	}
	for _, c := range cases {
		require.Equal(t, c.want, ids(c.f), c.name)
	}
	// A bucket dump refuses NHA_FDB as it does NHA_GROUPS, without a
	// message.
	_, err := r.h.NexthopBucketList(rtnl.NexthopBucketDumpRequest{NexthopDumpRequest: rtnl.NexthopDumpRequest{FDB: true}})
	requireErr(t, err, syscall.EINVAL, "")
}

// TestDelNexthopRequest: RTM_DELNEXTHOP takes an id and nothing else.
func TestDelNexthopRequest(t *testing.T) {
	r := nexthopRig(t)
	cases := []struct {
		name  string
		req   rtnl.NexthopDelRequest
		errno syscall.Errno
		msg   string
	}{
		{"another attribute", rtnl.NexthopDelRequest{ID: 1, HasID: true, Other: true}, syscall.EINVAL, "Unknown attribute type"},
		{"attributes before the header", rtnl.NexthopDelRequest{ID: 1, HasID: true, Other: true, Header: rtnl.NexthopHeader{Flags: rt.FlagOnLink}}, syscall.EINVAL, "Unknown attribute type"},
		{"protocol", rtnl.NexthopDelRequest{ID: 1, HasID: true, Header: rtnl.NexthopHeader{Protocol: rt.ProtoStatic}}, syscall.EINVAL, "Invalid values in header"},
		{"flags", rtnl.NexthopDelRequest{ID: 1, HasID: true, Header: rtnl.NexthopHeader{Flags: rt.FlagOnLink}}, syscall.EINVAL, "Invalid values in header"},
		{"scope", rtnl.NexthopDelRequest{ID: 1, Header: rtnl.NexthopHeader{Scope: rt.ScopeLink}}, syscall.EINVAL, "Invalid values in header"},
		{"resvd", rtnl.NexthopDelRequest{ID: 1, Header: rtnl.NexthopHeader{Resvd: 1}}, syscall.EINVAL, "Invalid values in header"},
		{"no id", rtnl.NexthopDelRequest{}, syscall.EINVAL, "Nexthop id is missing"},
		{"id 0", rtnl.NexthopDelRequest{HasID: true}, syscall.EINVAL, "Invalid nexthop id"},
		{"unknown id", rtnl.NexthopDelRequest{ID: 99, HasID: true}, syscall.ENOENT, ""},
	}
	for _, c := range cases {
		requireErr(t, r.h.DelNexthop(c.req), c.errno, c.msg)
	}
	l, err := r.h.NexthopList()
	r.ok(err)
	require.Len(t, l, 5, "refused requests deleted nothing")
	r.ok(r.h.DelNexthop(rtnl.NexthopDelRequest{ID: 2}))
	_, err = r.h.NexthopGet(2)
	requireErr(t, err, syscall.ENOENT, "Nexthop id does not exist")
}

// TestNexthopRequestChecks: the checks of a get, a dump and a bucket get
// that the kernel makes before it looks anything up (nh_valid_get_del_req,
// __nh_valid_dump_req, nh_valid_dump_bucket_req, nh_valid_get_bucket_req),
// a device by ifindex (rtm_to_nh_config_rtnl), and the group statistics
// netsim does not count.
func TestNexthopRequestChecks(t *testing.T) {
	r := nexthopRig(t)
	second := func(_ any, err error) error { return err }
	cases := []struct {
		name  string
		err   error
		errno syscall.Errno
		msg   string
	}{
		{"get: header", second(r.h.GetNexthop(rtnl.NexthopGetRequest{ID: 1, Header: rtnl.NexthopHeader{Protocol: 4}})), syscall.EINVAL, "Invalid values in header"},
		{"get: no id", second(r.h.GetNexthop(rtnl.NexthopGetRequest{})), syscall.EINVAL, "Nexthop id is missing"},
		{"get: id 0", second(r.h.GetNexthop(rtnl.NexthopGetRequest{HasID: true})), syscall.EINVAL, "Invalid nexthop id"},
		{"get: a group's statistics", second(r.h.GetNexthop(rtnl.NexthopGetRequest{ID: 10, OpFlags: 1})), syscall.EOPNOTSUPP, "Nexthop group statistics are not modelled"},
		{"dump: device above INT_MAX", second(r.h.DumpNexthops(rtnl.NexthopDumpRequest{DevIndex: -1})), syscall.EINVAL, "Invalid device index"},
		{"dump: master above INT_MAX", second(r.h.DumpNexthops(rtnl.NexthopDumpRequest{MasterIndex: -1})), syscall.EINVAL, "Invalid master device index"},
		{"dump: header", second(r.h.DumpNexthops(rtnl.NexthopDumpRequest{Header: rtnl.NexthopHeader{Scope: rt.ScopeLink}})), syscall.EINVAL, "Invalid values in header for nexthop dump request"},
		{"bucket dump: id 0", second(r.h.NexthopBucketList(rtnl.NexthopBucketDumpRequest{HasID: true})), syscall.EINVAL, "Invalid nexthop id"},
		{"bucket get: no bucket", second(r.h.GetNexthopBucket(rtnl.NexthopBucketGetRequest{ID: 10})), syscall.EINVAL, "Bucket information is missing"},
		{"bucket get: no index", second(r.h.GetNexthopBucket(rtnl.NexthopBucketGetRequest{ID: 10, HasBucket: true})), syscall.EINVAL, "Bucket index is missing"},
		{"new: NHA_OIF 0", r.h.NewNexthop(rtnl.NexthopRequest{ID: 20, OIF: true}), syscall.EINVAL, "Invalid device index"},
		{"new: an ifindex no device has", r.h.NewNexthop(rtnl.NexthopRequest{ID: 20, DevIndex: 999}), syscall.EINVAL, "Invalid device index"},
	}
	for _, c := range cases {
		requireErr(t, c.err, c.errno, c.msg)
	}
	// A dump asking for statistics lists the single nexthops before the
	// first group, then ends.
	var ids []nexthop.ID
	d, err := r.h.DumpNexthops(rtnl.NexthopDumpRequest{OpFlags: 1})
	r.ok(err)
	_, err = d.Next(func(ni *rtnl.NexthopInfo) bool { ids = append(ids, ni.ID); return true })
	requireErr(t, err, syscall.EOPNOTSUPP, "Nexthop group statistics are not modelled")
	require.Equal(t, []nexthop.ID{1, 2, 3, 4}, ids)
	// A device by ifindex is the device that has it.
	r.ok(r.h.NewNexthop(rtnl.NexthopRequest{ID: 20, DevIndex: r.h.LinkIndex("veth2"), OIF: true}))
	ni, err := r.h.NexthopGet(20)
	r.ok(err)
	require.Equal(t, "veth2", ni.Dev)
}
