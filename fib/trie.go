// The level-compressed trie (LC-trie) that holds an IPv4 routing table,
// modelled on net/ipv4/fib_trie.c.
//
// # The algorithm
//
// The trie is the dynamic LC-trie of Nilsson and Tikkanen ("An experimental
// study of compression methods for dynamic tries", Algorithmica 33(1), 2002),
// as the kernel adapted it for IP lookup (Nilsson and Karlsson, "IP-address
// lookup using LC-tries", IEEE JSAC 17(6), 1999). Two compressions make it
// shallow:
//
//   - path compression: a node records the first bit it tests, so a chain
//     of one-child nodes costs nothing;
//   - level compression: a node tests several bits at once and has
//     2^bits children, a whole subtree of a binary trie folded into one
//     array, as long as that array stays mostly full.
//
// Every node — internal node ("tnode") or leaf — is a key vector: a 32-bit
// key and two small numbers, pos and bits. Bits are numbered from the least
// significant (bit 0) to the most significant (bit 31), as in the kernel. A
// tnode looks at key bits pos .. pos+bits-1 to pick one of its 2^bits
// children; the bits above pos+bits are the same for every key below the
// node and are stored in its key, the bits below pos are zero in its key.
// A leaf is a key vector with pos = bits = 0 and holds one key: the network
// address of one or more prefixes (10.1.0.0/16 and 10.1.0.0/24 share a leaf)
// as a list of fib_alias entries, longest prefix first.
//
// Worked example: the routes 198.51.100.0/24, 198.51.100.1/32 and
// 198.51.100.255/32 (an address's connected, local and broadcast routes) have
// the keys
//
//	198.51.100.0   = 11000110 00110011 01100100 00000000
//	198.51.100.1   = 11000110 00110011 01100100 00000001
//	198.51.100.255 = 11000110 00110011 01100100 11111111
//
// Inserting them one by one makes a binary tnode at pos 7 (the highest bit
// where .0 and .255 differ) whose child 0 is a binary tnode at pos 0
// (separating .0 from .1). The root is then level-compressed: a tnode with
// two non-empty children out of two is "full enough" to double, so it
// becomes pos 6, bits 2, with the .0/.1 tnode at index 00 and the .255 leaf
// at index 11, two empty slots between. This is exactly what the kernel's
// /proc/net/fib_triestat reports for a veth with one /24 address: 2 internal
// nodes ("1: 1  2: 1"), 6 pointers, 2 null pointers, 3 leaves at average
// depth 1.66.
//
// # Shape
//
// After every insertion and deletion the nodes on the path are resized
// (resize): a node doubles (inflate) while the doubled node would have at
// least 50% non-empty children (30% for the root), it halves while fewer
// than 25% (15% for the root) are non-empty, and a node with one child
// disappears (collapse). Children that are themselves "full" tnodes (no
// skipped bits) count twice towards inflating, since inflation splits them.
// At most MAX_WORK = 10 doublings or halvings happen per resize. This file
// follows the kernel's order of operations, so that for the same sequence
// of insertions and deletions the shape — and so /proc/net/fib_triestat —
// is the kernel's.
//
// The shape depends on the order of the changes, not only on the route
// set: the same prefixes inserted in another order can give another trie —
// in the kernel too (testdata/kernel/random3000-a and -b).
//
// # Memory layout
//
// Nodes live in arenas and point at each other with 32-bit indexes, not Go
// pointers: a child slot is a ref, 0 for empty, odd for a leaf, even for a
// tnode; a leaf's ref in its parent's slot also carries what a lookup needs
// to pass the leaf over unread (slotSum). A tnode is 40 bytes and holds up
// to 4 child slots itself (most tnodes of a big trie are 2-bit); larger
// ones have a block of 4-byte slots in a shared array, reused by size. A
// leaf is 32 bytes and holds its first fib_alias (16 bytes; more go to an
// alias arena), and an alias names its fib_info by number. The kernel's
// leaf is 48 bytes, its fib_alias 56 and a child pointer 8. The garbage
// collector never scans the trie. tnode index 0 is the kernel's "trie" key
// vector (pos 32, no bits): the parent of the root, whose only child slot
// holds the root.
package fib

import (
	"iter"
	"math/bits"
)

const keyLength = 32 // KEYLENGTH

// Resize thresholds in percent (fib_trie.c).
const (
	halveThreshold       = 25 // halve_threshold
	inflateThreshold     = 50 // inflate_threshold
	halveThresholdRoot   = 15 // halve_threshold_root
	inflateThresholdRoot = 30 // inflate_threshold_root
	maxWork              = 10 // MAX_WORK
)

// Kernel sizes (x86-64), for /proc/net/fib_triestat's "Total size" and the
// memory comparisons in benchmarks.
const (
	kernelLeafSize  = 48 // LEAF_SIZE = TNODE_SIZE(1)
	kernelTnodeSize = 40 // TNODE_SIZE(0)
	kernelAliasSize = 56 // sizeof(struct fib_alias)
	kernelPtrSize   = 8  // sizeof(struct key_vector *)
)

// ref is a child slot: 0 is empty, bit 0 set a leaf, clear a tnode. The
// index is bits 2-31, except in a leaf's ref with bit 1 set (refSum), which
// has the index in bits 2-24 and the leaf's summary (slotSum) in bits
// 25-31: what a tnode's slot holds for a leaf whose index fits (leafSlot;
// in a trie of more than 8M leaves, lookups read the leaves beyond that).
// The trie's own slot holds a plain leafRef.
type ref uint32

const (
	refLeaf  ref = 1
	refSum   ref = 2
	sumShift     = 25
)

// sumIdxMax is the largest leaf index a ref with a summary holds (a
// variable for tests only).
var sumIdxMax uint32 = 1<<(sumShift-2) - 1

func leafRef(i uint32) ref  { return ref(i<<2) | refLeaf }
func tnodeRef(i uint32) ref { return ref(i << 2) }

func (r ref) isLeaf() bool { return r&refLeaf != 0 }

// idx is the index: bits 2-31, or 2-24 with refSum.
func (r ref) idx() uint32 {
	m := uint32(1<<30 - 1)
	if r&refSum != 0 {
		m = 1<<(sumShift-2) - 1 // compiled to a conditional move
	}
	return uint32(r>>2) & m
}

// leafIdx is idx of a leaf's ref, for loops over many leaves: nearly every
// leaf's ref has a summary, so the test is a branch predicted right, not
// idx's conditional move on the path to the leaf's address.
func (r ref) leafIdx() uint32 {
	if r&refSum == 0 {
		return plainIdx(r)
	}
	return uint32(r>>2) & (1<<(sumShift-2) - 1)
}

// plainIdx is the index of a ref without a summary.
//
//go:noinline
func plainIdx(r ref) uint32 { return uint32(r >> 2) }

// tnodeIdx is idx of a tnode's ref.
func (r ref) tnodeIdx() uint32 { return uint32(r >> 2) }

// sum is the summary a leaf's ref carries, 0 for none.
func (r ref) sum() slotSum {
	return slotSum(r>>sumShift) & -slotSum(r>>1&1)
}

// same reports whether r and o refer to the same node.
func (r ref) same(o ref) bool { return r&refLeaf == o&refLeaf && r.idx() == o.idx() }

// tnode is an internal node (struct tnode with its key_vector). Index 0 of
// the arena is the trie itself.
type tnode struct {
	key    uint32
	off    uint32 // with more than inlineBits bits, its child slots are kids[off:]
	parent uint32 // tnode index; 0 is the trie
	empty  uint32 // empty_children
	full   uint32 // full_children: children that are tnodes with no skipped bits
	pos    uint8
	bits   uint8
	slen   uint8 // longest suffix (32 - prefix length) of any alias below
	// dirty: with counted flushes, the tnode changed since the last one
	// checked that resizing it would change nothing (trie.markDirty).
	dirty bool
	// The child slots of small tnodes (most of a big trie's), kept with
	// the key vector as the kernel keeps them, so a lookup step touches
	// one place; and the trie's single slot.
	inl [1 << inlineBits]ref
}

// inlineBits is the largest tnode whose children the tnode holds itself.
const inlineBits = 2

// kid returns child slot i of n.
func (t *trie) kid(n *tnode, i uint32) ref {
	if n.bits <= inlineBits {
		return n.inl[i]
	}
	return t.kids[n.off+i]
}

// A slotSum is what fib_table_lookup needs to know of the leaf in a slot
// to pass it over without reading it:
//
//   - a leaf key with no bit set below the slot's tnode's pos is the
//     tnode's key with the slot's index at pos, and the leaf holds no prefix
//     of the lookup's key when the two differ at or above the leaf's slen
//     (that of its shortest prefix): the lookup examines each of its
//     aliases and rejects it on its length alone, so only their number (1
//     to 3 kept here) is needed to charge that work;
//   - a lookup that backtracks to a slot other than its key's own (or to
//     child 0 of a tnode it reached that way) has a key that differs from
//     every key below the slot in some bit at or above pos: a leaf key with
//     a bit set below pos fails prefix_mismatch for it, and a leaf of /32
//     routes alone (slen 0) fails its slen test: sumDead.
//
// Seven bits: the number of aliases (1 to 3) times 32 plus the leaf's
// slen less one; sumDead; sumMany for a live leaf with more aliases; 0 for
// no summary (the ref has none).
type slotSum uint8

const (
	sumDead    slotSum = 1
	sumMany    slotSum = 2
	sumAliases         = 5 // shift of the alias count
	sumSlen            = 1<<sumAliases - 1
)

// slen is the summarized leaf's slen (with an alias count).
func (s slotSum) slen() uint8 { return uint8(s&sumSlen) + 1 }

// leafSum returns the summary of leaf l in a slot of a tnode at pos.
func (t *trie) leafSum(l uint32, pos uint8) slotSum {
	lf := &t.lf[l]
	if lf.slen == 0 || uint64(lf.key)&(1<<pos-1) != 0 {
		return sumDead
	}
	n := slotSum(0)
	for a := lf.head; a != 0 && n < 4; a = t.al(a).next {
		n++
	}
	if n == 4 || n == 0 {
		return sumMany
	}
	return n<<sumAliases | slotSum(lf.slen-1)
}

// leafSlot returns the ref of leaf l for a slot of a tnode at pos: with its
// summary when the index fits.
func (t *trie) leafSlot(l uint32, pos uint8) ref {
	if l > sumIdxMax {
		return leafRef(l)
	}
	return leafRef(l) | refSum | ref(t.leafSum(l, pos))<<sumShift
}

// resum refreshes the summary in leaf l's slot after its slen or its list
// of aliases changed.
func (t *trie) resum(l uint32) {
	p := t.lf[l].parent
	if p == 0 {
		return // the trie's own slot, which no lookup backtracks to
	}
	tn := &t.tn[p]
	i := getIndex(t.lf[l].key, tn)
	if i>>tn.bits != 0 || !t.kid(tn, i).same(leafRef(l)) {
		return // not linked yet
	}
	r := t.leafSlot(l, tn.pos)
	if tn.bits <= inlineBits {
		tn.inl[i] = r
	} else {
		t.kids[tn.off+i] = r
	}
}

// slots returns n's 2^bits child slots (the trie's single slot for tn[0]).
func (t *trie) slots(n *tnode) []ref {
	if n.bits <= inlineBits {
		return n.inl[:1<<n.bits]
	}
	return t.kids[n.off : n.off+1<<n.bits]
}

// setKid sets child slot i of n, a leaf's with its summary.
func (t *trie) setKid(n *tnode, i uint32, r ref) {
	if r.isLeaf() {
		r = t.leafSlot(r.idx(), n.pos)
	}
	if n.bits <= inlineBits {
		n.inl[i] = r
		return
	}
	t.kids[n.off+i] = r
}

// leaf is a leaf key vector; its fib_alias list starts at head. The leaf
// holds one alias itself (the first added, usually the only one), so that a
// lookup finds key and route in one place; more go to the alias arena.
type leaf struct {
	key    uint32
	parent uint32 // tnode index
	head   uint32 // first alias (an aliasRef); 0 when empty
	slen   uint8  // suffix length of the last (shortest-prefix) alias
	inUse  bool   // first holds an alias
	first  alias
}

// An alias reference: 0 is none, inlineAlias|l is leaf l's own alias,
// anything else an index in the alias arena.
const inlineAlias = 1 << 31

// al returns the alias r refers to. The pointer is good until the next leaf
// or alias is allocated.
func (t *trie) al(r uint32) *alias {
	if r&inlineAlias != 0 {
		return &t.lf[r&^inlineAlias].first
	}
	return &t.fa[r]
}

// alias is a struct fib_alias: one route (prefix length, tos, table,
// type) and the fib_info it uses. Aliases of a leaf are chained by next in
// the kernel's order: by slen ascending (longest prefix first), then tb_id
// descending, tos descending, priority ascending.
type alias struct {
	next  uint32
	info  uint32 // the fib_info: index in the FIB's infoTable
	tbID  uint32
	tos   uint8
	typ   Type
	slen  uint8
	state uint8 // FA_S_ACCESSED
}

// infoTable numbers the live fib_infos so that aliases can refer to them
// with 32 bits and no pointer (the trie then has none for the garbage
// collector to scan). A fib_info lives in the slot of its number: slots
// come in chunks, so that fib_infos made one after the other sit one after
// the other in memory, as slab objects do, and a table walk that tests
// their flags reads memory in order rather than all over the heap; and no
// table of pointers is needed to find one by number. Number 0 is never
// used; a released number (and its slot) is reused.
type infoTable struct {
	chunks [][]fibInfo // number i is chunks[i/infoChunk][i%infoChunk]
	// dead[i] is fib_info i's RTNH_F_DEAD, kept in step by fibInfo.setFlags:
	// a table walk tests it for every route, and a byte per fib_info stays
	// in cache where the fib_infos themselves do not.
	dead []bool
	free []uint32 // released numbers, for reuse
	next uint32   // the next number never handed out

	// With counted flushes (counted.go, counted set): the fib_infos
	// flagged dead since the last flush that found them released or
	// alive again.
	counted  bool
	deadList []uint32
	inDead   []bool // number i is in deadList
}

// infoChunk is the number of fib_info slots allocated at a time.
const infoChunk = 128

// at returns the slot of fib_info number i (live or not).
func (it *infoTable) at(i uint32) *fibInfo { return &it.chunks[i/infoChunk][i%infoChunk] }

// get returns fib_info number i, nil for 0.
func (it *infoTable) get(i uint32) *fibInfo {
	if i == 0 {
		return nil
	}
	return it.at(i)
}

// num returns fi's number, 0 for nil.
func num(fi *fibInfo) uint32 {
	if fi == nil {
		return 0
	}
	return fi.idx
}

// newInfo returns a zeroed fib_info with its number; add must follow.
func (it *infoTable) newInfo() *fibInfo {
	var i uint32
	if k := len(it.free); k > 0 {
		i = it.free[k-1]
		it.free = it.free[:k-1]
	} else {
		if it.next == 0 {
			it.next = 1
			it.dead = append(it.dead, false)
		}
		i = it.next
		it.next++
		if int(i/infoChunk) == len(it.chunks) {
			it.chunks = append(it.chunks, make([]fibInfo, infoChunk))
		}
		it.dead = appendDoubling(it.dead, false)
	}
	fi := it.at(i)
	*fi = fibInfo{idx: i}
	return fi
}

// add records a new fib_info as live.
func (it *infoTable) add(fi *fibInfo) { it.setDead(fi.idx, fi.flags&FlagDead != 0) }

// setDead sets fib_info i's copy of RTNH_F_DEAD, listing it in deadList
// when counted flushes are on.
func (it *infoTable) setDead(i uint32, dead bool) {
	it.dead[i] = dead
	if !dead || !it.counted {
		return
	}
	for len(it.inDead) <= int(i) {
		it.inDead = append(it.inDead, false)
	}
	if !it.inDead[i] {
		it.inDead[i] = true
		it.deadList = append(it.deadList, i)
	}
}

// remove releases fi's number and slot.
func (it *infoTable) remove(fi *fibInfo) {
	it.dead[fi.idx] = false
	it.free = append(it.free, fi.idx)
	fi.idx = 0
}

// all yields the live fib_infos in number order.
func (it *infoTable) all() iter.Seq[*fibInfo] {
	return func(yield func(*fibInfo) bool) {
		for i := uint32(1); i < it.next; i++ {
			if fi := it.at(i); fi.idx != 0 && !yield(fi) {
				return
			}
		}
	}
}

// fiOf returns the fib_info of alias a.
func (t *trie) fiOf(a *alias) *fibInfo { return t.fis.at(a.info) }

// trieWork counts the work of the current operation; the FIB charges it to
// the task and resets it.
type trieWork struct {
	nodes, leaves, aliases, infos int64
	leafInfos                     int64      // the infos examined through a leaf's alias
	devhash                       int64      // fib_infos visited walking fib_info_devhash
	devhashChain                  int64      // the most fib_infos on one chain walked
	syncs                         int        // synchronize_net calls tnode_free asked for
	freed                         int64      // fib_infos fib_release_info freed
	walked                        workingSet // the largest a walk began in (noteWalk)
}

// trie is one LC-trie. Local and main share one until fib_unmerge.
type trie struct {
	tn       []tnode
	tnFree   []uint32
	kids     []ref                   // the child slots of all tnodes
	kidsFree [keyLength + 1][]uint32 // freed blocks of kids, by bits
	lf       []leaf
	lfFree   []uint32
	fa       []alias
	faFree   []uint32

	nLeaves  int
	nTnodes  int
	nAliases int // all aliases, those held by leaves included
	nInline  int // aliases held by leaves

	work     *trieWork
	mem      *syncMem
	fis      *infoTable
	freeList []uint32 // scratch: the tnode a halve replaces

	cf countedTrie // counted fib_table_flush's bookkeeping (counted.go)
}

// syncMem models tnode_free_size and sysctl_fib_sync_mem: once 512 KB of
// tnodes have been freed by resizes, tnode_free calls synchronize_net.
type syncMem struct {
	freed int
	limit int
}

// defaultSyncMem is sysctl_fib_sync_mem's default, 512 KB.
const defaultSyncMem = 512 * 1024

func newTrie(w *trieWork, m *syncMem, fis *infoTable) *trie {
	t := &trie{work: w, mem: m, fis: fis}
	t.cf.track = fis.counted
	// tn[0] is the trie key vector; lf[0] and fa[0] are unused so that
	// index 0 can mean "none".
	t.tn = append(t.tn, tnode{pos: keyLength, slen: keyLength})
	t.lf = append(t.lf, leaf{})
	t.fa = append(t.fa, alias{})
	return t
}

func (t *trie) root() ref { return t.tn[0].inl[0] }

// Key vector accessors, leaf or tnode.

func (t *trie) kvKey(r ref) uint32 {
	if r.isLeaf() {
		return t.lf[r.idx()].key
	}
	return t.tn[r.idx()].key
}

func (t *trie) kvSlen(r ref) uint8 {
	if r.isLeaf() {
		return t.lf[r.idx()].slen
	}
	return t.tn[r.idx()].slen
}

func (t *trie) setParent(r ref, p uint32) {
	if r == 0 {
		return
	}
	if r.isLeaf() {
		t.lf[r.idx()].parent = p
	} else {
		t.tn[r.idx()].parent = p
		t.markDirty(r.idx())
	}
}

// childLength is child_length: 2^bits, and 0 for the trie.
func childLength(n *tnode) uint32 { return (1 << n.bits) &^ 1 }

// getIndex is get_index: the child index of key in n (0 for the trie).
func getIndex(key uint32, n *tnode) uint32 { return (key ^ n.key) >> n.pos }

// Allocation.

func (t *trie) newTnode(key uint32, pos, nbits uint8) uint32 {
	var off uint32
	if nbits > inlineBits {
		off = t.allocKids(nbits)
	}
	return t.tnodeAt(key, pos, nbits, off)
}

// kidsGiven is the off of a tnode whose block of child slots went to
// other tnodes (inflate's halves of a split node): freeing the tnode
// frees no block.
const kidsGiven = ^uint32(0)

// tnodeAt is newTnode with the block of child slots at off (with more
// than inlineBits bits), which the caller provides.
func (t *trie) tnodeAt(key uint32, pos, nbits uint8, off uint32) uint32 {
	shift := uint(pos) + uint(nbits)
	if shift < keyLength {
		key = key >> shift << shift
	} else {
		key = 0
	}
	n := tnode{key: key, off: off, pos: pos, bits: nbits, slen: pos, empty: 1 << nbits}
	i := slot(&t.tn, &t.tnFree, n)
	t.nTnodes++
	t.markDirty(i)
	return i
}

// allocKids returns a zeroed block of 1<<nbits child slots: a freed block
// of that size, or the front of the smallest larger one (the rest goes to
// the free lists, halving), or new slots at the end of kids.
func (t *trie) allocKids(nbits uint8) uint32 {
	size := uint32(1) << nbits
	for b := nbits; b <= keyLength; b++ {
		f := t.kidsFree[b]
		if len(f) == 0 {
			continue
		}
		off := f[len(f)-1]
		t.kidsFree[b] = f[:len(f)-1]
		for b > nbits {
			b--
			t.kidsFree[b] = append(t.kidsFree[b], off+1<<b)
		}
		clear(t.kids[off : off+size])
		return off
	}
	off := uint32(len(t.kids))
	if cap(t.kids)-len(t.kids) < int(size) {
		k := make([]ref, len(t.kids), max(2*cap(t.kids), len(t.kids)+int(size)))
		copy(k, t.kids)
		t.kids = k
	}
	t.kids = t.kids[:len(t.kids)+int(size)]
	return off
}

// appendDoubling appends v, doubling the capacity when it runs out (append
// grows large slices by a quarter, which copies an arena four times over).
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		n := make([]T, len(s), max(16, 2*cap(s)))
		copy(n, s)
		s = n
	}
	return append(s, v)
}

// slot stores v in pool: in the slot freed last, or appended when none
// is free. It returns v's index.
func slot[T any](pool *[]T, free *[]uint32, v T) uint32 {
	if k := len(*free); k > 0 {
		i := (*free)[k-1]
		*free = (*free)[:k-1]
		(*pool)[i] = v
		return i
	}
	*pool = appendDoubling(*pool, v)
	return uint32(len(*pool) - 1)
}

// freeTnode frees a tnode; its block of child slots is kept for the next
// tnode of the same size (inserts keep making binary tnodes that the next
// inflation absorbs).
func (t *trie) freeTnode(i uint32) {
	n := &t.tn[i]
	if n.bits > inlineBits && n.off != kidsGiven {
		t.kidsFree[n.bits] = append(t.kidsFree[n.bits], n.off)
	}
	*n = tnode{}
	t.tnFree = appendDoubling(t.tnFree, i)
	t.nTnodes--
}

// newLeaf makes a leaf for key holding alias a.
func (t *trie) newLeaf(key uint32, a alias) uint32 {
	a.next = 0
	l := leaf{key: key, slen: a.slen, inUse: true, first: a}
	i := slot(&t.lf, &t.lfFree, l)
	t.lf[i].head = i | inlineAlias
	t.nLeaves++
	t.nAliases++
	t.nInline++
	t.siteAdd(a.info, key)
	return i
}

func (t *trie) freeLeaf(i uint32) {
	t.lf[i] = leaf{}
	t.lfFree = append(t.lfFree, i)
	t.nLeaves--
}

// newAlias stores alias a for leaf l: in the leaf if its own slot is free,
// else in the arena. It returns the alias's reference.
func (t *trie) newAlias(l uint32, a alias) uint32 {
	t.nAliases++
	t.siteAdd(a.info, t.lf[l].key)
	if lf := &t.lf[l]; !lf.inUse {
		lf.inUse, lf.first = true, a
		t.nInline++
		return l | inlineAlias
	}
	return slot(&t.fa, &t.faFree, a)
}

// freeAlias frees an alias already unlinked from its leaf's list (siteDel
// must have been called for it).
func (t *trie) freeAlias(r uint32) {
	t.nAliases--
	if r&inlineAlias != 0 {
		lf := &t.lf[r&^inlineAlias]
		lf.inUse, lf.first = false, alias{}
		t.nInline--
		return
	}
	t.fa[r] = alias{}
	t.faFree = append(t.faFree, r)
}

// findNode is fib_find_node: the leaf holding key (0 if none) and the tnode
// where the search stopped (its parent, or where it would go).
func (t *trie) findNode(key uint32) (l uint32, tp uint32) {
	n := t.tn[0].inl[0]
	visits := int64(0)
	for n != 0 {
		if n.isLeaf() {
			t.work.leaves++
			if t.lf[n.idx()].key != key {
				n = 0
			}
			break
		}
		visits++
		tn := &t.tn[n.idx()]
		idx := (key ^ tn.key) >> tn.pos
		if idx>>tn.bits != 0 {
			n = 0
			break
		}
		tp = n.idx()
		n = t.kid(tn, idx)
	}
	t.work.nodes += visits
	if n == 0 {
		return 0, tp
	}
	return n.idx(), tp
}

// insertNode is fib_insert_node: add a new leaf for key holding alias a
// below tp (as fib_find_node left it), splitting the slot's occupant under a
// new binary tnode if there is one, and rebalance.
func (t *trie) insertNode(tp, key uint32, a alias) uint32 {
	slen := a.slen
	l := t.newLeaf(key, a)
	var n ref
	if tp == 0 {
		n = t.tn[0].inl[0]
	} else {
		n = t.kid(&t.tn[tp], getIndex(key, &t.tn[tp]))
	}
	if n != 0 {
		tn := t.newTnode(key, uint8(bits.Len32(key^t.kvKey(n))-1), 1)
		t.tn[tn].parent = tp
		t.putChild(tn, getIndex(key, &t.tn[tn])^1, n)
		t.putChildRoot(tp, key, tnodeRef(tn))
		t.setParent(n, tn)
		tp = tn
	}
	t.nodePushSuffix(tp, slen)
	t.lf[l].parent = tp
	t.putChildRoot(tp, key, leafRef(l))
	t.rebalance(tp)
	return l
}

// removeLeaf removes an emptied leaf below tp and rebalances (the first
// branch of fib_remove_alias).
func (t *trie) removeLeaf(tp, l uint32) {
	if t.tn[tp].slen == t.lf[l].slen {
		t.nodePullSuffix(tp, t.tn[tp].pos)
	}
	t.putChildRoot(tp, t.lf[l].key, 0)
	t.freeLeaf(l)
	t.rebalance(tp)
}

// leafWalk is leaf_walk_rcu: the first leaf with a key at or above key,
// starting the search at *pn (the trie, or where the previous call stopped).
// It returns 0 when there is none.
func (t *trie) leafWalk(pn *uint32, key uint32) uint32 {
	p := *pn
	n := tnodeRef(p)
	var cindex uint32
	for {
		p = n.idx()
		tn := &t.tn[p]
		cindex = 0
		if key > tn.key {
			cindex = getIndex(key, tn)
		}
		if cindex>>tn.bits != 0 {
			break
		}
		n = t.kid(tn, cindex)
		cindex++
		if n == 0 {
			break
		}
		if n.isLeaf() {
			if t.lf[n.idx()].key >= key {
				*pn = p
				return n.idx()
			}
			break
		}
	}
	for p != 0 {
		tn := &t.tn[p]
		if cindex >= 1<<tn.bits {
			pkey := tn.key
			p = tn.parent
			cindex = getIndex(pkey, &t.tn[p]) + 1
			continue
		}
		n = t.kid(tn, cindex)
		cindex++
		if n == 0 {
			continue
		}
		if n.isLeaf() {
			*pn = p
			return n.idx()
		}
		p = n.idx()
		cindex = 0
	}
	*pn = p
	return 0
}

// leaves yields the trie's leaves by ascending key, one leafWalk each from
// where the previous stopped, as the kernel's loops over leaf_walk_rcu do
// (fib_table_dump, fib_trie_unmerge, __fib_info_notify_update). The body
// must not change the trie.
func (t *trie) leaves() iter.Seq[uint32] {
	return func(yield func(uint32) bool) {
		var pn uint32
		for key := uint32(0); ; {
			l := t.leafWalk(&pn, key)
			if l == 0 {
				return
			}
			lk := t.lf[l].key
			if !yield(l) {
				return
			}
			if key = lk + 1; key < lk {
				return
			}
		}
	}
}

// flushWalk walks the trie in reverse key order the way fib_table_flush does:
// fn edits each leaf's aliases (and its slen); emptied leaves are unlinked,
// and each tnode is resized once all its children are done.
func (t *trie) flushWalk(fn func(l uint32)) {
	var pn uint32 // the trie
	cindex := uint32(1)
	for {
		if cindex == 0 {
			if pn == 0 {
				break
			}
			pkey := t.tn[pn].key
			if t.tn[pn].slen > t.tn[pn].pos {
				t.updateSuffix(pn)
			}
			pn = t.resize(pn)
			cindex = getIndex(pkey, &t.tn[pn])
			continue
		}
		cindex--
		n := t.kid(&t.tn[pn], cindex)
		if n == 0 {
			continue
		}
		if !n.isLeaf() {
			pn = n.idx()
			cindex = 1 << t.tn[pn].bits
			t.work.nodes++
			continue
		}
		l := n.idx()
		t.work.leaves++
		fn(l)
		if t.lf[l].head == 0 {
			t.putChildRoot(pn, t.lf[l].key, 0)
			t.freeLeaf(l)
		}
	}
}
