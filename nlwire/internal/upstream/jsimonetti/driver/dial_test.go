//go:build linux

// What upstream's live tests of package driver take from elsewhere, on
// netsim: dial, which stands in for rtnetlink.Dial (see testutils.Dial),
// and ptr, upstream's helper from driver/bridge_test.go, unchanged.
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
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire/internal/upstream/jsimonetti/testutils"
)

// dial stands in for rtnetlink.Dial: a connection to the simulated
// machine, in the namespace of config.NetNS if set.
func dial(config *netlink.Config) (*rtnetlink.Conn, error) {
	return testutils.Dial(config)
}

func ptr[T any](t T) *T {
	return &t
}
