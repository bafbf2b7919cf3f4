package fib6

import (
	"errors"
	"fmt"
	"slices"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/rt"
)

// The reference model: per (table, dst, src) the list of routes in leaf
// order, with the semantics of fib6_add_rt2node written plainly, and a
// lookup that picks the longest destination prefix whose source routes (if
// any) match the source.

type mKey struct {
	table uint32
	dst   key
	src   key
}

type mRoute struct {
	metric uint32
	gw     int // -1: a reject route through lo
	dev    string
}

func (r mRoute) ecmp() bool { return r.gw >= 0 }

type model struct {
	lists map[mKey][]mRoute
}

var fuzzGWs = []string{"fe80::1", "fe80::2", "2001:db8::99"}

func (r mRoute) spec(k mKey) routeSpec {
	s := routeSpec{metric: r.metric, table: k.table, dev: r.dev}
	s.dst = prefixString(k.dst)
	s.src = prefixString(k.src)
	if r.gw >= 0 {
		s.gw = fuzzGWs[r.gw]
	}
	return s
}

func prefixString(k key) string {
	if k.plen == 0 && k.addr == ([16]byte{}) {
		return ""
	}
	return fmt.Sprintf("%s/%d", addrString(k.addr), k.plen)
}

func addrString(a [16]byte) string {
	return fmt.Sprintf("%x:%x:%x:%x:%x:%x:%x:%x",
		uint16(a[0])<<8|uint16(a[1]), uint16(a[2])<<8|uint16(a[3]), uint16(a[4])<<8|uint16(a[5]), uint16(a[6])<<8|uint16(a[7]),
		uint16(a[8])<<8|uint16(a[9]), uint16(a[10])<<8|uint16(a[11]), uint16(a[12])<<8|uint16(a[13]), uint16(a[14])<<8|uint16(a[15]))
}

func (m *model) add(k mKey, r mRoute, mode rt.NLMFlags) syscall.Errno {
	l := m.lists[k]
	replace := mode&rt.NLMReplace != 0
	create := mode == 0 || mode&rt.NLMCreate != 0
	found, fallback := -1, -1
	pos := len(l)
	for i, e := range l {
		if e.metric == r.metric {
			if mode&rt.NLMExcl != 0 {
				return syscall.EEXIST
			}
			if replace {
				if e.ecmp() == r.ecmp() {
					found = i
					break
				}
				if fallback < 0 {
					fallback = i
				}
				continue
			}
			if e.gw == r.gw && e.dev == r.dev {
				return syscall.EEXIST
			}
		}
		if e.metric > r.metric {
			pos = i
			break
		}
	}
	if replace && found < 0 {
		found = fallback
	}
	if !replace || found < 0 {
		if replace && !create {
			return syscall.ENOENT
		}
		m.lists[k] = slices.Insert(l, pos, r)
		return 0
	}
	old := l[found]
	wasMultipath := old.ecmp() && m.groupSize(l, old.metric) > 1
	l[found] = r
	if wasMultipath {
		out := l[:found+1]
		for _, e := range l[found+1:] {
			if e.metric == r.metric && e.ecmp() {
				continue
			}
			out = append(out, e)
		}
		l = out
	}
	m.lists[k] = l
	return 0
}

func (m *model) groupSize(l []mRoute, metric uint32) int {
	n := 0
	for _, e := range l {
		if e.metric == metric && e.ecmp() {
			n++
		}
	}
	return n
}

func (m *model) hasSrcRoutes(table uint32, dst key) bool {
	for k, l := range m.lists {
		if k.table == table && k.dst == dst && k.src.plen != 0 && len(l) > 0 {
			return true
		}
	}
	return false
}

// del deletes the first route of the list fib6_locate finds that matches
// the metric and gateway given (0 and -2: any).
func (m *model) del(k mKey, metric uint32, gw int) bool {
	if k.src.plen != 0 && !m.hasSrcRoutes(k.table, k.dst) {
		k.src = key{}
	}
	l := m.lists[k]
	for i, e := range l {
		if metric != 0 && e.metric != metric {
			continue
		}
		if gw != -2 && e.gw != gw {
			continue
		}
		l = slices.Delete(l, i, i+1)
		if len(l) == 0 {
			delete(m.lists, k)
		} else {
			m.lists[k] = l
		}
		return true
	}
	return false
}

// lookup returns the key whose routes a lookup of (d, s) in table finds,
// and false for the table's empty root.
//
// One thing of the tree's shape shows through: a destination node holding
// only source-specific routes is tried only if the route standing as its
// leaf (which after deletions may be a route further down) matches the
// destination; holderMatches answers that from the tree.
func (m *model) lookup(table uint32, d, s [16]byte, holderMatches func(dst key) bool) (mKey, bool) {
	best := -1
	var bestKey mKey
	for plen := 128; plen >= 0 && best < 0; plen-- {
		dk := key{addr: maskAddr(d, plen), plen: uint8(plen)}
		if m.hasSrcRoutes(table, dk) {
			if !holderMatches(dk) {
				continue
			}
			for sl := 128; sl >= 1; sl-- {
				sk := mKey{table, dk, key{addr: maskAddr(s, sl), plen: uint8(sl)}}
				if len(m.lists[sk]) > 0 {
					best, bestKey = plen, sk
					break
				}
			}
			continue
		}
		if plen == 0 {
			break
		}
		if k := (mKey{table, dk, key{}}); len(m.lists[k]) > 0 {
			best, bestKey = plen, k
		}
	}
	if best >= 0 {
		return bestKey, true
	}
	// The root: its own routes, if any.
	k := mKey{table: table}
	return k, len(m.lists[k]) > 0
}

func maskAddr(a [16]byte, plen int) [16]byte {
	var out [16]byte
	for i := 0; i < 16; i++ {
		switch {
		case plen >= (i+1)*8:
			out[i] = a[i]
		case plen > i*8:
			out[i] = a[i] & byte(0xff<<(8-(plen-i*8)))
		}
	}
	return out
}

// compare checks that the tree holds exactly the model's routes, in order,
// with the model's sibling groups.
func compareModel(e *treeEnv, m *model) error {
	got := map[mKey][]mRoute{}
	var err error
	for _, id := range []uint32{tableMain, 100} {
		tb := e.f.getTable(id)
		if tb == nil {
			continue
		}
		tb.eachRoute(func(rt *Info) {
			if rt == e.f.nullEntry {
				return
			}
			k := mKey{id, rt.dst, rt.src}
			r := mRoute{metric: rt.metric, gw: -1}
			if rt.fnh.hasGW {
				r.gw = slices.IndexFunc(fuzzGWs, func(s string) bool { return mustAddr16(s) == rt.fnh.gw })
				r.dev = rt.fnh.dev.Name()
			}
			got[k] = append(got[k], r)
			want := 0
			if r.ecmp() {
				want = m.groupSize(m.lists[k], r.metric) - 1
			}
			if rt.nsiblings != want && err == nil {
				err = fmt.Errorf("%v metric %d: nsiblings %d, model %d", k, r.metric, rt.nsiblings, want)
			}
		})
	}
	if err != nil {
		return err
	}
	for k, l := range m.lists {
		if !slices.Equal(l, got[k]) {
			return fmt.Errorf("%v: tree %v, model %v", k, got[k], l)
		}
	}
	for k, l := range got {
		if !slices.Equal(l, m.lists[k]) {
			return fmt.Errorf("%v: tree %v, model %v", k, l, m.lists[k])
		}
	}
	return nil
}

var fuzzBases = [][16]byte{
	mustAddr16("2001:db8::"),
	mustAddr16("2001:db8:8000::1:0"),
	mustAddr16("2001:db9:ff00::ffff"),
	mustAddr16("fe80::"),
}

func mustAddr16(s string) [16]byte {
	p := mustKey(s + "/128")
	return p.addr
}

type fuzzReader struct {
	b []byte
	i int
}

func (r *fuzzReader) next() byte {
	if r.i >= len(r.b) {
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *fuzzReader) addr() [16]byte {
	a := fuzzBases[r.next()%byte(len(fuzzBases))]
	if c := r.next(); c&1 != 0 {
		a[(c>>1)%16] ^= c | 1
	}
	return a
}

// runModelOps applies the operations data encodes to a tree and to the
// model, comparing them after each step; counted turns on the counted
// walks' index, which checkTree then verifies too.
func runModelOps(t *testing.T, data []byte, counted bool) {
	e := newTreeEnv(t)
	e.f.SetCountedWalks(counted)
	e.f.newTable(100)
	m := &model{lists: map[mKey][]mRoute{}}
	r := &fuzzReader{b: data}
	modes := []rt.NLMFlags{rt.ModeAdd, rt.ModeAppend, rt.ModePrepend, rt.ModeReplace, rt.ModeChange, 0}
	metrics := []uint32{1024, 1024, 1, 2048}
	for step := 0; r.i < len(data); step++ {
		op := r.next()
		table := uint32(tableMain)
		if op&0x80 != 0 {
			table = 100
		}
		dplen := int(r.next()) % 129
		dst := key{addr: maskAddr(r.addr(), dplen), plen: uint8(dplen)}
		var src key
		if c := r.next(); c%4 == 0 {
			splen := 1 + int(c>>2)%128
			src = key{addr: maskAddr(r.addr(), splen), plen: uint8(splen)}
		}
		k := mKey{table, dst, src}
		nhc := r.next()
		rt := mRoute{metric: metrics[nhc%4], gw: -1}
		if g := int(nhc>>2) % 5; g < 3 {
			rt.gw = g
			rt.dev = []string{"d0", "d1"}[nhc>>5&1]
		}
		var desc string
		switch op & 0x7f % 8 {
		case 0, 1, 2, 3, 4:
			mode := modes[int(op>>3)%len(modes)]
			desc = fmt.Sprintf("add %v %+v mode %#x", k, rt, mode)
			werr := m.add(k, rt, mode)
			err := e.add(rt.spec(k), mode)
			var got syscall.Errno
			if err != nil {
				var en *errno.Error
				if !errors.As(err, &en) {
					t.Fatalf("step %d %s: error %v", step, desc, err)
				}
				got = en.Errno
			}
			if got != werr {
				t.Fatalf("step %d %s: errno %v, model %v", step, desc, got, werr)
			}
		case 5, 6:
			metric := uint32(0)
			if op&8 != 0 {
				metric = rt.metric
			}
			gw := -2
			if op&16 != 0 {
				gw = rt.gw
			}
			desc = fmt.Sprintf("del %v metric %d gw %d", k, metric, gw)
			want := m.del(k, metric, gw)
			s := rt.spec(k)
			s.metric, s.gw = metric, ""
			if gw >= 0 {
				s.gw = fuzzGWs[gw]
			}
			ok := e.delMatch(s, gw == -1)
			if ok != want {
				t.Fatalf("step %d %s: deleted %v, model %v", step, desc, ok, want)
			}
		case 7:
			d, s := r.addr(), r.addr()
			desc = fmt.Sprintf("lookup %x from %x", d, s)
			tb := e.f.getTable(table)
			wk, wok := m.lookup(table, d, s, func(dk key) bool {
				fn := locate1(&tb.root, &dk.addr, int(dk.plen), false, true)
				return fn != nil && fn.leaf != nil && prefixEqual(&fn.leaf.dst.addr, &d, int(fn.leaf.dst.plen))
			})
			fn := tb.nodeLookup(d, s)
			// The descent from the root and from the table's jump index
			// (built whatever the tree's size) find the same node.
			fr := tb.fib.nodeLookupFrom(&tb.root, &d, &s, false)
			if fr == nil {
				fr = &tb.root
			}
			if fn != fr {
				t.Fatalf("step %d %s: lookup from the jump index %p, from the root %p", step, desc, fn, fr)
			}
			min := jumpMinNodes
			jumpMinNodes = 0
			fj := tb.nodeLookup(d, s)
			jumpMinNodes = min
			if fj != fn {
				t.Fatalf("step %d %s: lookup with the jump index %p, without %p", step, desc, fj, fn)
			}
			gk, gok := mKey{}, false
			if fn.leaf != nil && fn.leaf != e.f.nullEntry && fn.flags&rtnRTInfo != 0 {
				gk, gok = mKey{table, fn.leaf.dst, fn.leaf.src}, true
			}
			if gok != wok || (gok && gk != wk) {
				t.Fatalf("step %d %s: tree %v %v, model %v %v", step, desc, gk, gok, wk, wok)
			}
		}
		if testing.Verbose() {
			t.Logf("step %d %s", step, desc)
		}
		if err := e.f.checkTree(); err != nil {
			t.Fatalf("step %d %s: %v", step, desc, err)
		}
		if err := compareModel(e, m); err != nil {
			t.Fatalf("step %d %s: %v", step, desc, err)
		}
	}
	// Everything deleted through cleanAll leaves the empty trees.
	e.f.cleanAll(e.t, func(rt *Info) int { return -1 })
	if err := e.f.checkTree(); err != nil {
		t.Fatal(err)
	}
	e.w.Settle()
	if got := e.f.rt6Stats(); got[:20] != "0000 0000 0000 0000 " {
		t.Fatalf("after flushing everything: %s", got)
	}
}

// FuzzTree applies random add/append/prepend/replace/change/del sequences
// and lookups to the tree and to the reference model.
func FuzzTree(f *testing.F) {
	f.Add([]byte{0, 32, 0, 0, 1, 0, 0, 48, 0, 0, 1, 0, 5, 48, 0, 0, 1, 0})
	f.Add([]byte{0, 64, 1, 0, 4, 1, 0, 0, 64, 1, 0, 4, 1, 2, 0x18, 64, 1, 0, 4, 0, 7, 0, 1, 0, 1, 0, 0, 0})
	f.Add([]byte{0, 48, 0, 0, 0, 8, 1, 0, 1, 0, 7, 48, 0, 0, 0, 8, 1, 0, 1, 0, 5, 48, 0, 0, 0, 8, 1, 0, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		runModelOps(t, data, false)
		runModelOps(t, data, true)
	})
}
