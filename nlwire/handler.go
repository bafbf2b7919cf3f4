package nlwire

import (
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// A request is one rtnetlink request message being served by a socket.
type request struct {
	h      *rtnl.Handle   // the socket's handle: its namespace and task
	hdr    netlink.Header // as sent (Length checked); a doit may rewrite Flags as the kernel's handler does, and the ack echoes them
	body   []byte         // the payload after the header
	strict bool           // the socket enabled NETLINK_GET_STRICT_CHK
	origin rtnl.Origin    // the requester's port id, sequence and flags, for the request's notifications

	// scratch is the socket's spans for the request's top-level
	// attributes (request.parseAttrs).
	scratch []span

	// answerFlags is a dump's cb->answer_flags: NLM_F_DUMP_FILTERED when
	// the dumpit applied the request's filters. The socket sets it on the
	// NLMSG_DONE (and a dumpit may set it on its messages too).
	answerFlags netlink.HeaderFlags
}

// parseAttrs parses the request's top-level attributes, as parseAttrs
// does, into the socket's scratch spans: the result lives until the
// socket serves its next request, which a handler never outlasts.
func (r *request) parseAttrs(b []byte, base int, pol policy, v validation) (attrs, error) {
	a, err := parseAttrsBuf(r.scratch, b, base, pol, v)
	if len(a.sp) <= cap(r.scratch) {
		r.scratch = nil // taken: a second parse of this request allocates
	}
	return a, err
}

// family is the request's rtgen_family, the first byte of every
// rtnetlink payload, which picks the handler.
func (r *request) family() uint8 {
	if len(r.body) == 0 {
		return 0
	}
	return r.body[0]
}

// A handler serves one message type of one family: a doit and a dumpit of
// rtnl_register. do serves a request without NLM_F_DUMP and returns the
// messages it unicasts back before the ack (a GET's answer; nil for a
// change), or an error: an *errno.Error, or an *attrError that also names
// the offending attribute. Each returned message needs only its
// Header.Type (and Header.Flags beyond NLM_F_MULTI) and Data: the socket
// sets the sequence number and port id. dump serves a GET with
// NLM_F_DUMP: it checks the request and returns the dump's cursor, which
// the socket asks for one datagram at a time as the reader drains them
// (see dumper), ending the dump with NLMSG_DONE; or the error that
// NLMSG_DONE reports.
type handler struct {
	do   serveFunc
	dump dumpFunc
}

// handlerKey is rtnetlink's table index: the family (PF_UNSPEC for the
// handlers of every family) and the message type.
type handlerKey struct {
	family uint8
	typ    rt.MsgType
}

// handlers is the rtnl_register table of the message types netsim
// serves. Each message family's file fills its part in an init function.
var handlers = map[handlerKey]handler{}

// register adds h to the table; a second registration of one key panics,
// which only a programming error can cause.
func register(family uint8, t rt.MsgType, h handler) {
	k := handlerKey{family, t}
	if _, dup := handlers[k]; dup {
		panic("nlwire: handler registered twice")
	}
	handlers[k] = h
}

// A notifier builds the message of a notification of its type and names
// the RTNLGRP_* multicast group it is sent to; a nil body and error sends
// nothing. The socket sets the header from the notification (Type, Flags,
// and the origin's sequence number and port id). An error (a message that
// could not be built) is reported to the group's members instead, as
// rtnl_set_sk_err reports a failed fill.
type notifier func(n rtnl.Notification) (body []byte, group uint32, err error)

// notifiers maps each notification type to its builder, filled by the
// message families' files as handlers is.
var notifiers = map[rt.MsgType]notifier{}

func registerNotify(t rt.MsgType, fn notifier) {
	if _, dup := notifiers[t]; dup {
		panic("nlwire: notifier registered twice")
	}
	notifiers[t] = fn
}
