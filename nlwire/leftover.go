// Trailing bytes after a request's attributes: the extack warning
// __nla_validate_parse (lib/nlattr.c) sets without failing the request.

package nlwire

import (
	"encoding/binary"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/rt"
)

// msgLeftover is the extack message a doit's parse of its attributes sets,
// without failing, when bytes too few for an attribute (or an attribute
// whose length runs past the message) end the message.
//
// Kernel: __nla_validate_parse (lib/nlattr.c): NL_SET_ERR_MSG(extack,
// "bytes leftover after parsing attributes"), an error only with
// NL_VALIDATE_TRAILING.
const msgLeftover = "bytes leftover after parsing attributes"

// doitHeaderLen is the fixed header that the doit serving t parses its
// attributes after (nlmsg_parse's hdrlen), or 0 for a type it does not
// know.
func doitHeaderLen(t rt.MsgType) int {
	switch t {
	case rt.RTMNewLink, rt.RTMDelLink, rt.RTMGetLink, rt.RTMSetLink:
		return ifinfomsgLen
	case rt.RTMNewAddr, rt.RTMDelAddr, rt.RTMGetAddr:
		return ifaddrmsgLen
	case rt.RTMNewRoute, rt.RTMDelRoute, rt.RTMGetRoute:
		return rtmsgLen
	case rt.RTMNewRule, rt.RTMDelRule, rt.RTMGetRule:
		return frhLen
	case rt.RTMNewNexthop, rt.RTMDelNexthop, rt.RTMGetNexthop:
		return nhmLen
	}
	return 0
}

// attrsLeftover reports whether the attributes after the first hdrlen
// bytes of body leave bytes that are no attribute: the stream
// nla_for_each_attr walks ends before the message does.
func attrsLeftover(body []byte, hdrlen int) bool {
	if len(body) < hdrlen {
		return false // nlmsg_parse fails first: "Invalid header length"
	}
	b := body[min(align4(hdrlen), len(body)):]
	for len(b) >= nlaHdrLen {
		l := int(binary.LittleEndian.Uint16(b))
		if l < nlaHdrLen || l > len(b) {
			break
		}
		b = b[min(align4(l), len(b)):]
	}
	return len(b) > 0
}

// withLeftoverMsg is a doit's error err for request r as the kernel
// reports it: a request whose attributes leave bytes over had its extack
// message set to msgLeftover by the parse, which stays unless the error
// sets one of its own.
func withLeftoverMsg(r *request, err error) error {
	if err == nil || extackMsg(err) != "" {
		return err
	}
	if !r.leftover() {
		return err
	}
	en := errno.Of(err)
	if en == 0 {
		return err
	}
	e := errno.New(en, msgLeftover)
	if off := errOffset(err); off >= 0 {
		return badAttr(e, off)
	}
	return e
}

// leftoverWarning is the extack message a doit that succeeded for request
// r leaves set, which its ack carries as a warning: msgLeftover when the
// attributes left bytes over, else "".
//
// Kernel: netlink_ack (a success ack carries extack->_msg).
func leftoverWarning(r *request) string {
	if r.leftover() {
		return msgLeftover
	}
	return ""
}

// leftover reports whether request r is of a type whose doit parses
// attributes and those attributes leave bytes over.
func (r *request) leftover() bool {
	hl := doitHeaderLen(rt.MsgType(r.hdr.Type))
	return hl != 0 && attrsLeftover(r.body, hl)
}
