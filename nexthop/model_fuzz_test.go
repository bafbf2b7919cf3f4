package nexthop_test

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/internal/fuzzops"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
)

// FuzzNexthops decodes its input into a sequence of nexthop requests —
// adds and replaces of single nexthops and groups (good and bad), deletes,
// FIB users attached, device flushes, flush-all — and applies each to the
// reference model and to a table under each flush policy, comparing errors,
// the refused requests' lack of effect, flushes, dumps, group parents, FIB
// users and the dense index after every step, and running
// Table.CheckInvariants. It is TestRandomAgainstModel with the choices
// read from the input.
func FuzzNexthops(f *testing.F) {
	f.Add([]byte("\x00\x05\x01\x0a\x02\x1e\x03\x04\x28\x05\x06\x37\x07\x08\x50\x09\x0a\x5a"))
	f.Add([]byte("\x10\x03\x05\x30\x01\x02\x03\x02\x40\x00\x50\x01\x5c\x02\x62"))
	f.Fuzz(fuzzModel)
}

// fuzzModel is runModel (model_test.go) reading its choices from data.
func fuzzModel(t *testing.T, data []byte) {
	e := newEnv(t)
	rng := fuzzops.New(data)
	m := &model{nhs: map[nexthop.ID]*mnh{}, users: map[nexthop.ID][]string{}, dead: map[string]bool{}}
	twins := []*twin{}
	for _, p := range []nexthop.Policy{nexthop.FlushPerNexthop, nexthop.FlushDeferred} {
		tbl := nexthop.NewTable(p)
		tbl.SetGatewayChecker(rejectGW)
		twins = append(twins, &twin{tbl: tbl, f: &fib{}, users: map[string]*user{}})
	}
	devs := []string{"d0", "d1", "d2"}
	randID := func() nexthop.ID { return nexthop.ID(1 + rng.IntN(24)) }
	randSingle := func(id nexthop.ID) nexthop.Config {
		c := nexthop.Config{ID: id, Dev: e.d[devs[rng.IntN(len(devs))]]}
		if rng.IntN(2) == 0 {
			c.Protocol = 4
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
			c.Group = append(c.Group, nexthop.GroupMember{ID: randID(), Weight: uint16(rng.IntN(4))})
		}
		if rng.IntN(2) == 0 {
			c.Protocol = 4
		}
		return c
	}
	userSeq := 0
	var trace []string

	for step := 0; step < 300 && !rng.Exhausted(); step++ {
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
		ctx := fmt.Sprintf("step %d: %s\nlast operations:\n%s", step, op, strings.Join(trace[max(0, len(trace)-30):], "\n"))

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
			hi := nexthop.ID(2 * 24)
			for id := range m.nhs {
				hi = max(hi, id)
			}
			for id := nexthop.ID(0); id <= hi+1; id++ {
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
