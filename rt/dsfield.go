// DSCP class names of a route's dsfield (tos) byte, as iproute2 reads and
// prints them (rtnl_dsfield_n2a, rtnl_dsfield_a2n: lib/rt_names.c; the
// rt_dsfield file iproute2 ships).

package rt

import (
	"strconv"
	"strings"
)

// dsfieldNames is the rt_dsfield file iproute2 6.1 ships: the DSCP
// classes, named by the dsfield byte (the DSCP shifted left by two).
var dsfieldNames = []struct {
	v    uint8
	name string
}{
	{0x00, "default"},
	{0x28, "AF11"}, {0x30, "AF12"}, {0x38, "AF13"},
	{0x48, "AF21"}, {0x50, "AF22"}, {0x58, "AF23"},
	{0x68, "AF31"}, {0x70, "AF32"}, {0x78, "AF33"},
	{0x88, "AF41"}, {0x90, "AF42"}, {0x98, "AF43"},
	{0x20, "CS1"}, {0x40, "CS2"}, {0x60, "CS3"}, {0x80, "CS4"},
	{0xa0, "CS5"}, {0xc0, "CS6"}, {0xe0, "CS7"},
	{0xb8, "EF"},
}

// DSFieldName is rtnl_dsfield_n2a: the class's name from rt_dsfield, or
// the byte as "0x%02x".
func DSFieldName(v uint8) string {
	for _, d := range dsfieldNames {
		if d.v == v {
			return d.name
		}
	}
	s := strconv.FormatUint(uint64(v), 16)
	if len(s) < 2 {
		s = "0" + s
	}
	return "0x" + s
}

// ParseDSField is rtnl_dsfield_a2n: a class's name (exactly as written in
// rt_dsfield) or a hexadecimal number of at most 0xff, with or without 0x
// (strtoul base 16).
func ParseDSField(s string) (uint8, bool) {
	for _, d := range dsfieldNames {
		if d.name == s {
			return d.v, true
		}
	}
	h := s
	if len(h) > 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X') {
		h = h[2:]
	}
	if h == "" || strings.ContainsAny(h, "+-_") {
		return 0, false
	}
	v, err := strconv.ParseUint(h, 16, 8)
	return uint8(v), err == nil
}
