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
	// from the ip_fib_trie cache.
	leafBytes = 64
	// aliasBytes is one route: a fib_alias, from the ip_fib_alias cache.
	aliasBytes = 64
	// fibInfoBytes is one fib_info with one fib_nh, kzalloc'd together
	// from kmalloc-512.
	fibInfoBytes = 512
	// walkLoads is the dependent loads per unit: a leaf walk's next leaf
	// (its alias and fib_info reads issue beside it), a devhash walk's
	// next fib_nh.
	walkLoads = 1
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
	return sim.Footprint{Bytes: bytes, Loads: walkLoads}
}

// devhashFootprint is a walk of a fib_info_devhash chain of n fib_infos.
func devhashFootprint(n int64) sim.Footprint {
	return sim.Footprint{Bytes: n * fibInfoBytes, Loads: walkLoads}
}
