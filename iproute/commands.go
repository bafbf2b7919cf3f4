// ip's objects and their commands as data (ip/ip.c's cmds table and each
// do_* dispatcher of iproute2 6.1), from which netsim dispatches a command
// line and generates the table of what it runs.

package iproute

import (
	"fmt"
	"sort"
	"strings"
)

// An object is one of ip's objects (address, link, route, ...) as data:
// its commands, each with its keywords and the output options netsim does
// not honour for it. The dispatcher runs commands from this table and the
// support table of docs/ip.md is generated from it, so that what netsim says
// it supports is what it runs.
type object struct {
	name  string // the full name ("maddress")
	short string // as ip names it in "try \"ip SHORT help\"" ("maddr")
	usage string

	// empty runs the object without a command (`ip maddr`).
	empty    func(ip *IP, h *handle, argv []string) error
	commands []command

	// check, if set, checks the words before the command is looked up
	// (ipnetns.c checks the name first).
	check func(ip *IP, argv []string) error
}

// A command is one of an object's commands.
type command struct {
	names []string // keyword names, "show*" matching prefixes (see keyword)
	run   func(ip *IP, h *handle, argv []string) error

	// refused, when run is nil, says why netsim does not run the command.
	refused string

	// keywords are the command's keywords, for documentation.
	keywords []string

	// refusedKeywords are the keywords ip accepts and netsim refuses by
	// name (a failed command: a -force batch goes on), with why.
	refusedKeywords map[string]string

	// unsupported are the output options netsim refuses for this
	// command (the others it prints as ip does, or ip ignores them);
	// unsupportedWhy, if set, says what netsim does not model for them.
	unsupported    optSet
	unsupportedWhy string
}

// optSet is a set of ip's output options.
type optSet uint8

const (
	optJSON optSet = 1 << iota
	optPretty
	optBrief
	optOneline
	optDetails
	optStats
)

var optNames = []struct {
	o    optSet
	name string
}{{optJSON, "-json"}, {optPretty, "-pretty"}, {optBrief, "-brief"}, {optOneline, "-oneline"}, {optDetails, "-details"}, {optStats, "-stats"}}

// set returns the options given.
func (o options) set() optSet {
	var s optSet
	for _, x := range []struct {
		on bool
		o  optSet
	}{{o.json, optJSON}, {o.pretty, optPretty}, {o.brief > 0, optBrief}, {o.oneline > 0, optOneline}, {o.details > 0, optDetails}, {o.stats > 0, optStats}} {
		if x.on {
			s |= x.o
		}
	}
	return s
}

// String lists the options as ip spells them.
func (s optSet) String() string {
	var names []string
	for _, n := range optNames {
		if s&n.o != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, " ")
}

// run dispatches argv (the words after the object) to its command.
func (o *object) run(ip *IP, h *handle, argv []string) error {
	if len(argv) == 0 {
		return o.empty(ip, h, argv)
	}
	if o.check != nil {
		if err := o.check(ip, argv); err != nil {
			return err
		}
	}
	word := argv[0]
	for i := range o.commands {
		c := &o.commands[i]
		k := keyword[struct{}]{names: c.names}
		if !k.match(word) {
			continue
		}
		if c.run == nil {
			return failf("ip %s %s is not supported by netsim: %s.\n", o.short, strings.TrimSuffix(c.names[0], "*"), c.refused)
		}
		if bad := c.unsupported & ip.opts.set(); bad != 0 {
			why := ""
			if c.unsupportedWhy != "" {
				why = ": " + c.unsupportedWhy
			}
			return failf("ip %s %s: option %s is not supported by netsim%s.\n", o.short, strings.TrimSuffix(c.names[0], "*"), bad, why)
		}
		return c.run(ip, h, argv[1:])
	}
	if matches(word, "help") {
		return usageErr(o.usage)
	}
	return unknownCmd(word, o.short)
}

// SupportRow is one command of `ip` as netsim runs it: what the support
// table of docs/ip.md lists.
type SupportRow struct {
	Object, Command string
	Keywords        []string
	RefusedKeywords []string // "keyword: why", by keyword
	Refused         string   // why netsim does not run it; "" if it does
	Unsupported     string   // output options netsim refuses for it
}

// Support returns netsim's table of ip's objects and commands.
func Support() []SupportRow {
	var out []SupportRow
	for _, o := range objects {
		if o.obj == nil {
			out = append(out, SupportRow{Object: o.name, Refused: o.refused})
			continue
		}
		for _, c := range o.obj.commands {
			var refused []string
			for k, why := range c.refusedKeywords {
				refused = append(refused, k+": "+why)
			}
			sort.Strings(refused)
			out = append(out, SupportRow{Object: o.name, Command: strings.TrimSuffix(c.names[0], "*"),
				Keywords: c.keywords, RefusedKeywords: refused, Refused: c.refused, Unsupported: c.unsupported.String()})
		}
	}
	return out
}

func (r SupportRow) String() string {
	s := fmt.Sprintf("ip %s %s", r.Object, r.Command)
	if r.Refused != "" {
		s += ": refused (" + r.Refused + ")"
	}
	return s
}
