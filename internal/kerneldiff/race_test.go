//go:build race

package kerneldiff

// raceEnabled reports whether the tests run with the race detector, which
// makes netsim's runs several times slower.
const raceEnabled = true
