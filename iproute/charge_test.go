package iproute_test

import (
	"io"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// TestChargeProcess: with ChargeProcess, Main charges an ip process's
// exec, each -n and each batch line; Run and Batch, and Main without it,
// charge none of them.
func TestChargeProcess(t *testing.T) {
	type want struct{ execs, netns, lines int64 }
	for _, c := range []struct {
		name   string
		charge bool
		run    func(ip *iproute.IP)
		want   want
	}{
		{"command", true, func(ip *iproute.IP) { ip.Main([]string{"link", "add", "d0", "type", "ifb"}) }, want{1, 0, 0}},
		{"batch", true, func(ip *iproute.IP) {
			ip.Stdin = strings.NewReader("link add d0 type ifb\n# a comment\n\nlink set d0 up\nlink del nothere\n")
			ip.Main([]string{"-force", "-batch", "-"})
		}, want{1, 0, 3}},
		{"-n", true, func(ip *iproute.IP) { ip.Main([]string{"-n", "ns1", "link", "add", "d0", "type", "ifb"}) }, want{1, 1, 0}},
		{"-n missing", true, func(ip *iproute.IP) { ip.Main([]string{"-n", "nope", "link", "show"}) }, want{1, 0, 0}},
		// The child ip of netns exec is a process of its own, in NS.
		{"netns exec", true, func(ip *iproute.IP) {
			ip.Stdin = strings.NewReader("netns exec ns1 ip link add d0 type ifb\nlink add d1 type ifb\n")
			ip.Main([]string{"-batch", "-"})
		}, want{2, 1, 2}},
		{"without", false, func(ip *iproute.IP) {
			ip.Stdin = strings.NewReader("link add d0 type ifb\n")
			ip.Main([]string{"-n", "ns1", "-batch", "-"})
		}, want{}},
		{"Run", true, func(ip *iproute.IP) { _ = ip.Run("link", "add", "d0", "type", "ifb") }, want{}},
		{"Batch", true, func(ip *iproute.IP) { ip.Batch(strings.NewReader("link add d0 type ifb\n"), "-", false) }, want{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := rtnl.MustNewKernel(rtnl.After)
			if _, err := k.NewNet(k.World().NewTask("setup"), "ns1"); err != nil {
				t.Fatal(err)
			}
			task := k.World().NewTask("ip")
			ip := iproute.New(k, task)
			ip.Stdout, ip.Stderr = io.Discard, io.Discard
			ip.ChargeProcess = c.charge
			c.run(ip)
			cn := task.Counters()
			if got := (want{cn.Get(sim.IPExec), cn.Get(sim.NetnsExec), cn.Get(sim.IPBatchLine)}); got != c.want {
				t.Errorf("ip_execs, netns_execs, ip_batch_lines = %v, want %v", got, c.want)
			}
		})
	}
}
