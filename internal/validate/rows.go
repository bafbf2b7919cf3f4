// Package validate holds the same-machine validation's experiments: the
// seeds' experiments and the walks around them as rows, each a set-up and a
// timed step written once as the scripts both sides run — `ip -batch`
// files and shell steps on the real kernel (internal/measure/validate),
// iproute's batch runner on netsim's kernel here — and the netsim side:
// the timed step's virtual time under a machine's costs.
package validate

import (
	"fmt"
	"regexp"
	"strings"
)

// StepKind is how a row's timed step runs its `ip` processes.
type StepKind uint8

const (
	// Batch is one `ip [OPTS] -batch FILE` process.
	Batch StepKind = iota
	// Parallel is len(Jobs) `ip [OPTS] -batch FILE` processes forked by a
	// shell loop (`ip -batch J &` each, then `wait`), in the same namespace.
	Parallel
	// Netns is Netns `ip -n ns-I [OPTS] -batch FILE` processes, one in
	// each of the namespaces ns-1 .. ns-K the set-up created, forked by a
	// shell loop and waited for.
	Netns
	// Loop is one `ip [OPTS] LINE` process per line, one after another,
	// from a shell loop.
	Loop
)

// String returns "batch", "parallel", "netns" or "loop".
func (k StepKind) String() string {
	switch k {
	case Batch:
		return "batch"
	case Parallel:
		return "parallel"
	case Netns:
		return "netns"
	case Loop:
		return "loop"
	}
	return fmt.Sprintf("step(%d)", uint8(k))
}

// Step is a row's timed step.
type Step struct {
	Kind  StepKind
	Opts  []string   // ip's options before -batch (e.g. "-6"), every process
	Lines []string   // the batch lines (Batch, Netns: each namespace's file; Loop: one process each)
	Jobs  [][]string // Parallel: each process's batch lines
	Netns int        // Netns: the namespaces, one process each
}

// Processes returns how many `ip` processes the step runs.
func (s Step) Processes() int {
	switch s.Kind {
	case Parallel:
		return len(s.Jobs)
	case Netns:
		return s.Netns
	case Loop:
		return len(s.Lines)
	}
	return 1
}

// Setup is one untimed set-up command: an `ip -batch` of Lines in the
// row's namespace, `sysctl -w Sysctl=Value` there, or Netns namespaces
// ns-1 .. ns-K made with `ip netns add`.
type Setup struct {
	Lines         []string
	Sysctl, Value string
	Netns         int
}

// Row is one experiment: a seed's mechanism, at one scale.
type Row struct {
	Seed  string // "000" .. "004"; "fib" and "addr" for the route and address walks
	Name  string // what is timed, e.g. "group del"
	Scale int    // devices, routes, addresses, namespaces, ...
	Unit  string // what Scale counts
	Setup []Setup
	Timed Step
	// Check is an `ip -o` command line whose output, after the timed
	// step, has Want lines: the step did what it says.
	Check []string
	Want  int
	// build fills Setup and Timed (Expand): a row's scripts are built
	// only for the rows that run.
	build func(r *Row)
}

// Expand builds the row's set-up and timed step if they are not built yet.
func (r *Row) Expand() {
	if r.build != nil {
		r.build(r)
		r.build = nil
	}
}

// ID is the row's name in tables and for -rows: "seed/name@scale".
func (r *Row) ID() string { return fmt.Sprintf("%s/%s@%d", r.Seed, r.Name, r.Scale) }

// MultiNetns reports whether the row makes named namespaces (ip netns
// add), which the real side keeps in a private mount namespace.
func (r *Row) MultiNetns() bool {
	for _, s := range r.Setup {
		if s.Netns > 0 {
			return true
		}
	}
	return r.Timed.Kind == Netns
}

// lines returns f(i) for i in 1..n.
func lines(n int, f func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i + 1)
	}
	return out
}

// join concatenates line lists.
func join(ls ...[]string) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}

// seed000Setup is examples/seed000.ip's set-up at n nexthops: veth eth2,
// macvlan testnh0 on it with 198.51.100.1/24, n nexthops via 198.51.100.2
// and n /32 routes each on its own nexthop.
func seed000Setup(n int) []Setup {
	dev := []string{
		"link add eth2 type veth peer name eth2p",
		"link set eth2p up",
		"link set up dev eth2",
		"link add testnh0 link eth2 type macvlan mode bridge",
		"addr add 198.51.100.1/24 dev testnh0",
		"link set testnh0 up",
	}
	return []Setup{{Lines: dev},
		{Lines: lines(n, func(i int) string { return fmt.Sprintf("nexthop add id %d via 198.51.100.2 dev testnh0", i) })},
		{Lines: lines(n, func(i int) string {
			return fmt.Sprintf("route add 10.%d.%d.0/32 nhid %d", (i-1)/256, (i-1)%256, i)
		})}}
}

// ifbUp is the set-up of seed 004's devices at n: ifb1..ifbn in group 7,
// `arp off up` (an ifb stands for a dummy: IFF_NOARP, no DAD; each gets
// an IPv6 link-local address and three IPv6 routes).
func ifbUp(n int) []Setup {
	return []Setup{
		{Lines: lines(n, func(i int) string { return fmt.Sprintf("link add ifb%d group 7 type ifb", i) })},
		{Lines: lines(n, func(i int) string { return fmt.Sprintf("link set ifb%d arp off up", i) })},
	}
}

// vethUp is a veth pair v0/v1, both up (v0 has carrier), with
// 198.51.100.1/24 on v0.
var vethUp = Setup{Lines: []string{
	"link add v0 type veth peer name v1",
	"link set v1 up",
	"link set v0 up",
	"addr add 198.51.100.1/24 dev v0",
}}

// v4Route and v6Route are the i-th route of the route rows (1 ≤ i < 2^24).
func v4Route(i int) string {
	return fmt.Sprintf("10.%d.%d.%d/32", (i-1)>>16&255, (i-1)>>8&255, (i-1)&255)
}
func v6Route(i int) string { return fmt.Sprintf("2001:db8::%x:%x/128", (i-1)>>16, (i-1)&0xffff) }

// v4Addr and v6Addr are the i-th address of the address rows
// (internal/measure/addrs.sh's files).
func v4Addr(i int) string {
	return fmt.Sprintf("10.%d.%d.%d/32", (i-1)>>16&255, (i-1)>>8&255, (i-1)&255)
}
func v6Addr(i int) string { return fmt.Sprintf("2001:db8::%x:%x/128", (i-1)>>16, (i-1)&0xffff) }

// Rows returns every row, in table order, unexpanded (Row.Expand).
func Rows() []*Row {
	var rows []*Row
	// add adds a row; build gives its set-up and timed step.
	add := func(r Row, build func() ([]Setup, Step)) {
		r.build = func(r *Row) { r.Setup, r.Timed = build() }
		rows = append(rows, &r)
	}
	noDevs := []string{"link", "show", "group", "7"}

	// Seed 000 before: this kernel flushes the FIB once per nexthop.
	for _, n := range []int{8192, 16384, 32768, 65536} {
		add(Row{Seed: "000", Name: "link down before", Scale: n, Unit: "nexthops+routes",
			Check: []string{"-4", "route", "show", "proto", "boot"}, Want: 0},
			func() ([]Setup, Step) {
				return seed000Setup(n), Step{Kind: Batch, Lines: []string{"link set testnh0 down"}}
			})
	}

	// Seed 004: ifb devices deleted by group, one by one (one process),
	// and one by one from 10 processes.
	for _, n := range []int{1000, 2000, 5000, 10000, 20000} {
		add(Row{Seed: "004", Name: "group del", Scale: n, Unit: "devices", Check: noDevs, Want: 0},
			func() ([]Setup, Step) { return ifbUp(n), Step{Kind: Batch, Lines: []string{"link del group 7"}} })
	}
	del := func(i int) string { return fmt.Sprintf("link del ifb%d", i) }
	// One by one from one process, each request's rcu_barrier and grace
	// periods waited for in turn, takes about 20 ms a device here: 5000
	// would take minutes a repetition.
	for _, n := range []int{1000, 2000} {
		add(Row{Seed: "004", Name: "one-by-one/1", Scale: n, Unit: "devices", Check: noDevs, Want: 0},
			func() ([]Setup, Step) { return ifbUp(n), Step{Kind: Batch, Lines: lines(n, del)} })
	}
	for _, n := range []int{1000, 2000, 5000} {
		add(Row{Seed: "004", Name: "one-by-one/10", Scale: n, Unit: "devices", Check: noDevs, Want: 0},
			func() ([]Setup, Step) {
				jobs := make([][]string, 10)
				for j := range jobs {
					per := n / len(jobs)
					jobs[j] = lines(per, func(i int) string { return del(j*per + i) })
				}
				return ifbUp(n), Step{Kind: Parallel, Jobs: jobs}
			})
	}

	// Seed 003 after: 1024 rules in each of K namespaces at once.
	for _, fam := range []string{"-4", "-6"} {
		defaults := map[string]int{"-4": 3, "-6": 2}[fam] // local, main (, default)
		for _, k := range []int{1, 2, 4, 8} {
			add(Row{Seed: "003", Name: "rules ipv" + fam[1:], Scale: k, Unit: "namespaces",
				Check: []string{"-n", fmt.Sprintf("ns-%d", k), fam, "rule", "show"}, Want: 1024 + defaults},
				func() ([]Setup, Step) {
					rules := lines(1024, func(i int) string { return fmt.Sprintf("rule add from all table %d", i) })
					return []Setup{{Netns: k}}, Step{Kind: Netns, Opts: []string{fam}, Lines: rules, Netns: k}
				})
		}
	}

	// Seed 002: the deletion wait, 100 devices with an IPv6 address each
	// (forwarding on: each address has its anycast route), deleted one
	// `ip link del` process each.
	for _, n := range []int{100} {
		add(Row{Seed: "002", Name: "delete", Scale: n, Unit: "devices", Check: []string{"link", "show"}, Want: 1},
			func() ([]Setup, Step) {
				return []Setup{{Sysctl: "net.ipv6.conf.default.forwarding", Value: "1"},
						{Lines: join(lines(n, func(i int) string { return fmt.Sprintf("link add ifb%d type ifb", i) }),
							lines(n, func(i int) string { return fmt.Sprintf("link set ifb%d up", i) }),
							lines(n, func(i int) string { return fmt.Sprintf("addr add 2021:%x::1/120 dev ifb%d", i, i) }))}},
					Step{Kind: Loop, Lines: lines(n, del)}
			})
	}

	// Seed 001's phases on this kernel's kinds: macvlans on a veth
	// (create, up, an IPv6 address each: their multicast lists synced to
	// the veth), and devices attached to a bridge; one `ip` process each.
	for _, n := range []int{250, 500, 1000} {
		mv := func(i int) string { return fmt.Sprintf("mv%d", i) }
		create := func() []string {
			return lines(n, func(i int) string { return fmt.Sprintf("link add %s link v0 type macvlan mode bridge", mv(i)) })
		}
		up := func() []string { return lines(n, func(i int) string { return fmt.Sprintf("link set %s up", mv(i)) }) }
		add(Row{Seed: "001", Name: "macvlan create", Scale: n, Unit: "macvlans", Check: []string{"link", "show", "type", "macvlan"}, Want: n},
			func() ([]Setup, Step) { return []Setup{vethUp}, Step{Kind: Loop, Lines: create()} })
		add(Row{Seed: "001", Name: "macvlan up", Scale: n, Unit: "macvlans", Check: []string{"link", "show", "type", "macvlan", "up"}, Want: n},
			func() ([]Setup, Step) { return []Setup{vethUp, {Lines: create()}}, Step{Kind: Loop, Lines: up()} })
		add(Row{Seed: "001", Name: "macvlan addr", Scale: n, Unit: "macvlans", Check: []string{"-6", "addr", "show", "scope", "global"}, Want: n},
			func() ([]Setup, Step) {
				addr := lines(n, func(i int) string { return fmt.Sprintf("addr add 2000::%d/64 dev %s", i, mv(i)) })
				return []Setup{vethUp, {Lines: join(create(), up())}}, Step{Kind: Loop, Lines: addr}
			})
		add(Row{Seed: "001", Name: "bridge attach", Scale: n, Unit: "ports", Check: []string{"link", "show", "master", "br0"}, Want: n},
			func() ([]Setup, Step) {
				return []Setup{{Lines: join([]string{"link add br0 type bridge", "link set br0 up"},
						lines(n, func(i int) string { return fmt.Sprintf("link add p%d type veth peer name q%d", i, i) }),
						lines(n, func(i int) string { return fmt.Sprintf("link set p%d up", i) }))}},
					Step{Kind: Loop, Lines: lines(n, func(i int) string { return fmt.Sprintf("link set p%d master br0", i) })}
			})
	}

	// Routes on a veth that is up: added, deleted (one ip -batch each),
	// and flushed by taking the device down.
	for _, fam := range []string{"4", "6"} {
		route := v4Route
		via := " via 198.51.100.2 dev v0"
		if fam == "6" {
			route, via = v6Route, " dev v0"
		}
		for _, n := range []int{10000, 100000, 1000000} {
			adds := func() []string { return lines(n, func(i int) string { return "route add " + route(i) + via }) }
			check := []string{"-" + fam, "route", "show", "dev", "v0"}
			const base = 1 // v0's prefix route: 198.51.100.0/24 or fe80::/64
			add(Row{Seed: "fib", Name: "route add ipv" + fam, Scale: n, Unit: "routes", Check: check, Want: n + base},
				func() ([]Setup, Step) { return []Setup{vethUp}, Step{Kind: Batch, Lines: adds()} })
			add(Row{Seed: "fib", Name: "route del ipv" + fam, Scale: n, Unit: "routes", Check: check, Want: base},
				func() ([]Setup, Step) {
					dels := lines(n, func(i int) string { return "route del " + route(i) + via })
					return []Setup{vethUp, {Lines: adds()}}, Step{Kind: Batch, Lines: dels}
				})
			add(Row{Seed: "fib", Name: "route flush ipv" + fam, Scale: n, Unit: "routes",
				Check: []string{"-" + fam, "route", "show", "table", "main", "dev", "v0"}, Want: 0},
				func() ([]Setup, Step) {
					return []Setup{vethUp, {Lines: adds()}}, Step{Kind: Batch, Lines: []string{"link set v0 down"}}
				})
		}
	}

	// Addresses added to one device (a veth, down): the walks of each add
	// over those already there.
	for _, fam := range []string{"4", "6"} {
		addr, ns := v4Addr, []int{1000, 5000, 10000, 20000, 50000}
		if fam == "6" {
			addr, ns = v6Addr, []int{1000, 5000, 10000, 20000}
		}
		for _, n := range ns {
			add(Row{Seed: "addr", Name: "addr add ipv" + fam, Scale: n, Unit: "addresses",
				Check: []string{"-" + fam, "addr", "show", "dev", "v0"}, Want: n},
				func() ([]Setup, Step) {
					return []Setup{{Lines: []string{"link add v0 type veth peer name v1"}}},
						Step{Kind: Batch, Lines: lines(n, func(i int) string { return "addr add " + addr(i) + " dev v0" })}
				})
		}
	}
	return rows
}

// Select returns the rows whose ID matches re (nil or "": all) and whose
// scale is at most maxScale (0: any).
func Select(rows []*Row, re string, maxScale int) ([]*Row, error) {
	var m *regexp.Regexp
	if re != "" {
		var err error
		if m, err = regexp.Compile(re); err != nil {
			return nil, fmt.Errorf("rows: %w", err)
		}
	}
	var out []*Row
	for _, r := range rows {
		if m != nil && !m.MatchString(r.ID()) || maxScale > 0 && r.Scale > maxScale {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// Script returns lines as an ip batch file.
func Script(lines []string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }
