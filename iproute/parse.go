// ip's argument reading and value parsers: NEXT_ARG, get_unsigned,
// get_prefix, get_addr and friends (lib/utils.c of iproute2 6.1), with
// ip's error messages.

package iproute

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"net/netip"
	"strconv"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/rt"

	"github.com/netsimlab/netsim/netdev"
)

// args walks a command's words.
type args struct {
	w []string
}

func (a *args) more() bool   { return len(a.w) > 0 }
func (a *args) peek() string { return a.w[0] }
func (a *args) skip()        { a.w = a.w[1:] }

// next moves to the keyword's value (iproute2's NEXT_ARG), or fails as
// incomplete_command does.
func (a *args) next() (string, error) {
	if len(a.w) < 2 {
		return "", incomplete()
	}
	a.w = a.w[1:]
	return a.w[0], nil
}

// optional is the positional argument of a command that may follow an
// optional keyword ("[to] PREFIX", "[local] ADDRESS"): the current word,
// or, when it is the keyword, the word after it.
func (a *args) optional(isKeyword func(w string) bool) (string, error) {
	if w := a.peek(); !isKeyword(w) {
		return w, nil
	}
	return a.next()
}

// nextValue moves to the keyword's value (next) and converts it with
// parse; a value parse refuses fails with ip's invarg(msg, value).
func nextValue[T any](a *args, parse func(string) (T, bool), msg string) (T, error) {
	v, err := a.next()
	if err != nil {
		var zero T
		return zero, err
	}
	x, ok := parse(v)
	if !ok {
		var zero T
		return zero, invarg(msg, v)
	}
	return x, nil
}

// uint16Value and uint32Value are getUnsigned of a width, for nextValue.
func uint16Value(s string) (uint64, bool) { return getUnsigned(s, 16) }
func uint32Value(s string) (uint64, bool) { return getUnsigned(s, 32) }

// Strerror returns glibc's strerror text for an errno, as perror prints it
// after "RTNETLINK answers: ".
func Strerror(e syscall.Errno) string {
	if s, ok := strerrors[e]; ok {
		return s
	}
	s := e.Error()
	if s == "" {
		return fmt.Sprintf("Unknown error %d", int(e))
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

var strerrors = map[syscall.Errno]string{
	syscall.EPERM:           "Operation not permitted",
	syscall.ENOENT:          "No such file or directory",
	syscall.ESRCH:           "No such process",
	syscall.EINTR:           "Interrupted system call",
	syscall.EIO:             "Input/output error",
	syscall.ENXIO:           "No such device or address",
	syscall.E2BIG:           "Argument list too long",
	syscall.EBADF:           "Bad file descriptor",
	syscall.EAGAIN:          "Resource temporarily unavailable",
	syscall.ENOMEM:          "Cannot allocate memory",
	syscall.EACCES:          "Permission denied",
	syscall.EBUSY:           "Device or resource busy",
	syscall.EEXIST:          "File exists",
	syscall.ENODEV:          "No such device",
	syscall.ENOTDIR:         "Not a directory",
	syscall.EINVAL:          "Invalid argument",
	syscall.ENFILE:          "Too many open files in system",
	syscall.EMFILE:          "Too many open files",
	syscall.ENOSPC:          "No space left on device",
	syscall.ERANGE:          "Numerical result out of range",
	syscall.EDEADLK:         "Resource deadlock avoided",
	syscall.ENAMETOOLONG:    "File name too long",
	syscall.ENOTEMPTY:       "Directory not empty",
	syscall.ELOOP:           "Too many levels of symbolic links",
	syscall.ENODATA:         "No data available",
	syscall.EPROTONOSUPPORT: "Protocol not supported",
	syscall.EOPNOTSUPP:      "Operation not supported",
	syscall.EAFNOSUPPORT:    "Address family not supported by protocol",
	syscall.EADDRINUSE:      "Address already in use",
	syscall.EADDRNOTAVAIL:   "Cannot assign requested address",
	syscall.ENETDOWN:        "Network is down",
	syscall.ENETUNREACH:     "Network is unreachable",
	syscall.ENOBUFS:         "No buffer space available",
	syscall.EHOSTUNREACH:    "No route to host",
	syscall.EMSGSIZE:        "Message too long",
	syscall.EOVERFLOW:       "Value too large for defined data type",
}

// familyName is iproute2's family_name as get_prefix's error prints it.
func familyName(f rt.Family) string {
	switch f {
	case rt.FamilyInet:
		return "inet"
	case rt.FamilyInet6:
		return "inet6"
	}
	return "any valid"
}

// parseAddr is iproute2's get_addr_1 for the families netsim knows: an
// IPv4 address as get_addr_ipv4 reads it or an IPv6 address. Family 0
// accepts both.
func parseAddr(s string, family rt.Family) (netip.Addr, bool) {
	if strings.IndexByte(s, ':') >= 0 {
		if family == rt.FamilyInet {
			return netip.Addr{}, false
		}
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return netip.Addr{}, false
		}
		return a, true
	}
	if family == rt.FamilyInet6 {
		return netip.Addr{}, false
	}
	return getAddrIPv4(s)
}

// getAddrIPv4 is iproute2's get_addr_ipv4: up to four parts separated by
// '.', each read by strtoul with base 0 (so "010" is 8 and "0xa" is 10)
// and at most 255; missing parts are 0, so "10.1" is 10.1.0.0, not the
// 10.0.0.1 inet_aton makes of it.
func getAddrIPv4(s string) (netip.Addr, bool) {
	var b [4]byte
	for i := 0; i < 4; i++ {
		n, end, _ := strtoul(s, 0)
		if n > 255 || end == 0 {
			return netip.Addr{}, false
		}
		b[i] = byte(n)
		if end == len(s) {
			return netip.AddrFrom4(b), true
		}
		if i == 3 || s[end] != '.' {
			return netip.Addr{}, false
		}
		s = s[end+1:]
	}
	return netip.Addr{}, false
}

// strtoul is C's strtoul on s: leading white space, an optional sign (a
// '-' negates modulo 2^64), then digits in base (0: "0x" hex, "0" octal,
// else decimal). It returns the value, the length of s it read (0 when
// there were no digits) and whether the value overflowed (then the value is
// ULONG_MAX, as strtoul sets ERANGE).
func strtoul(s string, base int) (v uint64, end int, overflow bool) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if (base == 0 || base == 16) && i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && i+2 < len(s) && digitValue(s[i+2]) < 16 {
		i, base = i+2, 16
	} else if base == 0 && i < len(s) && s[i] == '0' {
		base = 8
	} else if base == 0 {
		base = 10
	}
	start := i
	for ; i < len(s); i++ {
		d := digitValue(s[i])
		if d >= base {
			break
		}
		if v > (1<<64-1-uint64(d))/uint64(base) {
			overflow = true
		}
		v = v*uint64(base) + uint64(d)
	}
	if i == start {
		return 0, 0, false
	}
	if overflow {
		return 1<<64 - 1, i, true
	}
	if neg {
		v = -v
	}
	return v, i, false
}

// digitValue is a character's value as a digit of any base up to 36, or 36.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 36
}

// getAddr is iproute2's get_addr: an address or exit with
// `Error: FAMILY address is expected rather than "ARG".`
func getAddr(s string, family rt.Family) (netip.Addr, error) {
	a, ok := parseAddr(s, family)
	if !ok {
		return a, &argError{msg: fmt.Sprintf("Error: %s address is expected rather than \"%s\".\n", familyName(family), s), status: exitFailure}
	}
	return a, nil
}

// parsePrefix is iproute2's get_prefix_1: ADDR[/LEN] or "default"/"any"/
// "all", host bits kept. It reports whether s had an explicit length.
func parsePrefix(s string, family rt.Family) (netip.Prefix, bool) {
	if s == "default" || s == "any" || s == "all" {
		if family == rt.FamilyInet6 {
			return netip.PrefixFrom(netip.IPv6Unspecified(), 0), true
		}
		return netip.PrefixFrom(netip.IPv4Unspecified(), 0), true
	}
	addr, plen, slash := strings.Cut(s, "/")
	a, ok := parseAddr(addr, family)
	if !ok {
		return netip.Prefix{}, false
	}
	bits := a.BitLen()
	if slash {
		n, ok := getNetmask(plen)
		if !ok || n > a.BitLen() {
			return netip.Prefix{}, false
		}
		bits = n
	}
	return netip.PrefixFrom(a, bits), true
}

// getNetmask is iproute2's get_netmask: a prefix length as get_unsigned
// reads it, or else an IPv4 dotted mask (get_addr_1, so "255.255" and even
// "any" are masks) whose ones are contiguous (mask2bits). A dotted mask is
// a length for IPv6 prefixes too: 2001:db8::1/255.255.255.0 is /24.
func getNetmask(s string) (int, bool) {
	if n, end, overflow := strtoul(s, 0); end > 0 && end == len(s) && !overflow && n <= 1<<32-1 {
		return int(n), true
	}
	var m uint32
	switch s {
	case "default", "any", "all":
		// get_addr_1 makes these the zero address, a /0 mask.
	default:
		a, ok := getAddrIPv4(s)
		if !ok {
			return 0, false
		}
		m = binary.BigEndian.Uint32(a.AsSlice())
	}
	if host := ^m; host&(host+1) != 0 {
		return 0, false
	}
	return bits.OnesCount32(m), true
}

// getPrefix is iproute2's get_prefix: a prefix or exit with
// `Error: FAMILY prefix is expected rather than "ARG".`
func getPrefix(s string, family rt.Family) (netip.Prefix, error) {
	p, ok := parsePrefix(s, family)
	if !ok {
		return p, &argError{msg: fmt.Sprintf("Error: %s prefix is expected rather than \"%s\".\n", familyName(family), s), status: exitFailure}
	}
	return p, nil
}

// getUnsigned is iproute2's get_unsigned/get_u32: decimal, 0x hex or 0
// octal, as strtoul with base 0 reads it.
func getUnsigned(s string, bits int) (uint64, bool) { return rt.ParseUnsigned(s, bits) }

// getInteger is iproute2's get_integer: an int as strtol with base 0 reads
// it (leading blanks, a sign, 0x hex or 0 octal), the whole word, within
// INT_MIN..INT_MAX.
func getInteger(s string) (int, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	v, ok := getUnsigned(s, 64)
	if !ok || v > 1<<31 || (!neg && v > 1<<31-1) {
		return 0, false
	}
	if neg {
		return -int(v), true
	}
	return int(v), true
}

// parseMAC is iproute2's ll_addr_a2n for Ethernet: six hex bytes with ':'.
func parseMAC(s string) (netdev.MAC, bool) {
	var m netdev.MAC
	parts := strings.Split(s, ":")
	if len(parts) != len(m) {
		return m, false
	}
	for i, p := range parts {
		if p == "" || len(p) > 2 {
			return m, false
		}
		v, err := strconv.ParseUint(p, 16, 8)
		if err != nil {
			return m, false
		}
		m[i] = byte(v)
	}
	return m, true
}

// macString prints a hardware address as ip does: lower-case hex.
func macString(m netdev.MAC) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 17)
	for i, c := range m {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, hex[c>>4], hex[c&15])
	}
	return string(b)
}

// tableID is iproute2's rtnl_rttable_a2n: a name of /etc/iproute2/rt_tables
// or a number.
func tableID(s string) (uint32, bool) { return rt.ParseTable(s) }

// protoID is iproute2's rtnl_rtprot_a2n.
func protoID(s string) (uint8, bool) {
	p, ok := rt.ParseProtocol(s)
	return uint8(p), ok
}

// nextProtoFilter reads a listing filter's `protocol PROTO` value (the
// route, rule and neighbour filters of iproute2): a protocol selects it
// (set), "all" selects every protocol, anything else is invarg.
func nextProtoFilter(a *args) (proto uint8, set bool, err error) {
	v, err := a.next()
	if err != nil {
		return 0, false, err
	}
	if p, ok := protoID(v); ok {
		return p, true, nil
	}
	if v != "all" {
		return 0, false, invarg("invalid \"protocol\"\n", v)
	}
	return 0, false, nil
}

// scopeID is iproute2's rtnl_rtscope_a2n.
func scopeID(s string) (netdev.Scope, bool) { return rt.ParseScope(s) }

// dsfieldID is iproute2's rtnl_dsfield_a2n: a class name of rt_dsfield
// or a hexadecimal number (the dsfield byte).
func dsfieldID(s string) (uint8, bool) { return rt.ParseDSField(s) }

// nextMaster reads a `master DEV` value: the device must exist (ll_name_to_index).
func nextMaster(a *args, h *handle) (string, error) {
	v, _, err := nextLink(a, h)
	return v, err
}

// nextLink reads a device name value and its index (ll_name_to_index):
// the device must exist.
func nextLink(a *args, h *handle) (string, netdev.IfIndex, error) {
	v, err := a.next()
	if err != nil {
		return "", 0, err
	}
	idx := h.LinkIndex(v)
	if idx == 0 {
		return "", 0, invarg("Device does not exist\n", v)
	}
	return v, idx, nil
}

// nextVRF reads a `vrf NAME` value: name_is_vrf, the device must exist and
// be a vrf.
func nextVRF(a *args, h *handle) (string, error) {
	v, err := a.next()
	if err != nil {
		return "", err
	}
	if l, err := h.LinkByName(v); err != nil || l.Kind != "vrf" {
		return "", invarg("Not a valid VRF name\n", v)
	}
	return v, nil
}
