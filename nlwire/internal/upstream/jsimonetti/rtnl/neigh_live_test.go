//go:build linux

// jsimonetti/rtnetlink v2.3.0's rtnl/neigh_live_test.go (build tag
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

	"golang.org/x/sys/unix"
)

func TestLiveNeighbours(t *testing.T) {
	c, err := dial(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// Trigger a DNS lookup, only for a side effect of pushing our gateway or NS onto the neighbour table
	net.LookupHost("github.com")

	neigtab, err := c.Neighbours(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(neigtab) == 0 {
		t.Skip("no neighbours")
	}
	for i, e := range neigtab {
		t.Logf("* neighbour table entry [%d]: %v", i, e)

		// Ignore neighbor entries in internal/pseudo state.
		if e.State == unix.NUD_NONE {
			continue
		}
		// Loopback and p2p interfaces can have neigh entries with a zero IP address.
		if e.IP.IsUnspecified() {
			continue
		}

		if e.Interface == nil {
			t.Error("nil e.Interface, expected non-nil")
		}
		if len(e.Interface.Name) == 0 {
			t.Error("zero-length e.Interface.Name")
		}

		// Don't (always) expect hardware address info on entries marked noarp,
		// as they include link-local multicast and loopback addresses that are
		// valid for all interfaces on the host.
		if e.State == unix.NUD_NOARP {
			continue
		}

		if hardwareAddrIsUnspecified(e.HwAddr) {
			t.Error("zero e.HwAddr, expected non-zero")
		}
		if hardwareAddrIsUnspecified(e.Interface.HardwareAddr) {
			t.Error("zero e.Interface.HardwareAddr, expected non-zero")
		}
	}
}
