package fib

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gaissmai/bart"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// benchEnv is an env with vethA up and 198.51.100.1/24, ready for routes.
func benchEnv(b *testing.B, p nexthop.Policy) *env {
	e := newEnv(b, p)
	e.mustIP(setupLines()...)
	return e
}

// seed000Requests returns seed 000's nexthops and routes as API requests.
func seed000Requests(dev *netdev.Device, n int) ([]nexthop.Config, []Route) {
	gw := netip.MustParseAddr("198.51.100.2")
	nhs := make([]nexthop.Config, n)
	rs := make([]Route, n)
	for i := range n {
		nhs[i] = nexthop.Config{ID: nexthop.ID(i + 1), Family: syscall.AF_INET, Gateway: gw, Dev: dev}
		rs[i] = Route{Dst: netip.PrefixFrom(addrFrom4(0x0a000000|uint32(i)<<8), 32), NexthopID: nexthop.ID(i + 1), Protocol: ProtoBoot}
	}
	return nhs, rs
}

// seed000Env is benchEnv with seed 000's first n nexthops and routes added.
func seed000Env(b *testing.B, n int) *env {
	e := benchEnv(b, nexthop.FlushDeferred)
	nhs, rs := seed000Requests(e.dev("vethA"), n)
	for i := range n {
		if _, err := e.nh.Add(e.t, nhs[i]); err != nil {
			b.Fatal(err)
		}
		if err := e.f.Add(e.t, rs[i], rt.ModeAdd); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

// BenchmarkSeed000Setup is seed 000's setup through the API: 65,536
// nexthops, then one /32 route per nexthop, with RTNL taken per request as
// rtnl's Handle does.
func BenchmarkSeed000Setup(b *testing.B) {
	const n = 65536
	for b.Loop() {
		b.StopTimer()
		e := benchEnv(b, nexthop.FlushDeferred)
		nhs, rs := seed000Requests(e.dev("vethA"), n)
		runtime.GC()
		b.StartTimer()
		for _, c := range nhs {
			e.rtnl.Lock(e.t)
			if _, err := e.nh.Add(e.t, c); err != nil {
				b.Fatal(err)
			}
			e.rtnl.Unlock(e.t)
		}
		for _, r := range rs {
			e.rtnl.Lock(e.t)
			if err := e.f.Add(e.t, r, rt.ModeAdd); err != nil {
				b.Fatal(err)
			}
			e.rtnl.Unlock(e.t)
		}
	}
	b.ReportMetric(float64(2*n)/(b.Elapsed().Seconds()/float64(b.N)), "requests/s")
}

// BenchmarkInsert65536 is the FIB's share of the seed 000 setup: 65,536 /32
// routes, each with its own nexthop object (and so fib_info), or all via one
// gateway (one shared fib_info).
func BenchmarkInsert65536(b *testing.B) {
	const n = 65536
	for _, kind := range []string{"nhid", "via"} {
		b.Run(kind, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				e := benchEnv(b, nexthop.FlushDeferred)
				nhs, rs := seed000Requests(e.dev("vethA"), n)
				if kind == "nhid" {
					for _, c := range nhs {
						if _, err := e.nh.Add(e.t, c); err != nil {
							b.Fatal(err)
						}
					}
				} else {
					for i := range rs {
						rs[i].NexthopID, rs[i].Gateway = 0, netip.MustParseAddr("198.51.100.2")
					}
				}
				runtime.GC()
				b.StartTimer()
				for _, r := range rs {
					if err := e.f.Add(e.t, r, rt.ModeAdd); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(n)/(b.Elapsed().Seconds()/float64(b.N)), "routes/s")
		})
	}
}

// BenchmarkFlush65536 is one fib_flush after every one of seed 000's 65,536
// routes was marked dead: each table walk visits each leaf once.
func BenchmarkFlush65536(b *testing.B) {
	const n = 65536
	var visits int64
	for b.Loop() {
		b.StopTimer()
		e := seed000Env(b, n)
		for fi := range e.f.fis.all() {
			if fi.nh != nil {
				fi.MarkDead()
			}
		}
		before := e.t.Counters().Get(sim.TrieLeafVisit)
		b.StartTimer()
		e.f.FlushFIB(e.t)
		b.StopTimer()
		visits = e.t.Counters().Get(sim.TrieLeafVisit) - before
		if e.f.Len() != 3 {
			b.Fatalf("%d routes left", e.f.Len())
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(visits), "leaves-visited/op")
}

// BenchmarkFlushPerNexthop is seed 000 before its patch at N = 8,192: one
// fib_flush per nexthop removed, newest first, each walking main and local
// (one trie) to remove one route. Nearly all of its time is the walk, so
// ns/leaf is the real cost of one TrieLeafVisit, to set beside the
// unpatched kernel's 7.8 ns (sim.DefaultCosts).
func BenchmarkFlushPerNexthop(b *testing.B) { benchFlushPerNexthop(b, 8192, false) }

// BenchmarkFlushPerNexthopCounted is BenchmarkFlushPerNexthop with counted
// flushes (SetCountedWalks), as the seeds run it, at N = 8,192 and at the
// seed's 65,536: the same leaves-visited/op are charged, ns/flush is what
// a flush costs in real time.
func BenchmarkFlushPerNexthopCounted(b *testing.B) {
	for _, n := range []int{8192, 65536} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchFlushPerNexthop(b, n, true) })
	}
}

func benchFlushPerNexthop(b *testing.B, n int, counted bool) {
	var visits int64
	for b.Loop() {
		b.StopTimer()
		e := seed000Env(b, n)
		e.f.SetCountedWalks(counted)
		byID := make([]*fibInfo, n+1)
		for fi := range e.f.fis.all() {
			if fi.nh != nil {
				byID[fi.nh.ID()] = fi
			}
		}
		before := e.t.Counters().Get(sim.TrieLeafVisit)
		runtime.GC()
		b.StartTimer()
		for id := n; id >= 1; id-- {
			byID[id].MarkDead()
			e.f.FlushFIB(e.t)
		}
		b.StopTimer()
		visits += e.t.Counters().Get(sim.TrieLeafVisit) - before
		if e.f.Len() != 3 {
			b.Fatalf("%d routes left", e.f.Len())
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(visits)/float64(b.N), "leaves-visited/op")
	if counted {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/flush")
	} else {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(visits), "ns/leaf")
	}
}

// internetLike returns n distinct prefixes with a length distribution like
// a full IPv4 table's: mostly /24, then /22-/23, /16-/21, a few longer.
func internetLike(r *rand.Rand, n int) []netip.Prefix {
	lengths := []struct{ bits, weight int }{
		{24, 58}, {23, 8}, {22, 11}, {21, 5}, {20, 5}, {19, 4}, {18, 2}, {17, 1}, {16, 3},
		{15, 1}, {12, 1}, {26, 1}, {28, 1}, {32, 1},
	}
	total := 0
	for _, l := range lengths {
		total += l.weight
	}
	seen := make(map[netip.Prefix]struct{}, n)
	out := make([]netip.Prefix, 0, n)
	for len(out) < n {
		k := r.IntN(total)
		bits := 0
		for _, l := range lengths {
			if k < l.weight {
				bits = l.bits
				break
			}
			k -= l.weight
		}
		a := r.Uint32()
		if f := a >> 24; f == 0 || f == 127 || f >= 224 || f == 198 {
			continue
		}
		p := netip.PrefixFrom(addrFrom4(a&mask(bits)), bits)
		if _, ok := seen[p]; !ok {
			seen[p] = struct{}{}
			out = append(out, p)
		}
	}
	return out
}

var (
	bigOnce     sync.Once
	bigFIB      *env
	bigBart     *bart.Table[int]
	bigPrefixes []netip.Prefix
	bigAddrs    []netip.Addr // random addresses
	bigHits     []netip.Addr // random addresses inside random prefixes of the table
)

// bigTables builds a 1M-prefix main table (routes via 16 gateways, so 16
// shared fib_infos) and the same prefixes in a bart.Table.
func bigTables(b testing.TB) {
	bigOnce.Do(func() {
		const n = 1 << 20
		r := rand.New(rand.NewPCG(7, 8))
		bigPrefixes = internetLike(r, n)
		bigFIB = newEnv(b, nexthop.FlushDeferred)
		bigFIB.mustIP(setupLines()...)
		gws := make([]netip.Addr, 16)
		for i := range gws {
			gws[i] = addrFrom4(0xc6336400 | uint32(2+i))
		}
		bigBart = new(bart.Table[int])
		for i, p := range bigPrefixes {
			if err := bigFIB.f.Add(nil, Route{Dst: p, Gateway: gws[i%16], Protocol: ProtoBoot}, rt.ModeAdd); err != nil {
				b.Fatal(err)
			}
			bigBart.Insert(p, i)
		}
		for range 1 << 16 {
			bigAddrs = append(bigAddrs, addrFrom4(r.Uint32()))
		}
		for range 1 << 16 {
			p := bigPrefixes[r.IntN(len(bigPrefixes))]
			bigHits = append(bigHits, addrFrom4(addr4(p.Addr())|r.Uint32()&^mask(p.Bits())))
		}
	})
}

// BenchmarkLookup1M compares fib_table_lookup on a 1M-prefix table with
// gaissmai/bart on the same prefixes, for the same addresses: uniformly
// random ones (15% match nothing, which costs the LC-trie its backtracking
// through the zero-suffixed siblings) and ones inside prefixes of the table.
func BenchmarkLookup1M(b *testing.B) {
	bigTables(b)
	main := bigFIB.f.Table(TableMain)
	for _, set := range []struct {
		name  string
		addrs []netip.Addr
	}{{"random", bigAddrs}, {"hits", bigHits}} {
		b.Run("fib/"+set.name, func(b *testing.B) {
			i, hits := 0, 0
			for b.Loop() {
				if _, err := main.lookup(nil, Flow{Dst: set.addrs[i&(1<<16-1)]}); err == nil {
					hits++
				}
				i++
			}
			main.f.work = trieWork{}
			b.ReportMetric(float64(hits)/float64(i), "hit-ratio")
		})
		b.Run("bart/"+set.name, func(b *testing.B) {
			i, hits := 0, 0
			for b.Loop() {
				if _, ok := bigBart.Lookup(set.addrs[i&(1<<16-1)]); ok {
					hits++
				}
				i++
			}
			b.ReportMetric(float64(hits)/float64(i), "hit-ratio")
		})
	}
}

// BenchmarkLookup1MRatio times the lookups of BenchmarkLookup1M in
// alternating rounds of netsim and bart (40 rounds of 50 000 each), so that
// a shared machine's load weighs on both alike, and reports each one's ns
// per lookup and their ratio.
func BenchmarkLookup1MRatio(b *testing.B) {
	bigTables(b)
	main := bigFIB.f.Table(TableMain)
	for _, set := range []struct {
		name  string
		addrs []netip.Addr
	}{{"random", bigAddrs}, {"hits", bigHits}} {
		b.Run(set.name, func(b *testing.B) {
			const rounds, per = 40, 50000
			var tf, tb time.Duration
			hits := 0
			for b.Loop() {
				tf, tb = 0, 0
				for round := range rounds {
					t0 := time.Now()
					for i := range per {
						if _, err := main.lookup(nil, Flow{Dst: set.addrs[(round*per+i)&(1<<16-1)]}); err == nil {
							hits++
						}
					}
					t1 := time.Now()
					for i := range per {
						if _, ok := bigBart.Lookup(set.addrs[(round*per+i)&(1<<16-1)]); ok {
							hits++
						}
					}
					tf += t1.Sub(t0)
					tb += time.Since(t1)
				}
			}
			main.f.work = trieWork{}
			b.ReportMetric(float64(tf.Nanoseconds())/(rounds*per), "fib-ns/lookup")
			b.ReportMetric(float64(tb.Nanoseconds())/(rounds*per), "bart-ns/lookup")
			b.ReportMetric(float64(tf)/float64(tb), "fib/bart")
		})
	}
}

// BenchmarkLookup1MSummaries times lookup against lookupRef, the same
// algorithm reading every leaf it examines (no slot summaries), and bart,
// in alternating rounds as BenchmarkLookup1MRatio does.
func BenchmarkLookup1MSummaries(b *testing.B) {
	bigTables(b)
	main := bigFIB.f.Table(TableMain)
	for _, set := range []struct {
		name  string
		addrs []netip.Addr
	}{{"random", bigAddrs}, {"hits", bigHits}} {
		b.Run(set.name, func(b *testing.B) {
			const rounds, per = 40, 50000
			var tr, tf, tb time.Duration
			for b.Loop() {
				for round := range rounds {
					t0 := time.Now()
					for i := range per {
						main.lookupRef(Flow{Dst: set.addrs[(round*per+i)&(1<<16-1)]})
					}
					t1 := time.Now()
					for i := range per {
						main.lookup(nil, Flow{Dst: set.addrs[(round*per+i)&(1<<16-1)]})
					}
					t2 := time.Now()
					for i := range per {
						bigBart.Lookup(set.addrs[(round*per+i)&(1<<16-1)])
					}
					tr += t1.Sub(t0)
					tf += t2.Sub(t1)
					tb += time.Since(t2)
				}
			}
			main.f.work = trieWork{}
			b.ReportMetric(float64(tr)/float64(tb), "ref/bart")
			b.ReportMetric(float64(tf)/float64(tb), "fib/bart")
			b.ReportMetric(float64(tf)/float64(tr), "fib/ref")
		})
	}
}

// BenchmarkLookupCached is BenchmarkLookup1M's random addresses on a table
// of 4 000 prefixes, which stays in the cache: a lookup's work without the
// misses.
func BenchmarkLookupCached(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	ps := internetLike(r, 4000)
	e := newEnv(b, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	bt := new(bart.Table[int])
	for i, p := range ps {
		if err := e.f.Add(nil, Route{Dst: p, Gateway: netip.MustParseAddr("198.51.100.2"), Protocol: ProtoBoot}, rt.ModeAdd); err != nil {
			b.Fatal(err)
		}
		bt.Insert(p, i)
	}
	addrs := make([]netip.Addr, 1024)
	for i := range addrs {
		addrs[i] = addrFrom4(r.Uint32())
	}
	main := e.f.Table(TableMain)
	b.Run("fib", func(b *testing.B) {
		i := 0
		for b.Loop() {
			main.lookup(nil, Flow{Dst: addrs[i&1023]})
			i++
		}
		main.f.work = trieWork{}
	})
	b.Run("bart", func(b *testing.B) {
		i := 0
		for b.Loop() {
			bt.Lookup(addrs[i&1023])
			i++
		}
	})
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkMemory1M measures the heap one million routes sharing 16
// gateways take, per route, next to what the kernel's trie of the same
// shape takes (leaves, fib_aliases, tnodes and their pointer arrays; the
// fib_infos are shared in both) and what bart takes; counted-B/route is the
// same FIB with counted flushes on, which index every fib_info's routes.
func BenchmarkMemory1M(b *testing.B) {
	const n = 1 << 20
	r := rand.New(rand.NewPCG(9, 10))
	ps := internetLike(r, n)
	gws := make([]netip.Addr, 16)
	for i := range gws {
		gws[i] = addrFrom4(0xc6336400 | uint32(2+i))
	}
	var perRoute, counted, kernel, bartPer float64
	for b.Loop() {
		for _, cw := range []bool{false, true} {
			e := benchEnv(b, nexthop.FlushDeferred)
			e.f.SetCountedWalks(cw)
			before := heapInUse()
			for i, p := range ps {
				if err := e.f.Add(nil, Route{Dst: p, Gateway: gws[i%16], Protocol: ProtoBoot}, rt.ModeAdd); err != nil {
					b.Fatal(err)
				}
			}
			after := heapInUse()
			if cw {
				counted = float64(after-before) / n
			} else {
				perRoute = float64(after-before) / n
			}
			st := e.f.Table(TableMain).Stats()
			kernel = float64(st.KernelBytes()) / float64(st.Prefixes)
			runtime.KeepAlive(e)
		}

		before := heapInUse()
		bt := new(bart.Table[int])
		for i, p := range ps {
			bt.Insert(p, i)
		}
		after := heapInUse()
		bartPer = float64(after-before) / n
		runtime.KeepAlive(bt)
	}
	b.ReportMetric(perRoute, "B/route")
	b.ReportMetric(counted, "counted-B/route")
	b.ReportMetric(kernel, "kernel-B/route")
	b.ReportMetric(bartPer, "bart-B/route")
}

// Example-sized check that the big table answers like the reference model
// would for a few addresses (guards the benchmark's meaning).
func TestBigTableSample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 100k table")
	}
	r := rand.New(rand.NewPCG(11, 12))
	ps := internetLike(r, 100000)
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	bt := new(bart.Table[netip.Prefix])
	for _, p := range ps {
		if err := e.f.Add(nil, Route{Dst: p, Gateway: netip.MustParseAddr("198.51.100.2"), Protocol: ProtoBoot}, rt.ModeAdd); err != nil {
			t.Fatal(err)
		}
		bt.Insert(p, p)
	}
	bt.Insert(netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("198.51.100.0/24"))
	main := e.f.Table(TableMain)
	for range 100000 {
		a := addrFrom4(r.Uint32())
		res, err := main.Lookup(nil, Flow{Dst: a})
		want, ok := bt.Lookup(a)
		if a == netip.MustParseAddr("198.51.100.1") || a == netip.MustParseAddr("198.51.100.255") {
			continue // local and broadcast routes, which bart does not have
		}
		if ok != (err == nil) || ok && res.Prefix != want {
			t.Fatalf("%v: fib %v %v, bart %v %v", a, res.Prefix, err, want, ok)
		}
	}
	if err := e.f.check(); err != nil {
		t.Fatal(err)
	}
}
