//go:build !race

package kerneldiff

const raceEnabled = false
