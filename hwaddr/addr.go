// Hardware addresses, address types and list policies: the value types of
// struct netdev_hw_addr (include/linux/netdevice.h).

package hwaddr

import (
	"strconv"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/errno"
)

// Addr is an Ethernet (EUI-48) hardware address. netsim's devices all have
// dev->addr_len == ETH_ALEN, so a list compares six bytes, as memcmp does.
//
// The zero Addr is 00:00:00:00:00:00. It is a valid list key (dev_addr_init
// seeds dev_addrs with an all-zero address) but not a usable station address.
type Addr [6]byte

// ParseAddr parses six colon-separated hexadecimal octets, each one or two
// digits, in either case: "33:33:00:00:00:01", "0:1b:21:A:b:c". That is the
// form iproute2 prints and accepts for "lladdr" and "address".
func ParseAddr(s string) (Addr, error) {
	var a Addr
	rest := s
	for i := range a {
		field := rest
		if i < len(a)-1 {
			j := strings.IndexByte(rest, ':')
			if j < 0 {
				return Addr{}, parseError(s)
			}
			field, rest = rest[:j], rest[j+1:]
		}
		if len(field) == 0 || len(field) > 2 {
			return Addr{}, parseError(s)
		}
		v, err := strconv.ParseUint(field, 16, 8)
		if err != nil {
			return Addr{}, parseError(s)
		}
		a[i] = byte(v)
	}
	return a, nil
}

func parseError(s string) error {
	return errno.Errorf(syscall.EINVAL, "invalid hardware address %q: want six colon-separated hex octets", s)
}

// MustParseAddr is ParseAddr for tests and constants: it panics if s does not parse.
func MustParseAddr(s string) Addr {
	a, err := ParseAddr(s)
	if err != nil {
		panic(err)
	}
	return a
}

// String returns the address as six lower-case two-digit octets separated by
// colons, e.g. "33:33:00:00:00:01".
func (a Addr) String() string {
	const hex = "0123456789abcdef"
	var b [17]byte
	for i, o := range a {
		if i > 0 {
			b[3*i-1] = ':'
		}
		b[3*i] = hex[o>>4]
		b[3*i+1] = hex[o&0xf]
	}
	return string(b[:])
}

// Compare orders addresses as memcmp does, octet by octet: it returns -1, 0 or
// +1. This is the order of the TreeIndexed search tree (before the type).
func (a Addr) Compare(b Addr) int {
	x, y := a.uint48(), b.uint48()
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// IsMulticast reports whether the group bit (the least significant bit of the
// first octet) is set, as is_multicast_ether_addr does. Broadcast is multicast.
func (a Addr) IsMulticast() bool { return a[0]&1 != 0 }

// uint48 packs the address big-endian, so integer order is memcmp order.
func (a Addr) uint48() uint64 {
	return uint64(a[0])<<40 | uint64(a[1])<<32 | uint64(a[2])<<24 |
		uint64(a[3])<<16 | uint64(a[4])<<8 | uint64(a[5])
}

func addrFromUint48(v uint64) Addr {
	return Addr{byte(v >> 40), byte(v >> 32), byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
}

// Type is an entry's address type, the kernel's NETDEV_HW_ADDR_T_* value. One
// address may be in a list once per type.
//
// The zero Type is not a kernel address type: on a delete or lookup it means
// "any type", as in __hw_addr_del_ex. No kernel caller adds with type 0; if one
// did, the entry would be stored with type 0, and so it is here.
type Type uint8

const (
	TypeLAN       Type = 1 // NETDEV_HW_ADDR_T_LAN: dev_addrs, the device's own addresses
	TypeSAN       Type = 2 // NETDEV_HW_ADDR_T_SAN: storage (FCoE) addresses in dev_addrs
	TypeSlave     Type = 3 // NETDEV_HW_ADDR_T_SLAVE
	TypeUnicast   Type = 4 // NETDEV_HW_ADDR_T_UNICAST: entries of dev->uc
	TypeMulticast Type = 5 // NETDEV_HW_ADDR_T_MULTICAST: entries of dev->mc
)

// String returns "lan", "san", "slave", "unicast", "multicast", "any" for
// type 0, or "type(N)" for another value.
func (t Type) String() string {
	switch t {
	case 0:
		return "any"
	case TypeLAN:
		return "lan"
	case TypeSAN:
		return "san"
	case TypeSlave:
		return "slave"
	case TypeUnicast:
		return "unicast"
	case TypeMulticast:
		return "multicast"
	}
	return "type(" + strconv.Itoa(int(t)) + ")"
}

// Policy selects how a List searches for an entry. The zero Policy is ListOnly.
type Policy uint8

const (
	// ListOnly searches by walking the list from its head, as every kernel
	// before 5.15 did: O(n) compares per add, delete or lookup.
	ListOnly Policy = iota
	// TreeIndexed searches an auxiliary red-black tree kept beside the list,
	// as since Linux commit 406f42fa0d3c (5.15): O(log n) compares.
	TreeIndexed
)

// String returns "ListOnly", "TreeIndexed" or "Policy(N)".
func (p Policy) String() string {
	switch p {
	case ListOnly:
		return "ListOnly"
	case TreeIndexed:
		return "TreeIndexed"
	}
	return "Policy(" + strconv.Itoa(int(p)) + ")"
}

// ParsePolicy returns the Policy whose String is s, ignoring case.
func ParsePolicy(s string) (Policy, error) {
	for _, p := range []Policy{ListOnly, TreeIndexed} {
		if strings.EqualFold(s, p.String()) {
			return p, nil
		}
	}
	return 0, errno.Errorf(syscall.EINVAL, "unknown hardware address list policy %q: want ListOnly or TreeIndexed", s)
}
