package iproute_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/scenario"
)

// seed000Setup returns examples/seed000.ip up to its timed command, `link
// set testnh0 down`: 6 lines of devices and addresses, 65536 nexthops and
// 65536 routes.
func seed000Setup(tb testing.TB) []byte {
	data, err := os.ReadFile("../examples/seed000.ip")
	require.NoError(tb, err)
	i := bytes.Index(data, []byte("\nlink set testnh0 down\n"))
	require.Positive(tb, i, "examples/seed000.ip has no `link set testnh0 down`")
	return data[:i+1]
}

// seed000Go builds the same state with Handle calls, the way
// scenario.Seed000 sets the experiment up.
func seed000Go(tb testing.TB, h *rtnl.Handle) {
	for _, step := range scenario.Seed000Devices(h) {
		require.NoError(tb, step())
	}
	for i := 1; i <= 65536; i++ {
		require.NoError(tb, h.NexthopAdd(scenario.Seed000Nexthop(i)))
	}
	for i := 1; i <= 65536; i++ {
		require.NoError(tb, h.RouteAdd(scenario.Seed000Route(i)))
	}
}

// dump is the state `ip route show table all` and `ip nexthop show` see.
func dump(t *testing.T, h *rtnl.Handle) (routes []rtnl.RouteInfo, nexthops []rtnl.NexthopInfo) {
	routes, err := h.RouteList(rt.FamilyInet, 0)
	require.NoError(t, err)
	nexthops, err = h.NexthopList()
	require.NoError(t, err)
	return routes, nexthops
}

// TestSeed000Script: `ip -batch examples/seed000.ip` (its setup part)
// gives the state of the Go setup of scenario.Seed000.
func TestSeed000Script(t *testing.T) {
	if testing.Short() {
		t.Skip("131072 requests")
	}
	script := seed000Setup(t)
	k := rtnl.MustNewKernel(rtnl.After)
	ip := iproute.New(k, k.World().NewTask("ip"))
	var stdout, stderr bytes.Buffer
	ip.Stdout, ip.Stderr = &stdout, &stderr
	require.Equal(t, 0, ip.Batch(bytes.NewReader(script), "examples/seed000.ip", false), stderr.String())
	require.Empty(t, stdout.String())
	require.Empty(t, stderr.String())
	gotRoutes, gotNexthops := dump(t, k.InitNet().Handle(ip.Task()))

	k2 := rtnl.MustNewKernel(rtnl.After)
	h2 := k2.InitNet().Handle(k2.World().NewTask("ip"))
	seed000Go(t, h2)
	wantRoutes, wantNexthops := dump(t, h2)

	require.Len(t, gotNexthops, 65536)
	require.Equal(t, len(wantRoutes), len(gotRoutes))
	require.Equal(t, wantRoutes, gotRoutes)
	require.Equal(t, wantNexthops, gotNexthops)
	last := gotRoutes[len(gotRoutes)-1]
	for _, r := range gotRoutes {
		if r.NexthopID == 65536 {
			last = r
		}
	}
	require.Equal(t, "10.255.255.0/32 198.51.100.2 testnh0", fmt.Sprint(last.Dst, " ", last.Gateway, " ", last.Dev))
}

// BenchmarkSeed000Setup parses and runs the 131078 lines of seed 000's
// setup in a fresh kernel per iteration.
func BenchmarkSeed000Setup(b *testing.B) {
	script := seed000Setup(b)
	lines := bytes.Count(script, []byte("\n"))
	for b.Loop() {
		k := rtnl.MustNewKernel(rtnl.After)
		ip := iproute.New(k, k.World().NewTask("ip"))
		ip.Stdout, ip.Stderr = io.Discard, io.Discard
		if st := ip.Batch(bytes.NewReader(script), "seed000.ip", false); st != 0 {
			b.Fatalf("exit %d", st)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkSeed000SetupGo is the same setup made with Handle calls: the
// difference to BenchmarkSeed000Setup is what parsing and ip's own work cost.
func BenchmarkSeed000SetupGo(b *testing.B) {
	for b.Loop() {
		k := rtnl.MustNewKernel(rtnl.After)
		seed000Go(b, k.InitNet().Handle(k.World().NewTask("ip")))
	}
}
