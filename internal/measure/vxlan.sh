#!/usr/bin/env bash
# vxlan.sh — measure sim.Costs.VxlanVNIScan (sim/costs.go) on this machine's
# kernel: vxlan_vni_in_use walks every vxlan of the namespace each time one
# is created, N(N-1)/2 devices creating N.
#
#   sudo bash internal/measure/vxlan.sh             # N = 3000 and 6000, three runs each
#   sudo N="2000 4000" RUNS=1 bash internal/measure/vxlan.sh
#
# Each run is `ip -batch FILE` in a fresh private network namespace (unshare
# -n), FILE creating N vxlans `link add vxI type vxlan id I dstport 4789`
# (no lower device, left down; no packet is sent, no host setting changes),
# under `perf record -e task-clock` (one sample per 100 µs of CPU). Output,
# per run: N, the CPU time, vxlan_vni_in_use's share of it, and that share
# over N(N-1)/2: the cost of one device examined, misses included. Needs
# root, unshare, ip, perf, awk.
set -euo pipefail
N=${N:-"3000 6000"}
RUNS=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in $N; do
	for i in $(seq 1 "$n"); do echo "link add vx$i type vxlan id $i dstport 4789"; done >"$work/b$n.ip"
done
printf '%6s %10s %10s %12s %6s\n' N cpu_ms walk_ms ns_per_scan load
for r in $(seq 1 "$RUNS"); do
	for n in $N; do
		unshare -n perf record -q -e task-clock -c 100000 -o "$work/p.data" -- ip -batch "$work/b$n.ip" >/dev/null 2>&1
		perf report -i "$work/p.data" --stdio --sort symbol -F sample,sym 2>/dev/null |
			awk -v n="$n" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
				/^ +[0-9]/ { all += $1 }
				/vxlan_vni_in_use/ { walk = $1 }
				END { printf "%6d %10.1f %10.1f %12.1f %6s\n", n, all * 0.1, walk * 0.1, walk * 100000 / (n * (n - 1) / 2), load }'
	done
done
