package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/machine"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runIP(t *testing.T, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var o, e bytes.Buffer
	status = ipMain(args, strings.NewReader(stdin), &o, &e)
	return o.String(), e.String(), status
}

// TestIPBatch: a batch from stdin, its failure reported as ip does, and
// ip's exit status.
func TestIPBatch(t *testing.T) {
	script := "link add va type veth peer name vb\nlink set va up\nroute add 10.0.0.0/8 dev nothere\nlink show va\n"
	out, errOut, st := runIP(t, script, "-batch", "-")
	require.Equal(t, 1, st)
	require.Equal(t, "Cannot find device \"nothere\"\nCommand failed -:3\n", errOut)
	require.Empty(t, out)

	out, errOut, st = runIP(t, script, "-force", "-batch", "-")
	require.Equal(t, 1, st)
	require.Contains(t, out, "va@vb: <NO-CARRIER,BROADCAST,MULTICAST,UP,M-DOWN> mtu 1500 qdisc noqueue state LOWERLAYERDOWN mode DEFAULT")
	require.Equal(t, "Cannot find device \"nothere\"\nCommand failed -:3\n", errOut)
}

// TestIPOneCommand: options and a single command, exit status 2 for a
// request the kernel refused.
func TestIPOneCommand(t *testing.T) {
	out, errOut, st := runIP(t, "", "-4", "route", "show", "table", "main")
	require.Equal(t, 0, st, errOut)
	require.Empty(t, out)
	// A fresh namespace has no local table until its first local route.
	_, errOut, st = runIP(t, "", "-4", "route", "show", "table", "local")
	require.Equal(t, 2, st)
	require.Equal(t, "Error: ipv4: FIB table does not exist.\nDump terminated\n", errOut)
	_, errOut, st = runIP(t, "", "nexthop", "del", "id", "5")
	require.Equal(t, 2, st)
	require.Equal(t, "RTNETLINK answers: No such file or directory\n", errOut)
	_, errOut, st = runIP(t, "", "-n", "blue", "link")
	require.Equal(t, 255, st)
	require.Equal(t, "Cannot open network namespace \"blue\": No such file or directory\n", errOut)
}

// TestIPTime: -time prints one line per command and the totals; -triestat
// the FIB statistics.
func TestIPTime(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s.ip")
	require.NoError(t, os.WriteFile(f, []byte("link add va type veth peer name vb\nlink set va up\nlink set vb up\naddr add 10.0.0.1/24 dev va\nroute add 10.1.0.0/16 via 10.0.0.2\n"), 0o644))
	out, errOut, st := runIP(t, "", "-before", "-netsim-time", "-triestat", "-batch", f)
	require.Equal(t, 0, st, errOut)
	require.Equal(t, 6, strings.Count("\n"+out, "\n# "), out)
	require.Contains(t, out, "# line 5: ")
	require.Contains(t, out, "RTNL held")
	require.Contains(t, out, "# total: 5 commands")
	require.Contains(t, out, "Main:\n\tAver depth:")
}

// TestIPSeed000: the seed 000 example script runs through `netsim ip`.
func TestIPSeed000(t *testing.T) {
	if testing.Short() {
		t.Skip("131072 requests")
	}
	out, errOut, st := runIP(t, "", "-after", "-netsim-time", "-batch", "../../examples/seed000.ip")
	require.Equal(t, 0, st, errOut)
	require.Contains(t, out, ": link set testnh0 down\n")
	require.Contains(t, out, "# total: 131080 commands")
}

// TestIPSeedScripts: the other seeds' scripts in examples/ run unchanged,
// and show their patch's effect: seed 002's link deletions wait less
// after, seed 003's rules hold RTNL only before.
func TestIPSeedScripts(t *testing.T) {
	total := func(out string) string {
		i := strings.LastIndex(out, "# total: ")
		require.GreaterOrEqual(t, i, 0, out)
		return out[i:]
	}
	before, errOut, st := runIP(t, "", "-machine", "seed002", "-before", "-netsim-time", "-batch", "../../examples/seed002.ip")
	require.Equal(t, 0, st, errOut)
	after, errOut, st := runIP(t, "", "-machine", "seed002", "-after", "-netsim-time", "-batch", "../../examples/seed002.ip")
	require.Equal(t, 0, st, errOut)
	// On seed 002's machine (HZ=1000, every grace period GracePeriod long)
	// the patch takes 23.4 s of waits out of the 100 deletions, one poll
	// each: 251 ms against 17; the rest is the same work, the 401 `netns
	// exec ... ip` children's execs (IPExec and NetnsExec each) included.
	secs := func(out string) float64 {
		m := regexp.MustCompile(`^# total: 405 commands, ([0-9.]+)s virtual`).FindStringSubmatch(total(out))
		require.NotNil(t, m, out)
		v, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		return v
	}
	require.InDelta(t, 23.4, secs(before)-secs(after), 1e-6)

	before, errOut, st = runIP(t, "", "-before", "-netsim-time", "-4", "-batch", "../../examples/seed003.ip")
	require.Equal(t, 0, st, errOut)
	after, errOut, st = runIP(t, "", "-after", "-netsim-time", "-4", "-batch", "../../examples/seed003.ip")
	require.Equal(t, 0, st, errOut)
	require.NotContains(t, total(before), "RTNL held 0s")
	require.Contains(t, total(after), "# total: 1024 commands")
	out, errOut, st := runIP(t, "", "-6", "-batch", "../../examples/seed003.ip")
	require.Equal(t, 0, st, errOut)
	require.Empty(t, out)
}

// TestIPSeed004Group: seed 004's group deletion of 10000 devices takes
// the published 30 s of virtual time on seed 004's machine, and 15.2 s on
// the development VM's (its measured 30 ns a route visit within L2, with
// the stall of the routes' working set in the VM's caches).
func TestIPSeed004Group(t *testing.T) {
	if testing.Short() {
		t.Skip("10000 devices")
	}
	group := func(args ...string) float64 {
		out, errOut, st := runIP(t, "", append(args, "-before", "-netsim-time", "-batch", "../../examples/seed004-group.ip")...)
		require.Equal(t, 0, st, errOut)
		m := regexp.MustCompile(`# line 20005: ([0-9.]+)s virtual, .*: link del group 1\n`).FindStringSubmatch(out)
		require.NotNil(t, m, "no timing line for the group deletion")
		v, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		return v
	}
	require.InDelta(t, 30, group("-machine", "seed004"), 0.3) // calibrated to it: scenario.Calibrations, Fib6Visit
	require.InDelta(t, 15.17, group(), 0.05)
}

// TestIPOptionsReachIP checks that netsim's own options do not shadow ip's:
// -json and -time are ip's -json and -timestamp, and netsim's timing lines
// are -netsim-time and -netsim-json.
func TestIPOptionsReachIP(t *testing.T) {
	out, errOut, st := runIP(t, "", "-json", "maddr", "show", "dev", "lo")
	require.Equal(t, 0, st, errOut)
	var v []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	require.Len(t, v, 1)
	assert.Equal(t, "lo", v[0]["ifname"])
	assert.Empty(t, errOut)

	out, errOut, st = runIP(t, "", "-time", "maddr", "show", "dev", "lo")
	require.Equal(t, 0, st, errOut)
	assert.Equal(t, "1:\tlo\n\tinet6 ff02::1\n\tinet6 ff01::1\n", out)
	assert.Empty(t, errOut)

	// ip's JSON document, then netsim's lines: one stream of JSON values.
	out, errOut, st = runIP(t, "", "-netsim-json", "-j", "maddr", "show", "dev", "lo")
	require.Equal(t, 0, st, errOut)
	dec := json.NewDecoder(strings.NewReader(out))
	require.NoError(t, dec.Decode(&v), out)
	assert.Equal(t, "lo", v[0]["ifname"])
	var rec map[string]any
	require.NoError(t, dec.Decode(&rec), out)
	assert.Equal(t, "maddr show dev lo", rec["command"])
	require.NoError(t, dec.Decode(&rec), out)
	assert.Equal(t, true, rec["total"])
}

// TestIPRT6Stats: -rt6stats prints /proc/net/rt6_stats after the batch;
// the want line is the real kernel's (Linux 6.18) after the same commands
// (fib nodes, route nodes, route allocs, route entries, cache, dst
// entries, discarded).
func TestIPRT6Stats(t *testing.T) {
	f := filepath.Join(t.TempDir(), "s.ip")
	require.NoError(t, os.WriteFile(f, []byte("link add va type veth peer name vb\nlink set va up\nlink set vb up\naddr add 2001:db8::1/64 dev va\nroute add 2001:db8:1::/48 via 2001:db8::2\n"), 0o644))
	out, errOut, st := runIP(t, "", "-rt6stats", "-batch", f)
	require.Equal(t, 0, st, errOut)
	require.Equal(t, "0005 0004 0000 0006 0000 0000 0000\n", out)
}

// TestIPChargesProcess: netsim ip's virtual time is the ip process's, as
// the validation charges one: its exec (in the first command's time), and
// each batch line's parsing on top of the same requests.
func TestIPChargesProcess(t *testing.T) {
	prof, err := machine.Load("devvm")
	require.NoError(t, err)
	c := prof.Costs
	virtual := func(stdin string, args ...string) (first, total float64) {
		out, errOut, st := runIP(t, stdin, append([]string{"-netsim-json"}, args...)...)
		require.Zero(t, st, errOut)
		dec := json.NewDecoder(strings.NewReader(out))
		var rec ipTimeRecord
		require.NoError(t, dec.Decode(&rec), out)
		var tot ipTotalRecord
		for dec.More() {
			require.NoError(t, dec.Decode(&tot), out)
		}
		return rec.VirtualS, tot.VirtualS
	}
	cmdFirst, cmdTotal := virtual("", "link", "add", "d0", "type", "ifb")
	require.Equal(t, cmdFirst, cmdTotal)
	require.Greater(t, cmdTotal, c.IPExec.Seconds(), "the exec is charged")
	_, batchTotal := virtual("link add d0 type ifb\n", "-batch", "-")
	require.InDelta(t, c.IPBatchLine.Seconds(), batchTotal-cmdTotal, 1e-12, "a batch line's parsing")
}
