#!/usr/bin/env bash
# costs.sh — measure sim.Costs constants (sim/costs.go) on this machine's kernel.
#
#   sudo bash internal/measure/costs.sh                # every section, 3 repetitions
#   sudo REPS=5 bash internal/measure/costs.sh -s gp,split
#   sudo bash internal/measure/costs.sh -h             # the options
#   sudo bash internal/measure/costs.sh -o my.profile  # and write this machine's profile
#
# Every repetition of every experiment runs in a fresh private network
# namespace (unshare -n); the script refuses to run a step in the host's
# namespace, sends no packet anywhere (the only devices are a veth pair, a
# macvlan on it and ifb devices, all inside the namespace) and changes no host
# setting. It needs root, unshare, ip (iproute2), go (to build the helper
# costs_helper.go into a temporary directory) and, for the dev section and the
# batch section's splits, perf with kernel symbols (perf_event_paranoid and
# kptr_restrict permitting).
#
# Sections (-s, comma-separated; default all):
#   seed000  seed 000's test (examples/seed000.ip): veth eth2, macvlan testnh0,
#            N nexthops, N /32 routes each on its own nexthop; times
#            `ip link set testnh0 down`. A kernel without the patch flushes the
#            FIB once per nexthop (tens of seconds; TrieLeafVisit is fitted from
#            it); "AfterLike" is the same link down with all N routes on nexthop
#            1 (one flush: the patched kernel's work, measurable on any kernel).
#   split    the same link down with only N nexthops, only N routes (one
#            shared fib_info, or one per route), nexthops and routes, or
#            neither, at N and at N2: per-nexthop and per-route removal costs
#   batch    `ip -batch` of N requests of one kind (nexthop/route add and del,
#            a failing del, `link show dev lo`): kernel time per request, split
#            by perf into the rtnetlink handler and the rest of the syscalls
#   gp       synchronize_rcu latency: GP_CALLS membarrier(MEMBARRIER_CMD_GLOBAL)
#   dev      DEVS and 2*DEVS ifb devices (arp off, up: like seed 004's dummies),
#            deleted with `ip link del group`: register_netdevice and the
#            unregister work per device, IPv6 route walks per route visited,
#            expedited grace periods and rcu_barrier (perf), and ONEBYONE
#            devices deleted one request each
#   walks    which IPv6 route walks a group deletion runs and over which
#            routes, from CPU times alone: WALK_DEVS ifb devices (up, 3 IPv6
#            routes each) and a bystander device with WALK_ROUTES more routes
#            (own prefixes, or one prefix's leaf list), deleted while up and
#            after `ip link set group 7 down`; the slopes in the bystander's
#            routes give walks a device x cost a visit, the quadratic terms
#            the group's own routes' visits (perf, if usable, splits the walks
#            by caller)
#   hwaddr   HW_SIZES macvlans on one veth brought up (arp off): the kernel
#            time per `link set mvN arp off up`, each an insert into the
#            veth's unicast address rbtree; `netsim ip` runs the same two
#            files (printed with -k) for its charged hwaddr compares
#   rules    `ip -4 -batch` of N `rule add from all table I` at RULES4 sizes
#            and `ip -6 -batch` at RULES6 sizes, REPS each, the CPU time
#            fitted to a·N + c·N² by least squares: each add scans the rules
#            there (rule_exists: RuleScan = 2c for IPv4) and, for IPv6,
#            walks every table there (fib6_flush_trees: Fib6TableWalk =
#            2c - RuleScan); a is the fixed work of an add (RuleFixed4,
#            RuleFixed6)
#   exec     what a shell pays per process: EXEC_N `ip link set lo up` (lo
#            already up: two requests that change nothing) one process each
#            from a bash loop (IPExec), the same as `ip -n NS ...` in a named
#            namespace (NetnsExec, over IPExec), and EXEC_N `true &` forked
#            by a loop and waited for (Fork)
#   mem      dependent-load latency against the working set (memlat, a
#            pointer chase in huge pages, 16 KiB … MEM_MAX): sim.Memory's
#            latencies, capacities from sysfs; no namespace, nothing as root
#
# Output: one line per constant: name, median, [min – max] over the
# repetitions, n, unit and the formula. With -o FILE, also the machine
# profile of this machine (package machine's format; profile.sh writes it):
# its facts, each sim.Costs constant measured here with its median and the
# command, the others the development VM's (base devvm); `netsim ... -machine
# FILE` runs on it. CPU times come from the process's
# rusage (user+sys is exact; the split between them is tick-sampled); they
# include the softirqs (RCU callbacks: the deferred frees) that ran in its
# context. Function shares come from perf cpu-clock samples of the kernel
# stacks (at 2 kHz) in a second run of the same step, multiplied by the CPU
# time of the run without perf; off-CPU times come from sched_switch events.
# Wall times and, less so, CPU times suffer from other load on the machine: each
# repetition waits for an idle machine first (IDLE_WAIT) and says how busy it was.
set -euo pipefail

REPS=${REPS:-3}
N=${N:-65536}
N2=${N2:-16384}
GP_CALLS=${GP_CALLS:-300}
DEVS=${DEVS:-1000}
ONEBYONE=${ONEBYONE:-200}
WALK_DEVS=${WALK_DEVS:-2000 4000}
WALK_ROUTES=${WALK_ROUTES:-10000}
MEM_MAX=${MEM_MAX:-1G}
HW_SIZES=${HW_SIZES:-1000 4000}
EXEC_N=${EXEC_N:-1000}
RULES4=${RULES4:-1500 2000 3000 4000}
RULES6=${RULES6:-256 384 512 640}
SECTIONS=${SECTIONS:-seed000,split,batch,gp,dev,walks,mem,hwaddr,exec,rules}
KEEP=${KEEP:-0}
OUT=${OUT:-}
IDLE_WAIT=${IDLE_WAIT:-120}
IDLE_MAX=${IDLE_MAX:-10}

usage() {
	cat <<EOF
usage: sudo bash $0 [-r REPS] [-s SECTIONS] [-n N] [-m N2] [-d DEVS] [-k] [-o FILE]
  -r REPS      repetitions of each experiment (env REPS, default 3)
  -s SECTIONS  comma-separated subset of seed000,split,batch,gp,dev,walks,mem,hwaddr,exec,rules (env SECTIONS)
  -n N         nexthops/routes/requests per experiment (env N, default 65536; at most 65536)
  -m N2        the second size of the split section (env N2, default 16384)
  -d DEVS      ifb devices of the dev section (env DEVS, default 1000; also 2*DEVS)
  -k           keep the temporary directory (perf data, batch files)
  -o FILE      write this machine's profile to FILE (the costs measured here,
               the others the development VM's; netsim -machine FILE)
env: GP_CALLS (membarrier calls per repetition, default 300),
     ONEBYONE (devices deleted one request each in the dev section, default 200),
     WALK_DEVS (the two group sizes of the walks section, default "2000 4000"),
     WALK_ROUTES (the bystander's routes in the walks section, default 10000),
     MEM_MAX (the largest working set of the mem section, default 1G),
     HW_SIZES (macvlans on one veth in the hwaddr section, default "1000 4000"),
     EXEC_N (processes per loop in the exec section, default 1000),
     RULES4, RULES6 (the rule counts of the rules section, default
     "1500 2000 3000 4000" and "256 384 512 640"),
     IDLE_WAIT, IDLE_MAX (before each repetition wait up to IDLE_WAIT s, default
     120, 0 to not wait, until the machine is at most IDLE_MAX % busy, default 10)
EOF
}

while getopts "r:s:n:m:d:o:kh" o; do
	case $o in
	r) REPS=$OPTARG ;;
	s) SECTIONS=$OPTARG ;;
	n) N=$OPTARG ;;
	m) N2=$OPTARG ;;
	d) DEVS=$OPTARG ;;
	k) KEEP=1 ;;
	o) OUT=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

die() { echo "costs.sh: $*" >&2; exit 1; }

if [ -n "$OUT" ]; then
	: >>"$OUT" 2>/dev/null || die "cannot write the profile to $OUT"
fi
[ "${EUID:-$(id -u)}" = 0 ] || die "must run as root (sudo bash $0): it creates network namespaces and devices"
for c in unshare ip awk sort go; do
	command -v "$c" >/dev/null || die "$c not found"
done
for v in REPS N N2 GP_CALLS DEVS ONEBYONE IDLE_MAX WALK_ROUTES EXEC_N; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"
done
[[ $IDLE_WAIT =~ ^[0-9]+$ ]] || die "IDLE_WAIT must be a number of seconds"
[[ $WALK_DEVS =~ ^[1-9][0-9]*\ [1-9][0-9]*$ ]] || die "WALK_DEVS must be two positive integers (got '$WALK_DEVS')"
[[ $MEM_MAX =~ ^[1-9][0-9]*[KMG]?$ ]] || die "MEM_MAX must be a size such as 256M or 1G (got '$MEM_MAX')"
[ "$N" -le 65536 ] && [ "$N2" -le 65536 ] || die "N and N2 must be at most 65536 (the 10.A.B.0/32 prefixes)"
has() { [[ ",$SECTIONS," == *",$1,"* ]]; }
HAVE_PERF=0
if command -v perf >/dev/null && perf record -q -e cpu-clock -o /dev/null -- true 2>/dev/null; then
	HAVE_PERF=1
elif has dev; then
	echo "costs.sh: perf not found or not usable: skipping the dev section and the perf splits of batch" >&2
	SECTIONS=${SECTIONS//dev/}
fi
HOST_NS=$(readlink /proc/self/ns/net)
[ "$(unshare -n readlink /proc/self/ns/net)" != "$HOST_NS" ] || die "unshare -n does not give a private network namespace"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
D=$(mktemp -d /tmp/netsim-costs.XXXXXX)
if [ "$KEEP" = 1 ]; then
	echo "# temporary files kept in $D" >&2
else
	trap 'rm -rf "$D"' EXIT
fi
mkdir -p "$D/res" "$D/helper"
cp "$HERE/costs_helper.go" "$D/helper/main.go"
printf 'module costshelper\n\ngo 1.22\n' >"$D/helper/go.mod"
(cd "$D/helper" && GOFLAGS= GOWORK=off go build -o "$D/costs-helper" main.go) || die "cannot build costs_helper.go"
H=$D/costs-helper

# ---- batch files ------------------------------------------------------------

# gen K: the batch files of size K in $D/K/.
gen() {
	local k=$1 d=$D/$1
	[ -d "$d" ] && return
	mkdir -p "$d"
	awk -v n="$k" -v d="$d" 'BEGIN {
		for (i = 0; i < n; i++) {
			p = sprintf("10.%d.%d.0/32", int(i / 256), i % 256)
			printf "nexthop add id %d via 198.51.100.2 dev testnh0\n", i + 1 > (d "/nh.ip")
			printf "route add %s nhid %d\n", p, i + 1 > (d "/rt_nhid.ip")
			printf "route add %s via 198.51.100.2 dev testnh0\n", p > (d "/rt_gw.ip")
			printf "route add %s via 198.51.100.2 dev testnh0 metric %d\n", p, i + 1 > (d "/rt_gwm.ip")
			printf "route add %s nhid 1 metric %d\n", p, i + 1 > (d "/rt_nh1m.ip")
			printf "nexthop del id %d\n", i + 1 > (d "/nh_del.ip")
			printf "route del %s\n", p > (d "/rt_del.ip")
			printf "nexthop del id %d\n", 100000 + i > (d "/nh_del_missing.ip")
			printf "link show dev lo\n" > (d "/link_show_lo.ip")
		}
	}'
}

cat >"$D/setup.ip" <<'EOF'
link add eth2 type veth peer name eth2p
link set eth2p up
link set up dev eth2
link add testnh0 link eth2 type macvlan mode bridge
addr add 198.51.100.1/24 dev testnh0
link set testnh0 up
EOF

# ---- the part that runs inside the namespaces ---------------------------------

cat >"$D/inner.sh" <<'EOF'
set -euo pipefail
# Refuse to touch the host's network namespace.
[ "$(readlink /proc/self/ns/net)" != "$HOST_NS" ] || { echo "inner: not in a private network namespace" >&2; exit 1; }
[ "$(ip -o link show | wc -l)" = 1 ] || { echo "inner: the namespace is not fresh" >&2; exit 1; }
# t CMD...: time CMD; prints "wall_s user_s sys_s pid"; fails if CMD failed
# (unless MAYFAIL=1: `ip -force -batch` of failing requests exits 1).
t() {
	local o
	o=$("$H" time "$@")
	[ "${MAYFAIL:-0}" = 1 ] || [ "${o##* }" = 0 ] || { echo "inner: $* failed (exit ${o##* })" >&2; return 1; }
	echo "${o% *}"
}
# ok "wall user sys pid status": fail unless status is 0.
ok() { [ "${1##* }" = 0 ] || { echo "inner: a timed command failed: $1" >&2; exit 1; }; }
# cpu-clock sampling costs ~20 µs a sample on this kind of VM (hrtimer, VM
# exits): 2 kHz inflates CPU time by ~5%, 10 kHz by 20-40%. perf gives only
# the shares of the functions; the outer script multiplies them by the CPU
# time of the same step run without perf.
PERIOD=500000
PERF=(perf record -q -a -g -c "$PERIOD" -e cpu-clock -e sched:sched_switch)
EXCL='handle_softirqs,asm_sysvec_*,asm_common_interrupt,sysvec_*'

# rt6nodes: the namespace's IPv6 FIB nodes outside the tables' roots
# (fib_nodes, the first field of /proc/net/rt6_stats, in hex).
rt6nodes() { printf '%d' "0x$(cut -d' ' -f1 /proc/net/rt6_stats)"; }
perfsum() { # DATA PID PREFIX ARGS...: perfsum lines, prefixed
	local data=$1 pid=$2 pre=$3
	shift 3
	perf script -i "$data" 2>/dev/null | "$H" perfsum -pid "$pid" "$@" | sed "s/^/$pre /"
}

case $1 in
linkdown) # NHFILE|- RTFILE|-
	ip -batch "$D/setup.ip"
	if [ "$2" != - ]; then x=$(t ip -batch "$2"); echo "addnh $x"; fi
	if [ "$3" != - ]; then x=$(t ip -batch "$3"); echo "addrt $x"; fi
	echo "before $(ip -4 route show | wc -l) $(ip nexthop show | wc -l)"
	x=$(t ip link set testnh0 down)
	echo "down $x $(echo "$x" | awk '{ printf "%.6f", $2 + $3 }')"  # wall user sys pid cpu
	echo "after $(ip -4 route show | wc -l) $(ip nexthop show | wc -l)"
	;;
batch) # K USE_PERF
	d=$D/$2 use_perf=$3
	# pb LABEL HANDLER ARGS...: time `ip ARGS`; with perf, also split its
	# on-CPU time into the request syscalls (sendmsg/recvmsg, entry to exit)
	# and, within them, the rtnetlink handler.
	pb() {
		local label=$1 handler=$2 out
		shift 2
		if [ "$use_perf" = 1 ]; then
			out=$(perf record -q -g -c "$PERIOD" -e cpu-clock -o "$D/b.data" -- "$H" time ip "$@" | tail -1)
		else
			out=$("$H" time ip "$@")
		fi
		[ "${MAYFAIL:-0}" = 1 ] || ok "$out"
		echo "$label ${out% *}"
		[ "$use_perf" = 1 ] || return 0
		perfsum "$D/b.data" "$(echo "$out" | awk '{print $4}')" "$label" \
			-on "req=__libc_sendmsg,__libc_recvmsg,__sys_sendmsg,__sys_recvmsg!$EXCL" \
			-on "handler=$handler!$EXCL" -on "irq=$EXCL" -on "pagefault=asm_exc_page_fault!__sys_sendmsg,__sys_recvmsg,$EXCL"
	}
	ip -batch "$D/setup.ip"
	pb nh_add rtm_new_nexthop -batch "$d/nh.ip"
	pb nh_del rtm_del_nexthop -batch "$d/nh_del.ip"
	pb rt_gw_add inet_rtm_newroute -batch "$d/rt_gw.ip"
	pb rt_gw_del inet_rtm_delroute -batch "$d/rt_del.ip"
	pb nh_add2 rtm_new_nexthop -batch "$d/nh.ip"
	pb rt_nhid_add inet_rtm_newroute -batch "$d/rt_nhid.ip"
	pb rt_nhid_del inet_rtm_delroute -batch "$d/rt_del.ip"
	MAYFAIL=1 pb nh_del_missing rtm_del_nexthop -force -batch "$d/nh_del_missing.ip" 2>/dev/null
	pb link_show_lo rtnl_getlink -batch "$d/link_show_lo.ip" 2>/dev/null
	;;
gp) # CALLS
	"$H" membarrier "$2" | sed 's/^/gp /'
	;;
dev) # DEVS ONEBYONE USE_PERF
	n=$2 m=$3 use_perf=$4
	# P DATA CMD...: CMD, under perf recording to DATA if USE_PERF is 1.
	P() {
		local data=$1
		shift
		if [ "$use_perf" = 1 ]; then "${PERF[@]}" -o "$data" -- "$@" | tail -1; else "$@"; fi
	}
	[ "$use_perf" = 1 ] || perfsum() { :; }
	for i in $(seq 1 "$n"); do echo "link add ifb$i group 7 type ifb"; done >"$D/ns_add.ip"
	# arp off: IFF_NOARP like a dummy device (no DAD; the link-local address
	# is valid at once).
	for i in $(seq 1 "$n"); do echo "link set ifb$i arp off up"; done >"$D/ns_up.ip"
	out=$(P "$D/add.data" "$H" time ip -batch "$D/ns_add.ip")
	ok "$out"
	echo "add $out"
	perfsum "$D/add.data" "$(echo "$out" | awk '{print $4}')" add -on "reg=register_netdevice!$EXCL" -on "newlink=rtnl_newlink"
	x=$(t ip -batch "$D/ns_up.ip")
	echo "up $x"
	echo "routes6 $(ip -6 route show table all | wc -l)"
	sleep 2
	echo "nodes6 $(rt6nodes)"
	out=$(P "$D/del.data" "$H" time ip link del group 7)
	ok "$out"
	echo "grp $out"
	echo "nodes6after $(rt6nodes)"
	perfsum "$D/del.data" "$(echo "$out" | awk '{print $4}')" grp \
		-on "unreg=unregister_netdevice_many_notify!__fib6_clean_all,fib6_clean_all,fib6_run_gc,synchronize_net,synchronize_rcu,synchronize_rcu_expedited,rcu_barrier,$EXCL" \
		-on "fib6=__fib6_clean_all,fib6_clean_all!$EXCL" \
		-on "ifdown=rt6_disable_ip,rt6_sync_down_dev!$EXCL" \
		-on "gc=fib6_run_gc!$EXCL" \
		-on "todo=netdev_run_todo!rcu_barrier,$EXCL" \
		-on "irq=$EXCL" \
		-off "exp=synchronize_rcu_expedited" -off "sync=synchronize_rcu" -off "barrier=rcu_barrier" -off "all=*" -top 6
	echo "left $(ip -o link show | wc -l)"
	if [ "$m" -gt 0 ]; then
		for i in $(seq 1 "$m"); do printf 'link add ifb%d group 8 type ifb\nlink set ifb%d arp off up\n' "$i" "$i"; done >"$D/ns_add1.ip"
		for i in $(seq 1 "$m"); do echo "link del ifb$i"; done >"$D/ns_del1.ip"
		ip -batch "$D/ns_add1.ip"
		sleep 2
		out=$(P "$D/del1.data" "$H" time ip -batch "$D/ns_del1.ip")
		ok "$out"
		echo "one $out"
		perfsum "$D/del1.data" "$(echo "$out" | awk '{print $4}')" one \
			-on "unreg=unregister_netdevice_many_notify!__fib6_clean_all,fib6_clean_all,fib6_run_gc,synchronize_net,synchronize_rcu,synchronize_rcu_expedited,rcu_barrier,$EXCL" \
			-off "exp=synchronize_rcu_expedited" -off "sync=synchronize_rcu" -off "barrier=rcu_barrier" -off "all=*" -top 6
	fi
	;;
walks) # DEVS M KIND MODE USE_PERF
	n=$2 m=$3 kind=$4 mode=$5 use_perf=$6
	P() {
		local data=$1
		shift
		if [ "$use_perf" = 1 ]; then "${PERF[@]}" -o "$data" -- "$@" | tail -1; else "$@"; fi
	}
	[ "$use_perf" = 1 ] || perfsum() { :; }
	# wsum PREFIX DATA PID: the IPv6 walks' CPU time by caller.
	wsum() {
		perfsum "$2" "$3" "$1" \
			-on "fib6=__fib6_clean_all,fib6_clean_all!$EXCL" \
			-on "ifdown=rt6_disable_ip,rt6_sync_down_dev!$EXCL" \
			-on "unreg=rt6_disable_ip,rt6_sync_down_dev!netif_close_many,dev_close_many,__dev_notify_flags,$EXCL" \
			-on "gc=fib6_run_gc!$EXCL" \
			-on "irq=$EXCL"
	}
	for i in $(seq 1 "$n"); do printf 'link add ifb%d group 7 type ifb\nlink set ifb%d arp off up\n' "$i" "$i"; done >"$D/w_add.ip"
	printf 'link add by0 type ifb\nlink set by0 arp off up\n' >>"$D/w_add.ip"
	# the bystander's routes: M prefixes (a node each) or M metrics of one
	# prefix (one node, a leaf list of M routes, as fe80::/64 and ff00::/8
	# hold one route per device).
	case $kind in
	node) awk -v m="$m" 'BEGIN { for (i = 0; i < m; i++) printf "route add 2001:db8:%x:%x::/64 dev by0\n", int(i / 65536), i % 65536 }' ;;
	list) awk -v m="$m" 'BEGIN { for (i = 0; i < m; i++) printf "route add 2001:db8::/64 dev by0 metric %d\n", 1024 + i }' ;;
	esac >"$D/w_rt.ip"
	ip -batch "$D/w_add.ip"
	[ "$m" = 0 ] || ip -6 -batch "$D/w_rt.ip"
	sleep 2
	echo "routes6 $(ip -6 route show table all | wc -l)"
	if [ "$mode" = down ]; then
		out=$(P "$D/wd.data" "$H" time ip link set group 7 down)
		ok "$out"
		echo "wdown $out"
		wsum wdown "$D/wd.data" "$(echo "$out" | awk '{print $4}')"
		echo "routes6down $(ip -6 route show table all | wc -l)"
		sleep 1
	fi
	out=$(P "$D/wg.data" "$H" time ip link del group 7)
	ok "$out"
	echo "wdel $out"
	wsum wdel "$D/wg.data" "$(echo "$out" | awk '{print $4}')"
	echo "left $(ip -o link show | wc -l) $(ip -6 route show table all | wc -l)"
	;;
hwaddr) # K
	k=$2
	# K macvlans on one veth, created down, then brought up: each up adds
	# the macvlan's address to the veth's unicast list (dev_uc_add, an
	# rbtree insert), syncs the multicast lists and adds its IPv6
	# link-local address (arp off: no DAD, nothing sent).
	{
		echo "link add v0 type veth peer name v1"
		echo "link set v1 up"
		echo "link set v0 up"
		for i in $(seq 1 "$k"); do echo "link add mv$i link v0 type macvlan mode bridge"; done
	} >"$D/hw_add.ip"
	for i in $(seq 1 "$k"); do echo "link set mv$i arp off up"; done >"$D/hw_up.ip"
	x=$(t ip -batch "$D/hw_add.ip")
	echo "hwadd $x"
	x=$(t ip -batch "$D/hw_up.ip")
	echo "hwup $x"
	;;
rules) # FAMILY K
	awk -v n="$3" 'BEGIN { for (i = 1; i <= n; i++) printf "rule add from all table %d\n", i }' >"$D/rules.ip"
	x=$(t ip "-$2" -batch "$D/rules.ip")
	echo "rules $x"
	;;
exec) # K
	k=$2
	ip link set lo up
	x=$(t bash -c "for i in \$(seq $k); do ip link set lo up; done")
	echo "execloop $x"
	x=$(t bash -c "for i in \$(seq $k); do true & done; wait")
	echo "forkloop $x"
	# A named namespace of its own: ip netns add in a private mount
	# namespace whose /run/netns is a fresh tmpfs (the host's is untouched).
	x=$(unshare -m bash -c "mkdir -p /run/netns && mount -t tmpfs netsim-costs /run/netns && ip netns add nsx && ip -n nsx link set lo up && \"$H\" time bash -c 'for i in \$(seq $k); do ip -n nsx link set lo up; done'")
	ok "$x"
	echo "netnsloop ${x% *}"
	;;
*)
	echo "inner: unknown step $1" >&2
	exit 2
	;;
esac
EOF

# pctbusy STAT1 STAT2: the percentage of CPU time not idle between two
# /proc/stat "cpu" lines.
pctbusy() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x); split(b, y)
		for (i = 2; i <= n; i++) { t += y[i] - x[i]; if (i == 5 || i == 6) idle += y[i] - x[i] }
		printf "%d", t ? 100 * (t - idle) / t : 0
	}'
}
# ns STEP ARGS...: run one step of inner.sh in a fresh network namespace; say
# how busy the machine was meanwhile (the step itself keeps one CPU busy at
# most, i.e. 100/CPUs %, apart from short overlaps).
ns() {
	local a b x t0=$SECONDS what=$1
	for x in "${@:2}"; do what+=" ${x##*/}"; done
	a=$(head -1 /proc/stat)
	HOST_NS=$HOST_NS H=$H D=$D unshare -n bash "$D/inner.sh" "$@"
	b=$(head -1 /proc/stat)
	echo "#     step $what: $((SECONDS - t0)) s, machine $(pctbusy "$a" "$b")% busy" >&2
}

# ---- results ------------------------------------------------------------------

# emit KEY UNIT VALUE FORMULA: record one repetition's value of KEY (an empty
# VALUE, for a figure the repetition did not produce, is skipped).
emit() {
	local key=$1 unit=$2 val=$3
	shift 3
	if ! [[ $val =~ ^-?[0-9.]+(e[-+]?[0-9]+)?$ ]]; then
		printf '#   %s: no value (%s)\n' "$key" "$val" >&2
		return 0
	fi
	echo "$val" >>"$D/res/$key"
	[ -f "$D/res/$key.meta" ] || { printf '%s\t%s\n' "$unit" "$*" >"$D/res/$key.meta"; echo "$key" >>"$D/res/order"; }
	printf '#   %s = %s %s\n' "$key" "$val" "$unit" >&2
}
# field KEY I TEXT: field I after KEY of TEXT's line "KEY f1 f2 ...".
field() { awk -v p="$1" -v n="$2" '$1 == p { print $(n + 1); exit }' <<<"$3"; }
# after TEXT PREFIX WORD: the word after WORD on TEXT's first line starting "PREFIX ".
after() { awk -v p="$2" -v w="$3" 'index($0, p " ") == 1 { for (i = 1; i < NF; i++) if ($i == w) { print $(i + 1); exit } }' <<<"$1"; }
# calc EXPR: EXPR evaluated by awk.
calc() { awk "BEGIN { printf \"%.6g\", $* }"; }
# scale V MUL DIV: V * MUL / DIV, or nothing if V is empty (a figure perf did not give).
scale() { [ -z "$1" ] || calc "$1 * $2 / $3"; }
# cpu TEXT KEY: user+sys seconds of TEXT's line "KEY wall user sys ...".
cpu() { awk -v p="$2" '$1 == p { printf "%.6f", $3 + $4; exit }' <<<"$1"; }
# share CPU TEXT PREFIX NAME MUL DIV: CPU * (perf's "PREFIX on NAME" ms / its
# "PREFIX on total" ms) * MUL / DIV: the function's share of the samples of a
# step run under perf, times the CPU time of the same step run without it.
share() {
	local x t
	x=$(after "$2" "$3 on" "$4")
	t=$(after "$2" "$3 on" total)
	[ -n "$1" ] && [ -n "$x" ] && [ -n "$t" ] && [ "$t" != 0.000 ] || return 0
	calc "$1 * ($x / $t) * $5 / $6"
}

summary() {
	echo
	printf '%-30s %12s  %-27s %3s %-4s %s\n' constant median "[min – max]" n unit formula
	[ -f "$D/res/order" ] || return 0
	while read -r key; do
		IFS=$'\t' read -r unit formula <"$D/res/$key.meta"
		sort -g "$D/res/$key" | awk -v k="$key" -v u="$unit" -v f="$formula" '
			{ v[NR] = $1 }
			END {
				med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				printf "%-30s %12.4g  %-27s %3d %-4s %s\n", k, med, sprintf("[%.4g – %.4g]", v[1], v[NR]), NR, u, f
			}'
	done <"$D/res/order"
}
# profile: write this machine's profile to OUT (-o), from the results.
profile() {
	[ -n "$OUT" ] || return 0
	N=$N DEVS=$DEVS bash "$HERE/profile.sh" "$D/res" "$OUT" && echo "# profile written to $OUT" >&2
}
trap 'summary; profile; [ "$KEEP" = 1 ] || rm -rf "$D"' EXIT

# busy: the percentage of all CPUs' time that was not idle over the next 0.5 s.
busy() {
	local a
	a=$(head -1 /proc/stat)
	sleep 0.5
	pctbusy "$a" "$(head -1 /proc/stat)"
}
# progress WHAT: wait (up to IDLE_WAIT s) for a quiet machine, then say what runs.
progress() {
	local start=$SECONDS b
	b=$(busy)
	while [ "$IDLE_WAIT" -gt 0 ] && [ "$b" -gt "$IDLE_MAX" ] && [ $((SECONDS - start)) -lt "$IDLE_WAIT" ]; do
		sleep 2
		b=$(busy)
	done
	echo "# $* (machine ${b}% busy, load $(cut -d' ' -f1 /proc/loadavg))" >&2
}

echo "# $(uname -sr), $(nproc) CPUs, $(ip -V), HZ=$(zcat /proc/config.gz 2>/dev/null | awk -F= '/^CONFIG_HZ=/{print $2}')" >&2
echo "# REPS=$REPS N=$N N2=$N2 GP_CALLS=$GP_CALLS DEVS=$DEVS ONEBYONE=$ONEBYONE sections=$SECTIONS; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# ---- seed000 ------------------------------------------------------------------

if has seed000; then
	gen "$N"
	for r in $(seq 1 "$REPS"); do
		progress "seed000 rep $r"
		o=$(ns linkdown "$D/$N/nh.ip" "$D/$N/rt_nhid.ip")
		[ "$(field after 1 "$o") $(field after 2 "$o")" = "0 0" ] || die "seed000: routes or nexthops left after link down: $o"
		emit Seed000LinkDown.wall s "$(field down 1 "$o")" "wall of \`ip link set testnh0 down\`, N=$N nexthops + N routes (nhid i)"
		emit Seed000LinkDown.cpu s "$(field down 5 "$o")" "CPU time (user+sys) of the same"
		o2=$(ns linkdown "$D/$N/nh.ip" "$D/$N/rt_nh1m.ip")
		emit Seed000AfterLike.cpu s "$(field down 5 "$o2")" "CPU time of the link down with N nexthops + N routes all on nhid 1, metric i (one flush: the patched kernel's work)"
		emit Seed000AfterLike.wall s "$(field down 1 "$o2")" "wall of the same"
		# Per-nexthop flushes walk the merged local/main trie twice; nexthop k's
		# flush sees its route and the N-k others plus 3 (prefix, local, broadcast).
		if awk -v a="$(field down 5 "$o")" -v b="$(field down 5 "$o2")" 'BEGIN { exit !(a < 10 * b) }'; then
			echo "# seed000: the link down is not much slower than AfterLike: this kernel flushes once (it has the patch); no TrieLeafVisit" >&2
			continue
		fi
		emit TrieLeafVisit ns "$(calc "($(field down 5 "$o") - $(field down 5 "$o2")) * 1e9 / ($N * $N + 6 * $N)")" \
			"(cpu(Seed000LinkDown) - cpu(Seed000AfterLike)) / (N^2 + 6N) leaf visits (2 walks per flush)"
	done
fi

# ---- split --------------------------------------------------------------------

if has split; then
	for k in "$N" "$N2"; do
		gen "$k"
		for r in $(seq 1 "$REPS"); do
			progress "split N=$k rep $r"
			declare -A w s
			for v in base nh gw gwm nh1m; do
				case $v in
				base) o=$(ns linkdown - -) ;;
				nh) o=$(ns linkdown "$D/$k/nh.ip" -) ;;
				gw) o=$(ns linkdown - "$D/$k/rt_gw.ip") ;;
				gwm) o=$(ns linkdown - "$D/$k/rt_gwm.ip") ;;
				nh1m) o=$(ns linkdown "$D/$k/nh.ip" "$D/$k/rt_nh1m.ip") ;;
				esac
				[ "$(field after 1 "$o") $(field after 2 "$o")" = "0 0" ] || die "split $v: routes or nexthops left after link down: $o"
				w[$v]=$(field down 1 "$o")
				s[$v]=$(field down 5 "$o")
			done
			emit "LinkDownBase.wall@$k" ms "$(calc "${w[base]} * 1e3")" "wall of the link down without nexthops or routes"
			emit "LinkDownBase.cpu@$k" ms "$(calc "${s[base]} * 1e3")" "CPU time (user+sys) of the same"
			emit "NexthopRemove@$k" ns "$(calc "(${s[nh]} - ${s[base]}) * 1e9 / $k")" "(cpu(N nexthops, no routes) - cpu(base)) / N"
			emit "NexthopRemove@$k.wall" ns "$(calc "(${w[nh]} - ${w[base]}) * 1e9 / $k")" "the same from wall times"
			emit "FibAliasRemove.shared@$k" ns "$(calc "(${s[gw]} - ${s[base]}) * 1e9 / $k")" "(cpu(N routes via 198.51.100.2, one shared fib_info) - cpu(base)) / N"
			emit "FibAliasRemove.own@$k" ns "$(calc "(${s[gwm]} - ${s[base]}) * 1e9 / $k")" "(cpu(N routes via gw, metric i: own fib_info+fib_nh each) - cpu(base)) / N"
			emit "FibInfoFree@$k" ns "$(calc "(${s[gwm]} - ${s[gw]}) * 1e9 / $k")" "(cpu(N routes with a fib_info each) - cpu(N routes sharing one)) / N: fib_release_info freeing a fib_info"
			emit "FibAliasRemove.nhid@$k" ns "$(calc "(${s[nh1m]} - ${s[nh]}) * 1e9 / $k")" "(cpu(N nexthops + N routes nhid 1 metric i) - cpu(N nexthops)) / N"
			emit "AfterLikePerPair@$k" ns "$(calc "(${s[nh1m]} - ${s[base]}) * 1e9 / $k")" "(cpu(N nexthops + N routes nhid 1 metric i) - cpu(base)) / N: NexthopRemove + FibAliasRemove"
		done
	done
fi

# ---- batch --------------------------------------------------------------------

if has batch; then
	gen "$N"
	for r in $(seq 1 "$REPS"); do
		progress "batch rep $r"
		o=$(ns batch "$N" 0)
		p=
		[ "$HAVE_PERF" = 0 ] || p=$(ns batch "$N" 1)
		# the request kinds: label, handler, what the batch lines are
		while read -r label handler what; do
			emit "$label.sys" ns "$(calc "$(field "$label" 3 "$o") * 1e9 / $N")" "sys(ip -batch of N $what) / N: all kernel time per line (syscalls, ip's page faults, softirqs)"
			[ "$HAVE_PERF" = 1 ] || continue
			c=$(cpu "$o" "$label")
			emit "$label.handler" ns "$(share "$c" "$p" "$label" handler 1e9 "$N")" "cpu(no perf) * perf share($handler, no irq) / N"
			emit "$label.syscall" ns "$(calc "$(share "$c" "$p" "$label" req 1e9 "$N") - $(share "$c" "$p" "$label" handler 1e9 "$N")")" "cpu(no perf) * perf share(sendmsg+recvmsg syscalls outside $handler, no irq) / N"
			emit "$label.pagefault" ns "$(share "$c" "$p" "$label" pagefault 1e9 "$N")" "cpu(no perf) * perf share(page faults outside the requests: ip's heap growing, ~4 KiB a line) / N"
		done <<-'EOT'
			nh_add rtm_new_nexthop `nexthop add id i via 198.51.100.2 dev testnh0` (NexthopAdd)
			nh_del rtm_del_nexthop `nexthop del id i`, unused nexthops (NexthopRemove one by one)
			rt_gw_add inet_rtm_newroute `route add 10.A.B.0/32 via 198.51.100.2 dev testnh0`: one shared fib_info (FibAliasInsert)
			rt_gw_del inet_rtm_delroute `route del 10.A.B.0/32` of those (FibAliasRemove one by one)
			rt_nhid_add inet_rtm_newroute `route add 10.A.B.0/32 nhid i`: own fib_info each (FibAliasInsert)
			rt_nhid_del inet_rtm_delroute `route del 10.A.B.0/32` of those
			nh_del_missing rtm_del_nexthop `nexthop del id X` failing with ENOENT (ip -force; stderr to /dev/null)
			link_show_lo rtnl_getlink `link show dev lo` (stdout to /dev/null)
		EOT
		emit IPBatchLine.user ns "$(calc "$(field nh_add 2 "$o") * 1e9 / $N")" "user(ip -batch of N nexthop adds) / N (user/sys split is tick-sampled)"
		# ip -batch (iproute2 6.1) keeps ~4 KiB of heap a line: each line
		# also costs the page fault that grows it, kernel time in ip's
		# context that no request does.
		[ "$HAVE_PERF" = 0 ] || emit IPBatchLine ns "$(calc "$(field nh_add 2 "$o") * 1e9 / $N + $(share "$(cpu "$o" nh_add)" "$p" nh_add pagefault 1e9 "$N")")" "IPBatchLine.user + nh_add.pagefault: ip's user time a line and the page faults of its heap"
	done
fi

# ---- gp -----------------------------------------------------------------------

if has gp; then
	for r in $(seq 1 "$REPS"); do
		progress "gp rep $r"
		ns gp "$GP_CALLS" | awk '{print $2}' >"$D/gp.$r"
		sort -g "$D/gp.$r" >"$D/gp.$r.s"
		q() { awk -v f="$1" '{ v[NR] = $1 } END { i = int(f * (NR - 1) + 0.5) + 1; printf "%.4g", v[i] / 1000 }' "$D/gp.$r.s"; }
		emit GracePeriod ms "$(q 0.5)" "median of $GP_CALLS membarrier(MEMBARRIER_CMD_GLOBAL) = synchronize_rcu() latencies"
		emit GracePeriod.p10 ms "$(q 0.1)" "10th percentile of the same"
		emit GracePeriod.p90 ms "$(q 0.9)" "90th percentile of the same"
		emit GracePeriod.max ms "$(q 1)" "maximum of the same"
		emit GracePeriod.mean ms "$(awk '{ s += $1 } END { printf "%.4g", s / NR / 1000 }' "$D/gp.$r.s")" "mean of the same"
	done
	echo "# synchronize_rcu latency histogram (ms, all repetitions): $(cat "$D"/gp.*.s | awk '{ b = int($1 / 1000); c[b]++ } END { for (b in c) printf "%d:%d ", b, c[b] }' | tr ' ' '\n' | sort -n | tr '\n' ' ')" >&2
fi

# ---- dev ----------------------------------------------------------------------

if has dev; then
	for r in $(seq 1 "$REPS"); do
		for n in "$DEVS" $((2 * DEVS)); do
			progress "dev n=$n rep $r"
			m=0
			[ "$n" = "$DEVS" ] && m=$ONEBYONE
			o=$(ns dev "$n" "$m" 0)
			[ "$(field left 1 "$o")" = 1 ] || die "dev: devices left after link del group: $o"
			p=$(ns dev "$n" "$m" 1)
			printf '%s\n' "$p" | grep -E '^(grp|one) (offpath|off all)' | sed 's/^/#     /' >&2
			R=$(field routes6 1 "$o")
			emit "DevRegister@$n" us "$(share "$(cpu "$o" add)" "$p" add reg 1e6 "$n")" "cpu(ip -batch of \`link add ifbN group 7 type ifb\`) * perf share(register_netdevice, no irq) / devices"
			emit "LinkAddIfb.sys@$n" us "$(calc "$(field add 3 "$o") * 1e6 / $n")" "sys(ip -batch of \`link add ifbN group 7 type ifb\`) / devices"
			emit "LinkSetUp.sys@$n" us "$(calc "$(field up 3 "$o") * 1e6 / $n")" "sys(ip -batch of \`link set ifbN arp off up\`) / devices"
			emit "LinkDelGroup.wall@$n" ms "$(calc "$(field grp 1 "$o") * 1e3")" "wall of \`ip link del group 7\`"
			emit "LinkDelGroup.cpuPerDev@$n" us "$(calc "$(cpu "$o" grp) * 1e6 / $n")" "CPU time of the same / devices"
			c=$(cpu "$o" grp)
			emit "DevUnregister@$n" us "$(share "$c" "$p" grp unreg 1e6 "$n")" "cpu(group delete) * perf share(unregister_netdevice_many_notify minus fib6 walks, synchronize_*, rcu_barrier, irq/softirq) / devices"
			# The walks of a group deletion (net/ipv6/addrconf.c, route.c,
			# ip6_fib.c): at NETDEV_DOWN, device by device, addrconf_ifdown's
			# rt6_disable_ip walks every route present (fib6_ifdown deletes the
			# device's 3), then deleting its link-local address bumps the route
			# genid (__ipv6_ifa_notify, rt_genid_bump_ipv6: fib6_flush_trees,
			# a walk of every node that calls no route callback); at
			# NETDEV_UNREGISTER, after every device is down, rt6_disable_ip
			# walks again over what is left (no route of the group). Each walk
			# also visits the null entry of the main and local tables' roots.
			# fib6_ifdown callbacks: sum over i < n of (R - 3i + 2) at
			# NETDEV_DOWN, plus 2 a device at NETDEV_UNREGISTER.
			V=$(calc "$n * ($R + 2) - 3 * $n * ($n - 1) / 2 + 2 * $n")
			F0=$(field nodes6 1 "$o")
			F1=$(field nodes6after 1 "$o")
			emit "Fib6Visit@$n" ns "$(share "$c" "$p" grp ifdown 1e9 "$V")" "cpu(group delete) * perf share(rt6_disable_ip's fib6_clean_all) / fib6_ifdown calls: n(R+2) - 3n(n-1)/2 + 2n; R=IPv6 routes before (3/device)"
			emit "Fib6FlushNode@$n" ns "$(calc "($(share "$c" "$p" grp fib6 1e9 1) - $(share "$c" "$p" grp ifdown 1e9 1) - 0$(share "$c" "$p" grp gc 1e9 1)) / ($n * ($F0 + $F1) / 2)")" "cpu(group delete) * perf share(the other __fib6_clean_all: fib6_flush_trees of each address deletion) / nodes walked, n(F0+F1)/2 (F: rt6_stats fib_nodes before and after)"
			emit "NetdevRunTodo@$n" us "$(share "$c" "$p" grp todo 1e6 "$n")" "cpu(group delete) * perf share(netdev_run_todo minus rcu_barrier) / devices (after RTNL is dropped)"
			emit "GroupDel.irq@$n" ms "$(share "$c" "$p" grp irq 1e3 1)" "cpu(group delete) * perf share(irq/softirq: RCU callbacks, ...) in ip's context"
			emit "GroupDel.expGP.sleeps@$n" count "$(after "$p" "grp off exp" exp)" "sleeps in synchronize_rcu_expedited during the group delete (perf sched_switch)"
			emit "GroupDel.rcu_barrier@$n" us "$(after "$p" "grp off barrier" median)" "off-CPU in rcu_barrier (median over its sleeps) during the group delete"
			if [ "$m" -gt 0 ]; then
				emit "ExpeditedGP" us "$(after "$p" "one off exp" median)" "median off-CPU sleep in synchronize_rcu_expedited, $ONEBYONE one-by-one \`link del ifbN\` (perf sched_switch)"
				emit "ExpeditedGP.mean" us "$(after "$p" "one off exp" mean)" "mean of the same (what a sum of many waits sees)"
				emit "ExpeditedGP.p10" us "$(after "$p" "one off exp" p10)" "10th percentile of the same"
				emit "ExpeditedGP.p90" us "$(after "$p" "one off exp" p90)" "90th percentile of the same"
				emit "ExpeditedGP.sleepsPerReq" count "$(scale "$(after "$p" "one off exp" exp)" 1 "$m")" "expedited sleeps per one-by-one \`link del\` (the model: 2 synchronize_net per request)"
				emit "RCUBarrier.onebyone" us "$(after "$p" "one off barrier" median)" "median off-CPU sleep in rcu_barrier per one-by-one \`link del\`"
				emit "LinkDelOne.wall" us "$(calc "$(field one 1 "$o") * 1e6 / $m")" "wall of ip -batch of $ONEBYONE \`link del ifbN\` / requests"
				emit "DevUnregister.onebyone" us "$(share "$(cpu "$o" one)" "$p" one unreg 1e6 "$m")" "cpu(one-by-one deletes) * perf share(unregister_netdevice_many_notify minus walks/syncs/irq) / devices"
			fi
		done
	done
fi

# ---- walks --------------------------------------------------------------------

# How many IPv6 routes the fib6_clean_all walks of a group deletion visit,
# from times alone. WALK_DEVS devices (ifb, arp off, up: 3 IPv6 routes each)
# and a bystander device by0 that is not deleted, holding M more routes that
# every walk of every deleted device visits and none removes. Each size is
# deleted once while up (`ip link del group 7`: NETDEV_DOWN for every
# device, then NETDEV_UNREGISTER for every device) and once taken down first
# (`ip link set group 7 down`, the NETDEV_DOWN walks alone, then the
# deletion: the NETDEV_UNREGISTER walks alone). CPU time is affine in M with
# slope (devices x walks a device x cost of a visit) and, at M = 0, a
# quadratic term in the devices from the group's own routes.
if has walks; then
	read -r -a WN <<<"$WALK_DEVS"
	[ "${#WN[@]}" = 2 ] || die "WALK_DEVS must be two sizes"
	for r in $(seq 1 "$REPS"); do
		declare -A wc=()
		for n in "${WN[@]}"; do
			for mk in "0 node" "$WALK_ROUTES node" "$WALK_ROUTES list"; do
				read -r m kind <<<"$mk"
				[ "$m" != 0 ] || [ "$kind" = node ] || continue
				for mode in up down; do
					progress "walks n=$n M=$m ($kind) $mode rep $r"
					o=$(ns walks "$n" "$m" "$kind" "$mode" 0)
					[ "$(field left 1 "$o")" = 2 ] || die "walks: devices left after link del group: $o"
					wc[$n.$m.$kind.$mode.del]=$(cpu "$o" wdel)
					emit "WalkDel.cpu@$n.$m$kind.$mode" s "${wc[$n.$m.$kind.$mode.del]}" "CPU time of \`ip link del group 7\`, $n devices ($mode before), M=$m bystander routes ($kind)"
					if [ "$mode" = down ]; then
						wc[$n.$m.$kind.down.down]=$(cpu "$o" wdown)
						emit "WalkDown.cpu@$n.$m$kind" s "${wc[$n.$m.$kind.down.down]}" "CPU time of \`ip link set group 7 down\`, $n devices, M=$m bystander routes ($kind)"
					fi
					[ "$HAVE_PERF" = 1 ] && [ "$m" = 0 ] || continue
					p=$(ns walks "$n" "$m" "$kind" "$mode" 1)
					for step in wdel wdown; do
						[ "$step" = wdel ] || [ "$mode" = down ] || continue
						c=$(cpu "$o" "$step")
						f6=$(share "$c" "$p" "$step" fib6 1 1)
						ifd=$(share "$c" "$p" "$step" ifdown 1 1)
						un=$(share "$c" "$p" "$step" unreg 1 1)
						gc=$(share "$c" "$p" "$step" gc 1 1)
						emit "WalkShare.$step.fib6@$n.$mode" s "$f6" "cpu * perf share(__fib6_clean_all: every walk)"
						emit "WalkShare.$step.ifdown.down@$n.$mode" s "$(calc "${ifd:-0} - ${un:-0}")" "cpu * perf share(rt6_disable_ip under NETDEV_DOWN: fib6_ifdown walks of devices going down)"
						emit "WalkShare.$step.ifdown.unreg@$n.$mode" s "$un" "cpu * perf share(rt6_disable_ip outside netif_close_many/__dev_notify_flags: the NETDEV_UNREGISTER walks)"
						emit "WalkShare.$step.gc@$n.$mode" s "$gc" "cpu * perf share(fib6_run_gc)"
						emit "WalkShare.$step.flush@$n.$mode" s "$(calc "${f6:-0} - ${ifd:-0} - ${gc:-0}")" "cpu * perf share(__fib6_clean_all elsewhere: fib6_flush_trees of rt_genid_bump_ipv6, from __ipv6_ifa_notify deleting each address)"
					done
				done
			done
		done
		n1=${WN[0]} n2=${WN[1]} M=$WALK_ROUTES
		# Slopes in M: ns per (device x bystander route), = walks a device x ns a visit.
		for n in "$n1" "$n2"; do
			for kind in node list; do
				emit "WalkSlope.up@$n.$kind" ns "$(calc "(${wc[$n.$M.$kind.up.del]} - ${wc[$n.0.node.up.del]}) * 1e9 / ($M * $n)")" "(cpu(del while up, M) - cpu(M=0)) / (M x devices): walks a device x ns a visit"
				emit "WalkSlope.down@$n.$kind" ns "$(calc "(${wc[$n.$M.$kind.down.down]} - ${wc[$n.0.node.down.down]}) * 1e9 / ($M * $n)")" "the same for \`link set group 7 down\`: NETDEV_DOWN walks a device x ns a visit"
				emit "WalkSlope.unreg@$n.$kind" ns "$(calc "(${wc[$n.$M.$kind.down.del]} - ${wc[$n.0.node.down.del]}) * 1e9 / ($M * $n)")" "the same for the deletion of the devices down: NETDEV_UNREGISTER walks a device x ns a visit"
			done
		done
		# Quadratic terms at M = 0: T = a n + b n^2, so b = (T2 - (n2/n1) T1) / (n2^2 - n2 n1).
		q() { calc "($2 - $n2 / $n1 * $1) * 1e9 / ($n2 * $n2 - $n2 * $n1)"; }
		emit "WalkQuad.up" ns "$(q "${wc[$n1.0.node.up.del]}" "${wc[$n2.0.node.up.del]}")" "b of cpu(del while up) = a n + b n^2, M=0: ns per n^2 (visits per n^2 x ns a visit)"
		emit "WalkQuad.down" ns "$(q "${wc[$n1.0.node.down.down]}" "${wc[$n2.0.node.down.down]}")" "the same for \`link set group 7 down\`"
		emit "WalkQuad.unreg" ns "$(q "${wc[$n1.0.node.down.del]}" "${wc[$n2.0.node.down.del]}")" "the same for the deletion of the devices down"
		unset wc
	done
fi

# ---- exec ---------------------------------------------------------------------

# The per-process costs of the validation's and the seeds' shell loops. `ip
# link set lo up` on a lo that is up is two requests (the device lookup and
# an RTM_NEWLINK that changes nothing), a few µs of the ~1.4 ms a process
# costs; the profile's IPExec is the wall per process less them.
if has exec; then
	for r in $(seq 1 "$REPS"); do
		progress "exec rep $r"
		o=$(ns exec "$EXEC_N")
		emit IPExec.loop us "$(calc "$(field execloop 1 "$o") * 1e6 / $EXEC_N")" "wall(bash loop of EXEC_N \`ip link set lo up\`) / EXEC_N: fork, exec, ip's start and exit, two requests"
		emit NetnsExec.loop us "$(calc "($(field netnsloop 1 "$o") - $(field execloop 1 "$o")) * 1e6 / $EXEC_N")" "(wall(the same as \`ip -n NS ...\`) - wall(the loop above)) / EXEC_N: setns, the mount namespace, /sys remounted"
		emit Fork us "$(calc "$(field forkloop 1 "$o") * 1e6 / $EXEC_N")" "wall(bash loop forking EXEC_N \`true &\`, then wait) / EXEC_N"
	done
fi

# ---- rules --------------------------------------------------------------------

# lsq FILE: a, c and the points of y = a·n + c·n² fitted by least squares
# to FILE's "n y" lines.
lsq() { awk -f "$HERE/lsq.awk" "$1"; }
if has rules; then
	for fam in 4 6; do
		sizes=$RULES4
		[ "$fam" = 4 ] || sizes=$RULES6
		: >"$D/rules$fam"
		for r in $(seq 1 "$REPS"); do
			for n in $sizes; do
				progress "rules ipv$fam N=$n rep $r"
				o=$(ns rules "$fam" "$n")
				echo "$n $(cpu "$o" rules)" >>"$D/rules$fam"
			done
		done
		read -r a c _ < <(lsq "$D/rules$fam")
		emit "RuleFixed$fam" us "$(calc "$a * 1e6")" "a of cpu(ip -$fam -batch of N rule adds) = a·N + c·N², least squares over N in {$sizes} x REPS: the fixed work of an add"
		if [ "$fam" = 4 ]; then
			scan=$(calc "2 * $c * 1e9")
			emit RuleScan ns "$scan" "2c of the same (IPv4): each add's rule_exists scans the rules there, N²/2 in all"
		else
			emit Fib6TableWalk ns "$(calc "2 * $c * 1e9 - ${scan:-0}")" "2c of the same (IPv6) less RuleScan: each add's fib6_flush_trees walks every table there"
		fi
	done
fi

# ---- mem ----------------------------------------------------------------------

if has mem; then
	(cd "$HERE/../.." && go build -o "$D/memlat" ./internal/measure/memlat) || die "cannot build internal/measure/memlat"
	for r in $(seq 1 "$REPS"); do
		progress "mem rep $r"
		o=$("$D/memlat" -max "$MEM_MAX")
		printf '%s\n' "$o" | sed 's/^/#     /' >&2
		for lv in L1Hit L2Hit L3Hit DRAM; do
			emit "Memory.$lv" ns "$(sed -n "s/^Memory\.$lv .*): \([0-9.]*\) ns,.*/\1/p" <<<"$o")" "memlat: plateau of the dependent-load latency in the $lv range, the levels above's share taken out (capacity model)"
		done
		emit Memory.modelWorst ratio "$(sed -n 's/^# worst model\/measured ratio \([0-9][0-9.]*\).*/\1/p' <<<"$o")" "memlat: the largest of model/measured and its inverse over the working sets (sysfs capacities)"
		emit Memory.L2eff KiB "$(sed -n 's/^# the chase.s effective capacities.*(\([0-9]*\) and [0-9]* bytes)/\1/p' <<<"$o" | awk '{ printf "%.0f", $1 / 1024 }')" "memlat: the L2 capacity that fits the curve best (the plateaus held)"
		emit Memory.L3eff KiB "$(sed -n 's/^# the chase.s effective capacities.*([0-9]* and \([0-9]*\) bytes)/\1/p' <<<"$o" | awk '{ printf "%.0f", $1 / 1024 }')" "memlat: the L3 capacity that fits the curve best (the plateaus held)"
		emit Memory.modelWorstEff ratio "$(sed -n 's/^# worst model\/measured ratio with the fitted capacities \([0-9][0-9.]*\).*/\1/p' <<<"$o")" "memlat: the same with the fitted capacities"
	done
fi

# ---- hwaddr -------------------------------------------------------------------

if has hwaddr; then
	for r in $(seq 1 "$REPS"); do
		for k in $HW_SIZES; do
			progress "hwaddr K=$k rep $r"
			o=$(ns hwaddr "$k")
			emit "MacvlanAdd.sys@$k" us "$(calc "$(field hwadd 3 "$o") * 1e6 / $k")" "sys(ip -batch of \`link add mvN link v0 type macvlan mode bridge\`) / K"
			emit "MacvlanUp.sys@$k" us "$(calc "$(field hwup 3 "$o") * 1e6 / $k")" "sys(ip -batch of \`link set mvN arp off up\`) / K: dev_uc_add into the veth's rbtree of K addresses, rx-mode syncs, the link-local address"
			emit "MacvlanUp.wall@$k" us "$(calc "$(field hwup 1 "$o") * 1e6 / $k")" "wall of the same / K"
		done
	done
fi
