package nlwire

import (
	"bytes"
	"encoding/binary"
	"errors"
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
)

// attrLen is nla_attr_len: the exact length of the fixed-size types, which
// strict validation insists on.
var attrLen = [...]int{nlaU8: 1, nlaU16: 2, nlaU32: 4, nlaU64: 8, nlaS32: 4, nlaReject: 0}

// attrPolicy is one entry of a struct nla_policy array.
type attrPolicy struct {
	typ attrType
	len int // NLA_STRING / NLA_BINARY: the maximum; NLA_UNSPEC and others: the minimum
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

// attrs is the result of a parse: tb[type] is the payload of the last
// attribute of that type (nil if absent), off[type] its offset from the
// start of the message, for NLMSGERR_ATTR_OFFS.
type attrs struct {
	tb  [][]byte
	off []int
}

// has reports whether attribute t was present.
func (a attrs) has(t uint16) bool { return int(t) < len(a.tb) && a.tb[t] != nil }

// get returns attribute t's payload, or nil.
func (a attrs) get(t uint16) []byte {
	if int(t) < len(a.tb) {
		return a.tb[t]
	}
	return nil
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
type attrError struct {
	err *errno.Error
	off int
}

func (e *attrError) Error() string { return e.err.Error() }
func (e *attrError) Unwrap() error { return e.err }

// badAttr returns err reported against the attribute at offset off.
func badAttr(err *errno.Error, off int) error { return &attrError{err, off} }

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
	maxType := len(pol.attrs) - 1
	a := attrs{tb: make([][]byte, maxType+1), off: make([]int, maxType+1)}
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
			a.tb[typ] = payload
			a.off[typ] = off
		}
		adv := (nlaLen + 3) &^ 3
		if adv > rem {
			adv = rem
		}
		pos += adv
		rem -= adv
	}
	if rem > 0 && v&validateTrailing != 0 {
		return a, errno.New(syscall.EINVAL, "bytes leftover after parsing attributes")
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
	fail := func() error {
		return badAttr(errno.New(syscall.ERANGE, "Attribute failed policy validation"), off)
	}
	if int(pt.typ) < len(attrLen) && attrLen[pt.typ] != 0 && n != attrLen[pt.typ] && v&validateStrictAttrs != 0 {
		return badAttr(errno.New(syscall.EINVAL, "invalid attribute length"), off)
	}
	if v&validateNested != 0 {
		nested := raw&nlaFNested != 0
		if pt.typ == nlaNested && !nested {
			return badAttr(errno.New(syscall.EINVAL, "NLA_F_NESTED is missing"), off)
		}
		if pt.typ != nlaNested && pt.typ != nlaUnspec && nested {
			return badAttr(errno.New(syscall.EINVAL, "NLA_F_NESTED not expected"), off)
		}
	}
	switch pt.typ {
	case nlaReject:
		return badAttr(errno.New(syscall.EINVAL, "Attribute failed policy validation"), off)
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
			return badAttr(errno.New(syscall.EINVAL, "Attribute failed policy validation"), off)
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
	return nil
}
