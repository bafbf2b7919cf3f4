package iproute_test

import (
	"strings"
	"testing"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
)

// Input routes of forwarded packets need net.ipv4 forwarding sysctls, which
// an ip script cannot set; the answers here are the real kernel's (6.18,
// the same commands with the sysctls written under /proc/sys).
func TestRouteGetForwarding(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	task := k.World().NewTask("ip")
	ip := iproute.New(k, task)
	h := k.InitNet().Handle(task)
	script := `link set lo up
link add va type veth peer name vb
link set va up
link set vb up
addr add 10.0.0.1/24 dev va
addr add 10.9.0.1/24 dev vb
route add 10.8.0.0/16 via 10.0.0.8
`
	if st := ip.Batch(strings.NewReader(script), "-", false); st != 0 {
		t.Fatalf("setup: exit %d", st)
	}
	sysctl := func(key, v string) {
		t.Helper()
		if err := h.Sysctl(key, v); err != nil {
			t.Fatal(err)
		}
	}
	check := func(cmd, want string) {
		t.Helper()
		out, errOut, _ := ip.Output(append([]string{"route", "get"}, strings.Fields(cmd)...)...)
		if got := out + errOut; got != want {
			t.Errorf("ip route get %s:\n got %q\nwant %q", cmd, got, want)
		}
	}
	sysctl("net.ipv4.ip_forward", "1")
	// Forwarded back out of the device it came in by, from a source on
	// that link: the kernel would send a redirect.
	check("10.8.0.1 from 10.0.0.2 iif va", "10.8.0.1 from 10.0.0.2 via 10.0.0.8 dev va \n    cache <redirect> iif va \n")
	check("10.8.0.1 from 10.9.0.2 iif vb", "10.8.0.1 from 10.9.0.2 via 10.0.0.8 dev va \n    cache iif vb \n")
	check("10.7.0.1 from 10.9.0.2 iif vb", "RTNETLINK answers: Network is unreachable\n")
	check("10.9.0.7 from 10.0.0.2 iif va", "10.9.0.7 from 10.0.0.2 dev vb \n    cache iif va \n")
	check("10.8.0.1 from 10.9.0.1 iif vb", "RTNETLINK answers: Invalid argument\n")
	// No route back to the source: no redirect, and no error without
	// reverse-path filtering.
	check("10.8.0.1 from 10.5.0.1 iif va", "10.8.0.1 from 10.5.0.1 via 10.0.0.8 dev va \n    cache iif va \n")
	// Forwarding is per device: all sets every device, a device only itself.
	sysctl("net.ipv4.conf.va.forwarding", "0")
	check("10.8.0.1 from 10.0.0.2 iif va", "RTNETLINK answers: No route to host\n")
	check("10.8.0.1 from 10.9.0.2 iif vb", "10.8.0.1 from 10.9.0.2 via 10.0.0.8 dev va \n    cache iif vb \n")
	// default only reaches devices created after it.
	sysctl("net.ipv4.ip_forward", "0")
	sysctl("net.ipv4.conf.default.forwarding", "1")
	if st := ip.Batch(strings.NewReader("link add vc type veth peer name vd\nlink set vc up\nlink set vd up\n"), "-", false); st != 0 {
		t.Fatalf("vc: exit %d", st)
	}
	check("10.8.0.1 from 10.9.0.2 iif vb", "RTNETLINK answers: No route to host\n")
	check("10.8.0.1 from 10.9.0.2 iif vc", "10.8.0.1 from 10.9.0.2 via 10.0.0.8 dev va \n    cache iif vc \n")
}
