# The profile of vm as internal/measure/costs.sh measured it on
# 2026-12-06 05:23 UTC; the costs it did not measure are the development
# VM's (base devvm). netsim machine FILE prints it resolved.
# Load when it was written: load average: 7.37, 6.51, 4.68.
title AMD EPYC (family 25, model 17) under KVM, 2 CPUs, Linux 6.18.44-fc-v1272: measured by costs.sh
base devvm
cpu AMD EPYC (family 25, model 17) under KVM
cpus 2 measured lscpu: CPU(s): 2
hz 250 measured /proc/config.gz: CONFIG_HZ=250
kernel 6.18.44-fc-v1272
pagesize 4K measured getconf PAGESIZE: 4096
date 2026-12-06

Memory.L1 32K measured lscpu -B -C=NAME,ONE-SIZE: L1d 32768 bytes an instance
Memory.L2 1M measured lscpu -B -C=NAME,ONE-SIZE: L2 1048576 bytes an instance
Memory.L3 32M measured lscpu -B -C=NAME,ONE-SIZE: L3 33554432 bytes an instance
GracePeriod 82.99ms measured costs.sh -s gp: GracePeriod.mean median 82.99 ms [82.99 – 82.99] over 1 runs; mean of the same
