#!/usr/bin/env bash
# routerate.sh — the `ip -batch` rate of route adds that docs/performance.md
# compares Handle.RouteAdd with (BenchmarkRoute4Add, BenchmarkRoute6Add in
# rtnl/bench_test.go), on this machine.
#
#   sudo bash internal/measure/routerate.sh            # N=100000, 3 repetitions
#   sudo N=30000 REPS=5 bash internal/measure/routerate.sh
#
# Each repetition runs, for each family in turn, in a fresh private network
# namespace (unshare -n): a veth pair veth0/veth1, up; N routes through
# veth0 added by one `ip -batch` (IPv4: `route add 10.a.b.c/32 dev veth0`)
# or `ip -6 -batch` (IPv6: `route add 2001:db8:a:b::/64 dev veth0`), the
# benchmarks' routes. It prints the batch's time (real, user, sys) and its
# rate, N / real.
set -euo pipefail
N=${N:-100000}
REPS=${REPS:-3}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
for i in $(seq 0 $((N - 1))); do
	printf 'route add 10.%d.%d.%d/32 dev veth0\n' $((i >> 16)) $(((i >> 8) & 255)) $((i & 255))
done >"$D/add4.ip"
for i in $(seq 0 $((N - 1))); do
	printf 'route add 2001:db8:%x:%x::/64 dev veth0\n' $((i >> 16)) $((i & 65535))
done >"$D/add6.ip"
cat >"$D/inner.sh" <<'INNER'
set -euo pipefail
[ "$(readlink /proc/self/ns/net)" != "$HOST_NS" ] || { echo "not in a private network namespace" >&2; exit 1; }
ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
sleep 1
TIMEFORMAT='%R %U %S'
{ time ip $2 -batch "$3"; } 2>&1
INNER
export D HOST_NS
HOST_NS=$(readlink /proc/self/ns/net)
for r in $(seq 1 "$REPS"); do
	for fam in 4 6; do
		flag=
		[ $fam = 6 ] && flag=-6
		out=$(unshare -n bash "$D/inner.sh" "$fam" "$flag" "$D/add$fam.ip")
		echo "$out" | awk -v r="$r" -v f="$fam" -v n="$N" \
			'{ printf "rep %d IPv%d: real %s user %s sys %s: %.1f k routes/s\n", r, f, $1, $2, $3, n / $1 / 1000 }'
		sleep 2
	done
done
