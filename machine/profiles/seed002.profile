# Seed 002's machine: the patch ("net: use exponential backoff in
# netdev_wait_allrefs") ran on a 5.4 kernel of Arista's; the one cost taken
# from it is NetnsExec (scenario.Seed002NetnsExec).
name seed002
title Seed 002's machine: an Arista system on Linux 5.4, CPU unknown; the development VM's costs but NetnsExec
base devvm
cpu unknown
cpus unknown
hz unknown
kernel 5.4 (the patch: "Time with this patch on a 5.4 kernel")
pagesize unknown
date unknown

NetnsExec 7.964ms calibrated seed 002, script, after: 8.199 s for the whole script (403 `ip netns
    exec` commands), the one number taken from seed 002 (scenario.Seed002NetnsExec); 80 times the
    VM's 0.1 ms: a network OS's /sys with many devices makes the remount in every new mount
    namespace much slower

# The seeds do not say their kernels' HZ; their machines keep the model the
# seeds' published times were fitted and predicted with.
RCUTick 0 estimated off: callbacks get their grace period when queued and run at its end (the
    seeds do not say their kernels' HZ, and the calibrated costs above were fitted without it)
Jiffy 1ms estimated HZ=1000, the common server configuration (msleep(250) takes 251 ms); the seeds
    do not say their kernels' HZ
