//go:build linux

// jsimonetti/rtnetlink v2.3.0's rtnl/links_live_test.go (build tag
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
	"bytes"
	"net"
	"strconv"
	"testing"
)

const (
	hardwareAddrLen = 6
)

var hardwareAddrZero = net.HardwareAddr{0, 0, 0, 0, 0, 0}

func hardwareAddrEqual(a, b net.HardwareAddr) bool {
	return bytes.Equal(a, b)
}

func hardwareAddrIsUnspecified(hw net.HardwareAddr) bool {
	return len(hw) != hardwareAddrLen || hardwareAddrEqual(hw, hardwareAddrZero)
}

// TestLinks tests the Live function returns sane results
func TestLiveLinks(t *testing.T) {
	c, err := dial(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	links, err := c.Links()
	if err != nil {
		t.Fatal(err)
	}
	if len(links) == 0 {
		t.Skip("no network interfaces")
	}
	ieth := 0
	ilo := 0
	for i, ifc := range links {
		t.Logf("* entry %d: %#v", i, ifc)
		if ifc.Index == 0 {
			t.Error("zero ifc.Index")
		}
		if ifc.MTU == 0 {
			t.Error("zero ifc.MTU")
		}
		if len(ifc.Name) == 0 {
			t.Error("zero-length ifc.Name")
		}
		if !hardwareAddrIsUnspecified(ifc.HardwareAddr) {
			ieth = ifc.Index
		}
		if ifc.Flags&net.FlagLoopback != 0 {
			ilo = ifc.Index
		}
	}
	if ieth == 0 {
		t.Skip("no interfaces with non-zero link-level address")
	}
	if ilo == 0 {
		t.Skip("no loopback interfaces")
	}

	t.Run("LinkByIndex", func(t *testing.T) {
		for i, ifindex := range []int{ilo, ieth} {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				ifc, err := c.LinkByIndex(ifindex)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("* %#v", ifc)
				if ifc.Index == 0 {
					t.Error("zero ifc.Index")
				}
				if ifc.Index != ifindex {
					t.Errorf("returned wronk interface (%d != %d)", ifc.Index, ifindex)
				}
				if ifc.MTU == 0 {
					t.Error("zero ifc.MTU")
				}
				if len(ifc.Name) == 0 {
					t.Error("zero-length ifc.Name")
				}
				if ifindex == ieth && hardwareAddrIsUnspecified(ifc.HardwareAddr) {
					t.Error("zero ifc.HardwareAddr, expected non-zero")
				}
				if ifindex == ilo && ifc.Flags&net.FlagLoopback == 0 {
					t.Error("no FlagLoopback in ifc.Flags, expected to be set")
				}
			})
		}
	})
}
