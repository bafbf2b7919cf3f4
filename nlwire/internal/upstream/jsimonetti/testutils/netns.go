// Package testutils stands in for jsimonetti/rtnetlink v2.3.0's
// internal/testutils when upstream's live tests (the `integration` build
// tag's link, route, driver and rtnl tests) run on netsim: the machine
// they run on is a simulated kernel, and NetNS makes a simulated
// namespace where upstream's unshares a real one.
//
// Kernel: copy_net_ns (unshare(CLONE_NEWNET)) and the nsfs descriptor of
// /proc/PID/task/TID/ns/net (net/core/net_namespace.c, fs/nsfs.c).
package testutils

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mdlayher/netlink"

	"github.com/jsimonetti/rtnetlink/v2"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/rtnl"
)

// hostScript sets up the initial namespace as the machine upstream's
// tests expect: see host.ip.
//
//go:embed host.ip
var hostScript []byte

// Kernel is the simulated machine of a test binary, shared by its tests
// as a real machine's kernel is: its initial namespace is set up by
// host.ip.
var Kernel = sync.OnceValue(func() *rtnl.Kernel {
	k := rtnl.MustNewKernel(rtnl.After)
	ip := iproute.New(k, k.World().NewTask("ip"))
	var out bytes.Buffer
	ip.Stdout, ip.Stderr = &out, &out
	if st := ip.Batch(bytes.NewReader(hostScript), "host.ip", false); st != 0 {
		panic(fmt.Sprintf("host.ip: exit status %d: %s", st, out.String()))
	}
	return k
})

// Dial stands in for rtnetlink.Dial: an rtnetlink connection in Kernel's
// initial namespace, or in the namespace of config.NetNS, a descriptor
// NetNS returned (nlwire.DialRTNetlinkConfig).
func Dial(config *netlink.Config) (*rtnetlink.Conn, error) {
	return nlwire.DialRTNetlinkConfig(Kernel().InitNet(), config)
}

// unshared numbers the namespaces NetNS makes.
var unshared atomic.Int64

// NetNS returns a descriptor of a new simulated network namespace of
// Kernel, as upstream's returns one of a namespace a thread unshared: it
// has no name (it is created under one, which is removed at once, so
// that the descriptor alone holds it), and closing the descriptor at the
// test's cleanup dismantles it unless something else still holds it.
func NetNS(tb testing.TB) int {
	tb.Helper()

	k := Kernel()
	t := k.World().NewTask("unshare")
	name := fmt.Sprintf("unshared-%d", unshared.Add(1))
	n, err := k.NewNet(t, name)
	if err != nil {
		tb.Fatal(err)
	}
	fd, err := k.OpenNetnsFD(n)
	if err != nil {
		tb.Fatal(err)
	}
	if err := k.DelNet(t, name); err != nil {
		tb.Fatal(err)
	}

	tb.Cleanup(func() {
		if err := k.CloseNetnsFD(t, fd); err != nil {
			tb.Error(err)
		}
	})

	return int(fd)
}
