package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/machine"
)

// TestMachines: netsim machines lists every shipped profile with its
// title; netsim machine prints one resolved, in the profile format (which
// parses back to it) or as markdown.
func TestMachines(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"machines"}, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, len(machine.Names()))
	require.Regexp(t, `^devvm +The development VM`, lines[0])

	out.Reset()
	require.NoError(t, run([]string{"machine", "seed004"}, &out))
	p, err := machine.Parse("seed004.profile", &out)
	require.NoError(t, err)
	want, _ := machine.Load("seed004")
	require.Equal(t, want, p)

	out.Reset()
	require.NoError(t, run([]string{"machine", "-md", "-own", "seed001"}, &out))
	require.Contains(t, out.String(), "| `HWAddrCompare` | 16ns | **calibrated**: seed 001, assign addresses, before")
	require.NotContains(t, out.String(), "`Syscall`", "-own leaves out what the base gives")

	require.ErrorContains(t, run([]string{"machine", "nope"}, &out), `no profile "nope"`)
	require.ErrorContains(t, run([]string{"machine"}, &out), "one NAME or FILE expected")
	require.ErrorContains(t, run([]string{"machine", "-own", "devvm"}, &out), "-own goes with -md")
}

// TestMachineFlag: -machine chooses the profile of seeds, ip, build, batch
// and sweep; a profile that does not load is an error naming it.
func TestMachineFlag(t *testing.T) {
	file := filepath.Join(t.TempDir(), "slow.profile")
	require.NoError(t, os.WriteFile(file, []byte("base devvm\nSyscall 1ms estimated slow\n"), 0o644))

	seeds := func(args ...string) []map[string]any {
		var out bytes.Buffer
		require.NoError(t, run(append([]string{"seeds", "-only", "002", "-json"}, args...), &out))
		var rows []map[string]any
		require.NoError(t, json.Unmarshal(out.Bytes(), &rows))
		return rows
	}
	own, vm := seeds(), seeds("-machine", "devvm")
	require.Equal(t, true, own[1]["calibrated"])
	require.Equal(t, false, vm[1]["calibrated"], "the VM's profile takes nothing from seed 002")
	require.Less(t, vm[1]["virtual_s"].(float64), own[1]["virtual_s"].(float64), "the VM's ip netns exec is faster")
	var out bytes.Buffer
	require.ErrorContains(t, run([]string{"seeds", "-only", "002", "-machine", "nope"}, &out), `no profile "nope"`)

	ipTime := func(args ...string) string {
		o, e, st := runIP(t, "", append(args, "-netsim-json", "link", "add", "d0", "type", "dummy")...)
		require.Zero(t, st, e)
		first, _, _ := strings.Cut(o, "\n") // the command's record: no real time
		return first
	}
	require.Equal(t, ipTime(), ipTime("-machine", "devvm"))
	require.NotEqual(t, ipTime(), ipTime("-machine", file))
	_, e, st := runIP(t, "", "-machine", "nope", "link", "show")
	require.Equal(t, 1, st)
	require.Contains(t, e, `-machine: no profile "nope"`)

	build := func(args ...string) []float64 {
		var out bytes.Buffer
		require.NoError(t, run(append([]string{"build", "-dummies", "20", "-vlans", "5", "-one-by-one", "3", "-json"}, args...), &out))
		var rows []jsonPhase
		require.NoError(t, json.Unmarshal(out.Bytes(), &rows))
		var v []float64
		for _, r := range rows {
			v = append(v, r.VirtualS)
		}
		return v
	}
	require.Equal(t, build(), build("-machine", "devvm"))
	require.NotEqual(t, build(), build("-machine", file))
	require.Error(t, run([]string{"build", "-machine", "nope"}, &out))

	batch := filepath.Join(t.TempDir(), "rules.ip")
	require.NoError(t, os.WriteFile(batch, []byte("rule add from all table 10\n"), 0o644))
	out.Reset()
	require.NoError(t, run([]string{"batch", "-machine", "devvm", "-netns", "4", "-parallel", batch}, &out))
	require.Contains(t, out.String(), "virtual on 2 CPUs", "the VM's CPUs")
	out.Reset()
	require.NoError(t, run([]string{"batch", "-netns", "4", batch}, &out))
	require.Contains(t, out.String(), "virtual on 256 CPUs", "seed 003's machine by default")
	require.Error(t, run([]string{"batch", "-machine", "nope", "-netns", "4", batch}, &out))

	out.Reset()
	require.NoError(t, run([]string{"sweep", "003", "-machine", "devvm", "-n", "2,4", "-rules", "8", "-json"}, &out))
	require.Error(t, run([]string{"sweep", "003", "-machine", "nope", "-n", "2,4"}, &out))
}
