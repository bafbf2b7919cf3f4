package machine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netsimlab/netsim/sim"
	"github.com/stretchr/testify/require"
)

// TestCostsShProfile: the profile internal/measure/costs.sh -o writes
// (through profile.sh) parses, holds the constants measured with their
// medians and the command, and takes the rest from devvm. The script runs
// on results made up here: costs.sh itself needs root and minutes.
func TestCostsShProfile(t *testing.T) {
	for _, tool := range []string{"bash", "lscpu", "awk", "getconf"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found", tool)
		}
	}
	res := t.TempDir()
	results := map[string]struct {
		unit, formula string
		values        []string
	}{
		"Fib6Visit@1000":   {"ns", "cpu(group delete) * perf share(__fib6_clean_all) / (R*n) visits", []string{"23.1", "20.4", "21.9"}},
		"GracePeriod.mean": {"ms", "mean of 300 membarrier calls", []string{"10.5"}},
		"DevRegister@1000": {"us", "cpu * perf share(register_netdevice) / devices", []string{"134.7", "120.6"}},
		"NotAConstant":     {"ms", "a figure no field takes", []string{"1"}},
		"IPExec.loop":      {"us", "wall(bash loop of EXEC_N ip link set lo up) / EXEC_N", []string{"1439", "1254"}},
		"Memory.L3eff":     {"KiB", "memlat: the L3 capacity that fits the curve best", []string{"8192", "8192", "12288"}},
		"Memory.DRAM":      {"ns", "memlat: plateau of the dependent-load latency in the DRAM range", []string{"178.5"}},
	}
	var order []string
	for key, r := range results {
		order = append(order, key)
		require.NoError(t, os.WriteFile(filepath.Join(res, key), []byte(strings.Join(r.values, "\n")+"\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(res, key+".meta"), []byte(r.unit+"\t"+r.formula+"\n"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(res, "order"), []byte(strings.Join(order, "\n")+"\n"), 0o644))
	out := filepath.Join(t.TempDir(), "here.profile")
	cmd := exec.Command("bash", "../internal/measure/profile.sh", res, out)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, string(b))

	p, err := Load(out)
	require.NoError(t, err)
	require.Equal(t, "here", p.Name)
	require.Equal(t, "devvm", p.Base)
	require.Equal(t, 22*time.Nanosecond, p.Costs.Fib6Visit, "the median, 21.9 ns, to the nearest whole nanosecond")
	require.Equal(t, Source{Measured, "costs.sh -s dev: Fib6Visit@1000 median 21.9 ns [20.4 – 23.1] over 3 runs; " +
		"cpu(group delete) * perf share(__fib6_clean_all) / (R*n) visits"}, p.Sources["Fib6Visit"])
	require.Equal(t, 10500*time.Microsecond, p.Costs.GracePeriod)
	require.Equal(t, 127650*time.Nanosecond, p.Costs.DevRegister, "the median of two runs is their mean")
	require.Equal(t, 1346500*time.Nanosecond, p.Costs.IPExec)
	require.Equal(t, int64(8<<20), p.Costs.Memory.L3, "memlat's effective capacity, not sysfs's")
	require.Contains(t, p.Sources["Memory.L3"].Text, "memlat's effective L3 capacity")
	require.Equal(t, 178500*sim.Picosecond, p.Costs.Memory.DRAM, "a latency to the hundredth of a nanosecond")
	vm, err := Load("devvm")
	require.NoError(t, err)
	require.Equal(t, vm.Costs.Syscall, p.Costs.Syscall)
	require.Equal(t, vm.Sources["Syscall"], p.Sources["Syscall"])
	require.NotEmpty(t, p.Facts.Kernel)
	require.Positive(t, p.Facts.CPUs)
	require.Equal(t, Measured, p.Sources["CPUs"].Kind)

	// A profile costs.sh wrote on the development VM (-s gp -r 1).
	sample, err := Load("../internal/measure/testdata/gp.profile")
	require.NoError(t, err)
	require.Equal(t, Measured, sample.Sources["GracePeriod"].Kind)
	require.Contains(t, sample.Sources["GracePeriod"].Text, "costs.sh -s gp: GracePeriod.mean")
	require.Equal(t, 250, sample.Facts.HZ)
	require.Equal(t, int64(32<<20), sample.Costs.Memory.L3)
}
