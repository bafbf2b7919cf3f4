#!/bin/sh
# Runs jsimonetti/rtnetlink v2.3.0's live tests (build tag integration) on
# the running kernel, as their authors run them, in a private network
# namespace set up by testutils/host.ip, and prints each live test's
# result: the tally netsim's copies of them are compared with
# (docs/nlwire.md). Needs root, unshare and iproute2; touches nothing
# outside the namespace.
#   sudo sh nlwire/internal/upstream/jsimonetti/linux.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(go env GOMODCACHE)/github.com/jsimonetti/rtnetlink/v2@v2.3.0
[ -d "$src" ] || (cd "$here" && go mod download github.com/jsimonetti/rtnetlink/v2@v2.3.0)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/m" && chmod -R u+w "$work/m"
cd "$work/m"
for p in rtnetlink:. driver:./driver rtnl:./rtnl; do
	GOFLAGS=-mod=mod go test -tags integration -c -o "$work/${p%%:*}.test" "${p#*:}"
done
for p in rtnetlink:. driver:./driver rtnl:./rtnl; do
	name=${p%%:*} p=${p#*:}
	live=$(grep -h '^func Test' "$p"/*_live_test.go | sed 's/func \(Test[A-Za-z0-9_]*\).*/\1/' | paste -sd'|' -)
	(cd "$p" && unshare -n sh -c "ip -batch '$here/testutils/host.ip' && '$work/$name.test' -test.v -test.count=1 -test.run '^($live)\$'" 2>&1) |
		grep -E '^--- (PASS|FAIL|SKIP)' | sed "s|^--- \([A-Z]*\): \([A-Za-z0-9_]*\).*|\1 $name \2|" || true
done | sort -k1,1 -k2,2 -k3,3 | tee "$work/tally"
echo "$(grep -c '^PASS' "$work/tally") of $(wc -l <"$work/tally") live tests pass on Linux $(uname -r)"
