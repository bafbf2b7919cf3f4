// The kinds of counted work (what a data structure above sim charges: a
// trie node visited, a list entry compared, ...) and the per-task counters
// that hold them.

package sim

import (
	"fmt"
	"strings"
)

// Kind is a kind of counted work or event. Every Kind has a deterministic
// counter; the CPU kinds also have a cost per unit in Costs, the event kinds
// (barriers run, sleeps taken, ...) cost nothing by themselves because the time
// they stand for is charged elsewhere (as a sleep or a grace period).
//
// The zero Kind is Syscall.
type Kind uint8

const (
	// Syscall counts rtnetlink requests entering the kernel (one per Handle call).
	Syscall Kind = iota
	// HWAddrCompare counts netdev_hw_addr entries examined while searching a
	// device address list, or tree nodes compared during a descent.
	HWAddrCompare
	// HWAddrIterate counts entries visited while iterating a whole address list
	// (sync, unsync, flush), where no search key is compared.
	HWAddrIterate
	// RxModeSync counts __dev_set_rx_mode calls that reached a device's
	// ndo_set_rx_mode (the device was up).
	RxModeSync
	// NotifierCall counts netdev notifier chain invocations (one per event per
	// device, whatever the number of subscribers).
	NotifierCall
	// DevRegister counts register_netdevice calls.
	DevRegister
	// DevUnregister counts devices taken through unregister_netdevice_many.
	DevUnregister
	// AddrOp counts IPv4/IPv6 address additions and removals.
	AddrOp
	// Fib6Visit counts IPv6 routes visited by fib6_clean_all walks
	// (rt6_sync_down_dev / rt6_disable_ip on device down and unregister).
	Fib6Visit
	// RCUCallback counts RCU callbacks invoked.
	RCUCallback
	// GracePeriod counts RCU grace periods that ended.
	GracePeriod
	// SyncExpedited counts synchronize_rcu_expedited (synchronize_net under RTNL) calls.
	SyncExpedited
	// RCUBarrier counts rcu_barrier calls that ran a barrier.
	RCUBarrier
	// RCUBarrierShared counts rcu_barrier calls that returned early because a
	// barrier started after their snapshot had completed (barrier_sequence).
	RCUBarrierShared
	// Sleep counts msleep calls.
	Sleep
	// LockAcquire counts simulated mutex acquisitions.
	LockAcquire
	// LockContended counts acquisitions that had to wait.
	LockContended
	// IPExec counts `ip` (or sysctl) processes started from a shell: fork,
	// exec, dynamic loading, opening the netlink socket, exit.
	IPExec
	// NetnsExec counts `ip netns exec NS CMD` wrappers: the extra process
	// that enters the namespace (setns, a new mount namespace with /sys
	// remounted) before exec'ing CMD.
	NetnsExec
	// Fork counts background jobs a shell forks (`cmd &` in a loop).
	Fork
	// IPBatchLine counts lines `ip -batch` parses into requests (user space).
	IPBatchLine

	// Nexthop objects (package nexthop, net/ipv4/nexthop.c).

	// NexthopAdd counts nexthop objects built by RTM_NEWNEXTHOP (nexthop_add):
	// an added nexthop, or the new definition a replace installs.
	NexthopAdd
	// NexthopRemove counts nexthop objects removed (remove_nexthop),
	// including groups removed because they lost their last member.
	NexthopRemove
	// NexthopDevhashVisit counts per-device hash entries visited by
	// nexthop_flush_dev, entries of other devices in the bucket included.
	NexthopDevhashVisit
	// NexthopFIBMark counts FIB entries (fib_info on nh->fi_list) marked
	// RTNH_F_DEAD by nexthop removals.
	NexthopFIBMark
	// NexthopFIBFlush counts the fib_flush calls nexthop removal requests
	// (seed 000: one per removed nexthop with routes before the patch, one
	// per operation after). The flush's own work is counted by the FIB.
	NexthopFIBFlush

	// IPv4 FIB (package fib, net/ipv4/fib_trie.c and fib_semantics.c).

	// TrieNodeVisit counts internal trie nodes (tnodes) entered by FIB
	// lookups, inserts, deletions, walks and resizes.
	TrieNodeVisit
	// TrieLeafVisit counts trie leaves visited: one per leaf per table walk
	// (fib_table_flush visits every leaf of the trie), one per leaf a lookup
	// or insert reaches.
	TrieLeafVisit
	// FibAliasScan counts fib_alias entries examined in leaves.
	FibAliasScan
	// FibInfoExamine counts fib_info structures examined (dead-flag tests in
	// flushes, fib_find_info comparisons, fib_sync_down_dev/fib_sync_up).
	FibInfoExamine
	// FIBFlush counts fib_flush calls (every table walked once each).
	FIBFlush
	// FibAliasInsert counts routes (fib_alias) inserted or replaced.
	FibAliasInsert
	// FibAliasRemove counts routes (fib_alias) removed by deletes and flushes.
	FibAliasRemove

	// Policy routing rules (package fibrules, net/core/fib_rules.c).

	// RuleScan counts fib_rule entries walked by rule_exists, rule_find and
	// fib_rules_lookup.
	RuleScan
	// RuleChange counts rules added or deleted (the fixed part of
	// fib_nl_newrule / fib_nl_delrule under the lock).
	RuleChange
	// Fib6TableWalk counts IPv6 FIB tables walked by fib6_flush_trees
	// (every table of the namespace, after every IPv6 rule change).
	Fib6TableWalk
	// Fib6NewTable counts IPv6 FIB tables created by fib6_new_table.
	Fib6NewTable

	// Interface addresses (package netdev, net/ipv4/devinet.c,
	// net/ipv6/addrconf.c, net/ipv4/igmp.c, net/ipv6/mcast.c).

	// IfaScan counts IPv4 addresses (in_ifaddr) examined walking one
	// device's address list: find_matching_ifa and __inet_insert_ifa on
	// every add (each walks the whole list when the address is new), and
	// inet_rtm_deladdr's search.
	IfaScan
	// Inet4HashVisit counts IPv4 addresses visited by check_lifetime's walk
	// of the namespace's whole address hash (inet_addr_lst), which every
	// add and change queues.
	Inet4HashVisit
	// Inet6HashVisit counts IPv6 addresses visited by addrconf_verify_rtnl's
	// walk of the namespace's whole address hash (inet6_addr_lst), which
	// every add and change runs.
	Inet6HashVisit
	// McListScan counts multicast groups (ip_mc_list, ifmcaddr6) examined
	// walking one device's group list to join or leave a group
	// (____ip_mc_inc_group, __ipv6_dev_mc_inc, and their dec twins).
	McListScan
	// FibDevhashVisit counts fib_infos visited walking one device's chain
	// of fib_info_devhash: fib_sync_up on every IPv4 address added to the
	// device and on its NETDEV_UP, fib_sync_down_dev on its NETDEV_DOWN,
	// NETDEV_CHANGE and NETDEV_UNREGISTER. Each IPv4 address gives its
	// device a local route, and so a fib_info on the chain (its prefsrc
	// makes it the address's own).
	FibDevhashVisit
	// Fib6FlushNode counts IPv6 FIB nodes visited by fib6_flush_trees'
	// walks beyond each table's root (which Fib6TableWalk counts): every
	// IPv6 address deletion bumps the namespace's routing generation
	// (rt_genid_bump_ipv6), a walk of every node of every IPv6 table.
	Fib6FlushNode
	// Fib6RouteInsert counts IPv6 routes inserted into a table (fib6_add:
	// the route's node, its leaf list, the notifications), user and
	// kernel routes alike.
	Fib6RouteInsert
	// Fib6RouteRemove counts IPv6 routes removed from a table
	// (fib6_del_route: unlinking, the notifications, the RCU-deferred
	// release), by a delete or by a walk.
	Fib6RouteRemove
	// FibInfoFree counts fib_infos freed: fib_release_info dropping a
	// fib_info's last route (unhashing it, its nexthops' devhash entries,
	// the RCU-deferred free_fib_info). Routes that share one fib_info free
	// it once, with the last of them.
	FibInfoFree
	// FibRouteDelete counts routes deleted by fib_table_delete (an
	// RTM_DELROUTE, or fib_magic taking an address's routes away): the
	// lookup of the route, its unlinking and the RTM_DELROUTE notification.
	// Routes a flush removes are FibAliasRemove.
	FibRouteDelete
	// Fib6RouteDelete counts IPv6 delete requests that deleted a route
	// (inet6_rtm_delroute → ip6_route_del): their work beyond removing the
	// route, which Fib6RouteRemove counts.
	Fib6RouteDelete

	// Neighbour tables (package neigh, net/core/neighbour.c).

	// NeighAdd counts neighbour and proxy entries created (neigh_alloc and
	// the hash insert of ___neigh_create, pneigh_create).
	NeighAdd
	// NeighRemove counts neighbour and proxy entries removed (deletes,
	// flushes, forced gc).
	NeighRemove
	// NeighVisit counts neighbour entries looked up or walked (neigh_lookup,
	// the dumps' walks, neigh_flush_dev, neigh_forced_gc).
	NeighVisit

	// VxlanVNIScan counts vxlan devices examined by vxlan_vni_in_use, the
	// walk of the namespace's vxlans that keeps a VNI unique per port
	// (drivers/net/vxlan/vxlan_core.c): N(N-1)/2 creating N vxlans.
	VxlanVNIScan

	// MemStallNS counts the nanoseconds of memory stall that work charged
	// with a Footprint (Task.ChargeIn) spent beyond its in-cache cost: what
	// its working set outgrowing the caches added (Memory.StallNS). It is
	// charged with that work, not by itself.
	MemStallNS

	// NumKinds is the number of kinds; not a kind.
	NumKinds
)

var kindNames = [NumKinds]string{
	Syscall:          "syscalls",
	HWAddrCompare:    "hwaddr_compares",
	HWAddrIterate:    "hwaddr_iterated",
	RxModeSync:       "rx_mode_syncs",
	NotifierCall:     "notifier_calls",
	DevRegister:      "dev_registers",
	DevUnregister:    "dev_unregisters",
	AddrOp:           "addr_ops",
	Fib6Visit:        "fib6_visits",
	RCUCallback:      "rcu_callbacks",
	GracePeriod:      "grace_periods",
	SyncExpedited:    "sync_expedited",
	RCUBarrier:       "rcu_barriers",
	RCUBarrierShared: "rcu_barriers_shared",
	Sleep:            "sleeps",
	LockAcquire:      "lock_acquires",
	LockContended:    "lock_contended",
	IPExec:           "ip_execs",
	NetnsExec:        "netns_execs",
	Fork:             "forks",
	IPBatchLine:      "ip_batch_lines",

	NexthopAdd:          "nexthop_adds",
	NexthopRemove:       "nexthops_removed",
	NexthopDevhashVisit: "nexthop_devhash_visits",
	NexthopFIBMark:      "nexthop_fib_marks",
	NexthopFIBFlush:     "nexthop_fib_flushes",

	TrieNodeVisit:  "trie_node_visits",
	TrieLeafVisit:  "trie_leaf_visits",
	FibAliasScan:   "fib_alias_scans",
	FibInfoExamine: "fib_info_examined",
	FIBFlush:       "fib_flushes",
	FibAliasInsert: "fib_alias_inserts",
	FibAliasRemove: "fib_alias_removes",

	RuleScan:      "rule_scans",
	RuleChange:    "rule_changes",
	Fib6TableWalk: "fib6_table_walks",
	Fib6NewTable:  "fib6_new_tables",

	IfaScan:        "ifa_scans",
	Inet4HashVisit: "inet4_hash_visits",
	Inet6HashVisit: "inet6_hash_visits",
	McListScan:     "mc_list_scans",

	FibDevhashVisit: "fib_devhash_visits",
	Fib6FlushNode:   "fib6_flush_nodes",
	Fib6RouteInsert: "fib6_route_inserts",
	Fib6RouteRemove: "fib6_route_removes",
	FibInfoFree:     "fib_infos_freed",
	FibRouteDelete:  "fib_route_deletes",
	Fib6RouteDelete: "fib6_route_deletes",

	NeighAdd:    "neigh_adds",
	NeighRemove: "neigh_removes",
	NeighVisit:  "neigh_visits",

	VxlanVNIScan: "vxlan_vni_scans",

	MemStallNS: "mem_stall_ns",
}

// String returns the kind's counter name, e.g. "hwaddr_compares".
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind returns the Kind whose String is name.
func ParseKind(name string) (Kind, bool) {
	for k, n := range kindNames {
		if n == name {
			return Kind(k), true
		}
	}
	return 0, false
}

// Counters holds one count per Kind. The zero value is all zeros and ready to use.
type Counters [NumKinds]int64

// Get returns the count of k.
func (c Counters) Get(k Kind) int64 { return c[k] }

// Add adds every count of o to c.
func (c *Counters) Add(o *Counters) {
	for i := range c {
		c[i] += o[i]
	}
}

// Sub returns c minus o, kind by kind: the work done between two snapshots.
func (c Counters) Sub(o Counters) Counters {
	for i := range c {
		c[i] -= o[i]
	}
	return c
}

// Map returns the non-zero counts by name.
func (c Counters) Map() map[string]int64 {
	m := make(map[string]int64)
	for k, v := range c {
		if v != 0 {
			m[Kind(k).String()] = v
		}
	}
	return m
}

// String lists the non-zero counts as "name=value" in Kind order.
func (c Counters) String() string {
	var b strings.Builder
	for k, v := range c {
		if v == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%d", Kind(k), v)
	}
	return b.String()
}

// kindSlot is where a task keeps each kind's count (Task.counters): the
// kinds that almost every request charges (its system call, its locks, its
// `ip -batch` line) and those of the requests that many tasks repeat in
// turn (rule adds, IPv6 table creation) first, so that a request touches
// one or two cache lines of the task's counters rather than one per kind.
var kindSlot = func() (slot [NumKinds]uint8) {
	hot := []Kind{Syscall, LockAcquire, LockContended, IPBatchLine, RuleScan, RuleChange, Fib6NewTable}
	taken := make([]bool, NumKinds)
	next := uint8(0)
	for _, k := range hot {
		slot[k], taken[k] = next, true
		next++
	}
	for k := range slot {
		if !taken[k] {
			slot[k] = next
			next++
		}
	}
	return slot
}()
