package fib6

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// plainLookup is fib6_node_lookup_1 without the jump index and the stride
// tables: the descent from root one node at a time, then the climb.
func plainLookup(f *FIB, root *node, daddr, saddr *[16]byte, src bool) *node {
	addr := daddr
	if src {
		addr = saddr
	}
	hi, lo := halves(addr)
	fn := root
	for {
		next := fn.left
		if halfBit(hi, lo, int(fn.bit)) {
			next = fn.right
		}
		if next == nil || !next.covers(hi, lo) {
			break
		}
		fn = next
	}
	for {
		if fn.flags&(rtnRTInfo|rtnSubtree) == rtnRTInfo && fn.leaf != nil {
			return fn
		}
		if fn.flags&rtnSubtree != 0 {
			if k := nodeKey(fn, src); k != nil && prefixEqual(&k.addr, addr, int(k.plen)) {
				if !src {
					if sfn := plainLookup(f, f.subtree(fn), daddr, saddr, true); sfn != nil {
						return sfn
					}
				}
			}
		}
		if fn.flags&rtnRoot != 0 {
			return nil
		}
		fn = fn.parent
	}
}

// plainNodeLookup is fib6_node_lookup through plainLookup.
func plainNodeLookup(tb *Table, dst, src [16]byte) *node {
	fn := plainLookup(tb.fib, &tb.root, &dst, &src, false)
	if fn == nil || fn.flags&rtnTLRoot != 0 {
		fn = &tb.root
	}
	return fn
}

// checkStrides verifies the stride tables: each node's table holds what a
// fill of the tree as it is gives, the slots in use are counted, and the
// free slots hold nothing.
func checkStrides(t *testing.T, f *FIB) int {
	t.Helper()
	st := &f.tree.stride
	used := map[uint32]bool{}
	var walk func(fn *node)
	walk = func(fn *node) {
		if fn == nil {
			return
		}
		if s := fn.stride; s >= strideSlot0 {
			slot := s - strideSlot0
			require.False(t, used[slot], "slot %d used twice", slot)
			used[slot] = true
			want := make([]*node, strideSize)
			b := strideFill{tab: want, base: int(fn.bit)}
			b.fill(fn, 0, strideSize, 0)
			got := st.entries[int(slot)*strideSize : int(slot+1)*strideSize]
			for v := range want {
				if want[v] != got[v] {
					require.Same(t, want[v], got[v], "node %x/%d value %d", fn.pfx, fn.bit, v)
				}
			}
		}
		walk(fn.left)
		walk(fn.right)
	}
	for _, tb := range f.tables {
		walk(&tb.root)
	}
	require.Equal(t, len(used), st.used)
	require.Equal(t, len(st.entries)/strideSize, len(used)+len(st.free))
	for _, slot := range st.free {
		require.False(t, used[slot], "slot %d free and used", slot)
		for _, e := range st.entries[int(slot)*strideSize : int(slot+1)*strideSize] {
			if e != nil {
				require.Nil(t, e, "free slot %d", slot)
			}
		}
	}
	return len(used)
}

// checkJump verifies, after a lookup through it, that tb's jump index
// holds what a fill of the tree as it is gives, and that it is listed.
func checkJump(t *testing.T, tb *Table) {
	t.Helper()
	j := tb.jump
	require.True(t, j.dlo >= j.dhi, "stale values after a lookup")
	want := new(jumpIndex)
	want.fill(&tb.root, 0, 1<<jumpBits)
	for v := range want.start {
		if want.start[v] != j.start[v] {
			require.Same(t, want.start[v], j.start[v], "value %#x", v)
		}
	}
	require.Contains(t, tb.fib.tree.jumps, tb)
}

// strideEnv is a FIB whose lookups build stride tables at once and
// wherever they can, for the tests.
func strideEnv(t *testing.T, jumpMin int) (*FIB, *sim.Task) {
	t.Helper()
	saved := []any{jumpMinNodes, strideVisits, strideMinDepth, strideNodesPerSlot}
	t.Cleanup(func() {
		jumpMinNodes = saved[0].(int)
		strideVisits = saved[1].(uint32)
		strideMinDepth = saved[2].(float64)
		strideNodesPerSlot = saved[3].(int)
	})
	jumpMinNodes = jumpMin
	strideVisits, strideMinDepth, strideNodesPerSlot = 1, 0, 1
	w := sim.MustNewWorld(sim.Options{})
	return newFIB(w, nil), w.NewTask("test")
}

// addRejectSrc adds a reject route for dst from src (a source-specific
// route when src is not /0).
func addRejectSrc(t *sim.Task, tb *Table, dst, src netip.Prefix) error {
	ri := newInfo()
	ri.dst, ri.src = prefixKey(dst), prefixKey(src)
	ri.metric = 1024
	ri.flags = rtfReject | rtfNonexthop
	err := tb.add(t, ri, rt.ModeAdd)
	tb.fib.release(t, ri)
	return err
}

// TestStrideSameNode checks, lookup by lookup, that lookups through the
// stride tables (and the jump index) find the node the plain descent
// finds, while routes of every length, some source-specific, come and go
// between the lookups; and that the tables stay what the tree gives.
func TestStrideSameNode(t *testing.T) {
	// No jump index; one always; one from 3000 nodes, which the tree
	// reaches and leaves.
	for _, jumpMin := range []int{1 << 30, 0, 3000} {
		f, task := strideEnv(t, jumpMin)
		hadJump, nlookups := false, 0
		tb := f.main
		r := rand.New(rand.NewPCG(3, 4))
		randAddr := func() [16]byte {
			var a [16]byte
			for i := range a {
				a[i] = byte(r.Uint32())
			}
			// Under a few /24s mostly, so that the tree is deep.
			if r.IntN(8) != 0 {
				a[0], a[1] = 0x20, 0x01
				a[2] = []byte{0x0d, 0xb8, 0x42}[r.IntN(3)]
				if r.IntN(2) == 0 {
					a[3] = byte(r.IntN(4))
				}
			}
			return a
		}
		type route struct{ dst, src netip.Prefix }
		var rs []route
		lookup := func() {
			d := randAddr()
			if r.IntN(2) == 0 && len(rs) > 0 {
				p := rs[r.IntN(len(rs))].dst
				d = p.Addr().As16()
				for i := p.Bits(); i < 128; i++ {
					if r.IntN(2) == 1 {
						d[i>>3] |= 0x80 >> (i & 7)
					}
				}
			}
			s := randAddr()
			if r.IntN(2) == 0 && len(rs) > 0 {
				s = rs[r.IntN(len(rs))].src.Addr().As16()
			}
			if want, got := plainNodeLookup(tb, d, s), tb.nodeLookup(d, s); want != got {
				require.Same(t, want, got, "lookup %x from %x", d, s)
			}
			if tb.jump != nil {
				hadJump = true
				if nlookups++; nlookups%64 == 0 {
					checkJump(t, tb)
				}
			}
		}
		add := func() {
			a := randAddr()
			bits := 16 + r.IntN(113)
			if r.IntN(4) == 0 {
				bits = r.IntN(129)
			}
			p, _ := netip.AddrFrom16(a).Prefix(bits)
			var src netip.Prefix
			if r.IntN(16) == 0 {
				sa := randAddr()
				src, _ = netip.AddrFrom16(sa).Prefix(r.IntN(129))
			} else {
				src = netip.PrefixFrom(netip.IPv6Unspecified(), 0)
			}
			if addRejectSrc(task, tb, p, src) == nil {
				rs = append(rs, route{p, src})
			}
		}
		del := func() {
			if len(rs) == 0 {
				return
			}
			i := r.IntN(len(rs))
			fn := tb.locate(prefixKey(rs[i].dst), prefixKey(rs[i].src), true)
			require.NotNil(t, fn, "%v from %v", rs[i].dst, rs[i].src)
			require.NoError(t, f.del(task, fn.leaf))
			rs[i] = rs[len(rs)-1]
			rs = rs[:len(rs)-1]
		}
		built := 0
		for round := range 8 {
			// Growing, then churning, then shrinking.
			for range 3000 {
				switch x := r.IntN(8); {
				case round < 4 && x < 5, round >= 4 && round < 6 && x < 3, round >= 6 && x < 1:
					add()
				case x < 6:
					del()
				default:
					lookup()
				}
			}
			for range 2000 {
				lookup()
			}
			built += checkStrides(t, f)
			require.NoError(t, f.checkTree())
		}
		for len(rs) > 0 {
			del()
			if r.IntN(4) == 0 {
				lookup()
			}
		}
		checkStrides(t, f)
		require.Zero(t, f.tree.stride.used, "no tables in an empty tree")
		t.Logf("jump index from %d nodes: %d tables over the rounds", jumpMin, built)
		require.Greater(t, built, 100, "the test builds tables")
		require.Equal(t, jumpMin < 1<<30, hadJump)
		if jumpMin > 0 {
			require.Nil(t, tb.jump, "the empty tree's index is dropped")
			require.Empty(t, f.tree.jumps)
		}
	}
}

// TestStrideBounded checks that the tables stay within one slot for every
// strideNodesPerSlot nodes, and that the lookups' answers do not depend
// on which nodes got one.
func TestStrideBounded(t *testing.T) {
	f, task := strideEnv(t, 0)
	strideNodesPerSlot = 64
	tb := f.main
	r := rand.New(rand.NewPCG(5, 6))
	ps := benchPrefixes(r, 20000)
	for _, p := range ps {
		require.NoError(t, addReject(task, tb, p))
	}
	for range 3 {
		for _, p := range ps {
			d := p.Addr().As16()
			d[15] ^= byte(r.Uint32())
			require.Same(t, plainNodeLookup(tb, d, [16]byte{}), tb.nodeLookup(d, [16]byte{}))
		}
	}
	n := checkStrides(t, f)
	require.Positive(t, n)
	require.LessOrEqual(t, n, f.stats.FibNodes/strideNodesPerSlot)
}
