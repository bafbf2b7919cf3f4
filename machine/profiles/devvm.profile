# The development VM's profile: every value measured on the VM by a
# micro-experiment (internal/measure: `sudo bash internal/measure/costs.sh
# -s SECTION`, each experiment in a private network namespace; the output
# line each value is taken from is named) or estimated with its reason. No
# value here is fitted to a published time. sim.DefaultCosts is this
# profile's costs (TestDefaultCostsAreDevVM).
name devvm
title The development VM: AMD EPYC (Zen 4) under KVM, 2 vCPUs, Linux 6.18
cpu AMD EPYC (Zen 4: family 25, model 17, stepping 1) under KVM
cpus 2 measured lscpu: CPU(s): 2 (1 socket, 2 cores, 1 thread per core)
hz 250 measured /proc/config.gz: CONFIG_HZ=250
kernel 6.18.44
pagesize 4K measured getconf PAGESIZE: 4096
date 2026-11-30 to 2026-12-06

# CPU time per unit of work.
Syscall 3.4µs measured costs.sh -s batch: nh_del_missing.syscall 3.36 µs, the kernel time of a failing
    `nexthop del` outside rtm_del_nexthop (3.3–4.3 µs for the other requests it times)
HWAddrCompare 5ns estimated a pointer chase and a 6-byte compare within L2 (Zen 4's L2 hit, ≈4 ns,
    and the compare), until a measurement on the VM replaces it
HWAddrIterate 12ns estimated a pointer chase that misses L2 on Haswell-EP (the lists of seed 001
    outgrow its 256 KB L2), between its L2 (≈5 ns) and L3 (≈17 ns) latencies
RxModeSync 1µs estimated a software device programs no filter and the list walk is counted apart
    (HWAddrIterate): what is left of ndo_set_rx_mode is a lock and a call
NotifierCall 5µs estimated a netdev notifier chain of a few dozen callbacks that mostly return at
    once, at ~100 ns each; not timed
DevRegister 135µs measured costs.sh -s dev: DevRegister@1000 134.7 µs and 120.6 µs in two runs
    (register_netdevice's share of `ip -batch` creating 1000 ifb devices; 101 µs at 2000); ifb
    stands for the seeds' software devices (dummy and vlan are not on the VM)
DevUnregister 133µs measured costs.sh -s dev: DevUnregister@1000 133.1 µs and 127.4 µs in two runs
    (unregister_netdevice_many_notify's share of `ip link del group` of 1000 ifb devices less the
    IPv6 walks, the grace periods and rcu_barrier; 150 µs at 2000, 211 µs deleting one device a
    request)
AddrOp 20µs estimated the order of an address request's kernel work beyond the syscall (the VM
    spends 135–260 µs of kernel time per `ip link add` or `ip link set up` of an ifb, costs.sh -s
    dev, LinkAddIfb.sys and LinkSetUp.sys, of which address work is a part); not timed alone
Fib6Visit 21ns measured costs.sh -s dev: Fib6Visit@1000 20–23 ns over two runs (__fib6_clean_all's
    share of `ip link del group` of 1000 ifb devices per route visited)
RCUCallback 1µs estimated the frees and reference drops a callback does take well under that;
    rounded up for the batch's own overhead
IPExec 1.8ms measured 1.8 ms per `ip link set DEV up` in a bash loop on the VM
NetnsExec 2ms measured `ip netns exec NS ip link set lo up` at 3.8 ms per command on the VM, less
    IPExec
Fork 340µs measured 0.34 ms per job for `for ...; do true & done` in bash on the VM
IPBatchLine 1.7µs measured user time of `ip -4 -batch` adding 4096 rules on the VM, per line
NexthopAdd 3.1µs measured costs.sh -s batch: nh_add.handler 3.14 µs (rtm_new_nexthop's share of
    `ip -batch` adding 65 536 nexthops)
NexthopRemove 390ns measured costs.sh -s split: NexthopRemove@65536 386 ns (`ip link set DEV down`
    removing 65 536 nexthops no route uses, less the same without them, per nexthop; 465 ns at 16
    384; 285–411 ns over runs)
TrieNodeVisit 3ns estimated an index computation and a child load; walks enter few tnodes per leaf
    (seed 000's trie has 4 tnodes for 65 539 leaves), so it matters for lookups and inserts, not
    for flushes
TrieLeafVisit 8ns measured costs.sh -s seed000: TrieLeafVisit 7.8 ns (the unpatched 6.18 kernel's
    `ip link set testnh0 down` after seed 000's set-up, N²+6N leaf visits for N = 65 536, its CPU
    time less that of the patched work, per visit: 33.7 s); 5.7–10 ns over runs (9.95 ns, 42.8 s,
    in the last); the alias scans and fib_info examinations are folded into it
FibAliasInsert 4µs measured costs.sh -s batch: rt_gw_add.handler 3.97 µs, rt_nhid_add.handler 4.02
    µs (inet_rtm_newroute's share of `ip -batch` adding 65 536 /32 routes)
FibAliasRemove 980ns measured costs.sh -s split: FibAliasRemove.own@65536 977.5 ns (`ip link set DEV
    down` flushing 65 536 /32 routes with a fib_info each, less the same without them, per route;
    909 ns at 16 384; routes sharing one fib_info cost 285 ns)
RuleScan 6ns measured ≈5.7 ns per existing rule, the slope of `ip rule add` time against the rules
    present on the VM (mechanisms/SEED003.md, IPv4); a Duration holds whole nanoseconds
RuleChange 2.5µs estimated the order of the fixed cost seed 003's IPv4 run implies
    (mechanisms/SEED003.md §3); no published time depends on it (seed 003 runs on its own machine's
    value)
Fib6TableWalk 76ns measured ≈76 ns per existing table on the VM (mechanisms/SEED003.md §1, perf in
    __fib6_clean_all)
Fib6NewTable 370ns measured ≈0.37 µs on the VM (perf: fib6_rule_configure with its callees is 0.61%
    of the samples of `ip -6 -batch` adding 1024 rules at 61 µs a rule)
IfaScan 7ns measured sudo bash internal/measure/addrs.sh, "inet 50000": real 27.2 s, user 0.1 s, sys
    18.6 s; its sys time less the work charged apart per address (30.8 µs) over its N² scans
    (find_matching_ifa, __inet_insert_ifa): 6.8 ns, and 6.8 ns in a second run (real 29.1 s);
    2.8–2.9 ns at 10 000 and 5.3–5.6 ns at 20 000, while the list fits the L2
Inet4HashVisit 7ns measured addrs.sh, inet4_hash_visit: the same runs' real time less their user and
    sys time (8.5 s, 10.4 s) over check_lifetime's N(N+1)/2 visits: 6.8 and 8.3 ns
Inet6HashVisit 17ns measured addrs.sh, "inet6 20000": real 5.41 s less the work charged apart per
    address (26.8 µs) is N(N+1)/2 visits of addrconf_verify_rtnl and as many solicited-node join
    scans, 24.4 ns a pair, which perf's shares (25.0% and 10.9%) split into 17.0 and 7.4 ns (a
    second run: 5.15 s, 15.3 and 7.8 ns); past ~30 000 addresses a pair costs several times more
    (125 ns at 40 000: 101 s)
McListScan 7ns measured addrs.sh, the other part of the IPv6 runs of Inet6HashVisit (7.4 and 7.8
    ns)
FibDevhashVisit 115ns measured sudo V4= V6= UP4=50000 bash internal/measure/addrs.sh, "inet up
    50000": the real time up less the real time down over fib_sync_up's N(N+1)/2 visits, 97.7 ns
    (149.1 s against 26.9 s) and 132.8 ns (191.3 s against 25.3 s) in two runs, their mean; 15.2–18.1
    ns all-in at 10 000 and 20 000, while the chain fits the caches
Fib6FlushNode 17ns measured costs.sh -s walks: WalkShare.*.flush, perf's share of fib6_flush_trees
    in `ip link del group` of 2000 and 4000 ifb devices up (23–27% of the IPv6 walks' time) over the
    nodes it walks, n(F0+F1)/2 with F rt6_stats' fib_nodes: 18 and 17 ns (load average 5–10)

# The cache hierarchy one CPU sees (sim.Memory). The latencies are Zen 4's
# published load-to-use latencies at the VM's clock until internal/measure's
# memory-latency experiment replaces them.
Memory.L1 32K measured lscpu: L1d cache 64 KiB (2 instances), 32 KiB a core
Memory.L2 1M measured lscpu: L2 cache 2 MiB (2 instances), 1 MiB a core
Memory.L3 32M measured lscpu: L3 cache 32 MiB (1 instance), shared
Memory.L1Hit 1ns estimated Zen 4's published L1d load-to-use latency, 4–5 cycles, at the VM's ≈2.6
    GHz (BogoMIPS 5192)
Memory.L2Hit 4ns estimated Zen 4's published L2 load-to-use latency, 14 cycles, at ≈2.6 GHz
Memory.L3Hit 14ns estimated Zen 4's published L3 load-to-use latency, ≈50 cycles, at ≈2.6 GHz,
    rounded up for the VM's shared L3
Memory.DRAM 100ns estimated a typical DRAM load-to-use latency of a Zen 4 server (≈75 ns plus the
    L3 miss path and the VM's nested page walk), not measured
Memory.L3Seq 14ns estimated as L3Hit, until memlat -obj measures a chase in allocation order
Memory.DRAMSeq 100ns estimated as DRAM, until memlat -obj measures a chase in allocation order

# Waits (virtual time that is not CPU time).
GracePeriod 10.5ms measured costs.sh -s gp: GracePeriod.mean 10.5 ms, the mean latency of
    synchronize_rcu (membarrier(MEMBARRIER_CMD_GLOBAL), 300 calls); the median is 7.98 ms, two
    jiffies at HZ=250, and a third of the calls take four; the mean is what a sum of many waits sees
ExpeditedGP 35µs measured costs.sh -s dev: ExpeditedGP.mean 34.8 µs, the mean sleep in
    synchronize_rcu_expedited over 200 one-by-one `ip link del` (median 23–27 µs, p10 11 µs, p90 71
    µs over two runs; 80–100 µs median with the other CPU busy)
BarrierOverhead 100µs estimated rcu_barrier's own latency beyond the callbacks it waits for (IPIs,
    the wake-up): an rcu_barrier sleeps 15 ms per one-by-one `ip link del` on the VM (costs.sh -s
    dev, RCUBarrier.onebyone), about two grace periods, which the model waits for as callbacks; its
    own cost beyond them cannot be told apart
Jiffy 1ms estimated HZ=1000 (msleep(250) takes 251 ms), the value the seeds' machines run with (the
    seeds do not say their kernels' HZ); this VM has HZ=250, a 4 ms jiffy (msleep(250) = 252 ms),
    which the profile does not yet take so that every seed keeps one jiffy
