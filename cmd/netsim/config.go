// The -config file: the kernel's behaviour switches (rtnl.Config), one per
// line, read and checked with errors naming FILE:LINE.

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
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
		bad := func(want string) (rtnl.Config, error) {
			return fail("%s=%q: want %s", key, val, want)
		}
		switch key {
		case "base":
			if len(seen) > 0 {
				return fail("base must be the first setting")
			}
			switch val {
			case "before":
				cfg = rtnl.Before
			case "after":
				cfg = rtnl.After
			default:
				return bad("before or after")
			}
		case "nexthop":
			switch val {
			case "per-nexthop":
				cfg.Nexthop = nexthop.FlushPerNexthop
			case "deferred":
				cfg.Nexthop = nexthop.FlushDeferred
			default:
				return bad("per-nexthop or deferred")
			}
		case "hwaddr":
			switch val {
			case "list", "listonly":
				cfg.HWAddr = hwaddr.ListOnly
			case "tree", "treeindexed":
				cfg.HWAddr = hwaddr.TreeIndexed
			default:
				return bad("list or tree")
			}
		case "wait":
			switch val {
			case "fixed":
				cfg.Wait = netdev.WaitFixed
			case "backoff":
				cfg.Wait = netdev.WaitBackoff
			default:
				return bad("fixed or backoff")
			}
		case "rules":
			switch val {
			case "rtnl":
				cfg.Rules = fibrules.LockRTNL
			case "per-ops":
				cfg.Rules = fibrules.LockPerOps
			default:
				return bad("rtnl or per-ops")
			}
		case "ifindex-list":
			switch val {
			case "true", "yes", "on", "1":
				cfg.IfindexList = true
			case "false", "no", "off", "0":
				cfg.IfindexList = false
			default:
				return bad("true or false")
			}
		default:
			return fail("unknown key %q (want base, nexthop, hwaddr, wait, rules or ifindex-list)", key)
		}
		seen[key] = line
	}
	if err := sc.Err(); err != nil {
		return rtnl.Config{}, fmt.Errorf("%s: %w", file, err)
	}
	return cfg, cfg.Validate()
}
