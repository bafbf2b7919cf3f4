//go:build race

package validate_test

// raceEnabled reports whether the tests run with the race detector, which
// makes the largest rows too slow to be worth it.
const raceEnabled = true
