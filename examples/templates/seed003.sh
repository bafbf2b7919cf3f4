# Seed 003's rules file (examples/seed003.ip) as a template: N `rule add` in one namespace (the
# seed's N is 1024, which prints examples/seed003.ip; the seed runs 4096 of them at once, which
# `netsim sweep 003` sweeps).
#   go run ./cmd/netsim sweep -script examples/templates/seed003.sh -var N=256,512,1024,2048
printf 'rule add from all table %d\n' $(seq 1 $N)
