# Seed 004's machine: the patch ("rtnetlink: Support fine-grained netdevice
# bulk deletion") names no machine; the one cost taken from it is
# Fib6Visit (scenario.Calibrations). Its CPUs are unknown: scenario.Seed004
# runs it on 16.
name seed004
title Seed 004's machine: unknown (the patch names none); the development VM's costs but Fib6Visit
base devvm
cpu unknown
cpus unknown
hz unknown
kernel unknown (net-next of the patch's time)
pagesize unknown
date unknown

Fib6Visit 129ns calibrated seed 004, group deletion of 10 000 devices in 30 s, the one number taken
    from seed 004 (scenario.Calibrations), with the VM's memory hierarchy (the machine's is unknown);
    the VM walks a route in 30 ns within L2, and seed 004's machine took 3 ms per device at 10 000

# The seeds do not say their kernels' HZ; their machines keep the model the
# seeds' published times were fitted and predicted with.
RCUTick 0 estimated off: callbacks get their grace period when queued and run at its end (the
    seeds do not say their kernels' HZ, and the calibrated costs above were fitted without it)
Jiffy 1ms estimated HZ=1000, the common server configuration (msleep(250) takes 251 ms); the seeds
    do not say their kernels' HZ
