// What the script generator may draw beyond its fixed repertoire: the
// show commands and options netsim's ip accepts, learned by asking it.

package kerneldiff

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
)

// showCommand is a show command the generator draws, with the output
// options netsim's ip runs it with.
type showCommand struct {
	args      string   // e.g. "-4 addr show"
	devFilter string   // the keyword of its device filter, or ""
	opts      []string // output options netsim takes for it, e.g. "-j -p"
}

// featureSet is what the generator may draw beyond its fixed repertoire:
// what netsim's ip accepts, learned by asking it (features), so that an
// object's output options are drawn as soon as its printer has them.
type featureSet struct {
	show        []showCommand // show commands, each with its options
	resilient   bool          // resilient nexthop groups and their buckets
	linkDetails bool          // `ip -d link show`, dumped after every generated step
}

// showCandidates are the show commands and the output options the
// generator would draw; features keeps the options netsim's ip takes.
// -s on link and addr is left out: the real kernel's devices send IPv6
// packets (router solicitations, MLD reports) and their counters move.
var showCandidates = []showCommand{
	{"-4 addr show", "dev", []string{"-j", "-j -p", "-o", "-br", "-d", "-d -j"}},
	{"addr show", "dev", []string{"-j", "-o", "-br"}},
	{"link show", "dev", []string{"-j", "-j -p", "-o", "-br", "-d", "-d -j"}},
	{"link show type veth", "", []string{"-br", "-j"}},
	{"-4 route show table all", "dev", []string{"-j", "-j -p", "-o", "-d", "-s", "-s -s", "-d -j"}},
	{"-6 route show table all", "dev", []string{"-j", "-j -p", "-o", "-d", "-d -j"}},
	{"-6 route show", "dev", []string{"-j", "-o"}},
	{"route show", "dev", []string{"-j", "-o"}},
	{"rule show", "", []string{"-j", "-j -p", "-o", "-d", "-s", "-s -s", "-d -j"}},
	{"nexthop show", "dev", []string{"-j", "-j -p", "-o", "-d", "-s", "-s -s", "-j -s"}},
	{"nexthop bucket show", "dev", []string{"-j", "-o"}},
	{"-4 maddr show", "dev", []string{"-j", "-j -p", "-o", "-s"}},
	{"maddr show", "dev", []string{"-j", "-o"}},
	{"route get 10.0.0.2", "", []string{"-j", "-j -p", "-o", "-d"}},
	{"route get fibmatch 10.0.1.1", "", []string{"-j", "-o"}},
	{"-6 route get 2001:db8::2", "", []string{"-j", "-j -p", "-o", "-d"}},
	{"-6 route get fibmatch 2001:db8:1::1", "", []string{"-j", "-o"}},
}

// features asks a fresh netsim kernel, once, which of showCandidates'
// options its ip takes (an option it does not is refused with "not
// supported by netsim"), whether it builds resilient nexthop groups, and
// whether it prints `ip -d link show`.
var features = sync.OnceValue(func() *featureSet {
	k := rtnl.MustNewKernel(rtnl.After)
	ip := iproute.New(k, k.World().NewTask("probe"))
	ip.Stdin = nil
	accepts := func(args ...string) bool {
		_, e, _ := ip.Output(args...)
		return !strings.Contains(e, "not supported by netsim") && !strings.Contains(e, "not modelled")
	}
	f := &featureSet{}
	for _, c := range showCandidates {
		keep := showCommand{args: c.args, devFilter: c.devFilter}
		for _, o := range c.opts {
			if accepts(append(strings.Fields(o), strings.Fields(c.args)...)...) {
				keep.opts = append(keep.opts, o)
			}
		}
		f.show = append(f.show, keep)
	}
	// A blackhole nexthop is on lo, which must be up.
	ip.Output("link", "set", "lo", "up")
	if _, _, st := ip.Output("nexthop", "add", "id", "1", "blackhole"); st == 0 {
		_, _, st = ip.Output("nexthop", "add", "id", "2", "group", "1", "type", "resilient", "buckets", "8")
		f.resilient = st == 0
	}
	f.linkDetails = accepts("-d", "link", "show")
	return f
})

var (
	// lifetimeRe matches an address's remaining lifetimes and a route's
	// remaining time (expires) as ip prints them, in text and in JSON.
	lifetimeRe = regexp.MustCompile(`((?:valid|preferred)_lft |expires )(\d+)(sec)|("(?:valid|preferred)_life_time": ?|"expires": ?)(\d+)`)
	// driftRe matches what counts time on the real kernel: a bridge's
	// and its ports' timers, a resilient group's unbalanced time and its
	// buckets' idle times.
	driftRe = regexp.MustCompile(`((?:` + driftNames + `) ) *[0-9.e+-]+|("(?:` + driftNames + `)": ?)[0-9.e+-]+`)
	// queuesRe matches a device's queue counts, which for a veth are the
	// machine's CPUs (veth_get_num_queues).
	queuesRe = regexp.MustCompile(`((?:numtxqueues|numrxqueues) )\d+|("num_[tr]x_queues": ?)\d+`)
)

// driftNames are the fields driftRe hides.
const driftNames = `hello_timer|tcn_timer|topology_change_timer|gc_timer|hold_timer|message_age_timer|forward_delay_timer|unbalanced_time|idle_time`

// normalize hides in a command's output or a dump what moves with the
// real time of a run or depends on the machine: remaining lifetimes are
// and a route's expiry rounded up to a multiple of 100 s (the generator
// draws lifetimes and expiries of 0,
// forever or multiples of 100 s, and a run lasts less than 100 s), timers
// and idle times become "*" (a bridge's timers padded to their width,
// "%4i.%.2i", as one), a veth's queue counts "*".
func normalize(s string) string {
	if strings.Contains(s, "_lft ") || strings.Contains(s, "_life_time\"") || strings.Contains(s, "expires") {
		s = lifetimeRe.ReplaceAllStringFunc(s, func(m string) string {
			sub := lifetimeRe.FindStringSubmatch(m)
			pre, num, post := sub[1], sub[2], sub[3]
			if pre == "" {
				pre, num, post = sub[4], sub[5], ""
			}
			n, err := strconv.ParseUint(num, 10, 64)
			if err != nil {
				return m
			}
			return pre + strconv.FormatUint((n+99)/100*100, 10) + post
		})
	}
	if strings.Contains(s, "_time") || strings.Contains(s, "_timer") {
		s = driftRe.ReplaceAllString(s, "$1$2*")
	}
	if strings.Contains(s, "queues") {
		s = queuesRe.ReplaceAllString(s, "$1$2*")
	}
	return s
}
