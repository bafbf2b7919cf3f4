// Package hwaddr models a network device's hardware address lists: the
// unicast list (dev->uc), the multicast list (dev->mc) and the device address
// list (dev->dev_addrs), i.e. struct netdev_hw_addr_list and struct
// netdev_hw_addr of net/core/dev_addr_lists.c and include/linux/netdevice.h.
//
// # What a list holds
//
// A List is a set of (address, type) entries kept in insertion order: a new
// entry goes to the tail (list_add_tail_rcu), and that order is what a driver
// sees when it walks the list. Each entry counts its users:
//
//   - Refcount: every Add takes a reference, every Del drops one, and the entry
//     is unlinked when the count reaches zero.
//   - GlobalUse: at most one "global" user (dev_mc_add_global, dev_uc_add_excl)
//     holds a reference; a second global add is a no-op, not a second reference.
//   - Synced: on a lower device's list, how many references were pushed by a
//     sync from an upper device (a VLAN syncing to its bond, a bond to its slave).
//   - SyncCnt: on an upper device's list, to how many lower lists the entry has
//     been pushed. Each push also takes one reference on the upper entry itself,
//     which is why "Refcount == SyncCnt" means "nobody but the syncs uses it any
//     more" to __hw_addr_sync_multiple, and "Refcount == 1 with SyncCnt != 0"
//     means the same to the one-to-one __hw_addr_sync.
//
// # The two policies (Linux commit 406f42fa0d3c)
//
// Every add and delete first has to find the entry with the same address and
// type. Before Linux 5.15 that search walked the list (ListOnly), so syncing an
// M-entry bond list to a slave that already holds it costs about M²/2 node
// visits: entry j of the upper list sits at position j of the lower list, and
// every one of those adds ends in EEXIST. Commit 406f42fa0d3c ("net-next:
// Improve perf of bond/vlans modification", Gilad Naaman, 5.15) added an
// auxiliary red-black tree beside the list, ordered by memcmp of the address
// and then by type, and made every search a tree descent (TreeIndexed). The list
// stays the iteration order; the tree is only an index. Whole-list walks (the
// sync loops themselves, flush) are unchanged, so a sync is still O(M) entries
// visited, now with O(log M) compares each instead of O(M).
//
// The work is counted, not timed: every entry compared during a search adds to
// sim.HWAddrCompare (list nodes walked until the match for ListOnly, tree nodes
// compared on the way down for TreeIndexed), and every entry visited by a
// whole-list walk adds to sim.HWAddrIterate. Each operation charges its task
// once, with its totals; the list also keeps cumulative counts (Compares,
// Iterated) for tests and benchmarks that have no task.
//
// # Kernel version modelled
//
// ListOnly follows dev_addr_lists.c as of torvalds/linux c4d41d00 (the last
// list-only version). TreeIndexed follows today's mainline, in which every entry,
// including the first, is in the tree. The commit as merged (5.15-rc1) kept the
// first entry of every list out of the tree, because dev->dev_addr pointed into
// the first dev_addrs entry and drivers rewrote it in place; its add path then
// missed that first entry and created a duplicate of it. a5b8fd657881 ("net:
// dev_addr_list: handle first address in __hw_addr_add_ex", 5.15-rc4) patched
// the add path, and "dev_addr_list: put the first addr on the tree" (5.17,
// after dev_addr_mod) removed the special case. That bug is not modelled.
//
// The two policies give the same result for every operation but one: a delete
// or lookup with type 0 ("any type") when the list holds the same address under
// several types. ListOnly then finds the first such entry in list order,
// TreeIndexed the first one its descent meets. The kernel behaves the same way;
// in practice a list holds each address under one type only.
//
// # Counted walks: a simulation-speed option
//
// A ListOnly search really walks the list, so a simulation of a big bond
// spends real time in proportion to the work it models, and SEED001's full
// scenario (1500 VLANs on a bond) models tens of billions of compares. List.SetCountedWalk(true) keeps the
// behaviour and the counters and drops the wall time: every operation returns
// the same results, leaves the same entries in the same order and counts the
// same sim.HWAddrCompare and sim.HWAddrIterate, to the unit, but a search
// computes how many entries the walk would compare instead of comparing them,
// in O(log n) (counted.go explains how). Whole-list walks, the syncs among
// them, still visit every entry: they are O(n) per sync either way. The default
// really walks, so that benchmarks show the linear cost in wall time as well as
// in the counters. TreeIndexed lists ignore the option: they already search in
// O(log n), and their tree descents are what they count.
//
// # Why our own red-black tree
//
// TreeIndexed uses a red-black tree written for this package (rbtree.go)
// rather than github.com/emirpasic/gods:
//
//   - The tree is intrusive, as in the kernel: the same node is both the list
//     element and the tree element, so deleting through the list (the syncs do)
//     needs no second search. gods keeps its own nodes and would need one.
//   - gods' Remove searches again and, for a node with two children, copies its
//     predecessor's key and value into it; lib/rbtree.c relinks the successor.
//     Ours follows lib/rbtree.c's cases (they are the textbook ones), so the
//     same operations give the same tree shape, and the shape is what decides
//     the type-0 lookup above.
//   - The search must stop on an address match alone when the type is 0, and
//     must count the nodes it compares; gods boxes every key in an interface{}
//     and calls its comparator through a function value at every node.
//   - It is fast: one packed uint64 comparison per node (the 48-bit address
//     followed by the type byte is memcmp order), well under a microsecond per
//     add or delete at 10⁵ entries.
//
// # Concurrency
//
// A List is not safe for concurrent use. The kernel serialises each list with
// its device's netif_addr_lock; in netsim the netdev package holds its own lock
// around every call.
package hwaddr
