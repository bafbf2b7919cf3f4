package nlwire

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// pending returns the number of datagrams queued on s.
func pending(s *Socket) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Joining and leaving groups: the errors are those of Linux 6.18's
// netlink_setsockopt for NETLINK_ROUTE (groups 1 to RTNLGRP_MAX, 39),
// checked on a real socket through mdlayher/netlink.
func TestGroups(t *testing.T) {
	s := newTestSocket(t)
	c := netlink.NewConn(s, s.PID())
	for _, g := range []uint32{0, 40, 41, 1 << 31} {
		require.ErrorIs(t, s.JoinGroup(g), syscall.EINVAL, "join %d", g)
		require.ErrorIs(t, s.LeaveGroup(g), syscall.EINVAL, "leave %d", g)
	}
	err := c.JoinGroup(0)
	require.EqualError(t, err, "netlink join-group: setsockopt: invalid argument")
	require.EqualError(t, c.LeaveGroup(40), "netlink leave-group: setsockopt: invalid argument")

	require.NoError(t, s.LeaveGroup(uapi.RTNLGRP_LINK), "leaving a group not joined")
	for _, g := range []uint32{1, uapi.RTNLGRP_IPV4_IFADDR, 39} {
		require.NoError(t, c.JoinGroup(g))
	}
	s.mu.Lock()
	require.True(t, s.joinedLocked(1) && s.joinedLocked(39) && s.joinedLocked(uapi.RTNLGRP_IPV4_IFADDR))
	require.False(t, s.joinedLocked(uapi.RTNLGRP_LINK+1))
	s.mu.Unlock()
	require.NoError(t, c.LeaveGroup(39))
	require.NoError(t, c.JoinGroup(1), "joining twice")
	s.mu.Lock()
	require.False(t, s.joinedLocked(39))
	require.True(t, s.joinedLocked(1))
	s.mu.Unlock()

	require.NoError(t, s.Close())
	require.ErrorIs(t, s.JoinGroup(1), syscall.EBADF)
	require.ErrorIs(t, s.LeaveGroup(1), syscall.EBADF)
}

// linkMTU returns the ifindex and IFLA_MTU of an RTM_NEWLINK message.
func linkMTU(t *testing.T, m netlink.Message) (int32, uint32) {
	t.Helper()
	require.GreaterOrEqual(t, len(m.Data), 16)
	ad, err := netlink.NewAttributeDecoder(m.Data[16:])
	require.NoError(t, err)
	var mtu uint32
	for ad.Next() {
		if ad.Type() == uapi.IFLA_MTU {
			mtu = ad.Uint32()
		}
	}
	require.NoError(t, ad.Err())
	return int32(le.Uint32(m.Data[4:])), mtu
}

// setMTU is an RTM_NEWLINK setting lo's MTU.
func setMTU(mtu uint32, flags netlink.HeaderFlags) netlink.Message {
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(uapi.IFLA_MTU, mtu)
	attrs, _ := ae.Encode()
	body := make([]byte, 16)
	le.PutUint32(body[4:], 1) // ifi_index: lo
	return netlink.Message{Header: netlink.Header{Type: netlink.HeaderType(rt.RTMNewLink), Flags: netlink.Request | flags},
		Data: append(body, attrs...)}
}

// loAddrMsg is an RTM_NEWADDR of 10.0.0.x/32 on lo.
func loAddrMsg(x byte, flags netlink.HeaderFlags, seq uint32) netlink.Message {
	ae := netlink.NewAttributeEncoder()
	ae.Bytes(uapi.IFA_LOCAL, []byte{10, 0, 0, x})
	ae.Bytes(uapi.IFA_ADDRESS, []byte{10, 0, 0, x})
	attrs, _ := ae.Encode()
	body := []byte{uapi.AF_INET, 32, 0, 0, 1, 0, 0, 0}
	return netlink.Message{Header: netlink.Header{Length: uint32(16 + len(body) + len(attrs)),
		Type: netlink.HeaderType(rt.RTMNewAddr), Flags: netlink.Request | netlink.Create | netlink.Excl | flags, Sequence: seq},
		Data: append(body, attrs...)}
}

// A change made through any path reaches the sockets that joined the
// group, with the origin's port id and sequence number (0 for the
// kernel's own requests), and no other socket.
func TestNotificationsReachJoinedSockets(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	n := k.InitNet()
	joined, other, changer := NewSocket(n), NewSocket(n), NewSocket(n)
	for _, s := range []*Socket{joined, other, changer} {
		defer s.Close()
	}
	require.NoError(t, joined.JoinGroup(uapi.RTNLGRP_LINK))
	require.NoError(t, joined.JoinGroup(uapi.RTNLGRP_IPV4_IFADDR))
	require.NoError(t, other.JoinGroup(uapi.RTNLGRP_IPV6_RULE)) // a group no change here reaches

	expect := func(path string, mtu uint32, pid, seq uint32) {
		t.Helper()
		require.Equal(t, 1, pending(joined), path)
		ms, err := joined.Receive()
		require.NoError(t, err)
		require.Len(t, ms, 1, path)
		require.Equal(t, netlink.HeaderType(rt.RTMNewLink), ms[0].Header.Type, path)
		require.Equal(t, pid, ms[0].Header.PID, path)
		require.Equal(t, seq, ms[0].Header.Sequence, path)
		idx, got := linkMTU(t, ms[0])
		require.Equal(t, int32(1), idx, path)
		require.Equal(t, mtu, got, path)
		require.Zero(t, pending(other), path)
	}

	// Another socket's requests. A link's notification carries no port
	// id unless the request asked for an echo (rtmsg_ifinfo_build_skb);
	// an IPv4 address's carries the requester's port id and sequence
	// number (rtmsg_ifa).
	m := setMTU(1400, netlink.Acknowledge)
	m.Header.Length, m.Header.Sequence = uint32(16+len(m.Data)), 77
	require.NoError(t, changer.Send(m))
	expect("socket", 1400, 0, 0)
	require.NoError(t, changer.Send(loAddrMsg(7, netlink.Acknowledge, 78)))
	ms, err := joined.Receive()
	require.NoError(t, err)
	require.Equal(t, netlink.HeaderType(rt.RTMNewAddr), ms[0].Header.Type)
	require.Equal(t, [2]uint32{changer.PID(), 78}, [2]uint32{ms[0].Header.PID, ms[0].Header.Sequence})
	require.Zero(t, pending(joined))
	require.Zero(t, pending(other))
	require.Equal(t, 2, pending(changer), "the changer gets its acks only")

	// The Handle API.
	h := n.Handle(k.World().NewTask("api"))
	require.NoError(t, h.LinkSetMTU("lo", 1300))
	expect("handle", 1300, 0, 0)

	// An ip command.
	ip := iproute.New(k, k.World().NewTask("ip"))
	require.NoError(t, ip.Run("link", "set", "lo", "mtu", "1200"))
	expect("ip", 1200, 0, 0)

	// A change to groups neither joined reaches neither.
	require.NoError(t, ip.Run("rule", "add", "pref", "100", "table", "100"))
	require.Zero(t, pending(joined))
	require.Zero(t, pending(other))

	// After leaving, nothing more.
	require.NoError(t, joined.LeaveGroup(uapi.RTNLGRP_LINK))
	require.NoError(t, h.LinkSetMTU("lo", 1500))
	require.Zero(t, pending(joined))
}

// NLM_F_ECHO: the requesting socket gets the notification once, before
// its ack, whether or not it joined the group; the group's other members
// get it as usual (nlmsg_notify with report).
func TestEcho(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	n := k.InitNet()
	origin, listener := NewSocket(n), NewSocket(n)
	defer origin.Close()
	defer listener.Close()
	require.NoError(t, listener.JoinGroup(uapi.RTNLGRP_IPV4_IFADDR))

	for i, join := range []bool{false, true} {
		if join {
			require.NoError(t, origin.JoinGroup(uapi.RTNLGRP_IPV4_IFADDR))
		}
		require.NoError(t, origin.Send(loAddrMsg(byte(1+i), netlink.Acknowledge|netlink.Echo, 5)))

		ms, err := origin.Receive()
		require.NoError(t, err)
		require.Len(t, ms, 1)
		require.Equal(t, netlink.HeaderType(rt.RTMNewAddr), ms[0].Header.Type, "joined=%v", join)
		require.Equal(t, origin.PID(), ms[0].Header.PID)
		require.Equal(t, uint32(5), ms[0].Header.Sequence)
		ms, err = origin.Receive()
		require.NoError(t, err)
		require.Equal(t, netlink.Error, ms[0].Header.Type, "the ack follows the echo")
		require.Zero(t, pending(origin), "the echo comes once")

		require.Equal(t, 1, pending(listener))
		ms, err = listener.Receive()
		require.NoError(t, err)
		require.Equal(t, origin.PID(), ms[0].Header.PID)
	}

	// Without NLM_F_ECHO and without the group: the ack alone.
	require.NoError(t, origin.LeaveGroup(uapi.RTNLGRP_IPV4_IFADDR))
	require.NoError(t, origin.Send(loAddrMsg(3, netlink.Acknowledge, 6)))
	ms, err := origin.Receive()
	require.NoError(t, err)
	require.Equal(t, netlink.Error, ms[0].Header.Type)
	require.Zero(t, pending(origin))
	require.Equal(t, 1, pending(listener))
}

// A receive queue overrun, as on Linux 6.18 (recorded with a real socket
// of SO_RCVBUFFORCE 1, 2304 bytes, in RTNLGRP_LINK, and six changes of
// lo's MTU): one notification of lo is queued (an empty queue takes one
// whatever its size; Linux's, of 1468 bytes with IFLA_AF_SPEC, and
// netsim's both take more than half the buffer), the others dropped; the next recvmsg reports ENOBUFS, once, and
// the queued one is read after it; once the queue is empty delivery
// resumes. With NETLINK_NO_ENOBUFS the drops are silent.
func TestOverrun(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	n := k.InitNet()
	h := n.Handle(k.World().NewTask("api"))
	s := NewSocket(n)
	defer s.Close()
	c := netlink.NewConn(s, s.PID())
	require.NoError(t, s.SetReadBuffer(1))
	rb, err := s.ReadBuffer()
	require.NoError(t, err)
	require.Equal(t, 2304, rb)
	require.NoError(t, c.JoinGroup(uapi.RTNLGRP_LINK))

	changes := func(base int) {
		for i := range 6 {
			require.NoError(t, h.LinkSetMTU("lo", base+i))
		}
	}
	changes(1500)
	_, err = c.Receive()
	require.ErrorIs(t, err, syscall.ENOBUFS)
	require.EqualError(t, err, "netlink receive: recvmsg: no buffer space available")
	ms, err := s.Receive()
	require.NoError(t, err)
	_, mtu := linkMTU(t, ms[0])
	require.Equal(t, uint32(1500), mtu, "the first change's")
	require.Zero(t, pending(s))

	require.NoError(t, h.LinkSetMTU("lo", 1600))
	ms, err = s.Receive()
	require.NoError(t, err, "delivery resumes, the error reported once")
	_, mtu = linkMTU(t, ms[0])
	require.Equal(t, uint32(1600), mtu)

	require.NoError(t, c.SetOption(netlink.NoENOBUFS, true))
	changes(1700)
	ms, err = s.Receive()
	require.NoError(t, err)
	_, mtu = linkMTU(t, ms[0])
	require.Equal(t, uint32(1700), mtu, "the first is queued, the rest dropped silently")
	require.Zero(t, pending(s))

	// A queue with room takes a message of any size when it is empty,
	// and refuses one that would take it over the buffer.
	s.mu.Lock()
	s.appendLocked(make([]byte, 16), 16) // 896 of truesize
	s.enqueueLocked(make([]byte, 1468), 1468)
	require.Len(t, s.queue, 1, "896+2304 > 2304")
	s.sockErr = 0
	s.queue, s.rmem = nil, 0
	s.enqueueLocked(make([]byte, 8000), 8000)
	require.Len(t, s.queue, 1, "an empty queue takes a datagram larger than the buffer")
	s.mu.Unlock()
}

// Read deadlines behave as a real socket's under mdlayher/netlink: a
// blocked Receive times out with an error that os.IsTimeout and
// errors.Is(os.ErrDeadlineExceeded) recognise, at once for a deadline in
// the past; a deadline set while Receive blocks applies to it; the zero
// time clears it.
func TestDeadlines(t *testing.T) {
	s := newTestSocket(t)
	c := netlink.NewConn(s, s.PID())

	require.NoError(t, c.SetReadDeadline(time.Now().Add(30*time.Millisecond)))
	start := time.Now()
	_, err := c.Receive()
	require.GreaterOrEqual(t, time.Since(start), 30*time.Millisecond)
	require.True(t, os.IsTimeout(err), "%v", err)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	require.EqualError(t, err, "netlink receive: i/o timeout")
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	require.True(t, ne.Timeout())

	require.NoError(t, c.SetReadDeadline(time.Now().Add(-time.Second)))
	_, err = c.Receive()
	require.True(t, os.IsTimeout(err))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)

	// A deadline set while a Receive blocks wakes it.
	require.NoError(t, c.SetReadDeadline(time.Time{}))
	done := make(chan error, 1)
	go func() { _, err := s.Receive(); done <- err }()
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, s.SetDeadline(time.Now().Add(-time.Millisecond)))
	select {
	case err := <-done:
		require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	case <-time.After(5 * time.Second):
		t.Fatal("a blocked Receive ignored a new deadline")
	}

	// Cleared, a Receive returns what arrives.
	require.NoError(t, s.SetDeadline(time.Time{}))
	require.NoError(t, s.sendRaw(msg(18, req|ack, 1, nil)))
	ms, err := s.Receive()
	require.NoError(t, err)
	require.Equal(t, netlink.Error, ms[0].Header.Type)

	// A write deadline in the past fails the send.
	require.NoError(t, s.SetWriteDeadline(time.Now().Add(-time.Second)))
	err = s.sendRaw(msg(18, req|ack, 1, nil))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	require.True(t, os.IsTimeout(err))
	require.NoError(t, s.SetWriteDeadline(time.Time{}))
	require.NoError(t, s.sendRaw(msg(18, req|ack, 1, nil)))
}

// Close unblocks a blocked Receive with the poller's "use of closed
// file", as a real socket's Close does under mdlayher/netlink; later calls
// are EBADF; a second Close is no error.
func TestCloseUnblocksReceive(t *testing.T) {
	s := newTestSocket(t)
	c := netlink.NewConn(s, s.PID())
	done := make(chan error, 1)
	go func() { _, err := c.Receive(); done <- err }()
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, c.Close())
	select {
	case err := <-done:
		require.EqualError(t, err, "netlink receive: use of closed file")
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not unblock Receive")
	}
	_, err := c.Receive()
	require.EqualError(t, err, "netlink receive: recvmsg: bad file descriptor")
	require.ErrorIs(t, err, syscall.EBADF)
	require.NoError(t, s.Close())
	for _, err := range []error{s.SetOption(netlink.ExtendedAcknowledge, true), s.SetReadBuffer(1),
		s.SetWriteBuffer(1), s.Send(netlink.Message{Header: netlink.Header{Length: 16}})} {
		require.ErrorIs(t, err, syscall.EBADF)
	}
	// The deadlines are the file's: the poller's error, not EBADF.
	require.EqualError(t, c.SetDeadline(time.Time{}), "netlink set-deadline: use of closed file")
	_, err = s.ReadBuffer()
	require.ErrorIs(t, err, syscall.EBADF)
	_, err = s.WriteBuffer()
	require.ErrorIs(t, err, syscall.EBADF)
}

// Port ids: a task's first socket gets the task's id, its others
// -4097, -4098, ... (the first free), which come free again on Close; a
// socket's messages carry it.
func TestPortIDs(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	n := k.InitNet()
	task := k.World().NewTask("agent")
	first := NewSocketTask(n, task)
	second := NewSocketTask(n, task)
	third := NewSocketTask(n, task)
	defer first.Close()
	defer third.Close()
	require.Equal(t, uint32(task.ID()), first.PID())
	require.Equal(t, uint32(0xffffefff), second.PID()) // -4097
	require.Equal(t, uint32(0xffffeffe), third.PID())  // -4098
	require.NoError(t, second.Close())
	again := NewSocketTask(n, task)
	defer again.Close()
	require.Equal(t, uint32(0xffffefff), again.PID(), "a closed socket's port id is free again")

	other := NewSocket(n)
	defer other.Close()
	require.NotEqual(t, first.PID(), other.PID())
	require.NotZero(t, other.PID())

	// The port id of a closed first socket is taken by the task's next.
	require.NoError(t, first.Close())
	next := NewSocketTask(n, task)
	defer next.Close()
	require.Equal(t, uint32(task.ID()), next.PID())

	// Replies carry the port id.
	require.NoError(t, next.sendRaw(msg(18, req|ack, 3, nil)))
	ms, err := next.Receive()
	require.NoError(t, err)
	require.Equal(t, next.PID(), ms[0].Header.PID)

	// Dial's connection uses the socket's port id.
	c, err := Dial(n)
	require.NoError(t, err)
	defer c.Close()
	require.NotZero(t, c.PID())
}

// Options and buffer sizes, as Linux 6.18 gives them to root (checked with
// a real socket): every SOL_NETLINK option mdlayher/netlink names is
// accepted, an unknown one is ENOPROTOOPT; the buffers are 212992 bytes by
// default, set with SO_*BUFFORCE to twice the value asked for, at least
// 2304 (receive) and 4608 (send), at most 2147483646.
func TestOptionsAndBuffers(t *testing.T) {
	s := newTestSocket(t)
	c := netlink.NewConn(s, s.PID())
	for _, o := range []netlink.ConnOption{netlink.PacketInfo, netlink.BroadcastError, netlink.NoENOBUFS,
		netlink.ListenAllNSID, netlink.CapAcknowledge, netlink.ExtendedAcknowledge, netlink.GetStrictCheck} {
		require.NoError(t, c.SetOption(o, true), "%v", o)
		require.NoError(t, c.SetOption(o, false), "%v", o)
	}
	err := c.SetOption(netlink.ConnOption(99), true)
	require.ErrorIs(t, err, syscall.ENOPROTOOPT)
	require.EqualError(t, err, "netlink set-option: setsockopt: protocol not available")

	for _, tc := range []struct{ set, rcv, snd int }{
		{0, 212992, 212992}, // the defaults
		{1, 2304, 4608},
		{100000, 200000, 200000},
		{1<<30 - 1, 2147483646, 2147483646},
		{1 << 30, 2147483646, 2147483646},
		{1<<31 - 1, 2147483646, 2147483646},
	} {
		if tc.set != 0 {
			require.NoError(t, c.SetReadBuffer(tc.set))
			require.NoError(t, c.SetWriteBuffer(tc.set))
		}
		rb, err := s.ReadBuffer()
		require.NoError(t, err)
		wb, err := s.WriteBuffer()
		require.NoError(t, err)
		require.Equal(t, [2]int{tc.rcv, tc.snd}, [2]int{rb, wb}, "set %d", tc.set)
	}

	// The options take effect: GetStrictCheck makes a link dump with a
	// bad header an error; ExtendedAcknowledge adds its message.
	bad := netlink.Message{Header: netlink.Header{Type: netlink.HeaderType(rt.RTMGetLink), Flags: netlink.Request | netlink.Dump},
		Data: []byte{0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}
	_, err = c.Execute(bad)
	require.NoError(t, err, "without strict checking the header is ignored")
	require.NoError(t, c.SetOption(netlink.GetStrictCheck, true))
	require.NoError(t, c.SetOption(netlink.ExtendedAcknowledge, true))
	_, err = c.Execute(bad)
	require.ErrorIs(t, err, syscall.EINVAL)
	var oe *netlink.OpError
	require.ErrorAs(t, err, &oe)
	require.NotEmpty(t, oe.Message)
}

// Several sockets in several goroutines, making requests and listening,
// at once (run with -race): every change is acknowledged, and the
// listener sees each address notification exactly once.
func TestConcurrentSockets(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	n := k.InitNet()
	const workers, iters = 4, 15

	listener := NewSocket(n)
	defer listener.Close()
	require.NoError(t, listener.JoinGroup(uapi.RTNLGRP_IPV4_IFADDR))
	seen := map[string]int{}
	listenDone := make(chan error, 1)
	go func() {
		want := 2 * workers * iters
		got := 0
		for got < want {
			if err := listener.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
				listenDone <- err
				return
			}
			ms, err := listener.Receive()
			if err != nil {
				listenDone <- err
				return
			}
			for _, m := range ms {
				if len(m.Data) < 8 {
					listenDone <- errors.New("short message")
					return
				}
				ad, err := netlink.NewAttributeDecoder(m.Data[8:])
				if err != nil {
					listenDone <- err
					return
				}
				var local []byte
				for ad.Next() {
					if ad.Type() == uapi.IFA_LOCAL {
						local = ad.Bytes()
					}
				}
				seen[fmt.Sprintf("%d %v", m.Header.Type, net.IP(local))]++
				got++
			}
		}
		listenDone <- nil
	}()

	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				rc, err := DialRTNetlink(n)
				if err != nil {
					return err
				}
				defer rc.Close()
				for i := range iters {
					ip := net.IPv4(10, byte(w), byte(i), 1).To4()
					am := &rtnetlink.AddressMessage{Family: uapi.AF_INET, PrefixLength: 32, Index: 1,
						Attributes: &rtnetlink.AddressAttributes{Address: ip, Local: ip}}
					if err := rc.Address.New(am); err != nil {
						return fmt.Errorf("add %v: %w", ip, err)
					}
					if _, err := rc.Link.List(); err != nil {
						return err
					}
					if err := rc.Address.Delete(am); err != nil {
						return fmt.Errorf("delete %v: %w", ip, err)
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, <-listenDone)
	require.Len(t, seen, 2*workers*iters, "each notification once")
	for k, v := range seen {
		require.Equal(t, 1, v, k)
		require.True(t, strings.HasPrefix(k, fmt.Sprint(rt.RTMNewAddr)) || strings.HasPrefix(k, fmt.Sprint(rt.RTMDelAddr)), k)
	}
	require.Zero(t, pending(listener))
}

// TestSocketHoldsNamespace: an open socket holds its namespace, as a
// socket holds its struct net (sk_alloc's get_net). After `ip netns del`
// the socket is still served in full — requests, dumps and the
// notifications of its groups — and the namespace is dismantled when the
// socket closes (__sk_destruct's put_net → cleanup_net).
func TestSocketHoldsNamespace(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	ip := k.World().NewTask("ip")
	n, err := k.NewNet(ip, "red")
	require.NoError(t, err)
	rc, err := DialRTNetlink(n)
	require.NoError(t, err)
	listener := NewSocket(n)
	defer listener.Close()
	require.NoError(t, listener.JoinGroup(uapi.RTNLGRP_LINK))

	require.NoError(t, k.DelNet(ip, "red"))
	require.Nil(t, k.Net("red"))
	k.Settle(ip)
	// The namespace lives on: the socket adds a device, lists it, and the
	// listener hears of it.
	require.NoError(t, rc.Link.New(&rtnetlink.LinkMessage{Family: 0, Attributes: &rtnetlink.LinkAttributes{
		Name: "d0", Info: &rtnetlink.LinkInfo{Kind: "dummy"}}}))
	links, err := rc.Link.List()
	require.NoError(t, err)
	require.Len(t, links, 2, "lo and d0")
	require.NotZero(t, pending(listener), "RTM_NEWLINK heard")
	d0 := n.Devices().ByName("d0")
	require.NotNil(t, d0)

	// The listener still holds it when the other closes.
	require.NoError(t, rc.Close())
	k.Settle(ip)
	require.True(t, d0.Registered())
	// The last socket's close queues cleanup_net.
	require.NoError(t, listener.Close())
	k.Settle(ip)
	require.False(t, d0.Registered())
	require.Zero(t, n.Devices().Len())
	require.NoError(t, k.CheckInvariants())

	// A socket opened on the dismantled namespace gets the error of a
	// namespace that is gone.
	late, err := DialRTNetlink(n)
	require.NoError(t, err)
	defer late.Close()
	_, err = late.Link.List()
	require.ErrorIs(t, err, syscall.ENOENT)
}

// SyscallConn: a simulated socket has no descriptor. The error is the
// one mdlayher/netlink gives where it has no socket to offer, with the
// reason, and is errors.ErrUnsupported; closed, it is EBADF.
func TestSyscallConn(t *testing.T) {
	s := newTestSocket(t)
	c := netlink.NewConn(s, s.PID())
	rc, err := c.SyscallConn()
	require.Nil(t, rc)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	require.ErrorIs(t, err, syscall.EOPNOTSUPP)
	require.True(t, strings.Contains(err.Error(), "not supported"))
	require.EqualError(t, err, "netlink syscall-conn: operation not supported: a simulated netlink socket has no file descriptor")
	require.NoError(t, c.Close())
	_, err = c.SyscallConn()
	require.ErrorIs(t, err, syscall.EBADF)
	require.EqualError(t, err, "syscallconn: bad file descriptor")
}
