# Seed 001's machine: the patch ("net-next: Improve perf of bond/vlans
# modification") ran on an Intel Xeon E5-2650 v3; the one cost taken from it
# is HWAddrCompare (scenario.Calibrations).
name seed001
title Seed 001's machine: Intel Xeon E5-2650 v3 (Haswell-EP); the development VM's costs but HWAddrCompare
base devvm
cpu Intel(R) Xeon(R) CPU E5-2650 v3 @ 2.30GHz (Haswell-EP), as the patch names it
cpus unknown
hz unknown
kernel unknown (net-next of August 2021)
pagesize unknown
date 2021-08-18 (the patch's mail)

HWAddrCompare 16ns calibrated seed 001, assign addresses, before: 19.22 s (1.13e9 compares), the one
    number taken from seed 001 (scenario.Calibrations)

# The seeds do not say their kernels' HZ; their machines keep the model the
# seeds' published times were fitted and predicted with.
RCUTick 0 estimated off: callbacks get their grace period when queued and run at its end (the
    seeds do not say their kernels' HZ, and the calibrated costs above were fitted without it)
Jiffy 1ms estimated HZ=1000, the common server configuration (msleep(250) takes 251 ms); the seeds
    do not say their kernels' HZ
