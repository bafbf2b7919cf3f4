package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBatch(t *testing.T) {
	file := filepath.Join(t.TempDir(), "rules.ip")
	var script bytes.Buffer
	for n := 1; n <= 64; n++ {
		script.WriteString("rule add from all table " + itoa(n) + "\n")
	}
	require.NoError(t, os.WriteFile(file, script.Bytes(), 0o644))
	type result struct {
		MakespanS   float64 `json:"makespan_s"`
		RuleRTNL    int64   `json:"rule_rtnl_acquires"`
		RuleOpsLock int64   `json:"rule_ops_lock_acquires"`
	}
	runIt := func(args ...string) result {
		var out bytes.Buffer
		require.NoError(t, run(append([]string{"batch", "-json"}, append(args, file)...), &out))
		var r result
		require.NoError(t, json.Unmarshal(out.Bytes(), &r))
		return r
	}
	before := runIt("-netns", "16", "-parallel", "-before", "-4")
	after := runIt("-netns", "16", "-parallel", "-after", "-4")
	require.EqualValues(t, 16*64, before.RuleRTNL)
	require.EqualValues(t, 16, after.RuleRTNL)
	require.EqualValues(t, 16*64, after.RuleOpsLock)
	require.Greater(t, before.MakespanS, after.MakespanS)
	serial := runIt("-netns", "16", "-after", "-6")
	require.Zero(t, serial.RuleRTNL)
	require.Greater(t, serial.MakespanS, after.MakespanS)

	// A script that fails in every namespace: the run says so.
	bad := filepath.Join(t.TempDir(), "bad.ip")
	require.NoError(t, os.WriteFile(bad, []byte("rule add from all table 5\nrule add from all table 5 pref 32765\n"), 0o644))
	var out bytes.Buffer
	err := run([]string{"batch", "-netns", "2", "-4", bad}, &out)
	require.ErrorContains(t, err, "2 of 2 processes failed")
	for _, args := range [][]string{{"batch"}, {"batch", "-netns", "0", file}, {"batch", "-before", "-after", file}, {"batch", "-4", "-6", file}, {"batch", "/no/such/file"}} {
		require.Error(t, run(args, &out), "%v", args)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
