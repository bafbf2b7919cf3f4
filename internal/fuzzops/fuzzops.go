// Package fuzzops turns a fuzz input into a sequence of small choices, for
// fuzz targets that decode their input into an operation sequence.
//
// Every choice reads whole bytes from the front of the input, so a mutation
// of one byte changes one choice (and what follows only where the byte
// counts change), which keeps the fuzzer's mutations meaningful. An
// exhausted input yields zeros: every choice stays defined, and callers end
// their sequence when Exhausted reports true.
package fuzzops

// Bytes reads choices from a fuzz input. The zero Bytes is an exhausted input.
type Bytes struct {
	b []byte
}

// New returns a reader of b's choices.
func New(b []byte) *Bytes { return &Bytes{b: b} }

// Exhausted reports whether every byte has been read.
func (s *Bytes) Exhausted() bool { return len(s.b) == 0 }

// Byte returns the next byte, or 0 when the input is exhausted.
func (s *Bytes) Byte() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

// IntN returns a number in [0, n): one byte for n up to 256, two up to
// 65536, four beyond. It returns 0 for n ≤ 0, as a choice among nothing.
func (s *Bytes) IntN(n int) int {
	switch {
	case n <= 1:
		return 0
	case n <= 1<<8:
		return int(s.Byte()) % n
	case n <= 1<<16:
		return int(uint16(s.Byte())<<8|uint16(s.Byte())) % n
	}
	return int(s.Uint32() % uint32(min(n, 1<<31)))
}

// Uint32 returns the next four bytes, big-endian.
func (s *Bytes) Uint32() uint32 {
	return uint32(s.Byte())<<24 | uint32(s.Byte())<<16 | uint32(s.Byte())<<8 | uint32(s.Byte())
}

// Bool returns the low bit of the next byte.
func (s *Bytes) Bool() bool { return s.Byte()&1 != 0 }
