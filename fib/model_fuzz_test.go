package fib

import (
	"math/rand/v2"
	"testing"

	"github.com/netsimlab/netsim/internal/fuzzops"
)

// FuzzTrie decodes its input into a sequence of route operations — adds in
// every mode, deletes, nexthop removals, the unmerge of local and main,
// lookups — on a FIB and on the reference model (model_test.go), comparing
// errors, every table's dump, lookups and the number of fib_infos after
// every step, and running the trie and FIB invariant checks (check, which
// includes CheckInvariants). It is TestModel with the choices read from the
// input.
func FuzzTrie(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13"))
	f.Add([]byte("\x05\x20\x05\x01\x00\x03\x01\x05\x21\x06\x02\x00\x04\x02\x0c\x10\x01\x11\x13\x00\x01\x02"))
	f.Fuzz(fuzzModel)
}

// fuzzModel is runModel reading its choices from data, on runModel's pool
// of prefixes for seed 1, so that the input is spent on operations.
func fuzzModel(t *testing.T, data []byte) {
	rnd := fuzzops.New(data)
	runModelWith(t, 0, rand.New(rand.NewPCG(1, 99)), rnd, 300, rnd.Exhausted, false)
}
