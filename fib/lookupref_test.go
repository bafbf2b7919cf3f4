package fib

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
)

// lookupRef is fib_table_lookup read straight: every node and leaf it
// examines is loaded, none passed over on its slot's summary. lookup must
// give its answer and charge its work.
func (tb *Table) lookupRef(fl Flow) (Result, error) {
	tr := tb.t
	w := tr.work
	key := addr4(fl.Dst)
	var pn, cindex uint32
	n := tr.kid(&tr.tn[0], 0)
	if n == 0 {
		return Result{}, errAgain
	}
	var ok bool
	var res Result
	atLeaf := false
	for {
		if n.isLeaf() {
			atLeaf = tr.lf[n.idx()].key == key
			break
		}
		w.nodes++
		tn := &tr.tn[n.idx()]
		index := (key ^ tn.key) >> tn.pos
		if index>>tn.bits != 0 {
			break
		}
		if tn.slen > tn.pos {
			pn, cindex = n.idx(), index
		}
		n = tr.kid(tn, index)
		if n == 0 {
			if n, _, _, ok = tr.backtrack(&pn, &cindex); !ok {
				return Result{}, errAgain
			}
			break
		}
	}
	for {
		if !atLeaf {
			var nkey uint32
			var nslen, npos uint8
			if n.isLeaf() {
				l := &tr.lf[n.idx()]
				nkey, nslen = l.key, l.slen
			} else {
				w.nodes++
				tn := &tr.tn[n.idx()]
				nkey, nslen, npos = tn.key, tn.slen, tn.pos
			}
			if prefixMismatch(key, nkey) != 0 || nslen == npos {
				if n, _, _, ok = tr.backtrack(&pn, &cindex); !ok {
					return Result{}, errAgain
				}
				continue
			}
			if !n.isLeaf() {
				n = tr.kid(&tr.tn[n.idx()], 0)
				if n == 0 {
					if n, _, _, ok = tr.backtrack(&pn, &cindex); !ok {
						return Result{}, errAgain
					}
				}
				continue
			}
		}
		atLeaf = false
		if hit, err := tb.leafLookup(n.idx(), key, &fl, &res); hit {
			return res, err
		}
		if n, _, _, ok = tr.backtrack(&pn, &cindex); !ok {
			return Result{}, errAgain
		}
	}
}

// sameLookup reports how tb.lookup and lookupRef differ for fl, in answer
// or in work charged ("" when they agree). Neither's work stays charged.
func sameLookup(tb *Table, fl Flow) string {
	w := tb.t.work
	saved := *w
	*w = trieWork{}
	res, err := tb.lookup(nil, fl)
	got := *w
	*w = trieWork{}
	wres, werr := tb.lookupRef(fl)
	want := *w
	*w = saved
	switch {
	case res != wres || errno.Of(err) != errno.Of(werr):
		return "answer " + res.Prefix.String() + " " + errString(err) + ", reference " + wres.Prefix.String() + " " + errString(werr)
	case got != want:
		return "work differs"
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// TestLookupSummaries compares lookup with lookupRef on a 100 000-prefix
// table where many prefixes share a leaf (several lengths, TOS values,
// metrics and tables) and some routes' paths are dead, for random
// addresses and addresses inside the prefixes, with and without TOS and
// scope, as routes come and go.
func TestLookupSummaries(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	lookupSummaries(t, n)
}

// TestLookupSummariesPartial is TestLookupSummaries with leaves past the
// 500th given refs without summaries, as a trie of more than 8M leaves has.
func TestLookupSummariesPartial(t *testing.T) {
	defer func(m uint32) { sumIdxMax = m }(sumIdxMax)
	sumIdxMax = 500
	lookupSummaries(t, 10000)
}

func lookupSummaries(t *testing.T, n int) {
	r := rand.New(rand.NewPCG(21, 22))
	e := newEnv(t, nexthop.FlushDeferred)
	e.mustIP(setupLines()...)
	e.mustIP("link add vethC type veth peer name vethD", "link set vethC up", "link set vethD up",
		"addr add 192.0.2.1/24 dev vethC")
	ps := internetLike(r, n)
	gws := []netip.Addr{netip.MustParseAddr("198.51.100.2"), netip.MustParseAddr("192.0.2.2")}
	add := func(i int, p netip.Prefix) {
		rt4 := Route{Dst: p, Gateway: gws[i%2], Protocol: ProtoBoot}
		switch r.IntN(8) {
		case 0:
			rt4.TOS = 0x10
		case 1:
			rt4.Priority = uint32(r.IntN(3))
		case 2:
			rt4.Table = 100
		}
		mode := rt.ModeAdd
		if r.IntN(2) == 0 {
			mode = rt.ModeAppend
		}
		_ = e.f.Add(nil, rt4, mode) // a duplicate is refused, which is all right
	}
	for i, p := range ps {
		add(i, p)
		// Shorter and longer prefixes on the same key, some of them.
		if r.IntN(4) == 0 {
			add(i, netip.PrefixFrom(p.Addr(), max(p.Bits()-1-r.IntN(4), 0)).Masked())
			add(i, netip.PrefixFrom(p.Addr(), min(p.Bits()+1+r.IntN(8), 32)))
		}
	}
	probe := func(round int) {
		t.Helper()
		for _, id := range []uint32{TableMain, 100} {
			tb := e.f.Table(id)
			for i := range 20000 {
				var a uint32
				if i%2 == 0 {
					a = r.Uint32()
				} else {
					p := ps[r.IntN(len(ps))]
					a = addr4(p.Addr()) | r.Uint32()&^mask(p.Bits())
				}
				fl := Flow{Dst: addrFrom4(a)}
				if r.IntN(4) == 0 {
					fl.TOS = 0x10
				}
				if r.IntN(8) == 0 {
					fl.Scope = ScopeLink
				}
				if r.IntN(8) == 0 {
					fl.OIF = e.dev("vethC").Index()
				}
				if d := sameLookup(tb, fl); d != "" {
					t.Fatalf("round %d, table %d, %v: %s", round, id, fl, d)
				}
			}
		}
	}
	t.Logf("%d routes", e.f.Len())
	probe(0)
	// Remove a third of the prefixes, then take vethC down: its routes
	// die and go.
	for i, p := range ps {
		if i%3 == 0 {
			_ = e.f.Del(nil, Route{Dst: p})
		}
	}
	probe(1)
	e.mustIP("link set vethC down")
	probe(2)
	if err := e.f.check(); err != nil {
		t.Fatal(err)
	}
}
