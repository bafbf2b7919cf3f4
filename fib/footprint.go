// The memory the IPv4 FIB's walks touch: the trie's leaves and fib_alias
// entries (net/ipv4/fib_trie.c) and the fib_info objects
// (net/ipv4/fib_semantics.c), for the cost model's memory stall
// (sim.Footprint).

package fib

import (
	"slices"

	"github.com/netsimlab/netsim/sim"
)

// The kernel's allocation sizes of the objects the walks read.
const (
	// leafBytes is one trie leaf: a key_vector with its tnode header,
	// 48 bytes from the ip_fib_trie cache.
	leafBytes = 48
	// aliasBytes is one route: a fib_alias, 56 bytes from the
	// ip_fib_alias cache.
	aliasBytes = 56
	// fibInfoHead is a fib_info without its fib_nh array (128 bytes) and
	// fibNHBytes one fib_nh (112): fib_create_info allocates the head
	// and one fib_nh per classic path together, and the head alone for
	// a route that uses a nexthop object (fib_nhs 0).
	fibInfoHead = 128
	fibNHBytes  = 112
	// leafLoads is the dependent loads a trie walk makes at every leaf
	// it visits: the leaf and its fib_alias. It reads the alias's
	// fib_info only where it examines it (fib_table_flush skips the
	// aliases of the other table of a shared trie without), a third load
	// on the chain. A walk goes in key order; the routes of every script
	// here were added in key order, so it follows them in the order they
	// were allocated.
	leafLoads = 2
	// devhashLoads is the dependent loads per fib_info of a
	// fib_info_devhash walk: the next fib_nh, added at the chain's head,
	// so the walk follows the chain against allocation order.
	devhashLoads = 1
)

// infoAlloc is the bytes kzalloc gives a fib_info with nhs classic paths:
// its size rounded up to the kmalloc size class.
func infoAlloc(nhs int) int64 {
	n := int64(fibInfoHead + nhs*fibNHBytes)
	for _, c := range [...]int64{128, 192, 256, 512, 1024, 2048, 4096} {
		if n <= c {
			return c
		}
	}
	return (n + 4095) &^ 4095
}

// workingSet is what a walk over every trie touches: the leaves and
// aliases of each (local and main share one until fib_unmerge), and the
// fib_infos the aliases use.
type workingSet struct {
	bytes     int64 // all of it
	aliases   int64
	infos     int64 // fib_info_cnt
	infoBytes int64 // the fib_infos' part of bytes
}

func (f *FIB) workingSet() workingSet {
	var ws workingSet
	var seen []*trie
	for _, tb := range f.tables {
		if tb.t != nil && !slices.Contains(seen, tb.t) {
			seen = append(seen, tb.t)
			ws.bytes += int64(tb.t.nLeaves)*leafBytes + int64(tb.t.nAliases)*aliasBytes
			ws.aliases += int64(tb.t.nAliases)
		}
	}
	ws.infos, ws.infoBytes = int64(f.infoCount), f.infoBytes
	ws.bytes += ws.infoBytes
	return ws
}

// noteWalk records the working set a walk starts in: a flush that empties
// the trie walked all of it, though the trie is gone when its work is
// charged.
func (f *FIB) noteWalk() {
	if ws := f.workingSet(); ws.bytes > f.work.walked.bytes {
		f.work.walked = ws
	}
}

// trieFootprint is what a walk that visited leaves leaves and examined
// infos fib_infos through their aliases touches: the working set (workingSet) as large as it was
// when a walk of the operation began (noteWalk) or is now, with two loads
// on the chain a leaf and one a fib_info examined. A fib_info the aliases
// share is read again and again and stays cached; only the share of the
// examinations that find distinct ones is a load that can miss.
func (f *FIB) trieFootprint(leaves, infos int64) sim.Footprint {
	if leaves == 0 {
		return sim.Footprint{}
	}
	ws := f.workingSet()
	if f.work.walked.bytes > ws.bytes {
		ws = f.work.walked
	}
	loads := float64(leafLoads)
	obj := float64(leafBytes + aliasBytes)
	if infos > 0 && ws.aliases > 0 && ws.infos > 0 {
		q := float64(infos) / float64(leaves) * min(1, float64(ws.infos)/float64(ws.aliases))
		loads += q
		obj += q * float64(ws.infoBytes) / float64(ws.infos)
	}
	return sim.Footprint{Bytes: ws.bytes, SeqLoads: loads, Obj: int64(obj / loads)}
}

// devhashFootprint is a walk of a fib_info_devhash chain of n fib_infos.
func devhashFootprint(n int64) sim.Footprint {
	b := infoAlloc(1) // a fib_info with its one fib_nh: kmalloc-256
	return sim.Footprint{Bytes: n * b, SeqLoads: devhashLoads, Obj: b}
}

// alloc is what kzalloc gave fi: the head alone for a route that uses a
// nexthop object, the head and its classic paths otherwise.
func (fi *fibInfo) alloc() int64 {
	if fi.nh != nil {
		return infoAlloc(0)
	}
	return infoAlloc(len(fi.nhs))
}
