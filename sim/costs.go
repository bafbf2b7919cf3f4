// The cost model: nanoseconds per unit of each kind of counted work, and
// the costs of sleeps, forks, grace periods and lock hand-offs. The values
// and their sources are machine profiles (machine/profiles/*.profile);
// DefaultCosts is the development VM's (machine/profiles/devvm.profile).

package sim

import (
	"reflect"
	"time"
)

// PerMille is a share in thousandths: 0 to 1000.
type PerMille int64

// Costs is the cost model: how much virtual CPU time one unit of each kind of
// counted work takes, and how long the kernel's waits (grace periods, jiffies)
// last. Counted work is converted to virtual time only here, so a researcher
// can change one number and rerun.
//
// A cost model belongs to a machine. Its values, each with where it comes
// from (measured by which command, derived, calibrated to which published
// time, or estimated and why), are kept in machine profiles, the text files
// of package machine (machine/profiles/*.profile): devvm, the development
// VM, measured from micro-experiments only, and seed000 … seed004, each seed
// machine's (the VM's plus that seed's declared differences). The field
// comments here say what each cost means; DefaultCosts is the devvm
// profile's values.
//
// The zero Costs makes all work free and all waits instantaneous.
type Costs struct {
	// CPU time per unit of work, by Kind.

	// Syscall is the kernel entry/exit and netlink round trip of one rtnetlink
	// request (sendmsg, parse, reply, recvmsg).
	Syscall time.Duration
	// HWAddrCompare is one netdev_hw_addr examined in a list walk or tree
	// descent (a pointer chase and a memcmp of 6 bytes).
	HWAddrCompare time.Duration
	// HWAddrIterate is one entry visited while iterating a whole list (sync,
	// unsync, flush) without a search.
	HWAddrIterate time.Duration
	// RxModeSync is the fixed part of one ndo_set_rx_mode call (the driver
	// callback, locks, filter programming of a software device).
	RxModeSync time.Duration
	// NotifierCall is one netdev notifier chain invocation for one device (all
	// subscribers together).
	NotifierCall time.Duration
	// DevRegister is register_netdevice's fixed work (sysfs, kobjects, queues).
	DevRegister time.Duration
	// DevUnregister is the per-device unregister work under RTNL outside the
	// IPv6 FIB walks and the RCU waits (notifiers, sysfs, kobject teardown).
	DevUnregister time.Duration
	// AddrOp is adding or removing one IPv4/IPv6 address (allocation, hash
	// insert, netlink notification).
	AddrOp time.Duration
	// Fib6Visit is one IPv6 route visited by fib6_clean_all (the walker, the
	// per-route callback and its locks).
	Fib6Visit time.Duration
	// RCUCallback is invoking one RCU callback.
	RCUCallback time.Duration
	// IPExec is one `ip` process run from a shell script, outside the kernel
	// work it asks for.
	IPExec time.Duration
	// NetnsExec is entering a named namespace (setns, a new mount namespace,
	// /sys remounted): what `ip -n NS` adds to its process. `ip netns exec NS
	// CMD` pays it in its own `ip` process (an IPExec), which then runs CMD.
	NetnsExec time.Duration
	// Fork is a shell forking one background job (`cmd &`): the parent's share,
	// which a loop pays serially.
	Fork time.Duration
	// IPBatchLine is `ip -batch` turning one line into a request: its user
	// time and the page faults of the heap it grows a line.
	IPBatchLine time.Duration
	// NexthopAdd is building and inserting one nexthop object (allocation, the
	// gateway's fib_check_nh lookup, the rbtree insert, the netlink
	// notification).
	NexthopAdd time.Duration
	// NexthopRemove is removing one nexthop object (rb_erase, hlist_del, marking
	// its fib_info dead, the RCU-deferred free).
	NexthopRemove time.Duration
	// TrieNodeVisit is entering one tnode of the IPv4 FIB trie (index
	// computation, child load).
	TrieNodeVisit time.Duration
	// TrieLeafVisit is one leaf visited by a table walk, all-in: the child slots
	// scanned to reach it, its fib_alias list and the fib_info dead-flag test.
	TrieLeafVisit time.Duration
	// FibAliasInsert is inserting or replacing one route (fib_create_info or
	// fib_find_info, the fib_alias, notifiers, rtmsg_fib).
	FibAliasInsert time.Duration
	// FibAliasRemove is a flush removing one route (hlist_del,
	// fib_release_info's reference drop, notifiers, the alias's RCU-deferred
	// free); freeing a fib_info the route held last is FibInfoFree.
	FibAliasRemove time.Duration
	// RuleScan is one fib_rule compared by rule_exists (or walked by rule_find
	// and fib_rules_lookup).
	RuleScan time.Duration
	// RuleChange is the fixed part of adding or deleting one rule under the lock
	// (nl2rule leftovers, configure, list insert, hand-over).
	RuleChange time.Duration
	// Fib6TableWalk is walking one (nearly empty) IPv6 FIB table in
	// fib6_flush_trees.
	Fib6TableWalk time.Duration
	// Fib6NewTable is fib6_new_table creating a table for a rule (kzalloc,
	// inet_peer_base_init, the hash insert).
	Fib6NewTable time.Duration
	// IfaScan is one in_ifaddr examined in a walk of a device's IPv4 address
	// list (a pointer chase and a mask compare).
	IfaScan time.Duration
	// Inet4HashVisit is one address visited by check_lifetime's walk of the
	// namespace's IPv4 address hash.
	Inet4HashVisit time.Duration
	// Inet6HashVisit is one address visited by addrconf_verify_rtnl's walk of
	// the namespace's IPv6 address hash (its chains run against the order of
	// allocation: no prefetch).
	Inet6HashVisit time.Duration
	// McListScan is one multicast group examined walking a device's group list
	// (ifmcaddr6 or ip_mc_list).
	McListScan time.Duration
	// FibDevhashVisit is one fib_info visited by fib_sync_up's walk of its
	// device's fib_info_devhash chain (a fib_nh, its fib_info's flags and
	// fib_rebalance's early return), all-in.
	FibDevhashVisit time.Duration
	// Fib6FlushNode is one IPv6 FIB node visited by fib6_flush_trees (the
	// walker's step and the store of the node's new serial number).
	Fib6FlushNode time.Duration
	// Fib6RouteInsert is inserting one IPv6 route (fib6_add and its
	// notifications), beyond the request's Syscall.
	Fib6RouteInsert time.Duration
	// Fib6RouteRemove is removing one IPv6 route (fib6_del_route, its
	// notifications, the RCU-deferred release).
	Fib6RouteRemove time.Duration
	// FibInfoFree is fib_release_info freeing a fib_info its last route
	// dropped (the hash and devhash unlinks, the RCU-deferred
	// free_fib_info).
	FibInfoFree time.Duration
	// FibRouteDelete is deleting one route by fib_table_delete, beyond the
	// request's Syscall: finding it, unlinking it and the RTM_DELROUTE
	// notification (inet_rtm_delroute's work).
	FibRouteDelete time.Duration
	// Fib6RouteDelete is an IPv6 RTM_DELROUTE's work beyond the request's
	// Syscall and the removal (Fib6RouteRemove): the configuration, the
	// node's lookup (fib6_locate), the route's hold and release.
	Fib6RouteDelete time.Duration
	// NeighAdd is creating one neighbour entry (neigh_alloc, the
	// constructor, the hash insert, the RTM_NEWNEIGH), beyond the
	// request's Syscall.
	NeighAdd time.Duration
	// NeighRemove is deleting one neighbour entry (__neigh_update to
	// NUD_FAILED with its RTM_NEWNEIGH, the unlink, the RTM_DELNEIGH, the
	// RCU-deferred free), beyond the request's Syscall.
	NeighRemove time.Duration
	// NeighVisit is one neighbour entry looked up or walked (a hash chain
	// step, a list step).
	NeighVisit time.Duration
	// VxlanVNIScan is one vxlan examined by vxlan_vni_in_use, the walk of
	// the namespace's vxlans a creation or changelink makes: all-in, its
	// cache misses included (no Footprint: the walk's lines are spread over
	// page-sized device allocations).
	VxlanVNIScan time.Duration

	// Memory is the cache hierarchy that work charged with a Footprint
	// (Task.ChargeIn) stalls in once its working set outgrows L2. The zero
	// Memory adds no stall: every per-unit cost then stands for any scale.
	Memory Memory

	// Waits (virtual time that is not CPU time).

	// GracePeriod is one normal RCU grace period; with RCUTick and a
	// distribution (GracePeriodTicks2 … 6) each one's length is drawn from
	// that instead.
	GracePeriod time.Duration
	// ExpeditedGP is one synchronize_rcu_expedited (synchronize_net under RTNL).
	ExpeditedGP time.Duration
	// BarrierOverhead is rcu_barrier's own latency beyond the callbacks it waits
	// for (IPIs to entrain the barrier callback on every CPU and the wake-up).
	BarrierOverhead time.Duration
	// RCUTick is the scheduling-clock tick at which a CPU does RCU's work for
	// callbacks (rcu_pending → rcu_core): it gives those queued since its last
	// tick a grace period and asks for it, and it notices the end of one and
	// runs its callbacks (RCU.Call). 0: callbacks get a grace period when
	// queued and run at its end.
	RCUTick time.Duration
	// GracePeriodTicks2 … GracePeriodTicks6 are, with RCUTick, the
	// distribution of a grace period's length on the tick grid: the shares,
	// per mille, of grace periods that end K ticks after the tick they were
	// asked for at (6: six or more). Each grace period's K is drawn from
	// them in turn, the same sequence on every run (RCU.gpLenLocked). All
	// zero, or without RCUTick: every grace period lasts GracePeriod.
	GracePeriodTicks2 PerMille
	GracePeriodTicks3 PerMille
	GracePeriodTicks4 PerMille
	GracePeriodTicks5 PerMille
	GracePeriodTicks6 PerMille
	// GracePeriodPastTick is, with the distribution, how long after its last
	// tick a grace period ends: the last quiescent state is reported at
	// that tick, and the grace-period kthread then wakes and cleans up
	// (rcu_report_qs_rsp, rcu_gp_cleanup).
	GracePeriodPastTick time.Duration
	// Jiffy is one scheduler tick; msleep(m) sleeps m ms rounded up to jiffies
	// plus one jiffy.
	Jiffy time.Duration
}

// DefaultCosts is the development VM's cost model: the values of the devvm
// profile (machine/profiles/devvm.profile, where each value's source is;
// machine's TestDefaultCostsAreDevVM holds the two equal).
var DefaultCosts = Costs{
	Syscall:         3400 * time.Nanosecond,
	HWAddrCompare:   5 * time.Nanosecond,
	HWAddrIterate:   12 * time.Nanosecond,
	RxModeSync:      1 * time.Microsecond,
	NotifierCall:    5 * time.Microsecond,
	DevRegister:     135 * time.Microsecond,
	DevUnregister:   133 * time.Microsecond,
	AddrOp:          3700 * time.Nanosecond,
	Fib6Visit:       30 * time.Nanosecond,
	RCUCallback:     1 * time.Microsecond,
	IPExec:          1440 * time.Microsecond,
	NetnsExec:       100 * time.Microsecond,
	Fork:            223 * time.Microsecond,
	IPBatchLine:     3100 * time.Nanosecond,
	NexthopAdd:      3100 * time.Nanosecond,
	NexthopRemove:   390 * time.Nanosecond,
	TrieNodeVisit:   3 * time.Nanosecond,
	TrieLeafVisit:   4 * time.Nanosecond,
	FibAliasInsert:  4 * time.Microsecond,
	FibAliasRemove:  290 * time.Nanosecond,
	RuleScan:        2 * time.Nanosecond,
	RuleChange:      6400 * time.Nanosecond,
	Fib6TableWalk:   115 * time.Nanosecond,
	Fib6NewTable:    3500 * time.Nanosecond,
	IfaScan:         4 * time.Nanosecond,
	Inet4HashVisit:  5 * time.Nanosecond,
	Inet6HashVisit:  5 * time.Nanosecond,
	McListScan:      5 * time.Nanosecond,
	FibDevhashVisit: 13 * time.Nanosecond,
	Fib6FlushNode:   17 * time.Nanosecond,
	Fib6RouteInsert: 5200 * time.Nanosecond,
	Fib6RouteRemove: 1500 * time.Nanosecond,
	FibInfoFree:     700 * time.Nanosecond,
	FibRouteDelete:  3600 * time.Nanosecond,
	Fib6RouteDelete: 2600 * time.Nanosecond,
	NeighAdd:        3000 * time.Nanosecond,
	NeighRemove:     4400 * time.Nanosecond,
	NeighVisit:      12 * time.Nanosecond,
	VxlanVNIScan:    40 * time.Nanosecond,
	Memory: Memory{
		L1: 32 << 10, L2: 724 << 10, L3: 8 << 20,
		L1Hit: 1100 * Picosecond, L2Hit: 4860 * Picosecond, L3Hit: 18380 * Picosecond, DRAM: 178500 * Picosecond,
		SeqL3:       16 << 20,
		SeqL3Hit128: 5260 * Picosecond, SeqDRAM128: 41970 * Picosecond,
		SeqL3Hit512: 14800 * Picosecond, SeqDRAM512: 147000 * Picosecond,
	},
	GracePeriod:       10500 * time.Microsecond,
	ExpeditedGP:       35 * time.Microsecond,
	BarrierOverhead:   100 * time.Microsecond,
	RCUTick:           4 * time.Millisecond,
	GracePeriodTicks2: 806, GracePeriodTicks3: 134, GracePeriodTicks4: 29, GracePeriodTicks5: 24, GracePeriodTicks6: 7,
	GracePeriodPastTick: 20 * time.Microsecond,
	Jiffy:               1 * time.Millisecond,
}

// PerUnit returns the CPU cost of one unit of work of kind k. Kinds that only
// count events (barriers, sleeps, lock acquisitions) cost nothing by
// themselves.
func (c *Costs) PerUnit(k Kind) time.Duration {
	switch k {
	case Syscall:
		return c.Syscall
	case HWAddrCompare:
		return c.HWAddrCompare
	case HWAddrIterate:
		return c.HWAddrIterate
	case RxModeSync:
		return c.RxModeSync
	case NotifierCall:
		return c.NotifierCall
	case DevRegister:
		return c.DevRegister
	case DevUnregister:
		return c.DevUnregister
	case AddrOp:
		return c.AddrOp
	case Fib6Visit:
		return c.Fib6Visit
	case RCUCallback:
		return c.RCUCallback
	case IPExec:
		return c.IPExec
	case NetnsExec:
		return c.NetnsExec
	case Fork:
		return c.Fork
	case IPBatchLine:
		return c.IPBatchLine
	case NexthopAdd:
		return c.NexthopAdd
	case NexthopRemove:
		return c.NexthopRemove
	case TrieNodeVisit:
		return c.TrieNodeVisit
	case TrieLeafVisit:
		return c.TrieLeafVisit
	case FibAliasInsert:
		return c.FibAliasInsert
	case FibAliasRemove:
		return c.FibAliasRemove
	case RuleScan:
		return c.RuleScan
	case RuleChange:
		return c.RuleChange
	case Fib6TableWalk:
		return c.Fib6TableWalk
	case Fib6NewTable:
		return c.Fib6NewTable
	case IfaScan:
		return c.IfaScan
	case Inet4HashVisit:
		return c.Inet4HashVisit
	case Inet6HashVisit:
		return c.Inet6HashVisit
	case McListScan:
		return c.McListScan
	case FibDevhashVisit:
		return c.FibDevhashVisit
	case Fib6FlushNode:
		return c.Fib6FlushNode
	case Fib6RouteInsert:
		return c.Fib6RouteInsert
	case Fib6RouteRemove:
		return c.Fib6RouteRemove
	case FibInfoFree:
		return c.FibInfoFree
	case FibRouteDelete:
		return c.FibRouteDelete
	case Fib6RouteDelete:
		return c.Fib6RouteDelete
	case NeighAdd:
		return c.NeighAdd
	case NeighRemove:
		return c.NeighRemove
	case NeighVisit:
		return c.NeighVisit
	case VxlanVNIScan:
		return c.VxlanVNIScan
	}
	return 0
}

// Validate returns an EINVAL *Error of kind ErrBadCosts naming the first
// negative field.
func (c *Costs) Validate() error {
	return negative(reflect.ValueOf(*c), "")
}

// negative returns the error of Validate for the first negative field of
// v, a Costs or a Memory, whose fields are named with prefix.
func negative(v reflect.Value, prefix string) error {
	for i := range v.NumField() {
		name := prefix + v.Type().Field(i).Name
		switch f := v.Field(i).Interface().(type) {
		case time.Duration:
			if f < 0 {
				return errorf(ErrBadCosts, "sim: cost %s is negative (%v)", name, f)
			}
		case int64:
			if f < 0 {
				return errorf(ErrBadCosts, "sim: cost %s is negative (%d)", name, f)
			}
		case Latency:
			if f < 0 {
				return errorf(ErrBadCosts, "sim: cost %s is negative (%d ps)", name, int64(f))
			}
		case Memory:
			if err := negative(v.Field(i), name+"."); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Costs) table() (t [NumKinds]time.Duration) {
	for k := range t {
		t[k] = c.PerUnit(Kind(k))
	}
	return t
}
