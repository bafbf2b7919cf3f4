#!/bin/sh
# Runs upstream's own tests on the running kernel, as their authors run
# them, each package in a new private network namespace, and prints each
# test's result: the tally netsim's copies are compared with
# (docs/nlwire.md#upstreams-own-tests).
#   - jsimonetti/rtnetlink v2.3.0's live tests (build tag integration: the
#     *_live_test.go files and driver/driver_test.go), in a namespace set
#     up by jsimonetti/testutils/host.ip;
#   - mdlayher/netlink v1.9.0's socket integration tests
#     (conn_linux_integration_test.go), in a namespace with lo up.
# Needs root, unshare and iproute2; touches nothing outside the namespaces.
#   sudo sh nlwire/internal/upstream/linux.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# copy MODULE@VERSION: a writable copy of a module from the module cache.
copy() {
	src=$(go env GOMODCACHE)/$1
	[ -d "$src" ] || (cd "$here" && go mod download "$1")
	cp -r "$src" "$work/$2" && chmod -R u+w "$work/$2"
}

# run NAME DIR SETUP TESTS [TAGS]: build DIR's tests and run the ones
# matching TESTS in a new network namespace after SETUP; print
# "RESULT NAME TEST" lines.
run() {
	(cd "$2" && GOFLAGS=-mod=mod go test ${5:+-tags "$5"} -c -o "$work/$1.test" .)
	(cd "$2" && unshare -n sh -c "$3 && '$work/$1.test' -test.v -test.count=1 -test.run '^($4)\$'" 2>&1) |
		grep -E '^--- (PASS|FAIL|SKIP)' | sed "s|^--- \([A-Z]*\): \([A-Za-z0-9_]*\).*|\1 $1 \2|" || true
}

# live DIR: the test functions of DIR's *_live_test.go files, as a regexp.
live() { grep -h '^func Test' "$1"/*_live_test.go | sed 's/func \(Test[A-Za-z0-9_]*\).*/\1/' | paste -sd'|' -; }

copy github.com/jsimonetti/rtnetlink/v2@v2.3.0 rtnetlink
copy github.com/mdlayher/netlink@v1.9.0 netlink
host="ip -batch '$here/jsimonetti/testutils/host.ip'"
m=$work/rtnetlink
{
	run rtnetlink "$m" "$host" "$(live "$m")" integration
	run driver "$m/driver" "$host" "$(live "$m/driver")" integration
	run rtnl "$m/rtnl" "$host" "$(live "$m/rtnl")" integration
} | sort -k1,1 -k3,3 | tee "$work/jsimonetti"
echo "jsimonetti/rtnetlink: $(grep -c '^PASS' "$work/jsimonetti") of $(wc -l <"$work/jsimonetti") live tests pass on Linux $(uname -r)"
mdl=$(grep -h '^func Test' "$work/netlink/conn_linux_integration_test.go" | sed 's/func \(Test[A-Za-z0-9_]*\).*/\1/' | paste -sd'|' -)
run netlink "$work/netlink" "ip link set lo up" "$mdl" | sort -k1,1 -k3,3 | tee "$work/mdlayher"
echo "mdlayher/netlink: $(grep -c '^PASS' "$work/mdlayher") of $(wc -l <"$work/mdlayher") integration tests pass on Linux $(uname -r)"
