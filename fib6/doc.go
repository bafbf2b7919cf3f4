// Package fib6 models the kernel's IPv6 forwarding information base: the
// routing tables `ip -6 route` changes and shows, as net/ipv6/ip6_fib.c and
// net/ipv6/route.c implement them.
//
//   - A table is a fib6_node radix tree: path-compressed and binary, each
//     node testing bit fn_bit, intermediate nodes without routes, and
//     source-specific routes (`from PREFIX`) in per-node subtrees
//     (CONFIG_IPV6_SUBTREES). Its shape — and so /proc/net/rt6_stats — is the
//     kernel's for the same sequence of changes.
//   - A route is a fib6_info in its node's leaf list, ordered by metric;
//     routes of equal metric through gateways are siblings of one multipath
//     route.
//   - Route requests give the kernel's errno and extack message; a refused
//     request changes nothing.
//   - Lookups find the longest matching prefix (and source prefix) with a
//     usable route, selecting among equal routes as rt6_select does, and
//     backtracking up the tree. netsim has no neighbour table: a gateway
//     counts as reachable, the kernel's answer (CONFIG_IPV6_ROUTER_PREF)
//     for a gateway without a neighbour entry (lookup.go).
//   - addrconf's routes (local, prefix, fe80::/64, ff00::/8, anycast) are
//     added and removed through netdev.IPv6FIB; devices going down or
//     away remove or mark their routes by walking every table
//     (fib6_clean_all).
//
// A FIB belongs to one network namespace and is guarded by its RTNL: every
// method must be called with RTNL held (package rtnl's Handles do).
package fib6
