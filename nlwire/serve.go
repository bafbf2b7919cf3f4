// Serving a socket's requests: netlink_sendmsg's checks, netlink_rcv_skb's
// framing, rtnetlink_rcv_msg's dispatch, netlink_ack, and the dump
// machinery of netlink_dump_start / netlink_dump (net/netlink/af_netlink.c,
// net/core/rtnetlink.c, Linux 6.18); and the delivery of notifications,
// nlmsg_notify.

package nlwire

import (
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

var le = binary.LittleEndian

const (
	nlmsgHdrLen = uapi.NLMSG_HDRLEN
	// nlmsgGoodSize is NLMSG_GOODSIZE on x86-64, SKB_WITH_OVERHEAD of a
	// page: the least a dump's datagram holds.
	nlmsgGoodSize = 4096 - 320
	// maxDumpAlloc is SKB_WITH_OVERHEAD(32768), the most a dump's datagram
	// holds however large the reader's buffer.
	maxDumpAlloc = 32768 - 320
	doneLen      = nlmsgHdrLen + 4 // an NLMSG_DONE carrying its int
	nlmBulk      = uapi.NLM_F_BULK
)

func align4(n int) int { return (n + 3) &^ 3 }

// Send sends one message, as mdlayher/netlink's own socket does: the
// message is marshalled as Message.MarshalBinary does (its Length must be
// set, 4-aligned and at least a header) and served at once.
func (s *Socket) Send(m netlink.Message) error {
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	return s.sendRaw(b)
}

// SendMessages sends the messages in one datagram, which the kernel serves
// in order.
func (s *Socket) SendMessages(ms []netlink.Message) error {
	var buf []byte
	for _, m := range ms {
		b, err := m.MarshalBinary()
		if err != nil {
			return err
		}
		buf = append(buf, b...)
	}
	return s.sendRaw(buf)
}

// sendRaw sends the datagram b, whatever its framing, and serves it. The
// socket keeps no reference to b once it returns.
//
// Kernel: netlink_sendmsg (the size checks) and netlink_unicast_kernel →
// rtnetlink_rcv.
func (s *Socket) sendRaw(b []byte) error {
	s.mu.Lock()
	closed, deadline, sndbuf := s.closed, s.wdeadline, s.sndbuf
	s.mu.Unlock()
	switch {
	case closed:
		return errClosed("sendmsg")
	case !deadline.IsZero() && !time.Now().Before(deadline):
		return os.ErrDeadlineExceeded
	case len(b) == 0:
		return os.NewSyscallError("sendmsg", syscall.ENODATA)
	case len(b) > sndbuf-32:
		return os.NewSyscallError("sendmsg", syscall.EMSGSIZE)
	}
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	s.rcvSkb(b)
	return nil
}

// rcvSkb serves the messages of one datagram in order. A truncated header
// or a length beyond the datagram ends the datagram silently. A message
// that is not a request, or a control message (type below
// NLMSG_MIN_TYPE), is not served but acknowledged if it asks for an ack;
// an error is always acknowledged; a dump that started is not.
//
// Kernel: netlink_rcv_skb (net/netlink/af_netlink.c).
//
// +checklocks:s.sendMu
func (s *Socket) rcvSkb(b []byte) {
	for len(b) >= nlmsgHdrLen {
		l := int(le.Uint32(b))
		if l < nlmsgHdrLen || l > len(b) {
			return
		}
		m := b[:l]
		flags := le.Uint16(m[6:])
		var err error
		var warn string
		started := false
		if flags&uapi.NLM_F_REQUEST != 0 && le.Uint16(m[4:]) >= uapi.NLMSG_MIN_TYPE {
			var served uint16
			started, served, warn, err = s.rcvMsg(m)
			if served != flags {
				// The handler rewrote the request's flags; the ack
				// echoes them (the caller's datagram stays as sent).
				m = append([]byte(nil), m...)
				le.PutUint16(m[6:], served)
			}
		}
		if !started && (flags&uapi.NLM_F_ACK != 0 || err != nil) {
			s.ack(m, len(b), err, warn)
		}
		b = b[min(align4(l), len(b)):]
	}
}

// Message kinds: the low two bits of type - RTM_BASE (rtnl_msgtype_kind).
const (
	kindNew = 0
	kindDel = 1
	kindGet = 2
)

// rcvMsg serves one request. It reports started when the request began a
// dump, which is answered by its datagrams and never acknowledged, the
// request's nlmsg_flags as the handler left them, and the extack message
// a successful request leaves set (a warning its ack carries).
//
// Kernel: rtnetlink_rcv_msg (net/core/rtnetlink.c).
//
// +checklocks:s.sendMu
func (s *Socket) rcvMsg(m []byte) (started bool, flags uint16, warn string, err error) {
	flags = le.Uint16(m[6:])
	typ := rt.MsgType(le.Uint16(m[4:]))
	if typ > uapi.RTM_MAX {
		return false, flags, "", errno.New(syscall.EOPNOTSUPP, "")
	}
	// Every rtnetlink request carries at least an rtgenmsg.
	if len(m) < nlmsgHdrLen+1 {
		return false, flags, "", nil
	}
	hdr := netlink.Header{
		Length:   le.Uint32(m),
		Type:     netlink.HeaderType(typ),
		Flags:    netlink.HeaderFlags(flags),
		Sequence: le.Uint32(m[8:]),
		PID:      le.Uint32(m[12:]),
	}
	family := m[nlmsgHdrLen]
	kind := (typ - uapi.RTM_BASE) & 3
	dump := kind == kindGet && hdr.Flags&uapi.NLM_F_DUMP != 0
	fn, dumpFn, key, bulk := lookup(family, typ, dump)
	if fn == nil && dumpFn == nil {
		return false, flags, "", errno.New(syscall.EOPNOTSUPP, "")
	}
	if kind == kindDel && hdr.Flags&nlmBulk != 0 && !bulk {
		return false, flags, "", errno.New(syscall.EOPNOTSUPP, "Bulk delete is not supported")
	}
	s.mu.Lock()
	strict, busy := s.opts.strict, s.dump != nil
	s.mu.Unlock()
	if dump && busy {
		// __netlink_dump_start: one dump at a time per socket.
		return false, flags, "", errno.New(syscall.EBUSY, "")
	}
	// The request and its scratch spans are the socket's, reused: its
	// requests are served one at a time (sendMu).
	if s.spans == nil {
		s.spans = make([]span, 64)
	}
	echo := hdr.Flags&uapi.NLM_F_ECHO != 0
	origin := rtnl.Origin{PortID: s.pid, Seq: hdr.Sequence, Echo: echo, Flags: uint16(hdr.Flags)}
	s.req = request{h: s.h, hdr: hdr, body: m[nlmsgHdrLen:], strict: strict, origin: origin, scratch: s.spans}
	r := &s.req
	if echo {
		// The echo is built even while nobody listens (rtnl_notify_needed).
		s.ns.listening(true)
		defer s.ns.listening(false)
	}
	if dump {
		d, err := dumpFn(r)
		if err := s.startDump(r, key, d, err); err != nil {
			return false, flags, "", err
		}
		return true, flags, "", nil
	}
	msgs, err := fn(r)
	err = withLeftoverMsg(r, err)
	if err == nil {
		warn = leftoverWarning(r)
	}
	if len(msgs) > 0 {
		s.mu.Lock()
		for _, rm := range msgs {
			b := appendMsg(nil, netlink.Header{Type: rm.Header.Type, Flags: rm.Header.Flags,
				Sequence: hdr.Sequence, PID: s.pid}, rm.Data)
			s.enqueueLocked(b, len(b))
		}
		s.mu.Unlock()
	}
	return false, uint16(r.hdr.Flags), warn, err
}

// serveFunc is a doit.
type serveFunc func(r *request) ([]netlink.Message, error)

// dumpFunc is a dumpit: it checks a dump request and returns the dump's
// cursor at its start.
type dumpFunc func(r *request) (dumper, error)

// lookup finds the doit (dump false) or dumpit serving type t for family:
// the family's own, else PF_UNSPEC's (rtnl_get_link's fallback), among
// the handlers netsim serves and then the ones it only names. bulk
// reports whether the doit supports NLM_F_BULK deletes
// (RTNL_FLAG_BULK_DEL_SUPPORTED).
func lookup(family uint8, t rt.MsgType, dump bool) (do serveFunc, dumpit dumpFunc, key handlerKey, bulk bool) {
	for _, f := range [2]uint8{family, uapi.AF_UNSPEC} {
		k := handlerKey{f, t}
		if h, ok := handlers[k]; ok {
			if dump && h.dump != nil {
				return nil, h.dump, k, false
			}
			if !dump && h.do != nil {
				return h.do, nil, k, false
			}
		}
		if u, ok := unmodelled[k]; ok && (dump && u.dump || !dump && u.do) {
			if dump {
				return nil, u.dumpit, k, false
			}
			return u.serve, nil, k, u.bulk
		}
	}
	return nil, nil, handlerKey{}, false
}

// appendMsg appends a message with header h (its Length computed) and
// payload data, padded to NLMSG_ALIGNTO as nlmsg_end leaves a message.
func appendMsg(dst []byte, h netlink.Header, data []byte) []byte {
	l := nlmsgHdrLen + align4(len(data))
	dst = slices.Grow(dst, l)
	dst = le.AppendUint32(dst, uint32(l))
	dst = le.AppendUint16(dst, uint16(h.Type))
	dst = le.AppendUint16(dst, uint16(h.Flags))
	dst = le.AppendUint32(dst, h.Sequence)
	dst = le.AppendUint32(dst, h.PID)
	dst = append(dst, data...)
	for i := len(data); i < align4(len(data)); i++ {
		dst = append(dst, 0)
	}
	return dst
}

// appendAttr appends a netlink attribute, padded.
func appendAttr(dst []byte, typ uint16, p []byte) []byte {
	dst = le.AppendUint16(dst, uint16(nlaHdrLen+len(p)))
	dst = le.AppendUint16(dst, typ)
	dst = append(dst, p...)
	for i := len(p); i < align4(len(p)); i++ {
		dst = append(dst, 0)
	}
	return dst
}

// kernelErrno returns the negative Linux errno an NLMSG_ERROR or
// NLMSG_DONE carries for err. An error that carries no errno, which no
// handler returns, is EINVAL.
func kernelErrno(err error) int32 {
	en := errno.Of(err)
	if en == 0 {
		en = syscall.EINVAL
	}
	return -linuxErrno(en)
}

// extackMsg returns the extack message the kernel attaches to err, or "".
func extackMsg(err error) string {
	var e *errno.Error
	if errors.As(err, &e) && rtnl.HasExtack(e.Errno, e.Msg) {
		return e.Msg
	}
	return ""
}

// ack queues the NLMSG_ERROR answering request m (rem bytes were left in
// its datagram from m on): error 0 or the negative errno; the request
// echoed in full, or only its header when the answer is a success or the
// socket set CapAcknowledge (NLM_F_CAPPED); and with ExtendedAcknowledge
// the extack message (NLMSGERR_ATTR_MSG) and, for an error against an
// attribute, its offset (NLMSGERR_ATTR_OFFS) and the policy entry it
// failed (NLMSGERR_ATTR_POLICY), flagged NLM_F_ACK_TLVS. A success ack
// carries only the warning warn, if any, as its NLMSGERR_ATTR_MSG.
//
// Kernel: netlink_ack, netlink_ack_tlv_len, netlink_ack_tlv_fill.
func (s *Socket) ack(m []byte, rem int, err error, warn string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var code int32
	if err != nil {
		code = kernelErrno(err)
	}
	var flags uint16
	capped := err == nil || s.opts.capAck
	if capped {
		flags |= uapi.NLM_F_CAPPED
	}
	var tlv []byte
	if s.opts.extAck && err == nil && warn != "" {
		tlv = appendAttr(tlv, uapi.NLMSGERR_ATTR_MSG, append([]byte(warn), 0))
	}
	if s.opts.extAck && err != nil {
		tlv = appendErrTLVs(nil, err, rem)
	}
	if len(tlv) > 0 {
		flags |= uapi.NLM_F_ACK_TLVS
	}
	echo := m[:nlmsgHdrLen]
	if !capped {
		echo = m
	}
	// One allocation: the header, the error code, the echo (padded) and
	// the TLVs.
	l := nlmsgHdrLen + 4 + align4(len(echo)) + len(tlv)
	b := make([]byte, 0, l)
	b = le.AppendUint32(b, uint32(l))
	b = le.AppendUint16(b, uapi.NLMSG_ERROR)
	b = le.AppendUint16(b, flags)
	b = le.AppendUint32(b, le.Uint32(m[8:]))
	b = le.AppendUint32(b, s.pid)
	b = le.AppendUint32(b, uint32(code))
	b = append(b, echo...)
	b = b[:len(b)+align4(len(echo))-len(echo)]
	b = append(b, tlv...)
	s.enqueueLocked(b, len(b))
}

// appendErrTLVs appends the extended ack TLVs of err: its extack message
// (NLMSGERR_ATTR_MSG) and, for an error against an attribute that lies
// within the first lim bytes of the request, its offset
// (NLMSGERR_ATTR_OFFS) and the policy entry it failed
// (NLMSGERR_ATTR_POLICY).
//
// Kernel: netlink_ack_tlv_fill (net/netlink/af_netlink.c).
func appendErrTLVs(dst []byte, err error, lim int) []byte {
	if msg := extackMsg(err); msg != "" {
		dst = appendAttr(dst, uapi.NLMSGERR_ATTR_MSG, append([]byte(msg), 0))
	}
	if off := errOffset(err); off >= 0 && off < lim {
		dst = appendAttr(dst, uapi.NLMSGERR_ATTR_OFFS, le.AppendUint32(nil, uint32(off)))
	}
	if pt := errPolicy(err); pt != nil {
		dst = appendPolicyAttr(dst, uapi.NLMSGERR_ATTR_POLICY, *pt)
	}
	return dst
}

// splitDone reports whether the dumpit key sends its NLMSG_DONE in a
// datagram of its own, which old applications that read DONE apart
// depend on: the dumps registered with RTNL_FLAG_DUMP_SPLIT_NLM_DONE in
// Linux 6.18 (see splitFlag), and rtnl_dump_all, whose return (the part's
// length, else the last dumpit's) leaves NLMSG_DONE to a part of its own.
func splitDone(k handlerKey) bool {
	switch k.typ {
	case rt.RTMGetLink:
		return k.family == uapi.AF_UNSPEC
	case rt.RTMGetAddr:
		return k.family == uapi.AF_UNSPEC || k.family == uapi.AF_INET
	case rt.RTMGetRoute:
		return k.family == uapi.AF_UNSPEC || k.family == uapi.AF_INET || k.family == uapi.AF_INET6
	}
	return false
}

// splitFlag reports whether the dumpit key is registered with
// RTNL_FLAG_DUMP_SPLIT_NLM_DONE in Linux 6.18 (rtnl_dump_ifinfo,
// inet_dump_ifaddr, inet_dump_fib, inet6_dump_fib): its rtnl_dumpit
// returns the part's length for the dumpit's EMSGSIZE, so a message that
// fits in no part ends the dump with NLMSG_DONE 0. rtnl_dump_all, the
// AF_UNSPEC dump of addresses and routes, is registered without it: the
// same EMSGSIZE ends it with -EMSGSIZE in NLMSG_DONE.
//
// Kernel: rtnl_dumpit, rtnetlink_dump_start (net/core/rtnetlink.c).
func splitFlag(k handlerKey) bool {
	return splitDone(k) && !(k.family == uapi.AF_UNSPEC && (k.typ == rt.RTMGetAddr || k.typ == rt.RTMGetRoute))
}

// deliver sends notification n to the namespace's sockets: to each that
// joined the notifier's group, and when the request that caused it asked
// for an echo, to the requesting socket alone, after the others (which is
// then left out of the multicast). A notification whose message could not
// be built reaches nobody: the group's members get its error instead.
//
// Kernel: rtnl_notify → nlmsg_notify (net/netlink/af_netlink.c).
func (ns *netSockets) deliver(n rtnl.Notification) {
	fn := notifiers[n.Type]
	if fn == nil {
		return
	}
	body, group, err := fn(n)
	if err != nil {
		ns.setErr(group, err)
		return
	}
	if body == nil {
		return
	}
	b := appendMsg(nil, netlink.Header{Type: netlink.HeaderType(n.Type), Flags: netlink.HeaderFlags(n.Flags),
		Sequence: n.Origin.Seq, PID: n.Origin.PortID}, body)
	ns.mu.Lock()
	socks := ns.socks
	ns.mu.Unlock()
	var origin *Socket
	for _, s := range socks {
		if n.Origin.Echo && s.pid == n.Origin.PortID {
			origin = s
			continue
		}
		s.mu.Lock()
		if s.joinedLocked(group) {
			s.enqueueLocked(b, len(b))
		}
		s.mu.Unlock()
	}
	if origin != nil {
		origin.mu.Lock()
		origin.enqueueLocked(b, len(b))
		origin.mu.Unlock()
	}
}

// setErr reports err to every socket in group, which its next Receive
// returns (ENOBUFS not to a socket that set NoENOBUFS): what a
// notification's sender does when its message cannot be built
// (rtmsg_fib, inet6_rt_notify and nexthop_notify on a failed fill).
//
// Kernel: rtnl_set_sk_err → netlink_set_err, do_one_set_err
// (net/netlink/af_netlink.c).
func (ns *netSockets) setErr(group uint32, err error) {
	en := errno.Of(err)
	if en == 0 {
		en = syscall.EINVAL
	}
	ns.mu.Lock()
	socks := ns.socks
	ns.mu.Unlock()
	for _, s := range socks {
		s.mu.Lock()
		if s.joinedLocked(group) && !(en == syscall.ENOBUFS && s.opts.noENOBUFS) {
			s.sockErr = en
			s.wakeLocked()
		}
		s.mu.Unlock()
	}
}
