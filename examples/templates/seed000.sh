# Seed 000's script (examples/seed000.ip) as a template: N nexthops and N /32 routes, each route
# on its own nexthop (1 ≤ N ≤ 65536; the seed's N is 65536, which prints examples/seed000.ip).
#   go run ./cmd/netsim sweep -script examples/templates/seed000.sh -var N=1024,2048,4096,8192
# phase: setup
printf '%s\n' 'link add eth2 type veth peer name eth2p' 'link set eth2p up' 'link set up dev eth2' 'link add testnh0 link eth2 type macvlan mode bridge' 'addr add 198.51.100.1/24 dev testnh0' 'link set testnh0 up'
seq 1 "$N" | sed 's/.*/nexthop add id & via 198.51.100.2 dev testnh0/'
for ((i = 1; i <= $N; i++)); do echo "route add 10.$(((i - 1) / 256)).$(((i - 1) % 256)).0/32 nhid $i"; done
# phase: link down
echo 'link set testnh0 down'
# phase: link del
echo 'link del testnh0'
