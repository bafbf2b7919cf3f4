//go:build linux

// jsimonetti/rtnetlink v2.3.0's link_live_test.go (build tag
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
// Left out are the tests that attach XDP programs (TestLinkXDPAttach,
// TestLinkXDPClear, TestLinkXDPReplace, with their helpers xdpPrograms,
// attachXDP, getXDP and the variable lo): they load BPF programs with
// cilium/ebpf, and netsim runs none (IFLA_XDP is refused by name:
// nlwire's TestXDPRefusedByName); and with them TestLinkListByKind's
// rlimit.RemoveMemlock call, which raises the process's locked-memory
// limit for those programs.
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
	"github.com/netsimlab/netsim/nlwire/internal/upstream/jsimonetti/testutils"
)

func TestLinkListByKind(t *testing.T) {
	conn, err := dial(&netlink.Config{NetNS: testutils.NetNS(t)})
	if err != nil {
		t.Fatalf("failed to establish netlink socket: %v", err)
	}
	defer conn.Close()

	links, err := conn.Link.ListByKind("SomeImpossibleLinkKind")
	if err != nil {
		t.Fatalf("LinkListByKind() finished with error: %v", err)
	}

	if len(links) > 0 {
		t.Fatalf("LinkListByKind() found %d links with impossible kind", len(links))
	}
}

func TestLinkSetMaster(t *testing.T) {
	ns := testutils.NetNS(t)
	conn, err := dial(&netlink.Config{NetNS: ns})
	if err != nil {
		t.Fatalf("failed to dial: %v", err)
	}
	defer conn.Close()

	const (
		bridgeIndex = 2001
		vethIndex   = 2002
	)

	// Create a bridge
	err = conn.Link.New(&LinkMessage{
		Index: bridgeIndex,
		Attributes: &LinkAttributes{
			Name: "testbr0",
			Info: &LinkInfo{
				Kind: "bridge",
			},
		},
	})
	if err != nil {
		t.Fatalf("failed to create bridge: %v", err)
	}
	defer conn.Link.Delete(bridgeIndex)

	// Create a dummy interface
	err = conn.Link.New(&LinkMessage{
		Index: vethIndex,
		Attributes: &LinkAttributes{
			Name: "testdum0",
			Info: &LinkInfo{
				Kind: "dummy",
			},
		},
	})
	if err != nil {
		t.Fatalf("failed to create dummy interface: %v", err)
	}
	defer conn.Link.Delete(vethIndex)

	// Enslave the dummy to the bridge
	err = conn.Link.SetMaster(vethIndex, bridgeIndex, nil)
	if err != nil {
		t.Fatalf("failed to set master: %v", err)
	}

	// Verify it's enslaved
	got, err := conn.Link.Get(vethIndex)
	if err != nil {
		t.Fatalf("failed to get link: %v", err)
	}

	if got.Attributes.Master == nil {
		t.Fatal("expected Master to be set, got nil")
	}
	if *got.Attributes.Master != bridgeIndex {
		t.Fatalf("unexpected master index:\n got: %d\nwant: %d", *got.Attributes.Master, bridgeIndex)
	}
}

func TestLinkRemoveMaster(t *testing.T) {
	ns := testutils.NetNS(t)
	conn, err := dial(&netlink.Config{NetNS: ns})
	if err != nil {
		t.Fatalf("failed to dial: %v", err)
	}
	defer conn.Close()

	const (
		bridgeIndex = 2101
		dummyIndex  = 2102
	)

	// Create a bridge
	err = conn.Link.New(&LinkMessage{
		Index: bridgeIndex,
		Attributes: &LinkAttributes{
			Name: "testbr1",
			Info: &LinkInfo{
				Kind: "bridge",
			},
		},
	})
	if err != nil {
		t.Fatalf("failed to create bridge: %v", err)
	}
	defer conn.Link.Delete(bridgeIndex)

	// Create a dummy interface
	err = conn.Link.New(&LinkMessage{
		Index: dummyIndex,
		Attributes: &LinkAttributes{
			Name: "testdum1",
			Info: &LinkInfo{
				Kind: "dummy",
			},
		},
	})
	if err != nil {
		t.Fatalf("failed to create dummy interface: %v", err)
	}
	defer conn.Link.Delete(dummyIndex)

	// Enslave it to the bridge
	err = conn.Link.SetMaster(dummyIndex, bridgeIndex, nil)
	if err != nil {
		t.Fatalf("failed to set master: %v", err)
	}

	// Verify it's enslaved
	got, err := conn.Link.Get(dummyIndex)
	if err != nil {
		t.Fatalf("failed to get link: %v", err)
	}
	if got.Attributes.Master == nil || *got.Attributes.Master != bridgeIndex {
		t.Fatal("interface was not enslaved")
	}

	// Remove from master
	err = conn.Link.RemoveMaster(dummyIndex)
	if err != nil {
		t.Fatalf("failed to remove master: %v", err)
	}

	// Verify it's un-enslaved
	got, err = conn.Link.Get(dummyIndex)
	if err != nil {
		t.Fatalf("failed to get link: %v", err)
	}

	// Master should be nil or 0
	if got.Attributes.Master != nil && *got.Attributes.Master != 0 {
		t.Fatalf("expected Master to be 0 or nil, got %d", *got.Attributes.Master)
	}
}
