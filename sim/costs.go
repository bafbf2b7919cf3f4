package sim

import (
	"fmt"
	"reflect"
	"syscall"
	"time"
)

// Costs is the cost model: how much virtual CPU time one unit of each kind of
// counted work takes, and how long the kernel's waits (grace periods, jiffies)
// last. Counted work is converted to virtual time only here, so a researcher
// can change one number and rerun.
//
// Every value says where it comes from: "calibrated" means fitted to one
// published number (at most one per seed), "derived" means computed from
// published numbers by a formula, or bounded by them ("a bound");
// scenario.Calibrations lists both with the published rows they use, and
// TestCalibration checks these constants against it. "Measured" means timed
// on a real kernel, "estimate" means none of these. Everything else the
// simulator prints is a prediction. The seeds ran on different machines: the one
// difference a seed's machine needs (seed 002's NetnsExec) is in
// scenario/machines.go, calibrated the same way.
//
// The zero Costs makes all work free and all waits instantaneous.
type Costs struct {
	// CPU time per unit of work, by Kind.

	// Syscall is the kernel entry/exit and netlink round trip of one
	// rtnetlink request (sendmsg, parse, reply, recvmsg). A few µs on any
	// x86 of the seeds' era; it is small next to everything the seeds measure.
	Syscall time.Duration
	// HWAddrCompare is one netdev_hw_addr examined in a list walk or tree
	// descent (a pointer chase and a memcmp of 6 bytes). Calibrated: 16 ns,
	// the one number taken from seed 001, its before-patch "Assigning IPv6
	// Addresses" time of 19.22 s (1.13e9 compares; scenario.Calibrations).
	HWAddrCompare time.Duration
	// HWAddrIterate is one entry visited while iterating a whole list (sync,
	// unsync, flush) without a search: a pointer chase that misses L2 on
	// Haswell-EP (the lists of seed 001 outgrow its 256 KB L2). Estimate:
	// 12 ns, between its L2 (≈5 ns) and L3 (≈17 ns) latencies.
	HWAddrIterate time.Duration
	// RxModeSync is the fixed part of one ndo_set_rx_mode call (the driver
	// callback, locks, filter programming of a software device). Estimate: 1 µs.
	RxModeSync time.Duration
	// NotifierCall is one netdev notifier chain invocation for one device
	// (all subscribers together). Estimate: 5 µs.
	NotifierCall time.Duration
	// DevRegister is register_netdevice's fixed work (sysfs, kobjects,
	// queues). Derived, a bound (scenario.Calibrations): 150 µs, from seed
	// 001's after-patch create phase (5.59 s for 1500 `ip link add`, most of
	// it process start-up).
	DevRegister time.Duration
	// DevUnregister is the per-device unregister work under RTNL outside the
	// IPv6 FIB walks (notifiers, sysfs, kobject teardown). Derived
	// (scenario.Calibrations): 1 ms, a third of the 3.0 ms per device of seed
	// 004's group deletion, whose remainder the route walks (Fib6Visit)
	// account for.
	DevUnregister time.Duration
	// AddrOp is adding or removing one IPv4/IPv6 address (allocation, hash
	// insert, netlink notification). Estimate: 20 µs.
	AddrOp time.Duration
	// Fib6Visit is one IPv6 route visited by fib6_clean_all (the walker,
	// the per-route callback and its locks). Calibrated: 132 ns, the one
	// number taken from seed 004, its group deletion of 10 000 devices in
	// 30 s, of which these walks are about 2/3 (scenario.Calibrations).
	Fib6Visit time.Duration
	// RCUCallback is invoking one RCU callback. Estimate: 1 µs.
	RCUCallback time.Duration
	// IPExec is one `ip` process run from a shell script, outside the
	// kernel work it asks for. Measured: 1.8 ms per `ip link set DEV up`
	// in a bash loop on the development VM (6.18 kernel, 2 vCPUs).
	IPExec time.Duration
	// NetnsExec is entering a named namespace for a command — `ip netns
	// exec NS` around it, or `ip -n NS` inside it (setns, a new mount
	// namespace, /sys remounted) — on top of the command's IPExec.
	// Measured: 2.0 ms (`ip netns exec NS ip link set lo up` at 3.8 ms per
	// command on the development VM, less IPExec).
	NetnsExec time.Duration
	// Fork is a shell forking one background job (`cmd &`): the parent's
	// share, which a loop pays serially. Measured: 0.34 ms per job for
	// `for ...; do true & done` in bash on the development VM.
	Fork time.Duration
	// IPBatchLine is `ip -batch` turning one line into a request, in user
	// space. Measured: 1.7 µs (user time of `ip -4 -batch` adding 4096
	// rules on the development VM).
	IPBatchLine time.Duration
	// NexthopAdd is building and inserting one nexthop object (allocation,
	// the gateway's fib_check_nh lookup, the rbtree insert, the netlink
	// notification). Estimate: 2 µs; no seed times nexthop creation.
	NexthopAdd time.Duration
	// NexthopRemove is removing one nexthop object (rb_erase, hlist_del,
	// marking its fib_info dead, the RCU-deferred free). Derived
	// (scenario.Calibrations): 1.6 µs, half of seed 000's after-patch cost
	// per nexthop and route (0.209 s / 65,536 = 3.2 µs); the other half is
	// the route's removal, which the FIB charges in its single flush.
	NexthopRemove time.Duration
	// TrieNodeVisit is entering one tnode of the IPv4 FIB trie (index
	// computation, child load). Estimate: 3 ns; walks enter few tnodes per
	// leaf (seed 000's trie has 4 tnodes for 65,539 leaves), so this matters
	// for lookups and inserts, not for flushes.
	TrieNodeVisit time.Duration
	// TrieLeafVisit is one leaf visited by a table walk, all-in: the child
	// slots scanned to reach it, its fib_alias list and the fib_info dead-flag
	// test. Measured: 7.8 ns, unpatched kernel on the 2-core dev VM, ≈ 33.7 s
	// for N=R=65536 at ~2 walks per flush (mechanisms/SEED000.md §3); a
	// Duration holds whole nanoseconds, so the default is 8 ns. The alias
	// scans and fib_info examinations of a walk are folded into it and cost
	// nothing by themselves.
	TrieLeafVisit time.Duration
	// FibAliasInsert is inserting or replacing one route (fib_create_info or
	// fib_find_info, the fib_alias, notifiers, rtmsg_fib). Estimate: 1 µs; no
	// seed times route insertion.
	FibAliasInsert time.Duration
	// FibAliasRemove is removing one route (hlist_del, fib_release_info,
	// notifiers, the RCU-deferred frees). Derived (scenario.Calibrations):
	// 1.6 µs, the other half of seed 000's after-patch cost per nexthop and
	// route (0.209 s / 65,536 = 3.2 µs; NexthopRemove is the first half).
	FibAliasRemove time.Duration
	// RuleScan is one fib_rule compared by rule_exists (or walked by
	// rule_find and fib_rules_lookup). Measured: ≈5.7 ns per existing rule
	// (mechanisms/SEED003.md, the IPv4 slope on the 6.18 VM); a Duration
	// holds whole nanoseconds, so the default is 6 ns.
	RuleScan time.Duration
	// RuleChange is the fixed part of adding or deleting one rule under the
	// lock (nl2rule leftovers, configure, list insert, hand-over). Estimate:
	// 2.5 µs, h0 of mechanisms/SEED003.md §3 for IPv4.
	RuleChange time.Duration
	// Fib6TableWalk is walking one (nearly empty) IPv6 FIB table in
	// fib6_flush_trees. Measured: ≈76 ns per existing table on the
	// development VM (mechanisms/SEED003.md §1, perf in __fib6_clean_all).
	Fib6TableWalk time.Duration
	// Fib6NewTable is fib6_new_table creating a table for a rule (kzalloc,
	// inet_peer_base_init, the hash insert). Measured: ≈0.37 µs on the
	// development VM (perf: fib6_rule_configure with its callees is 0.61%
	// of the samples of `ip -6 -batch` adding 1024 rules at 61 µs a rule).
	Fib6NewTable time.Duration

	// Waits (virtual time that is not CPU time).

	// GracePeriod is one normal RCU grace period. Derived, a bound
	// (scenario.Calibrations): 10 ms: seed 002's after number needs the
	// grace period left after the barrier to end before the first 16 ms poll
	// (mechanisms/SEED002.md §3: G ≈ 10–16 ms).
	GracePeriod time.Duration
	// ExpeditedGP is one synchronize_rcu_expedited (synchronize_net under
	// RTNL). Derived, a bound (scenario.Calibrations): 500 µs; seed 004
	// puts three of them plus flush_all_backlogs at ≈ 2.4 ms per one-by-one
	// request.
	ExpeditedGP time.Duration
	// BarrierOverhead is rcu_barrier's own latency beyond the callbacks it
	// waits for (IPIs to entrain the barrier callback on every CPU and the
	// wake-up). Estimate: 100 µs.
	BarrierOverhead time.Duration
	// Jiffy is one scheduler tick; msleep(m) sleeps m ms rounded up to
	// jiffies plus one jiffy. 1 ms (HZ=1000), so msleep(250) takes 251 ms.
	Jiffy time.Duration
}

// DefaultCosts is the documented default cost model.
var DefaultCosts = Costs{
	Syscall:         5 * time.Microsecond,
	HWAddrCompare:   16 * time.Nanosecond,
	HWAddrIterate:   12 * time.Nanosecond,
	RxModeSync:      1 * time.Microsecond,
	NotifierCall:    5 * time.Microsecond,
	DevRegister:     150 * time.Microsecond,
	DevUnregister:   1 * time.Millisecond,
	AddrOp:          20 * time.Microsecond,
	Fib6Visit:       132 * time.Nanosecond,
	RCUCallback:     1 * time.Microsecond,
	IPExec:          1800 * time.Microsecond,
	NetnsExec:       2 * time.Millisecond,
	Fork:            340 * time.Microsecond,
	IPBatchLine:     1700 * time.Nanosecond,
	NexthopAdd:      2 * time.Microsecond,
	NexthopRemove:   1600 * time.Nanosecond,
	TrieNodeVisit:   3 * time.Nanosecond,
	TrieLeafVisit:   8 * time.Nanosecond,
	FibAliasInsert:  1 * time.Microsecond,
	FibAliasRemove:  1600 * time.Nanosecond,
	RuleScan:        6 * time.Nanosecond,
	RuleChange:      2500 * time.Nanosecond,
	Fib6TableWalk:   76 * time.Nanosecond,
	Fib6NewTable:    370 * time.Nanosecond,
	GracePeriod:     10 * time.Millisecond,
	ExpeditedGP:     500 * time.Microsecond,
	BarrierOverhead: 100 * time.Microsecond,
	Jiffy:           1 * time.Millisecond,
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
	}
	return 0
}

// Validate returns an EINVAL error naming the first negative field.
func (c *Costs) Validate() error {
	v := reflect.ValueOf(*c)
	for i := range v.NumField() {
		if d := v.Field(i).Interface().(time.Duration); d < 0 {
			return fmt.Errorf("%w: sim: cost %s is negative (%v)", syscall.EINVAL, v.Type().Field(i).Name, d)
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
