package hwaddr_test

import (
	"strings"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/stretchr/testify/require"
)

func TestParseAddr(t *testing.T) {
	cases := []struct {
		in   string
		want string // canonical form; empty when in must be rejected
	}{
		{"33:33:00:00:00:01", "33:33:00:00:00:01"},
		{"FF:ff:Ff:fF:ff:ff", "ff:ff:ff:ff:ff:ff"},
		{"0:1b:21:a:b:c", "00:1b:21:0a:0b:0c"}, // iproute2 accepts one-digit octets
		{"00:00:00:00:00:00", "00:00:00:00:00:00"},
		{"", ""},
		{"33:33:00:00:00", ""},        // five octets
		{"33:33:00:00:00:01:02", ""},  // seven
		{"33:33:00:00:00:", ""},       // empty last octet
		{"33::00:00:00:01", ""},       // empty octet
		{"333:33:00:00:00:01", ""},    // three digits
		{"33-33-00-00-00-01", ""},     // wrong separator
		{"33:33:00:00:00:0g", ""},     // not hex
		{"+3:33:00:00:00:01", ""},     // sign
		{"33:33:00:00:00:01 ", ""},    // trailing space
		{"3333.0000.0001", ""},        // Cisco dotted form
		{"00:00:5e:00:53:01:ff", ""},  // too long
		{"0x3:33:00:00:00:01", ""},    // prefix
		{"33:33:00:00:00:1\x00", ""},  // NUL
		{strings.Repeat("a", 17), ""}, // right length, no colons
	}
	for _, tc := range cases {
		a, err := hwaddr.ParseAddr(tc.in)
		if tc.want == "" {
			requireErr(t, err, syscall.EINVAL, `invalid hardware address "`+strings.ReplaceAll(tc.in, "\x00", `\x00`)+`": want six colon-separated hex octets`, "%q", tc.in)
			require.Equal(t, hwaddr.Addr{}, a)
			continue
		}
		require.NoError(t, err, "%q", tc.in)
		require.Equal(t, tc.want, a.String(), "%q", tc.in)
	}
	require.Panics(t, func() { hwaddr.MustParseAddr("nope") })
}

func TestAddrMethods(t *testing.T) {
	require.Equal(t, "00:00:00:00:00:00", hwaddr.Addr{}.String())
	require.True(t, allNodes.IsMulticast())
	require.True(t, hwaddr.MustParseAddr("ff:ff:ff:ff:ff:ff").IsMulticast())
	require.False(t, station.IsMulticast())

	// Compare is memcmp order: the first differing octet decides.
	require.Equal(t, -1, allHosts.Compare(station))
	require.Equal(t, 1, allNodes.Compare(allHosts))
	require.Equal(t, 0, allNodes.Compare(hwaddr.MustParseAddr("33:33:00:00:00:01")))
	require.Equal(t, -1, hwaddr.MustParseAddr("00:ff:ff:ff:ff:ff").Compare(hwaddr.MustParseAddr("01:00:00:00:00:00")))
}

func TestTypeString(t *testing.T) {
	for typ, want := range map[hwaddr.Type]string{
		0:                    "any",
		hwaddr.TypeLAN:       "lan",
		hwaddr.TypeSAN:       "san",
		hwaddr.TypeSlave:     "slave",
		hwaddr.TypeUnicast:   "unicast",
		hwaddr.TypeMulticast: "multicast",
		9:                    "type(9)",
	} {
		require.Equal(t, want, typ.String())
	}
	// The kernel's NETDEV_HW_ADDR_T_* values.
	require.Equal(t, []hwaddr.Type{1, 2, 3, 4, 5},
		[]hwaddr.Type{hwaddr.TypeLAN, hwaddr.TypeSAN, hwaddr.TypeSlave, hwaddr.TypeUnicast, hwaddr.TypeMulticast})
}

// FuzzParseAddr checks that whatever parses prints back in canonical form and
// parses again to the same address, and that nothing panics.
func FuzzParseAddr(f *testing.F) {
	for _, s := range []string{"33:33:00:00:00:01", "0:1:2:3:4:5", "", ":::::", "ff:ff:ff:ff:ff:ff:", "1:2:3:4:5:6:7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := hwaddr.ParseAddr(s)
		if err != nil {
			require.ErrorIs(t, err, syscall.EINVAL)
			return
		}
		b, err := hwaddr.ParseAddr(a.String())
		require.NoError(t, err)
		require.Equal(t, a, b)
		require.Len(t, a.String(), 17)
	})
}
