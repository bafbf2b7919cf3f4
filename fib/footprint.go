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
	// fibInfoBytes is one fib_info with one fib_nh, kzalloc'd together
	// from kmalloc-256.
	fibInfoBytes = 256
	// leafLoads is the dependent loads per leaf of a trie walk: the leaf,
	// its fib_alias and the alias's fib_info. A walk goes in key order;
	// the routes of every script here were added in key order, so it
	// follows them in the order they were allocated.
	leafLoads = 3
	// devhashLoads is the dependent loads per fib_info of a
	// fib_info_devhash walk: the next fib_nh, added at the chain's head,
	// so the walk follows the chain against allocation order.
	devhashLoads = 1
)

// trieFootprint is what visiting leaves leaves touches: every trie's
// leaves and aliases, and the fib_infos they use (none when leaves is 0).
func (f *FIB) trieFootprint(leaves int64) sim.Footprint {
	if leaves == 0 {
		return sim.Footprint{}
	}
	var bytes int64
	var seen []*trie // local and main share one until fib_unmerge
	for _, tb := range f.tables {
		if tb.t != nil && !slices.Contains(seen, tb.t) {
			seen = append(seen, tb.t)
			bytes += int64(tb.t.nLeaves)*leafBytes + int64(tb.t.nAliases)*aliasBytes
		}
	}
	bytes += int64(len(f.infos)) * fibInfoBytes
	return sim.Footprint{Bytes: bytes, SeqLoads: leafLoads, Obj: (leafBytes + aliasBytes + fibInfoBytes) / 3}
}

// devhashFootprint is a walk of a fib_info_devhash chain of n fib_infos.
func devhashFootprint(n int64) sim.Footprint {
	return sim.Footprint{Bytes: n * fibInfoBytes, SeqLoads: devhashLoads, Obj: fibInfoBytes}
}
