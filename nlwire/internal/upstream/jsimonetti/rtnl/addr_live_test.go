//go:build linux

// jsimonetti/rtnetlink v2.3.0's rtnl/addr_live_test.go (build tag
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
	"errors"
	. "github.com/jsimonetti/rtnetlink/v2/rtnl"
	"net"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
)

var errNoLoopback = errors.New("no loopback interface")

func loopbackInterface(c *Conn) (*net.Interface, error) {
	links, err := c.Links()
	if err != nil {
		return nil, err
	}
	for _, ifc := range links {
		if ifc.Flags&net.FlagLoopback != 0 {
			return ifc, nil
		}
	}
	return nil, errNoLoopback
}

func interfaceHasAddr(c *Conn, ifc *net.Interface, addr *net.IPNet) (bool, error) {
	addrs, err := c.Addrs(ifc, 0)
	if err != nil {
		return false, err
	}
	for _, a := range addrs {
		if ipnetEqual(a, addr) {
			return true, nil
		}
	}
	return false, nil
}

func ipnetEqual(a, b *net.IPNet) bool {
	na, _ := a.Mask.Size()
	nb, _ := b.Mask.Size()
	return na == nb && a.IP.Equal(b.IP)
}

func TestLiveAddrs(t *testing.T) {
	c, err := dial(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addrs, err := c.Addrs(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(addrs) == 0 {
		t.Skip("no network addresses")
	}
	for i, a := range addrs {
		t.Logf("* entry %d: %#v", i, a)
		if a == nil {
			t.Error("nil address result")
			continue
		}
		if a.IP.IsUnspecified() {
			t.Error("address unspecified")
		}
		if a.Mask == nil {
			t.Error("mask unspecified")
		} else {
			ones, bits := a.Mask.Size()
			if bits != 8*net.IPv4len && bits != 8*net.IPv6len {
				t.Error("bad mask length")
			}
			if ones == 0 || ones > bits {
				t.Error("bad prefix length")
			}
		}
	}
}

func TestLiveAddrAddDel(t *testing.T) {
	c, err := dial(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lo, err := loopbackInterface(c)
	if err != nil {
		t.Skip(err)
	}
	if lo == nil {
		t.Fatal("no error but nil result")
	}

	testip := MustParseAddr("127.0.0.99/32")

	c.AddrDel(lo, testip) // ok if fails

	if err := c.AddrAdd(lo, testip); err != nil {
		// requires specific privilege - skip the test if can't do
		if v, ok := err.(*netlink.OpError); ok && v.Err == syscall.EPERM {
			t.Skip("AddrAdd: ", err)
		}
		t.Fatal("AddrAdd:", err)
	}
	// if the above suceeded, everything below should do, too
	ok, err := interfaceHasAddr(c, lo, testip)
	if err != nil {
		t.Error(err)
	} else if !ok {
		t.Error("address reported as added but can't confirm")
	}
	if err := c.AddrDel(lo, testip); err != nil {
		t.Error("AddrDel: ", err)
	}
}
