package nlwire_test

import (
	"net/netip"
	"runtime"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	W "github.com/netsimlab/netsim/nlwire/internal/wiretest"
	"github.com/netsimlab/netsim/rtnl"
)

// blackholes returns a kernel whose main table holds n IPv4 blackhole
// routes, distinct /32s, added through the Handle.
func blackholes(tb testing.TB, n int) *rtnl.Kernel {
	tb.Helper()
	k := rtnl.MustNewKernel(rtnl.After)
	h := k.InitNet().Handle(k.World().NewTask("setup"))
	for i := range n {
		a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		if err := h.RouteAdd(rtnl.Route{Dst: netip.PrefixFrom(a, 32), Type: fib.TypeBlackhole}); err != nil {
			tb.Fatal(err)
		}
	}
	return k
}

// routeDumpReq is an AF_INET RTM_GETROUTE dump request.
func routeDumpReq() netlink.Message {
	m := W.Msg(uapi.RTM_GETROUTE, W.Dump, W.RtMsg{Family: uapi.AF_INET}.Bytes())
	m.Header.Length = uint32(16 + len(m.Data))
	m.Header.Sequence = 1
	return m
}

// heldBy returns the live heap bytes and the allocations that fn's
// effects left, after a collection.
func heldBy(fn func()) (bytes int64, mallocs uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc), after.Mallocs - before.Mallocs
}

// A dump that nobody reads holds one datagram, however large the table,
// as Linux's does (netlink_dump fills one skb per call, and the next only
// when the reader drains the queue); and the request that starts it makes
// one datagram's messages, not the table's. Eight sockets each ask for a
// dump of 50 000 routes (44 bytes a message: 2.2 MB a dump if built whole)
// and read nothing.
//
// Kernel: netlink_dump_start, netlink_dump, netlink_recvmsg
// (net/netlink/af_netlink.c).
func TestDumpUnreadHoldsOneDatagram(t *testing.T) {
	const routes, sockets = 50000, 8
	k := blackholes(t, routes)
	socks := make([]*nlwire.Socket, sockets)
	held, mallocs := heldBy(func() {
		for i := range socks {
			socks[i] = nlwire.NewSocket(k.InitNet())
			require.NoError(t, socks[i].Send(routeDumpReq()))
		}
	})
	t.Logf("%d unread dumps of %d routes: %d bytes held, %d allocations", sockets, routes, held, mallocs)
	require.Less(t, held/sockets, int64(64<<10), "an unread dump holds about one datagram, not the table")
	require.Less(t, mallocs/sockets, uint64(2000), "starting a dump makes one datagram's messages")

	// Read, the dump is whole.
	n := 0
	for {
		msgs, err := socks[0].Receive()
		require.NoError(t, err)
		if msgs[len(msgs)-1].Header.Type == netlink.Done {
			n += len(msgs) - 1
			break
		}
		n += len(msgs)
	}
	require.Equal(t, routes, n)
	for _, s := range socks {
		s.Close()
	}
}

// BenchmarkDumpUnread starts a dump of a million IPv4 routes that nobody
// reads: ns/op is the Send that asks for it (and the socket's open and
// close), held-B/dump the heap an unread dump keeps, measured over eight
// sockets.
func BenchmarkDumpUnread(b *testing.B) {
	const routes = 1 << 20
	k := blackholes(b, routes)
	socks := make([]*nlwire.Socket, 8)
	held, _ := heldBy(func() {
		for i := range socks {
			socks[i] = nlwire.NewSocket(k.InitNet())
			if err := socks[i].Send(routeDumpReq()); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, s := range socks {
		s.Close()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s := nlwire.NewSocket(k.InitNet())
		if err := s.Send(routeDumpReq()); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	b.ReportMetric(float64(held)/float64(len(socks)), "held-B/dump")
}

// Dumps read while other sockets change the tables, and sockets closed in
// the middle of a dump (which then ends, releasing its IPv6 walker, in
// the socket's task), from several goroutines: for `go test -race`. Every
// dump read to its end ends with NLMSG_DONE.
func TestDumpConcurrentChangesAndClose(t *testing.T) {
	k := blackholes(t, 3000)
	h := k.InitNet().Handle(k.World().NewTask("setup6"))
	for i := range 1000 {
		require.NoError(t, h.RouteAdd(rtnl.Route{Dst: netip.PrefixFrom(dst6(i), 128), Type: fib.TypeBlackhole}))
	}
	done := make(chan struct{})
	writer := nlwire.NewSocket(k.InitNet())
	defer writer.Close()
	go func() {
		defer close(done)
		c := netlink.NewConn(writer, writer.PID())
		for i := range 400 {
			m := blackhole6(5000 + i)
			if i%2 == 1 {
				m = del6(7 * i)
			}
			_ = execAck(c, m)
		}
	}()
	errs := make(chan error, 4)
	for r := range 4 {
		go func() {
			s := nlwire.NewSocket(k.InitNet())
			defer s.Close()
			m := routeDump(uapi.AF_UNSPEC)
			if r == 0 {
				m = routeDump(uapi.AF_INET6) // its walker stays registered between parts
			}
			m.Header.Length, m.Header.Sequence = uint32(16+len(m.Data)), 1
			if err := s.Send(m); err != nil {
				errs <- err
				return
			}
			for part := 0; ; part++ {
				if r == 0 && part == 3 {
					errs <- s.Close() // abandoned mid-dump
					return
				}
				msgs, err := s.Receive()
				if err != nil {
					errs <- err
					return
				}
				if msgs[len(msgs)-1].Header.Type == netlink.Done {
					errs <- nil
					return
				}
			}
		}()
	}
	for range 4 {
		require.NoError(t, <-errs)
	}
	<-done
	require.NoError(t, k.CheckInvariants())
}

// A socket closed in the middle of an IPv6 route dump, in a namespace
// deleted by name that only the socket still holds: Close ends the dump
// (its walker leaves the FIB) and only then drops the namespace, which is
// dismantled once the kernel settles, as netlink_release runs the dump's
// cb->done before the socket's put_net.
func TestCloseMidDumpThenNamespace(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	ip := k.World().NewTask("ip")
	n, err := k.NewNet(ip, "red")
	require.NoError(t, err)
	h := n.Handle(ip)
	for i := range 1000 {
		require.NoError(t, h.RouteAdd(rtnl.Route{Dst: netip.PrefixFrom(dst6(i), 128), Type: fib.TypeBlackhole}))
	}
	require.NoError(t, h.Close())

	s := nlwire.NewSocket(n)
	m := routeDump(uapi.AF_INET6)
	m.Header.Length, m.Header.Sequence = uint32(16+len(m.Data)), 1
	require.NoError(t, s.Send(m))
	msgs, err := s.Receive()
	require.NoError(t, err)
	require.NotEqual(t, netlink.Done, msgs[len(msgs)-1].Header.Type, "the dump goes on")
	require.Equal(t, 1, n.FIB6().Walkers(), "its walker stays registered between parts")

	require.NoError(t, k.DelNet(ip, "red"))
	k.Settle(ip)
	require.Equal(t, 1, n.FIB6().Walkers(), "the socket holds the namespace, and its dump goes on")
	lo := n.Devices().Loopback()
	require.True(t, lo.Registered())

	require.NoError(t, s.Close())
	require.Zero(t, n.FIB6().Walkers(), "Close ended the dump")
	k.Settle(ip)
	require.False(t, lo.Registered(), "the last reference gone, the namespace is dismantled")
	require.NoError(t, k.CheckInvariants())
}

// A Receive that fills a dump's next part races Close from another
// goroutine, for `go test -race`: whichever wins, the dump ends in the
// socket's task before the Handle is closed, no part runs after it, and
// the walker is gone once Close returns.
func TestReceiveRacesCloseMidDump(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	n := k.InitNet()
	h := n.Handle(k.World().NewTask("setup6"))
	for i := range 500 {
		require.NoError(t, h.RouteAdd(rtnl.Route{Dst: netip.PrefixFrom(dst6(i), 128), Type: fib.TypeBlackhole}))
	}
	for i := range 20 {
		s := nlwire.NewSocket(n)
		m := routeDump(uapi.AF_INET6)
		m.Header.Length, m.Header.Sequence = uint32(16+len(m.Data)), 1
		require.NoError(t, s.Send(m))
		read := make(chan struct{})
		go func() {
			defer close(read)
			for {
				if _, err := s.Receive(); err != nil {
					return // closed
				}
			}
		}()
		if i%2 == 1 {
			runtime.Gosched()
		}
		require.NoError(t, s.Close())
		require.Zero(t, n.FIB6().Walkers())
		<-read
		require.Zero(t, n.FIB6().Walkers())
	}
	require.NoError(t, k.CheckInvariants())
}
