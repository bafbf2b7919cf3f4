#!/usr/bin/env bash
# listeners.sh — what netlink listeners add to the kernel work the seeds time:
# the seed 000 link down and seed 001's device creation, each timed with and
# without listeners on this machine's kernel.
#
#   sudo bash internal/measure/listeners.sh                  # both sections, 3 repetitions
#   sudo REPS=5 bash internal/measure/listeners.sh -s create
#
# Every run is in a fresh private network namespace (unshare -n); the
# listeners run inside it (an rtnetlink socket sees only its own namespace; a
# uevent socket there also sees the host's uevents of devices that belong to
# no namespace, which it only reads). No packet is sent; no host setting
# changes. Needs root, unshare, ip (iproute2), go (to build costs_helper.go
# and listen_helper.go into a temporary directory).
#
# Sections (-s, comma-separated; default both):
#   seed000  seed 000's set-up in its "AfterLike" form (veth eth2, macvlan
#            testnh0, N nexthops, N /32 routes all on nexthop 1 with metric
#            i: one flush, the patched kernel's work; see costs.sh -s
#            seed000), then `ip link set testnh0 down`, timed with each
#            listener set of LISTEN000, started after the set-up:
#              none     no listener
#              mon      `ip monitor route nexthop` writing to /dev/null
#              sock     a socket on RTNLGRP_LINK, IPV4_ROUTE, IPV6_ROUTE and
#                       NEXTHOP with a 64 MiB buffer, reading everything
#              full     the same socket never read, its buffer the default
#                       (the kernel drops what does not fit)
#              two      mon and sock together
#            at each N of SIZES (default "16384 65536").
#   notify   the same set-up's two `ip -batch` files, N nexthop adds and N
#            route adds (nhid i: each its own fib_info), timed with each
#            listener set of LISTEN000 started before them: every add
#            multicasts one message (RTM_NEWNEXTHOP, RTM_NEWROUTE) to the
#            listeners, so the difference per add is what a listener costs
#            the kernel per message (at each N of SIZES)
#   create   DEVS macvlans (mode bridge) created on a veth by one `ip -batch`,
#            timed with each listener set of LISTEN001:
#              none     no listener
#              uevent   a NETLINK_KOBJECT_UEVENT socket (udevd's) reading
#                       every event
#              udev     the same, reading each new net device's sysfs
#                       attributes as a udev worker does
#              link     a socket on RTNLGRP_LINK reading every message
#                       (NetworkManager's and systemd-networkd's group)
#              monlink  `ip monitor link` writing to /dev/null
#            and, with LOOP > 0, LOOP of the same devices each created by
#            its own `ip link add` (the seed's loop), with none and udev.
#
# The listener sets of a repetition run in an order rotated by one each
# repetition, so that other load on the machine falls on all alike. Output,
# per run: the section, the size, the listener set, wall, user and sys
# seconds of the timed command, the messages each listener received during
# it and the load average; then, per size and set, the median over the
# repetitions and its difference from "none", in total and per unit (per
# nexthop+route for seed000, per message for notify, per device for create
# and loop).
set -euo pipefail

REPS=${REPS:-3}
SIZES=${SIZES:-16384 65536}
DEVS=${DEVS:-1500}
LOOP=${LOOP:-300}
SECTIONS=${SECTIONS:-seed000,notify,create}
LISTEN000=${LISTEN000:-none mon sock full two}
LISTEN001=${LISTEN001:-none uevent udev link monlink}

usage() {
	cat <<EOF
usage: sudo bash $0 [-r REPS] [-s SECTIONS] [-n "N..."] [-d DEVS] [-l LOOP]
  -r REPS      repetitions (env REPS, default 3)
  -s SECTIONS  comma-separated subset of seed000,notify,create (env SECTIONS)
  -n "N..."    seed000's sizes, nexthops and routes each (env SIZES, default "16384 65536"; at most 65536)
  -d DEVS      devices of the create section's batch (env DEVS, default 1500)
  -l LOOP      devices created one process each (env LOOP, default 300; 0: none)
env: LISTEN000, LISTEN001: the listener sets of each section (see the header)
EOF
}

while getopts "r:s:n:d:l:h" o; do
	case $o in
	r) REPS=$OPTARG ;;
	s) SECTIONS=$OPTARG ;;
	n) SIZES=$OPTARG ;;
	d) DEVS=$OPTARG ;;
	l) LOOP=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

die() { echo "listeners.sh: $*" >&2; exit 1; }

[ "${EUID:-$(id -u)}" = 0 ] || die "must run as root: it creates network namespaces and devices"
for c in unshare ip awk sort go; do
	command -v "$c" >/dev/null || die "$c not found"
done
for v in REPS DEVS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"
done
[[ $LOOP =~ ^[0-9]+$ ]] || die "LOOP must be a number"
for n in $SIZES; do
	[[ $n =~ ^[1-9][0-9]*$ ]] && [ "$n" -le 65536 ] || die "sizes must be 1..65536 (got '$n')"
done
HOST_NS=$(readlink /proc/self/ns/net)
[ "$(unshare -n readlink /proc/self/ns/net)" != "$HOST_NS" ] || die "unshare -n does not give a private network namespace"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
D=$(mktemp -d /tmp/netsim-listeners.XXXXXX)
trap 'rm -rf "$D"' EXIT
for h in costs listen; do
	mkdir -p "$D/$h"
	cp "$HERE/${h}_helper.go" "$D/$h/main.go"
	printf 'module %shelper\n\ngo 1.22\n' "$h" >"$D/$h/go.mod"
	(cd "$D/$h" && GOFLAGS= GOWORK=off go build -o "$D/$h-helper" main.go) || die "cannot build ${h}_helper.go"
done

# The part that runs inside a namespace: inner.sh STEP SIZE LISTENERS.
cat >"$D/inner.sh" <<'EOF'
set -euo pipefail
[ "$(readlink /proc/self/ns/net)" != "$HOST_NS" ] || { echo "inner: not in a private network namespace" >&2; exit 1; }
[ "$(ip -o link show | wc -l)" = 1 ] || { echo "inner: the namespace is not fresh" >&2; exit 1; }
step=$1 n=$2 set=$3
pids=()
# listen KIND ARGS...: start a listener; wait until it listens.
listen() {
	local kind=$1 r=$D/ready.$$.${#pids[@]}
	shift
	case $kind in
	mon)
		ip monitor "$@" >/dev/null &
		pids+=($!)
		sleep 0.3 # ip monitor listens once it has started; it says nothing
		return ;;
	*) "$D/listen-helper" "$kind" "$@" "$r" >"$r.out" & ;;
	esac
	pids+=($!)
	while [ ! -e "$r" ]; do sleep 0.02; done
}
listeners() {
	case $set in
	none) ;;
	mon) listen mon route nexthop ;;
	sock) listen rtnl ;;
	full) listen rtnl -noread -rcvbuf 212992 ;;
	two) listen mon route nexthop; listen rtnl ;;
	uevent) listen uevent ;;
	udev) listen uevent -sysread ;;
	link) listen rtnl -groups link ;;
	monlink) listen mon link ;;
	*) echo "inner: unknown listener set $set" >&2; exit 2 ;;
	esac
}
# stop: stop the listeners; L is what each received.
stop() {
	sleep 0.5 # let them read what is queued
	local p
	for p in "${pids[@]}"; do kill "$p"; done
	wait
	L=$(cat "$D"/ready.$$.*.out 2>/dev/null | tr '\n' ' ' || true)
	rm -f "$D"/ready.$$.*
}
t() { "$D/costs-helper" time "$@"; }
ok() { [ "${1##* }" = 0 ] || { echo "inner: the timed command failed: $1" >&2; exit 1; }; }
ip link add eth2 type veth peer name eth2p
ip link set eth2p up
ip link set eth2 up
case $step in
seed000)
	ip link add testnh0 link eth2 type macvlan mode bridge
	ip addr add 198.51.100.1/24 dev testnh0
	ip link set testnh0 up
	ip -batch "$D/$n/nh.ip"
	ip -batch "$D/$n/rt.ip"
	listeners
	x=$(t ip link set testnh0 down)
	ok "$x"
	stop
	echo "run $x $(cut -d' ' -f1 /proc/loadavg) $(ip -4 route show | wc -l) $(ip nexthop show | wc -l) | $L"
	;;
notify)
	ip link add testnh0 link eth2 type macvlan mode bridge
	ip addr add 198.51.100.1/24 dev testnh0
	ip link set testnh0 up
	listeners
	x=$(t ip -batch "$D/$n/nh.ip")
	ok "$x"
	y=$(t ip -batch "$D/$n/rtown.ip")
	ok "$y"
	stop
	# the two batches as one: wall, user and sys summed
	echo "run $(awk '{ printf "%.6f %.6f %.6f %d %d", $1 + $6, $2 + $7, $3 + $8, $4, $5 + $10 }' <<<"$x $y") $(cut -d' ' -f1 /proc/loadavg) $(ip -4 route show | wc -l) $(ip nexthop show | wc -l) | $L"
	;;
create)
	listeners
	x=$(t ip -batch "$D/dev$n.ip")
	ok "$x"
	stop
	echo "run $x $(cut -d' ' -f1 /proc/loadavg) $(ip -o link show | wc -l) | $L"
	;;
loop)
	listeners
	x=$(t bash -c "for i in \$(seq 1 $n); do ip link add mv\$i link eth2 type macvlan mode bridge; done")
	ok "$x"
	stop
	echo "run $x $(cut -d' ' -f1 /proc/loadavg) $(ip -o link show | wc -l) | $L"
	;;
esac
EOF

# run SECTION STEP SIZE SETS: REPS repetitions of STEP at SIZE with each
# listener set of SETS, the order rotated every repetition.
run() {
	local sec=$1 step=$2 n=$3 r i k o
	local -a sets
	read -r -a sets <<<"$4"
	k=${#sets[@]}
	for r in $(seq 1 "$REPS"); do
		for i in $(seq 0 $((k - 1))); do
			s=${sets[$(((i + r) % k))]}
			o=$(HOST_NS=$HOST_NS D=$D unshare -n bash "$D/inner.sh" "$step" "$n" "$s")
			# run wall user sys pid status load ... | listened ...
			echo "$sec $n $s ${o#run }"
			echo "$sec $n $s $(awk '{ print $2, $3, $4 }' <<<"$o")" >>"$D/res"
		done
	done
}

# summary: per section, size and set, the median wall and CPU time over the
# repetitions and their differences from the set "none", per UNIT.
summary() {
	echo
	echo "# medians over $REPS repetitions; diff = median - median(none), per unit (µs)"
	printf '%-8s %6s %-7s %9s %9s %9s %9s %11s %11s\n' section size set wall_s cpu_s dwall_s dcpu_s dwall/unit dcpu/unit
	sort -k1,1 -k2,2n "$D/res" | awk '
		function med(a, n,   i, j, t) {
			for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		{ k = $1 " " $2 " " $3; if (!(k in n)) order[++K] = k; n[k]++; w[k, n[k]] = $4; c[k, n[k]] = $5 + $6 }
		END {
			for (i = 1; i <= K; i++) {
				k = order[i]; m = n[k]
				for (j = 1; j <= m; j++) { ww[j] = w[k, j]; cc[j] = c[k, j] }
				mw[k] = med(ww, m); mc[k] = med(cc, m)
			}
			for (i = 1; i <= K; i++) {
				k = order[i]; split(k, f, " "); b = f[1] " " f[2] " none"
				dw = mw[k] - mw[b]; dc = mc[k] - mc[b]; u = f[1] == "notify" ? 2 * f[2] : f[2]
				printf "%-8s %6s %-7s %9.4f %9.4f %9.4f %9.4f %11.2f %11.2f\n", f[1], f[2], f[3], mw[k], mc[k], dw, dc, dw * 1e6 / u, dc * 1e6 / u
			}
		}'
}

has() { [[ ",$SECTIONS," == *",$1,"* ]]; }
echo "# $(uname -sr), $(nproc) CPUs, $(ip -V); REPS=$REPS; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# section size set wall_s user_s sys_s pid status load [routes nexthops | links] | listened msgs bytes overruns types..."
if has seed000 || has notify; then
	for n in $SIZES; do
		mkdir -p "$D/$n"
		awk -v n="$n" -v d="$D/$n" 'BEGIN {
			for (i = 0; i < n; i++) {
				printf "nexthop add id %d via 198.51.100.2 dev testnh0\n", i + 1 > (d "/nh.ip")
				printf "route add 10.%d.%d.0/32 nhid 1 metric %d\n", int(i / 256), i % 256, i + 1 > (d "/rt.ip")
				printf "route add 10.%d.%d.0/32 nhid %d\n", int(i / 256), i % 256, i + 1 > (d "/rtown.ip")
			}
		}'
		has seed000 && run seed000 seed000 "$n" "$LISTEN000"
		has notify && run notify notify "$n" "$LISTEN000"
	done
fi
if has create; then
	for i in $(seq 1 "$DEVS"); do echo "link add mv$i link eth2 type macvlan mode bridge"; done >"$D/dev$DEVS.ip"
	run create create "$DEVS" "$LISTEN001"
	[ "$LOOP" = 0 ] || run loop loop "$LOOP" "none udev"
fi
summary
