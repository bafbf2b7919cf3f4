#!/usr/bin/env bash
# addrs.sh — measure the per-address walks of sim.Costs (IfaScan,
# Inet4HashVisit, Inet6HashVisit, McListScan; sim/costs.go) on this machine's
# kernel, and the times `netsim ip -batch` predicts for the same files.
#
#   sudo bash internal/measure/addrs.sh                   # 5k 10k 20k 50k IPv4, 5k 10k 20k IPv6
#   sudo V4="20000 50000" V6="20000 40000" bash internal/measure/addrs.sh
#   sudo V4= V6= UP4="20000 50000" bash internal/measure/addrs.sh   # fib_devhash_visit only
#   sudo V4= V6= UP4= FIT="1500 2000 2500 3000" bash internal/measure/addrs.sh   # AddrOp
#
# Each run is `ip -batch FILE` in a fresh private network namespace (unshare
# -n) holding a veth pair v0/v1, left down; FILE adds N addresses to v0, one
# line each: `addr add 10.A.B.C/32 dev v0` or `addr add 2001:db8::X:Y/128 dev
# v0`. No packet is sent; no host setting changes. Needs root, unshare, ip,
# awk; perf (optional) splits the IPv6 time between its two walks.
#
# Output, per run: N, real, user and sys seconds, and the per-unit costs:
#   ifa_scan         (sys - N*FIX4) / N²: find_matching_ifa and __inet_insert_ifa
#                    each walk the whole list (N(N-1)/2 scans each)
#   inet4_hash_visit (real - user - sys) / (N(N+1)/2): check_lifetime, in the
#                    per-CPU kworker each add queues, preempting ip
#   inet6 walks      (real - N*FIX6) / (N(N+1)/2) is one addrconf_verify_rtnl
#                    visit plus one __ipv6_dev_mc_inc scan; with perf, split
#                    by the two functions' shares of the samples:
#                    inet6_hash_visit and mc_list_scan
# FIX4 and FIX6 are the per-address work netsim charges apart (the virtual
# time of one add to an empty device, `netsim ip -netsim-time`): 30.8 µs and
# 26.8 µs by default. Other load spoils the figures (a kworker's walk shows
# as real time only when it shares ip's CPU): before each run the script
# waits up to IDLE_WAIT s (default 300) for the machine to be at most
# IDLE_MAX % busy (default 10), and prints how busy it was during the run.
#
# UP4 (default 10000 20000 50000) runs each IPv4 file twice more, v0 down
# and v0 up with its peer (so with carrier): on a device that is up every
# add also runs fib_sync_up, a walk of the device's fib_info_devhash chain,
# which holds one fib_info per address (its local route's: the prefsrc
# makes each its own), N(N+1)/2 visits in all; the device's state changes
# nothing else an add does (fib_add_ifaddr adds the local route either
# way), so
#   fib_devhash_visit  (real up - real down) / (N(N+1)/2), all-in: the
#                      walk (its sys time) and what its working set costs
#                      the other walks (check_lifetime's kworker slows too)
#   (sys only)         (sys up - sys down) / (N(N+1)/2), the walk alone
#
# FIT (default none) runs each family's file at each of these sizes
# FIT_REPS times (default 3) and fits the CPU time (user+sys, exact) to
# a·N + c·N² by least squares: a is the per-address work that does not grow
# with the list (the request, the address, its local route), c the walks'
# N² term.
#   addr_fixed4, addr_fixed6   a, per family
set -euo pipefail

V4=${V4-5000 10000 20000 50000}
V6=${V6-5000 10000 20000}
UP4=${UP4-10000 20000 50000}
FIT=${FIT-}
FIT_REPS=${FIT_REPS:-3}
FIX4=${FIX4:-30.8e-6}
FIX6=${FIX6:-26.8e-6}
IDLE_WAIT=${IDLE_WAIT:-300}
IDLE_MAX=${IDLE_MAX:-10}

die() { echo "addrs.sh: $*" >&2; exit 1; }
[ "${EUID:-$(id -u)}" = 0 ] || die "must run as root: it creates network namespaces"
for c in unshare ip awk; do command -v "$c" >/dev/null || die "$c not found"; done
HOST_NS=$(readlink /proc/self/ns/net)
[ "$(unshare -n readlink /proc/self/ns/net)" != "$HOST_NS" ] || die "unshare -n does not give a private network namespace"
HAVE_PERF=0
if command -v perf >/dev/null && perf record -q -e cpu-clock -o /dev/null -- true 2>/dev/null; then HAVE_PERF=1; fi

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
D=$(mktemp -d /tmp/netsim-addrs.XXXXXX)
trap 'rm -rf "$D"' EXIT

# gen FAMILY N: the batch file.
gen() {
	awk -v n="$2" -v f="$1" 'BEGIN {
		for (i = 0; i < n; i++)
			if (f == 4) printf "addr add 10.%d.%d.%d/32 dev v0\n", int(i / 65536) % 256, int(i / 256) % 256, i % 256
			else printf "addr add 2001:db8::%x:%x/128 dev v0\n", int(i / 65536), i % 65536
	}' >"$D/f$1-$2.ip"
	echo "$D/f$1-$2.ip"
}

# busy SECONDS: the percentage of CPU time not idle over the next SECONDS.
busy() {
	local a b
	a=$(head -1 /proc/stat)
	sleep "$1"
	b=$(head -1 /proc/stat)
	pctbusy "$a" "$b"
}
pctbusy() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x); split(b, y)
		for (i = 2; i <= n; i++) { t += y[i] - x[i]; if (i == 5 || i == 6) idle += y[i] - x[i] }
		printf "%d", t ? 100 * (t - idle) / t : 0
	}'
}
# idle: wait for an idle machine (at most IDLE_WAIT s).
idle() {
	local t0=$SECONDS
	while [ $((SECONDS - t0)) -lt "$IDLE_WAIT" ] && [ "$(busy 1)" -gt "$IDLE_MAX" ]; do :; done
}

# run FILE [PERFDATA [up]]: "real user sys" of ip -batch FILE in a fresh
# namespace; with up, v0 and v1 are up first.
run() {
	local f=$1 data=${2:-} up=${3:-}
	HOST_NS=$HOST_NS unshare -n bash -c '
		set -e
		[ "$(readlink /proc/self/ns/net)" != "$HOST_NS" ] || exit 1
		ip link add v0 type veth peer name v1
		if [ -n "$3" ]; then ip link set v0 up; ip link set v1 up; fi
		TIMEFORMAT="%R %U %S"
		if [ -n "$2" ]; then
			{ time perf record -q -a -g -o "$2" -- ip -batch "$1" >/dev/null; } 2>&1 | tail -1
		else
			{ time ip -batch "$1"; } 2>&1
		fi' _ "$f" "$data" "$up"
}

echo "# $(uname -r), $(nproc) CPUs; FIX4 $FIX4 s, FIX6 $FIX6 s"
for n in $V4; do
	f=$(gen 4 "$n")
	idle
	a=$(head -1 /proc/stat)
	read -r real user sys < <(run "$f")
	b=$(head -1 /proc/stat)
	awk -v n="$n" -v r="$real" -v u="$user" -v s="$sys" -v fix="$FIX4" -v busy="$(pctbusy "$a" "$b")" 'BEGIN {
		printf "inet  %6d  real %8.3f user %6.3f sys %8.3f  ifa_scan %5.2f ns  inet4_hash_visit %5.2f ns  (machine %d%% busy)\n",
			n, r, u, s, (s - n * fix) / (n * n) * 1e9, (r - u - s) / (n * (n + 1) / 2) * 1e9, busy }'
done
for n in $V6; do
	f=$(gen 6 "$n")
	idle
	a=$(head -1 /proc/stat)
	read -r real user sys < <(run "$f")
	b=$(head -1 /proc/stat)
	line=$(awk -v n="$n" -v r="$real" -v u="$user" -v s="$sys" -v fix="$FIX6" -v busy="$(pctbusy "$a" "$b")" 'BEGIN {
		printf "inet6 %6d  real %8.3f user %6.3f sys %8.3f  both walks %5.2f ns  (machine %d%% busy)", n, r, u, s, (r - n * fix) / (n * (n + 1) / 2) * 1e9, busy }')
	if [ "$HAVE_PERF" = 1 ]; then
		idle
		run "$f" "$D/p.data" >/dev/null
		shares=$(perf report -i "$D/p.data" --no-children --sort sym --stdio 2>/dev/null |
			awk '/addrconf_verify_rtnl$/ { v = $1 } /__ipv6_dev_mc_inc$/ { m = $1 } END { sub("%", "", v); sub("%", "", m); print v + 0, m + 0 }')
		read -r v m <<<"$shares"
		line+=$(awk -v n="$n" -v r="$real" -v fix="$FIX6" -v v="$v" -v m="$m" 'BEGIN {
			both = (r - n * fix) / (n * (n + 1) / 2) * 1e9
			if (v + m > 0) printf "  (perf %.1f%% / %.1f%%: inet6_hash_visit %5.2f ns  mc_list_scan %5.2f ns)", v, m, both * v / (v + m), both * m / (v + m) }')
	fi
	echo "$line"
done
for n in $UP4; do
	f=$(gen 4 "$n")
	idle
	a=$(head -1 /proc/stat)
	read -r real0 user0 sys0 < <(run "$f")
	idle
	read -r real user sys < <(run "$f" "" up)
	b=$(head -1 /proc/stat)
	awk -v n="$n" -v r0="$real0" -v s0="$sys0" -v r="$real" -v s="$sys" -v busy="$(pctbusy "$a" "$b")" 'BEGIN {
		printf "inet up %6d  down: real %8.3f sys %8.3f  up: real %8.3f sys %8.3f  fib_devhash_visit %5.2f ns (sys only %5.2f ns)  (machine %d%% busy)\n",
			n, r0, s0, r, s, (r - r0) / (n * (n + 1) / 2) * 1e9, (s - s0) / (n * (n + 1) / 2) * 1e9, busy }'
done
for fam in 4 6; do
	[ -n "$FIT" ] || break
	: >"$D/fit$fam"
	for r in $(seq 1 "$FIT_REPS"); do
		for n in $FIT; do
			f=$(gen "$fam" "$n")
			idle
			read -r real user sys < <(run "$f")
			echo "$n $user $sys" >>"$D/fit$fam"
			awk -v n="$n" -v f="$fam" -v r="$real" -v u="$user" -v s="$sys" 'BEGIN { printf "fit%s %6d  real %8.3f cpu %8.3f  %6.2f µs an address\n", f, n, r, u + s, (u + s) / n * 1e6 }'
		done
	done
	# CPU = a·N + c·N² by least squares over "N user sys" lines.
	read -r a c pts < <(awk -f "$HERE/lsq.awk" "$D/fit$fam")
	awk -v f="$fam" -v a="$a" -v c="$c" -v pts="$pts" 'BEGIN { printf "addr_fixed%s %.2f µs an address, N² term %.2f ns (least squares over %d runs)\n", f, a * 1e6, c * 1e9, pts }'
done
