package rtnl_test

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
)

// An IPv6 multipath add rewrites the request header's flags once a path is
// in (NLM_F_EXCL and NLM_F_REPLACE off, NLM_F_CREATE on), as
// ip6_route_multipath_add does to the request the ack then echoes; other
// requests, and one whose first path fails, leave them as sent.
func TestRouteNewHeaderFlags(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}))
	r.ok(r.h.LinkSetUp("v0"))
	r.ok(r.h.LinkSetUp("v1"))
	r.ok(r.h.AddrAdd("v0", pfx("10.0.0.1/24")))
	r.ok(r.h.AddrAddWith("v0", netdev.Addr{Prefix: pfx("2001:db8::1/64"), Flags: netdev.AddrNoDAD}))
	r.settle()
	mp6 := rtnl.Route{Dst: pfx("2001:db8:1::/64"), Multipath: []rtnl.NextHop{
		{Gateway: ip("2001:db8::2"), Dev: "v0"}, {Gateway: ip("2001:db8::3"), Dev: "v0"}}}
	excl := fib.NLMCreate | fib.NLMExcl

	got, err := r.h.RouteNewHeader(mp6, excl)
	require.NoError(t, err)
	require.Equal(t, fib.NLMCreate, got)

	got, err = r.h.RouteNewHeader(mp6, excl)
	require.Equal(t, syscall.EEXIST, errno.Of(err))
	require.Equal(t, excl, got, "the first path failed: the header is as sent")

	got, err = r.h.RouteNewHeader(rtnl.Route{Dst: pfx("2001:db8:2::/64"), Gateway: ip("2001:db8::2")}, excl)
	require.NoError(t, err)
	require.Equal(t, excl, got)

	got, err = r.h.RouteNewHeader(rtnl.Route{Dst: pfx("192.0.2.0/24"), Multipath: []rtnl.NextHop{
		{Gateway: ip("10.0.0.2")}, {Gateway: ip("10.0.0.3")}}}, excl)
	require.NoError(t, err)
	require.Equal(t, excl, got, "IPv4 leaves the header alone")
}
