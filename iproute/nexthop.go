// `ip nexthop`: iproute2's ip/ipnexthop.c (ipnh_modify, ipnh_list_flush,
// ipnh_get, print_nexthop).

package iproute

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

const nexthopUsage = `Usage: ip nexthop { list | flush } [ protocol ID ] SELECTOR
       ip nexthop { add | replace } id ID NH [ protocol ID ]
       ip nexthop { get | del } id ID
       ip nexthop bucket list BUCKET_SELECTOR
       ip nexthop bucket get id ID index INDEX
SELECTOR := [ id ID ] [ dev DEV ] [ vrf NAME ] [ master DEV ]
            [ groups ] [ fdb ]
BUCKET_SELECTOR := SELECTOR | [ nhid ID ]
NH := { blackhole | [ via ADDRESS ] [ dev DEV ] [ onlink ]
        [ encap ENCAPTYPE ENCAPHDR ] |
        group GROUP [ fdb ] [ type TYPE [ TYPE_ARGS ] ] }
GROUP := [ <id[,weight]>/<id[,weight]>/... ]
TYPE := { mpath | resilient }
TYPE_ARGS := [ RESILIENT_ARGS ]
RESILIENT_ARGS := [ buckets BUCKETS ] [ idle_timer IDLE ]
                  [ unbalanced_timer UNBALANCED ]
ENCAPTYPE := [ mpls ]
ENCAPHDR := [ MPLSLABEL ]
`

// nexthopFilter is ipnexthop.c's static filter. iproute2 6.1 never resets
// it: what one `ip nexthop` line of a batch sets (dev, groups, protocol,
// a bucket dump's id and nhid, the flush count) stays set for the later
// lines of the same ip process. IP keeps one per Main, Run or Batch.
type nexthopFilter struct {
	flushed uint
	groups  bool
	dev     string         // ifindex: the device's name
	devIdx  netdev.IfIndex // and its index
	proto   uint32         // unsigned int: a number above 255 matches nothing
	id      nexthop.ID     // bucket dumps only
	nhid    nexthop.ID     // bucket dumps only
}

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
	case matches(cmd, "bucket"):
		return ip.nexthopBucket(h, rest)
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
			switch v {
			case "mpath":
				nh.GroupType = nexthop.GroupMultipath
			case "resilient":
				nh.GroupType = nexthop.GroupResilient
				if err := parseResArgs(a, &nh); err != nil {
					return err
				}
			default:
				return invarg("\"type\" value is invalid\n", v)
			}
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

// parseResArgs is parse_nh_group_type_res: after "resilient", when any
// word follows, an NHA_RES_GROUP nest (the last one sent wins) holding the
// buckets and timers that follow; the first other word is left for the
// caller.
func parseResArgs(a *args, nh *rtnl.Nexthop) error {
	if len(a.w) < 2 {
		return nil
	}
	rc := &nexthop.ResilientConfig{}
	nh.Resilient = rc
	for len(a.w) > 1 {
		switch a.w[1] {
		case "buckets":
			a.skip()
			b, err := nextValue(a, uint16Value, "invalid buckets value")
			if err != nil {
				return err
			}
			rc.Buckets, rc.HasBuckets = uint16(b), true
		case "idle_timer", "unbalanced_timer":
			a.skip()
			kw := a.peek()
			msg := "invalid idle timer value"
			if kw == "unbalanced_timer" {
				msg = "invalid unbalanced timer value"
			}
			v, err := a.next()
			if err != nil {
				return err
			}
			// Seconds, sent as clock_t: at most UINT32_MAX/100 - 1.
			sec, ok := getUnsigned(v, 32)
			if !ok || sec >= 0xffffffff/100 {
				return invarg(msg, v)
			}
			d := time.Duration(sec) * time.Second
			if kw == "idle_timer" {
				rc.IdleTimer, rc.HasIdleTimer = d, true
			} else {
				rc.UnbalancedTimer, rc.HasUnbalancedTimer = d, true
			}
		default:
			return nil
		}
	}
	return nil
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
	return ip.nexthopGetID(h, id)
}

// nexthopGetID is ipnh_get_id: the answer is printed through the same
// callback as a dump, so a protocol filter set earlier applies.
func (ip *IP) nexthopGetID(h *rtnl.Handle, id nexthop.ID) error {
	ni, err := h.NexthopGet(id)
	if err != nil {
		return err
	}
	ip.printNexthop(ni)
	return nil
}

// printNexthop is print_cache_nexthop with __print_nexthop_entry: a
// nexthop of another protocol than the filter's is skipped.
func (ip *IP) printNexthop(ni rtnl.NexthopInfo) {
	f := &ip.nhFilter
	if f.proto != 0 && f.proto != uint32(ni.Protocol) {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "id %d ", ni.ID)
	if len(ni.Group) > 0 {
		b.WriteString("group ")
		for i, m := range ni.Group {
			if i > 0 {
				b.WriteByte('/')
			}
			fmt.Fprintf(&b, "%d", m.ID)
			if m.Weight > 1 {
				fmt.Fprintf(&b, ",%d", m.Weight)
			}
		}
		b.WriteByte(' ')
		if ni.GroupType != nexthop.GroupMultipath {
			fmt.Fprintf(&b, "type %s ", ni.GroupType)
		}
	}
	if r := ni.Resilient; r.Buckets != 0 {
		fmt.Fprintf(&b, "buckets %d idle_timer %s unbalanced_timer %s unbalanced_time %s ", r.Buckets,
			nexthop.FormatClock(r.IdleTimer), nexthop.FormatClock(r.UnbalancedTimer), nexthop.FormatClock(r.UnbalancedTime))
	}
	if ni.Gateway.IsValid() {
		fmt.Fprintf(&b, "via %s ", ni.Gateway)
	}
	if ni.Dev != "" {
		fmt.Fprintf(&b, "dev %s ", ni.Dev)
	}
	if ni.Scope != 0 {
		fmt.Fprintf(&b, "scope %s ", netdev.Scope(ni.Scope))
	}
	if ni.Blackhole {
		b.WriteString("blackhole ")
	}
	if ni.Protocol != 0 {
		fmt.Fprintf(&b, "proto %s ", rt.Protocol(ni.Protocol).String())
	}
	if ni.OnLink {
		b.WriteString("onlink ")
	}
	b.WriteByte('\n')
	ip.out.WriteString(b.String())
}

// nexthopList is ipnh_list_flush: the selector words update the
// process's filter (which keeps what earlier lines set), "id" answers at
// once, then a dump is listed or flushed.
func (ip *IP) nexthopList(h *rtnl.Handle, argv []string, flush bool) error {
	f := &ip.nhFilter
	all := len(argv) == 0
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case matches(w, "dev"):
			v, err := a.next()
			if err != nil {
				return err
			}
			if f.devIdx = h.LinkIndex(v); f.devIdx == 0 {
				return invarg("Device does not exist\n", v)
			}
			f.dev = v
		case matches(w, "groups"):
			f.groups = true
		case w == "id":
			v, err := a.next()
			if err != nil {
				return err
			}
			n, ok := getUnsigned(v, 32)
			if !ok {
				return invarg("invalid id value", v)
			}
			if flush {
				// ipnh_list_flush_id: delete_nexthop's -1 makes ip exit 1.
				if err := h.NexthopDel(nexthop.ID(n)); err != nil {
					return &cmdError{msg: Message(err), status: exitFailure}
				}
				return nil
			}
			return ip.nexthopGetID(h, nexthop.ID(n))
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
			f.proto = uint32(p)
		case matches(w, "master"), matches(w, "vrf"), matches(w, "fdb"):
			return notSupported("ip nexthop", w)
		case matches(w, "help"):
			return usageErr(nexthopUsage)
		default:
			return invarg("", w)
		}
	}
	if flush {
		return ip.nexthopFlush(h, all)
	}
	nhs, err := ip.nexthopDump(h)
	if err != nil {
		return err
	}
	for _, ni := range nhs {
		ip.printNexthop(ni)
	}
	return nil
}

// nexthopDump is the dump nh_dump_filter asks for: rtm_dump_nexthop with
// nh_dump_filtered (a groups filter keeps groups only; a device or a
// family keeps single nexthops that match).
func (ip *IP) nexthopDump(h *rtnl.Handle) ([]rtnl.NexthopInfo, error) {
	f := &ip.nhFilter
	all, err := h.NexthopList()
	if err != nil {
		return nil, err
	}
	var out []rtnl.NexthopInfo
	for _, ni := range all {
		isGroup := len(ni.Group) != 0
		switch {
		case f.groups && !isGroup:
			continue
		case f.dev == "" && ip.family == 0:
		case isGroup:
			continue
		case ip.family != 0 && ni.Family != ip.family:
			continue
		case f.dev != "" && ni.Dev != f.dev && !(ni.Blackhole && f.devIdx == netdev.LoopbackIfIndex):
			// A blackhole is on loopback (nexthop_create).
			continue
		}
		out = append(out, ni)
	}
	return out, nil
}

// nexthopFlush is ipnh_flush: every dumped nexthop of the filter's
// protocol is deleted; without a selector, groups first, then the rest.
// The count adds up over the lines of a batch, as the filter does.
func (ip *IP) nexthopFlush(h *rtnl.Handle, all bool) error {
	f := &ip.nhFilter
	if all {
		f.groups, f.dev, f.devIdx = true, "", 0
	}
	for {
		nhs, err := ip.nexthopDump(h)
		if err != nil {
			return err
		}
		for _, ni := range nhs {
			if f.proto != 0 && uint32(ni.Protocol) != f.proto {
				continue
			}
			// A group that lost its last member with an earlier deletion is
			// gone already; ip counts it as flushed all the same.
			if err := h.NexthopDel(ni.ID); err != nil && !isGone(err) {
				return err
			}
			f.flushed++
		}
		if !all || !f.groups {
			break
		}
		f.groups = false
	}
	if f.flushed == 0 {
		ip.printf("Nothing to flush\n")
	} else {
		ip.printf("Flushed %d nexthops\n", f.flushed)
	}
	return nil
}

// nexthopBucket is do_ipnh_bucket.
func (ip *IP) nexthopBucket(h *rtnl.Handle, argv []string) error {
	if len(argv) == 0 {
		return ip.nexthopBucketList(h, nil)
	}
	cmd, rest := argv[0], argv[1:]
	switch {
	case matches(cmd, "list"), matches(cmd, "show"), matches(cmd, "lst"):
		return ip.nexthopBucketList(h, rest)
	case matches(cmd, "get"):
		return ip.nexthopBucketGet(h, rest)
	case matches(cmd, "help"):
		return usageErr(nexthopUsage)
	}
	return unknownCmd(cmd, "nexthop")
}

// nexthopBucketList is ipnh_bucket_list: the selector updates the
// process's filter, and the dump sends what it holds (a groups filter
// left by an earlier line included, which the kernel refuses).
func (ip *IP) nexthopBucketList(h *rtnl.Handle, argv []string) error {
	f := &ip.nhFilter
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		switch {
		case matches(w, "dev"):
			v, err := a.next()
			if err != nil {
				return err
			}
			if f.devIdx = h.LinkIndex(v); f.devIdx == 0 {
				return invarg("Device does not exist\n", v)
			}
			f.dev = v
		case matches(w, "master"), matches(w, "vrf"):
			return notSupported("ip nexthop bucket", w)
		case w == "id", w == "nhid":
			v, err := a.next()
			if err != nil {
				return err
			}
			n, ok := getUnsigned(v, 32)
			if !ok {
				return invarg("invalid id value", v)
			}
			if w == "id" {
				f.id = nexthop.ID(n)
			} else {
				f.nhid = nexthop.ID(n)
			}
		case matches(w, "help"):
			return usageErr(nexthopUsage)
		default:
			return invarg("", w)
		}
	}
	bs, err := h.NexthopBucketList(rtnl.NexthopBucketFilter{
		ID: f.id, NexthopID: f.nhid, Dev: f.dev, Family: ip.family, Groups: f.groups,
	})
	if err != nil {
		return dumpError(err)
	}
	for _, b := range bs {
		ip.printBucket(b)
	}
	return nil
}

// dumpError is how rtnl_dump_filter reports a refused dump: the extack
// message, else perror unless the error is ENOENT or EOPNOTSUPP
// (rtnl_dump_done), then "Dump terminated".
func dumpError(err error) error {
	msg := ""
	switch en := errnoOf(err); {
	case errorMessage(err) != "" && kernelHasExtack(en, errorMessage(err)):
		msg = Message(err)
	case en == syscall.ENOENT, en == syscall.EOPNOTSUPP:
	default:
		msg = Message(err)
	}
	return &cmdError{msg: msg + "Dump terminated\n", status: exitNetlink}
}

// errorMessage is the extack message of a kernel error, "" when none.
func errorMessage(err error) string {
	var ke *errno.Error
	if errors.As(err, &ke) {
		return ke.Msg
	}
	return ""
}

// nexthopBucketGet is ipnh_bucket_get.
func (ip *IP) nexthopBucketGet(h *rtnl.Handle, argv []string) error {
	var (
		id       nexthop.ID
		index    uint16
		hasIndex bool
	)
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		switch w := a.peek(); w {
		case "id":
			v, err := a.next()
			if err != nil {
				return err
			}
			n, ok := getUnsigned(v, 32)
			if !ok {
				return invarg("invalid id value", v)
			}
			id = nexthop.ID(n)
		case "index":
			v, err := nextValue(a, uint16Value, "invalid bucket index value")
			if err != nil {
				return err
			}
			index, hasIndex = uint16(v), true
		default:
			return usageErr(nexthopUsage)
		}
	}
	if id == 0 || !hasIndex {
		return usageErr(nexthopUsage)
	}
	b, err := h.NexthopBucketGet(id, index)
	if err != nil {
		return err
	}
	ip.printBucket(b)
	return nil
}

// printBucket is print_nexthop_bucket.
func (ip *IP) printBucket(b rtnl.NexthopBucket) {
	ip.printf("id %d index %d idle_time %s nhid %d \n", b.ID, b.Index, nexthop.FormatClock(b.IdleTime), b.NexthopID)
}
