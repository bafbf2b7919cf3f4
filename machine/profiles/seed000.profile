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
