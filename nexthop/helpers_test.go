package nexthop_test

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// env is a namespace with devices to put nexthops on:
//
//	lo     loopback, down
//	d0-d2  dummies, up with carrier
//	down0  a dummy that is down
//	va/vb  a veth pair; va up, vb down, so va has no carrier
type env struct {
	w    *sim.World
	rtnl *sim.Mutex
	t    *sim.Task
	devs *netdev.Table
	d    map[string]*netdev.Device
}

func newEnv(tb testing.TB) *env {
	tb.Helper()
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	s, err := netdev.NewStack(w, rtnl, netdev.Config{})
	require.NoError(tb, err)
	e := &env{w: w, rtnl: rtnl, t: w.NewTask("ip"), d: map[string]*netdev.Device{}}
	e.rtnl.Lock(e.t)
	defer e.rtnl.Unlock(e.t)
	e.devs, err = s.NewTable(e.t, "")
	require.NoError(tb, err)
	e.d["lo"] = e.devs.ByName("lo")
	require.NotNil(tb, e.d["lo"])
	for _, n := range []string{"d0", "d1", "d2"} {
		e.newDummyLocked(tb, n, 0, true)
	}
	e.newDummyLocked(tb, "down0", 0, false)
	v, err := e.devs.NewLink(e.t, netdev.Veth{Name: "va", Peer: "vb"})
	require.NoError(tb, err)
	require.NoError(tb, v[0].SetUp(e.t, true))
	e.d["va"], e.d["vb"] = v[0], v[1]
	require.False(tb, v[0].Carrier())
	return e
}

func (e *env) newDummyLocked(tb testing.TB, name string, index netdev.IfIndex, up bool) *netdev.Device {
	tb.Helper()
	devs, err := e.devs.NewLink(e.t, netdev.Dummy{Name: name, Attrs: netdev.Attrs{Index: index}})
	require.NoError(tb, err)
	if up {
		require.NoError(tb, devs[0].SetUp(e.t, true))
	}
	e.d[name] = devs[0]
	return devs[0]
}

// newDummy adds an up dummy device with the given ifindex (0: any).
func (e *env) newDummy(tb testing.TB, name string, index netdev.IfIndex) *netdev.Device {
	e.rtnl.Lock(e.t)
	defer e.rtnl.Unlock(e.t)
	return e.newDummyLocked(tb, name, index, true)
}

// setUp changes a device's administrative state.
func (e *env) setUp(tb testing.TB, name string, up bool) {
	tb.Helper()
	e.rtnl.Lock(e.t)
	defer e.rtnl.Unlock(e.t)
	require.NoError(tb, e.d[name].SetUp(e.t, up))
}

func (e *env) counter(k sim.Kind) int64 { return e.t.Counters().Get(k) }

// gw4 and gw6 build gateways.
func gw4(s string) netip.Addr { return netip.MustParseAddr(s) }

// single is the config of a single nexthop via gw (may be "") on dev.
func (e *env) single(id nexthop.ID, gw, dev string) nexthop.Config {
	c := nexthop.Config{ID: id, Dev: e.d[dev]}
	if gw != "" {
		c.Gateway = netip.MustParseAddr(gw)
	} else {
		c.Family = syscall.AF_INET
	}
	return c
}

func group(id nexthop.ID, members ...nexthop.ID) nexthop.Config {
	c := nexthop.Config{ID: id, Group: []nexthop.GroupMember{}}
	for _, m := range members {
		c.Group = append(c.Group, nexthop.GroupMember{ID: m})
	}
	return c
}

func blackhole(id nexthop.ID) nexthop.Config { return nexthop.Config{ID: id, Blackhole: true} }

// newTable returns a table with policy p holding cfgs, added in order.
func (e *env) newTable(tb testing.TB, p nexthop.Policy, cfgs ...nexthop.Config) *nexthop.Table {
	tb.Helper()
	tbl := nexthop.NewTable(p)
	mustAdd(tb, tbl, e.t, cfgs...)
	return tbl
}

func mustAdd(tb testing.TB, tbl *nexthop.Table, t *sim.Task, cfgs ...nexthop.Config) {
	tb.Helper()
	for _, c := range cfgs {
		_, err := tbl.Add(t, c)
		require.NoError(tb, err, "add id %d", c.ID)
	}
}

// view is what a dump reports of a nexthop (nh_fill_node), as a value
// to compare.
type view struct {
	ID        nexthop.ID
	Gateway   netip.Addr
	Dev       string // "" for groups and blackholes
	Scope     uint8
	OnLink    bool
	Blackhole bool
	FDB       bool
	Protocol  uint8
	Group     []nexthop.GroupMember
	Res       nexthop.ResilientInfo
}

// Scopes of single nexthops.
const (
	scopeLink uint8 = 253 // RT_SCOPE_LINK: with a gateway, or IPv6
	scopeHost uint8 = 254 // RT_SCOPE_HOST: IPv4 without a gateway
)

func viewOf(nh *nexthop.Nexthop) view {
	v := view{ID: nh.ID(), Gateway: nh.Gateway(), Scope: nh.Scope(), OnLink: nh.OnLink(),
		Blackhole: nh.Blackhole(), FDB: nh.FDB(), Protocol: nh.Protocol(), Group: nh.Members()}
	if d := nh.Dev(); d != nil {
		v.Dev = d.Name()
	}
	if v.Blackhole {
		v.Scope = 0 // a dump reports no scope for a blackhole
	}
	v.Res, _ = nh.Resilient()
	return v
}

// via, onDev, bh and grp are the views of a nexthop via a gateway on a
// device, on a device only, of a blackhole and of a group; m and mw are
// group members of weight 1 and w.
func via(id nexthop.ID, gw, dev string) view {
	return view{ID: id, Gateway: netip.MustParseAddr(gw), Dev: dev, Scope: scopeLink}
}

func onDev(id nexthop.ID, dev string, scope uint8) view {
	return view{ID: id, Dev: dev, Scope: scope}
}

func bh(id nexthop.ID) view { return view{ID: id, Blackhole: true} }

func grp(id nexthop.ID, members ...nexthop.GroupMember) view {
	return view{ID: id, Group: members}
}

func m(id nexthop.ID) nexthop.GroupMember            { return nexthop.GroupMember{ID: id, Weight: 1} }
func mw(id nexthop.ID, w uint16) nexthop.GroupMember { return nexthop.GroupMember{ID: id, Weight: w} }

// proto, onlink and res return the view with a protocol, RTNH_F_ONLINK,
// or a resilient group's buckets and idle timer (in seconds).
func (v view) proto(p uint8) view { v.Protocol = p; return v }
func (v view) onlink() view       { v.OnLink = true; return v }
func (v view) res(buckets uint16, idle time.Duration) view {
	v.Res = nexthop.ResilientInfo{Buckets: buckets, IdleTimer: idle * time.Second}
	return v
}

// show is the table as a dump reports it, by id.
func show(tbl *nexthop.Table) []view {
	var s []view
	for _, nh := range tbl.List() {
		s = append(s, viewOf(nh))
	}
	return s
}

// snapshot captures everything observable about a table, to check that a
// refused request changed nothing.
func snapshot(tbl *nexthop.Table) string {
	s := fmt.Sprint(show(tbl))
	for _, nh := range tbl.List() {
		var p []nexthop.ID
		for _, g := range nh.Parents() {
			p = append(p, g.ID())
		}
		s += fmt.Sprintf("|%d:%v:%d:%v", nh.ID(), p, nh.FIBUsers(), nh.HasV4())
	}
	return s
}

// requireErr checks an error's errno and extack message.
func requireErr(tb testing.TB, err error, want syscall.Errno, msg string) {
	tb.Helper()
	require.Error(tb, err)
	require.ErrorIs(tb, err, want)
	var ee *errno.Error
	require.True(tb, errors.As(err, &ee), "%T is not *errno.Error", err)
	require.Equal(tb, msg, ee.Msg)
}

// fib is a fake FIB: it hands out FIB users, records MarkDead calls, and
// on FlushFIB frees the dead users (RemoveFIBUser), as fib_table_flush and
// free_fib_info do.
type fib struct {
	users   []*user
	marks   []string // MarkDead calls in order
	updates []string // NexthopUpdated calls in order
	flushes int
	// onFlush, when set, runs at every flush (to test reentrancy).
	onFlush func(t *sim.Task)
}

// user is a FIB entry (fib_info) using a nexthop.
type user struct {
	f     *fib
	name  string
	nh    *nexthop.Nexthop
	dead  bool
	freed bool
	// wrapper is the FIBUser value linked to nh (u itself or the struct
	// that embeds it).
	wrapper nexthop.FIBUser
}

func (u *user) MarkDead() {
	u.dead = true
	u.f.marks = append(u.f.marks, u.name)
}

// scopedUser is a FIB entry that reports its route scope.
type scopedUser struct {
	user
	scope uint8
}

func (u *scopedUser) RouteScope() uint8 { return u.scope }

// notifiedUser is a FIB entry that wants replace notifications.
type notifiedUser struct{ user }

func (u *notifiedUser) NexthopUpdated(_ *sim.Task, nh *nexthop.Nexthop) {
	u.f.updates = append(u.f.updates, fmt.Sprintf("%s<-%d", u.name, nh.ID()))
}

func (f *fib) attach(nh *nexthop.Nexthop, name string) *user {
	u := &user{f: f, name: name, nh: nh}
	u.wrapper = u
	nh.AddFIBUser(u)
	f.users = append(f.users, u)
	return u
}

func (f *fib) attachScoped(nh *nexthop.Nexthop, name string, scope uint8) *scopedUser {
	u := &scopedUser{user: user{f: f, name: name, nh: nh}, scope: scope}
	u.wrapper = u
	nh.AddFIBUser(u)
	f.users = append(f.users, &u.user)
	return u
}

func (f *fib) attachNotified(nh *nexthop.Nexthop, name string) *notifiedUser {
	u := &notifiedUser{user: user{f: f, name: name, nh: nh}}
	u.wrapper = u
	nh.AddFIBUser(u)
	f.users = append(f.users, &u.user)
	return u
}

func (f *fib) FlushFIB(t *sim.Task) {
	f.flushes++
	for _, u := range f.users {
		if u.dead && !u.freed {
			u.freed = true
			u.nh.RemoveFIBUser(u.wrapper)
		}
	}
	if f.onFlush != nil {
		f.onFlush(t)
	}
}

func (f *fib) dead() map[string]bool {
	m := map[string]bool{}
	for _, u := range f.users {
		if u.dead {
			m[u.name] = true
		}
	}
	return m
}
