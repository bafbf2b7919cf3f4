# Seed 002's script (examples/seed002.ip) as a template: NIFS dummy interfaces, each up with an
# IPv6 address, then deleted one by one (the seed's NIFS is 100, which prints examples/seed002.ip).
#   go run ./cmd/netsim sweep -script examples/templates/seed002.sh -var NIFS=25,50,100,200
ns=dummy-ns
# phase: create
printf '%s\n' "netns add $ns" "netns exec $ns ip link set lo up" "netns exec $ns sysctl net.ipv6.conf.default.disable_ipv6=0" "netns exec $ns sysctl net.ipv6.conf.default.forwarding=1"
for ((i=0; i<$NIFS; i++)); do printf '%s\n' "netns exec $ns ip link add eth$i type dummy" "netns exec $ns ip link set eth$i up" "netns exec $ns ip -6 addr add 2021:$i::1/120 dev eth$i"; done
# phase: delete
for ((i=0; i<$NIFS; i++)); do echo "netns exec $ns ip link del eth$i"; done
echo "netns del $ns"
