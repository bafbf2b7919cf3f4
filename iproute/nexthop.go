// `ip nexthop`: iproute2's ip/ipnexthop.c (do_ipnh, ipnh_modify,
// ipnh_list_flush, ipnh_get, ipnh_bucket_list, ipnh_bucket_get and their
// printers __print_nexthop_entry and print_nexthop_bucket).

package iproute

import (
	"errors"
	"net/netip"
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
// it: what one `ip nexthop` line of a batch sets (dev, master, groups, fdb,
// protocol, a bucket dump's id and nhid, the flush count) stays set for the
// later lines of the same ip process. IP keeps one per Main, Run or Batch.
type nexthopFilter struct {
	flushed uint
	groups  bool
	fdb     bool
	devIdx  netdev.IfIndex // ifindex
	master  netdev.IfIndex
	proto   uint32     // unsigned int: a number above 255 matches nothing
	id      nexthop.ID // bucket dumps only
	nhid    nexthop.ID // bucket dumps only
}

// dump is what nh_dump_filter sends of the filter, with the -4/-6 family.
func (f *nexthopFilter) dump(family int) rtnl.NexthopFilter {
	return rtnl.NexthopFilter{DevIndex: f.devIdx, MasterIndex: f.master, Groups: f.groups, FDB: f.fdb, Family: family}
}

// nexthopObject is do_ipnh's table, in its order of comparison; `ip
// nexthop` alone lists.
var nexthopObject = object{
	name:  "nexthop",
	short: "nexthop",
	usage: nexthopUsage,
	empty: (*IP).nexthopShow,
	commands: []command{
		{names: []string{"add*"}, run: (*IP).nexthopAdd, keywords: keywordModelled(nexthopKeywords), refusedKeywords: keywordRefusals(nexthopKeywords)},
		{names: []string{"replace*"}, run: (*IP).nexthopReplace, keywords: keywordModelled(nexthopKeywords), refusedKeywords: keywordRefusals(nexthopKeywords)},
		{names: []string{"delete*"}, run: (*IP).nexthopDel, keywords: keywordModelled(nexthopKeywords), refusedKeywords: keywordRefusals(nexthopKeywords)},
		{names: []string{"list*", "show*", "lst*"}, run: (*IP).nexthopShow, keywords: keywordNames(nexthopFilterKeywords)},
		{names: []string{"get*"}, run: (*IP).nexthopGet, keywords: keywordNames(nexthopGetKeywords)},
		{names: []string{"flush*"}, run: (*IP).nexthopFlush, keywords: keywordNames(nexthopFilterKeywords)},
		{names: []string{"bucket*"}, run: (*IP).nexthopBucket, keywords: keywordNames(nexthopBucketKeywords)},
	},
}

// nexthopBucketObject is do_ipnh_bucket's table: `ip nexthop bucket`
// alone lists.
var nexthopBucketObject = object{
	name:  "nexthop bucket",
	short: "nexthop",
	usage: nexthopUsage,
	empty: (*IP).nexthopBucketList,
	commands: []command{
		{names: []string{"list*", "show*", "lst*"}, run: (*IP).nexthopBucketList},
		{names: []string{"get*"}, run: (*IP).nexthopBucketGet},
	},
}

// nhReq is ipnh_modify's request being built.
type nhReq struct {
	h  *rtnl.Handle
	nh rtnl.Nexthop
	// family is nhm.nh_family: -4/-6, else set by dev, blackhole or a
	// gateway, else AF_UNSPEC, groups included.
	family int
	hasID  bool // NHA_ID was given
	typed  bool // NHA_GROUP_TYPE was given
}

// nexthopKeywords are ipnh_modify's keywords in its order of comparison;
// any other word is ip's invarg, "help" its usage.
var nexthopKeywords = []keyword[*nhReq]{
	exact("id", func(a *args, q *nhReq) error {
		id, err := nextValue(a, uint32Value, "invalid id value")
		q.nh.ID, q.hasID = nexthop.ID(id), true
		return err
	}),
	exact("dev", func(a *args, q *nhReq) error {
		v, _, err := nextLink(a, q.h)
		if err != nil {
			return err
		}
		q.nh.Dev = v
		if q.family == 0 {
			q.family = syscall.AF_INET
		}
		return nil
	}),
	exact("via", func(a *args, q *nhReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		fam := q.family
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
		if q.family == 0 {
			q.family = gf
		} else if q.family != gf {
			return invarg("address family mismatch\n", v)
		}
		q.nh.Gateway = gw
		return nil
	}),
	refusedNow(exact[*nhReq]("encap", nil), "ip nexthop", "netsim models no lightweight tunnel encapsulation", false),
	exact("blackhole", func(_ *args, q *nhReq) error {
		q.nh.Blackhole = true
		if q.family == 0 {
			q.family = syscall.AF_INET
		}
		return nil
	}),
	exact("fdb", func(_ *args, q *nhReq) error { q.nh.FDB = true; return nil }),
	exact("onlink", func(_ *args, q *nhReq) error { q.nh.OnLink = true; return nil }),
	exact("group", func(a *args, q *nhReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		q.nh.Group, err = parseGroup(v)
		return err
	}),
	exact("type", func(a *args, q *nhReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		q.typed = true
		switch v {
		case "mpath":
			q.nh.GroupType = nexthop.GroupMultipath
		case "resilient":
			q.nh.GroupType = nexthop.GroupResilient
			return parseResArgs(a, &q.nh)
		default:
			return invarg("\"type\" value is invalid\n", v)
		}
		return nil
	}),
	kw("protocol", func(a *args, q *nhReq) error {
		p, err := nextValue(a, protoID, "\"protocol\" value is invalid\n")
		q.nh.Protocol = p
		return err
	}),
}

// nexthopOther is the last branch of ip nexthop's parsers: "help" (as
// each parser compares it) prints the usage, any other word is wrong.
func nexthopOther[R any](help func(string) bool) func(a *args, _ R) error {
	return func(a *args, _ R) error {
		if help(a.peek()) {
			return usageErr(nexthopUsage)
		}
		return invarg("", a.peek())
	}
}

// isHelp is matches(word, "help").
func isHelp(w string) bool { return matches(w, "help") }

func (ip *IP) nexthopAdd(h *rtnl.Handle, argv []string) error {
	return ip.nexthopModify(h, argv, false)
}

func (ip *IP) nexthopReplace(h *rtnl.Handle, argv []string) error {
	return ip.nexthopModify(h, argv, true)
}

// nexthopParse is ipnh_modify's parse of the words.
func (ip *IP) nexthopParse(h *rtnl.Handle, argv []string) (*nhReq, error) {
	q := &nhReq{h: h, family: ip.family}
	if err := walk(&args{w: argv}, nexthopKeywords, q, nexthopOther[*nhReq](func(w string) bool { return w == "help" })); err != nil {
		return nil, err
	}
	q.nh.Family = q.family
	return q, nil
}

// nexthopModify is ipnh_modify: RTM_NEWNEXTHOP with NLM_F_EXCL (add) or
// NLM_F_REPLACE.
func (ip *IP) nexthopModify(h *rtnl.Handle, argv []string, replace bool) error {
	q, err := ip.nexthopParse(h, argv)
	if err != nil {
		return err
	}
	if replace {
		return h.NexthopReplace(q.nh)
	}
	return h.NexthopAdd(q.nh)
}

// nexthopDel is ipnh_modify sending RTM_DELNEXTHOP: the words of add, and
// the kernel refuses what is not an id.
func (ip *IP) nexthopDel(h *rtnl.Handle, argv []string) error {
	q, err := ip.nexthopParse(h, argv)
	if err != nil {
		return err
	}
	nh := q.nh
	r := rtnl.NexthopDelRequest{ID: nh.ID, HasID: q.hasID, Protocol: rt.Protocol(nh.Protocol),
		Other: q.typed || nh.Dev != "" || nh.Gateway.IsValid() || nh.Blackhole || nh.FDB || nh.Group != nil || nh.Resilient != nil}
	if nh.OnLink {
		r.Flags |= rt.FlagOnLink
	}
	return h.NexthopDelete(r)
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

// parseGroup is add_nh_group_attr: ID[,WEIGHT] separated by '/'. ip cuts
// the word at each separator it reads, so a bad id is reported as the
// first member's id as far as its first ',' or '/'; a bad weight as
// itself.
func parseGroup(s string) ([]nexthop.GroupMember, error) {
	first, _, _ := strings.Cut(s, "/")
	first, _, _ = strings.Cut(first, ",")
	bad := invarg("\"group\" value is invalid\n", first)
	if s == "" {
		return nil, bad
	}
	var out []nexthop.GroupMember
	for _, part := range strings.Split(s, "/") {
		id, wt, hasW := strings.Cut(part, ",")
		n, ok := getUnsigned(id, 32)
		if !ok {
			return nil, bad
		}
		m := nexthop.GroupMember{ID: nexthop.ID(n), Weight: 1}
		if hasW {
			w, ok := getUnsigned(wt, 32)
			if !ok || w == 0 || w > 256 {
				return nil, invarg("\"weight\" is invalid\n", wt)
			}
			m.Weight = uint16(w)
		}
		out = append(out, m)
	}
	return out, nil
}

// nexthopGetKeywords are ipnh_get's: anything else is its usage.
var nexthopGetKeywords = []keyword[*nexthop.ID]{
	exact("id", func(a *args, id *nexthop.ID) error {
		n, err := nextValue(a, uint32Value, "invalid id value")
		*id = nexthop.ID(n)
		return err
	}),
}

// nexthopID reads `id ID` as ipnh_get does: any other word, or no id (or
// id 0), is the usage.
func nexthopID(argv []string) (nexthop.ID, error) {
	var id nexthop.ID
	usage := func(*args, *nexthop.ID) error { return usageErr(nexthopUsage) }
	if err := walk(&args{w: argv}, nexthopGetKeywords, &id, usage); err != nil {
		return 0, err
	}
	if id == 0 {
		return 0, usageErr(nexthopUsage)
	}
	return id, nil
}

// nexthopGet is ipnh_get.
func (ip *IP) nexthopGet(h *rtnl.Handle, argv []string) error {
	id, err := nexthopID(argv)
	if err != nil {
		return err
	}
	return ip.nexthopGetID(h, id)
}

// nexthopGetID is ipnh_get_id: the answer is printed through the same
// callback as a dump, so a protocol filter set earlier applies (an empty
// JSON array then).
func (ip *IP) nexthopGetID(h *rtnl.Handle, id nexthop.ID) error {
	ni, err := h.NexthopGet(id)
	if err != nil {
		return err
	}
	ip.p.startJSON(ip.opts.json, ip.opts.pretty, true)
	ip.printNexthop(ni)
	ip.p.endJSON(true)
	return nil
}

// printNexthop is print_cache_nexthop with __print_nexthop_entry, text and
// JSON from the same calls: a nexthop of another protocol than the
// filter's is skipped.
func (ip *IP) printNexthop(ni rtnl.NexthopInfo) {
	f := &ip.nhFilter
	if f.proto != 0 && f.proto != uint32(ni.Protocol) {
		return
	}
	ip.printNexthopEntry(ni, "")
	ip.p.str(printFP, "", "%s", "\n")
}

// printNexthopEntry is __print_nexthop_entry of a nexthop that is not
// deleted, as an object under the JSON key jsobj ("" in an array).
func (ip *IP) printNexthopEntry(ni rtnl.NexthopInfo, jsobj string) {
	p := &ip.p
	p.openObject(jsobj)
	p.uint(printAny, "id", "id %d ", uint64(ni.ID))
	if len(ni.Group) > 0 {
		printNexthopGroup(p, ni.Group)
	}
	// print_nh_group_type: mpath (the type of every single nexthop too)
	// is not printed.
	if ni.GroupType != nexthop.GroupMultipath {
		p.str(printAny, "type", "type %s ", nexthopGroupTypeName(ni.GroupType))
	}
	if ni.GroupType == nexthop.GroupResilient {
		printNexthopResGroup(p, ni.Resilient)
	}
	if ni.Gateway.IsValid() {
		ip.printGateway(ni.Gateway)
	}
	if ni.DevIndex != 0 {
		ip.printIfidx(ni.Dev, "dev")
	}
	if ni.Scope != rt.ScopeUniverse || ip.opts.details > 0 {
		p.str(printAny, "scope", "scope %s ", ni.Scope.String())
	}
	if ni.Blackhole {
		p.null(printAny, "blackhole", "blackhole ", "")
	}
	if ni.Protocol != rt.ProtoUnspec || ip.opts.details > 0 {
		p.str(printAny, "protocol", "proto %s ", ni.Protocol.String())
	}
	printRtFlags(p, ni.Flags.Names())
	if ni.FDB {
		p.null(printAny, "fdb", "fdb", "")
	}
	p.closeObject()
}

// inetNtop is glibc's inet_ntop, as format_host prints an address without
// -r: netip's form, but for an IPv6 address whose first six 16-bit words
// are zero and whose seventh is not, which ends in a dotted quad
// ("::1.2.3.4").
func inetNtop(a netip.Addr) string {
	if a.Is6() && !a.Is4In6() {
		b := a.As16()
		if b == [16]byte{12: b[12], 13: b[13], 14: b[14], 15: b[15]} && (b[12] != 0 || b[13] != 0) {
			return "::" + netip.AddrFrom4([4]byte(b[12:])).String()
		}
	}
	return a.String()
}

// printNexthopGroup is print_nh_group: the members as ID[,WEIGHT]
// separated by '/', a weight of 1 not printed. ip 6.1 reads only the low
// byte of weight-1 (struct nexthop_grp's weight, not weight_high).
func printNexthopGroup(p *printer, group []nexthop.GroupMember) {
	p.openArray(printJSON, "group")
	p.str(printFP, "", "%s", "group ")
	for i, m := range group {
		p.openObject("")
		if i > 0 {
			p.str(printFP, "", "%s", "/")
		}
		p.uint(printAny, "id", "%d", uint64(m.ID))
		if w := uint64(uint8(m.Weight-1)) + 1; w > 1 {
			p.uint(printAny, "weight", ",%d", w)
		}
		p.closeObject()
	}
	p.str(printFP, "", "%s", " ")
	p.closeArray(printJSON, "")
}

// nexthopGroupTypeName is nh_group_type_name.
func nexthopGroupTypeName(t nexthop.GroupType) string {
	switch t {
	case nexthop.GroupMultipath:
		return "mpath"
	case nexthop.GroupResilient:
		return "resilient"
	}
	return "<unknown type>"
}

// printNexthopResGroup is print_nh_res_group: the timers and the
// unbalanced time are clock_t's, printed in seconds with %g.
func printNexthopResGroup(p *printer, r nexthop.ResilientInfo) {
	p.openObject("resilient_args")
	p.uint(printAny, "buckets", "buckets %d ", uint64(r.Buckets))
	p.float(printAny, "idle_timer", "idle_timer %g ", clockSeconds(r.IdleTimer))
	p.float(printAny, "unbalanced_timer", "unbalanced_timer %g ", clockSeconds(r.UnbalancedTimer))
	p.float(printAny, "unbalanced_time", "unbalanced_time %g ", clockSeconds(r.UnbalancedTime))
	p.closeObject()
}

// clockSeconds is a duration of clock_t precision (USER_HZ 100) in
// seconds as __jiffies_to_tv and print_tv compute it: whole seconds plus
// microseconds over a million.
func clockSeconds(d time.Duration) float64 {
	ticks := uint64(d / (10 * time.Millisecond))
	usec := ticks * 10000
	sec := usec / 1000000
	return float64(sec) + float64(usec-sec*1000000)/1000000
}

// nhFilterReq is what ipnh_list_flush's words set: the process's filter,
// or an id to answer at once.
type nhFilterReq struct {
	h     *rtnl.Handle
	f     *nexthopFilter
	id    nexthop.ID
	hasID bool
}

// errNexthopID ends the walk of a selector at "id ID", which
// ipnh_list_flush answers at once, ignoring what follows.
var errNexthopID = errors.New("id given")

// nexthopDev is the dev of a selector: the filter's device.
func nexthopDev(a *args, f *nexthopFilter, h *rtnl.Handle) (err error) {
	_, f.devIdx, err = nextLink(a, h)
	return err
}

// nexthopMaster is the master of a selector.
func nexthopMaster(a *args, f *nexthopFilter, h *rtnl.Handle) (err error) {
	_, f.master, err = nextLink(a, h)
	return err
}

// nexthopVRF is the vrf of a selector: name_is_vrf asks for the link and
// its kind, then the name is the master's.
func nexthopVRF(a *args, f *nexthopFilter, h *rtnl.Handle) error {
	v, err := a.next()
	if err != nil {
		return err
	}
	if l, err := h.LinkByName(v); err != nil || l.Kind != "vrf" {
		return invarg("Invalid VRF\n", v)
	}
	if f.master = h.LinkIndex(v); f.master == 0 {
		return invarg("VRF does not exist\n", v)
	}
	return nil
}

// nexthopFilterKeywords are ipnh_list_flush's keywords in its order of
// comparison.
var nexthopFilterKeywords = []keyword[*nhFilterReq]{
	kw("dev", func(a *args, q *nhFilterReq) error { return nexthopDev(a, q.f, q.h) }),
	kw("groups", func(_ *args, q *nhFilterReq) error { q.f.groups = true; return nil }),
	kw("master", func(a *args, q *nhFilterReq) error { return nexthopMaster(a, q.f, q.h) }),
	kw("vrf", func(a *args, q *nhFilterReq) error { return nexthopVRF(a, q.f, q.h) }),
	exact("id", func(a *args, q *nhFilterReq) error {
		n, err := nextValue(a, uint32Value, "invalid id value")
		if err != nil {
			return err
		}
		q.id, q.hasID = nexthop.ID(n), true
		return errNexthopID
	}),
	kw("protocol", func(a *args, q *nhFilterReq) error {
		// A number only (get_unsigned); 0 filters nothing.
		p, err := nextValue(a, uint32Value, "invalid protocol value")
		q.f.proto = uint32(p)
		return err
	}),
	kw("fdb", func(_ *args, q *nhFilterReq) error { q.f.fdb = true; return nil }),
}

// nexthopSelect parses a selector of list or flush into the process's
// filter; it reports an "id ID" it met.
func (ip *IP) nexthopSelect(h *rtnl.Handle, argv []string) (*nhFilterReq, error) {
	q := &nhFilterReq{h: h, f: &ip.nhFilter}
	err := walk(&args{w: argv}, nexthopFilterKeywords, q, nexthopOther[*nhFilterReq](isHelp))
	if errors.Is(err, errNexthopID) {
		err = nil
	}
	return q, err
}

// nexthopShow is ipnh_list_flush listing: the selector words update the
// process's filter (which keeps what earlier lines set), "id" answers at
// once, then a dump is listed.
func (ip *IP) nexthopShow(h *rtnl.Handle, argv []string) error {
	q, err := ip.nexthopSelect(h, argv)
	if err != nil {
		return err
	}
	if q.hasID {
		return ip.nexthopGetID(h, q.id)
	}
	p := &ip.p
	p.startJSON(ip.opts.json, ip.opts.pretty, true)
	nhs, err := ip.nexthopDump(h)
	if err != nil {
		p.abortJSON()
		return &cmdError{msg: Message(err) + "Dump terminated\n", status: exitNetlink}
	}
	for _, ni := range nhs {
		ip.printNexthop(ni)
	}
	p.endJSON(true)
	return nil
}

// nexthopFlush is ipnh_list_flush flushing: "id ID" deletes that
// nexthop (delete_nexthop's -1 makes ip exit 1), else ipnh_flush.
func (ip *IP) nexthopFlush(h *rtnl.Handle, argv []string) error {
	q, err := ip.nexthopSelect(h, argv)
	if err != nil {
		return err
	}
	if q.hasID {
		if err := h.NexthopDel(q.id); err != nil {
			return &cmdError{msg: Message(err), status: exitFailure}
		}
		return nil
	}
	return ip.nexthopFlushAll(h, len(argv) == 0)
}

// nexthopDump is rtnl_nexthopdump_req with nh_dump_filter: the dump of
// what the process's filter selects.
func (ip *IP) nexthopDump(h *rtnl.Handle) ([]rtnl.NexthopInfo, error) {
	return h.NexthopDump(ip.nhFilter.dump(ip.family))
}

// nexthopFlushAll is ipnh_flush: every dumped nexthop of the filter's
// protocol is deleted; without a selector, groups first, then the rest.
// The count adds up over the lines of a batch, as the filter does. It
// prints no JSON.
func (ip *IP) nexthopFlushAll(h *rtnl.Handle, all bool) error {
	f := &ip.nhFilter
	if all {
		f.groups, f.devIdx, f.master = true, 0, 0
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
	return nexthopBucketObject.run(ip, h, argv)
}

// nexthopBucketKeywords are ipnh_bucket_list's keywords in its order of
// comparison.
var nexthopBucketKeywords = []keyword[*nhFilterReq]{
	kw("dev", func(a *args, q *nhFilterReq) error { return nexthopDev(a, q.f, q.h) }),
	kw("master", func(a *args, q *nhFilterReq) error { return nexthopMaster(a, q.f, q.h) }),
	kw("vrf", func(a *args, q *nhFilterReq) error { return nexthopVRF(a, q.f, q.h) }),
	exact("id", func(a *args, q *nhFilterReq) error {
		n, err := nextValue(a, uint32Value, "invalid id value")
		q.f.id = nexthop.ID(n)
		return err
	}),
	exact("nhid", func(a *args, q *nhFilterReq) error {
		n, err := nextValue(a, uint32Value, "invalid id value")
		q.f.nhid = nexthop.ID(n)
		return err
	}),
}

// nexthopBucketList is ipnh_bucket_list: the selector updates the
// process's filter, and the dump sends what it holds (a groups filter
// left by an earlier line included, which the kernel refuses). A refused
// dump leaves its JSON array open, as ip does.
func (ip *IP) nexthopBucketList(h *rtnl.Handle, argv []string) error {
	f := &ip.nhFilter
	q := &nhFilterReq{h: h, f: f}
	if err := walk(&args{w: argv}, nexthopBucketKeywords, q, nexthopOther[*nhFilterReq](isHelp)); err != nil {
		return err
	}
	p := &ip.p
	p.startJSON(ip.opts.json, ip.opts.pretty, true)
	bs, err := h.NexthopBucketList(rtnl.NexthopBucketFilter{ID: f.id, NexthopID: f.nhid, NexthopFilter: f.dump(ip.family)})
	if err != nil {
		p.abortJSON()
		return dumpError(err)
	}
	for _, b := range bs {
		printNexthopBucket(p, b)
	}
	p.endJSON(true)
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

// nexthopBucketGetKeywords are ipnh_bucket_get's: anything else is its
// usage.
var nexthopBucketGetKeywords = []keyword[*nhBucketReq]{
	exact("id", func(a *args, q *nhBucketReq) error {
		n, err := nextValue(a, uint32Value, "invalid id value")
		q.id = nexthop.ID(n)
		return err
	}),
	exact("index", func(a *args, q *nhBucketReq) error {
		n, err := nextValue(a, uint16Value, "invalid bucket index value")
		q.index, q.hasIndex = uint16(n), true
		return err
	}),
}

// nhBucketReq is ipnh_bucket_get's request.
type nhBucketReq struct {
	id       nexthop.ID
	index    uint16
	hasIndex bool
}

// nexthopBucketGet is ipnh_bucket_get with ipnh_bucket_get_id.
func (ip *IP) nexthopBucketGet(h *rtnl.Handle, argv []string) error {
	q := &nhBucketReq{}
	usage := func(*args, *nhBucketReq) error { return usageErr(nexthopUsage) }
	if err := walk(&args{w: argv}, nexthopBucketGetKeywords, q, usage); err != nil {
		return err
	}
	if q.id == 0 || !q.hasIndex {
		return usageErr(nexthopUsage)
	}
	b, err := h.NexthopBucketGet(q.id, q.index)
	if err != nil {
		return err
	}
	ip.p.startJSON(ip.opts.json, ip.opts.pretty, true)
	printNexthopBucket(&ip.p, b)
	ip.p.endJSON(true)
	return nil
}

// printNexthopBucket is print_nexthop_bucket with print_nh_res_bucket.
func printNexthopBucket(p *printer, b rtnl.NexthopBucket) {
	p.openObject("")
	p.uint(printAny, "id", "id %d ", uint64(b.ID))
	p.openObject("bucket")
	p.uint(printAny, "index", "index %d ", uint64(b.Index))
	p.float(printAny, "idle_time", "idle_time %g ", clockSeconds(b.IdleTime))
	p.uint(printAny, "nhid", "nhid %d ", uint64(b.NexthopID))
	p.closeObject()
	printRtFlags(p, b.Flags.Names())
	p.str(printFP, "", "%s", "\n")
	p.closeObject()
}

// nexthopCache is ipnexthop.c's nh_cache: the nexthops print_cache_nexthop_id
// has asked the kernel for, by id. ip never updates an entry (only ip
// monitor would), so a batch's later lines print a nexthop as it was when
// first asked for.
type nexthopCache map[nexthop.ID]rtnl.NexthopInfo

// printCacheNexthopID is print_cache_nexthop_id: the nexthop id from the
// cache, or asked of the kernel (RTM_GETNEXTHOP) and cached, printed after
// fpPrefix (text only) as an object jsobj. A nexthop the kernel does not
// have prints nothing: a route keeps its nexthop, so that does not happen.
func (ip *IP) printCacheNexthopID(h *rtnl.Handle, fpPrefix, jsobj string, id nexthop.ID) {
	ni, ok := ip.nhCache[id]
	if !ok {
		var err error
		if ni, err = h.NexthopGet(id); err != nil {
			return
		}
		if ip.nhCache == nil {
			ip.nhCache = nexthopCache{}
		}
		ip.nhCache[id] = ni
	}
	ip.p.str(printFP, "", "%s", fpPrefix)
	ip.printNexthopEntry(ni, jsobj)
}
