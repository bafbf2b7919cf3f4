#!/usr/bin/env bash
# route6.sh — the kernel's cost of inserting and removing an IPv6 route
# (sim.Costs Fib6RouteInsert, Fib6RouteRemove) on this machine.
#
#   sudo bash internal/measure/route6.sh            # N=30000, 3 repetitions
#   sudo N=20000 REPS=5 bash internal/measure/route6.sh
#
# Each repetition runs in a fresh private network namespace (unshare -n):
# a veth pair v0/v1, up; N /64 routes through v0 added by one `ip -6
# -batch`, deleted by another, added again, then `ip link set v0 down`
# (a flush of the N routes: rt6_sync_down_dev's walk deletes each), and the
# same link down with no route. It prints the time of each step (real,
# user, sys) and per route:
#   add.sys/N    the kernel time of one RTM_NEWROUTE (inet6_rtm_newroute)
#   del.sys/N    the same for RTM_DELROUTE
#   flush/N      (down with the routes - down without) / N: one route
#                deleted by a walk (fib6_del_route, the notification, the
#                RCU-deferred release)
set -euo pipefail
N=${N:-30000}
REPS=${REPS:-3}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
for i in $(seq 0 $((N - 1))); do printf 'route add 2001:db8:%x:%x::/64 dev v0\n' $((i / 65536 + 1)) $((i % 65536)); done >"$D/add.ip"
sed 's/^route add/route del/' "$D/add.ip" >"$D/del.ip"
cat >"$D/inner.sh" <<'INNER'
set -euo pipefail
[ "$(readlink /proc/self/ns/net)" != "$HOST_NS" ] || { echo "not in a private network namespace" >&2; exit 1; }
ip link add v0 type veth peer name v1
ip link set v0 up
ip link set v1 up
sleep 1
TIMEFORMAT='%R %U %S'
echo "add $( { time ip -6 -batch "$D/add.ip"; } 2>&1 )"
echo "del $( { time ip -6 -batch "$D/del.ip"; } 2>&1 )"
ip -6 -batch "$D/add.ip"
echo "down $( { time ip link set v0 down; } 2>&1 )"
ip link set v0 up
sleep 1
echo "down0 $( { time ip link set v0 down; } 2>&1 )"
INNER
export D HOST_NS
HOST_NS=$(readlink /proc/self/ns/net)
for r in $(seq 1 "$REPS"); do
	out=$(unshare -n bash "$D/inner.sh")
	echo "$out" | sed "s/^/# rep $r: /"
	echo "$out" | awk -v n="$N" '
		{ real[$1] = $2; sys[$1] = $4 }
		END {
			printf "add.sys/N %.2f µs\ndel.sys/N %.2f µs\nflush/N %.2f µs\n",
				sys["add"] / n * 1e6, sys["del"] / n * 1e6, (real["down"] - real["down0"]) / n * 1e6
		}'
	sleep 2
done
