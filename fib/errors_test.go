package fib

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
)

// TestBadInput checks the errno and extack message of every refused
// request, as this machine's kernel gave them (observed with strace on
// `ip route` in a private namespace, iproute2 6.1, kernel 6.18), and that a
// refused request changes nothing: routes, trie and fib_infos.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name  string
		pre   []string // run before, on a fresh veth setup
		line  string
		errno syscall.Errno
		msg   string
	}{
		{"unreachable gateway", nil, "route add 10.1.0.0/16 via 192.0.2.1", syscall.ENETUNREACH, "Nexthop has invalid gateway"},
		{"host bits", nil, "route add 10.1.0.1/16 dev vethA", syscall.EINVAL, "Invalid prefix for given prefix length"},
		{"nhid and gateway", nil, "route add 10.1.0.0/16 via 198.51.100.2 nhid 1", syscall.EINVAL, "Nexthop specification and nexthop id are mutually exclusive"},
		{"unknown nhid", nil, "route add 10.1.0.0/16 nhid 77", syscall.EINVAL, "Nexthop id does not exist"},
		{"no nexthop at all", nil, "route add 10.1.0.0/16", syscall.ENODEV, ""},
		{"exists", []string{"route add 10.2.0.0/16 dev vethA"}, "route add 10.2.0.0/16 dev vethA", syscall.EEXIST, ""},
		{"delete missing", nil, "route del 10.3.0.0/16", syscall.ESRCH, ""},
		{"delete from missing table", nil, "route del 10.2.0.0/16 table 77", syscall.ESRCH, "FIB table does not exist"},
		{"delete unknown nhid", []string{"route add 10.2.0.0/16 dev vethA"}, "route del 10.2.0.0/16 nhid 5", syscall.EINVAL, "Nexthop id does not exist"},
		{"delete other gateway", []string{"route add 10.2.0.0/16 via 198.51.100.2"}, "route del 10.2.0.0/16 via 198.51.100.3", syscall.ESRCH, ""},
		{"foreign prefsrc", nil, "route add 10.4.0.0/16 via 198.51.100.2 src 10.9.9.9", syscall.EINVAL, "Invalid prefsrc address"},
		{"onlink to a local address", nil, "route add 10.4.0.0/16 via 198.51.100.1 onlink dev vethA", syscall.EINVAL, "Nexthop has invalid gateway"},
		{"onlink with link scope", nil, "route add 10.4.1.0/24 via 198.51.100.1 onlink dev vethA scope link", syscall.EINVAL, "Nexthop has invalid scope"},
		{"local with gateway", nil, "route add local 10.5.0.0/16 via 198.51.100.2", syscall.EINVAL, "Route with host scope can not have a gateway"},
		{"unreachable with device", nil, "route add unreachable 10.6.0.0/16 dev vethA", syscall.EINVAL, "Gateway, device and multipath can not be specified for this route type"},
		{"host scope with gateway", nil, "route add 10.7.0.0/16 via 198.51.100.2 scope host", syscall.EINVAL, "Route with host scope can not have a gateway"},
		{"change missing", nil, "route change 10.8.0.0/16 via 198.51.100.2", syscall.ENOENT, ""},
		{"gateway behind a gateway", []string{"route add 10.4.0.0/16 via 198.51.100.2"}, "route add 10.9.0.0/16 via 10.4.0.5", syscall.ENETUNREACH, "Nexthop has invalid gateway"},
		{"link scope needs a host-scope gateway", nil, "route add 10.9.0.0/16 via 198.51.100.2 scope link", syscall.ENETUNREACH, "Nexthop has invalid gateway"},
		{"gateway behind an unreachable route", []string{"route add unreachable 10.20.0.0/16"}, "route add 10.21.0.0/16 via 10.20.0.1", syscall.ENETUNREACH, "Nexthop has invalid gateway"},
		{"broadcast gateway", nil, "route add 10.22.0.0/16 via 198.51.100.255", syscall.EINVAL, "Nexthop has invalid gateway"},
		{"gateway on the wrong device", nil, "route add 10.23.0.0/16 via 198.51.100.2 dev lo", syscall.ENETUNREACH, "Nexthop has invalid gateway"},
		{"device down", nil, "route add 10.23.0.0/16 dev lo", syscall.ENETDOWN, "Device for nexthop is not up"},
		{"ECN bits", nil, "route add 10.24.0.0/16 dev vethA tos 3", syscall.EINVAL, "Invalid dsfield (tos): ECN bits must be 0"},
		{"onlink device down", []string{"link set vethA down"}, "route add 10.11.0.0/16 via 198.51.100.2 dev vethA onlink", syscall.ENETDOWN, "Nexthop device is not up"},
		{"device route device down", []string{"link set vethA down"}, "route add 10.12.0.0/16 dev vethA", syscall.ENETDOWN, "Device for nexthop is not up"},
		{"gateway with device down", []string{"link set vethA down"}, "route add 10.13.0.0/16 via 198.51.100.2", syscall.ENETUNREACH, "Nexthop has invalid gateway"},
		{"host scope group", []string{"nexthop add id 1 via 198.51.100.2 dev vethA", "nexthop add id 2 via 198.51.100.3 dev vethA", "nexthop add id 3 group 1/2"},
			"route add 10.14.0.0/16 nhid 3 scope host", syscall.EINVAL, "Route with host scope can not have multiple nexthops"},
		{"host scope nexthop with gateway", []string{"nexthop add id 1 via 198.51.100.2 dev vethA"},
			"route add 10.14.0.0/16 nhid 1 scope host", syscall.EINVAL, "Route with host scope can not have a gateway"},
		{"multipath with host scope", nil, "route add 10.15.0.0/16 scope host nexthop dev vethA nexthop dev vethA", syscall.EINVAL, "Route with host scope can not have multiple nexthops"},
		{"delete with another metric", []string{"route add 10.16.0.0/16 via 198.51.100.2 metric 5"}, "route del 10.16.0.0/16 metric 6", syscall.ESRCH, ""},
		{"delete with another protocol", []string{"route add 10.16.0.0/16 via 198.51.100.2"}, "route del 10.16.0.0/16 via 198.51.100.2 proto kernel", syscall.ESRCH, ""},
		{"multipath with a bad gateway", nil, "route add 10.15.0.0/16 nexthop via 198.51.100.2 nexthop via 192.0.2.9", syscall.ENETUNREACH, "Nexthop has invalid gateway"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nexthop.FlushDeferred)
			e.mustIP(setupLines()...)
			e.mustIP(c.pre...)
			snap := func() string {
				return fmt.Sprintf("%s%s%d fib_infos", e.show(), e.f.TrieStat(), e.f.InfoCount())
			}
			before := snap()
			err := e.ip(c.line)
			if !errors.Is(err, c.errno) {
				t.Fatalf("%s: error %v, want %v", c.line, err, c.errno)
			}
			var ee *errno.Error
			if !errors.As(err, &ee) || ee.Msg != c.msg {
				t.Errorf("%s: message %q, want %q", c.line, ee.Msg, c.msg)
			}
			if after := snap(); after != before {
				t.Errorf("%s changed the FIB:\nbefore\n%s\nafter\n%s", c.line, before, after)
			}
			if err := e.f.check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestBadRouteValues covers requests iproute2 cannot send: a missing or
// IPv6 destination, an unknown type.
func TestBadRouteValues(t *testing.T) {
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	for _, c := range []struct {
		r     Route
		errno syscall.Errno
	}{
		{Route{}, syscall.EAFNOSUPPORT},
		{Route{Dst: netip.MustParsePrefix("2001:db8::/32"), Dev: e.dev("vethA")}, syscall.EAFNOSUPPORT},
		{Route{Dst: netip.MustParsePrefix("10.0.0.0/8"), Type: 42}, syscall.EINVAL},
		{Route{Dst: netip.MustParsePrefix("10.0.0.0/8"), Type: TypeUnicast, Scope: ScopeNowhere, Dev: e.dev("vethA")}, syscall.EINVAL},
		{Route{Dst: netip.MustParsePrefix("10.0.0.0/8"), Type: TypeLocal, Dev: e.dev("vethA")}, syscall.EINVAL}, // scope universe < host
	} {
		err := e.do(func() error { return e.f.Add(e.t, c.r, rt.ModeAdd) })
		if !errors.Is(err, c.errno) {
			t.Errorf("%+v: %v, want %v", c.r, err, c.errno)
		}
	}
	if n := e.f.Len(); n != 3 {
		t.Errorf("%d routes, want the 3 of the address", n)
	}
}

// TestCheckGateway checks the FIB's fib_check_nh as the nexthop package's
// gateway checker, with the errors this machine's kernel gave for
// `ip nexthop add`.
func TestCheckGateway(t *testing.T) {
	for _, c := range []struct {
		line  string
		errno syscall.Errno
		msg   string
	}{
		{"nexthop add id 5 via 192.0.2.1 dev vethA", syscall.ENETUNREACH, "Nexthop has invalid gateway"},
		{"nexthop add id 6 via 198.51.100.255 dev vethA", syscall.EINVAL, "Nexthop has invalid gateway"},
		{"nexthop add id 7 via 198.51.100.1 dev vethA onlink", syscall.EINVAL, "Nexthop has invalid gateway"},
		{"nexthop add id 8 via 198.51.100.2 dev vethA", 0, ""},
		{"nexthop add id 9 via 203.0.113.9 dev vethA onlink", 0, ""},
	} {
		e := newEnv(t, nexthop.FlushDeferred)
		e.mustIP(setupLines()...)
		err := e.ip(c.line)
		if c.errno == 0 {
			if err != nil {
				t.Errorf("%s: %v", c.line, err)
			}
			continue
		}
		var ee *errno.Error
		if !errors.Is(err, c.errno) || !errors.As(err, &ee) || ee.Msg != c.msg {
			t.Errorf("%s: %v, want %v %q", c.line, err, c.errno, c.msg)
		}
	}
}
