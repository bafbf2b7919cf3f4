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
