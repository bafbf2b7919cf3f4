package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/netsimlab/netsim/scenario"
	"github.com/stretchr/testify/require"
)

func TestBuildTable(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"build", "-dummies", "20", "-vlans", "5", "-one-by-one", "3"}, &out))
	s := out.String()
	for _, want := range []string{"virtual", "dummies", "vlans", "delete one by one", "delete the rest", "before", "after"} {
		require.Contains(t, s, want)
	}
}

func TestBuildJSON(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"build", "-dummies", "20", "-vlans", "5", "-one-by-one", "3", "-json"}, &out))
	var rows []map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &rows))
	require.Len(t, rows, 8)
	for _, r := range rows {
		for _, k := range []string{"scenario", "phase", "mode", "virtual_s", "real_s", "counters"} {
			require.Contains(t, r, k)
		}
	}
}

func TestBadInvocations(t *testing.T) {
	var out bytes.Buffer
	require.ErrorContains(t, run([]string{"frobnicate"}, &out), `unknown command "frobnicate"`)
	require.ErrorContains(t, run([]string{"build", "-vlans", "5000"}, &out), "vlans")
	require.ErrorContains(t, run([]string{"build", "extra"}, &out), "unexpected argument")
	require.Error(t, run([]string{"build", "-dummies", "x"}, &out))
	out.Reset()
	require.NoError(t, run(nil, &out))
	require.Contains(t, out.String(), "usage")
}

func TestSeedsJSON(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"seeds", "-only", "002", "-json"}, &out))
	var rows []map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &rows))
	require.Len(t, rows, 2)
	for _, r := range rows {
		for _, k := range []string{"seed", "phase", "mode", "published_s", "calibrated", "virtual_s", "real_s", "counters"} {
			require.Contains(t, r, k)
		}
		require.Equal(t, "002", r["seed"])
	}
	require.Equal(t, "before", rows[0]["mode"])
	require.Equal(t, 31.522, rows[0]["published_s"])
	// The after time is calibrated (NetnsExec of seed 002's machine is
	// fitted to it), the before time a prediction.
	cal := scenario.CalibratedRows(scenario.Calibrations)
	for _, r := range rows {
		k := scenario.RowKey{Seed: "002", Phase: r["phase"].(string), Mode: r["mode"].(string)}
		require.Equal(t, cal[k], r["calibrated"], k)
	}
	require.Equal(t, false, rows[0]["calibrated"])
	require.Equal(t, true, rows[1]["calibrated"])
	out.Reset()
	require.NoError(t, run([]string{"seeds", "-only", "002"}, &out))
	s := out.String()
	require.Contains(t, s, "published")
	require.Regexp(t, `before +31\.522s  `, s, "a prediction is not marked")
	require.Regexp(t, `after +8\.199s\* `, s, "a calibrated time is marked")
	require.Contains(t, s, "\n* calibrated: ", "the mark is explained")
	// Below full scale there is no published time, no mark and no legend.
	out.Reset()
	require.NoError(t, run([]string{"seeds", "-only", "002", "-scale", "0.5"}, &out))
	require.NotContains(t, out.String(), "*")
	require.ErrorContains(t, run([]string{"seeds", "-only", "007"}, &out), "unknown or unimplemented seed")
}
