package fib

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
)

// model is a slow, obviously correct FIB: per table, per prefix, a list of
// routes in the order the kernel keeps them (TOS descending, then priority
// ascending; appends after their equals, prepends before), and lookups by
// trying every prefix length from 32 down.
type model struct {
	tables map[uint32]map[netip.Prefix][]mroute
	merged bool // local's routes are seen by main's lookups
}

// mroute is a route as the model keeps it: the request, the device its
// path resolves to, and fi, what makes two routes share a fib_info.
type mroute struct {
	r   Route
	dev *netdev.Device
	fi  string
}

// canon is what a dump line must show of a route.
func canon(r Route, dev *netdev.Device) string {
	name := ""
	if dev != nil {
		name = dev.Name()
	}
	gw := r.Gateway
	if r.NexthopID != 0 {
		gw = netip.Addr{} // dumps show the nexthop object's gateway
	}
	return fmt.Sprintf("%v %v t%d tos%d m%d p%d s%d via %v nh%d dev %s", r.Type, r.Dst, r.Table, r.TOS,
		r.Priority, r.Protocol, r.Scope, gw, r.NexthopID, name)
}

func newModel() *model {
	return &model{tables: make(map[uint32]map[netip.Prefix][]mroute), merged: true}
}

func fiKey(r Route, d *netdev.Device) string {
	dev := ""
	if d != nil && r.NexthopID == 0 {
		dev = d.Name()
	}
	return fmt.Sprintf("%d/%d/%d/%d/%v/%d/%v/%s/%d/%v", r.Type, r.Scope, r.Protocol, r.Priority,
		r.PrefSrc, r.Table, r.Gateway, dev, r.NexthopID, r.OnLink)
}

func eexist() error { return errno.New(syscall.EEXIST, "") }

func (m *model) add(r Route, dev *netdev.Device, mode rt.NLMFlags) error {
	if r.Table == 0 {
		r.Table = TableMain
	}
	if r.Type == TypeUnspec {
		r.Type = TypeUnicast
	}
	tb := m.tables[r.Table]
	if tb == nil {
		tb = make(map[netip.Prefix][]mroute)
		m.tables[r.Table] = tb
	}
	nr := mroute{r: r, dev: dev, fi: fiKey(r, dev)}
	list := tb[r.Dst]
	first, last, dup := -1, -1, -1
	for i, x := range list {
		if x.r.TOS == r.TOS && x.r.Priority == r.Priority {
			if first < 0 {
				first = i
			}
			last = i
			if dup < 0 && x.fi == nr.fi {
				dup = i
			}
		}
	}
	if first >= 0 {
		switch {
		case mode&rt.NLMExcl != 0:
			return eexist()
		case mode&rt.NLMReplace != 0:
			if dup >= 0 {
				if dup == first {
					return nil
				}
				return eexist()
			}
			list[first] = nr
			return nil
		case dup >= 0:
			return eexist()
		}
		at := first
		if mode&rt.NLMAppend != 0 {
			at = last + 1
		}
		if mode&rt.NLMCreate == 0 {
			return errno.New(syscall.ENOENT, "")
		}
		tb[r.Dst] = slices.Insert(list, at, nr)
		return nil
	}
	if mode&rt.NLMCreate == 0 {
		return errno.New(syscall.ENOENT, "")
	}
	at := len(list)
	for i, x := range list {
		if x.r.TOS < r.TOS || x.r.TOS == r.TOS && x.r.Priority > r.Priority {
			at = i
			break
		}
	}
	tb[r.Dst] = slices.Insert(list, at, nr)
	return nil
}

func (m *model) del(r Route) error {
	if r.Table == 0 {
		r.Table = TableMain
	}
	tb := m.tables[r.Table]
	if tb == nil {
		return errno.New(syscall.ESRCH, "")
	}
	list := tb[r.Dst]
	for i, x := range list {
		if x.r.TOS != r.TOS {
			continue
		}
		if r.Type != 0 && x.r.Type != r.Type || r.Scope != 0 && x.r.Scope != r.Scope ||
			r.Protocol != 0 && x.r.Protocol != r.Protocol || r.Priority != 0 && x.r.Priority != r.Priority ||
			r.NexthopID != 0 && x.r.NexthopID != r.NexthopID ||
			r.NexthopID == 0 && x.r.NexthopID != 0 && (r.Dev != nil || r.Gateway.IsValid()) ||
			r.Dev != nil && x.dev != r.Dev || r.Gateway.IsValid() && x.r.Gateway != r.Gateway {
			continue
		}
		tb[r.Dst] = slices.Delete(list, i, i+1)
		return nil
	}
	return errno.New(syscall.ESRCH, "")
}

// removeNexthop drops the routes of a removed nexthop (what the flush that
// follows the removal does).
func (m *model) removeNexthop(id nexthop.ID) {
	for _, tb := range m.tables {
		for p, list := range tb {
			tb[p] = slices.DeleteFunc(list, func(x mroute) bool { return x.r.NexthopID == id })
		}
	}
}

// dump renders one table as `ip route show table` orders it: by key, then
// longest prefix first, then list order.
func (m *model) dump(id uint32) []string {
	var ps []netip.Prefix
	for p, l := range m.tables[id] {
		if len(l) > 0 {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b netip.Prefix) int {
		if c := a.Addr().Compare(b.Addr()); c != 0 {
			return c
		}
		return b.Bits() - a.Bits()
	})
	var out []string
	for _, p := range ps {
		for _, x := range m.tables[id][p] {
			out = append(out, canon(x.r, x.dev))
		}
	}
	return out
}

// lookupTables is fib_table_lookup over the union of tables (main and local
// while merged): longest prefix first, and at equal length the table with
// the higher id first. Results name the last table (the one looked up:
// main, for local's routes while merged).
func (m *model) lookupTables(ids []uint32, fl Flow) (Result, error) {
	for bits := 32; bits >= 0; bits-- {
		p := netip.PrefixFrom(fl.Dst, bits).Masked()
		for _, id := range ids {
			for _, x := range m.tables[id][p] {
				r := x.r
				if r.TOS != 0 && r.TOS != fl.TOS || r.Scope < fl.Scope {
					continue
				}
				res := Result{Prefix: p, Type: r.Type, Scope: r.Scope, Table: ids[len(ids)-1]}
				if e := typeProps[r.Type].err; e != 0 {
					return res, errno.New(e, "")
				}
				if fl.OIF != 0 && (x.dev == nil || x.dev.Index() != fl.OIF) {
					continue
				}
				res.Gateway, res.Dev = r.Gateway, x.dev
				return res, nil
			}
		}
	}
	return Result{}, errAgain
}

// resolve is the device fib_check_nh finds for a gateway: a link-scope
// route to it in the route's table, or else in the usual lookup.
func (m *model) resolve(r Route) *netdev.Device {
	fl := Flow{Dst: r.Gateway, Scope: ScopeLink}
	if r.Dev != nil {
		fl.OIF = r.Dev.Index()
	}
	if r.Table != 0 && r.Table != TableMain {
		ids := []uint32{r.Table}
		if r.Table == TableLocal && m.merged {
			ids = []uint32{TableLocal, TableMain}
		}
		if res, err := m.lookupTables(ids, fl); err == nil {
			return res.Dev
		}
	}
	res, _ := m.lookup(fl)
	return res.Dev
}

func (m *model) lookup(fl Flow) (Result, error) {
	groups := [][]uint32{{TableLocal, TableMain}, {TableDefault}}
	if !m.merged {
		groups = [][]uint32{{TableLocal}, {TableMain}, {TableDefault}}
	}
	for _, g := range groups {
		res, err := m.lookupTables(g, fl)
		if errno.Of(err) != syscall.EAGAIN {
			return res, err
		}
	}
	return Result{}, errno.New(syscall.ENETUNREACH, "")
}

func (m *model) fibInfos() int {
	seen := map[string]bool{}
	for _, tb := range m.tables {
		for _, l := range tb {
			for _, x := range l {
				seen[x.fi] = true
			}
		}
	}
	return len(seen)
}

// TestModel runs random route operations on the FIB and the model and
// compares them after every step: the error, every table's dump, lookups,
// the number of fib_infos, and the trie invariants. Seeds 7 to 9 run with
// counted flushes (SetCountedWalks), whose index the invariants check too.
func TestModel(t *testing.T) {
	for seed := uint64(1); seed <= 9; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			steps := 1000
			if testing.Short() {
				steps = 300
			}
			runModel(t, seed, steps, seed > 6)
		})
	}
}

func runModel(t *testing.T, seed uint64, steps int, counted bool) {
	rnd := rand.New(rand.NewPCG(seed, 99))
	runModelWith(t, seed, rnd, rnd, steps, nil, counted)
}

// modelChoices is where runModelWith takes its choices from: a seeded
// generator (TestModel) or a fuzzer's input (FuzzTrie).
type modelChoices interface {
	IntN(n int) int
	Uint32() uint32
}

// runModelWith runs up to steps operations chosen by rnd, on prefixes drawn
// from poolRnd, until spent (if not nil) reports the choices used up, on a
// FIB with counted flushes or not.
func runModelWith(t *testing.T, seed uint64, poolRnd *rand.Rand, rnd modelChoices, steps int, spent func() bool, counted bool) {
	e := newEnv(t, nexthop.FlushDeferred)
	e.f.SetCountedWalks(counted)
	e.mustIP(setupLines()...)
	e.mustIP("link add vethC type veth peer name vethD", "link set vethC up", "link set vethD up",
		"addr add 192.0.2.1/24 dev vethC")
	for i := 1; i <= 6; i++ {
		e.mustIP(fmt.Sprintf("nexthop add id %d via 198.51.100.%d dev vethA", i, 10+i))
	}
	m := newModel()
	// The address routes, read back from the FIB, start the model.
	for _, r := range e.f.AllRoutes() {
		if err := m.add(r, r.Dev, rt.ModeAppend); err != nil {
			t.Fatal(err)
		}
	}
	// A small pool of prefixes so that operations collide.
	var pool []netip.Prefix
	for len(pool) < 40 {
		bits := poolRnd.IntN(33)
		a := addrFrom4(0x0a000000 | poolRnd.Uint32()&0x00ff00ff)
		if poolRnd.IntN(8) == 0 {
			a = addrFrom4(poolRnd.Uint32())
		}
		p := netip.PrefixFrom(a, bits).Masked()
		if f := addr4(p.Addr()) >> 24; bits > 0 && (f == 0 || f >= 224 || f == 127 || f == 198 || f == 192) {
			continue
		}
		pool = append(pool, p)
	}
	vethA, vethC := e.dev("vethA"), e.dev("vethC")
	randRoute := func() Route {
		r := Route{Dst: pool[rnd.IntN(len(pool))], Protocol: ProtoBoot}
		switch rnd.IntN(10) {
		case 0:
			r.Table = TableDefault
		case 1, 2:
			r.Table = 100
		case 3:
			r.Table = TableLocal
		}
		if rnd.IntN(6) == 0 {
			r.TOS = 0x10
		}
		r.Priority = uint32(rnd.IntN(3))
		switch rnd.IntN(9) {
		case 0:
			r.Type = TypeUnreachable
		case 1:
			r.Type = TypeBlackhole
		case 2:
			r.Type = TypeProhibit
		case 3, 4:
			r.NexthopID = nexthop.ID(1 + rnd.IntN(6))
		case 5:
			r.Dev, r.Scope = vethC, ScopeLink
		default:
			r.Gateway = addrFrom4(0xc6336400 | uint32(2+rnd.IntN(3))) // 198.51.100.2-4
			if rnd.IntN(3) == 0 {
				r.Dev = vethA
			}
		}
		if rnd.IntN(5) == 0 {
			r.Protocol = ProtoStatic
		}
		return r
	}
	modes := []rt.NLMFlags{rt.ModeAdd, rt.ModeAdd, rt.ModeAdd, rt.ModeReplace, rt.ModeAppend, rt.ModePrepend, rt.ModeChange}
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		start := max(0, len(log)-15)
		t.Fatalf("seed %d step %d: %s\nlast operations:\n  %s", seed, len(log), fmt.Sprintf(format, args...),
			strings.Join(log[start:], "\n  "))
	}
	for step := 0; step < steps && (spent == nil || !spent()); step++ {
		var got, want error
		switch k := rnd.IntN(20); {
		case k < 11:
			r, mode := randRoute(), modes[rnd.IntN(len(modes))]
			log = append(log, fmt.Sprintf("add mode %#x %s", mode, routeString(r)))
			dev := r.Dev
			switch {
			case r.Gateway.IsValid():
				dev = m.resolve(r)
			case r.NexthopID != 0:
				dev = vethA
			case r.Type != TypeUnspec && r.Type != TypeUnicast:
				dev = nil
			}
			got = e.do(func() error { return e.f.Add(e.t, r, mode) })
			want = m.add(r, dev, mode)
		case k < 16:
			r := randRoute()
			// Deletes name fewer attributes than adds.
			if rnd.IntN(2) == 0 {
				r = Route{Dst: r.Dst, Table: r.Table, TOS: r.TOS}
			} else {
				r.Protocol = 0
			}
			log = append(log, fmt.Sprintf("del %s", routeString(r)))
			got = e.do(func() error { return e.f.Del(e.t, r) })
			want = m.del(r)
		case k < 17:
			// Remove a nexthop: its routes go with the deferred flush.
			id := nexthop.ID(1 + rnd.IntN(6))
			log = append(log, fmt.Sprintf("nexthop del %d and re-add", id))
			if e.nh.Get(id) != nil {
				e.mustIP(fmt.Sprintf("nexthop del id %d", id))
				m.removeNexthop(id)
			}
			e.mustIP(fmt.Sprintf("nexthop add id %d via 198.51.100.%d dev vethA", id, 10+int(id)))
		case k < 18 && m.merged && rnd.IntN(10) == 0:
			log = append(log, "unmerge")
			e.mustIP("rule add from 203.0.113.1 table 100")
			m.merged = false
		default:
			// Lookups of addresses in and around the pool.
			for range 8 {
				p := pool[rnd.IntN(len(pool))]
				a := addr4(p.Addr()) | rnd.Uint32()&^mask(p.Bits())
				if rnd.IntN(4) == 0 {
					a = rnd.Uint32()
				}
				fl := Flow{Dst: addrFrom4(a)}
				if rnd.IntN(4) == 0 {
					fl.TOS = 0x10
				}
				if rnd.IntN(5) == 0 {
					fl.Scope = ScopeLink
				}
				gr, gerr := e.f.Lookup(e.t, fl)
				wr, werr := m.lookup(fl)
				if errno.Of(gerr) != errno.Of(werr) || gr.Prefix != wr.Prefix || gr.Type != wr.Type ||
					gr.Table != wr.Table || gerr == nil && (gr.Gateway != wr.Gateway && wr.Gateway.IsValid()) {
					fail("lookup %v: got %+v %v, model %+v %v", fl, gr, gerr, wr, werr)
				}
				for _, id := range []uint32{100, TableLocal} {
					tb := e.f.Table(id)
					if tb == nil || id == TableLocal && m.merged {
						continue
					}
					gr, gerr := tb.Lookup(e.t, fl)
					wr, werr := m.lookupTables([]uint32{id}, fl)
					if errno.Of(gerr) != errno.Of(werr) || gr.Prefix != wr.Prefix || gr.Type != wr.Type {
						fail("table %d lookup %v: got %+v %v, model %+v %v", id, fl, gr, gerr, wr, werr)
					}
				}
				// The lookup's shortcuts keep fib_table_lookup's answer
				// and work (lookupRef).
				for _, id := range []uint32{TableMain, 100, TableLocal} {
					if tb := e.f.Table(id); tb != nil && tb.t != nil {
						if d := sameLookup(tb, fl); d != "" {
							fail("table %d lookup %v: %s", id, fl, d)
						}
					}
				}
			}
			continue
		}
		if errno.Of(got) != errno.Of(want) {
			fail("error %v, model %v", got, want)
		}
		if err := e.f.check(); err != nil {
			fail("%v", err)
		}
		if err := e.nh.CheckInvariants(); err != nil {
			fail("nexthops: %v", err)
		}
		for _, id := range []uint32{TableMain, TableLocal, TableDefault, 100} {
			var g []string
			for _, r := range e.f.Routes(id) {
				r.Flags, r.OnLink = 0, false
				g = append(g, canon(r, r.Dev))
			}
			if w := m.dump(id); !slices.Equal(g, w) {
				fail("table %d:\n got   %q\n model %q", id, g, w)
			}
		}
		if got, want := e.f.InfoCount(), m.fibInfos(); got != want {
			fail("%d fib_infos, model %d", got, want)
		}
	}
}
