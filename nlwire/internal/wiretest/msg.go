// Package wiretest drives rtnetlink request sequences through netlink
// sockets and renders what comes back in a canonical text form, so that
// the answers of the real kernel (a NETLINK_ROUTE socket in a private
// network namespace) and of nlwire (a socket served by a simulated
// namespace) can be compared line by line, and the kernel's kept in
// testdata for runs without root.
//
// A sequence (Seq) is a list of steps written as Go values: requests built
// with the constructors of this file (Link, Addr, Route, Rule, Nexthop and
// their attributes), socket options, sysctls, and calls of the simulated
// kernel's API that the real side makes with the same request through a
// socket of its own. Run plays a sequence on a Side and returns its
// transcript: each request, then every message the requesting socket and
// a listening socket joined to the sequence's groups receive, one line
// each (Canon).
package wiretest

import (
	"encoding/binary"
	"net/netip"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
)

// An Attr is one netlink attribute of a request: its type (with the
// NLA_F_NESTED bit where wanted) and payload, sent as it is, so that a
// sequence can send an attribute of the wrong size.
type Attr struct {
	Type uint16
	Data []byte
}

// U8, U16, U32 and U64 return an attribute holding v in host (little
// endian) order, as the kernel reads nla_get_u*.
func U8(t uint16, v uint8) Attr { return Attr{t, []byte{v}} }

func U16(t uint16, v uint16) Attr { return Attr{t, binary.LittleEndian.AppendUint16(nil, v)} }

func U32(t uint16, v uint32) Attr { return Attr{t, binary.LittleEndian.AppendUint32(nil, v)} }

func U64(t uint16, v uint64) Attr { return Attr{t, binary.LittleEndian.AppendUint64(nil, v)} }

// Str returns a NUL-terminated string attribute, as iproute2 sends names.
func Str(t uint16, s string) Attr { return Attr{t, append([]byte(s), 0)} }

// Flag returns an empty attribute (NLA_FLAG).
func Flag(t uint16) Attr { return Attr{t, nil} }

// IP returns an address attribute: 4 bytes for IPv4, 16 for IPv6.
func IP(t uint16, a string) Attr { return Attr{t, netip.MustParseAddr(a).AsSlice()} }

// MAC returns a hardware address attribute from its colon form.
func MAC(t uint16, s string) Attr {
	var b []byte
	for i := 0; i+1 < len(s); i += 3 {
		b = append(b, unhex(s[i])<<4|unhex(s[i+1]))
	}
	return Attr{t, b}
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

// Nest returns a nested attribute (with NLA_F_NESTED, as iproute2 and the
// Go clients set it) holding attrs.
func Nest(t uint16, attrs ...Attr) Attr {
	return Attr{t | 0x8000, encodeAttrs(attrs)}
}

// Raw returns an attribute whose payload is body, a family header followed
// by attributes: veth's VETH_INFO_PEER carries an ifinfomsg and the
// peer's attributes.
func Raw(t uint16, hdr []byte, attrs ...Attr) Attr {
	return Attr{t, append(append([]byte{}, hdr...), encodeAttrs(attrs)...)}
}

func encodeAttrs(attrs []Attr) []byte {
	var b []byte
	for _, a := range attrs {
		n := 4 + len(a.Data)
		b = binary.LittleEndian.AppendUint16(b, uint16(n))
		b = binary.LittleEndian.AppendUint16(b, a.Type)
		b = append(b, a.Data...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
	}
	return b
}

// IfInfo is struct ifinfomsg.
type IfInfo struct {
	Family uint8
	Type   uint16
	Index  int32
	Flags  uint32
	Change uint32
}

// Bytes returns the 16-byte header.
func (h IfInfo) Bytes() []byte {
	b := []byte{h.Family, 0}
	b = binary.LittleEndian.AppendUint16(b, h.Type)
	b = binary.LittleEndian.AppendUint32(b, uint32(h.Index))
	b = binary.LittleEndian.AppendUint32(b, h.Flags)
	return binary.LittleEndian.AppendUint32(b, h.Change)
}

// IfAddr is struct ifaddrmsg.
type IfAddr struct {
	Family    uint8
	Prefixlen uint8
	Flags     uint8
	Scope     uint8
	Index     uint32
}

// Bytes returns the 8-byte header.
func (h IfAddr) Bytes() []byte {
	return binary.LittleEndian.AppendUint32([]byte{h.Family, h.Prefixlen, h.Flags, h.Scope}, h.Index)
}

// RtMsg is struct rtmsg.
type RtMsg struct {
	Family, DstLen, SrcLen, Tos, Table, Protocol, Scope, Type uint8
	Flags                                                     uint32
}

// Bytes returns the 12-byte header.
func (h RtMsg) Bytes() []byte {
	b := []byte{h.Family, h.DstLen, h.SrcLen, h.Tos, h.Table, h.Protocol, h.Scope, h.Type}
	return binary.LittleEndian.AppendUint32(b, h.Flags)
}

// RuleMsg is struct fib_rule_hdr.
type RuleMsg struct {
	Family, DstLen, SrcLen, Tos, Table, Res1, Res2, Action uint8
	Flags                                                  uint32
}

// Bytes returns the 12-byte header: fib_rule_hdr is laid out as struct
// rtmsg, byte for byte.
func (h RuleMsg) Bytes() []byte {
	return RtMsg{h.Family, h.DstLen, h.SrcLen, h.Tos, h.Table, h.Res1, h.Res2, h.Action, h.Flags}.Bytes()
}

// NhMsg is struct nhmsg.
type NhMsg struct {
	Family, Scope, Protocol, Resvd uint8
	Flags                          uint32
}

// Bytes returns the 8-byte header.
func (h NhMsg) Bytes() []byte {
	return binary.LittleEndian.AppendUint32([]byte{h.Family, h.Scope, h.Protocol, h.Resvd}, h.Flags)
}

// Msg returns a request of type typ with flags (NLM_F_REQUEST is not
// added: a sequence may leave it out) and the payload hdr followed by
// attrs.
func Msg(typ, flags uint16, hdr []byte, attrs ...Attr) netlink.Message {
	return netlink.Message{
		Header: netlink.Header{Type: netlink.HeaderType(typ), Flags: netlink.HeaderFlags(flags)},
		Data:   append(append([]byte{}, hdr...), encodeAttrs(attrs)...),
	}
}

// Flag sets of the common requests.
const (
	Req    = uapi.NLM_F_REQUEST
	Ack    = uapi.NLM_F_REQUEST | uapi.NLM_F_ACK
	Dump   = uapi.NLM_F_REQUEST | uapi.NLM_F_DUMP
	Create = uapi.NLM_F_REQUEST | uapi.NLM_F_ACK | uapi.NLM_F_CREATE | uapi.NLM_F_EXCL
)

// Path is one struct rtnexthop of an RTA_MULTIPATH, with its
// attributes (RTA_GATEWAY).
type Path struct {
	Flags   uint8
	Hops    uint8
	Ifindex int32
	Attrs   []Attr
}

// Multipath returns an RTA_MULTIPATH attribute of hops.
func Multipath(hops ...Path) Attr {
	var b []byte
	for _, h := range hops {
		body := encodeAttrs(h.Attrs)
		b = binary.LittleEndian.AppendUint16(b, uint16(8+len(body)))
		b = append(b, h.Flags, h.Hops)
		b = binary.LittleEndian.AppendUint32(b, uint32(h.Ifindex))
		b = append(b, body...)
	}
	return Attr{uapi.RTA_MULTIPATH, b}
}

// GroupEntry is one struct nexthop_grp of an NHA_GROUP.
type GroupEntry struct {
	ID     uint32
	Weight uint8 // weight - 1, as the structure holds it
}

// Group returns an NHA_GROUP attribute of entries.
func Group(entries ...GroupEntry) Attr {
	var b []byte
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint32(b, e.ID)
		b = append(b, e.Weight, 0, 0, 0)
	}
	return Attr{uapi.NHA_GROUP, b}
}
