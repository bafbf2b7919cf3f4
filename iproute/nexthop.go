// `ip nexthop`: iproute2's ip/ipnexthop.c do_ipnh and its commands add,
// replace, del (ipnh_modify) and get (ipnh_get), which send
// RTM_NEWNEXTHOP, RTM_DELNEXTHOP and RTM_GETNEXTHOP (net/ipv4/nexthop.c);
// list and flush are in nexthop_list.go, buckets in nexthop_bucket.go,
// the printers in nexthop_print.go.

package iproute

import (
	"strings"
	"time"

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

// dump is the request nh_dump_filter sends of the filter, with the -4/-6
// family.
func (f *nexthopFilter) dump(family rt.Family) rtnl.NexthopDumpRequest {
	return rtnl.NexthopDumpRequest{DevIndex: f.devIdx, MasterIndex: f.master, Groups: f.groups, FDB: f.fdb, Family: family}
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
	h  *handle
	nh rtnl.NexthopRequest
	// family is nhm.nh_family: -4/-6, else set by dev, blackhole or a
	// gateway, else AF_UNSPEC, groups included.
	family rt.Family
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
		v, idx, err := nextLink(a, q.h)
		if err != nil {
			return err
		}
		q.nh.Dev, q.nh.DevIndex, q.nh.OIF = v, idx, true
		if q.family == 0 {
			q.family = rt.FamilyInet
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
			fam = rt.FamilyInet
			if v == "inet6" {
				fam = rt.FamilyInet6
			}
			if v, err = a.next(); err != nil {
				return err
			}
		}
		gw, err := getAddr(v, fam)
		if err != nil {
			return err
		}
		gf := addrFamily(gw)
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
			q.family = rt.FamilyInet
		}
		return nil
	}),
	exact("fdb", func(_ *args, q *nhReq) error { q.nh.FDB = true; return nil }),
	exact("onlink", func(_ *args, q *nhReq) error { q.nh.NHFlags |= rt.FlagOnLink; return nil }),
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
		q.nh.Protocol = rt.Protocol(p)
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

func (ip *IP) nexthopAdd(h *handle, argv []string) error {
	return ip.nexthopModify(h, argv, false)
}

func (ip *IP) nexthopReplace(h *handle, argv []string) error {
	return ip.nexthopModify(h, argv, true)
}

// nexthopParse is ipnh_modify's parse of the words.
func (ip *IP) nexthopParse(h *handle, argv []string) (*nhReq, error) {
	q := &nhReq{h: h, family: ip.family}
	if err := walk(&args{w: argv}, nexthopKeywords, q, nexthopOther[*nhReq](func(w string) bool { return w == "help" })); err != nil {
		return nil, err
	}
	q.nh.Family = q.family
	return q, nil
}

// nexthopModify is ipnh_modify: RTM_NEWNEXTHOP with
// NLM_F_CREATE|NLM_F_EXCL (add) or NLM_F_CREATE|NLM_F_REPLACE.
func (ip *IP) nexthopModify(h *handle, argv []string, replace bool) error {
	q, err := ip.nexthopParse(h, argv)
	if err != nil {
		return err
	}
	q.nh.Flags = rt.NLMCreate | rt.NLMExcl
	if replace {
		q.nh.Flags = rt.NLMCreate | rt.NLMReplace
	}
	return h.NewNexthop(q.nh)
}

// nexthopDel is ipnh_modify sending RTM_DELNEXTHOP: the words of add, and
// the kernel refuses what is not an id.
func (ip *IP) nexthopDel(h *handle, argv []string) error {
	q, err := ip.nexthopParse(h, argv)
	if err != nil {
		return err
	}
	nh := q.nh
	return h.DelNexthop(rtnl.NexthopDelRequest{ID: nh.ID, HasID: q.hasID, Header: rtnl.NexthopHeader{Protocol: nh.Protocol, Flags: nh.NHFlags},
		Other: q.typed || nh.OIF || nh.Gateway.IsValid() || nh.Blackhole || nh.FDB || nh.Group != nil || nh.Resilient != nil})
}

// parseResArgs is parse_nh_group_type_res: after "resilient", when any
// word follows, an NHA_RES_GROUP nest (the last one sent wins) holding the
// buckets and timers that follow; the first other word is left for the
// caller.
func parseResArgs(a *args, nh *rtnl.NexthopRequest) error {
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
func parseGroup(s string) ([]nexthop.GroupEntry, error) {
	first, _, _ := strings.Cut(s, "/")
	first, _, _ = strings.Cut(first, ",")
	bad := invarg("\"group\" value is invalid\n", first)
	if s == "" {
		return nil, bad
	}
	var out []nexthop.GroupEntry
	for _, part := range strings.Split(s, "/") {
		id, wt, hasW := strings.Cut(part, ",")
		n, ok := getUnsigned(id, 32)
		if !ok {
			return nil, bad
		}
		m := nexthop.GroupEntry{ID: nexthop.ID(n), Weight: 1}
		if hasW {
			w, ok := getUnsigned(wt, 32)
			if !ok || w == 0 || w > 256 {
				return nil, invarg("\"weight\" is invalid\n", wt)
			}
			m.Weight = uint32(w)
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
func (ip *IP) nexthopGet(h *handle, argv []string) error {
	id, err := nexthopID(argv)
	if err != nil {
		return err
	}
	return ip.nexthopGetID(h, id)
}

// nexthopGetID is ipnh_get_id: the answer is printed through the same
// callback as a dump, so a protocol filter set earlier applies (an empty
// JSON array then).
func (ip *IP) nexthopGetID(h *handle, id nexthop.ID) error {
	ni, err := h.GetNexthop(rtnl.NexthopGetRequest{ID: id, HasID: true})
	if err != nil {
		return err
	}
	ip.p.startJSON(ip.opts.json, ip.opts.pretty, true)
	ip.printNexthop(ni)
	ip.p.endJSON(true)
	return nil
}
