// `ip neigh`: iproute2's ip/ipneigh.c (do_ipneigh, do_show_or_flush,
// ipneigh_get, print_neigh); the commands that change entries are in
// neigh_modify.go. The entries the kernel makes from traffic do not exist
// in netsim (it moves no packets): a listing that asks for NOARP entries,
// which the kernel makes for the IPv6 multicast groups an interface sends
// to once up, is refused.

package iproute

import (
	"net/netip"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/neigh"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// neighUsage is ipneigh.c's usage().
const neighUsage = `Usage: ip neigh { add | del | change | replace }
                { ADDR [ lladdr LLADDR ] [ nud STATE ] proxy ADDR }
                [ dev DEV ] [ router ] [ use ] [ managed ] [ extern_learn ]
                [ protocol PROTO ]

	ip neigh { show | flush } [ proxy ] [ to PREFIX ] [ dev DEV ] [ nud STATE ]
				  [ vrf NAME ] [ nomaster ]
	ip neigh get { ADDR | proxy ADDR } dev DEV

STATE := { delay | failed | incomplete | noarp | none |
           permanent | probe | reachable | stale }
`

// noNeighTable is why `ip ntable` is refused.
const noNeighTable = "netsim shows and sets no neighbour table parameters (RTM_GETNEIGHTBL, RTM_SETNEIGHTBL)"

// neighObject is do_ipneigh's table, in its order of comparison.
var neighObject = object{
	name:  "neighbour",
	short: "neigh",
	usage: neighUsage,
	empty: (*IP).neighShow,
	commands: []command{
		{names: []string{"add*"}, run: (*IP).neighAdd, keywords: keywordNames(neighModifyKeywords)},
		{names: []string{"change*", "chg"}, run: (*IP).neighChange, keywords: keywordNames(neighModifyKeywords)},
		{names: []string{"replace*"}, run: (*IP).neighReplace, keywords: keywordNames(neighModifyKeywords)},
		{names: []string{"delete*"}, run: (*IP).neighDel, keywords: keywordNames(neighModifyKeywords)},
		{names: []string{"get*"}, run: (*IP).neighGet, keywords: keywordNames(neighGetKeywords)},
		{names: []string{"show*", "lst*", "list*"}, run: (*IP).neighShow, keywords: keywordNames(neighFilterKeywords)},
		{names: []string{"flush*"}, run: (*IP).neighFlush, keywords: keywordNames(neighFilterKeywords)},
	},
}

// Neighbour states (NUD_*).
const (
	nudIncomplete = 0x01
	nudReachable  = 0x02
	nudStale      = 0x04
	nudDelay      = 0x08
	nudProbe      = 0x10
	nudFailed     = 0x20
	nudNoARP      = 0x40
	nudPermanent  = 0x80
	nudNone       = 0x00
)

// nudState is ipneigh.c's nud_state_a2n: a state's name, or a number
// with one bit below 0x100.
func nudState(s string) (uint32, bool) {
	switch {
	case matches(s, "permanent"):
		return nudPermanent, true
	case matches(s, "reachable"):
		return nudReachable, true
	case s == "noarp":
		return nudNoARP, true
	case s == "none":
		return nudNone, true
	case s == "stale":
		return nudStale, true
	case s == "incomplete":
		return nudIncomplete, true
	case s == "delay":
		return nudDelay, true
	case s == "probe":
		return nudProbe, true
	case matches(s, "failed"):
		return nudFailed, true
	}
	v, ok := getUnsigned(s, 32)
	if !ok || v >= 0x100 || v&(v-1) != 0 {
		return 0, false
	}
	return uint32(v), true
}

// neighFilter is do_show_or_flush's filter.
type neighFilter struct {
	h          *handle
	family     rt.Family
	dev        string
	index      netdev.IfIndex
	master     int32
	state      uint32
	stateGiven bool
	flush      bool
	unused     bool
	proxy      bool
	protocol   uint8
	pfx        netip.Prefix
	pfxGiven   bool
}

// neighFilterKeywords are do_show_or_flush's keywords in its order of
// comparison; any other word is [to] PREFIX (neighFilterTo).
var neighFilterKeywords = []keyword[*neighFilter]{
	exact("dev", func(a *args, f *neighFilter) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if f.dev != "" {
			return duparg("dev", v)
		}
		f.dev = v
		return nil
	}),
	exact("master", func(a *args, f *neighFilter) error {
		_, idx, err := nextLink(a, f.h)
		f.master = int32(idx)
		return err
	}),
	exact("vrf", func(a *args, f *neighFilter) error {
		v, err := nextVRF(a, f.h)
		f.master = int32(f.h.LinkIndex(v))
		return err
	}),
	exact("nomaster", func(_ *args, f *neighFilter) error { f.master = -1; return nil }),
	exact("unused", func(_ *args, f *neighFilter) error { f.unused = true; return nil }),
	exact("nud", func(a *args, f *neighFilter) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if !f.stateGiven {
			f.stateGiven, f.state = true, 0
		}
		st, ok := nudState(v)
		if !ok {
			if v != "all" {
				return invarg("nud state is bad", v)
			}
			st = ^uint32(0)
			if f.flush {
				st &^= nudNoARP
			}
		}
		if st == 0 {
			st = 0x100
		}
		f.state |= st
		return nil
	}),
	exact("proxy", func(_ *args, f *neighFilter) error { f.proxy = true; return nil }),
	kw("protocol", func(a *args, f *neighFilter) error {
		p, _, err := nextProtoFilter(a)
		f.protocol = p
		return err
	}),
}

// neighFilterTo is the filter's last branch: [to] PREFIX, or help.
func neighFilterTo(a *args, f *neighFilter) error {
	if a.peek() == "to" {
		if _, err := a.next(); err != nil {
			return err
		}
	}
	w := a.peek()
	if matches(w, "help") {
		return usageErr(neighUsage)
	}
	p, err := getPrefix(w, f.family)
	if err != nil {
		return err
	}
	f.pfx, f.pfxGiven = p, true
	if f.family == 0 {
		f.family = rt.FamilyInet
		if p.Addr().Is6() {
			f.family = rt.FamilyInet6
		}
	}
	return nil
}

// parseNeighFilter is do_show_or_flush up to its dump: the filter's
// words, then the device resolved through ll_init_map's cache. A filter
// that asks for NOARP entries is refused: the kernel makes those for the
// IPv6 multicast groups an interface sends to once up (DAD, MLD, router
// solicitation), which netsim, moving no packets, does not.
func (ip *IP) parseNeighFilter(h *handle, argv []string, flush bool) (*neighFilter, error) {
	f := &neighFilter{h: h, family: ip.family, state: 0xff &^ nudNoARP, flush: flush}
	if flush {
		if len(argv) == 0 {
			return nil, failf("Flush requires arguments.\n")
		}
		f.state = ^uint32(nudPermanent | nudNoARP)
	}
	if err := walk(&args{w: argv}, neighFilterKeywords, f, neighFilterTo); err != nil {
		return nil, err
	}
	if err := h.initMap(); err != nil {
		return nil, err
	}
	if f.dev != "" {
		if f.index = h.LinkIndex(f.dev); f.index == 0 {
			return nil, nodev(f.dev)
		}
	}
	if f.state&nudNoARP != 0 {
		what := "show"
		if flush {
			what = "flush"
		}
		return nil, failf("ip neigh %s of NOARP entries is not supported by netsim: the kernel makes them for the multicast groups an interface sends to, from traffic, which netsim does not move.\n", what)
	}
	return f, nil
}

// dump is rtnl_neighdump_req with ipneigh_dump_filter: the family, the
// proxy flag and the NDA_IFINDEX and NDA_MASTER filters, read whole.
func (f *neighFilter) dump(strict bool) ([]rtnl.NeighInfo, error) {
	return rtnl.ReadAll[rtnl.NeighInfo](f.h.DumpNeighs(rtnl.NeighDumpRequest{
		Family: f.family, Proxy: f.proxy, Index: f.index, Master: f.master, Strict: strict,
	}))
}

// keep is print_neigh's filtering of a dumped entry.
func (f *neighFilter) keep(n *rtnl.NeighInfo) bool {
	if f.family != 0 && f.family != n.Family || f.index != 0 && f.index != n.Index {
		return false
	}
	st := uint32(n.State)
	if f.state&st == 0 && n.NTF&neigh.FlagProxy == 0 && n.NTF&neigh.FlagExtLearned == 0 &&
		(st != 0 || f.state&0x100 == 0) {
		return false
	}
	if f.pfxGiven && !addrMatch(n.Dst, f.pfx.Addr(), f.pfx.Bits()) {
		return false
	}
	if f.protocol != 0 && f.protocol != n.Protocol {
		return false
	}
	return !f.unused || n.Cache.Refcnt == 0
}

// neighShow is `ip neigh show`: the filter, a dump, the entries it keeps
// printed as print_neigh prints them.
//
// Kernel: neigh_dump_info (net/core/neighbour.c).
func (ip *IP) neighShow(h *handle, argv []string) error {
	f, err := ip.parseNeighFilter(h, argv, false)
	if err != nil {
		return err
	}
	ns, err := f.dump(!ip.inBatch)
	if err != nil {
		return err
	}
	ip.p.startJSON(ip.opts.json, ip.opts.pretty, true)
	for i := range ns {
		if f.keep(&ns[i]) {
			ip.printNeigh(&ns[i], f.index != 0)
		}
	}
	ip.p.endJSON(true)
	return nil
}

// neighMaxRounds is ipneigh.c's MAX_ROUNDS.
const neighMaxRounds = 10

// neighFlush is `ip neigh flush`: rounds of a dump and an RTM_DELNEIGH of
// every entry the filter keeps (after the first, not the failed ones), until
// a round finds none; with -s it reports the rounds, with -s -s it prints
// the entries too.
func (ip *IP) neighFlush(h *handle, argv []string) error {
	f, err := ip.parseNeighFilter(h, argv, true)
	if err != nil {
		return err
	}
	for round := 0; round < neighMaxRounds; round++ {
		ns, err := f.dump(!ip.inBatch)
		if err != nil {
			return failf("Flush terminated\n")
		}
		var dels []rtnl.NeighInfo
		for i := range ns {
			if f.keep(&ns[i]) {
				dels = append(dels, ns[i])
				if ip.opts.stats >= 2 {
					ip.printNeigh(&ns[i], f.index != 0)
				}
			}
		}
		if len(dels) == 0 {
			if ip.opts.stats > 0 {
				if round == 0 {
					ip.p.text("Nothing to flush.\n")
				} else {
					plural := ""
					if round > 1 {
						plural = "s"
					}
					ip.p.text("*** Flush is complete after %d round%s ***\n", round, plural)
				}
			}
			return nil
		}
		for _, n := range dels {
			q := rtnl.NeighRequest{Family: n.Family, Index: n.Index, State: n.State, NTF: n.NTF, Dst: n.Dst.AsSlice()}
			if err := h.DelNeigh(q); err != nil {
				return failf("Failed to send flush request: %s\n", Strerror(errno.Of(err)))
			}
		}
		if ip.opts.stats > 0 {
			ip.p.text("\n*** Round %d, deleting %d entries ***\n", round+1, len(dels))
		}
		f.state &^= nudFailed
	}
	ip.p.text("*** Flush not complete bailing out after %d rounds\n", neighMaxRounds)
	return &cmdError{status: exitFailure}
}

// printNeigh is print_neigh of an entry a dump or a get returned (ip
// -brief: print_neigh_brief). devKnown: the filter named the device, whose
// name is then not printed.
func (ip *IP) printNeigh(n *rtnl.NeighInfo, devKnown bool) {
	p := &ip.p
	p.openObject("")
	if ip.opts.brief > 0 {
		p.str(printAny, "dst", "%-39s ", n.Dst.String())
		if !devKnown && n.Index != 0 {
			p.str(printAny, "dev", "%-16s ", n.Link)
		}
		if n.HasLL {
			p.str(printAny, "lladdr", "%s", n.LLAddr.String())
		}
		if !p.isJSON() {
			p.text("\n")
		}
		p.closeObject()
		return
	}
	p.str(printAny, "dst", "%s ", n.Dst.String())
	if !devKnown && n.Index != 0 {
		if !p.isJSON() {
			p.text("dev ")
		}
		p.str(printAny, "dev", "%s ", n.Link)
	}
	if n.HasLL {
		if !p.isJSON() {
			p.text("lladdr ")
		}
		p.str(printAny, "lladdr", "%s ", n.LLAddr.String())
	}
	for _, fl := range []struct {
		f    neigh.Flags
		name string
	}{{neigh.FlagRouter, "router"}, {neigh.FlagProxy, "proxy"}, {neigh.FlagManaged, "managed"},
		{neigh.FlagExtLearned, "extern_learn"}, {neigh.FlagOffloaded, "offload"}} {
		if n.NTF&fl.f != 0 {
			p.null(printAny, fl.name, "%s ", fl.name)
		}
	}
	if ip.opts.stats > 0 && n.NTF&neigh.FlagProxy == 0 {
		const hz = 100 // get_user_hz: USER_HZ
		if n.Cache.Refcnt != 0 {
			p.uint(printAny, "refcnt", " ref %d", uint64(n.Cache.Refcnt))
		}
		p.uint(printAny, "used", " used %d", uint64(n.Cache.Used/hz))
		p.uint(printAny, "confirmed", "/%d", uint64(n.Cache.Confirmed/hz))
		p.uint(printAny, "updated", "/%d", uint64(n.Cache.Updated/hz))
		p.uint(printAny, "probes", "probes %d ", uint64(n.Probes))
	}
	if n.State != 0 {
		p.openArray(printJSON, "state")
		for _, st := range neighStateNames {
			if uint32(n.State)&st.bit != 0 {
				p.str(printAny, "", "%s ", st.name)
			}
		}
		p.closeArray(printJSON, "")
	}
	if n.Protocol != 0 {
		p.str(printAny, "protocol", "proto %s ", rt.Protocol(n.Protocol).String())
	}
	if !p.isJSON() {
		p.text("\n")
	}
	p.closeObject()
}

// neighStateNames are print_neigh_state's states, in its order.
var neighStateNames = []struct {
	bit  uint32
	name string
}{
	{nudIncomplete, "INCOMPLETE"}, {nudReachable, "REACHABLE"}, {nudStale, "STALE"},
	{nudDelay, "DELAY"}, {nudProbe, "PROBE"}, {nudFailed, "FAILED"},
	{nudNoARP, "NOARP"}, {nudPermanent, "PERMANENT"},
}
