package fib6

import (
	"math/rand/v2"
	"net/netip"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gaissmai/bart"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// benchPrefixes returns n distinct IPv6 prefixes shaped like a large
// table: /16 to /128, most between /32 and /64, under a few thousand /32s.
func benchPrefixes(r *rand.Rand, n int) []netip.Prefix {
	lens := []int{16, 24, 28, 29, 32, 32, 32, 36, 40, 44, 48, 48, 48, 48, 48, 56, 56, 60, 64, 64, 64, 96, 112, 127, 128}
	tops := make([]uint32, 4096)
	for i := range tops {
		tops[i] = 0x20000000 | r.Uint32()&0x0fffffff
	}
	seen := make(map[netip.Prefix]struct{}, n)
	out := make([]netip.Prefix, 0, n)
	for len(out) < n {
		var a [16]byte
		t := tops[r.IntN(len(tops))]
		a[0], a[1], a[2], a[3] = byte(t>>24), byte(t>>16), byte(t>>8), byte(t)
		for i := 4; i < 16; i++ {
			a[i] = byte(r.Uint32())
		}
		p, _ := netip.AddrFrom16(a).Prefix(lens[r.IntN(len(lens))])
		if _, ok := seen[p]; ok {
			continue
		}
		seen[p] = struct{}{}
		out = append(out, p)
	}
	return out
}

func prefixKey(p netip.Prefix) key {
	return key{addr: p.Addr().As16(), plen: uint8(p.Bits())}
}

// addReject adds a reject route for p to tb as ip6_route_add does, without
// a device (the null entry's way).
func addReject(t *sim.Task, tb *Table, p netip.Prefix) error {
	ri := newInfo()
	ri.dst = prefixKey(p)
	ri.metric = 1024
	ri.flags = rtfReject | rtfNonexthop
	err := tb.add(t, ri, rt.ModeAdd)
	tb.fib.release(t, ri)
	return err
}

var (
	big1MOnce   sync.Once
	big1M       *FIB
	big1MTask   *sim.Task
	big1MBart   *bart.Table[int]
	big1MRandom []netip.Addr
	big1MHits   []netip.Addr
)

func big1MTables(b *testing.B) {
	big1MOnce.Do(func() {
		r := rand.New(rand.NewPCG(15, 16))
		ps := benchPrefixes(r, 1<<20)
		w := sim.MustNewWorld(sim.Options{})
		big1M, big1MTask = newFIB(w, nil), w.NewTask("bench")
		big1MBart = new(bart.Table[int])
		for i, p := range ps {
			if err := addReject(big1MTask, big1M.main, p); err != nil {
				b.Fatal(err)
			}
			big1MBart.Insert(p, i)
		}
		for range 1 << 16 {
			var a [16]byte
			for i := range a {
				a[i] = byte(r.Uint32())
			}
			a[0] = 0x20 | a[0]&0x0f
			big1MRandom = append(big1MRandom, netip.AddrFrom16(a))
		}
		for range 1 << 16 {
			p := ps[r.IntN(len(ps))]
			a := p.Addr().As16()
			for i := p.Bits(); i < 128; i++ {
				if r.IntN(2) == 1 {
					a[i>>3] |= 0x80 >> (i & 7)
				}
			}
			big1MHits = append(big1MHits, netip.AddrFrom16(a))
		}
	})
}

// BenchmarkLookup1M compares fib6_node_lookup on a 1M-prefix table with
// gaissmai/bart on the same prefixes, for the same addresses: addresses
// inside prefixes of the table and random ones under 2000::/4.
func BenchmarkLookup1M(b *testing.B) {
	big1MTables(b)
	tb := big1M.main
	for _, set := range []struct {
		name  string
		addrs []netip.Addr
	}{{"hits", big1MHits}, {"random", big1MRandom}} {
		keys := make([][16]byte, len(set.addrs))
		for i, a := range set.addrs {
			keys[i] = a.As16()
		}
		b.Run("fib6/"+set.name, func(b *testing.B) {
			i, hits := 0, 0
			for b.Loop() {
				if fn := tb.nodeLookup(keys[i&(1<<16-1)], [16]byte{}); fn != &tb.root {
					hits++
				}
				i++
			}
			b.ReportMetric(float64(hits)/float64(i), "hit-ratio")
		})
		b.Run("bart/"+set.name, func(b *testing.B) {
			i, hits := 0, 0
			for b.Loop() {
				if _, ok := big1MBart.Lookup(set.addrs[i&(1<<16-1)]); ok {
					hits++
				}
				i++
			}
			b.ReportMetric(float64(hits)/float64(i), "hit-ratio")
		})
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkMemory1M measures the heap a million IPv6 routes take in the
// tree, per route (fib6_infos and nodes), and reports the tree's nodes per
// route; then the heap the lookup indexes add (the jump index and the
// stride tables) once every prefix's address has been looked up often
// enough to build every table the tree would get.
func BenchmarkMemory1M(b *testing.B) {
	const n = 1 << 20
	ps := benchPrefixes(rand.New(rand.NewPCG(17, 18)), n)
	var perRoute, nodes, index float64
	for b.Loop() {
		w := sim.MustNewWorld(sim.Options{})
		t := w.NewTask("bench")
		before := heapInUse()
		f := newFIB(w, nil)
		for _, p := range ps {
			if err := addReject(t, f.main, p); err != nil {
				b.Fatal(err)
			}
		}
		after := heapInUse()
		perRoute = float64(after-before) / n
		nodes = float64(f.stats.FibNodes) / n
		for range strideVisits {
			for _, p := range ps {
				f.main.nodeLookup(p.Addr().As16(), [16]byte{})
			}
		}
		index = float64(heapInUse()-after) / n
		runtime.KeepAlive(f)
	}
	b.ReportMetric(perRoute, "B/route")
	b.ReportMetric(nodes, "nodes/route")
	b.ReportMetric(index, "index-B/route")
}

// BenchmarkCleanAll100k is a full fib6_clean_all over 100 000 routes whose
// callback keeps every route (rt6_sync_down_dev for a device that has
// none of them).
func BenchmarkCleanAll100k(b *testing.B) {
	const n = 100000
	ps := benchPrefixes(rand.New(rand.NewPCG(19, 20)), n)
	w := sim.MustNewWorld(sim.Options{})
	t := w.NewTask("bench")
	f := newFIB(w, nil)
	for _, p := range ps {
		if err := addReject(t, f.main, p); err != nil {
			b.Fatal(err)
		}
	}
	visited := 0
	for b.Loop() {
		f.cleanAll(t, func(rt *Info) int { visited++; return 0 })
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(visited), "ns/route")
}

// BenchmarkLookup1MRatio times the lookups of BenchmarkLookup1M in
// alternating rounds of fib6 and bart (40 rounds of 50 000 each), so that
// a shared machine's load weighs on both alike, and reports each one's
// ns per lookup and their ratio.
func BenchmarkLookup1MRatio(b *testing.B) {
	big1MTables(b)
	tb := big1M.main
	for _, set := range []struct {
		name  string
		addrs []netip.Addr
	}{{"hits", big1MHits}, {"random", big1MRandom}} {
		keys := make([][16]byte, len(set.addrs))
		for i, a := range set.addrs {
			keys[i] = a.As16()
		}
		b.Run(set.name, func(b *testing.B) {
			const rounds, per = 40, 50000
			var tf, tb6 time.Duration
			hits := 0
			for b.Loop() {
				tf, tb6 = 0, 0
				for round := range rounds {
					t0 := time.Now()
					for i := range per {
						if tb.nodeLookup(keys[(round*per+i)&(1<<16-1)], [16]byte{}) != &tb.root {
							hits++
						}
					}
					t1 := time.Now()
					for i := range per {
						if _, ok := big1MBart.Lookup(set.addrs[(round*per+i)&(1<<16-1)]); ok {
							hits++
						}
					}
					tf += t1.Sub(t0)
					tb6 += time.Since(t1)
				}
			}
			b.ReportMetric(float64(tf.Nanoseconds())/(rounds*per), "fib6-ns/lookup")
			b.ReportMetric(float64(tb6.Nanoseconds())/(rounds*per), "bart-ns/lookup")
			b.ReportMetric(float64(tf)/float64(tb6), "fib6/bart")
			b.ReportMetric(float64(len(big1M.tree.stride.entries)*8)/float64(1<<20), "stride-B/route")
		})
	}
}

// BenchmarkLookup1MChurn looks up addresses inside the prefixes of the
// 1M-prefix table while routes come and go near them between the lookups:
// each iteration adds a route, looks up an address, deletes the route and
// looks up another, so that the index entries the changes make stale are
// refilled only as the lookups ask for them. The routes are /40 to /64
// (near: nodes under the /32s change, which the stride tables read) or
// /10 to /16 (short: nodes the jump index reads change). It reports ns
// per iteration.
func BenchmarkLookup1MChurn(b *testing.B) {
	big1MTables(b)
	tb := big1M.main
	keys := make([][16]byte, len(big1MHits))
	for i, a := range big1MHits {
		keys[i] = a.As16()
	}
	for _, set := range []struct {
		name      string
		min, lens int
	}{{"near", 40, 25}, {"short", 10, 7}} {
		r := rand.New(rand.NewPCG(21, 22))
		ps := make([]netip.Prefix, 1<<12)
		for i := range ps {
			ps[i], _ = big1MHits[r.IntN(len(big1MHits))].Prefix(set.min + r.IntN(set.lens))
		}
		b.Run(set.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				p := ps[i&(len(ps)-1)]
				err := addReject(big1MTask, tb, p)
				tb.nodeLookup(keys[(2*i)&(1<<16-1)], [16]byte{})
				if err == nil {
					fn := tb.locate(prefixKey(p), key{}, true)
					if err := big1M.del(big1MTask, fn.leaf); err != nil {
						b.Fatal(err)
					}
				}
				tb.nodeLookup(keys[(2*i+1)&(1<<16-1)], [16]byte{})
				i++
			}
		})
	}
}
