# Seed 004's group deletion (examples/seed004-group.ip) as a template: N dummy devices, up, deleted
# in one request by group (the seed's N is 10000, which prints examples/seed004-group.ip).
#   go run ./cmd/netsim sweep -script examples/templates/seed004-group.sh -var N=1000,2000,4000,8000
# phase: setup
for i in $(seq 1 $N); do printf '%s\n' "link add dummy$i group 1 type dummy" "link set dummy$i up"; done
# phase: group
echo "link del group 1"
