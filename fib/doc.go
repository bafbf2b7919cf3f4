// Package fib models the kernel's IPv4 forwarding information base: the
// routing tables `ip route` changes and shows, as net/ipv4/fib_trie.c,
// fib_semantics.c and fib_frontend.c implement them.
//
//   - Tables are level-compressed tries (trie.go) whose shape — and so
//     /proc/net/fib_triestat — is the kernel's for the same sequence of
//     changes; tests compare both with this machine's kernel.
//   - A route is a fib_alias in a leaf of the trie, ordered as the kernel
//     orders them; routes with the same nexthops, priority, preferred
//     source, protocol, scope, type and table share one reference-counted
//     fib_info (semantics.go).
//   - Tables main and local share one trie until the first custom IPv4 rule
//     (Unmerge); every table is created on first use.
//   - Route requests (Add with its rt.NLMFlags, Del) give the kernel's errno and
//     extack message; a refused request changes nothing.
//   - Lookups find the longest matching prefix with a usable route,
//     backtracking past dead nexthops and routes of the wrong TOS, scope
//     or device; reject routes return their errors.
//   - Addresses add their local, broadcast and prefix routes (AddIfAddr,
//     InetAddrEvent); devices going down or away kill their routes
//     (SyncDownDev, DisableIP, NetdevEvent); dead routes are removed by
//     walking every table (FlushFIB, the nexthop.Flusher behind seed 000).
//
// Work is counted in sim kinds (sim.TrieNodeVisit, sim.TrieLeafVisit,
// sim.FibAliasScan, sim.FibInfoExamine, sim.FIBFlush, sim.FibAliasInsert,
// sim.FibAliasRemove), charged to the task once per operation, so that the
// seed 000 before/after difference — N table walks of N leaves against one —
// shows in the counters and, through the cost model, in virtual time.
//
// A FIB belongs to one network namespace and is guarded by its RTNL: every
// method must be called with RTNL held (package rtnl's Handles do).
package fib
