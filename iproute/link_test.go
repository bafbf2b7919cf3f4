package iproute

import (
	"bytes"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

// TestGetInteger: get_integer reads what strtol with base 0 reads, the
// whole word, within an int.
func TestGetInteger(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true},
		{"1500", 1500, true},
		{"-1", -1, true},
		{"+7", 7, true},
		{"0x10", 16, true},
		{"010", 8, true}, // a leading 0 is octal
		{" 5", 5, true},  // strtol skips leading blanks
		{"2147483647", 1<<31 - 1, true},
		{"-2147483648", -1 << 31, true},
		{"2147483648", 0, false},
		{"-2147483649", 0, false},
		{"4294967295", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"12x", 0, false},
		{"1_000", 0, false}, // Go syntax, not C
		{"0b1", 0, false},
		{"--1", 0, false},
	} {
		got, ok := getInteger(c.in)
		require.Equal(t, c.ok, ok, "%q", c.in)
		require.Equal(t, c.want, got, "%q", c.in)
	}
}

// TestBatchLineNUL: getcmdline and makeargs work on C strings, so a batch
// line ends at a NUL byte (as ip 6.1 reads it: "link add va" without its
// type), and a line cut that way is not continued.
func TestBatchLineNUL(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	ip := New(k, k.World().NewTask("ip"))
	var out, errOut bytes.Buffer
	ip.Stdout, ip.Stderr = &out, &errOut
	script := "link add va\x00junk type veth peer name vb\n" +
		"link add vc type veth peer name vd\x00 \\\n" +
		"link show vc\n"
	status := ip.Batch(strings.NewReader(script), "f", true)
	require.Equal(t, 1, status)
	require.Equal(t, "Not enough information: \"type\" argument is required\nCommand failed f:1\n", errOut.String())
	require.Contains(t, out.String(), "vc@vd:", "line 2 ran on its own and line 3 showed its device")
}
