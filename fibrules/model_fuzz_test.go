package fibrules_test

import (
	"testing"

	"github.com/netsimlab/netsim/internal/fuzzops"
)

// FuzzRules decodes its input into a sequence of rule requests — adds of
// every action (gotos to present and missing targets included), deletes,
// nop rules on interfaces, and the creation, renaming and deletion of the
// interfaces they name — and after every step compares the dump and eight
// lookups with the reference model (modelLookup) and runs
// Ops.CheckInvariants. It is TestRandomAgainstModel (runWith) with the
// choices read from the input.
func FuzzRules(f *testing.F) {
	f.Add([]byte("\x02\x10\x03\x01\x02\x03\x04\x05\x06\x07\x03\x02\x01\x00\x10\x20\x30"))
	f.Add([]byte("\x00\x00\x01\x00\x01\x02\x05\x03\x04\x03\x00\x01\x02\x03\x04\x05\x06\x07\x00\x00"))
	f.Fuzz(fuzzRun)
}

// fuzzRun is randomRun (model_test.go) reading its choices from data.
func fuzzRun(t *testing.T, data []byte) {
	rng := fuzzops.New(data)
	runWith(t, 0, rng, 300, rng.Exhausted)
}
