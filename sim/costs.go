// The cost model: nanoseconds per unit of each kind of counted work, and
// the costs of sleeps, forks, grace periods and lock hand-offs, with where
// each default comes from (measured, derived, calibrated or estimated).

package sim

import (
	"reflect"
	"time"
)

// Costs is the cost model: how much virtual CPU time one unit of each kind of
// counted work takes, and how long the kernel's waits (grace periods, jiffies)
// last. Counted work is converted to virtual time only here, so a researcher
// can change one number and rerun.
//
// Every value says where it comes from:
//
//   - measured: timed on the development VM (Linux 6.18, 2 vCPUs, HZ=250),
//     with the command that does it; most by internal/measure/costs.sh
//     (`sudo bash internal/measure/costs.sh -s SECTION`, each experiment in
//     a private network namespace), whose output line is named;
//   - calibrated: fitted to one published number (at most one per seed);
//   - derived: computed from published numbers by a formula;
//   - estimate: none of these, with the reason for the value.
//
// scenario.Calibrations lists every calibrated and derived constant with
// the published rows it uses, and TestCalibration checks the constants
// here against it; those rows are not predictions. The seeds ran on
// different machines: the few differences a seed's machine needs are in
// scenario/machines.go, taken the same way.
//
// The zero Costs makes all work free and all waits instantaneous.
type Costs struct {
	// CPU time per unit of work, by Kind.

	// Syscall is the kernel entry/exit and netlink round trip of one
	// rtnetlink request (sendmsg, parse, reply, recvmsg). Measured: 3.4 µs,
	// the kernel time of a failing `nexthop del` outside rtm_del_nexthop
	// (costs.sh -s batch, nh_del_missing.syscall: 3.36 µs; 3.3–4.3 µs for
	// the other requests it times).
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
	// callback, locks, filter programming of a software device). Estimate:
	// 1 µs: a software device programs no filter, and the list walk is
	// counted apart (HWAddrIterate); what is left is a lock and a call.
	RxModeSync time.Duration
	// NotifierCall is one netdev notifier chain invocation for one device
	// (all subscribers together). Estimate: 5 µs, a chain of a few dozen
	// callbacks that mostly return at once, at ~100 ns each; not timed.
	NotifierCall time.Duration
	// DevRegister is register_netdevice's fixed work (sysfs, kobjects,
	// queues). Measured: 135 µs, register_netdevice's share of `ip -batch`
	// creating 1000 ifb devices (costs.sh -s dev, DevRegister@1000:
	// 134.7 µs and 120.6 µs in two runs; 101 µs at 2000). ifb stands for
	// the software devices of the seeds (dummy and vlan are not on the VM).
	DevRegister time.Duration
	// DevUnregister is the per-device unregister work under RTNL outside the
	// IPv6 FIB walks and the RCU waits (notifiers, sysfs, kobject
	// teardown). Measured: 133 µs, unregister_netdevice_many_notify's share
	// of `ip link del group` of 1000 ifb devices less the IPv6 walks, the
	// grace periods and rcu_barrier (costs.sh -s dev, DevUnregister@1000:
	// 133.1 µs and 127.4 µs in two runs; 150 µs at 2000, 211 µs deleting one
	// device a request).
	DevUnregister time.Duration
	// AddrOp is adding or removing one IPv4/IPv6 address (allocation, hash
	// insert, netlink notification). Estimate: 20 µs, the order of an
	// address request's kernel work beyond the syscall (the development VM
	// spends 135–260 µs of kernel time per `ip link add` or `ip link set
	// up` of an ifb, costs.sh -s dev, LinkAddIfb.sys and LinkSetUp.sys, of
	// which address work is a part); not timed alone.
	AddrOp time.Duration
	// Fib6Visit is one IPv6 route visited by fib6_clean_all (the walker,
	// the per-route callback and its locks). Calibrated: the one number
	// taken from seed 004, its group deletion of 10 000 devices in 30 s
	// (scenario.Calibrations). The development VM spends 30–40 ns a
	// fib6_ifdown call in a group deletion's walks at 500 to 4000 devices
	// (perf's share of rt6_disable_ip over its 1.5·N²+5.5·N calls, load
	// average 5–10: costs.sh -s dev -d 500, Fib6Visit@500 32 and 34 ns,
	// @1000 30 and 40 ns; costs.sh -s walks, 33 ns at 2000, 36 at 4000)
	// and deletes 1000 devices by group in 0.26 s; seed 004's machine took
	// 3 ms per device at 10 000. The 20–23 ns costs.sh gave before divided
	// all of the walks' time by 3·N², as if the NETDEV_UNREGISTER walks saw
	// the group's routes (they run after every device is down and its
	// routes gone) and as if the node walks of fib6_flush_trees at each
	// link-local address deletion (a quarter of the time, 9–27 ns a node,
	// charged by no kind) were route visits.
	Fib6Visit time.Duration
	// RCUCallback is invoking one RCU callback. Estimate: 1 µs: the frees
	// and reference drops a callback does take well under that; rounded up
	// for the batch's own overhead.
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
	// notification). Measured: 3.1 µs, rtm_new_nexthop's share of `ip
	// -batch` adding 65 536 nexthops (costs.sh -s batch, nh_add.handler:
	// 3.14 µs). No seed times nexthop creation.
	NexthopAdd time.Duration
	// NexthopRemove is removing one nexthop object (rb_erase, hlist_del,
	// marking its fib_info dead, the RCU-deferred free). Measured: 390 ns,
	// `ip link set DEV down` removing 65 536 nexthops that no route uses,
	// less the same without them, per nexthop (costs.sh -s split,
	// NexthopRemove@65536: 386 ns; 465 ns at 16 384; 285–411 ns over runs).
	NexthopRemove time.Duration
	// TrieNodeVisit is entering one tnode of the IPv4 FIB trie (index
	// computation, child load). Estimate: 3 ns; walks enter few tnodes per
	// leaf (seed 000's trie has 4 tnodes for 65,539 leaves), so this matters
	// for lookups and inserts, not for flushes.
	TrieNodeVisit time.Duration
	// TrieLeafVisit is one leaf visited by a table walk, all-in: the child
	// slots scanned to reach it, its fib_alias list and the fib_info dead-flag
	// test. Measured: 8 ns. The 6.18 kernel of the development VM does not
	// have seed 000's patch: its `ip link set testnh0 down` after seed 000's
	// set-up flushes the FIB once per nexthop, N²+6N leaf visits for
	// N = 65 536 (two walks a flush: local shares main's trie). Its CPU time
	// less that of the patched work, per visit, is 7.8 ns (33.7 s) in the
	// run this value was taken from; costs.sh -s seed000 (TrieLeafVisit)
	// gives 5.7–10 ns over runs on the same VM (9.95 ns, 42.8 s, in the
	// last). The alias scans and fib_info examinations of a walk are folded
	// into it and cost nothing by themselves.
	TrieLeafVisit time.Duration
	// FibAliasInsert is inserting or replacing one route (fib_create_info or
	// fib_find_info, the fib_alias, notifiers, rtmsg_fib). Measured: 4.0 µs,
	// inet_rtm_newroute's share of `ip -batch` adding 65 536 /32 routes
	// (costs.sh -s batch, rt_gw_add.handler 3.97 µs, rt_nhid_add.handler
	// 4.02 µs). No seed times route insertion.
	FibAliasInsert time.Duration
	// FibAliasRemove is removing one route (hlist_del, fib_release_info,
	// notifiers, the RCU-deferred frees), in a flush. Measured: 980 ns,
	// `ip link set DEV down` flushing 65 536 /32 routes that each have their
	// own fib_info (as seed 000's do), less the same without them, per route
	// (costs.sh -s split, FibAliasRemove.own@65536: 977.5 ns; 909 ns at
	// 16 384; routes sharing one fib_info cost 285 ns).
	FibAliasRemove time.Duration
	// RuleScan is one fib_rule compared by rule_exists (or walked by
	// rule_find and fib_rules_lookup). Measured: ≈5.7 ns per existing rule
	// (mechanisms/SEED003.md, the IPv4 slope on the 6.18 VM); a Duration
	// holds whole nanoseconds, so the default is 6 ns.
	RuleScan time.Duration
	// RuleChange is the fixed part of adding or deleting one rule under the
	// lock (nl2rule leftovers, configure, list insert, hand-over). Estimate:
	// 2.5 µs, the order of the fixed cost seed 003's IPv4 run implies
	// (mechanisms/SEED003.md §3). Only seed 003 changes rules, and it runs
	// with its own calibrated value (scenario.Seed003RuleChange): no
	// published time depends on this default.
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
	// IfaScan is one in_ifaddr examined in a walk of a device's IPv4
	// address list (a pointer chase and a mask compare). Measured: 7 ns,
	// from `ip -batch` adding 50 000 /32 addresses to one veth that is down
	// (sudo bash internal/measure/addrs.sh, "inet 50000": real 27.2 s, user
	// 0.1 s, sys 18.6 s): its sys time less the work charged apart per
	// address (30.8 µs, the virtual time of one add to an empty device),
	// over its N² scans (find_matching_ifa and __inet_insert_ifa each walk
	// the whole list): 6.8 ns, and 6.8 ns in a second run (real 29.1 s).
	// The list is allocated in order and its walk prefetched; it costs less
	// while the list fits the 2 MB L2 (2.8–2.9 ns at 10 000, 5.3–5.6 ns at
	// 20 000), which this constant does not model.
	IfaScan time.Duration
	// Inet4HashVisit is one address visited by check_lifetime's walk of
	// the namespace's IPv4 address hash. Measured: 7 ns, the same runs'
	// real time less their user and sys time (8.5 s, 10.4 s) over the
	// walk's N(N+1)/2 visits: 6.8 and 8.3 ns (addrs.sh, inet4_hash_visit).
	// The kworker each add wakes is per-CPU: it runs on the CPU of `ip`
	// and preempts it, so its time is the requester's.
	Inet4HashVisit time.Duration
	// Inet6HashVisit is one address visited by addrconf_verify_rtnl's walk
	// of the namespace's IPv6 address hash (its chains run against the
	// order of allocation: no prefetch). Measured: 17 ns, from `ip -batch`
	// adding 20 000 /128 addresses to one veth that is down (addrs.sh,
	// "inet6 20000": real 5.41 s): its real time less the work charged
	// apart per address (26.8 µs) is N(N+1)/2 of this walk's visits and as
	// many solicited-node join scans (McListScan), 24.4 ns a pair, which
	// perf's shares of addrconf_verify_rtnl and __ipv6_dev_mc_inc (25.0%
	// and 10.9% of the samples) split into 17.0 and 7.4 ns (a second run:
	// 5.15 s, 15.3 and 7.8 ns). Past ~30 000 addresses the structures these
	// walks touch outgrow the 32 MB L3 and a pair costs several times more
	// (125 ns at 40 000: 101 s), which these constants do not model.
	Inet6HashVisit time.Duration
	// McListScan is one multicast group examined walking a device's group
	// list (ifmcaddr6 or ip_mc_list). Measured: 7 ns, the other part of the
	// IPv6 runs of Inet6HashVisit (7.4 and 7.8 ns).
	McListScan time.Duration
	// FibDevhashVisit is one fib_info visited by fib_sync_up's walk of its
	// device's fib_info_devhash chain (a fib_nh, its fib_info's flags and
	// fib_rebalance's early return), all-in. Measured: 115 ns, from `ip
	// -batch` adding 50 000 /32 addresses to one veth, once down and once
	// up with its peer (sudo V4= V6= UP4=50000 bash
	// internal/measure/addrs.sh, "inet up 50000"): on a device that is up
	// every add also walks the chain, which holds a fib_info per address
	// (its local route's), N(N+1)/2 visits, and nothing else an add does
	// depends on the device's state; the real time up less the real time
	// down over those visits was 97.7 ns (149.1 s against 26.9 s) and
	// 132.8 ns (191.3 s against 25.3 s) in two runs; 115 ns is their mean.
	// The real time, not the sys time alone (56.7 and 79.8 ns), because
	// the fib_infos' 25 MB and more push the other walks (check_lifetime's
	// kworker) out of the 32 MB L3 too. While the chain fits the caches a
	// visit costs far less, 15.2–18.1 ns all-in at 10 000 and 20 000
	// (8.0–9.7 ns of sys time), which this constant does not model: it
	// overestimates those runs three- to fourfold. No seed has more than a
	// few fib_infos on a device's chain.
	FibDevhashVisit time.Duration

	// Memory is the cache hierarchy that work charged with a Footprint
	// (Task.ChargeIn) stalls in once its working set outgrows L2. The zero
	// Memory adds no stall: every per-unit cost then stands for any scale.
	Memory Memory

	// Waits (virtual time that is not CPU time).

	// GracePeriod is one normal RCU grace period. Measured: 10.5 ms, the mean
	// latency of synchronize_rcu (membarrier(MEMBARRIER_CMD_GLOBAL), 300
	// calls; costs.sh -s gp, GracePeriod.mean: 10.5 ms); the median is
	// 7.98 ms, two jiffies at HZ=250, and a third of the calls take four.
	// The mean is what a sum of many waits sees.
	GracePeriod time.Duration
	// ExpeditedGP is one synchronize_rcu_expedited (synchronize_net under
	// RTNL). Measured: 35 µs, the mean sleep in synchronize_rcu_expedited
	// over 200 one-by-one `ip link del` (costs.sh -s dev, ExpeditedGP.mean:
	// 34.8 µs; median 23–27 µs, p10 11 µs, p90 71 µs over two runs; 80–100 µs
	// median with the other CPU busy). The mean, as for GracePeriod, is what
	// a sum of many waits sees.
	ExpeditedGP time.Duration
	// BarrierOverhead is rcu_barrier's own latency beyond the callbacks it
	// waits for (IPIs to entrain the barrier callback on every CPU and the
	// wake-up). Estimate: 100 µs. On the development VM an rcu_barrier
	// sleeps 15 ms per one-by-one `ip link del` (costs.sh -s dev,
	// RCUBarrier.onebyone), about two grace periods, which the model's
	// barrier waits for as callbacks; its own cost beyond them cannot be
	// told apart.
	BarrierOverhead time.Duration
	// Jiffy is one scheduler tick; msleep(m) sleeps m ms rounded up to
	// jiffies plus one jiffy. Estimate: 1 ms (HZ=1000), so msleep(250)
	// takes 251 ms; the seeds do not say their kernels' HZ. The development
	// VM has HZ=250, which makes it 252 ms.
	Jiffy time.Duration
}

// DefaultCosts is the documented default cost model.
var DefaultCosts = Costs{
	Syscall:         3400 * time.Nanosecond,
	HWAddrCompare:   16 * time.Nanosecond,
	HWAddrIterate:   12 * time.Nanosecond,
	RxModeSync:      1 * time.Microsecond,
	NotifierCall:    5 * time.Microsecond,
	DevRegister:     135 * time.Microsecond,
	DevUnregister:   133 * time.Microsecond,
	AddrOp:          20 * time.Microsecond,
	Fib6Visit:       190 * time.Nanosecond,
	RCUCallback:     1 * time.Microsecond,
	IPExec:          1800 * time.Microsecond,
	NetnsExec:       2 * time.Millisecond,
	Fork:            340 * time.Microsecond,
	IPBatchLine:     1700 * time.Nanosecond,
	NexthopAdd:      3100 * time.Nanosecond,
	NexthopRemove:   390 * time.Nanosecond,
	TrieNodeVisit:   3 * time.Nanosecond,
	TrieLeafVisit:   8 * time.Nanosecond,
	FibAliasInsert:  4 * time.Microsecond,
	FibAliasRemove:  980 * time.Nanosecond,
	RuleScan:        6 * time.Nanosecond,
	RuleChange:      2500 * time.Nanosecond,
	Fib6TableWalk:   76 * time.Nanosecond,
	Fib6NewTable:    370 * time.Nanosecond,
	IfaScan:         7 * time.Nanosecond,
	Inet4HashVisit:  7 * time.Nanosecond,
	Inet6HashVisit:  17 * time.Nanosecond,
	McListScan:      7 * time.Nanosecond,
	FibDevhashVisit: 115 * time.Nanosecond,
	GracePeriod:     10500 * time.Microsecond,
	ExpeditedGP:     35 * time.Microsecond,
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
