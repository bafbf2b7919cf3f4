//go:build linux

// jsimonetti/rtnetlink v2.3.0's rtnl/route_live_test.go (build tag
// integration), run on netsim.
//
// Substituted: upstream's Dial (rtnetlink.Dial, rtnl.Dial) is dial, a
// connection to the simulated machine's initial namespace or, with
// Config.NetNS, to the namespace of a descriptor (nlwire.DialRTNetlinkConfig);
// testutils is netsim's (testutils.NetNS makes a simulated namespace where
// upstream's unshares one); internal/unix is golang.org/x/sys/unix, whose
// constants it copies. Everything else is upstream's, unchanged; the
// package's own names are dot-imported.
//
// Upstream's code is under the MIT License:
//
// Copyright (C) 2016 Jeroen Simonetti
//
// Permission is hereby granted, free of charge, to any person obtaining a
// copy of this software and associated documentation files (the
// "Software"), to deal in the Software without restriction, including
// without limitation the rights to use, copy, modify, merge, publish,
// distribute, sublicense, and/or sell copies of the Software, and to
// permit persons to whom the Software is furnished to do so, subject to
// the following conditions:
//
// The above copyright notice and this permission notice shall be included
// in all copies or substantial portions of the Software.
//
// THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS
// OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
// MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.
// IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY
// CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT,
// TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE
// SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.

package rtnl

import (
	"net"
	"testing"
)

func TestLiveRoute(t *testing.T) {
	c, err := dial(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	route, err := c.RouteGet(net.ParseIP("8.8.8.8"))
	if err != nil {
		t.Fatal(err)
	}

	t.Logf("got route: %v", route)
	if route.Gateway.IsUnspecified() {
		t.Error("zero route.Gateway, expected non-zero")
	}
	if route.Gateway.IsLoopback() {
		t.Error("lo route.Gatway, expected non lo")
	}
	if route.Interface == nil {
		t.Error("nil route.Interface, expected non-nil")
	}
	if len(route.Interface.Name) == 0 {
		t.Error("zero-length route.Interface.Name")
	}
	if hardwareAddrIsUnspecified(route.Interface.HardwareAddr) {
		t.Error("zero route.Interface.HardwareAddr, expected non-zero")
	}
}
