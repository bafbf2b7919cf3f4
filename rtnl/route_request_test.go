package rtnl_test

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// An IPv6 multipath add rewrites the request header's flags once a path is
// in (NLM_F_EXCL and NLM_F_REPLACE off, NLM_F_CREATE on), as
// ip6_route_multipath_add does to the request the ack then echoes; other
// requests, and one whose first path fails, leave them as sent.
func TestNewRouteAckFlags(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}))
	r.ok(r.h.LinkSetUp("v0"))
	r.ok(r.h.LinkSetUp("v1"))
	r.ok(r.h.AddrAdd("v0", pfx("10.0.0.1/24")))
	r.ok(r.h.AddrAddWith("v0", netdev.Addr{Prefix: pfx("2001:db8::1/64"), Flags: netdev.AddrNoDAD}))
	r.settle()
	mp6 := rtnl.Route{Dst: pfx("2001:db8:1::/64"), Multipath: []rtnl.RoutePath{
		{Gateway: ip("2001:db8::2"), Dev: "v0"}, {Gateway: ip("2001:db8::3"), Dev: "v0"}}}
	excl := rt.NLMCreate | rt.NLMExcl

	got, err := newRouteFlags(r.h, mp6, excl)
	require.NoError(t, err)
	require.Equal(t, rt.NLMCreate, got)

	got, err = newRouteFlags(r.h, mp6, excl)
	require.Equal(t, syscall.EEXIST, errno.Of(err))
	require.Equal(t, excl, got, "the first path failed: the header is as sent")

	got, err = newRouteFlags(r.h, rtnl.Route{Dst: pfx("2001:db8:2::/64"), Gateway: ip("2001:db8::2")}, excl)
	require.NoError(t, err)
	require.Equal(t, excl, got)

	got, err = newRouteFlags(r.h, rtnl.Route{Dst: pfx("192.0.2.0/24"), Multipath: []rtnl.RoutePath{
		{Gateway: ip("10.0.0.2")}, {Gateway: ip("10.0.0.3")}}}, excl)
	require.NoError(t, err)
	require.Equal(t, excl, got, "IPv4 leaves the header alone")
}

// DelRoute matches rtm_scope as sent: RT_SCOPE_NOWHERE is the wildcard
// and 0 matches only universe routes (IPv4); the RouteDel convenience's
// zero Scope matches any, as `ip route del` sends RT_SCOPE_NOWHERE. IPv6 deletes ignore the scope. Linux 6.18 answers
// so (testdata of nlwire's route_delscope sequence).
func TestDelRouteScope(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}))
	r.ok(r.h.LinkSetUp("v0"))
	r.ok(r.h.AddrAdd("v0", pfx("10.0.0.1/24")))
	r.ok(r.h.AddrAddWith("v0", netdev.Addr{Prefix: pfx("2001:db8::1/64"), Flags: netdev.AddrNoDAD}))
	r.settle()
	link := rtnl.Route{Dst: pfx("192.0.2.0/24"), Dev: "v0", Scope: fib.ScopeLink}
	r.ok(r.h.RouteAdd(link))
	del := rtnl.Route{Dst: pfx("192.0.2.0/24")}
	require.Equal(t, syscall.ESRCH, errno.Of(r.h.DelRoute(rtnl.RouteRequest{Route: del})), "0 is universe")
	del.Scope = fib.ScopeHost
	require.Equal(t, syscall.ESRCH, errno.Of(r.h.DelRoute(rtnl.RouteRequest{Route: del})))
	del.Scope = fib.ScopeNowhere
	r.ok(r.h.DelRoute(rtnl.RouteRequest{Route: del}))
	r.ok(r.h.RouteAdd(link))
	// RouteDel's zero Scope matches any.
	r.ok(r.h.RouteDel(rtnl.Route{Dst: pfx("192.0.2.0/24")}))

	r.ok(r.h.RouteAdd(rtnl.Route{Dst: pfx("2001:db8:1::/64"), Dev: "v0"}))
	r.ok(r.h.DelRoute(rtnl.RouteRequest{Route: rtnl.Route{Dst: pfx("2001:db8:1::/64"), Scope: fib.ScopeHost}}))
}

// newRouteFlags makes an RTM_NEWROUTE with flags and returns the flags
// its ack echoes.
func newRouteFlags(h *rtnl.Handle, r rtnl.Route, flags rt.NLMFlags) (rt.NLMFlags, error) {
	ack, err := h.NewRoute(rtnl.RouteRequest{Flags: flags, Route: r})
	return ack.Flags, err
}

// GetAddr without a device, or with one that does not exist, answers the
// device that got the address last, as Linux 6.18 does (nlwire's addr6_get
// sequence); with a device, that device's.
func TestGetAddrNewest(t *testing.T) {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}))
	a := ip("2001:db8::5")
	r.ok(r.h.AddrAddWith("v1", netdev.Addr{Prefix: pfx("2001:db8::5/64"), Flags: netdev.AddrNoDAD}))
	r.ok(r.h.AddrAddWith("v0", netdev.Addr{Prefix: pfx("2001:db8::5/128"), Flags: netdev.AddrNoDAD}))
	for _, req := range []rtnl.AddrGetRequest{{Addr: a}, {LinkIndex: 99, Addr: a}, {Link: "nosuch", Addr: a}} {
		got, err := r.h.GetAddr(req)
		require.NoError(t, err)
		require.Equal(t, "v0", got.Link, "request %+v", req)
		require.Equal(t, 128, got.Prefix.Bits())
	}
	got, err := r.h.GetAddr(rtnl.AddrGetRequest{Link: "v1", Addr: a})
	require.NoError(t, err)
	require.Equal(t, "v1", got.Link)
	r.ok(r.h.AddrDel("v1", pfx("2001:db8::5/64")))
	r.ok(r.h.AddrAddWith("v1", netdev.Addr{Prefix: pfx("2001:db8::5/64"), Flags: netdev.AddrNoDAD}))
	got, err = r.h.GetAddr(rtnl.AddrGetRequest{Link: "", Addr: a})
	require.NoError(t, err)
	require.Equal(t, "v1", got.Link, "re-added: newest again")
	_, err = r.h.GetAddr(rtnl.AddrGetRequest{Link: "", Addr: ip("2001:db8::6")})
	require.Equal(t, syscall.EADDRNOTAVAIL, errno.Of(err))
	_, err = r.h.GetAddr(rtnl.AddrGetRequest{Link: "v1", Addr: ip("2001:db8::6")})
	require.Equal(t, syscall.EADDRNOTAVAIL, errno.Of(err))
}
