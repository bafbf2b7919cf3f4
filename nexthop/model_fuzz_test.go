package nexthop_test

import (
	"testing"

	"github.com/netsimlab/netsim/internal/fuzzops"
)

// FuzzNexthops decodes its input into a sequence of nexthop requests —
// adds and replaces of single nexthops and groups (good and bad), deletes,
// FIB users attached, device flushes, flush-all — and applies each to the
// reference model and to a table under each flush policy, comparing errors,
// the refused requests' lack of effect, flushes, dumps, group parents, FIB
// users and the dense index after every step, and running
// Table.CheckInvariants. It is TestRandomAgainstModel with the choices
// read from the input.
func FuzzNexthops(f *testing.F) {
	f.Add([]byte("\x00\x05\x01\x0a\x02\x1e\x03\x04\x28\x05\x06\x37\x07\x08\x50\x09\x0a\x5a"))
	f.Add([]byte("\x10\x03\x05\x30\x01\x02\x03\x02\x40\x00\x50\x01\x5c\x02\x62"))
	f.Fuzz(fuzzModel)
}

// fuzzModel is runModel (model_test.go) reading its choices from data.
func fuzzModel(t *testing.T, data []byte) {
	rng := fuzzops.New(data)
	runModelWith(t, 0, rng, 300, rng.Exhausted)
}
