#!/usr/bin/env bash
# rcubarrier.sh — what `ip link del` one device at a time waits for on this
# machine's kernel, from one or several processes at once: seed 004's
# one-by-one deletion, its rcu_barrier in netdev_run_todo and the RCU grace
# periods behind it.
#
#   sudo bash internal/measure/rcubarrier.sh                   # 200 of 200 devices, 1 process
#   sudo bash internal/measure/rcubarrier.sh -n 500 -p 10      # 500 devices, 10 processes
#   sudo bash internal/measure/rcubarrier.sh -n 1000 -d 200    # 200 of 1000 devices, 1 process
#
# In a fresh private network namespace (unshare -n): N ifb devices in group
# 7, `arp off up` (each with an IPv6 link-local and its routes), then DEL of
# them deleted by P `ip -batch` processes at once, each deleting DEL/P
# devices one `link del ifbI` line at a time, under
# `perf record -a -g -e sched:sched_switch`. rcubarrier_helper.go sums the
# capture: where the deleting processes slept (rcu_barrier on its mutex or
# its completion, synchronize_rcu_expedited and who called it, the RTNL
# mutex), how many barriers ran, and the RCU grace-period kthread's idle
# gaps and busy periods around them (see the helper's header). No packet is
# sent; no host setting changes. Needs root, unshare, ip (iproute2), perf
# with sched tracepoints, go (to build the helper into a temporary
# directory); without root or perf it says so and exits 0.
#
# With the kernel's CONFIG_HZ (from /proc/config.gz or /boot/config-RELEASE)
# it prints the grace-period kthread's busy periods and the barrier waits as
# histograms in ticks: the figures behind Costs.RCUTick and the
# GracePeriodTicks* distribution (machine/profiles/devvm.profile).
set -euo pipefail

N=${N:-200}
DEL=${DEL:-}
P=${P:-1}

usage() {
	cat <<EOF
usage: sudo bash $0 [-n N] [-d DEL] [-p P]
  -n N    ifb devices set up (env N, default 200)
  -d DEL  devices deleted (env DEL, default N); a multiple of P
  -p P    deleting processes at once (env P, default 1)
EOF
}

while getopts "n:d:p:h" o; do
	case $o in
	n) N=$OPTARG ;;
	d) DEL=$OPTARG ;;
	p) P=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
DEL=${DEL:-$N}

die() { echo "rcubarrier.sh: $*" >&2; exit 1; }
skip() { echo "rcubarrier.sh: skipped: $*" >&2; exit 0; }

[ "${EUID:-$(id -u)}" = 0 ] || skip "needs root: it creates a network namespace and devices"
for c in unshare ip go perf; do
	command -v "$c" >/dev/null || skip "$c not found"
done
perf record -q -e sched:sched_switch -o /dev/null -- true 2>/dev/null || skip "perf cannot record sched:sched_switch here"
for v in N DEL P; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"
done
[ "$DEL" -le "$N" ] || die "DEL ($DEL) exceeds N ($N)"
[ $((DEL % P)) = 0 ] || die "DEL ($DEL) must be a multiple of P ($P)"
HOST_NS=$(readlink /proc/self/ns/net)
[ "$(unshare -n readlink /proc/self/ns/net)" != "$HOST_NS" ] || die "unshare -n does not give a private network namespace"
export HOST_NS N DEL P

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
D=$(mktemp -d /tmp/netsim-rcubarrier.XXXXXX)
trap 'rm -rf "$D"' EXIT
mkdir -p "$D/h"
cp "$HERE/rcubarrier_helper.go" "$D/h/main.go"
printf 'module rcubarrierhelper\n\ngo 1.22\n' >"$D/h/go.mod"
(cd "$D/h" && GOFLAGS= GOWORK=off go build -o "$D/helper" main.go) || die "cannot build rcubarrier_helper.go"

cat >"$D/inner.sh" <<'EOF'
set -euo pipefail
[ "$(readlink /proc/self/ns/net)" != "$HOST_NS" ] || { echo "inner: not in a private network namespace" >&2; exit 1; }
[ "$(ip -o link show | wc -l)" = 1 ] || { echo "inner: the namespace is not fresh" >&2; exit 1; }
cd "$1"
ip link set lo up
for ((i = 0; i < N; i++)); do
	echo "link add ifb$i type ifb"
	echo "link set ifb$i group 7 arp off up"
done >add.ip
ip -batch add.ip
per=$((DEL / P))
for ((j = 0; j < P; j++)); do
	for ((i = j * per; i < (j + 1) * per; i++)); do echo "link del ifb$i"; done >"job$j.ip"
done
sleep 1 # let the additions' RCU callbacks and DAD settle
start=$(date +%s%N)
perf record -q -a -g -e sched:sched_switch -o perf.data -- \
	bash -c 'for ((j = 0; j < P; j++)); do ip -batch "job$j.ip" & done; wait' 2>/dev/null
end=$(date +%s%N)
left=$(ip -o link show group 7 | wc -l)
[ "$left" = $((N - DEL)) ] || { echo "inner: $left devices left, want $((N - DEL))" >&2; exit 1; }
echo "wall_s $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') (with perf recording)"
EOF

HZ=$({ zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null || true; } | sed -n 's/^CONFIG_HZ=//p')
echo "devices $N deleted $DEL processes $P kernel $(uname -r) hz ${HZ:-unknown} load $(cut -d' ' -f1-3 /proc/loadavg)"
unshare -n bash "$D/inner.sh" "$D"
perf script -i "$D/perf.data" -F comm,pid,tid,cpu,time,event,trace,ip,sym 2>/dev/null | "$D/helper" -hz "${HZ:-0}"
echo "load after $(cut -d' ' -f1-3 /proc/loadavg)"
