// The socket half of net/netlink/af_netlink.c: a NETLINK_ROUTE socket's
// port id, multicast memberships, options, buffer sizes and receive queue.
// The request half (netlink_rcv_skb, rtnetlink_rcv_msg, netlink_ack and
// netlink_dump) is serve.go.

package nlwire

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"
	"golang.org/x/net/bpf"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// Socket is a NETLINK_ROUTE socket in a simulated namespace: it implements
// github.com/mdlayher/netlink's Socket interface and the optional methods
// a netlink.Conn looks for (JoinGroup, LeaveGroup, SetOption, the
// deadlines, the buffer sizes, SetBPF and RemoveBPF; SyscallConn says it
// has no descriptor). Requests sent on it are served at once
// by its namespace, as one task of the simulated kernel (the socket's
// handle); their replies, acks and dumps, and the notifications of the
// groups it joined, queue up until Receive takes them, one datagram per
// call, as recvmsg does. A dump is not made whole: its first datagram is
// queued when the request is served and each next one when a Receive
// leaves the queue at most half full, in the socket's task (see dump.go).
//
// A Socket may be used from several goroutines: sends are served one at a
// time, and Receive may block in one goroutine while another sends or
// closes. Close unblocks a blocked Receive.
//
// An open Socket holds a reference to its namespace (through its Handle),
// as a socket holds its struct net: a namespace deleted by name stays
// alive and served while a socket in it is open (see rtnl.Kernel.DelNet).
//
// Port ids: the first open socket of a task in a namespace gets the
// task's id (as netlink_autobind gives a process's first socket its pid);
// a task's further sockets get -4097, -4098, ... (as uint32), the first
// not in use in the namespace (the kernel starts that search at a random
// value). A socket dialled with a port id (DialConfig) gets that one, if
// no other socket of the namespace has it.
//
// Receive queue: as the kernel's, it is limited by the receive buffer
// (SO_RCVBUF, 212992 bytes by default), counted as the kernel counts it in
// skb truesize (see truesize). A reply, ack or notification that would
// take a non-empty queue over the limit is dropped, and the next Receive
// reports ENOBUFS (unless NoENOBUFS is set); after an overrun the socket
// takes nothing more until its queue has been emptied (the kernel's
// NETLINK_S_CONGESTED).
type Socket struct {
	n   *rtnl.Net
	h   *rtnl.Handle
	pid uint32
	ns  *netSockets // the namespace's open sockets

	// sendMu serialises the requests: the handle's task serves one at a
	// time. req is the request being served, spans its attributes' scratch.
	sendMu sync.Mutex
	req    request // +checklocks:sendMu
	spans  []span  // +checklocks:sendMu

	// mu guards the fields below; the notification callback, which runs in
	// whichever task made a change, takes it too. wake is closed and
	// replaced when a waiter should look again; waiters counts the
	// goroutines blocked in Receive on wake. rmem is the queue's
	// truesize (sk_rmem_alloc), rcvbuf SO_RCVBUF as the kernel stores it
	// (doubled), sndbuf SO_SNDBUF, sockErr sk_err (reported by the next
	// Receive), congested NETLINK_S_CONGESTED, groups a bit g-1 set for each
	// joined group g, dump the dump in progress (cb_running) or nil,
	// maxRecvLen nlk->max_recvmsg_len, filter the attached socket filter
	// (sk_filter) or nil. queue lives in queueArr, the array it was last
	// allocated in (its whole length), from some index on (see readLocked).
	mu         sync.Mutex
	wake       chan struct{} // +checklocks:mu
	waiters    int           // +checklocks:mu
	queue      []datagram    // +checklocks:mu
	queueArr   []datagram    // +checklocks:mu
	rmem       int           // +checklocks:mu
	rcvbuf     int           // +checklocks:mu
	sndbuf     int           // +checklocks:mu
	sockErr    syscall.Errno // +checklocks:mu
	congested  bool          // +checklocks:mu
	closed     bool          // +checklocks:mu
	groups     uint64        // +checklocks:mu
	opts       sockOpts      // +checklocks:mu
	rdeadline  time.Time     // +checklocks:mu
	wdeadline  time.Time     // +checklocks:mu
	dump       *dumpState    // +checklocks:mu
	maxRecvLen int           // +checklocks:mu
	filter     *bpf.VM       // +checklocks:mu
}

// sockOpts are the SOL_NETLINK boolean options that change what a Socket
// does (see SetOption).
type sockOpts struct {
	noENOBUFS, capAck, extAck, strict bool
}

// A datagram is one queued skb: its bytes and the truesize it is charged.
type datagram struct {
	b    []byte
	size int
}

// Socket buffer constants of the kernel (net/core/sock.c, include/net/sock.h).
const (
	defaultSockBuf = 212992    // net.core.rmem_default and wmem_default
	sockMinRcvbuf  = 2304      // SOCK_MIN_RCVBUF
	sockMinSndbuf  = 4608      // SOCK_MIN_SNDBUF
	maxInt32Half   = 1<<30 - 1 // INT_MAX / 2, the largest value setsockopt doubles
	rtnlGroups     = 39        // nlk->ngroups of NETLINK_ROUTE: RTNLGRP_MAX
	autobindRover  = -4097     // the first port id tried after a collision
)

// NewSocket opens a NETLINK_ROUTE socket in namespace n whose requests run
// as a new task of n's kernel, and binds it to a port id.
func NewSocket(n *rtnl.Net) *Socket {
	t := n.Kernel().World().NewTask("netlink")
	return NewSocketTask(n, t)
}

// NewSocketTask is NewSocket for a socket whose requests run as task t, as
// a process's several sockets share its time. t's sockets must not send
// or receive from several goroutines at once: a Receive may fill a
// dump's next datagram, in t.
func NewSocketTask(n *rtnl.Net, t *sim.Task) *Socket {
	s := newSocket(n, t)
	_ = bind(s, t, 0) // autobind always finds a port id
	return s
}

// newSocket is an unbound socket in n whose requests run as t.
//
// Kernel: netlink_create.
func newSocket(n *rtnl.Net, t *sim.Task) *Socket {
	return &Socket{
		n:      n,
		h:      n.Handle(t),
		wake:   make(chan struct{}),
		rcvbuf: defaultSockBuf,
		sndbuf: defaultSockBuf,
	}
}

// PID returns the socket's port id.
func (s *Socket) PID() uint32 { return s.pid }

// Handle returns the handle the socket's requests are served with.
func (s *Socket) Handle() *rtnl.Handle { return s.h }

// Readable reports whether a Receive would return without waiting, as
// poll(2) reports POLLIN or POLLERR: a datagram is queued, an error is
// pending, or the socket is closed. A request's answers, notifications and
// a dump's first datagram are queued before Send returns, and a dump's
// next datagram before the Receive that makes room for it returns, so a
// socket that is not Readable gets nothing more until the next request.
//
// Kernel: netlink_poll → datagram_poll (net/core/datagram.c).
func (s *Socket) Readable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue) > 0 || s.sockErr != 0 || s.closed
}

// Close closes the socket: it leaves its groups, gives up its port id,
// drops its queue and wakes a blocked Receive, which returns the poller's
// "use of closed file" error, as a real socket's does; a Receive after
// Close returns EBADF. Last, once a request or dump part being served has
// finished, it ends the dump in progress, if any, and then closes the
// socket's Handle, which drops the socket's reference to its namespace: a namespace deleted by name is dismantled when its last
// socket (or Handle) closes. A second Close does nothing, as
// mdlayher/netlink's own sockets allow.
//
// Kernel: netlink_release (net/netlink/af_netlink.c) → sk_free →
// __sk_destruct → put_net.
func (s *Socket) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	ds := s.dump
	s.queue, s.queueArr, s.rmem, s.dump = nil, nil, 0, nil
	s.wakeLocked()
	s.mu.Unlock()
	unbind(s)
	// In the socket's task (sendMu): the dump's cursor is released
	// (cb->done) while its Handle can still take RTNL, and no part runs
	// after the Handle is closed (every part runs under sendMu and first
	// checks closed).
	s.sendMu.Lock()
	if ds != nil {
		ds.close()
	}
	_ = s.h.Close()
	s.sendMu.Unlock()
	return nil
}

// errClosed is the error of an operation on a closed socket, as
// mdlayher/socket returns it.
func errClosed(op string) error { return os.NewSyscallError(op, syscall.EBADF) }

// errFileClosing is the error of a Receive blocked while the socket is
// closed: the runtime poller's, which mdlayher/socket passes on as it is
// ("use of closed file", internal/poll.ErrFileClosing).
var errFileClosing = errors.New("use of closed file") // +checklocksignore: never changes

// SyscallConn fails: a simulated socket has no file descriptor, so there
// is nothing a syscall.RawConn could pass to a caller's getsockopt or
// recvmsg. The error is a *netlink.OpError for "syscall-conn" wrapping
// EOPNOTSUPP (so errors.ErrUnsupported too), whose text says "operation
// not supported", as the error mdlayher/netlink gives where it has no
// socket to offer (its tests look for "not supported"). On a closed
// socket it is EBADF, as mdlayher/socket's.
func (s *Socket) SyscallConn() (syscall.RawConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed("syscallconn")
	}
	return nil, &netlink.OpError{Op: "syscall-conn",
		Err: errno.New(syscall.EOPNOTSUPP, "a simulated netlink socket has no file descriptor")}
}

// JoinGroup joins RTNLGRP group g (1 to 39; others: EINVAL).
//
// Kernel: netlink_setsockopt NETLINK_ADD_MEMBERSHIP.
func (s *Socket) JoinGroup(g uint32) error { return s.membership(g, true) }

// LeaveGroup leaves group g; leaving a group not joined is no error.
//
// Kernel: netlink_setsockopt NETLINK_DROP_MEMBERSHIP.
func (s *Socket) LeaveGroup(g uint32) error { return s.membership(g, false) }

func (s *Socket) membership(g uint32, join bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed("setsockopt")
	}
	if g == 0 || g > rtnlGroups {
		return os.NewSyscallError("setsockopt", syscall.EINVAL)
	}
	before := s.groups != 0
	if join {
		s.groups |= 1 << (g - 1)
	} else {
		s.groups &^= 1 << (g - 1)
	}
	if after := s.groups != 0; before != after {
		s.ns.listening(after)
	}
	return nil
}

// joinedLocked reports whether s is a member of group g.
//
// +checklocks:s.mu
func (s *Socket) joinedLocked(g uint32) bool {
	return g != 0 && g <= rtnlGroups && s.groups&(1<<(g-1)) != 0
}

// SetOption sets a SOL_NETLINK option. All the options mdlayher/netlink
// names are accepted as Linux 6.18 accepts them from root:
// ExtendedAcknowledge (extack TLVs in acks and in NLMSG_DONE),
// CapAcknowledge (error acks echo only the request's header),
// GetStrictCheck (the request's strict attribute and header checks),
// NoENOBUFS (an overrun is not reported); PacketInfo, BroadcastError and
// ListenAllNSID are accepted and change nothing a Socket shows (it passes
// no control messages, and netsim's namespaces have no peer nsids). An
// unknown option is ENOPROTOOPT.
//
// Kernel: netlink_setsockopt.
func (s *Socket) SetOption(o netlink.ConnOption, enable bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed("setsockopt")
	}
	switch o {
	case netlink.PacketInfo, netlink.BroadcastError, netlink.ListenAllNSID:
		// Accepted; nothing a Socket shows depends on them.
	case netlink.NoENOBUFS:
		s.opts.noENOBUFS = enable
		if enable {
			// The kernel clears the congestion and wakes the reader.
			s.congested = false
			s.wakeLocked()
		}
	case netlink.CapAcknowledge:
		s.opts.capAck = enable
	case netlink.ExtendedAcknowledge:
		s.opts.extAck = enable
	case netlink.GetStrictCheck:
		s.opts.strict = enable
	default:
		return os.NewSyscallError("setsockopt", syscall.ENOPROTOOPT)
	}
	return nil
}

// SetDeadline sets both deadlines. The deadline setters of a closed
// socket fail with the poller's "use of closed file", as those of
// mdlayher/netlink's own sockets do.
func (s *Socket) SetDeadline(t time.Time) error {
	return s.setDeadlines(t, t, true, true)
}

// SetReadDeadline sets the time after which Receive fails with an error
// that wraps os.ErrDeadlineExceeded (a net.Error whose Timeout is true),
// also when it is already blocked; the zero time means none. The deadline
// is the caller's wall-clock time, like any socket's, not virtual time.
func (s *Socket) SetReadDeadline(t time.Time) error {
	return s.setDeadlines(t, time.Time{}, true, false)
}

// SetWriteDeadline sets the time after which Send fails with
// os.ErrDeadlineExceeded. A send to the kernel never blocks, so only a
// deadline already past matters.
func (s *Socket) SetWriteDeadline(t time.Time) error {
	return s.setDeadlines(time.Time{}, t, false, true)
}

func (s *Socket) setDeadlines(r, w time.Time, setR, setW bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		// os.File's deadlines on a closed file: the poller's error.
		return errFileClosing
	}
	if setR {
		s.rdeadline = r
	}
	if setW {
		s.wdeadline = w
	}
	s.wakeLocked()
	return nil
}

// SetReadBuffer sets SO_RCVBUF as root's SO_RCVBUFFORCE does (which
// mdlayher/netlink tries first): the kernel stores twice the value, at
// least SOCK_MIN_RCVBUF.
func (s *Socket) SetReadBuffer(bytes int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed("setsockopt")
	}
	s.rcvbuf = sockBuf(bytes, sockMinRcvbuf)
	return nil
}

// SetWriteBuffer sets SO_SNDBUF as SO_SNDBUFFORCE does. A send larger than
// the buffer less 32 bytes is EMSGSIZE.
func (s *Socket) SetWriteBuffer(bytes int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed("setsockopt")
	}
	s.sndbuf = sockBuf(bytes, sockMinSndbuf)
	return nil
}

// ReadBuffer returns SO_RCVBUF.
func (s *Socket) ReadBuffer() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, errClosed("getsockopt")
	}
	return s.rcvbuf, nil
}

// WriteBuffer returns SO_SNDBUF.
func (s *Socket) WriteBuffer() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, errClosed("getsockopt")
	}
	return s.sndbuf, nil
}

// sockBuf is sock_setsockopt's SO_RCVBUFFORCE/SO_SNDBUFFORCE arithmetic.
func sockBuf(v, minimum int) int {
	v = min(v, maxInt32Half) * 2
	return max(v, minimum)
}

// wakeLocked wakes every goroutine blocked in Receive to look again.
//
// +checklocks:s.mu
func (s *Socket) wakeLocked() {
	if s.waiters == 0 {
		return // nobody holds wake: the next Receive looks anyway
	}
	close(s.wake)
	s.wake = make(chan struct{})
}

// Receive returns the messages of the next datagram in the queue, blocking
// until one arrives, the read deadline passes (os.ErrDeadlineExceeded) or
// the socket is closed (see Close). A
// pending overrun is reported first, as recvmsg reports sk_err, as an
// *os.SyscallError wrapping ENOBUFS.
//
// A datagram a socket filter cut (see SetBPF) is parsed as mdlayher/netlink's
// own sockets parse it: a message cut short makes the whole datagram
// EINVAL; a cut inside the first header leaves no message.
//
// Kernel: netlink_recvmsg, which also lets a dump in progress fill its
// next datagram once the reader has made room.
func (s *Socket) Receive() ([]netlink.Message, error) {
	b, err := s.recvRaw()
	if err != nil {
		return nil, err
	}
	return parseDatagram(b)
}

// recvRaw is Receive returning the datagram's bytes.
func (s *Socket) recvRaw() ([]byte, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	for waited := false; ; waited = true {
		if s.closed {
			if waited {
				return nil, errFileClosing
			}
			return nil, errClosed("recvmsg")
		}
		if !s.rdeadline.IsZero() && !time.Now().Before(s.rdeadline) {
			return nil, os.ErrDeadlineExceeded
		}
		if s.sockErr != 0 {
			e := s.sockErr
			s.sockErr = 0
			return nil, os.NewSyscallError("recvmsg", e)
		}
		if len(s.queue) > 0 {
			if b, ok := s.readLocked(); ok {
				return b, nil
			}
			continue
		}
		wake := s.wake
		var expire <-chan time.Time
		if !s.rdeadline.IsZero() {
			if timer == nil {
				timer = time.NewTimer(time.Until(s.rdeadline))
			} else {
				timer.Reset(time.Until(s.rdeadline))
			}
			expire = timer.C
		}
		s.waiters++
		s.mu.Unlock()
		select {
		case <-wake:
		case <-expire:
		}
		s.mu.Lock()
		s.waiters--
	}
}

// readLocked is the recvmsg calls with which the reader takes the
// queue's first datagram, modelled on mdlayher/netlink's Receive: peeks
// with a buffer of a page, doubled until the datagram fits with room to
// spare, then the read with that buffer. Each call records its buffer
// length in nlk->max_recvmsg_len (at most SKB_WITH_OVERHEAD(32768)),
// which sizes the dump's next datagrams, and lets a dump in progress fill
// its next datagram (continueDump), as netlink_recvmsg does, a peek
// included. It reports false, with s.mu held, if another reader took the
// datagram meanwhile (continueDump releases s.mu).
//
// Kernel: netlink_recvmsg.
//
// +checklocks:s.mu
func (s *Socket) readLocked() ([]byte, bool) {
	buf := 4096
	for {
		s.noteRecvLenLocked(buf)
		s.continueDump()
		if len(s.queue) == 0 || s.closed {
			return nil, false
		}
		if len(s.queue[0].b) < buf {
			break
		}
		buf *= 2
	}
	d := s.queue[0]
	// The queue moves on in its array, which it starts again from the
	// front once empty (appendLocked moves it back when it reaches the
	// end): the array, at most a receive buffer's worth of datagrams, is
	// reused, and taking a datagram costs the same however many follow.
	s.queue[0] = datagram{}
	s.queue = s.queue[1:]
	s.rmem -= d.size
	if len(s.queue) == 0 {
		s.queue = s.queueArr[:0]
		s.congested = false // netlink_rcv_wake
	}
	s.noteRecvLenLocked(buf)
	s.continueDump()
	return d.b, true
}

// noteRecvLenLocked records a recvmsg buffer of buf bytes in
// nlk->max_recvmsg_len.
//
// +checklocks:s.mu
func (s *Socket) noteRecvLenLocked(buf int) {
	s.maxRecvLen = min(max(s.maxRecvLen, buf), maxDumpAlloc)
}

// enqueueLocked queues datagram b as a unicast or broadcast skb of
// allocation size alloc, once the socket's filter has let it through (and
// maybe cut it), or drops it on an overrun: when the queue with it would
// be over the receive buffer (an empty queue takes one skb whatever its
// size), or the socket is congested.
//
// Kernel: netlink_unicast / do_one_broadcast (sk_filter first), then
// netlink_attachskb / netlink_broadcast_deliver, netlink_overrun.
//
// +checklocks:s.mu
func (s *Socket) enqueueLocked(b []byte, alloc int) {
	if s.closed {
		return
	}
	b, ok := s.filterLocked(b)
	if !ok {
		return
	}
	if ts := truesize(alloc); s.rmem > 0 && s.rmem+ts > s.rcvbuf || s.congested {
		if !s.opts.noENOBUFS && !s.congested {
			s.congested = true
			s.sockErr = syscall.ENOBUFS
			s.wakeLocked()
		}
		return
	}
	s.appendLocked(b, alloc)
}

// appendLocked queues b without the receive buffer check, as
// __netlink_sendskb does for a dump's datagrams.
//
// +checklocks:s.mu
func (s *Socket) appendLocked(b []byte, alloc int) {
	ts := truesize(alloc)
	if n := len(s.queue); n == cap(s.queue) && n < cap(s.queueArr)/2 {
		// At the array's end with more than half of it free at the
		// front: move the queue back to the front.
		copy(s.queueArr, s.queue)
		clear(s.queueArr[n:])
		s.queue = s.queueArr[:n]
	}
	grow := len(s.queue) == cap(s.queue)
	s.queue = append(s.queue, datagram{b, ts})
	if grow {
		s.queueArr = s.queue[:cap(s.queue)]
	}
	s.rmem += ts
	s.wakeLocked()
}

// truesize is the skb truesize the kernel charges to a receive queue for
// an skb allocated for size bytes, on x86-64 (alloc_skb): the data rounded
// to the cache line plus struct skb_shared_info (320 bytes), rounded up to
// the slab the head comes from (skb_small_head_cache, else the power of
// two of kmalloc-1k ... kmalloc-8k or of the pages beyond), plus struct
// sk_buff (256 bytes with its alignment). netlink_trim's shrinking of a
// large skb is not modelled.
func truesize(size int) int {
	const cacheLine, shinfo, skbuff, smallHead = 64, 320, 256, 640
	n := (size+cacheLine-1)&^(cacheLine-1) + shinfo
	if n <= smallHead {
		return smallHead + skbuff
	}
	p := 1024
	for p < n {
		p *= 2
	}
	return p + skbuff
}

// parseDatagram splits a datagram into its messages, as
// syscall.ParseNetlinkMessage does for mdlayher/netlink's own sockets
// (which pass it the datagram's length rounded up to 4): a message whose
// length is below a header's or beyond the datagram is EINVAL.
func parseDatagram(b []byte) ([]netlink.Message, error) {
	if pad := align4(len(b)) - len(b); pad > 0 {
		b = append(b[:len(b):len(b)], make([]byte, pad)...)
	}
	// Count the messages first, for one allocation of the right size.
	n := 0
	for rest := b; len(rest) >= nlmsgHdrLen; n++ {
		l := int(le.Uint32(rest))
		if l < nlmsgHdrLen || l > len(rest) {
			return nil, syscall.EINVAL
		}
		rest = rest[min(align4(l), len(rest)):]
	}
	var msgs []netlink.Message
	if n > 0 {
		msgs = make([]netlink.Message, 0, n)
	}
	for len(b) >= nlmsgHdrLen {
		l := int(le.Uint32(b))
		msgs = append(msgs, netlink.Message{
			Header: netlink.Header{
				Length:   uint32(l),
				Type:     netlink.HeaderType(le.Uint16(b[4:])),
				Flags:    netlink.HeaderFlags(le.Uint16(b[6:])),
				Sequence: le.Uint32(b[8:]),
				PID:      le.Uint32(b[12:]),
			},
			Data: b[nlmsgHdrLen:l],
		})
		b = b[min(align4(l), len(b)):]
	}
	return msgs, nil
}

// netSockets is a namespace's open sockets and its notification
// subscription, which exists while one of them has joined a group or a
// request asked for an echo.
type netSockets struct {
	n  *rtnl.Net // +checklocksignore: set before the namespace is shared
	mu sync.Mutex
	// socks is replaced, never changed in place, so that the notification
	// callback can range over a copy taken under mu. listeners counts the
	// sockets with a group and the echoing requests; cancel ends the
	// subscription, nil without one.
	socks     []*Socket // +checklocks:mu
	listeners int       // +checklocks:mu
	cancel    func()    // +checklocks:mu
}

// kernelSockets is a kernel's open sockets: their port ids, which are
// unique within a namespace (the kernel's table of a protocol's sockets is
// keyed by namespace and port id), and their namespaces.
type kernelSockets struct {
	pids map[portID]bool
	nets map[*rtnl.Net]*netSockets
}

// A portID is a socket's address: its namespace and port id.
type portID struct {
	n   *rtnl.Net
	pid uint32
}

// taken reports whether a socket of namespace n has port id pid; k may be
// nil (a kernel with no open socket).
func (k *kernelSockets) taken(n *rtnl.Net, pid uint32) bool {
	return k != nil && k.pids[portID{n, pid}]
}

// registry holds the kernels that have open sockets; a kernel leaves it
// when its last socket closes.
var registry struct {
	mu      sync.Mutex
	kernels map[*rtnl.Kernel]*kernelSockets // +checklocks:mu
}

// bind gives s port id pid, or with pid 0 one of its own (see Socket), and
// adds it to its namespace's sockets. A port id another socket of the
// namespace has is EADDRINUSE, as bind(2) reports it.
//
// Kernel: netlink_bind → netlink_insert, or netlink_autobind.
func bind(s *Socket, t *sim.Task, pid uint32) error {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	k := registry.kernels[s.n.Kernel()]
	if pid != 0 && k.taken(s.n, pid) {
		return os.NewSyscallError("bind", syscall.EADDRINUSE)
	}
	if pid == 0 {
		pid = uint32(t.ID())
		for rover := int32(autobindRover); pid == 0 || k.taken(s.n, pid); rover-- {
			pid = uint32(rover)
		}
	}
	if registry.kernels == nil {
		registry.kernels = map[*rtnl.Kernel]*kernelSockets{}
	}
	if k == nil {
		k = &kernelSockets{pids: map[portID]bool{}, nets: map[*rtnl.Net]*netSockets{}}
		registry.kernels[s.n.Kernel()] = k
	}
	k.pids[portID{s.n, pid}] = true
	s.pid = pid
	ns := k.nets[s.n]
	if ns == nil {
		ns = &netSockets{n: s.n}
		k.nets[s.n] = ns
	}
	s.ns = ns
	ns.mu.Lock()
	ns.socks = append(ns.socks[:len(ns.socks):len(ns.socks)], s)
	ns.mu.Unlock()
	return nil
}

// unbind removes s from its namespace and gives up its port id.
func unbind(s *Socket) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	k := registry.kernels[s.n.Kernel()]
	delete(k.pids, portID{s.n, s.pid})
	ns := s.ns
	ns.mu.Lock()
	socks := make([]*Socket, 0, len(ns.socks))
	for _, o := range ns.socks {
		if o != s {
			socks = append(socks, o)
		}
	}
	ns.socks = socks
	empty := len(socks) == 0
	ns.mu.Unlock()
	s.mu.Lock()
	if s.groups != 0 {
		s.groups = 0
		ns.listening(false)
	}
	s.mu.Unlock()
	if empty {
		delete(k.nets, s.n)
	}
	if len(k.pids) == 0 {
		delete(registry.kernels, s.n.Kernel())
	}
}

// listening counts a listener in or out; the namespace is subscribed to
// while it has one. Lock order: a Socket's mu, then ns.mu, then rtnl's
// subscriber lock.
func (ns *netSockets) listening(in bool) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if in {
		ns.listeners++
		if ns.cancel == nil {
			ns.cancel = ns.n.Subscribe(ns.deliver)
		}
		return
	}
	ns.listeners--
	if ns.listeners == 0 && ns.cancel != nil {
		ns.cancel()
		ns.cancel = nil
	}
}
