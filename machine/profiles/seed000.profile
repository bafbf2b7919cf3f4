# Seed 000's machine: the patch ("ipv4: Flush the FIB once per dev nexthop
# removal") names no machine, so nothing differs from the development VM
# that the patch says.
name seed000
title Seed 000's machine: unknown (the patch names none); the development VM's costs
base devvm
cpu unknown
cpus unknown
hz unknown
kernel unknown (net-next of the patch's time)
pagesize unknown
date unknown

# The seeds do not say their kernels' HZ; their machines keep the model the
# seeds' published times were fitted and predicted with.
RCUTick 0 estimated off: callbacks get their grace period when queued and run at its end (the
    seeds do not say their kernels' HZ, and the calibrated costs above were fitted without it)
Jiffy 1ms estimated HZ=1000, the common server configuration (msleep(250) takes 251 ms); the seeds
    do not say their kernels' HZ
