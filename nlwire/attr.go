// Attribute parsing and validation as lib/nlattr.c does it: policies
// (struct nla_policy), nla_parse's strict and liberal modes, and the
// extack messages and offsets of a refused attribute.

package nlwire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"iter"
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
)

// attrType is the type of an attribute in a policy (enum nla_types of
// include/net/netlink.h), which decides the length checks it gets.
type attrType uint8

const (
	nlaUnspec    attrType = iota // NLA_UNSPEC: any length of at least len
	nlaU8                        // NLA_U8
	nlaU16                       // NLA_U16
	nlaU32                       // NLA_U32
	nlaU64                       // NLA_U64
	nlaString                    // NLA_STRING: at most len bytes, a trailing NUL not counted
	nlaFlag                      // NLA_FLAG: empty
	nlaNested                    // NLA_NESTED
	nlaNulString                 // NLA_NUL_STRING: NUL-terminated within len+1 bytes
	nlaBinary                    // NLA_BINARY: at most len bytes
	nlaS32                       // NLA_S32
	nlaReject                    // NLA_REJECT: refused wherever it appears
	nlaBE32                      // NLA_BE32: a u32 in network order, which a policy dump does not describe
)

// attrLen is nla_attr_len: the exact length of the fixed-size types, which
// strict validation insists on.
var attrLen = [...]int{nlaU8: 1, nlaU16: 2, nlaU32: 4, nlaU64: 8, nlaS32: 4, nlaReject: 0, nlaBE32: 4}

// attrPolicy is one entry of a struct nla_policy array.
type attrPolicy struct {
	typ attrType
	len int // NLA_STRING / NLA_BINARY: the maximum; NLA_UNSPEC and others: the minimum

	// check is the entry's validation_type, what validate_nla checks of
	// the value once its length passed: min and max bound an integer
	// (a binary's length), mask holds its valid bits.
	check    valueCheck
	min, max int64
	mask     uint64
}

// valueCheck is enum nla_validation (include/net/netlink.h), for the
// kinds netsim's policies use.
type valueCheck uint8

const (
	checkNone  valueCheck = iota // NLA_VALIDATE_NONE
	checkRange                   // NLA_VALIDATE_RANGE: NLA_POLICY_RANGE, NLA_POLICY_EXACT_LEN
	checkMin                     // NLA_VALIDATE_MIN: NLA_POLICY_MIN
	checkMax                     // NLA_VALIDATE_MAX: NLA_POLICY_MAX
	checkMask                    // NLA_VALIDATE_MASK: NLA_POLICY_MASK
)

// polRange, polMin, polMax, polMask and polExactLen are the policy
// entries of NLA_POLICY_RANGE, NLA_POLICY_MIN, NLA_POLICY_MAX,
// NLA_POLICY_MASK and NLA_POLICY_EXACT_LEN.
func polRange(t attrType, lo, hi int64) attrPolicy {
	return attrPolicy{typ: t, check: checkRange, min: lo, max: hi}
}

func polMin(t attrType, lo int64) attrPolicy { return attrPolicy{typ: t, check: checkMin, min: lo} }

func polMax(t attrType, hi int64) attrPolicy { return attrPolicy{typ: t, check: checkMax, max: hi} }

func polMask(t attrType, m uint64) attrPolicy { return attrPolicy{typ: t, check: checkMask, mask: m} }

func polExactLen(n int64) attrPolicy { return polRange(nlaBinary, n, n) }

// urange returns the bounds of an unsigned integer entry (of a binary's
// length): its type's whole range narrowed by its check.
//
// Kernel: nla_get_range_unsigned (lib/nlattr.c).
func (pt attrPolicy) urange() (lo, hi uint64) {
	switch pt.typ {
	case nlaU8:
		hi = 1<<8 - 1
	case nlaU16, nlaBinary:
		hi = 1<<16 - 1
	case nlaU32:
		hi = 1<<32 - 1
	default:
		hi = 1<<64 - 1
	}
	switch pt.check {
	case checkRange:
		lo, hi = uint64(pt.min), uint64(pt.max)
	case checkMin:
		lo = uint64(pt.min)
	case checkMax:
		hi = uint64(pt.max)
	}
	return lo, hi
}

// srange is urange for a signed entry (NLA_S32).
//
// Kernel: nla_get_range_signed (lib/nlattr.c).
func (pt attrPolicy) srange() (lo, hi int64) {
	lo, hi = -1<<31, 1<<31-1
	switch pt.check {
	case checkRange:
		lo, hi = pt.min, pt.max
	case checkMin:
		lo = pt.min
	case checkMax:
		hi = pt.max
	}
	return lo, hi
}

// leUint reads the first size bytes of p as a little-endian integer, the
// bytes beyond p's end as zeros.
func leUint(p []byte, size int) uint64 {
	var b [8]byte
	copy(b[:size], p)
	return binary.LittleEndian.Uint64(b[:])
}

// policy is an nla_policy array: index = attribute type; its length - 1
// is maxtype. strictStart is policy[0].strict_start_type: attributes of
// that type or above are validated strictly even by a liberal parse.
type policy struct {
	attrs       []attrPolicy
	strictStart uint16
}

// validation is the set of NL_VALIDATE_* flags of a parse.
type validation uint8

const (
	validateTrailing    validation = 1 << iota // NL_VALIDATE_TRAILING
	validateMaxType                            // NL_VALIDATE_MAXTYPE
	validateUnspec                             // NL_VALIDATE_UNSPEC
	validateStrictAttrs                        // NL_VALIDATE_STRICT_ATTRS
	validateNested                             // NL_VALIDATE_NESTED

	// validateLiberal is NL_VALIDATE_LIBERAL, what the *_deprecated
	// parsers of the old rtnetlink handlers use.
	validateLiberal validation = 0
	// validateStrict is NL_VALIDATE_STRICT, what nlmsg_parse and
	// nla_parse_nested use.
	validateStrict = validateTrailing | validateMaxType | validateUnspec | validateStrictAttrs | validateNested
)

const (
	nlaFNested       = 0x8000 // NLA_F_NESTED
	nlaFNetByteOrder = 0x4000 // NLA_F_NET_BYTEORDER
	nlaTypeMask      = ^uint16(nlaFNested | nlaFNetByteOrder)
	nlaHdrLen        = 4
)

// attrs is the result of a parse: for each attribute type of the policy,
// the span of raw (the parsed stream, which starts base bytes into the
// message) holding the payload of the last attribute of that type.
type attrs struct {
	sp   []span
	raw  []byte
	base int
}

// span locates a payload in raw: start is its index plus one (0 for an
// attribute that was absent), n its length.
type span struct{ start, n uint32 }

// spanBuf returns n cleared spans from the front of buf, or new ones
// when buf has too few.
func spanBuf(buf []span, n int) []span {
	if cap(buf) < n {
		return make([]span, n)
	}
	sp := buf[:n]
	clear(sp)
	return sp
}

// offset returns attribute t's offset from the start of the message, for
// NLMSGERR_ATTR_OFFS (its header's, as NL_SET_BAD_ATTR reports it).
func (a attrs) offset(t uint16) int {
	return a.base + int(a.sp[t].start) - 1 - nlaHdrLen
}

// has reports whether attribute t was present.
func (a attrs) has(t uint16) bool { return int(t) < len(a.sp) && a.sp[t].start != 0 }

// get returns attribute t's payload, or nil.
func (a attrs) get(t uint16) []byte {
	if !a.has(t) {
		return nil
	}
	s := a.sp[t]
	return a.raw[s.start-1 : s.start-1+s.n : s.start-1+s.n]
}

// present yields the attributes that were present, by type.
func (a attrs) present() iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		for t := range a.sp {
			if a.sp[t].start != 0 && !yield(t, a.get(uint16(t))) {
				return
			}
		}
	}
}

// only returns a copy of a with nothing but the attributes ts.
func (a attrs) only(ts ...uint16) attrs {
	b := attrs{sp: make([]span, len(a.sp)), raw: a.raw, base: a.base}
	for _, t := range ts {
		if int(t) < len(a.sp) {
			b.sp[t] = a.sp[t]
		}
	}
	return b
}

// u8, u16, u32 and u64 read a fixed-size attribute in host (little-endian)
// order, as the kernel's nla_get_u* do; a short payload reads as zero
// beyond its end (which only a liberal parse lets through).
func (a attrs) u8(t uint16) uint8 {
	if b := a.get(t); len(b) >= 1 {
		return b[0]
	}
	return 0
}

func (a attrs) u16(t uint16) uint16 {
	var b [2]byte
	copy(b[:], a.get(t))
	return binary.LittleEndian.Uint16(b[:])
}

func (a attrs) u32(t uint16) uint32 {
	var b [4]byte
	copy(b[:], a.get(t))
	return binary.LittleEndian.Uint32(b[:])
}

func (a attrs) u64(t uint16) uint64 {
	var b [8]byte
	copy(b[:], a.get(t))
	return binary.LittleEndian.Uint64(b[:])
}

// inAddr4 reads an IPv4 address attribute (nla_get_in_addr): its first four
// bytes, zeros beyond a short payload.
func inAddr4(b []byte) netip.Addr {
	var a [4]byte
	copy(a[:], b)
	return netip.AddrFrom4(a)
}

// inAddr6 reads an IPv6 address attribute (nla_get_in6_addr), likewise.
func inAddr6(b []byte) netip.Addr {
	var a [16]byte
	copy(a[:], b)
	return netip.AddrFrom16(a)
}

// str reads a string attribute as nla_strscpy does: the bytes up to the
// first NUL.
func (a attrs) str(t uint16) string {
	b := a.get(t)
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// attrError is an error the kernel reports against one attribute
// (NL_SET_ERR_MSG_ATTR): the errno and extack message, and the
// attribute's offset from the start of the request (NLMSGERR_ATTR_OFFS).
// pol is the policy entry the attribute failed, for the errors of
// validate_nla that name it (NL_SET_ERR_MSG_ATTR_POL), which the error
// ack describes in NLMSGERR_ATTR_POLICY; nil for the others.
type attrError struct {
	err *errno.Error
	off int
	pol *attrPolicy
}

func (e *attrError) Error() string { return e.err.Error() }
func (e *attrError) Unwrap() error { return e.err }

// badAttr returns err reported against the attribute at offset off.
func badAttr(err *errno.Error, off int) error { return &attrError{err: err, off: off} }

// badAttrPol returns err reported against the attribute at offset off
// and the policy entry pt it failed (NL_SET_ERR_MSG_ATTR_POL).
func badAttrPol(err *errno.Error, off int, pt attrPolicy) error {
	return &attrError{err, off, &pt}
}

// errInval is EINVAL without an extack message.
var errInval = errno.New(syscall.EINVAL, "")

// withMessage replaces the extack message of an error of errno e (one
// rtnl reports for a lookup the kernel's handler answers in its own
// words) by msg; any other error is returned as it is.
func withMessage(err error, e syscall.Errno, msg string) error {
	if errors.Is(err, e) {
		return errno.New(e, msg)
	}
	return err
}

// bareErrno drops the message of an error of errno e: the kernel answers
// such a failure without an extack.
func bareErrno(err error, e syscall.Errno) error { return withMessage(err, e, "") }

// withMsg returns err with the extack message msg instead of its own,
// keeping its errno and, for an attribute's error, the attribute and the
// policy entry: what NL_SET_ERR_MSG over an error of the parse does.
func withMsg(err error, msg string) error {
	en := errno.New(errno.Of(err), msg)
	var ae *attrError
	if errors.As(err, &ae) {
		return &attrError{en, ae.off, ae.pol}
	}
	return en
}

// errPolicy returns the policy entry err names, or nil.
func errPolicy(err error) *attrPolicy {
	var ae *attrError
	if errors.As(err, &ae) {
		return ae.pol
	}
	return nil
}

// errOffset returns the attribute offset err carries, or -1.
func errOffset(err error) int {
	var ae *attrError
	if errors.As(err, &ae) {
		return ae.off
	}
	return -1
}

// parseAttrs parses the attribute stream b, which starts base bytes into
// the message, against pol with validation v: __nla_validate_parse of
// lib/nlattr.c. The last attribute of a type wins; types above maxtype
// are skipped unless v rejects them.
func parseAttrs(b []byte, base int, pol policy, v validation) (attrs, error) {
	return parseAttrsBuf(nil, b, base, pol, v)
}

// parseAttrsBuf is parseAttrs keeping its result in buf when buf is large
// enough (see request.parseAttrs).
func parseAttrsBuf(buf []span, b []byte, base int, pol policy, v validation) (attrs, error) {
	maxType := len(pol.attrs) - 1
	a := attrs{sp: spanBuf(buf, maxType+1), raw: b, base: base}
	rem, pos := len(b), 0
	for rem >= nlaHdrLen {
		nlaLen := int(binary.LittleEndian.Uint16(b[pos:]))
		if nlaLen < nlaHdrLen || nlaLen > rem {
			break
		}
		raw := binary.LittleEndian.Uint16(b[pos+2:])
		typ := raw & nlaTypeMask
		payload := b[pos+nlaHdrLen : pos+nlaLen]
		off := base + pos
		if typ == 0 || int(typ) > maxType {
			if v&validateMaxType != 0 {
				return a, badAttr(errno.New(syscall.EINVAL, "Unknown attribute type"), off)
			}
		} else {
			if err := validateAttr(raw, payload, off, pol, v); err != nil {
				return a, err
			}
			a.sp[typ] = span{uint32(pos + nlaHdrLen + 1), uint32(len(payload))}
		}
		adv := (nlaLen + 3) &^ 3
		if adv > rem {
			adv = rem
		}
		pos += adv
		rem -= adv
	}
	if rem > 0 && v&validateTrailing != 0 {
		return a, errno.New(syscall.EINVAL, msgLeftover)
	}
	return a, nil
}

// validateAttr is validate_nla for the policy types netsim's handlers use.
func validateAttr(raw uint16, p []byte, off int, pol policy, v validation) error {
	typ := raw & nlaTypeMask
	if pol.strictStart != 0 && typ >= pol.strictStart {
		v |= validateStrict
	}
	pt := pol.attrs[typ]
	n := len(p)
	polErr := func(e syscall.Errno, msg string) error { return badAttrPol(errno.New(e, msg), off, pt) }
	fail := func() error { return polErr(syscall.ERANGE, "Attribute failed policy validation") }
	if int(pt.typ) < len(attrLen) && attrLen[pt.typ] != 0 && n != attrLen[pt.typ] && v&validateStrictAttrs != 0 {
		return polErr(syscall.EINVAL, "invalid attribute length")
	}
	if v&validateNested != 0 {
		nested := raw&nlaFNested != 0
		if pt.typ == nlaNested && !nested {
			return polErr(syscall.EINVAL, "NLA_F_NESTED is missing")
		}
		if pt.typ != nlaNested && pt.typ != nlaUnspec && nested {
			return polErr(syscall.EINVAL, "NLA_F_NESTED not expected")
		}
	}
	switch pt.typ {
	case nlaReject:
		return polErr(syscall.EINVAL, "Attribute failed policy validation")
	case nlaFlag:
		if n > 0 {
			return fail()
		}
	case nlaNulString:
		m := n
		if pt.len != 0 && pt.len+1 < m {
			m = pt.len + 1
		}
		if m == 0 || bytes.IndexByte(p[:m], 0) < 0 {
			return polErr(syscall.EINVAL, "Attribute failed policy validation")
		}
		fallthrough
	case nlaString:
		if n < 1 {
			return fail()
		}
		if pt.len != 0 {
			if p[n-1] == 0 {
				n--
			}
			if n > pt.len {
				return fail()
			}
		}
	case nlaBinary:
		if pt.len != 0 && n > pt.len {
			return fail()
		}
	case nlaNested:
		if n != 0 && n < nlaHdrLen {
			return fail()
		}
	case nlaUnspec:
		if v&validateUnspec != 0 {
			return badAttr(errno.New(syscall.EINVAL, "Unsupported attribute"), off)
		}
		if n < pt.len {
			return fail()
		}
	default:
		minLen := attrLen[pt.typ]
		if pt.len != 0 {
			minLen = pt.len
		}
		if n < minLen {
			return fail()
		}
	}
	return checkValue(p, off, pt)
}

// checkValue makes an entry's check of a value whose length passed: a
// range's (of a binary, its length's) or a mask's.
//
// Kernel: nla_validate_int_range, nla_validate_range_unsigned,
// nla_validate_int_range_signed, nla_validate_mask (lib/nlattr.c).
func checkValue(p []byte, off int, pt attrPolicy) error {
	if pt.check == checkNone {
		return nil
	}
	var v uint64
	if pt.typ == nlaBinary {
		v = uint64(len(p))
	} else {
		v = leUint(p, attrLen[pt.typ])
	}
	if pt.check == checkMask {
		if v&^pt.mask != 0 {
			return badAttr(errno.New(syscall.EINVAL, "reserved bit set"), off)
		}
		return nil
	}
	msg := "integer out of range"
	if pt.typ == nlaBinary {
		msg = "binary attribute size out of range"
	}
	if pt.typ == nlaS32 {
		lo, hi := pt.srange()
		if s := int64(int32(v)); s < lo || s > hi {
			return badAttrPol(errno.New(syscall.ERANGE, msg), off, pt)
		}
		return nil
	}
	if lo, hi := pt.urange(); v < lo || v > hi {
		return badAttrPol(errno.New(syscall.ERANGE, msg), off, pt)
	}
	return nil
}

// The attributes of a policy entry's description (enum
// netlink_policy_type_attr) and its types (enum netlink_attribute_type),
// include/uapi/linux/netlink.h.
const (
	nlPolicyTypeAttrType      = 1  // NL_POLICY_TYPE_ATTR_TYPE
	nlPolicyTypeAttrMinValueS = 2  // NL_POLICY_TYPE_ATTR_MIN_VALUE_S
	nlPolicyTypeAttrMaxValueS = 3  // NL_POLICY_TYPE_ATTR_MAX_VALUE_S
	nlPolicyTypeAttrMinValueU = 4  // NL_POLICY_TYPE_ATTR_MIN_VALUE_U
	nlPolicyTypeAttrMaxValueU = 5  // NL_POLICY_TYPE_ATTR_MAX_VALUE_U
	nlPolicyTypeAttrMinLength = 6  // NL_POLICY_TYPE_ATTR_MIN_LENGTH
	nlPolicyTypeAttrMaxLength = 7  // NL_POLICY_TYPE_ATTR_MAX_LENGTH
	nlPolicyTypeAttrMask      = 12 // NL_POLICY_TYPE_ATTR_MASK

	nlAttrTypeFlag      = 1  // NL_ATTR_TYPE_FLAG
	nlAttrTypeU8        = 2  // NL_ATTR_TYPE_U8
	nlAttrTypeU16       = 3  // NL_ATTR_TYPE_U16
	nlAttrTypeU32       = 4  // NL_ATTR_TYPE_U32
	nlAttrTypeU64       = 5  // NL_ATTR_TYPE_U64
	nlAttrTypeS32       = 8  // NL_ATTR_TYPE_S32
	nlAttrTypeBinary    = 10 // NL_ATTR_TYPE_BINARY
	nlAttrTypeString    = 11 // NL_ATTR_TYPE_STRING
	nlAttrTypeNulString = 12 // NL_ATTR_TYPE_NUL_STRING
	nlAttrTypeNested    = 13 // NL_ATTR_TYPE_NESTED
)

// nlAttrTypeOf is the enum netlink_attribute_type of each described
// policy type.
var nlAttrTypeOf = [...]uint32{nlaFlag: nlAttrTypeFlag, nlaU8: nlAttrTypeU8, nlaU16: nlAttrTypeU16,
	nlaU32: nlAttrTypeU32, nlaU64: nlAttrTypeU64, nlaS32: nlAttrTypeS32, nlaBinary: nlAttrTypeBinary,
	nlaString: nlAttrTypeString, nlaNulString: nlAttrTypeNulString, nlaNested: nlAttrTypeNested}

// appendPolicyAttr appends the nested attribute typ (NLA_F_NESTED set)
// describing policy entry pt as an error ack's NLMSGERR_ATTR_POLICY does:
// an unsigned integer's mask, or its range (its type's narrowed by the
// entry's check), a signed integer's range; a string's or binary's
// length bounds (a range's, or the maximum length of one with a len);
// then NL_POLICY_TYPE_ATTR_TYPE. An entry of NLA_UNSPEC, NLA_REJECT or
// NLA_BE32 is not described, and nothing is appended. The 64-bit values
// need no pad attribute on x86-64.
//
// Kernel: netlink_policy_dump_write_attr, __netlink_policy_dump_write_attr
// (net/netlink/policy.c).
func appendPolicyAttr(dst []byte, typ uint16, pt attrPolicy) []byte {
	if int(pt.typ) >= len(nlAttrTypeOf) || nlAttrTypeOf[pt.typ] == 0 {
		return dst // NLA_UNSPEC, NLA_REJECT, NLA_BE32
	}
	var p []byte
	u64 := func(at uint16, v uint64) { p = appendAttr(p, at, le.AppendUint64(nil, v)) }
	u32 := func(at uint16, v uint32) { p = appendAttr(p, at, le.AppendUint32(nil, v)) }
	switch pt.typ {
	case nlaU8, nlaU16, nlaU32, nlaU64:
		if pt.check == checkMask {
			u64(nlPolicyTypeAttrMask, pt.mask)
			break
		}
		lo, hi := pt.urange()
		u64(nlPolicyTypeAttrMinValueU, lo)
		u64(nlPolicyTypeAttrMaxValueU, hi)
	case nlaS32:
		lo, hi := pt.srange()
		u64(nlPolicyTypeAttrMinValueS, uint64(lo))
		u64(nlPolicyTypeAttrMaxValueS, uint64(hi))
	case nlaString, nlaNulString, nlaBinary:
		if pt.check == checkRange {
			lo, hi := pt.urange()
			if lo != 0 {
				u32(nlPolicyTypeAttrMinLength, uint32(lo))
			}
			if hi < 1<<16-1 {
				u32(nlPolicyTypeAttrMaxLength, uint32(hi))
			}
		} else if pt.len != 0 {
			u32(nlPolicyTypeAttrMaxLength, uint32(pt.len))
		}
	}
	u32(nlPolicyTypeAttrType, nlAttrTypeOf[pt.typ])
	return appendAttr(dst, typ|nlaFNested, p)
}
