// Statistics of the IPv4 LC-trie as /proc/net/fib_triestat reports them:
// struct trie_stat, trie_collect_stats and the memory and pointer counts of
// fib_triestat_seq_show (net/ipv4/fib_trie.c).

package fib

// Stats is the shape of one trie as /proc/net/fib_triestat reports it
// (struct trie_stat). The zero Stats is an empty trie.
type Stats struct {
	TotDepth     int     // sum of the leaves' depths
	MaxDepth     int     // deepest leaf
	Leaves       int     // leaves (distinct keys)
	Prefixes     int     // fib_alias entries (routes) in all leaves
	Tnodes       int     // internal nodes
	NullPointers int     // empty child slots
	NodeSizes    [32]int // internal nodes by bits
}

// collectStats is trie_collect_stats: a depth-first walk in the order of
// fib_trie_get_next, where a leaf's depth is the number of tnodes above it.
func (t *trie) collectStats() Stats {
	var s Stats
	n := t.tn[0].inl[0]
	if n == 0 {
		return s
	}
	if n.isLeaf() {
		s.Leaves = 1
		s.Prefixes = t.aliasCount(n.idx())
		return s
	}
	s.addTnode(&t.tn[n.idx()])
	pn, cindex, depth := n.idx(), uint32(0), 1
	for pn != 0 {
		tn := &t.tn[pn]
		if cindex < childLength(tn) {
			c := t.kid(tn, cindex)
			cindex++
			if c == 0 {
				continue
			}
			if c.isLeaf() {
				s.Leaves++
				s.TotDepth += depth
				s.MaxDepth = max(s.MaxDepth, depth)
				s.Prefixes += t.aliasCount(c.idx())
				continue
			}
			s.addTnode(&t.tn[c.idx()])
			pn, cindex = c.idx(), 0
			depth++
			continue
		}
		pkey := tn.key
		pn = tn.parent
		cindex = getIndex(pkey, &t.tn[pn]) + 1
		depth--
	}
	return s
}

func (s *Stats) addTnode(tn *tnode) {
	s.Tnodes++
	if tn.bits < 32 {
		s.NodeSizes[tn.bits]++
	}
	s.NullPointers += int(tn.empty)
}

func (t *trie) aliasCount(l uint32) int {
	n := 0
	for a := t.lf[l].head; a != 0; a = t.al(a).next {
		n++
	}
	return n
}

// Pointers is the number of child slots in all internal nodes.
func (s Stats) Pointers() int {
	p := 0
	for i, n := range s.NodeSizes {
		if i > 0 {
			p += n << i
		}
	}
	return p
}

// AverDepth is the kernel's average depth in hundredths (totdepth*100 /
// leaves, truncated), 166 for "1.66".
func (s Stats) AverDepth() int {
	if s.Leaves == 0 {
		return 0
	}
	return s.TotDepth * 100 / s.Leaves
}

// KernelBytes is the memory the kernel's trie of this shape takes (the
// "Total size" of /proc/net/fib_triestat, before rounding up to kB): 48
// bytes a leaf, 56 a fib_alias, 40 a tnode and 8 a child pointer on x86-64.
//
// Kernel: trie_show_stats (net/ipv4/fib_trie.c).
func (s Stats) KernelBytes() int {
	return kernelLeafSize*s.Leaves + kernelAliasSize*s.Prefixes +
		kernelTnodeSize*s.Tnodes + kernelPtrSize*s.Pointers()
}
