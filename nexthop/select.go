// select.go follows the path selection of a hash-threshold group in
// net/ipv4/nexthop.c: nh_hthr_group_rebalance and nexthop_select_path_hthr,
// which fib_select_multipath calls for a route on a group.

package nexthop

// NumPaths returns the number of paths a route on nh has: a group's
// members, 1 for a single nexthop.
//
// Kernel: nexthop_num_path (include/net/nexthop.h).
func (nh *Nexthop) NumPaths() int {
	if nh.grp == nil {
		return 1
	}
	return len(nh.grp.entries)
}

// UpperBound is the hash threshold of a path of total weight (the sum of
// every live path's weight) whose own weight and the weights of the live
// paths before it add up to cum: the paths split [0, 2³¹) in proportion to
// their weights, and a flow whose hash is at most a path's bound and above
// the previous live path's takes that path.
//
// Kernel: the upper_bound computation of nh_hthr_group_rebalance
// (net/ipv4/nexthop.c) and fib_rebalance (net/ipv4/fib_semantics.c),
// DIV_ROUND_CLOSEST_ULL((u64)w << 31, total) - 1.
func UpperBound(cum, total int) int64 {
	if total <= 0 {
		return -1
	}
	return int64((uint64(cum)<<31+uint64(total)/2)/uint64(total)) - 1
}

// SelectPath returns the member of a group that a flow of multipath hash
// hash (0 ≤ hash < 2³¹, fib_multipath_hash) takes, with its index: in a
// hash-threshold group the first member whose upper bound is not below the
// hash; in a resilient group the member of bucket hash mod the bucket
// count, which is marked busy at the table's time (nh_res_bucket_set_busy:
// it then stays with its member until idle_timer passes without use). A
// single nexthop returns itself. The kernel skips members whose gateway
// has a neighbour entry in an invalid state (nexthop_is_good_nh); netsim
// has no neighbour table, so every member is good, as in a namespace that
// has not sent traffic.
//
// Kernel: nexthop_select_path, nexthop_select_path_hthr,
// nexthop_select_path_res (net/ipv4/nexthop.c).
func (nh *Nexthop) SelectPath(hash uint32) (int, *Nexthop) {
	if nh.grp == nil {
		return 0, nh
	}
	if nh.grp.res != nil {
		return nh.grp.selectPathRes(hash)
	}
	es := nh.grp.entries
	total := 0
	for _, e := range es {
		total += int(e.weight)
	}
	cum := 0
	for i, e := range es {
		cum += int(e.weight)
		if int64(hash) <= UpperBound(cum, total) {
			return i, e.nh
		}
	}
	// Unreachable while the weights are positive: the last bound is 2³¹-1.
	return 0, es[0].nh
}
