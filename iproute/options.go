// ip's global options as ip/ip.c's main reads them (-4, -6, -j, -br, -s,
// -d, -force, -batch, -n, ...).

package iproute

import (
	"fmt"

	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// mainState is what ip's options set besides the IP's own fields.
type mainState struct {
	force     bool
	batch     string
	haveBatch bool
}

// An option is one of ip's global options, as ip.c's main reads them: a
// word names the first option of ipOptions it matches (a prefix of the
// name unless exact), so "-b" is -batch and "-br" -brief. apply runs it and
// reports whether ip stops there with a status; refused says why netsim
// does not run it.
type option struct {
	name    string
	exact   bool
	value   bool // takes the next word as its value
	apply   func(ip *IP, st *mainState, opt, value string) (done bool, status int)
	refused string
	doc     string
}

func (o *option) match(word string) bool {
	if o.exact {
		return word == o.name
	}
	if o.name == "-color" {
		return isColorOption(word)
	}
	return matches(word, o.name)
}

func lookupOption(word string) *option {
	for i := range ipOptions {
		if ipOptions[i].match(word) {
			return &ipOptions[i]
		}
	}
	return nil
}

// set returns an apply that runs f and goes on.
func set(f func(ip *IP, st *mainState, value string)) func(*IP, *mainState, string, string) (bool, int) {
	return func(ip *IP, st *mainState, _, value string) (bool, int) {
		f(ip, st, value)
		return false, 0
	}
}

// ipOptions are ip's options in ip.c's order of comparison.
var ipOptions []option

func init() {
	ipOptions = []option{
		{name: "-loops", value: true, apply: set(func(*IP, *mainState, string) {}), doc: "netsim's flush takes one pass"},
		{name: "-family", value: true, apply: func(ip *IP, _ *mainState, _, f string) (bool, int) {
			switch f {
			case "inet":
				ip.family = rt.FamilyInet
			case "inet6":
				ip.family = rt.FamilyInet6
			case "help":
				return true, ip.fail(usageErr(mainUsage))
			case "link", "mpls", "bridge":
				return true, ip.fail(unsupportedOption("-family "+f, "netsim models the inet and inet6 families only"))
			default:
				return true, ip.fail(invarg("invalid protocol family", f))
			}
			return false, 0
		}, doc: "inet and inet6; link, mpls and bridge are refused"},
		{name: "-4", exact: true, apply: set(func(ip *IP, _ *mainState, _ string) { ip.family = rt.FamilyInet })},
		{name: "-6", exact: true, apply: set(func(ip *IP, _ *mainState, _ string) { ip.family = rt.FamilyInet6 })},
		{name: "-0", exact: true, refused: "netsim models the inet and inet6 families only"},
		{name: "-M", exact: true, refused: "netsim models the inet and inet6 families only"},
		{name: "-B", exact: true, refused: "netsim models the inet and inet6 families only"},
		{name: "-human", apply: set(func(*IP, *mainState, string) {}), doc: "statistics are zero, and print alike"},
		{name: "-human-readable", apply: set(func(*IP, *mainState, string) {}), doc: "statistics are zero, and print alike"},
		{name: "-iec", apply: set(func(*IP, *mainState, string) {}), doc: "statistics are zero, and print alike"},
		{name: "-stats", apply: set(func(ip *IP, _ *mainState, _ string) { ip.opts.stats++ })},
		{name: "-statistics", apply: set(func(ip *IP, _ *mainState, _ string) { ip.opts.stats++ })},
		{name: "-details", apply: set(func(ip *IP, _ *mainState, _ string) { ip.opts.details++ })},
		{name: "-resolve", refused: "it resolves addresses to host names, and netsim has no resolver"},
		{name: "-oneline", apply: set(func(ip *IP, _ *mainState, _ string) { ip.opts.oneline++ })},
		{name: "-timestamp", apply: set(func(*IP, *mainState, string) {}), doc: "only ip monitor prints timestamps"},
		{name: "-tshort", apply: set(func(*IP, *mainState, string) {}), doc: "only ip monitor prints timestamps"},
		{name: "-Version", apply: func(ip *IP, _ *mainState, _, _ string) (bool, int) {
			fmt.Fprintf(ip.Stdout, "ip utility, iproute2-6.1.0\n")
			return true, exitOK
		}},
		{name: "-force", apply: set(func(_ *IP, st *mainState, _ string) { st.force = true })},
		{name: "-batch", value: true, apply: set(func(_ *IP, st *mainState, f string) { st.batch, st.haveBatch = f, true })},
		{name: "-brief", apply: set(func(ip *IP, _ *mainState, _ string) { ip.opts.brief++ })},
		{name: "-json", apply: set(func(ip *IP, _ *mainState, _ string) { ip.opts.json = true })},
		{name: "-pretty", apply: set(func(ip *IP, _ *mainState, _ string) { ip.opts.pretty = true })},
		{name: "-rcvbuf", value: true, apply: func(ip *IP, _ *mainState, _, v string) (bool, int) {
			if _, ok := getUnsigned(v, 32); !ok {
				return true, ip.fail(&argError{msg: fmt.Sprintf("Invalid rcvbuf size '%s'\n", v), status: exitArg})
			}
			return false, 0
		}, doc: "netsim's socket has no buffer to size"},
		{name: "-color", apply: func(ip *IP, _ *mainState, opt, _ string) (bool, int) {
			if c := colorValue(opt); c == "" || c == "always" {
				return true, ip.fail(unsupportedOption(opt, "netsim prints no colours"))
			}
			return false, 0
		}, doc: "=never and =auto, as netsim's output is no terminal; colours (-c, =always) are refused"},
		{name: "-help", apply: func(ip *IP, _ *mainState, _, _ string) (bool, int) {
			return true, ip.fail(usageErr(mainUsage))
		}},
		{name: "-netns", value: true, apply: func(ip *IP, _ *mainState, _, ns string) (bool, int) {
			if ip.k.Net(ns) == nil {
				return true, ip.fail(&argError{msg: fmt.Sprintf("Cannot open network namespace \"%s\": No such file or directory\n", ns), status: exitArg})
			}
			ip.netns = ns
			// netns_switch: setns, a private mount namespace, /sys remounted.
			ip.charge(sim.NetnsExec)
			return false, 0
		}},
		{name: "-Numeric", refused: "netsim prints names as ip without -N does"},
		{name: "-all", apply: set(func(ip *IP, _ *mainState, _ string) { ip.all = true })},
		{name: "-echo", exact: true, refused: "netsim does not echo requests"},
	}
}

// OptionRow is one of ip's options as netsim runs it.
type OptionRow struct {
	Name    string
	Refused string // why netsim refuses it; "" if it runs it
	Note    string
}

// Options returns ip's options in ip's order, as netsim runs them.
func Options() []OptionRow {
	out := make([]OptionRow, 0, len(ipOptions))
	for _, o := range ipOptions {
		out = append(out, OptionRow{Name: o.name, Refused: o.refused, Note: o.doc})
	}
	return out
}
