# Seed 004's script (examples/seed004.ip) as a template: N dummy devices, up, deleted one request
# at a time (the seed's N is 10000, which prints examples/seed004.ip).
#   go run ./cmd/netsim sweep -script examples/templates/seed004.sh -var N=1000,2000,4000,8000
# phase: setup
for i in $(seq 1 $N); do printf '%s\n' "link add dummy$i type dummy" "link set dummy$i up"; done
# phase: one-by-one
for i in $(seq 1 $N); do echo "link del dummy$i"; done
