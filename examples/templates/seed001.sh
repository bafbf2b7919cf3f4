# Seed 001's script (examples/seed001.ip) as a template: N VLANs on a bond, created, brought up,
# given an IPv6 address each and attached to a VRF (the seed's VLAN_COUNT is 1500, which prints
# examples/seed001.ip).
#   go run ./cmd/netsim sweep -script examples/templates/seed001.sh -var N=100,200,400,800
# phase: setup
printf '%s\n' "netns add test" "netns exec test sysctl -q net.ipv6.conf.all.keep_addr_on_down=1" "netns exec test ip link add foo type veth peer name bar" "netns exec test ip link add b1 type bond" "netns exec test ip link add florp type vrf table 10" "netns exec test ip link set bar master b1" "netns exec test ip link set foo up" "netns exec test ip link set bar up" "netns exec test ip link set b1 up" "netns exec test ip link set florp up"
# phase: create vlans
for i in $(seq 1 $N); do echo "netns exec test ip link add link b1 name foo.$i type vlan id $i"; done
# phase: bring up
for i in $(seq 1 $N); do echo "netns exec test ip link set foo.$i up"; done
# phase: assign addresses
for i in $(seq 1 $N); do echo "netns exec test ip address add dev foo.$i 2000::$i/64"; done
# phase: attach to vrf
for i in $(seq 1 $N); do echo "netns exec test ip link set foo.$i master florp"; done
