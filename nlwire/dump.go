// Dumps, built as the reader drains them: netlink_dump_start, netlink_dump
// and netlink_dump_done (net/netlink/af_netlink.c), rtnl_dumpit
// (net/core/rtnetlink.c), and nl_dump_check_consistent
// (include/net/netlink.h), Linux 6.18.
//
// A dump is never built whole. Its dumpit keeps a cursor (the kernel's
// cb->args and cb->ctx) and fills one datagram at a time from it: the
// first when the request is served, the next each time a read leaves the
// receive queue at most half full, as netlink_recvmsg calls netlink_dump.
// An unread dump therefore holds one datagram, however large the table,
// and the request that starts it costs one datagram's work.

package nlwire

import (
	"syscall"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
)

// A part is the datagram of a dump being filled: the skb netlink_dump
// allocates, room bytes of tailroom, into which a dumpit puts whole
// messages (see put).
type part struct {
	b    []byte
	room int
	seq  uint32 // the request's sequence number, which every message carries
	pid  uint32 // the requester's port id
	n    int    // messages put
	cb   *dumpState
}

// setGen records the generation counter the dumpit read (cb->seq).
func (p *part) setGen(gen uint32) { p.cb.gen = gen }

// checkConsistent records gen as the dumpit's generation counter and flags
// the part's first message NLM_F_DUMP_INTR when it differs from the one
// the last check recorded (0 records nothing to compare with).
//
// Kernel: nl_dump_check_consistent (include/net/netlink.h), on
// nlmsg_hdr(skb).
func (p *part) checkConsistent(gen uint32) {
	p.cb.gen = gen
	if p.n > 0 && p.cb.prevGen != 0 && gen != p.cb.prevGen {
		le.PutUint16(p.b[6:], le.Uint16(p.b[6:])|uapi.NLM_F_DUMP_INTR)
	}
	p.cb.prevGen = gen
}

// resetGen forgets the generations, as rtnl_dump_all does before it
// passes to the next family's dumpit (cb->seq and cb->prev_seq to 0).
func (p *part) resetGen() { p.cb.gen, p.cb.prevGen = 0, 0 }

// errPartFull is EMSGSIZE, the error with which a dumpit reports that the
// message it was putting does not fit in the part. With messages already
// in the part, the part goes out and the dumpit resumes with that message
// in the next; in an empty part the message can never fit, and the dump
// ends (see fillPart). An encoder that cannot express an object at all
// (an attribute over 64 KiB) returns EMSGSIZE too: the kernel's nla_put
// fails the same way however large the skb.
var errPartFull = errno.New(syscall.EMSGSIZE, "")

// left is the room left in the part: what a message put next may take,
// its nlmsghdr included.
func (p *part) left() int { return p.room - len(p.b) }

// put appends a message of type t, with flags besides NLM_F_MULTI, and
// payload data; it appends nothing and returns errPartFull when the
// message does not fit in what is left of the part.
//
// Kernel: nlmsg_put and the nla_put calls of a fill function, whose
// -EMSGSIZE (nlmsg_cancel) the dumpit returns.
func (p *part) put(t rt.MsgType, flags netlink.HeaderFlags, data []byte) error {
	if len(p.b)+nlmsgHdrLen+align4(len(data)) > p.room {
		return errPartFull
	}
	p.b = appendMsg(p.b, netlink.Header{Type: netlink.HeaderType(t), Flags: flags | uapi.NLM_F_MULTI,
		Sequence: p.seq, PID: p.pid}, data)
	p.n++
	return nil
}

// putEach is the callback an rtnl dump part calls for each object: it
// builds the object's message with msg, for the room left in p, and puts
// it as a message of type t with flags, until one fails; *err keeps the
// failure (EMSGSIZE when the part is full), which ends the part.
func putEach[T any](p *part, t rt.MsgType, flags netlink.HeaderFlags, msg func(x *T, room int) ([]byte, error), err *error) func(*T) bool {
	return func(x *T) bool {
		b, e := msg(x, p.left())
		if e == nil {
			e = p.put(t, flags, b)
		}
		*err = e
		return e == nil
	}
}

// A dumper is a dump in progress: what its dumpit made of the request and
// its cursor.
type dumper interface {
	// fill puts the dump's next messages into p, from the cursor on, and
	// moves the cursor past those it put. It reports done when nothing is
	// left after them, or an error: EMSGSIZE (errPartFull) when a message
	// did not fit in p, any other error to end the dump with it. It runs in
	// the socket's task, with no socket lock held.
	fill(p *part) (done bool, err error)
	// close releases what the cursor holds (cb->done). It runs in the
	// socket's task when the dump ends or the socket closes.
	close()
}

// dumpState is a dump in progress on a socket (cb_running).
type dumpState struct {
	d     dumper
	seq   uint32 // the request's sequence number
	split bool   // NLMSG_DONE goes in a datagram of its own (splitDone)
	// quietEnd: a message that fits in no part ends the dump with
	// NLMSG_DONE 0 (RTNL_FLAG_DUMP_SPLIT_NLM_DONE; see splitFlag).
	quietEnd    bool
	answerFlags netlink.HeaderFlags
	reqLen      int // the request's length, which bounds an error's offset

	finished bool  // the dumpit is done (dump_done_errno <= 0): NLMSG_DONE is next
	doneErr  error // the error NLMSG_DONE reports (dump_done_errno < 0)

	// The consistency check's cb->seq and cb->prev_seq (see
	// part.checkConsistent); NLMSG_DONE is checked too.
	gen, prevGen uint32
}

// startDump makes d, the dump request r started, the socket's dump in
// progress and fills its first datagram; err, when the dumpit refused
// the request, ends the dump with that error in NLMSG_DONE. It fails with
// ENOBUFS, which the request's ack reports, when the receive queue is
// full; the dump stays in progress then, as the kernel's does.
//
// Kernel: __netlink_dump_start, netlink_dump.
func (s *Socket) startDump(r *request, key handlerKey, d dumper, err error) error {
	ds := &dumpState{d: d, seq: r.hdr.Sequence, split: splitDone(key), quietEnd: splitFlag(key),
		answerFlags: r.answerFlags, reqLen: nlmsgHdrLen + len(r.body)}
	if err != nil {
		ds.d, ds.finished, ds.doneErr = nil, true, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ds.close()
		return nil
	}
	s.dump = ds
	s.mu.Unlock()
	if !s.dumpOnce(ds) {
		return errno.New(syscall.ENOBUFS, "")
	}
	return nil
}

// close releases the dumper's cursor, once.
func (ds *dumpState) close() {
	if ds.d != nil {
		ds.d.close()
		ds.d = nil
	}
}

// dumpOnce runs netlink_dump once for ds, the socket's dump in progress,
// with sendMu held (the socket's task is serving it): unless the receive
// queue is full, it fills the next datagram and queues it if the socket's
// filter lets it through. It reports false when the queue was full.
//
// Kernel: netlink_dump.
func (s *Socket) dumpOnce(ds *dumpState) bool {
	s.mu.Lock()
	if s.dump != ds || s.closed {
		s.mu.Unlock()
		return true
	}
	if s.rmem >= s.rcvbuf {
		s.mu.Unlock()
		return false
	}
	room := max(nlmsgGoodSize, s.maxRecvLen)
	extAck := s.opts.extAck
	s.mu.Unlock()

	b, end := s.fillPart(ds, room, extAck)

	s.mu.Lock()
	if s.dump == ds && !s.closed {
		if b, ok := s.filterLocked(b); ok {
			s.appendLocked(b, room)
		}
		if end {
			s.dump = nil
		}
	} else {
		end = true
	}
	s.mu.Unlock()
	if end {
		ds.close()
	}
	return true
}

// fillPart builds the dump's next datagram of room bytes: the dumpit's
// messages from its cursor and, once it is done and NLMSG_DONE fits,
// NLMSG_DONE. It reports end when NLMSG_DONE is in it.
//
// The dumpit's EMSGSIZE with messages in the part means the part is full:
// it goes out, and the dumpit resumes at the message that did not fit in
// the next. In an empty part, the largest the reader's reads allow, the
// message can never fit and the dump ends: with -EMSGSIZE in NLMSG_DONE
// (a nexthop dump, a dump of both families' routes), or, for a dumpit
// registered with RTNL_FLAG_DUMP_SPLIT_NLM_DONE (one family's routes),
// silently (rtnl_dumpit then returns the part's length, 0, which
// netlink_dump takes for the end). Messages the dumpit put before an
// error go out before the NLMSG_DONE that carries it.
//
// Kernel: netlink_dump, rtnl_dumpit, netlink_dump_done,
// nl_dump_check_consistent.
func (s *Socket) fillPart(ds *dumpState, room int, extAck bool) (b []byte, end bool) {
	p := part{room: room, seq: ds.seq, pid: s.pid, cb: ds}
	if !ds.finished {
		done, err := ds.d.fill(&p)
		full := isFull(err)
		switch {
		case full && p.n > 0:
			return p.b, false
		case full && ds.quietEnd:
			ds.finished = true
		case err != nil:
			ds.finished, ds.doneErr = true, err
		case done || p.n == 0:
			ds.finished = true
			if ds.split && p.n > 0 {
				// rtnl_dumpit returns the part's length: it goes out,
				// and NLMSG_DONE follows in a datagram of its own.
				return p.b, false
			}
		default:
			return p.b, false
		}
	}
	if room-len(p.b) < doneLen {
		return p.b, false
	}
	return s.appendDone(p.b, ds, extAck), true
}

// appendDone appends the dump's NLMSG_DONE: the error, if any, as a
// negative errno, with the error ack's TLVs on a socket that set
// ExtendedAcknowledge.
//
// Kernel: netlink_dump_done.
func (s *Socket) appendDone(b []byte, ds *dumpState, extAck bool) []byte {
	flags := uapi.NLM_F_MULTI | ds.answerFlags
	var code int32
	var tlv []byte
	if ds.doneErr != nil {
		code = kernelErrno(ds.doneErr)
		if extAck {
			tlv = appendErrTLVs(nil, ds.doneErr, ds.reqLen)
		}
		if len(tlv) > 0 {
			flags |= uapi.NLM_F_ACK_TLVS
		}
	}
	if ds.prevGen != 0 && ds.gen != ds.prevGen {
		flags |= uapi.NLM_F_DUMP_INTR
	}
	ds.prevGen = ds.gen
	return appendMsg(b, netlink.Header{Type: uapi.NLMSG_DONE, Flags: flags, Sequence: ds.seq, PID: s.pid},
		append(le.AppendUint32(nil, uint32(code)), tlv...))
}

// continueDump lets the socket's dump in progress fill its next datagram
// if the receive queue is at most half full, as netlink_recvmsg does
// after each read (a peek included). It is called with s.mu held and
// returns with it held, releasing it meanwhile: the dumpit runs in the
// socket's task (sendMu), which takes RTNL.
//
// Kernel: netlink_recvmsg.
//
// +checklocks:s.mu
func (s *Socket) continueDump() {
	if s.dump == nil || s.rmem > s.rcvbuf/2 {
		return
	}
	s.mu.Unlock()
	s.sendMu.Lock()
	s.mu.Lock()
	ds := s.dump
	ok := ds != nil && s.rmem <= s.rcvbuf/2
	s.mu.Unlock()
	if ok && !s.dumpOnce(ds) {
		s.mu.Lock()
		s.sockErr = syscall.ENOBUFS
		s.wakeLocked()
		s.mu.Unlock()
	}
	s.sendMu.Unlock()
	s.mu.Lock()
}

// isFull reports whether a dumpit's error is EMSGSIZE.
func isFull(err error) bool { return errno.Of(err) == syscall.EMSGSIZE }
