//go:build race

package scenario_test

// raceEnabled reports whether the tests run with the race detector, which
// makes full-scale runs of the seeds too slow to be worth it.
const raceEnabled = true
