package nlwire_test

import (
	"encoding/binary"
	"testing"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/nlwire/internal/wiretest"
	"github.com/netsimlab/netsim/rtnl"
)

// routeTemplate is the RTM_NEWROUTE of the benchmarks, encoded once: a
// /32 in 10.128.0.0/9 through veth0 (ifindex 3), acknowledged; dstAt is
// where its destination's four bytes are.
var routeTemplate, dstAt = func() ([]byte, int) {
	ae := netlink.NewAttributeEncoder()
	ae.Bytes(uapi.RTA_DST, []byte{10, 128, 0, 0})
	ae.Uint32(uapi.RTA_OIF, ifVeth0)
	attrs, err := ae.Encode()
	if err != nil {
		panic(err)
	}
	hdr := wiretest.RtMsg{Family: uapi.AF_INET, DstLen: 32, Table: uapi.RT_TABLE_MAIN, Protocol: uapi.RTPROT_STATIC,
		Scope: uapi.RT_SCOPE_LINK, Type: uapi.RTN_UNICAST}.Bytes()
	return append(hdr, attrs...), len(hdr) + 4
}()

// newRoute encodes the i-th RTM_NEWROUTE of the benchmarks, a distinct
// /32, as a high-rate agent does: a copy of the template with its
// destination written in.
func newRoute(i int) netlink.Message {
	data := append([]byte(nil), routeTemplate...)
	binary.BigEndian.PutUint32(data[dstAt:], 0x0a800000+uint32(i))
	return netlink.Message{
		Header: netlink.Header{Type: uapi.RTM_NEWROUTE, Flags: netlink.Request | netlink.Acknowledge | netlink.Create | netlink.Excl},
		Data:   data,
	}
}

// benchNewRoute sends RTM_NEWROUTE requests through c and waits for each
// ack (Conn.Execute: encode, send, serve, receive, decode).
func benchNewRoute(b *testing.B, c *netlink.Conn) {
	b.Helper()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := c.Execute(newRoute(i)); err != nil {
			b.Fatalf("route %d: %v", i, err)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "routes/s")
}

// pipelineDepth is the number of requests a pipelined benchmark sends in
// one datagram before it reads their acks: well within the default
// receive buffer (212 992 bytes) that the acks' skbs (896 bytes of
// truesize each) fill.
const pipelineDepth = 100

// benchNewRoutePipelined sends RTM_NEWROUTE requests through c
// pipelineDepth at a time, in one datagram (Conn.SendMessages), then
// receives their acks, as an agent that does not wait for each ack does.
// One iteration is one datagram: -benchtime 1000x adds 100 000 routes.
func benchNewRoutePipelined(b *testing.B, c *netlink.Conn) {
	b.Helper()
	b.ReportAllocs()
	msgs := make([]netlink.Message, pipelineDepth)
	i := 0
	for b.Loop() {
		for j := range msgs {
			msgs[j] = newRoute(i)
			i++
		}
		if _, err := c.SendMessages(msgs); err != nil {
			b.Fatalf("routes %d-%d: %v", i-pipelineDepth, i-1, err)
		}
		for n := 0; n < pipelineDepth; {
			ms, err := c.Receive()
			if err != nil {
				b.Fatalf("routes %d-%d: ack %d: %v", i-pipelineDepth, i-1, n, err)
			}
			n += len(ms)
		}
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "routes/s")
}

// BenchmarkNewRoute adds distinct /32 routes through an nlwire socket.
func BenchmarkNewRoute(b *testing.B) {
	k := rtnl.MustNewKernel(rtnl.After)
	setupPair(b, k.InitNet().Handle(k.World().NewTask("setup")))
	c, err := nlwire.Dial(k.InitNet())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	start := k.World().Now()
	benchNewRoute(b, c)
	b.ReportMetric((k.World().Now()-start).Seconds()/float64(b.N), "virtual-s/op")
}

// BenchmarkNewRouteSocket is BenchmarkNewRoute without the Conn: each
// request goes straight to the Socket (Send, which marshals it, then
// Receive, which parses its ack), as a Conn's own socket would carry it.
// Against BenchmarkNewRoute it is the cost of Conn.Execute's own work
// (sequence numbers, locking, checking the reply).
func BenchmarkNewRouteSocket(b *testing.B) {
	k := rtnl.MustNewKernel(rtnl.After)
	setupPair(b, k.InitNet().Handle(k.World().NewTask("setup")))
	s := nlwire.NewSocket(k.InitNet())
	defer s.Close()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m := newRoute(i)
		m.Header.Length = uint32(16 + len(m.Data))
		m.Header.Sequence = uint32(i + 1)
		if err := s.Send(m); err != nil {
			b.Fatalf("route %d: %v", i, err)
		}
		ms, err := s.Receive()
		if err != nil || len(ms) != 1 || ms[0].Header.Type != netlink.Error || len(ms[0].Data) < 4 || binary.NativeEndian.Uint32(ms[0].Data) != 0 {
			b.Fatalf("route %d: %v %v", i, ms, err)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "routes/s")
}

// BenchmarkNewRouteRealKernel adds the same routes through a real
// NETLINK_ROUTE socket in a private network namespace (root only).
func BenchmarkNewRouteRealKernel(b *testing.B) {
	benchNewRoute(b, realKernelPair(b))
}

// realKernelPair dials a real NETLINK_ROUTE socket in a private network
// namespace with veth0 and its peer up, closed when b ends; it skips b
// where there is no real kernel namespace.
func realKernelPair(b *testing.B) *netlink.Conn {
	real, err := wiretest.NewReal()
	if err != nil {
		b.Skipf("no real kernel namespace: %v", err)
	}
	b.Cleanup(func() { real.Close() })
	c, err := real.Dial()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	for _, m := range []netlink.Message{vethPair(), linkUp(ifVeth1), linkUp(ifVeth0)} {
		if _, err := c.Execute(m); err != nil {
			b.Fatal(err)
		}
	}
	return c
}

// BenchmarkNewRoutePipelined is BenchmarkNewRoute with the requests sent
// pipelineDepth to a datagram and their acks read afterwards.
func BenchmarkNewRoutePipelined(b *testing.B) {
	k := rtnl.MustNewKernel(rtnl.After)
	setupPair(b, k.InitNet().Handle(k.World().NewTask("setup")))
	c, err := nlwire.Dial(k.InitNet())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	benchNewRoutePipelined(b, c)
}

// BenchmarkNewRoutePipelinedRealKernel is BenchmarkNewRouteRealKernel
// pipelined as BenchmarkNewRoutePipelined is (root only).
func BenchmarkNewRoutePipelinedRealKernel(b *testing.B) {
	benchNewRoutePipelined(b, realKernelPair(b))
}

// setupPair creates veth0 (ifindex 3) with its peer and brings both up.
func setupPair(b *testing.B, h *rtnl.Handle) {
	if err := vethPairHandle(h); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"veth1", "veth0"} {
		if err := h.LinkSetUp(name); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewRouteFiltered adds routes as BenchmarkNewRoute does while a
// second socket, joined to RTNLGRP_IPV4_ROUTE, never reads: "filtered"
// runs a classic BPF program on nlmsg_type over every notification, which
// drops RTM_NEWROUTE (so the queue never fills); "unfiltered" has no
// filter, so its queue fills and overruns at once and later notifications
// are dropped unqueued. Against "nolistener", the first is the cost of
// building each notification and running the filter over it, the second
// of building it alone.
func BenchmarkNewRouteFiltered(b *testing.B) {
	for _, name := range []string{"nolistener", "unfiltered", "filtered"} {
		b.Run(name, func(b *testing.B) {
			k := rtnl.MustNewKernel(rtnl.After)
			setupPair(b, k.InitNet().Handle(k.World().NewTask("setup")))
			if name != "nolistener" {
				l, err := nlwire.DialConfig(k.InitNet(), &netlink.Config{Groups: 1 << (uapi.RTNLGRP_IPV4_ROUTE - 1)})
				if err != nil {
					b.Fatal(err)
				}
				defer l.Close()
				if err := l.SetOption(netlink.NoENOBUFS, true); err != nil {
					b.Fatal(err)
				}
				if name == "filtered" {
					if err := l.SetBPF(mustAssemble(dropType(uapi.RTM_NEWROUTE))); err != nil {
						b.Fatal(err)
					}
				}
			}
			c, err := nlwire.Dial(k.InitNet())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			benchNewRoute(b, c)
		})
	}
}
