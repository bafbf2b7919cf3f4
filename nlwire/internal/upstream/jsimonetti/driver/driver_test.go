//go:build linux

// jsimonetti/rtnetlink v2.3.0's driver/driver_test.go (build tag
// integration), unchanged: the helpers of the driver package's live tests.
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

package driver

import (
	"github.com/jsimonetti/rtnetlink/v2"
	"golang.org/x/sys/unix"
)

// setupInterface create a interface for testing
func setupInterface(conn *rtnetlink.Conn, name string, index, master uint32, driver rtnetlink.LinkDriver) error {
	attrs := &rtnetlink.LinkAttributes{
		Name: name,
		Info: &rtnetlink.LinkInfo{Kind: driver.Kind(), Data: driver},
	}
	flag := uint32(unix.IFF_UP)
	if master > 0 {
		// Check if this is a VLAN, VXLAN, or MACVLAN interface
		// These types need the parent interface specified via Type/IFLA_LINK
		kind := driver.Kind()
		if kind == "vlan" || kind == "vxlan" || kind == "macvlan" {
			// For VLAN/VXLAN/MACVLAN, the master parameter is actually the parent link index
			attrs.Type = master
		} else {
			// For other types (like dummy being added to bridge), master is for enslaving
			attrs.Master = &master
		}
		flag = 0
	}
	// construct an interface to test drivers
	err := conn.Link.New(&rtnetlink.LinkMessage{
		Family:     unix.AF_UNSPEC,
		Index:      index,
		Flags:      flag,
		Change:     flag,
		Attributes: attrs,
	})
	if err != nil {
		conn.Link.Delete(index)
	}
	return err
}

func getInterface(conn *rtnetlink.Conn, index uint32) (*rtnetlink.LinkMessage, error) {
	interf, err := conn.Link.Get(index)
	if err != nil {
		conn.Link.Delete(interf.Index)
		return nil, err
	}
	return &interf, err
}
