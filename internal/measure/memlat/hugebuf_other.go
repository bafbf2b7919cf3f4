//go:build !linux

// The chase buffer elsewhere: an ordinary Go slice (no huge pages).

package main

func hugeBuffer(n int64) ([]byte, int64, error) { return make([]byte, n), 0, nil }
