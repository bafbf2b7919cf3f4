// `ip maddress`: iproute2's ip/ipmaddr.c, which reads /proc/net/dev_mcast,
// /proc/net/igmp and /proc/net/igmp6 and adds link-layer groups with the
// SIOCADDMULTI and SIOCDELMULTI ioctls.

package iproute

import (
	"strconv"
	"strings"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
)

const maddrUsage = `Usage: ip maddr [ add | del ] MULTIADDR dev STRING
       ip maddr show [ dev STRING ]
`

var maddrObject = object{
	name:  "maddress",
	short: "maddr",
	usage: maddrUsage,
	empty: (*IP).maddrShow,
	commands: []command{
		{names: []string{"add*"}, run: (*IP).maddrAdd, keywords: []string{"dev", "address"}},
		{names: []string{"delete*"}, run: (*IP).maddrDel, keywords: []string{"dev", "address"}},
		{names: []string{"list*", "show*", "lst*"}, run: (*IP).maddrShow, keywords: []string{"dev"}},
	},
}

// maddrFilter is ipmaddr.c's static filter: a `dev` given to one `ip maddr
// show` of a batch stays set for the later ones (and a second `dev` is a
// duplicate), as in iproute2 6.1.
type maddrFilter struct {
	dev string
}

func (ip *IP) maddrShow(h *handle, argv []string) error {
	f := &ip.maddr
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		if err := devSelector(a, &f.dev, maddrUsage); err != nil {
			return err
		}
	}
	list, err := h.MaddrList()
	if err != nil {
		return err
	}
	p := &ip.p
	p.startJSON(ip.opts.json, ip.opts.pretty, true)
	cur := netdev.IfIndex(0)
	for _, m := range list {
		if f.dev != "" && m.Name != f.dev {
			continue
		}
		entry := func(family, addr string, users int, static bool) {
			if m.Index != cur || ip.opts.oneline > 0 {
				if cur != 0 {
					p.closeArray(printJSON, "")
					p.closeObject()
				}
				p.openObject("")
				p.uint(printAny, "ifindex", "%d:", uint64(m.Index))
				p.str(printAny, "ifname", "\t%s", m.Name)
				p.nl()
				cur = m.Index
				p.openArray(printJSON, "maddr")
			}
			ip.printMaddr(family, addr, users, static)
		}
		if ip.family == 0 {
			for _, e := range m.Link {
				entry("", macString(netdev.MAC(e.Addr)), e.Refcount, e.GlobalUse)
			}
		}
		if ip.family == 0 || ip.family == rt.FamilyInet {
			for _, g := range m.Inet4 {
				entry("inet", g.Addr.String(), g.Users, false)
			}
		}
		if ip.family == 0 || ip.family == rt.FamilyInet6 {
			for _, g := range m.Inet6 {
				entry("inet6", g.Addr.String(), g.Users, false)
			}
		}
	}
	if cur != 0 {
		p.closeArray(printJSON, "")
		p.closeObject()
	}
	p.endJSON(true)
	return nil
}

// printMaddr is print_maddr: one group of a device; family "" is the
// link layer's.
func (ip *IP) printMaddr(family, addr string, users int, static bool) {
	p := &ip.p
	p.str(printFP, "", "\t", "")
	p.openObject("")
	if family == "" {
		p.str(printFP, "", "link  ", "")
		p.str(printAny, "link", "%s", addr)
	} else {
		p.str(printAny, "family", "%-5s ", family)
		p.str(printAny, "address", "%s", addr)
	}
	if users != 1 {
		p.uint(printAny, "users", " users %d", uint64(users))
	}
	if static {
		p.str(printAny, "features", " %s", "static")
	}
	p.str(printFP, "", "\n", "")
	p.closeObject()
}

func (ip *IP) maddrAdd(h *handle, argv []string) error { return ip.maddrModify(h, argv, true) }
func (ip *IP) maddrDel(h *handle, argv []string) error { return ip.maddrModify(h, argv, false) }

// maddrModify is multiaddr_modify: an ioctl on a socket of the -4/-6
// family (AF_INET without one), after which ip exits, ending a batch
// whatever the outcome (0 on success, 1 with perror's "ioctl: ..." on
// failure).
func (ip *IP) maddrModify(h *handle, argv []string, add bool) error {
	var dev string
	var addr []byte
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		if w == "dev" {
			v, err := a.next()
			if err != nil {
				return err
			}
			if dev != "" {
				return duparg("dev", v)
			}
			if !checkIfname(v) {
				return invarg("\"dev\" not a valid ifname", v)
			}
			dev = v
			continue
		}
		w, err := a.optional(func(w string) bool { return matches(w, "address") })
		if err != nil {
			return err
		}
		if matches(w, "help") {
			return usageErr(maddrUsage)
		}
		if len(addr) > 0 && addr[0] != 0 {
			return duparg("address", w)
		}
		b, msg := llAddrA2N(w, 14)
		if msg != "" {
			return &argError{msg: msg, status: exitFailure}
		}
		if len(b) != 6 {
			return &argError{msg: "Error: Invalid address length " + strconv.Itoa(len(b)) + " - must be 6 bytes\n", status: exitFailure}
		}
		addr = b
	}
	if dev == "" {
		return &argError{msg: "Not enough information: \"dev\" is required.\n", status: exitArg}
	}
	var mac netdev.MAC
	copy(mac[:], addr)
	var err error
	if add {
		err = h.MaddrAdd(dev, mac)
	} else {
		err = h.MaddrDel(dev, mac)
	}
	if err != nil {
		return &argError{msg: "ioctl: " + Strerror(errno.Of(err)) + "\n", status: exitFailure}
	}
	return &argError{status: exitOK}
}

// llAddrA2N is iproute2's ll_addr_a2n: a hardware address of at most max
// bytes, written as hex bytes separated by ':' (each read by sscanf's %x),
// or an IPv4 dotted quad. It returns the bytes, or ip's message for an
// invalid one.
func llAddrA2N(s string, max int) ([]byte, string) {
	if strings.IndexByte(s, '.') >= 0 {
		a, ok := parseAddr(s, rt.FamilyInet)
		if !ok || max < 4 {
			return nil, "\"" + s + "\" is invalid lladdr.\n"
		}
		b := a.As4()
		return b[:], ""
	}
	var out []byte
	for len(out) < max {
		part, rest, more := strings.Cut(s, ":")
		v, ok := scanHex(part)
		if !ok || v > 255 {
			return nil, "\"" + part + "\" is invalid lladdr.\n"
		}
		out = append(out, byte(v))
		if !more {
			return out, ""
		}
		s = rest
	}
	// ll_addr_a2n counts one byte more than it stores when there are more
	// parts than room.
	return append(out, 0), ""
}

// scanHex is sscanf(s, "%x"): blanks, an optional sign and 0x, then at
// least one hex digit; what follows the digits is ignored.
func scanHex(s string) (int64, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isHex(s[2]) {
		s = s[2:]
	}
	var v int64
	n := 0
	for n < len(s) && isHex(s[n]) {
		if v < 1<<32 {
			d, _ := strconv.ParseUint(s[n:n+1], 16, 8)
			v = v*16 + int64(d)
		}
		n++
	}
	if n == 0 {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, v >= 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
