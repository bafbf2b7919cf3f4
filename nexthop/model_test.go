package nexthop_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
)

// model is the slow, obviously correct twin of a nexthop table: a map of
// id → definition, with removal cascades written the direct way (scan every
// group for the member) and no device hash, no back references, no lists.
type model struct {
	nhs    map[nexthop.ID]*mnh
	lastID uint32
	users  map[nexthop.ID][]string // live FIB users by nexthop
	dead   map[string]bool
}

type mnh struct {
	group []nexthop.GroupMember // nil for single nexthops; weights normalised
	res   bool                  // a resilient group
	nbkt  uint16                // its bucket count
	dev   string                // "" for blackholes
	gw    netip.Addr
	bh    bool
	fdb   bool // an fdb nexthop or group
	fam   rt.Family
	proto uint8
}

type merr struct {
	errno syscall.Errno
	msg   string
}

// view is what the model's nexthop id looks like in a dump.
func (m *model) view(id nexthop.ID) view {
	n := m.nhs[id]
	var v view
	switch {
	case n.group != nil:
		v = grp(id, n.group...)
		if n.res {
			// No flow uses the buckets: every change rebalances at once.
			v = v.res(n.nbkt, 120)
		}
	case n.bh:
		v = bh(id)
	default:
		v = view{ID: id, Gateway: n.gw, Dev: n.dev, Scope: scopeLink}
		if n.fam == syscall.AF_INET && !n.gw.IsValid() && !n.fdb {
			v.Scope = scopeHost
		}
	}
	v.FDB = n.fdb
	return v.proto(n.proto)
}

func (m *model) show() []view {
	var ids []nexthop.ID
	for id := range m.nhs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var s []view
	for _, id := range ids {
		s = append(s, m.view(id))
	}
	return s
}

func (m *model) parents(id nexthop.ID) []nexthop.ID {
	var p []nexthop.ID
	for gid, n := range m.nhs {
		for _, g := range n.group {
			if g.ID == id {
				p = append(p, gid)
			}
		}
	}
	slices.Sort(p)
	return p
}

// remove removes id and what follows from it; it returns how many removed
// nexthops had FIB users (the flushes FlushPerNexthop does).
func (m *model) remove(id nexthop.ID) int {
	n, ok := m.nhs[id]
	if !ok {
		return 0
	}
	delete(m.nhs, id)
	withUsers := 0
	if len(m.users[id]) > 0 {
		withUsers++
		for _, u := range m.users[id] {
			m.dead[u] = true
		}
		delete(m.users, id)
	}
	if n.group != nil {
		return withUsers
	}
	for _, gid := range m.parents(id) {
		g := m.nhs[gid]
		if len(g.group) == 1 {
			withUsers += m.remove(gid)
			continue
		}
		g.group = slices.DeleteFunc(slices.Clone(g.group), func(x nexthop.GroupMember) bool { return x.ID == id })
	}
	return withUsers
}

func (m *model) unusedID() nexthop.ID {
	start := m.lastID
	for {
		m.lastID++
		if m.lastID == start {
			return 0
		}
		if _, ok := m.nhs[nexthop.ID(m.lastID)]; !ok {
			return nexthop.ID(m.lastID)
		}
	}
}

// newNexthop predicts an add or a replace of cfg (as the generator builds
// them) and applies it.
func (m *model) newNexthop(cfg nexthop.Config, replace bool) *merr {
	n := &mnh{proto: cfg.Protocol, fdb: cfg.FDB}
	hasBuckets := false
	if cfg.Group != nil {
		g := cfg.Group
		for _, x := range g {
			mem, ok := m.nhs[x.ID]
			switch {
			case !ok:
				return &merr{syscall.EINVAL, "Invalid nexthop id"}
			case mem.group != nil && mem.res:
				return &merr{syscall.EINVAL, "Resilient group can not be a nexthop within a group"}
			case mem.group != nil:
				return &merr{syscall.EINVAL, "Hash-threshold group can not be a nexthop within a group"}
			case mem.bh && len(g) > 1:
				return &merr{syscall.EINVAL, "Blackhole nexthop can not be used in a group with more than 1 path"}
			case cfg.FDB && !mem.fdb:
				return &merr{syscall.EINVAL, "FDB nexthop group can only have fdb nexthops"}
			case cfg.FDB && mem.fam != m.nhs[g[0].ID].fam:
				return &merr{syscall.EINVAL, "FDB nexthop group cannot have mixed family nexthops"}
			case !cfg.FDB && mem.fdb:
				return &merr{syscall.EINVAL, "Non FDB nexthop group cannot have fdb nexthops"}
			}
			w := x.Weight
			if w == 0 {
				w = 1
			}
			n.group = append(n.group, nexthop.GroupMember{ID: x.ID, Weight: w})
		}
		if n.res = cfg.GroupType == nexthop.GroupResilient; n.res && cfg.Resilient != nil {
			hasBuckets, n.nbkt = cfg.Resilient.HasBuckets, cfg.Resilient.Buckets
		}
	} else {
		n.bh = cfg.Blackhole
		if cfg.Dev != nil {
			n.dev = cfg.Dev.Name()
		}
		n.gw = cfg.Gateway
		switch {
		case cfg.Family != 0:
			n.fam = cfg.Family
		case n.bh || n.gw.Is4():
			n.fam = syscall.AF_INET
		default:
			n.fam = syscall.AF_INET6
		}
	}
	id := cfg.ID
	if id == 0 {
		if id = m.unusedID(); id == 0 {
			return &merr{syscall.EINVAL, "No unused id"}
		}
	}
	if n.gw == gw4("10.99.0.1") && !n.fdb {
		return &merr{syscall.EINVAL, "Nexthop has invalid gateway"}
	}
	old, exists := m.nhs[id]
	if !exists {
		if n.res && !hasBuckets {
			return &merr{syscall.EINVAL, "Number of buckets not specified for nexthop group insertion"}
		}
		m.nhs[id] = n
		return nil
	}
	if !replace {
		return &merr{errno: syscall.EEXIST}
	}
	if n.bh {
		for _, p := range m.parents(id) {
			if len(m.nhs[p].group) > 1 {
				return &merr{syscall.EINVAL, "Blackhole nexthop can not be a member of a group with more than one path"}
			}
		}
	}
	switch {
	case old.group != nil && n.group == nil:
		return &merr{syscall.EINVAL, "Can not replace a nexthop group with a nexthop."}
	case old.group == nil && n.group != nil:
		return &merr{syscall.EINVAL, "Can not replace a nexthop with a nexthop group."}
	case old.group == nil && old.fdb != n.fdb && len(m.parents(id)) > 0:
		return &merr{syscall.EINVAL, "Cannot change nexthop FDB status while in a group"}
	case old.group != nil && old.res != n.res:
		return &merr{syscall.EINVAL, "Can not replace a nexthop group with one of a different type."}
	case old.res && hasBuckets && n.nbkt != old.nbkt:
		return &merr{syscall.EINVAL, "Can not change number of buckets of a resilient nexthop group."}
	case old.group != nil:
		old.group = n.group // the group keeps its protocol and buckets
		old.fdb = n.fdb
	default:
		m.nhs[id] = n
	}
	return nil
}

// twin is one table under test with its fake FIB.
type twin struct {
	tbl   *nexthop.Table
	f     *fib
	users map[string]*user
}

func TestRandomAgainstModel(t *testing.T) {
	seeds := 40
	steps := 400
	if testing.Short() {
		seeds = 5
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			runModel(t, seed+1, steps)
		})
	}
}

func runModel(t *testing.T, seed uint64, steps int) {
	runModelWith(t, seed, rand.New(rand.NewPCG(seed, 0x6e68)), steps, nil)
}

// modelHighIDs is where the model's high ids start: far above denseMax,
// with room for a group's +24 below the largest id.
const modelHighIDs = 0xffffffe0

// modelProbeIDs are the ids whose Get the model checks: every id the model
// can draw and its neighbours.
var modelProbeIDs = func() (ids []nexthop.ID) {
	for id := nexthop.ID(0); id <= 2*24+1; id++ {
		ids = append(ids, id)
	}
	for k := nexthop.ID(0); k <= 24+4+1; k++ {
		ids = append(ids, modelHighIDs+k)
	}
	return ids
}()

// modelChoices is where runModelWith takes its choices from: a seeded
// generator (TestRandomAgainstModel) or a fuzzer's input (FuzzNexthops).
type modelChoices interface {
	IntN(n int) int
}

// runModelWith runs up to steps operations chosen by rng on both tables and
// the model, until spent (if not nil) reports the choices used up.
func runModelWith(t *testing.T, seed uint64, rng modelChoices, steps int, spent func() bool) {
	e := newEnv(t)
	m := &model{nhs: map[nexthop.ID]*mnh{}, users: map[nexthop.ID][]string{}, dead: map[string]bool{}}
	twins := []*twin{}
	for _, p := range []nexthop.Policy{nexthop.FlushPerNexthop, nexthop.FlushDeferred} {
		tbl := nexthop.NewTable(p)
		tbl.SetGatewayChecker(rejectGW)
		twins = append(twins, &twin{tbl: tbl, f: &fib{}, users: map[string]*user{}})
	}
	devs := []string{"d0", "d1", "d2"}
	// Ids 1..20, and four far above the table's dense index (which Get
	// then finds in the tree); groups add 24 to either.
	randID := func() nexthop.ID {
		id := nexthop.ID(1 + rng.IntN(24))
		if id > 20 {
			id += modelHighIDs - 20
		}
		return id
	}
	randSingle := func(id nexthop.ID) nexthop.Config {
		c := nexthop.Config{ID: id, Dev: e.d[devs[rng.IntN(len(devs))]]}
		if rng.IntN(2) == 0 {
			c.Protocol = 4
		}
		if rng.IntN(6) == 0 {
			// An fdb nexthop, of either family.
			c.FDB, c.Dev = true, nil
			c.Gateway = netip.AddrFrom4([4]byte{192, 0, 2, byte(1 + rng.IntN(8))})
			if rng.IntN(3) == 0 {
				c.Gateway = netip.MustParseAddr(fmt.Sprintf("2001:db8::%d", 1+rng.IntN(8)))
			}
			return c
		}
		switch k := rng.IntN(20); {
		case k < 3:
			return nexthop.Config{ID: id, Blackhole: true, Protocol: c.Protocol}
		case k < 7:
			c.Family = syscall.AF_INET
		case k < 13:
			c.Gateway = netip.AddrFrom4([4]byte{192, 0, 2, byte(1 + rng.IntN(8))})
		case k < 18:
			c.Gateway = netip.MustParseAddr(fmt.Sprintf("2001:db8::%d", 1+rng.IntN(8)))
		default:
			c.Gateway = gw4("10.99.0.1")
		}
		return c
	}
	randGroup := func(id nexthop.ID) nexthop.Config {
		c := nexthop.Config{ID: id, Group: []nexthop.GroupMember{}}
		for range 1 + rng.IntN(4) {
			// A member used twice is the request's refusal (rtnl), not
			// the table's.
			m := nexthop.GroupMember{ID: randID(), Weight: uint16(rng.IntN(4))}
			if !slices.ContainsFunc(c.Group, func(x nexthop.GroupMember) bool { return x.ID == m.ID }) {
				c.Group = append(c.Group, m)
			}
		}
		if rng.IntN(2) == 0 {
			c.Protocol = 4
		}
		c.FDB = rng.IntN(4) == 0
		if rng.IntN(4) == 0 {
			c.GroupType = nexthop.GroupResilient
			if k := rng.IntN(10); k > 0 {
				// Mostly 1..8 buckets, sometimes none given (a count of 0
				// is the request's refusal, rtnl's).
				c.Resilient = &nexthop.ResilientConfig{Buckets: uint16(k - 1), HasBuckets: k > 1}
			}
		}
		return c
	}
	userSeq := 0
	var trace []string

	for step := 0; step < steps && (spent == nil || !spent()); step++ {
		var (
			op      string
			want    *merr
			flushes [2]int // expected per twin: FlushPerNexthop, FlushDeferred
			do      func(tw *twin) error
		)
		removed := func(n int) {
			flushes[0] = n
			if n > 0 {
				flushes[1] = 1
			}
		}
		switch k := rng.IntN(100); {
		case k < 30:
			id := randID()
			if rng.IntN(10) == 0 {
				id = 0
			}
			cfg := randSingle(id)
			op = fmt.Sprintf("add %+v", cfg)
			want = m.newNexthop(cfg, false)
			do = func(tw *twin) error { _, err := tw.tbl.Add(e.t, cfg); return err }
		case k < 45:
			cfg := randGroup(randID() + 24)
			if rng.IntN(3) == 0 {
				cfg.ID = randID()
			}
			op = fmt.Sprintf("add %+v", cfg)
			want = m.newNexthop(cfg, false)
			do = func(tw *twin) error { _, err := tw.tbl.Add(e.t, cfg); return err }
		case k < 55:
			var cfg nexthop.Config
			if rng.IntN(2) == 0 {
				cfg = randSingle(randID())
			} else {
				cfg = randGroup(randID() + nexthop.ID(24*rng.IntN(2)))
			}
			op = fmt.Sprintf("replace %+v", cfg)
			want = m.newNexthop(cfg, true)
			do = func(tw *twin) error { _, err := tw.tbl.Replace(e.t, cfg, tw.f); return err }
		case k < 70:
			id := randID() + nexthop.ID(24*rng.IntN(2))
			op = fmt.Sprintf("del %d", id)
			if _, ok := m.nhs[id]; ok {
				removed(m.remove(id))
			} else {
				want = &merr{errno: syscall.ENOENT}
			}
			do = func(tw *twin) error { return tw.tbl.Del(e.t, id, tw.f) }
		case k < 85:
			var ids []nexthop.ID
			for id := range m.nhs {
				ids = append(ids, id)
			}
			if len(ids) == 0 {
				continue
			}
			slices.Sort(ids)
			id := ids[rng.IntN(len(ids))]
			name := fmt.Sprint("u", userSeq)
			userSeq++
			op = fmt.Sprintf("route %s via %d", name, id)
			m.users[id] = append(m.users[id], name)
			do = func(tw *twin) error {
				tw.users[name] = tw.f.attach(tw.tbl.Get(id), name)
				return nil
			}
		case k < 98:
			dev := append(devs, "lo")[rng.IntN(4)]
			ev := []netdev.Event{netdev.EventDown, netdev.EventUnregister}[rng.IntN(2)]
			op = fmt.Sprintf("flushdev %s %v", dev, ev)
			var victims []nexthop.ID
			for id, n := range m.nhs {
				if n.group == nil && (n.dev == dev || (n.bh && dev == "lo" && ev == netdev.EventUnregister)) {
					victims = append(victims, id)
				}
			}
			total := 0
			for _, id := range victims {
				total += m.remove(id)
			}
			removed(total)
			do = func(tw *twin) error { tw.tbl.FlushDev(e.t, e.d[dev], ev, tw.f); return nil }
		default:
			op = "flushall"
			var ids []nexthop.ID
			for id := range m.nhs {
				ids = append(ids, id)
			}
			total := 0
			for _, id := range ids {
				total += m.remove(id)
			}
			removed(total)
			do = func(tw *twin) error { tw.tbl.FlushAll(e.t, tw.f); return nil }
		}
		trace = append(trace, op)
		ctx := fmt.Sprintf("seed %d step %d: %s\nlast operations:\n%s", seed, step, op, strings.Join(trace[max(0, len(trace)-30):], "\n"))

		for i, tw := range twins {
			before := tw.f.flushes
			snap := snapshot(tw.tbl)
			err := do(tw)
			if want == nil {
				require.NoError(t, err, ctx)
			} else {
				require.Error(t, err, ctx)
				var ee *errno.Error
				require.True(t, errors.As(err, &ee), ctx)
				require.Equal(t, want.errno, ee.Errno, ctx)
				require.Equal(t, want.msg, ee.Msg, ctx)
				require.Equal(t, snap, snapshot(tw.tbl), "refused request changed the table\n"+ctx)
			}
			require.Equal(t, flushes[i], tw.f.flushes-before, "flushes of %v\n%s", tw.tbl.Policy(), ctx)
			if err := tw.tbl.CheckInvariants(); err != nil {
				t.Fatalf("invariants under %v: %v\n%s", tw.tbl.Policy(), err, ctx)
			}
			require.Equal(t, m.show(), show(tw.tbl), ctx)
			for _, nh := range tw.tbl.List() {
				got := parentIDs(nh)
				slices.Sort(got)
				require.Equal(t, m.parents(nh.ID()), got, "parents of %d\n%s", nh.ID(), ctx)
				require.Equal(t, len(m.users[nh.ID()]), nh.FIBUsers(), "users of %d\n%s", nh.ID(), ctx)
				require.False(t, nh.Dead(), ctx)
			}
			require.Equal(t, m.dead, tw.f.dead(), ctx)
			// Get answers from the dense index, List from the tree: every
			// add, replace, delete and flush must keep them in step.
			for _, id := range modelProbeIDs {
				_, ok := m.nhs[id]
				nh := tw.tbl.Get(id)
				require.Equal(t, ok, nh != nil, "Get(%d)\n%s", id, ctx)
				if nh != nil {
					require.Equal(t, id, nh.ID(), ctx)
				}
			}
		}
	}
	// Same MarkDead calls in the same order under both policies.
	require.Equal(t, twins[0].f.marks, twins[1].f.marks)
}
