// The -config file: the kernel's behaviour switches (rtnl.Config), one per
// line, read and checked with errors naming FILE:LINE.

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
)

// configHelp documents the -config file format.
const configHelp = `A -config FILE chooses the kernel's behaviour switches (rtnl.Config), one
key=value a line; blank lines and lines starting with # are ignored.
Unset switches take the values of base (after, unless the first setting
is base=before):

  base=before|after                 start from all five pre- or post-patch switches
  nexthop=per-nexthop|deferred      seed 000: FIB flush per removed nexthop or once
  hwaddr=list|tree                  seed 001: address lists searched linearly or by rbtree
  wait=fixed|backoff                seed 002: netdev_wait_allrefs polls 250 ms or backs off
  rules=rtnl|per-ops                seed 003: rule changes under RTNL or the per-ops lock
  ifindex-list=true|false           seed 004: RTM_DELLINK accepts IFLA_IFINDEX_LIST
`

// configSwitch is one key of the -config file: the values it takes (want,
// for the error message) and what each of their spellings sets.
type configSwitch struct {
	want   string
	values []configValue
}

// configValue is one value of a switch under each of its spellings.
type configValue struct {
	words []string
	set   func(*rtnl.Config)
}

// set returns what val sets, or nil if the switch has no such value.
func (s configSwitch) set(val string) func(*rtnl.Config) {
	for _, v := range s.values {
		if slices.Contains(v.words, val) {
			return v.set
		}
	}
	return nil
}

// configSwitches are the keys of the -config file (configHelp).
var configSwitches = map[string]configSwitch{
	"base": {"before or after", []configValue{
		{[]string{"before"}, func(c *rtnl.Config) { *c = rtnl.Before }},
		{[]string{"after"}, func(c *rtnl.Config) { *c = rtnl.After }},
	}},
	"nexthop": {"per-nexthop or deferred", []configValue{
		{[]string{"per-nexthop"}, func(c *rtnl.Config) { c.Nexthop = nexthop.FlushPerNexthop }},
		{[]string{"deferred"}, func(c *rtnl.Config) { c.Nexthop = nexthop.FlushDeferred }},
	}},
	"hwaddr": {"list or tree", []configValue{
		{[]string{"list", "listonly"}, func(c *rtnl.Config) { c.HWAddr = hwaddr.ListOnly }},
		{[]string{"tree", "treeindexed"}, func(c *rtnl.Config) { c.HWAddr = hwaddr.TreeIndexed }},
	}},
	"wait": {"fixed or backoff", []configValue{
		{[]string{"fixed"}, func(c *rtnl.Config) { c.Wait = netdev.WaitFixed }},
		{[]string{"backoff"}, func(c *rtnl.Config) { c.Wait = netdev.WaitBackoff }},
	}},
	"rules": {"rtnl or per-ops", []configValue{
		{[]string{"rtnl"}, func(c *rtnl.Config) { c.Rules = fibrules.LockRTNL }},
		{[]string{"per-ops"}, func(c *rtnl.Config) { c.Rules = fibrules.LockPerOps }},
	}},
	"ifindex-list": {"true or false", []configValue{
		{[]string{"true", "yes", "on", "1"}, func(c *rtnl.Config) { c.IfindexList = true }},
		{[]string{"false", "no", "off", "0"}, func(c *rtnl.Config) { c.IfindexList = false }},
	}},
}

// readConfig reads a -config file.
func readConfig(file string) (rtnl.Config, error) {
	f, err := os.Open(file)
	if err != nil {
		return rtnl.Config{}, err
	}
	defer f.Close()
	return parseConfig(file, f)
}

// parseConfig parses the -config format (configHelp); errors name
// FILE:LINE.
func parseConfig(file string, r io.Reader) (rtnl.Config, error) {
	cfg := rtnl.After
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		fail := func(format string, a ...any) (rtnl.Config, error) {
			return rtnl.Config{}, fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, a...))
		}
		key, val, ok := strings.Cut(s, "=")
		if !ok {
			return fail("%q is not key=value", s)
		}
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.ToLower(strings.TrimSpace(val))
		if prev, dup := seen[key]; dup {
			return fail("%s set again (first at line %d)", key, prev)
		}
		sw, known := configSwitches[key]
		if !known {
			return fail("unknown key %q (want base, nexthop, hwaddr, wait, rules or ifindex-list)", key)
		}
		if key == "base" && len(seen) > 0 {
			return fail("base must be the first setting")
		}
		set := sw.set(val)
		if set == nil {
			return fail("%s=%q: want %s", key, val, sw.want)
		}
		set(&cfg)
		seen[key] = line
	}
	if err := sc.Err(); err != nil {
		return rtnl.Config{}, fmt.Errorf("%s: %w", file, err)
	}
	return cfg, cfg.Validate()
}
