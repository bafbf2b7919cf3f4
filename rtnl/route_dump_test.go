package rtnl_test

import (
	"fmt"
	"math"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// dumpRig has four IPv4 blackhole routes in table 100, each of size
// bytes in a dump, and an IPv6 one.
func dumpRig(t *testing.T) (r *rig, size int) {
	r = newRig(t, rtnl.After)
	for i := range 4 {
		r.ok(r.h.RouteAdd(rtnl.Route{Table: 100, Dst: pfx(fmt.Sprintf("10.%d.0.0/16", i)), Type: fib.TypeBlackhole}))
	}
	r.ok(r.h.RouteAdd(rtnl.Route{Table: 100, Dst: pfx("2001:db8::/64"), Type: fib.TypeBlackhole}))
	l, err := r.h.RouteList(rt.FamilyInet, 100)
	r.ok(err)
	require.Len(t, l, 4)
	return r, l[0].Size
}

// A dump part holds the routes that fit in its room; the one that does
// not starts the next part.
func TestRouteDumpParts(t *testing.T) {
	r, size := dumpRig(t)
	d, err := r.h.DumpRoutes(rtnl.RouteDumpRequest{Family: rt.FamilyInet, Strict: true, Table: 100})
	r.ok(err)
	var parts []int
	for {
		n := 0
		done, err := d.Next(2*size+size/2, func(*rtnl.RouteInfo) bool { n++; return true })
		r.ok(err)
		parts = append(parts, n)
		if done {
			break
		}
	}
	require.Equal(t, []int{2, 2}, parts)
}

// A route that does not fit in an empty part ends the dump: quietly for
// one family's dump, with EMSGSIZE for both families'.
func TestRouteDumpTooLongEnds(t *testing.T) {
	r, size := dumpRig(t)
	for _, c := range []struct {
		family rt.Family
		want   syscall.Errno
	}{{rt.FamilyInet, 0}, {rt.FamilyInet6, 0}, {rt.FamilyUnspec, syscall.EMSGSIZE}} {
		d, err := r.h.DumpRoutes(rtnl.RouteDumpRequest{Family: c.family})
		r.ok(err)
		n := 0
		done, err := d.Next(size-1, func(*rtnl.RouteInfo) bool { n++; return true })
		require.Equal(t, c.want, errno.Of(err), "family %d", c.family)
		require.True(t, done, "family %d", c.family)
		require.Zero(t, n)
		require.Zero(t, r.k.InitNet().FIB6().Walkers(), "the IPv6 walker is released")
	}
	// Drain goes from part to part in one request, and ends where Next
	// does: here the second part is too small for any route.
	d, err := r.h.DumpRoutes(rtnl.RouteDumpRequest{Family: rt.FamilyInet, Strict: true, Table: 100})
	r.ok(err)
	n := 0
	room := func(part int) int {
		if part == 0 {
			return 3 * size
		}
		return size - 1
	}
	r.ok(d.Drain(room, func(*rtnl.RouteInfo) { n++ }))
	require.Equal(t, 3, n)
}

// The strict check and filter of a route dump request, as
// ip_valid_fib_dump_req and fn_trie_dump_leaf apply them; a dump that is
// not strict reads no filter.
func TestRouteDumpStrictCheck(t *testing.T) {
	r, _ := dumpRig(t)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "va", Peer: "vb"}))
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "vc", Peer: "vd"}))
	for _, d := range []string{"va", "vb", "vc", "vd"} {
		r.ok(r.h.LinkSetUp(d))
	}
	r.ok(r.h.AddrAdd("va", pfx("10.10.0.1/16")))
	r.ok(r.h.AddrAdd("vc", pfx("10.11.0.1/16")))
	r.ok(r.h.RouteAdd(rtnl.Route{Table: 100, Dst: pfx("10.20.0.0/16"), Protocol: fib.ProtoStatic, Multipath: []rtnl.RoutePath{
		{Gateway: ip("10.10.0.2"), Dev: "va"}, {Gateway: ip("10.11.0.2"), Dev: "vc"}}}))
	list := func(q rtnl.RouteDumpRequest) ([]string, error) {
		d, err := r.h.DumpRoutes(q)
		r.ok(err)
		var out []string
		err = d.Drain(func(int) int { return math.MaxInt }, func(ri *rtnl.RouteInfo) { out = append(out, ri.Dst.String()) })
		return out, err
	}
	vc := r.h.LinkIndex("vc")
	for _, c := range []struct {
		q     rtnl.RouteDumpRequest
		errno syscall.Errno
		msg   string
	}{
		{rtnl.RouteDumpRequest{Short: true}, syscall.EINVAL, "Invalid header for FIB dump request"},
		{rtnl.RouteDumpRequest{Scope: fib.ScopeLink}, syscall.EINVAL, "Invalid values in header for FIB dump request"},
		{rtnl.RouteDumpRequest{Flags: rt.RTMFNotify}, syscall.EINVAL, "Invalid flags for FIB dump request"},
		{rtnl.RouteDumpRequest{Attrs: []rt.RouteAttr{rt.RTATable, rt.RTADst}}, syscall.EINVAL, "Unsupported attribute in dump request"},
		// By type: RTA_OIF (4) before RTA_PRIORITY (6).
		{rtnl.RouteDumpRequest{DevIndex: 99, Attrs: []rt.RouteAttr{rt.RTAPriority}}, syscall.ENODEV, ""},
		{rtnl.RouteDumpRequest{Attrs: []rt.RouteAttr{rt.RTAOIF}}, syscall.ENODEV, ""},
		{rtnl.RouteDumpRequest{Family: rt.FamilyInet, Table: 77}, syscall.ENOENT, "ipv4: FIB table does not exist"},
		{rtnl.RouteDumpRequest{Family: rt.FamilyInet6, Table: 77}, syscall.ENOENT, "ipv6: FIB table does not exist"},
	} {
		c.q.Strict = true
		_, err := list(c.q)
		require.Equal(t, c.errno, errno.Of(err), "%+v", c.q)
		var e *errno.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, c.msg, e.Msg)
	}
	got, err := list(rtnl.RouteDumpRequest{Strict: true, Table: 77})
	r.ok(err)
	require.Empty(t, got, "both families skip a table neither has")
	got, err = list(rtnl.RouteDumpRequest{Family: rt.FamilyInet, Strict: true, Table: 100, Protocol: fib.ProtoStatic})
	r.ok(err)
	require.Equal(t, []string{"10.20.0.0/16"}, got)
	// Every path of a multipath route is checked against the device.
	got, err = list(rtnl.RouteDumpRequest{Family: rt.FamilyInet, Strict: true, Table: 100, DevIndex: vc})
	r.ok(err)
	require.Equal(t, []string{"10.20.0.0/16"}, got)
	got, err = list(rtnl.RouteDumpRequest{Family: rt.FamilyInet, Strict: true, Table: 100, Dev: "vb"})
	r.ok(err)
	require.Empty(t, got)
	got, err = list(rtnl.RouteDumpRequest{Family: rt.FamilyInet, Strict: true, Type: fib.TypeBlackhole, Table: 100})
	r.ok(err)
	require.Len(t, got, 4)
	got, err = list(rtnl.RouteDumpRequest{Family: rt.FamilyInet, Strict: true, Flags: rt.RTMFCloned})
	r.ok(err)
	require.Empty(t, got, "no route exceptions")
	got, err = list(rtnl.RouteDumpRequest{Family: rt.FamilyInet, Table: 77, Scope: fib.ScopeLink, Flags: rt.RTMFCloned})
	r.ok(err)
	require.Len(t, got, 11, "not strict: no check, no filter, every table")
}
