package fib6

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/sim"
)

// TestJumpIndexSameNode checks that lookups through a table's jump index
// find the node the plain descent from the root finds, while routes of every
// length (/0 to /128, many of them at most jumpBits long) come and go.
func TestJumpIndexSameNode(t *testing.T) {
	min := jumpMinNodes
	jumpMinNodes = 0
	defer func() { jumpMinNodes = min }()

	r := rand.New(rand.NewPCG(1, 2))
	w := sim.MustNewWorld(sim.Options{})
	task := w.NewTask("test")
	f := newFIB(w, nil)
	tb := f.main
	randAddr := func() [16]byte {
		var a [16]byte
		for i := range a {
			a[i] = byte(r.Uint32())
		}
		// Mostly under a few /8s, so that short prefixes cover the others.
		if r.IntN(8) != 0 {
			a[0] = []byte{0x20, 0x2a, 0xfe}[r.IntN(3)]
		}
		return a
	}
	var ps []netip.Prefix
	check := func() {
		for range 2000 {
			d := randAddr()
			if r.IntN(2) == 0 && len(ps) > 0 {
				p := ps[r.IntN(len(ps))]
				d = p.Addr().As16()
				d[15] ^= byte(r.Uint32())
			}
			require.Same(t, plainNodeLookup(tb, d, [16]byte{}), tb.nodeLookup(d, [16]byte{}), "lookup %x", d)
		}
	}
	for round := range 6 {
		for range 3000 {
			a := randAddr()
			bits := r.IntN(129)
			if r.IntN(3) == 0 {
				bits = r.IntN(jumpBits + 2)
			}
			p, _ := netip.AddrFrom16(a).Prefix(bits)
			if addReject(task, tb, p) == nil {
				ps = append(ps, p)
			}
		}
		check()
		// Delete a third, then check again.
		r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		n := len(ps) / 3
		for _, p := range ps[:n] {
			k := prefixKey(p)
			fn := tb.locate(k, key{}, true)
			require.NotNil(t, fn, "round %d: %v", round, p)
			require.NoError(t, f.del(task, fn.leaf))
		}
		ps = ps[n:]
		check()
		require.NoError(t, f.checkTree())
	}
	require.NotNil(t, tb.jump)
}

// TestJumpIndexRefill checks refill on its own: with every entry of a
// stale range made wrong first, the refill of that range must give back
// what a fill of the whole tree gives, for ranges under one node, under
// two nodes (a union, as jumpDirty keeps them), a node's block with the
// value just below it, and over the whole index. A refill that starts
// below the node whose values hold the whole range leaves wrong entries
// behind.
func TestJumpIndexRefill(t *testing.T) {
	f, task := strideEnv(t, 0)
	tb := f.main
	r := rand.New(rand.NewPCG(7, 8))
	for range 4000 {
		var a [16]byte
		for i := range a {
			a[i] = byte(r.Uint32())
		}
		a[0] = []byte{0x20, 0x2a, 0xfe}[r.IntN(3)]
		p, _ := netip.AddrFrom16(a).Prefix(1 + r.IntN(jumpBits+8))
		_ = addReject(task, tb, p)
	}
	tb.nodeLookup([16]byte{}, [16]byte{})
	j := tb.jump
	require.NotNil(t, j)
	want := new(jumpIndex)
	want.fill(&tb.root, 0, 1<<jumpBits)

	// The nodes of at most jumpBits bits: the ranges jumpDirty marks.
	var nodes []*node
	var walk func(fn *node)
	walk = func(fn *node) {
		if fn == nil || int(fn.bit) > jumpBits {
			return
		}
		nodes = append(nodes, fn)
		walk(fn.left)
		walk(fn.right)
	}
	walk(&tb.root)
	require.Greater(t, len(nodes), 100)
	wrong := &node{}
	for i := range 300 {
		lo, hi := jumpRange(nodes[r.IntN(len(nodes))])
		switch {
		case i%3 == 1:
			lo2, hi2 := jumpRange(nodes[r.IntN(len(nodes))])
			lo, hi = min(lo, lo2), max(hi, hi2)
		case i%3 == 2 && lo > 0:
			// One value more, just below: the range straddles the
			// node's block, and the refill must start above it.
			lo--
		}
		if i%50 == 0 {
			lo, hi = 0, 1<<jumpBits
		}
		for v := lo; v < hi; v++ {
			j.start[v] = wrong
		}
		j.dlo, j.dhi = lo, hi
		tb.nodeLookup([16]byte{}, [16]byte{})
		require.True(t, j.dlo >= j.dhi)
		for v := lo; v < hi; v++ {
			if j.start[v] != want.start[v] {
				require.Same(t, want.start[v], j.start[v], "value %#x of the stale range %#x..%#x", v, lo, hi)
			}
		}
	}
}
