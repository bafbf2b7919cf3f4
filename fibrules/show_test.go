package fibrules

import (
	"net/netip"
	"strings"
	"testing"
)

// TestStringHostPrefix: ip rule show prints a host selector without its
// length (print_rule in iproute2's ip/iprule.c), as the kernel's
// differential harness found.
func TestStringHostPrefix(t *testing.T) {
	for _, c := range []struct{ src, dst, want string }{
		{"10.1.2.3/32", "", "100:\tfrom 10.1.2.3 "},
		{"10.1.2.0/24", "10.9.9.9/32", "100:\tfrom 10.1.2.0/24 to 10.9.9.9 "},
		{"2001:db8::1/128", "2001:db8::/64", "100:\tfrom 2001:db8::1 to 2001:db8::/64 "},
	} {
		r := Rule{Pref: 100}
		r.Src = netip.MustParsePrefix(c.src)
		if c.dst != "" {
			r.Dst = netip.MustParsePrefix(c.dst)
		}
		if got := r.String(); !strings.HasPrefix(got, c.want) {
			t.Errorf("from %s to %s: got %q, want prefix %q", c.src, c.dst, got, c.want)
		}
	}
}

// TestStringFwmarkZero: ip prints a zero fwmark as C's "%#x" does, "0".
func TestStringFwmarkZero(t *testing.T) {
	r := Rule{Pref: 7, FwMark: 0, FwMask: 0xff}
	if got := r.String(); !strings.HasPrefix(got, "7:\tfrom all fwmark 0/0xff ") {
		t.Errorf("got %q", got)
	}
	r = Rule{Pref: 7, FwMark: 0x10, FwMask: ^uint32(0)}
	if got := r.String(); !strings.HasPrefix(got, "7:\tfrom all fwmark 0x10 ") {
		t.Errorf("got %q", got)
	}
}
