//go:build linux

// jsimonetti/rtnetlink v2.3.0's route_live_test.go (build tag
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

package rtnetlink

import (
	. "github.com/jsimonetti/rtnetlink/v2"
	"testing"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

func TestListMatch(t *testing.T) {
	c, err := dial(&netlink.Config{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	routes, err := c.Route.ListMatch(&RouteMessage{
		Family: unix.AF_INET,
		Attributes: RouteAttributes{
			Table: unix.RT_TABLE_MAIN,
		},
	})
	if err != nil {
		t.Fatal(err)
	}

	if len(routes) <= 1 {
		t.Fatal("expected multiple routes to be returned")
	}

	for _, rx := range routes {
		if rx.Attributes.Table != unix.RT_TABLE_MAIN {
			t.Fatalf("unepxected route from table %d", rx.Attributes.Table)
		}
	}
}
