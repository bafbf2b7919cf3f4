// multipath.go follows how the kernel spreads flows over the paths of a
// multipath route: the flow hash of fib_multipath_hash (net/ipv4/route.c,
// include/net/ip_fib.h, the flow keys of include/net/flow_dissector.h and
// net/core/flow_dissector.c) and the path choice of fib_rebalance and
// fib_select_multipath (net/ipv4/fib_semantics.c).

package fib

import (
	"encoding/binary"
	"net/netip"

	"github.com/dchest/siphash"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
)

// MultipathHash is the multipath hash of an IPv4 flow from src to dst under
// the default policy (net.ipv4.fib_multipath_hash_policy = 0: layer 3
// only), keyed with seed, the namespace's hash seed
// (net.ipv4.fib_multipath_hash_seed, or the random one a namespace gets
// when it is 0). The result is in [0, 2³¹). The invalid src stands for
// 0.0.0.0, as in the packet `ip route get` builds without `from`.
//
// The kernel zeroes a struct flow_keys, sets the two addresses, orders
// them so that both directions of a flow hash alike
// (__flow_hash_consistentify: the smaller as a little-endian u32 first),
// and runs SipHash-2-4 over the struct from its basic key to the end of the
// IPv4 addresses, rounded up to the struct's 8-byte alignment: 48 bytes,
// the addresses at offsets 36 and 40 (basic 4, tags 4, vlan 8, cvlan 8,
// keyid 4, ports 4, icmp 4). The key is the seed twice in each of its two
// 64-bit halves (fib_multipath_hash_construct_key). A zero hash becomes 1,
// and the hash is shifted right once.
//
// Kernel: fib_multipath_hash, ip_multipath_l3_keys (net/ipv4/route.c),
// fib_multipath_hash_from_keys (include/net/ip_fib.h),
// flow_hash_from_keys_seed (net/core/flow_dissector.c).
func MultipathHash(seed uint32, src, dst netip.Addr) uint32 {
	var s, d [4]byte
	if src.Is4() {
		s = src.As4()
	}
	if dst.Is4() {
		d = dst.As4()
	}
	if binary.LittleEndian.Uint32(d[:]) < binary.LittleEndian.Uint32(s[:]) {
		s, d = d, s
	}
	var keys [48]byte
	copy(keys[36:], s[:])
	copy(keys[40:], d[:])
	k := uint64(seed)<<32 | uint64(seed)
	h := uint32(siphash.Hash(k, k, keys[:]))
	if h == 0 {
		h = 1
	}
	return h >> 1
}

// NumPaths returns the number of paths of the route a lookup found:
// those of its nexthop group, or of its classic multipath nexthops; 1 for
// a single path, 0 for a result without a route.
//
// Kernel: fib_info_num_path (include/net/ip_fib.h).
func (r *Result) NumPaths() int {
	switch {
	case r.fi == nil:
		return 0
	case r.fi.nh != nil:
		return r.fi.nh.NumPaths()
	}
	return len(r.fi.nhs)
}

// SelectMultipath chooses the path of a multipath route for a flow of
// multipath hash hash (MultipathHash), as the kernel does for a packet
// sent without an output device or forwarded, and points the result at
// it (NHSel, Gateway, Dev, NHScope). A route on a nexthop group takes the
// group's choice (nexthop.Nexthop.SelectPath). A classic multipath route
// splits [0, 2³¹) over its live paths in proportion to their weights (a
// dead path has none: fib_rebalance); with a source address saddr (valid
// for a locally generated packet that has one), a path whose own source
// address (nhSaddr, the kernel's nh_saddr: inet_select_addr on the path's
// device and gateway at the route's scope) is saddr is preferred to one
// the hash picks, and one that has both wins at once. The kernel also
// skips paths whose gateway has a failed neighbour entry when
// net.ipv4.fib_multipath_use_neigh is on (off by default; netsim has no
// neighbour table).
//
// Kernel: fib_select_multipath, fib_rebalance (net/ipv4/fib_semantics.c).
func (r *Result) SelectMultipath(hash uint32, saddr netip.Addr, nhSaddr func(dev *netdev.Device, gw netip.Addr, scope Scope) netip.Addr) {
	fi := r.fi
	if fi == nil {
		return
	}
	if fi.nh != nil {
		i, m := fi.nh.SelectPath(hash)
		r.NHSel, r.Gateway, r.Dev, r.NHScope = i, m.Gateway(), m.Dev(), Scope(m.Scope())
		return
	}
	total := 0
	for i := range fi.nhs {
		if fi.nhs[i].flags&FlagDead == 0 {
			total += fi.nhs[i].weight
		}
	}
	score, cum := -1, 0
	for i := range fi.nhs {
		nh := &fi.nhs[i]
		if nh.flags&FlagDead != 0 {
			continue // upper bound -1
		}
		cum += nh.weight
		s := 0
		if saddr.IsValid() && nhSaddr(nh.dev, nh.gw, fi.scope) == saddr {
			s += 2
		}
		if int64(hash) <= nexthop.UpperBound(cum, total) {
			s++
		}
		if s > score {
			r.NHSel, r.Gateway, r.Dev, r.NHScope = i, nh.gw, nh.dev, nh.scope
			if s == 3 || !saddr.IsValid() && s == 1 {
				return
			}
			score = s
		}
	}
}
