package fib

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/internal/fuzzops"
	"github.com/netsimlab/netsim/nexthop"
)

// FuzzTrie decodes its input into a sequence of route operations — adds in
// every mode, deletes, nexthop removals, the unmerge of local and main,
// lookups — on a FIB and on the reference model (model_test.go), comparing
// errors, every table's dump, lookups and the number of fib_infos after
// every step, and running the trie and FIB invariant checks (check and
// CheckInvariants). It is TestModel with the choices read from the input.
func FuzzTrie(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13"))
	f.Add([]byte("\x05\x20\x05\x01\x00\x03\x01\x05\x21\x06\x02\x00\x04\x02\x0c\x10\x01\x11\x13\x00\x01\x02"))
	f.Fuzz(fuzzModel)
}

// fuzzModel is runModel (model_test.go) reading its choices from data.
func fuzzModel(t *testing.T, data []byte) {
	seed := 0 // messages keep runModel's shape
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	e.mustIP("link add vethC type veth peer name vethD", "link set vethC up", "link set vethD up",
		"addr add 192.0.2.1/24 dev vethC")
	for i := 1; i <= 6; i++ {
		e.mustIP(fmt.Sprintf("nexthop add id %d via 198.51.100.%d dev vethA", i, 10+i))
	}
	m := newModel()
	// The address routes, read back from the FIB, start the model.
	for _, r := range e.f.AllRoutes() {
		if err := m.add(r, r.Dev, ModeAppend); err != nil {
			t.Fatal(err)
		}
	}
	// A small pool of prefixes so that operations collide: runModel's for
	// seed 1, so that the input is spent on operations.
	prnd := rand.New(rand.NewPCG(1, 99))
	var pool []netip.Prefix
	for len(pool) < 40 {
		bits := prnd.IntN(33)
		a := addrFrom4(0x0a000000 | prnd.Uint32()&0x00ff00ff)
		if prnd.IntN(8) == 0 {
			a = addrFrom4(prnd.Uint32())
		}
		p := netip.PrefixFrom(a, bits).Masked()
		if f := addr4(p.Addr()) >> 24; bits > 0 && (f == 0 || f >= 224 || f == 127 || f == 198 || f == 192) {
			continue
		}
		pool = append(pool, p)
	}
	rnd := fuzzops.New(data)
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
	modes := []Mode{ModeAdd, ModeAdd, ModeAdd, ModeReplace, ModeAppend, ModePrepend, ModeChange}
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		start := max(0, len(log)-15)
		t.Fatalf("seed %d step %d: %s\nlast operations:\n  %s", seed, len(log), fmt.Sprintf(format, args...),
			strings.Join(log[start:], "\n  "))
	}
	for step := 0; step < 300 && !rnd.Exhausted(); step++ {
		var got, want error
		switch k := rnd.IntN(20); {
		case k < 11:
			r, mode := randRoute(), modes[rnd.IntN(len(modes))]
			log = append(log, fmt.Sprintf("add mode %#x %s", mode, r))
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
			log = append(log, fmt.Sprintf("del %s", r))
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
			}
			continue
		}
		if errno.Of(got) != errno.Of(want) {
			fail("error %v, model %v", got, want)
		}
		if err := e.f.check(); err != nil {
			fail("%v", err)
		}
		if err := e.f.CheckInvariants(); err != nil {
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
