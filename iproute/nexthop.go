// `ip nexthop`: iproute2's ip/ipnexthop.c (ipnh_modify, ipnh_list_flush,
// ipnh_get, print_nexthop).

package iproute

import (
	"github.com/netsimlab/netsim/rt"
	"strconv"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
)

const nexthopUsage = `Usage: ip nexthop { list | flush } [ protocol ID ] SELECTOR
       ip nexthop { add | replace } id ID NH [ protocol ID ]
       ip nexthop { get | del } id ID
SELECTOR := [ id ID ] [ dev DEV ] [ groups ]
NH := { blackhole | [ via ADDRESS ] [ dev DEV ] [ onlink ] |
        group GROUP [ type TYPE ] }
GROUP := [ <id[,weight]>/<id[,weight]>/... ]
TYPE := { mpath }
`

func (ip *IP) doNexthop(h *rtnl.Handle, argv []string) error {
	if len(argv) == 0 {
		return ip.nexthopList(h, nil, false)
	}
	cmd, rest := argv[0], argv[1:]
	switch {
	case matches(cmd, "add"):
		return ip.nexthopModify(h, rest, false)
	case matches(cmd, "replace"):
		return ip.nexthopModify(h, rest, true)
	case matches(cmd, "delete"):
		return ip.nexthopDel(h, rest)
	case matches(cmd, "list"), matches(cmd, "show"), matches(cmd, "lst"):
		return ip.nexthopList(h, rest, false)
	case matches(cmd, "get"):
		return ip.nexthopGet(h, rest)
	case matches(cmd, "flush"):
		return ip.nexthopList(h, rest, true)
	case matches(cmd, "help"):
		return usageErr(nexthopUsage)
	}
	return unknownCmd(cmd, "nexthop")
}

func (ip *IP) nexthopModify(h *rtnl.Handle, argv []string, replace bool) error {
	var nh rtnl.Nexthop
	family := ip.family
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case w == "id":
			id, err := nextValue(a, uint32Value, "invalid id value")
			if err != nil {
				return err
			}
			nh.ID = nexthop.ID(id)
		case w == "dev":
			v, err := a.next()
			if err != nil {
				return err
			}
			if h.LinkIndex(v) == 0 {
				return invarg("Device does not exist\n", v)
			}
			nh.Dev = v
			if family == 0 {
				family = syscall.AF_INET
			}
		case w == "via":
			v, err := a.next()
			if err != nil {
				return err
			}
			fam := family
			switch v {
			case "inet", "inet6":
				fam = syscall.AF_INET
				if v == "inet6" {
					fam = syscall.AF_INET6
				}
				if v, err = a.next(); err != nil {
					return err
				}
			}
			gw, err := getAddr(v, fam)
			if err != nil {
				return err
			}
			gf := syscall.AF_INET
			if gw.Is6() {
				gf = syscall.AF_INET6
			}
			if family == 0 {
				family = gf
			} else if family != gf {
				return invarg("address family mismatch\n", v)
			}
			nh.Gateway = gw
		case w == "blackhole":
			nh.Blackhole = true
			if family == 0 {
				family = syscall.AF_INET
			}
		case w == "onlink":
			nh.OnLink = true
		case w == "group":
			g, err := nextValue(a, parseGroup, "\"group\" value is invalid\n")
			if err != nil {
				return err
			}
			nh.Group = g
		case w == "type":
			v, err := a.next()
			if err != nil {
				return err
			}
			if v != "mpath" {
				return invarg("\"type\" value is invalid\n", v)
			}
			nh.GroupType = nexthop.GroupMultipath
		case matches(w, "protocol"):
			p, err := nextValue(a, protoID, "\"protocol\" value is invalid\n")
			if err != nil {
				return err
			}
			nh.Protocol = p
		case w == "help":
			return usageErr(nexthopUsage)
		case w == "fdb", w == "encap", w == "newdst", w == "bucket", w == "hw_stats":
			return notSupported("ip nexthop", w)
		default:
			return invarg("", w)
		}
	}
	// nhm.nh_family as ipnh_modify sends it: -4/-6, else set by dev,
	// blackhole or a gateway, else AF_UNSPEC, groups included.
	nh.Family = family
	if replace {
		return h.NexthopReplace(nh)
	}
	return h.NexthopAdd(nh)
}

// parseGroup is add_nh_group_attr: ID[,WEIGHT] separated by '/'.
func parseGroup(s string) ([]nexthop.GroupMember, bool) {
	var out []nexthop.GroupMember
	for _, part := range strings.Split(s, "/") {
		id, wt, hasW := strings.Cut(part, ",")
		n, ok := getUnsigned(id, 32)
		if !ok {
			return nil, false
		}
		m := nexthop.GroupMember{ID: nexthop.ID(n), Weight: 1}
		if hasW {
			w, ok := getUnsigned(wt, 32)
			if !ok || w == 0 || w > 256 {
				return nil, false
			}
			m.Weight = uint16(w)
		}
		out = append(out, m)
	}
	return out, true
}

// nexthopID reads `id ID` for get and del.
func nexthopID(argv []string) (nexthop.ID, error) {
	var id nexthop.ID
	has := false
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		if w != "id" {
			return 0, invarg("", w)
		}
		v, err := a.next()
		if err != nil {
			return 0, err
		}
		n, ok := getUnsigned(v, 32)
		if !ok {
			return 0, invarg("invalid id value", v)
		}
		id, has = nexthop.ID(n), true
	}
	if !has {
		return 0, failf("id is required\n")
	}
	return id, nil
}

func (ip *IP) nexthopDel(h *rtnl.Handle, argv []string) error {
	id, err := nexthopID(argv)
	if err != nil {
		return err
	}
	return h.NexthopDel(id)
}

func (ip *IP) nexthopGet(h *rtnl.Handle, argv []string) error {
	id, err := nexthopID(argv)
	if err != nil {
		return err
	}
	ni, err := h.NexthopGet(id)
	if err != nil {
		return err
	}
	ip.out.WriteString(nexthopText(ni))
	return nil
}

// nexthopText is print_nexthop's line: the object's rendering with the
// trailing space iproute2 leaves.
func nexthopText(ni rtnl.NexthopInfo) string {
	s := ni.Text
	if i := strings.Index(s, " proto "); i >= 0 {
		// print_nexthop names the protocol from rt_protos.
		rest := s[i+len(" proto "):]
		num, tail, _ := strings.Cut(rest, " ")
		if n, err := strconv.Atoi(num); err == nil {
			s = s[:i] + " proto " + rt.Protocol(n).String()
			if tail != "" {
				s += " " + tail
			}
		}
	}
	return s + " \n"
}

func (ip *IP) nexthopList(h *rtnl.Handle, argv []string, flush bool) error {
	var (
		dev     string
		groups  bool
		proto   uint64
		hasProt bool
	)
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case matches(w, "dev"):
			v, err := a.next()
			if err != nil {
				return err
			}
			if h.LinkIndex(v) == 0 {
				return invarg("Device does not exist\n", v)
			}
			dev = v
		case matches(w, "groups"):
			groups = true
		case matches(w, "protocol"):
			v, err := a.next()
			if err != nil {
				return err
			}
			// A number only (get_unsigned); 0 filters nothing.
			p, ok := getUnsigned(v, 32)
			if !ok {
				return invarg("invalid protocol value", v)
			}
			proto, hasProt = p, p != 0
		case w == "id":
			if flush {
				return invarg("", w)
			}
			return ip.nexthopGet(h, a.w)
		default:
			return invarg("", w)
		}
	}
	nhs, err := h.NexthopList()
	if err != nil {
		return err
	}
	n := 0
	for _, ni := range nhs {
		if dev != "" && ni.Dev != dev {
			continue
		}
		if groups && len(ni.Group) == 0 {
			continue
		}
		// nh_dump_filtered: a family leaves groups out, and nexthops of
		// the other family.
		if ip.family != 0 && (len(ni.Group) != 0 || ni.Family != ip.family) {
			continue
		}
		if hasProt && uint64(ni.Protocol) != proto {
			continue
		}
		if !flush {
			ip.out.WriteString(nexthopText(ni))
			continue
		}
		// A group that lost its last member with an earlier deletion is
		// gone already; ip counts it as flushed all the same.
		if err := h.NexthopDel(ni.ID); err != nil && !isGone(err) {
			return err
		}
		n++
	}
	if flush {
		if n == 0 {
			ip.printf("Nothing to flush\n")
		} else {
			ip.printf("Flushed %d nexthops\n", n)
		}
	}
	return nil
}
