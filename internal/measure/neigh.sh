#!/usr/bin/env bash
# neigh.sh — the kernel's cost of adding and deleting a neighbour entry
# (sim.Costs NeighAdd, NeighRemove) on this machine, and the `ip -batch`
# rate of neighbour adds that docs/benchmarks.md compares netsim with.
#
#   sudo bash internal/measure/neigh.sh            # N=30000, 3 repetitions
#   sudo N=10000 REPS=5 bash internal/measure/neigh.sh
#
# Each repetition runs in a fresh private network namespace (unshare -n):
# a veth pair v0/v1, up; N permanent IPv4 neighbours on v0 added by one
# `ip -batch` (`neigh add 10.a.b.c lladdr 02:00:00:a:b:c dev v0`: permanent
# entries are exempt from gc, so gc_thresh3 does not cap N), deleted by
# another. It prints the time of each (real, user, sys) and per entry:
#   add.sys/N    the kernel time of one RTM_NEWNEIGH (neigh_add)
#   del.sys/N    the same for RTM_DELNEIGH (neigh_delete)
#   add.real/N   the wall time of one batch line: 1/rate
set -euo pipefail
N=${N:-30000}
REPS=${REPS:-3}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
for i in $(seq 0 $((N - 1))); do
	a=$((i >> 16)) b=$(((i >> 8) & 255)) c=$((i & 255))
	printf 'neigh add 10.%d.%d.%d lladdr 02:00:00:%02x:%02x:%02x dev v0\n' $a $b $c $a $b $c
done >"$D/add.ip"
sed 's/^neigh add \([0-9.]*\) lladdr [0-9a-f:]* /neigh del \1 /' "$D/add.ip" >"$D/del.ip"
cat >"$D/inner.sh" <<'INNER'
set -euo pipefail
[ "$(readlink /proc/self/ns/net)" != "$HOST_NS" ] || { echo "not in a private network namespace" >&2; exit 1; }
ip link add v0 type veth peer name v1
ip link set v0 up
ip link set v1 up
sleep 1
TIMEFORMAT='%R %U %S'
echo "add $( { time ip -batch "$D/add.ip"; } 2>&1 )"
echo "del $( { time ip -batch "$D/del.ip"; } 2>&1 )"
INNER
export D HOST_NS
HOST_NS=$(readlink /proc/self/ns/net)
for r in $(seq 1 "$REPS"); do
	out=$(unshare -n bash "$D/inner.sh")
	echo "$out" | sed "s/^/# rep $r: /"
	echo "$out" | awk -v n="$N" '
		{ real[$1] = $2; sys[$1] = $4 }
		END {
			printf "add.sys/N %.2f µs\ndel.sys/N %.2f µs\nadd.real/N %.2f µs (%.0f adds/s)\n",
				sys["add"] / n * 1e6, sys["del"] / n * 1e6, real["add"] / n * 1e6, n / real["add"]
		}'
	sleep 2
done
