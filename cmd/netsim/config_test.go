package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rtnl"
)

func TestParseConfig(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       rtnl.Config
		err        string
	}{
		{"empty file: after", "", rtnl.After, ""},
		{"base before", "# all five pre-patch\nbase=before\n", rtnl.Before, ""},
		{"seed 003's switch alone", "base = before\n\nrules = per-ops\n",
			rtnl.Config{HWAddr: hwaddr.ListOnly, Wait: netdev.WaitFixed, Nexthop: nexthop.FlushPerNexthop, Rules: fibrules.LockPerOps}, ""},
		{"every key", "hwaddr=list\nwait=fixed\nifindex-list=false\nnexthop=per-nexthop\nrules=rtnl\n", rtnl.Before, ""},
		{"case and aliases", "HWADDR=TreeIndexed\nifindex-list=on\n", rtnl.After, ""},
		{"not key=value", "base=after\nhwaddr\n", rtnl.Config{}, "f.conf:2: \"hwaddr\" is not key=value"},
		{"unknown key", "colour=blue", rtnl.Config{}, "f.conf:1: unknown key \"colour\" (want base, nexthop, hwaddr, wait, rules or ifindex-list)"},
		{"bad value", "\n\nwait=sometimes\n", rtnl.Config{}, "f.conf:3: wait=\"sometimes\": want fixed or backoff"},
		{"twice", "wait=fixed\nwait=backoff\n", rtnl.Config{}, "f.conf:2: wait set again (first at line 1)"},
		{"late base", "rules=rtnl\nbase=before\n", rtnl.Config{}, "f.conf:2: base must be the first setting"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseConfig("f.conf", strings.NewReader(c.text))
			if c.err != "" {
				require.EqualError(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

// TestIPConfig: netsim ip -config chooses the kernel's switches: seed 004's
// ifindex list is refused by a kernel without it.
func TestIPConfig(t *testing.T) {
	dir := t.TempDir()
	noList := filepath.Join(dir, "nolist.conf")
	require.NoError(t, os.WriteFile(noList, []byte("ifindex-list=false\n"), 0o644))
	bad := filepath.Join(dir, "bad.conf")
	require.NoError(t, os.WriteFile(bad, []byte("# a typo\nwiat=fixed\n"), 0o644))

	_, errOut, st := runIP(t, "", "-config", noList, "link", "show")
	require.Equal(t, 0, st, errOut)
	_, errOut, st = runIP(t, "", "-config", bad, "link", "show")
	require.Equal(t, 1, st)
	require.Equal(t, "netsim ip: -config: "+bad+":2: unknown key \"wiat\" (want base, nexthop, hwaddr, wait, rules or ifindex-list)\n", errOut)
	_, errOut, st = runIP(t, "", "-config", filepath.Join(dir, "none.conf"), "link", "show")
	require.Equal(t, 1, st)
	require.Contains(t, errOut, "no such file")
	_, errOut, st = runIP(t, "", "-before", "-config", noList, "link", "show")
	require.Equal(t, 1, st)
	require.Equal(t, "netsim ip: -config and -before exclude each other\n", errOut)
	_, errOut, st = runIP(t, "", "-before", "-after", "link", "show")
	require.Equal(t, 1, st)
	require.Equal(t, "netsim ip: -before and -after exclude each other\n", errOut)
	_, errOut, st = runIP(t, "", "-config")
	require.Equal(t, 1, st)
	require.Equal(t, "netsim ip: -config needs a FILE\n", errOut)
}

// TestIPTimeJSON: -json prints -time's figures as one JSON object a line.
func TestIPTimeJSON(t *testing.T) {
	out, errOut, st := runIP(t, "link add d0 type dummy\nlink set d0 up\nlink del nothere\n", "-netsim-json", "-force", "-batch", "-")
	require.Equal(t, 1, st)
	require.Contains(t, errOut, "Command failed -:3")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4)
	var first ipTimeRecord
	require.NoError(t, jsonUnmarshal(lines[0], &first))
	require.Equal(t, ipTimeRecord{Line: 1, Command: "link add d0 type dummy", VirtualS: first.VirtualS, RTNLHeldS: first.RTNLHeldS}, first)
	require.Positive(t, first.VirtualS)
	var failed ipTimeRecord
	require.NoError(t, jsonUnmarshal(lines[2], &failed))
	require.True(t, failed.Failed)
	var total ipTotalRecord
	require.NoError(t, jsonUnmarshal(lines[3], &total))
	require.True(t, total.Total)
	require.Equal(t, 3, total.Commands)
	require.Equal(t, 1, total.Status)
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
