package nexthop_test

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
)

func fdb(id nexthop.ID, gw string) nexthop.Config {
	return nexthop.Config{ID: id, Gateway: netip.MustParseAddr(gw), FDB: true}
}

func fdbGroup(id nexthop.ID, members ...nexthop.ID) nexthop.Config {
	c := group(id, members...)
	c.FDB = true
	return c
}

// TestFDB: fdb nexthops have a gateway and no device, stay out of the
// device hash (a device going down leaves them), and only fdb groups of
// one family hold them; routes may not use them.
func TestFDB(t *testing.T) {
	e := newEnv(t)
	tbl := e.newTable(t, nexthop.FlushDeferred,
		fdb(1, "192.0.2.1"),
		fdb(2, "2001:db8::2"),
		fdb(3, "192.0.2.3"),
		e.single(4, "192.0.2.4", "d0"),
		nexthop.Config{ID: 5, Family: syscall.AF_INET6, FDB: true},
		fdbGroup(10, 1, 3),
	)
	require.Equal(t, view{ID: 1, Gateway: gw4("192.0.2.1"), Scope: scopeLink, FDB: true}, viewOf(tbl.Get(1)))
	require.True(t, tbl.Get(1).FDB())
	require.Nil(t, tbl.Get(1).Dev())
	// fib6_nh_init keeps an IPv6 fdb nexthop's gateway, :: included.
	require.Equal(t, netip.IPv6Unspecified(), tbl.Get(5).Gateway())
	require.True(t, tbl.Get(10).FDB())
	require.NoError(t, tbl.CheckInvariants())

	cases := []struct {
		name string
		cfg  nexthop.Config
		msg  string
	}{
		{"mixed families", fdbGroup(20, 1, 2), "FDB nexthop group cannot have mixed family nexthops"},
		{"a plain member", fdbGroup(20, 1, 4), "FDB nexthop group can only have fdb nexthops"},
		{"an fdb member of a plain group", group(20, 4, 1), "Non FDB nexthop group cannot have fdb nexthops"},
	}
	for _, c := range cases {
		_, err := tbl.Add(e.t, c.cfg)
		requireErr(t, err, syscall.EINVAL, c.msg)
	}
	requireErr(t, tbl.Get(1).CheckScope(0), syscall.EINVAL, "Route cannot point to a fdb nexthop")
	requireErr(t, tbl.Get(10).CheckScope(0), syscall.EINVAL, "Route cannot point to a fdb nexthop")

	// A member of a group keeps its fdb status; another nexthop changes
	// it, and its family, freely.
	_, err := tbl.Replace(e.t, e.single(1, "192.0.2.1", "d0"), nil)
	requireErr(t, err, syscall.EINVAL, "Cannot change nexthop FDB status while in a group")
	_, err = tbl.Replace(e.t, fdb(4, "2001:db8::4"), nil)
	require.NoError(t, err)
	require.Nil(t, tbl.Get(4).Dev())
	_, err = tbl.Replace(e.t, e.single(2, "192.0.2.2", "d0"), nil)
	require.NoError(t, err)
	require.NoError(t, tbl.CheckInvariants())

	e.setUp(t, "d0", false)
	tbl.FlushDev(e.t, e.d["d0"], netdev.EventDown, nil)
	require.Nil(t, tbl.Get(2))
	require.Equal(t, []nexthop.ID{1, 3, 4, 5, 10}, ids(tbl))
	require.NoError(t, tbl.CheckInvariants())
}

func ids(tbl *nexthop.Table) []nexthop.ID {
	var out []nexthop.ID
	for _, nh := range tbl.List() {
		out = append(out, nh.ID())
	}
	return out
}
