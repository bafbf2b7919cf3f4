# Seed 003's machine: the series ("net: fib_rules: RTNL-less RTM_NEWRULE and
# RTM_DELRULE") reports `time` of its script in four runs; their real, user
# and sys figures give the CPUs and the costs that differ from the
# development VM (scenario/machines.go, scenario.Calibrations). RuleScan,
# Fib6TableWalk, Fib6NewTable and IPExec are the VM's: nothing in the
# figures separates them.
name seed003
title Seed 003's machine: 256 logical CPUs (derived), CPU unknown; the development VM's costs but five
base devvm
cpu unknown
cpus 256 derived seed 003, IPv4, before: every CPU running a job spins on RTNL, so (user + sys) / real =
    (7.834 + 5566.721) / 22.752 = 245.0 CPUs were busy; 256 allows for the ramp-up and the tail
    (scenario.Seed003CPUs)
hz unknown
kernel unknown (net-next of the series' time)
pagesize unknown
date unknown

Syscall 21.837µs derived seed 003, IPv4, after: sys 127.024 s per rule, less the work under the lock
    and the jobs' start-ups (scenario.Seed003Syscall)
Fork 216.264µs calibrated seed 003, IPv4, after: 0.918 s, which the serial loop of 4096 forks bounds
    (scenario.Seed003Fork)
IPBatchLine 1.353µs derived seed 003, IPv4, after: nothing spins, so user time is ip's parsing:
    5.675 s / 4 194 304 lines (scenario.Seed003IPBatchLine)
RuleChange 4.395µs calibrated seed 003, IPv4, before: 22.752 s for 4 194 304 rules (5.42 µs each, of
    which the rule_exists walk is 514.5 × 2 ns), including the lock's hand-over between 256 CPUs
    (scenario.Seed003RuleChange)

# The seeds do not say their kernels' HZ; their machines keep the model the
# seeds' published times were fitted and predicted with.
RCUTick 0 estimated off: callbacks get their grace period when queued and run at its end (the
    seeds do not say their kernels' HZ, and the calibrated costs above were fitted without it)
Jiffy 1ms estimated HZ=1000, the common server configuration (msleep(250) takes 251 ms); the seeds
    do not say their kernels' HZ
