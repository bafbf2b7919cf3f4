package iproute

import (
	"bufio"
	"bytes"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

// printRoutes prints msgs as one dump (or answer) with opts, through the
// printer a command uses, and returns the output.
func printRoutes(t *testing.T, opts options, f *routeFilter, msgs ...routeMsg) string {
	t.Helper()
	var buf bytes.Buffer
	ip := &IP{process: process{opts: opts}}
	ip.out = bufio.NewWriter(&buf)
	ip.p = printer{w: ip.out, sl: "\n"}
	if opts.oneline > 0 {
		ip.p.sl = "\\"
	}
	ip.p.startJSON(opts.json, opts.pretty, true)
	for _, m := range msgs {
		ip.printRoute(nil, m, f)
	}
	ip.p.endJSON(true)
	require.NoError(t, ip.out.Flush())
	return buf.String()
}

// v6 is an IPv6 route as inet6_dump_fib gives it: table main, protocol
// boot, metric 1024, preference medium, unless set.
func v6(dst string, set func(r *rtnl.RouteInfo)) rtnl.RouteInfo {
	r := rtnl.RouteInfo{Family: syscall.AF_INET6, Table: fib.TableMain, Dst: netip.MustParsePrefix(dst),
		Type: fib.TypeUnicast, Protocol: fib.ProtoBoot, Priority: 1024}
	if set != nil {
		set(&r)
	}
	return r
}

func gw(s string) netip.Addr { return netip.MustParseAddr(s) }

// dumped6 are the routes of a dump the real kernel (Linux 6.18, iproute2
// 6.1) printed, with `ip -6 route show table all` below; the same routes
// built as rtnl.RouteInfo values.
var dumped6 = []rtnl.RouteInfo{
	v6("2001:db8::/64", func(r *rtnl.RouteInfo) { r.Dev, r.Protocol, r.Priority = "va", fib.ProtoKernel, 256 }),
	v6("2001:db8:1::/48", func(r *rtnl.RouteInfo) { r.Gateway, r.Dev = gw("2001:db8::2"), "va" }),
	v6("2001:db8:2::/48", func(r *rtnl.RouteInfo) {
		r.Gateway, r.Dev, r.Priority, r.Pref, r.Expires = gw("fe80::2"), "va", 10, rt.PrefHigh, 99*time.Second+990*time.Millisecond
	}),
	v6("2001:db8:3::/48", func(r *rtnl.RouteInfo) {
		r.Multipath = []rtnl.RoutePath{{Gateway: gw("fe80::2"), Dev: "va", Weight: 2}, {Gateway: gw("fe80::3"), Dev: "vb", Weight: 1}}
	}),
	v6("2001:db8:4::/48", func(r *rtnl.RouteInfo) { r.Type, r.Dev = fib.TypeUnreachable, "lo" }),
	v6("2001:db8:5::/48", func(r *rtnl.RouteInfo) {
		r.Src, r.Gateway, r.Dev = netip.MustParsePrefix("2001:db8::/64"), gw("2001:db8::2"), "va"
	}),
	v6("2001:db8:6::/48", func(r *rtnl.RouteInfo) { r.Type, r.Dev = fib.TypeBlackhole, "lo" }),
	v6("fe80::/64", func(r *rtnl.RouteInfo) { r.Dev, r.Protocol, r.Priority = "va", fib.ProtoKernel, 256 }),
	v6("ff05::/16", func(r *rtnl.RouteInfo) { r.Type, r.Dev = fib.TypeMulticast, "va" }),
	v6("::1/128", func(r *rtnl.RouteInfo) {
		r.Type, r.Dev, r.Table, r.Protocol, r.Priority = fib.TypeLocal, "lo", fib.TableLocal, fib.ProtoKernel, 0
	}),
	v6("ff00::/8", func(r *rtnl.RouteInfo) {
		r.Type, r.Dev, r.Table, r.Protocol, r.Priority = fib.TypeMulticast, "va", fib.TableLocal, fib.ProtoKernel, 256
	}),
}

func dumpMsgs(rs []rtnl.RouteInfo) []routeMsg {
	var out []routeMsg
	for _, r := range rs {
		out = append(out, dumpedRoute(r))
	}
	return out
}

// TestPrintRoute6: rt6_fill_node's routes print as ip 6.1 prints them on
// Linux 6.18 (the want texts are the real kernel's): metric always, pref
// last with no space after it, expires in whole seconds left, "from" for
// a source prefix, reject routes on lo, multipath paths with "via" alone.
func TestPrintRoute6(t *testing.T) {
	all := &routeFilter{table: 0}
	main := &routeFilter{table: fib.TableMain}

	// ip -6 route show table all
	require.Equal(t, `2001:db8::/64 dev va proto kernel metric 256 pref medium
2001:db8:1::/48 via 2001:db8::2 dev va metric 1024 pref medium
2001:db8:2::/48 via fe80::2 dev va metric 10 expires 99sec pref high
2001:db8:3::/48 metric 1024 pref medium
	nexthop via fe80::2 dev va weight 2 
	nexthop via fe80::3 dev vb weight 1 
unreachable 2001:db8:4::/48 dev lo metric 1024 pref medium
2001:db8:5::/48 from 2001:db8::/64 via 2001:db8::2 dev va metric 1024 pref medium
blackhole 2001:db8:6::/48 dev lo metric 1024 pref medium
fe80::/64 dev va proto kernel metric 256 pref medium
multicast ff05::/16 dev va metric 1024 pref medium
local ::1 dev lo table local proto kernel metric 0 pref medium
multicast ff00::/8 dev va table local proto kernel metric 256 pref medium
`, printRoutes(t, options{}, all, dumpMsgs(dumped6)...))

	// ip -6 -d route show (table main's routes)
	require.Equal(t, `unicast 2001:db8::/64 dev va proto kernel scope global metric 256 pref medium
unicast 2001:db8:2::/48 via fe80::2 dev va proto boot scope global metric 10 expires 99sec pref high
unicast 2001:db8:3::/48 proto boot scope global metric 1024 pref medium
	nexthop via fe80::2 dev va weight 2 
	nexthop via fe80::3 dev vb weight 1 
unreachable 2001:db8:4::/48 dev lo proto boot scope global metric 1024 pref medium
unicast 2001:db8:5::/48 from 2001:db8::/64 via 2001:db8::2 dev va proto boot scope global metric 1024 pref medium
`, printRoutes(t, options{details: 1}, main, dumpMsgs([]rtnl.RouteInfo{dumped6[0], dumped6[2], dumped6[3], dumped6[4], dumped6[5]})...))

	// ip -6 -j route show
	require.Equal(t, `[{"dst":"2001:db8::/64","dev":"va","protocol":"kernel","metric":256,"flags":[],"pref":"medium"},`+
		`{"dst":"2001:db8:1::/48","gateway":"2001:db8::2","dev":"va","metric":1024,"flags":[],"pref":"medium"},`+
		`{"dst":"2001:db8:2::/48","gateway":"fe80::2","dev":"va","metric":10,"flags":[],"expires":99,"pref":"high"},`+
		`{"dst":"2001:db8:3::/48","metric":1024,"flags":[],"pref":"medium","nexthops":[{"gateway":"fe80::2","dev":"va","weight":2,"flags":[]},{"gateway":"fe80::3","dev":"vb","weight":1,"flags":[]}]},`+
		`{"type":"unreachable","dst":"2001:db8:4::/48","dev":"lo","metric":1024,"flags":[],"pref":"medium"},`+
		`{"dst":"2001:db8:5::/48","from":"2001:db8::/64","gateway":"2001:db8::2","dev":"va","metric":1024,"flags":[],"pref":"medium"}]`+"\n",
		printRoutes(t, options{json: true}, main, dumpMsgs(dumped6[:6])...))

	// Less than a second left is "expires 0sec"; nothing left, none.
	require.Equal(t, "2001:db8:2::/48 via fe80::2 dev va metric 10 expires 0sec pref high\n2001:db8:2::/48 via fe80::2 dev va metric 10 pref high\n",
		printRoutes(t, options{}, main,
			dumpedRoute(v6("2001:db8:2::/48", func(r *rtnl.RouteInfo) {
				r.Gateway, r.Dev, r.Priority, r.Pref, r.Expires = gw("fe80::2"), "va", 10, rt.PrefHigh, 10*time.Millisecond
			})),
			dumpedRoute(v6("2001:db8:2::/48", func(r *rtnl.RouteInfo) {
				r.Gateway, r.Dev, r.Priority, r.Pref, r.Expires = gw("fe80::2"), "va", 10, rt.PrefHigh, 9*time.Millisecond
			}))))

	// ip route show table all default: a default route of each family.
	require.Equal(t, "default dev va scope link \ndefault dev va metric 1024 pref medium\n",
		printRoutes(t, options{}, all,
			dumpedRoute(rtnl.RouteInfo{Family: syscall.AF_INET, Table: fib.TableMain, Dst: netip.MustParsePrefix("0.0.0.0/0"),
				Type: fib.TypeUnicast, Protocol: fib.ProtoBoot, Scope: fib.ScopeLink, Dev: "va"}),
			dumpedRoute(v6("::/0", func(r *rtnl.RouteInfo) { r.Dev = "va" }))))
}

// TestPrintRouteGet6: inet6_rtm_getroute's answers (rt6_fill_node with the
// lookup's dst) print as the real kernel's: the query's source always
// ("from ::"), the selected source as src, no uid, mark or cache line.
func TestPrintRouteGet6(t *testing.T) {
	q := rtnl.RouteGetRequest{Dst: gw("2001:db8:1::1")}
	// rtnl answers with the flow's source as From: :: without one.
	rr := rtnl.RouteResult{Type: fib.TypeUnicast, Gateway: gw("2001:db8::2"), Dev: "va", Src: gw("2001:db8::1"),
		Table: fib.TableMain, Protocol: fib.ProtoBoot, Priority: 1024, From: gw("::")}
	require.Equal(t, "2001:db8:1::1 from :: via 2001:db8::2 dev va src 2001:db8::1 metric 1024 pref medium\n",
		printRoutes(t, options{}, nil, routeAnswer6(q, rr)))
	require.Equal(t, "unicast 2001:db8:1::1 from :: via 2001:db8::2 dev va table main proto boot scope global src 2001:db8::1 metric 1024 pref medium\n",
		printRoutes(t, options{details: 1}, nil, routeAnswer6(q, rr)))

	// -j, a route of table 100 found through a rule on the mark.
	rr100 := rr
	rr100.Gateway, rr100.Dev, rr100.Table, rr100.Src = gw("2001:db8:f::2"), "vb", 100, gw("::1")
	qm := q
	qm.Mark = 7
	require.Equal(t, `[{"dst":"2001:db8:1::1","from":"::","gateway":"2001:db8:f::2","dev":"vb","table":"100","prefsrc":"::1","metric":1024,"flags":[],"pref":"medium"}]`+"\n",
		printRoutes(t, options{json: true}, nil, routeAnswer6(qm, rr100)))

	// An input route: the query's source, the metrics, iif, no src.
	qi := rtnl.RouteGetRequest{Dst: gw("2001:db8:1::1"), Src: gw("2001:db8:f::5"), IIF: "vb"}
	rri := rr
	rri.IIF, rri.Src, rri.From = "vb", netip.Addr{}, gw("2001:db8:f::5")
	rri.Metrics.Values[rt.MetricMTU] = 1400
	require.Equal(t, "2001:db8:1::1 from 2001:db8:f::5 via 2001:db8::2 dev va metric 1024 mtu 1400 iif vb pref medium\n",
		printRoutes(t, options{}, nil, routeAnswer6(qi, rri)))

	// A local destination: type local, dev lo, table local, proto kernel.
	ql := rtnl.RouteGetRequest{Dst: gw("::1")}
	rrl := rtnl.RouteResult{Type: fib.TypeLocal, Dev: "lo", Src: gw("::1"), Table: fib.TableLocal, Protocol: fib.ProtoKernel, From: gw("::")}
	require.Equal(t, "local ::1 from :: dev lo table local proto kernel src ::1 metric 0 pref medium\n",
		printRoutes(t, options{}, nil, routeAnswer6(ql, rrl)))

	// A link-local destination with no source to select.
	qf := rtnl.RouteGetRequest{Dst: gw("fe80::5"), OIF: "vb"}
	rrf := rtnl.RouteResult{Type: fib.TypeUnicast, Dev: "vb", Table: fib.TableMain, Protocol: fib.ProtoKernel, Priority: 256, From: gw("::")}
	require.Equal(t, "fe80::5 from :: dev vb proto kernel metric 256 pref medium\n",
		printRoutes(t, options{}, nil, routeAnswer6(qf, rrf)))
}

// TestRouteFilter6: filter_nlmsg's IPv6 cases.
func TestRouteFilter6(t *testing.T) {
	parse := func(family rt.Family, words ...string) *routeFilter {
		t.Helper()
		multi := false
		q := &routeFilterReq{f: &routeFilter{table: fib.TableMain, family: family, multi: &multi}, family: family}
		require.NoError(t, walk(&args{w: words}, routeFilterKeywords, q, routeFilterDst))
		return q.f
	}
	v4def := rtnl.RouteInfo{Family: syscall.AF_INET, Table: fib.TableMain, Dst: netip.MustParsePrefix("0.0.0.0/0"), Dev: "va"}
	v6def := v6("::/0", func(r *rtnl.RouteInfo) { r.Dev = "va" })
	sub := dumped6[5] // 2001:db8:5::/48 from 2001:db8::/64

	// "default" read with no family matches the default route of either.
	f := parse(0, "table", "all", "default")
	require.True(t, f.keep(v4def))
	require.True(t, f.keep(v6def))
	require.False(t, f.keep(dumped6[0]))
	// With -6, only IPv6's.
	f = parse(syscall.AF_INET6, "table", "all", "default")
	require.False(t, f.keep(v4def))
	require.True(t, f.keep(v6def))

	// from: rsrc and msrc against the route's source prefix.
	require.True(t, parse(syscall.AF_INET6, "from", "2001:db8::/64").keep(sub))
	require.False(t, parse(syscall.AF_INET6, "from", "2001:db8::/64").keep(dumped6[1]))
	require.True(t, parse(syscall.AF_INET6, "from", "root", "2001:db8::/32").keep(sub))
	require.False(t, parse(syscall.AF_INET6, "from", "root", "2001:db8::/96").keep(sub))
	require.True(t, parse(syscall.AF_INET6, "from", "match", "2001:db8::/96").keep(sub))
	// An IPv6 source filter leaves out every IPv4 route.
	require.False(t, parse(0, "table", "all", "from", "2001:db8::/32").keep(v4def))
	// from default (no family): the routes of either family with no
	// source prefix (exact: a match no longer than the route's).
	require.True(t, parse(0, "table", "all", "from", "default").keep(v4def))
	require.True(t, parse(0, "table", "all", "from", "default").keep(v6def))
	require.False(t, parse(0, "table", "all", "from", "default").keep(sub))

	// root, match, exact on the destination.
	require.True(t, parse(syscall.AF_INET6, "root", "2001:db8::/32").keep(dumped6[1]))
	require.False(t, parse(syscall.AF_INET6, "root", "2001:db8:1::/64").keep(dumped6[1]))
	require.True(t, parse(syscall.AF_INET6, "match", "2001:db8:1::1").keep(dumped6[1]))
	require.True(t, parse(syscall.AF_INET6, "exact", "2001:db8:1::/48").keep(dumped6[1]))
	require.False(t, parse(syscall.AF_INET6, "exact", "2001:db8:1::/47").keep(dumped6[1]))

	// via, on a path's gateway of a single-path route.
	require.True(t, parse(syscall.AF_INET6, "via", "2001:db8::2").keep(dumped6[1]))
	require.False(t, parse(syscall.AF_INET6, "via", "2001:db8::3").keep(dumped6[1]))
	require.True(t, parse(syscall.AF_INET6, "via", "2001:db8::/64").keep(dumped6[1]))

	// Until a route of another table was dumped, ip tells IPv6 routes of
	// table main and local apart by type.
	lmain := v6("2001:db8:9::1/128", func(r *rtnl.RouteInfo) { r.Type, r.Dev = fib.TypeLocal, "va" })
	f = parse(syscall.AF_INET6)
	require.False(t, f.keep(lmain))
	// A route of table local sets the static before the test: it is
	// kept whatever its type.
	require.True(t, parse(syscall.AF_INET6, "table", "local").keep(dumped6[10]))
	// Once one was, by table.
	*f.multi = true
	require.True(t, f.keep(lmain))
	f = parse(syscall.AF_INET6, "table", "all")
	require.True(t, f.keep(dumped6[10]))
	require.True(t, *f.multi)
}
