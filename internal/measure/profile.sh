#!/usr/bin/env bash
# profile.sh — write the machine profile (package machine's format) of the
# machine it runs on from costs.sh's results: the facts from lscpu, uname -r,
# CONFIG_HZ (/proc/config.gz or /boot/config-*) and getconf PAGESIZE; the
# cache capacities from lscpu; each constant costs.sh measured, with its
# median, range and command; every other cost from `base devvm`, so that the
# file is complete. The cache capacities are memlat's effective ones (the
# capacity model fitted to its chase) where the mem section ran, sysfs's
# otherwise. costs.sh -o FILE runs it at the end.
#
#   bash internal/measure/profile.sh RESDIR OUT [SECTIONS...]
#
# RESDIR holds costs.sh's results: `order` (the keys, one a line) and, for
# each KEY, the file KEY (one value a line) and KEY.meta (unit, tab, formula).
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 RESDIR OUT" >&2; exit 2; }
RES=$1 OUT=$2

# The memory latencies (ns) costs.sh's mem section measures.
MEM="Memory.L1Hit L1Hit
Memory.L2Hit L2Hit
Memory.L3Hit L3Hit
Memory.DRAM DRAM"

# The constants costs.sh measures, as `KEY FIELD SECTION`: KEY is its result
# (a size in the key is costs.sh's default), FIELD the sim.Costs field.
MAP="TrieLeafVisit TrieLeafVisit seed000
NexthopRemove@${N:-65536} NexthopRemove split
FibAliasRemove.shared@${N:-65536} FibAliasRemove split
FibInfoFree@${N:-65536} FibInfoFree split
nh_add.handler NexthopAdd batch
rt_gw_add.handler FibAliasInsert batch
rt_gw_del.handler FibRouteDelete batch
nh_del_missing.syscall Syscall batch
IPBatchLine IPBatchLine batch
IPExec.loop IPExec exec
NetnsExec.loop NetnsExec exec
Fork Fork exec
RuleScan RuleScan rules
Fib6TableWalk Fib6TableWalk rules
GracePeriod.mean GracePeriod gp
DevRegister@${DEVS:-1000} DevRegister dev
DevUnregister@${DEVS:-1000} DevUnregister dev
Fib6Visit@${DEVS:-1000} Fib6Visit dev
ExpeditedGP.mean ExpeditedGP dev"

# lscpu_field NAME: the value of lscpu's "NAME:" line.
lscpu_field() { lscpu | awk -F: -v k="$1" '$1 == k { sub(/^[ \t]+/, "", $2); print $2; exit }'; }
# cache LEVEL: the bytes of one instance of cache LEVEL (L1d, L2, L3).
cache() { lscpu -B -C=NAME,ONE-SIZE 2>/dev/null | awk -v l="$1" '$1 == l { print $2; exit }'; }
# median FILE: the median of FILE's values (one a line), rounded to an
# integer when it is one; nothing if FILE is missing or empty.
median() {
	[ -s "$1" ] || return 0
	sort -g "$1" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; if (m == int(m)) printf "%d", m; else printf "%.4g", m }'
}
# size BYTES: BYTES with the largest K, M or G suffix that divides it.
size() { awk -v b="$1" 'BEGIN { s = "KMG"; u = ""; for (i = 1; i <= 3 && b % 1024 == 0 && b > 0; i++) { b /= 1024; u = substr(s, i, 1) } printf "%d%s", b, u }'; }

{
	model=$(lscpu_field "Model name")
	family=$(lscpu_field "CPU family")
	cpumodel=$(lscpu_field "Model")
	hyper=$(lscpu_field "Hypervisor vendor")
	ncpu=$(lscpu_field "CPU(s)")
	kernel=$(uname -r)
	cpu="${model:-unknown}"
	[ -z "$family" ] || cpu="$cpu (family $family, model $cpumodel)"
	[ -z "$hyper" ] || cpu="$cpu under $hyper"
	echo "# The profile of $(uname -n) as internal/measure/costs.sh measured it on"
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); the costs it did not measure are the development"
	echo "# VM's (base devvm). netsim machine FILE prints it resolved."
	echo "# Load when it was written: $(uptime | sed 's/.*load average/load average/')."
	echo "title $cpu, ${ncpu:-?} CPUs, Linux $kernel: measured by costs.sh"
	echo "base devvm"
	echo "cpu $cpu"
	if [[ $ncpu =~ ^[1-9][0-9]*$ ]]; then
		echo "cpus $ncpu measured lscpu: CPU(s): $ncpu"
	else
		echo "cpus unknown"
	fi
	hz="" src=""
	if [ -r /proc/config.gz ]; then
		hz=$(zcat /proc/config.gz 2>/dev/null | awk -F= '$1 == "CONFIG_HZ" { v = $2 } END { print v }' || true)
		src=/proc/config.gz
	fi
	if [ -z "$hz" ] && [ -r "/boot/config-$kernel" ]; then
		hz=$(awk -F= '$1 == "CONFIG_HZ" { v = $2 } END { print v }' "/boot/config-$kernel")
		src=/boot/config-$kernel
	fi
	if [[ $hz =~ ^[1-9][0-9]*$ ]]; then
		echo "hz $hz measured $src: CONFIG_HZ=$hz"
	else
		echo "hz unknown"
	fi
	echo "kernel $kernel"
	page=$(getconf PAGESIZE 2>/dev/null || true)
	if [[ $page =~ ^[1-9][0-9]*$ ]]; then
		echo "pagesize $(size "$page") measured getconf PAGESIZE: $page"
	else
		echo "pagesize unknown"
	fi
	echo "date $(date -u +%Y-%m-%d)"
	echo
	for c in L1d:L1 L2:L2 L3:L3; do
		b=$(cache "${c%%:*}")
		eff=$(median "$RES/Memory.${c##*:}eff")
		if [[ $eff =~ ^[1-9][0-9]*$ ]]; then
			echo "Memory.${c##*:} $(size $((eff * 1024))) measured costs.sh -s mem: memlat's effective ${c##*:} capacity, fitted to its chase (Memory.${c##*:}eff median $eff KiB; sysfs: ${b:-unknown} bytes)"
			continue
		fi
		[[ $b =~ ^[1-9][0-9]*$ ]] || continue
		echo "Memory.${c##*:} $(size "$b") measured lscpu -B -C=NAME,ONE-SIZE: ${c%%:*} $b bytes an instance"
	done
	while read -r key field; do
		v=$(median "$RES/$key")
		[ -n "$v" ] || continue
		echo "Memory.$field $(awk -v v="$v" 'BEGIN { printf "%.6gns", int(v * 100 + 0.5) / 100 }') measured costs.sh -s mem: $key median $v ns; $(cut -f2 "$RES/$key.meta")"
	done <<<"$MEM"
	while read -r key field section; do
		[ -s "$RES/$key" ] || continue
		IFS=$'\t' read -r unit formula <"$RES/$key.meta"
		sort -g "$RES/$key" | awk -v k="$key" -v u="$unit" -v f="$formula" -v field="$field" -v s="$section" '
			{ v[NR] = $1 }
			END {
				med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				if (med < 0) exit
				# The value as a duration: whole nanoseconds, in the unit measured.
				ns = med * (u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : u == "s" ? 1e9 : 0)
				if (ns == 0 && med != 0) exit
				ns = int(ns + 0.5)
				if (ns % 1000000 == 0 && ns > 0) d = sprintf("%dms", ns / 1000000)
				else if (ns >= 1000000) d = sprintf("%.6gms", ns / 1e6)
				else if (ns >= 1000) d = sprintf("%.6gµs", ns / 1e3)
				else d = sprintf("%dns", ns)
				printf "%s %s measured costs.sh -s %s: %s median %.4g %s [%.4g – %.4g] over %d runs; %s\n",
					field, d, s, k, med, u, v[1], v[NR], NR, f
			}'
	done <<<"$MAP"
} >"$OUT"
