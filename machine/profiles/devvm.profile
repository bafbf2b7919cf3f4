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
HWAddrIterate 12ns estimated no experiment on the VM isolates a hardware address list walk (this
    kernel's lists are rbtree-indexed and its macvlan ups are dominated by IPv6 walks); kept from
    the estimate of a pointer chase missing Haswell-EP's L2 (between its L2, ≈5 ns, and L3, ≈17 ns).
    The memory model adds a list's stall past the VM's L2 on top, so for long lists it counts part
    of the miss twice
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
AddrOp 3.7µs measured sudo V4= V6= UP4= FIT="1500 2000 2500 3000" bash internal/measure/addrs.sh:
    the CPU time of `ip -batch` adding N addresses to a device that is down, fitted to a·N + c·N²
    over 12 runs a family (idle VM, 2026-12-06): a = 14.3 µs an IPv4 address, 11.1 µs an IPv6 one;
    less what netsim charges an add apart (IPBatchLine, one Syscall, and the local route's
    FibAliasInsert for IPv4 or an RCUCallback for IPv6): 3.8 and 3.6 µs
Fib6Visit 30ns measured costs.sh -s dev -d 500: 32 and 34 ns a fib6_ifdown call at 500 devices
    (perf's share of rt6_disable_ip in `ip link del group` of 500 ifb devices over its 1.5·N²+5.5·N
    calls; load average 5–9), less the memory model's stall at that working set (0.9 MB: 3 ns); 33
    and 36 ns at 2000 and 4000 (costs.sh -s walks)
RCUCallback 1µs estimated the frees and reference drops a callback does take well under that;
    rounded up for the batch's own overhead
IPExec 1.44ms measured costs.sh -s exec: IPExec.loop 1.44 ms (1.25–1.62 over two runs; 1.33–1.47 in
    four more loops, idle VM, 2026-12-06), a bash loop of 1000 `ip link set lo up` with lo up, per
    process; its two requests (~7 µs) are in it
NetnsExec 100µs measured costs.sh -s exec: NetnsExec.loop 99 µs (31–166 over two runs, idle VM,
    2026-12-06): the same loop as `ip -n NS link set lo up` less the loop without -n, per process
    (setns, a new mount namespace, /sys remounted)
Fork 223µs measured costs.sh -s exec: Fork 223 µs (220–225 over two runs, idle VM, 2026-12-06), a
    bash loop forking 1000 `true &`, then waiting, per job
IPBatchLine 3.1µs measured costs.sh -s batch: IPBatchLine 3.14 µs (2.79–3.49 over two runs, idle VM,
    2026-12-06): ip's user time a line of `ip -batch` adding 65 536 nexthops (0.76 µs) and the page
    faults of its heap, which keeps ~4 KiB a line that changes something (2.38 µs; nh_add.pagefault,
    2.2–2.4 µs for route adds and deletes, none for `link show` or a failing request)
NexthopAdd 3.1µs measured costs.sh -s batch: nh_add.handler 3.14 µs (rtm_new_nexthop's share of
    `ip -batch` adding 65 536 nexthops)
NexthopRemove 390ns measured costs.sh -s split: NexthopRemove@65536 386 ns (`ip link set DEV down`
    removing 65 536 nexthops no route uses, less the same without them, per nexthop; 465 ns at 16
    384; 285–411 ns over runs)
TrieNodeVisit 3ns estimated an index computation and a child load; walks enter few tnodes per leaf
    (seed 000's trie has 4 tnodes for 65 539 leaves), so it matters for lookups and inserts, not
    for flushes
TrieLeafVisit 4ns measured costs.sh -r 3 -s seed000 -n 4096: 3.7–3.9 ns (the unpatched 6.18
    kernel's `ip link set testnh0 down` after seed 000's set-up at N = 4096, its CPU time less that
    of the patched work, over N²+6N leaf visits; idle VM, 2026-12-06); the working set, 1.5 MB,
    stalls no more than L2 does in the memory model; the alias scans and fib_info examinations are
    folded into it
FibAliasInsert 4µs measured costs.sh -s batch: rt_gw_add.handler 3.97 µs, rt_nhid_add.handler 4.02
    µs (inet_rtm_newroute's share of `ip -batch` adding 65 536 /32 routes)
FibAliasRemove 290ns measured costs.sh -s split: FibAliasRemove.shared@65536, 285 ns (idle VM,
    2026-12-05) and 298–431 ns over two runs (idle VM, 2026-12-06): `ip link set DEV down` flushing
    65 536 /32 routes that share one fib_info, less the same without them, per route; 246–674 ns at
    16 384
RuleScan 2ns measured costs.sh -s rules: RuleScan 2.4 ns, and 1.8 ns in the same fit by hand (IPv4
    rule adds at 1500–4000 rules, 2026-12-06, load 1–2): twice the N² term of the CPU time fitted
    to a·N + c·N², rule_exists scanning the rules there
RuleChange 6.4µs measured costs.sh -s rules: RuleFixed4, the a of the same fit, 12.0 and 13.9 µs in
    two runs (2026-12-06, load 1–2), less what netsim charges an add apart (IPBatchLine, one
    Syscall): 6.4 µs by their mean
Fib6TableWalk 115ns measured costs.sh -s rules: Fib6TableWalk 127 ns, and 103 ns in the same fit by hand
    (IPv6 rule adds at 256–640 rules, 2026-12-06, load 1–2): twice the N² term less RuleScan, each
    add's fib6_flush_trees walking every table there; 115 ns by their mean
Fib6NewTable 3.5µs measured costs.sh -s rules: RuleFixed6 less RuleFixed4, the fixed work an IPv6
    rule add has beyond an IPv4 one (fib6_new_table and its table's first walk): 14.2 − 12.0 and
    18.5 − 13.9 µs in two runs (2026-12-06, load 1–2), 3.5 µs by their mean
IfaScan 4ns measured sudo V4="2000 5000" V6="2000 5000" bash internal/measure/addrs.sh: time =
    a·N + c·N² fitted to the two sizes, c over the N² scans of find_matching_ifa and
    __inet_insert_ifa: 4.2 ns (machine about 50% busy); the list, 0.6 MB at 5000, fits L2
Inet4HashVisit 5ns measured addrs.sh at 2000 and 5000 (as IfaScan): 5.1 ns a visit of
    check_lifetime's walk; 0.6 MB at 5000
Inet6HashVisit 5ns measured addrs.sh at 2000 and 5000 (as IfaScan): the pair of a hash visit and a
    group scan costs 18.6 ns, perf's shares (20.0% and 9.6% at 5000) split it into 12.6 and 6.0 ns;
    less the memory model's stall of the hash walk at the middle size (3500 inet6_ifaddrs, 1.75 MB,
    out of allocation order: 7.9 ns): 4.7 ns
McListScan 5ns measured addrs.sh at 2000 and 5000 (as Inet6HashVisit): 6.0 ns, less the memory
    model's stall of the group list at the middle size (0.9 MB in allocation order: 1 ns)
FibDevhashVisit 13ns measured sudo UP4=5000 bash internal/measure/addrs.sh: 13.9 ns all-in a
    visit of fib_sync_up's fib_info_devhash walk at 5000 addresses on a device that is up (the real
    time up less down over the N(N+1)/2 visits), less the memory model's stall (1.3 MB in allocation
    order: 1 ns)
Fib6FlushNode 17ns measured costs.sh -s walks: WalkShare.*.flush, perf's share of fib6_flush_trees
    in `ip link del group` of 2000 and 4000 ifb devices up (23–27% of the IPv6 walks' time) over the
    nodes it walks, n(F0+F1)/2 with F rt6_stats' fib_nodes: 18 and 17 ns (load average 5–10)
Fib6RouteInsert 5.2µs measured sudo bash internal/measure/route6.sh: `ip -6 -batch` of 30 000 route
    adds through a veth, 10.7–11.1 µs of kernel time an add over three runs (idle VM, 2026-12-06),
    less the request (Syscall, 3.4 µs) and the page fault of ip's heap a line (2.3 µs, in
    IPBatchLine)
Fib6RouteRemove 1.5µs measured sudo bash internal/measure/route6.sh: `ip link set v0 down` with 30
    000 IPv6 routes through v0 less without, per route: 1.43–1.53 µs over three runs (idle VM,
    2026-12-06); the walk's own visits (30 ns each) are in it

FibInfoFree 700ns measured costs.sh -s split: FibAliasRemove.own@65536 less FibAliasRemove.shared@65536,
    the routes' flush with a fib_info each (metric i) less the same sharing one: 977 − 285 = 692 ns
    (2026-12-05) and 1037–1294 less 298–431 ns, 802 ns by the medians (2026-12-06)

FibRouteDelete 3.6µs measured costs.sh -s batch: rt_gw_del.handler 3.05–4.19 µs over four runs,
    3.6 µs by their median (idle VM, 2026-12-06): inet_rtm_delroute's share of `ip -batch` deleting
    65 536 /32 routes that share one fib_info
Fib6RouteDelete 2.6µs measured sudo bash internal/measure/route6.sh: del.sys/N, the kernel time of
    an `ip -6 -batch` line deleting one of 30 000 routes, 9.1–10.3 µs over three runs (idle VM,
    2026-12-06; median 9.83), less the request (Syscall, 3.4 µs), the page fault of ip's heap a line
    (2.3 µs, in IPBatchLine) and the removal itself (Fib6RouteRemove, 1.5 µs)
NeighAdd 3µs measured sudo bash internal/measure/neigh.sh: add.sys/N, the kernel time of an `ip
    -batch` line adding one of 30 000 permanent IPv4 neighbours, 8.03–9.37 µs over three runs (load
    3, 2026-12-06; median 8.70), less the request (Syscall, 3.4 µs) and the page fault of ip's heap
    a line (2.3 µs, in IPBatchLine)
NeighRemove 4.4µs measured sudo bash internal/measure/neigh.sh: del.sys/N, the same for `neigh del`
    of those 30 000 entries, 9.73–10.17 µs over three runs (load 3, 2026-12-06; median 10.13),
    less the request (3.4 µs) and the page fault a line (2.3 µs)
NeighVisit 12ns estimated as HWAddrIterate: one step along a hash chain or a list of small
    structures in cache
VxlanVNIScan 40ns measured sudo bash internal/measure/vxlan.sh: perf's samples of vxlan_vni_in_use
    in `ip -batch` creating 3000 and 6000 vxlans (41–54% of the time at 6000) over the N(N-1)/2
    devices it walks: 33.6–40.3 ns at 3000 and 38.1–49.7 ns at 6000 over three runs each (load
    8.3–8.9, 2026-12-06), all-in: the misses of the walk are included, as no Footprint is charged

# The cache hierarchy one CPU sees (sim.Memory), measured by a dependent
# pointer chase over 2 MB pages (sudo bash internal/measure/costs.sh -s mem,
# or go run ./internal/measure/memlat [-obj N]) on an idle VM (load 0.9,
# 2026-12-06). The capacities are the chase's effective ones: what the
# capacity model (a level of capacity C holds min(1, C/ws) of a working set
# ws) fits to the measured curve, not sysfs's 1 MiB L2 and 32 MiB L3: the
# VM's L3 is shared with the host's other tenants, and the random chase
# falls off its L3 plateau between 8 and 12 MiB (22 ns at 8 MiB, 124 ns at
# 24 MiB).
Memory.L1 32K measured sysfs: /sys/devices/system/cpu/cpu0/cache (L1d, 32 KiB)
Memory.L2 724K measured memlat: the random chase's effective L2 capacity, fitted to its curve (sysfs:
    1 MiB)
Memory.L3 8M measured memlat: the random chase's effective L3 capacity, fitted to its curve (8.00
    MiB; sysfs: 32 MiB)
Memory.L1Hit 1.1ns measured memlat: 1.10 ns, the random chase at 16–24 KiB
Memory.L2Hit 4.86ns measured memlat: 4.86 ns, the random chase at 64–256 KiB, less the L1's share
Memory.L3Hit 18.38ns measured memlat: 18.38 ns, the random chase at 1.5–3 MiB, less the levels above
Memory.DRAM 178.5ns measured memlat: 178.5 ns, the random chase at 32–256 MiB (156–171 ns measured),
    less the levels above
Memory.SeqL3 16M measured memlat -obj 512 and -obj 128: the chase in allocation order stays on its
    L3 plateau to 12 MiB and leaves it between 16 and 24 MiB (16.6 and 125 ns a load over 512-byte
    objects at 12 and 24 MiB; 8.6 and 36.5 ns over 128-byte ones at 16 and 24 MiB)
Memory.SeqL3Hit128 5.26ns measured memlat -obj 128: 5.22–5.51 ns a load at 2–8 MiB, median 5.26
Memory.SeqDRAM128 41.97ns measured memlat -obj 128: 40.4–42.5 ns a load at 32–256 MiB, median 41.97
Memory.SeqL3Hit512 14.8ns measured memlat -obj 512: 14.50–14.96 ns a load at 3–8 MiB, median 14.80
Memory.SeqDRAM512 147ns measured memlat -obj 512: 145.9–149.4 ns a load at 48–256 MiB, median 147.0

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
RCUTick 4ms measured /proc/config.gz: CONFIG_HZ=250, the scheduling-clock tick at which a CPU
    does RCU's work for its callbacks; rcubarrier.sh (-n 200, eight runs, 2026-12-06, load 0.3-3.3)
    shows it: each one-by-one deletion's rcu_barrier returns 4.0-4.05 ms (median
    gp_end_to_barrier_end) after its grace period ends, at the tick that notices the end, and
    barrier_interval, one deletion's cycle, is a whole number of ticks (16.0 ms median, four: the
    tick that asks for the grace period, its two or more, the tick that notices its end)
GracePeriodTicks2 806 measured sudo bash internal/measure/rcubarrier.sh -n 200, seven runs
    (2026-12-06, load 1.2-3.3): barrier_gp_ticks, the grace period each of 1397 one-by-one
    deletions' rcu_barrier waited for, from the tick its callbacks asked for it at to the tick
    before the one that noticed its end: 1126 of two ticks (the 17 at zero or one, callbacks queued
    in the tick before the barrier began, counted here), per mille; 781-920 in the single runs
GracePeriodTicks3 134 measured rcubarrier.sh -n 200 (as GracePeriodTicks2): 187 of 1397 of three
    ticks; 40-170 in the single runs
GracePeriodTicks4 29 measured rcubarrier.sh -n 200 (as GracePeriodTicks2): 41 of 1397 of four ticks
GracePeriodTicks5 24 measured rcubarrier.sh -n 200 (as GracePeriodTicks2): 33 of 1397 of five ticks
GracePeriodTicks6 7 measured rcubarrier.sh -n 200 (as GracePeriodTicks2): 10 of 1397 of six ticks
    or more (at most nine); the mean is 2.29 ticks, 9.2 ms
GracePeriodPastTick 20µs measured rcubarrier.sh -n 200 (as GracePeriodTicks2):
    gp_kthread_busy_excess, the grace-period kthread's busy period past its whole ticks, median
    12-28 µs over eight runs: the wake-up on the last quiescent state and rcu_gp_cleanup
Jiffy 1ms estimated HZ=1000 (msleep(250) takes 251 ms), the value the seeds' machines run with (the
    seeds do not say their kernels' HZ); this VM has HZ=250, a 4 ms jiffy (msleep(250) = 252 ms),
    which the profile does not yet take: the model's msleep adds the jiffy that kernels before 6.13
    add (msecs_to_jiffies + 1), which would make it 256 ms here
