//go:build !unix

package netsim_test

// minorFaults returns 0 where getrusage is not available.
func minorFaults() int64 { return 0 }
