// `ip neigh`: iproute2's ip/ipneigh.c (do_ipneigh, do_show_or_flush). netsim
// keeps no neighbour tables: a listing shows what a namespace that has sent
// no unicast packet has, which is nothing, and the other commands are
// refused.

package iproute

import (
	"github.com/netsimlab/netsim/rt"
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

const noNeighTable = "netsim keeps no neighbour tables"

// neighObject is do_ipneigh's table, in its order of comparison.
var neighObject = object{
	name:  "neighbour",
	short: "neigh",
	usage: neighUsage,
	empty: (*IP).neighShow,
	commands: []command{
		{names: []string{"add*"}, refused: noNeighTable},
		{names: []string{"change*", "chg"}, refused: noNeighTable},
		{names: []string{"replace*"}, refused: noNeighTable},
		{names: []string{"delete*"}, refused: noNeighTable},
		{names: []string{"get*"}, refused: noNeighTable},
		{names: []string{"show*", "lst*", "list*"}, run: (*IP).neighShow, keywords: keywordNames(neighFilterKeywords)},
		{names: []string{"flush*"}, refused: noNeighTable},
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
	state      uint32
	stateGiven bool
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
		_, err := nextMaster(a, f.h)
		return err
	}),
	exact("vrf", func(a *args, f *neighFilter) error {
		_, err := nextVRF(a, f.h)
		return err
	}),
	exact("nomaster", func(*args, *neighFilter) error { return nil }),
	exact("unused", func(*args, *neighFilter) error { return nil }),
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
		}
		if st == 0 {
			st = 0x100
		}
		f.state |= st
		return nil
	}),
	exact("proxy", func(*args, *neighFilter) error { return nil }),
	kw("protocol", func(a *args, _ *neighFilter) error {
		_, _, err := nextProtoFilter(a)
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
	if f.family == 0 {
		f.family = rt.FamilyInet
		if p.Addr().Is6() {
			f.family = rt.FamilyInet6
		}
	}
	return nil
}

// neighShow is `ip neigh show`: its filter checked as ip checks it, then
// an empty dump. A filter that asks for NOARP entries is refused: the
// kernel creates those for the IPv6 multicast groups an interface sends
// to once up (DAD, MLD, router solicitation), which netsim does not model.
//
// Kernel: neigh_dump_info (net/core/neighbour.c).
func (ip *IP) neighShow(h *handle, argv []string) error {
	f := &neighFilter{h: h, family: ip.family, state: 0xff &^ nudNoARP}
	if err := walk(&args{w: argv}, neighFilterKeywords, f, neighFilterTo); err != nil {
		return err
	}
	// ll_init_map, then the device from the cache it fills.
	if err := h.initMap(); err != nil {
		return err
	}
	if f.dev != "" && h.LinkIndex(f.dev) == 0 {
		return nodev(f.dev)
	}
	if f.state&nudNoARP != 0 {
		return failf("ip neigh show of NOARP entries is not supported by netsim: %s, nor the NOARP entries the kernel makes for the multicast groups an interface sends to.\n", noNeighTable)
	}
	ip.p.startJSON(ip.opts.json, ip.opts.pretty, true)
	ip.p.endJSON(true)
	return nil
}
